//! The per-line verifier: a listed file ([`Listed`]) is read and its
//! digest judged against the line's (falling back to the other algorithms
//! its digest's length allows), and the lines are run through the
//! scheduler's workers, several files at once in the lanes of a
//! multi-buffer kernel where their algorithm has one.

use super::audit;
use super::lines::Lines;
use super::parse::{Chosen, Preferred};
use crate::algo::Algorithm;
use crate::config::{Common, IoMode};
use crate::io;
use crate::sched;
use std::ffi::OsStr;
use std::sync::Arc;

/// A listed file to verify.
pub(super) struct Listed {
    pub(super) name: Vec<u8>,
    pub(super) algo: Algorithm,
    pub(super) expected: Vec<u8>,
    /// Its line number in the checksum file.
    pub(super) line: u64,
    /// How `algo` was decided; `Fallback` once an alternative matched.
    pub(super) chosen: Chosen,
    /// Other algorithms the digest may be (inferred from its length).
    pub(super) alternatives: Vec<Algorithm>,
    /// Where a fallback's match is recorded for the file's later lines.
    pub(super) preferred: Arc<Preferred>,
    /// The status line names the algorithm: the line before or after lists
    /// the same file with another one (`mhash -a md5,sha256` output).
    pub(super) annotate: bool,
    /// The line was a lone digest (a digest-only checksum file).
    pub(super) subject: bool,
    /// `--audit`: where the file is read (`DIR/NAME`); else `name`.
    pub(super) path: Option<Vec<u8>>,
    /// Perl shasum's `U` or `^` line: the file is read that way.
    pub(super) shasum: Option<crate::algo::bits::ShasumMode>,
}

impl Listed {
    /// Where the file is read.
    pub(super) fn source(&self) -> &[u8] {
        self.path.as_deref().unwrap_or(&self.name)
    }

    /// Judges the digest of `algo` over the file; on a mismatch with
    /// alternatives left, computes all of them in one more read (`read`)
    /// and takes the one that matches. Returns whether one matched.
    pub(super) fn judge(
        &mut self,
        digest: &[u8],
        read: impl FnOnce(&[Algorithm]) -> std::io::Result<Vec<u8>>,
    ) -> std::io::Result<bool> {
        // A tag may name a shorter length (`SHA1-80 (f) = ...`, GNU
        // cksum): its leading bytes are compared (GNU's hex_equal).
        if digest.get(..self.expected.len()) == Some(&self.expected[..]) && !self.expected.is_empty() {
            return Ok(true);
        }
        if self.alternatives.is_empty() {
            return Ok(false);
        }
        let algos = self.alternatives.clone();
        let all = read(&algos)?;
        Ok(self.pick(&algos, &all))
    }

    /// Takes the first of `algos` whose digest, in `all` (the digests
    /// concatenated in that order), matches; records a fallback's match.
    pub(super) fn pick(&mut self, algos: &[Algorithm], all: &[u8]) -> bool {
        let mut rest = all;
        for &a in algos {
            let (d, after) = rest.split_at(a.digest_len().min(rest.len()));
            rest = after;
            if d == self.expected {
                if a != self.algo {
                    self.algo = a;
                    self.chosen = Chosen::Fallback;
                    self.preferred.set(self.expected.len(), a.kind);
                }
                return true;
            }
        }
        false
    }
}

/// One line's outcome, emitted in line order.
pub(super) enum Event {
    /// An improperly formatted line, with the message `-w` prints.
    Misformatted { msg: Option<Vec<u8>>, line: u64 },
    /// A listed file was read: does its digest match? (`listed.algo` is
    /// the algorithm that matched, after a fallback.)
    Verified {
        listed: Listed,
        result: std::io::Result<bool>,
    },
    /// The checksum file itself could not be read further.
    ReadError,
    /// `--audit`: the walk found a file not listed, or an error; and its
    /// place among all the walk found (`--shard`'s key).
    Found(audit::Found, u64),
}

/// Reads and verifies `listed` (on a worker, or in the producer for `-`).
pub(super) fn verify(mut listed: Listed, buf: &mut io::ReadBuf, mode: IoMode) -> Event {
    let name = crate::os::bytes_os(listed.source());
    let opts = io::InputOpts {
        mode,
        ..Default::default()
    };
    let result = if let Some(m) = listed.shasum {
        shasum_digest(&name, listed.algo, m, buf).map(|d| d == listed.expected)
    } else if crate::os::reads_stdin(listed.source()) && !listed.alternatives.is_empty() {
        // Standard input can be read only once: every candidate at once.
        let mut algos = vec![listed.algo];
        algos.extend(&listed.alternatives);
        io::digest_inputs(&name, &algos, buf, &opts).map(|d| listed.pick(&algos, &d.digest))
    } else {
        io::digest_input(&name, listed.algo, buf, mode).and_then(|d| {
            listed.judge(&d.digest, |algos| {
                io::digest_inputs(&name, algos, buf, &opts).map(|d| d.digest)
            })
        })
    };
    Event::Verified { listed, result }
}

/// The digest of the input `name` read as Perl shasum's mode `m` says.
/// A `U` (universal newlines) line converts line ends only in a file
/// Perl's `-T` test calls text (Digest::SHA `addfile`: `_addfileuniv`
/// when `_istext`, else `_addfilebin`; [`super::shasum::perl_is_text`] on
/// the first read, as Perl tests its first buffer): a binary artifact
/// listed with `U` is hashed as it is, as shasum hashes it.
///
/// # Errors
/// Opening or reading failed; `InvalidInput` for a BITS line whose
/// algorithm shasum does not compute (`-a md5` with a `^` line).
pub(super) fn shasum_digest(
    name: &OsStr,
    algo: Algorithm,
    m: crate::algo::bits::ShasumMode,
    buf: &mut io::ReadBuf,
) -> std::io::Result<Vec<u8>> {
    let mut hasher = crate::algo::bits::shasum_hasher(algo, m)
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    let mut total = 0;
    let mut f;
    let reader: &mut dyn std::io::Read = if name == "-" {
        f = crate::os::stdin_reader();
        &mut f
    } else {
        f = Box::new(crate::os::open_input(std::path::Path::new(name), false, false)?);
        &mut f
    };
    if m == crate::algo::bits::ShasumMode::Universal {
        // Perl reads one buffer (8 KiB) and tests at most 512 bytes of it.
        let mut first = vec![0u8; 8192];
        let n = crate::os::read_retrying(reader, &mut first)?;
        if !super::shasum::perl_is_text(&first[..n]) {
            hasher = algo.hasher();
        }
        hasher.update(&first[..n]);
        if n == 0 {
            return Ok(hasher.finalize());
        }
    }
    io::feed(reader, hasher.as_mut(), buf, &mut total)?;
    Ok(hasher.finalize())
}

/// Runs every line `lines` yields through the workers and passes each
/// outcome to `emit` in line order; returns the number of results lost.
pub(super) fn schedule(
    common: &Common,
    lines: &mut Lines<'_>,
    sink: &mut (dyn FnMut(Event, bool) + Send),
) -> usize {
    let mode = common.io;
    let opts = io::InputOpts {
        mode,
        ..io::InputOpts::default()
    };
    let jobs = sched::effective_jobs(common.jobs);
    // What each line's item holds while it waits for its turn: its name
    // and digest (a checksum line may name a file with a name of many
    // MiB; the window then holds fewer of them, see sched::HELD_BUDGET).
    let held = sched::Held::default();
    let producer = || {
        let item = lines.next_item()?;
        held.note(match &item {
            sched::Item::Work(l) | sched::Item::Done(Event::Verified { listed: l, .. }) => {
                l.name.len() + l.expected.len()
            }
            sched::Item::Done(_) => 0,
        });
        Some(item)
    };
    let emit = |ev, more| sink(ev, more);
    // Several listed files at once in the lanes of a multi-buffer kernel
    // where their algorithm has one (see `io::lanes`).
    let work = match io::lanes::max_lane_count(&opts) {
        Some(l) => {
            let verify_batch =
                |batch: Vec<Listed>, buf: &mut io::ReadBuf, out: &mut dyn sched::Deliver<Event>| {
                    // Perl shasum's `U`/`^` lines are read their own way,
                    // not in the lanes; `at[k]`: the batch index of input k.
                    let mut batch: Vec<Option<Listed>> = batch.into_iter().map(Some).collect();
                    for (i, slot) in batch.iter_mut().enumerate() {
                        if slot.as_ref().is_some_and(|l| l.shasum.is_some())
                            && let Some(listed) = slot.take()
                        {
                            out.flush();
                            out.deliver(i, verify(listed, buf, mode));
                        }
                    }
                    let at: Vec<usize> = (0..batch.len()).filter(|&i| batch[i].is_some()).collect();
                    let names: Vec<std::ffi::OsString> = at
                        .iter()
                        .filter_map(|&i| batch[i].as_ref())
                        .map(|j| crate::os::bytes_os(j.source()))
                        .collect();
                    let inputs: Vec<(&OsStr, Algorithm)> = names
                        .iter()
                        .zip(at.iter().filter_map(|&i| batch[i].as_ref()))
                        .map(|(n, j)| (n.as_os_str(), j.algo))
                        .collect();
                    let mut sink =
                        sched::DeliverFn(|op: Option<(usize, std::io::Result<io::Digested>)>| match op {
                            Some((k, r)) => {
                                let i = at[k];
                                let mut listed = batch[i].take().expect("one result per listed file");
                                let result = r.and_then(|d| {
                                    listed.judge(&d.digest, |algos| {
                                        // A fallback (rare): its own buffer, the lanes' is in use.
                                        let mut buf = io::ReadBuf::try_new().ok_or_else(|| {
                                            std::io::Error::from(std::io::ErrorKind::OutOfMemory)
                                        })?;
                                        io::digest_inputs(&names[k], algos, &mut buf, &opts).map(|d| d.digest)
                                    })
                                });
                                out.deliver(i, Event::Verified { listed, result });
                            }
                            None => out.flush(),
                        });
                    io::lanes::digest_batch(&inputs, buf, &opts, &mut |_| {}, &mut sink);
                };
            io::lanes::reserve_descriptors(jobs);
            sched::Work::Batches(sched::Batching::lanes(l), verify_batch)
        }
        None => sched::Work::OneByOne(|listed, buf: &mut io::ReadBuf| verify(listed, buf, mode)),
    };
    sched::run_work(jobs, work, producer, emit, Some(&held))
}
