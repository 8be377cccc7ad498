//! Check mode (`-c`): read checksum files line by line, verify each listed
//! file, report `NAME: OK` / `NAME: FAILED` / `NAME: FAILED open or read`
//! (or JSON records), then GNU's WARNING summary (coreutils digest.c
//! `digest_check`).
//!
//! [`parse`] reads one line (pure); [`rules`] decides what lines may use;
//! this module reads a checksum file, schedules the listed files on the
//! workers (several at once in lane kernels), and turns each line into an
//! outcome for the [`CheckReport`]; [`tally`] counts and judges. The state
//! GNU keeps across checksum files lives in a [`Session`].
//!
//! Memory stays bounded by the longest line: the checksum file is streamed.
//! With `--audit DIR` ([`audit`]), the listed names are kept too, and DIR
//! is walked for the files they do not name.

pub mod audit;
pub mod formats;
pub mod layouts;
pub mod parse;
pub mod rules;
pub mod shasum;
pub mod tally;

pub use rules::algorithm_from_file_name;
pub use tally::Tally;

use crate::algo::Algorithm;
use crate::config::{CheckJob, Common, IoMode, Verbosity};
use crate::io;
use crate::report::{AuditCounts, Category, CheckReport, Console, LineAt, Verdict};
use crate::sched::{self, Item};
use crate::text::quote;
use parse::{Chosen, LineError, Parser, Preferred};
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The check-mode state GNU keeps for the whole run, across checksum files.
#[derive(Debug)]
pub struct Session {
    /// The tag of the last tagged line read in any checksum file (GNU
    /// cksum's global `DIGEST_TYPE_STRING`).
    pub last_tag: Option<&'static str>,
    /// GNU's static `bsd_reversed` (src/cksum.c): the first valid untagged
    /// line of the run fixes the form (`HEX  NAME` or `HEX NAME`) for every
    /// later checksum file, in 9.1 as in 9.11. The native face resets it
    /// per file.
    pub bsd_reversed: i8,
    /// The algorithm a tag switched `-a sha2` to, for the rest of the run
    /// (see `parse::Expect::sha2_switch`).
    pub sha2_switched: Option<crate::algo::AlgoKind>,
    /// The digest length a tagged line carried to later untagged lines
    /// (GNU cksum's global `digest_length`; `parse::Expect::carry_length`).
    pub carried_len: Option<(usize, usize)>,
}

impl Default for Session {
    fn default() -> Session {
        Session {
            last_tag: None,
            bsd_reversed: -1,
            sha2_switched: None,
            carried_len: None,
        }
    }
}

/// Verifies every checksum file of `job` in order. Returns true when GNU
/// would count every one of them as passed.
pub fn run(con: &mut Console, common: &Common, job: &CheckJob) -> bool {
    let files = &job.checksum_files;
    let mut session = Session::default();
    if let (Some(crate::config::AuditDir { dir, walk }), [manifest]) =
        (job.audit.as_deref(), &files.files[..])
    {
        if let Err(e) = std::fs::metadata(dir).and_then(|m| {
            if m.is_dir() {
                Ok(())
            } else {
                Err(crate::os::ErrorClass::NotADirectory.error())
            }
        }) {
            con.error_io(&crate::os::os_bytes(dir), &e);
            return false;
        }
        let audit = audit::Audit::new(dir, walk, manifest);
        return check_file_with(con, common, job, &mut session, manifest, Some(audit));
    }
    let mut ok = true;
    for f in crate::walk::Inputs::new(files.files.clone(), &files.files_from, files.null, None) {
        match f {
            Ok(f) => ok &= check_file(con, common, job, &mut session, &f),
            Err((name, e)) => {
                con.error_io(&crate::os::os_bytes(&name), &e);
                ok = false;
            }
        }
    }
    ok
}

/// A listed file to verify.
struct Listed {
    name: Vec<u8>,
    algo: Algorithm,
    expected: Vec<u8>,
    /// Its line number in the checksum file.
    line: u64,
    /// How `algo` was decided; `Fallback` once an alternative matched.
    chosen: Chosen,
    /// Other algorithms the digest may be (inferred from its length).
    alternatives: Vec<Algorithm>,
    /// Where a fallback's match is recorded for the file's later lines.
    preferred: Arc<Preferred>,
    /// The status line names the algorithm: the line before or after lists
    /// the same file with another one (`mhash -a md5,sha256` output).
    annotate: bool,
    /// The line was a lone digest (a digest-only checksum file).
    subject: bool,
    /// `--audit`: where the file is read (`DIR/NAME`); else `name`.
    path: Option<Vec<u8>>,
    /// Perl shasum's `U` or `^` line: the file is read that way.
    shasum: Option<crate::algo::bits::ShasumMode>,
}

impl Listed {
    /// Where the file is read.
    fn source(&self) -> &[u8] {
        self.path.as_deref().unwrap_or(&self.name)
    }

    /// Judges the digest of `algo` over the file; on a mismatch with
    /// alternatives left, computes all of them in one more read (`read`)
    /// and takes the one that matches. Returns whether one matched.
    fn judge(
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
    fn pick(&mut self, algos: &[Algorithm], all: &[u8]) -> bool {
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
enum Event {
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
    /// `--audit`: the walk found a file not listed, or an error.
    Found(audit::Found),
}

/// Reads and verifies `listed` (on a worker, or in the producer for `-`).
fn verify(mut listed: Listed, buf: &mut io::ReadBuf, mode: IoMode) -> Event {
    let name = crate::os::bytes_os(listed.source());
    let opts = io::InputOpts {
        mode,
        ..Default::default()
    };
    let result = if let Some(m) = listed.shasum {
        shasum_digest(&name, listed.algo, m, buf).map(|d| d == listed.expected)
    } else if listed.source() == b"-" && !listed.alternatives.is_empty() {
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
///
/// # Errors
/// Opening or reading failed; `InvalidInput` for a BITS line whose
/// algorithm shasum does not compute (`-a md5` with a `^` line).
fn shasum_digest(
    name: &OsStr,
    algo: Algorithm,
    m: crate::algo::bits::ShasumMode,
    buf: &mut io::ReadBuf,
) -> std::io::Result<Vec<u8>> {
    let mut hasher = crate::algo::bits::shasum_hasher(algo, m)
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    let mut total = 0;
    if name == "-" {
        io::feed(&mut crate::os::stdin_reader(), hasher.as_mut(), buf, &mut total)?;
    } else {
        let mut f = crate::os::open_input(std::path::Path::new(name), false, false)?;
        io::feed(&mut f, hasher.as_mut(), buf, &mut total)?;
    }
    Ok(hasher.finalize())
}

/// Verifies every line of the checksum file `checkfile` (`-` = stdin).
/// Returns true when GNU would count this file as passed.
pub fn check_file(
    con: &mut Console,
    common: &Common,
    job: &CheckJob,
    session: &mut Session,
    checkfile: &OsStr,
) -> bool {
    check_file_with(con, common, job, session, checkfile, None)
}

/// [`check_file`], auditing a tree when `audit` is given.
fn check_file_with(
    con: &mut Console,
    common: &Common,
    job: &CheckJob,
    session: &mut Session,
    checkfile: &OsStr,
    audit: Option<audit::Audit>,
) -> bool {
    let is_stdin = checkfile == "-";
    let name = crate::os::os_bytes(checkfile).into_owned();
    let display: &[u8] = if is_stdin { b"standard input" } else { &name };
    let native = job.dialect == crate::config::Dialect::Native;
    // The checksum file is also held apart, so that close(2)'s result can
    // be checked once its reader (perhaps a UTF-16 decoder over it) is done.
    let mut held: Option<std::sync::Arc<std::fs::File>> = None;
    let opened: std::io::Result<Box<dyn Read + Send>> = if let Some(signed) = job.signed.as_deref() {
        // `--key`: the signature is verified over the exact bytes first;
        // the lines read are those bytes (or the signed text in them).
        match signed_text(con, job, checkfile, display, signed) {
            Some(text) => Ok(Box::new(std::io::Cursor::new(text))),
            None => return false,
        }
    } else if is_stdin {
        Ok(crate::os::stdin_reader())
    } else {
        std::fs::File::open(checkfile).map(|f| {
            let f = std::sync::Arc::new(f);
            held = Some(std::sync::Arc::clone(&f));
            Box::new(Source(f)) as Box<dyn Read + Send>
        })
    };
    // mhash reads UTF-16 checksum files too (what PowerShell's `>` writes).
    let opened = if native {
        opened.and_then(formats::decode_utf16)
    } else {
        opened
    };
    let reader = match opened {
        Ok(r) => r,
        Err(e) => {
            con.error_io(display, &e);
            return false;
        }
    };
    let mut parser = Parser::new(rules::expectations(job, &name), is_stdin);
    parser.last_tag = session.last_tag;
    if let Some(k) = session.sha2_switched {
        parser.switch_to(k);
    }
    parser.carried_len = session.carried_len;
    if rules::untagged_from_file_name(job, &name) {
        parser.untagged_by = Chosen::FileName;
    }
    let run_wide = job.dialect != crate::config::Dialect::Native;
    if run_wide {
        parser.bsd_reversed = session.bsd_reversed;
    }
    let output_failed = AtomicBool::new(false);
    let mut lines = Lines {
        reader: BufReader::with_capacity(64 * 1024, reader),
        parser,
        job,
        display,
        io: common.io,
        buf: Vec::new(),
        line_no: 0,
        done: false,
        stdin_buf: None,
        lookahead: native,
        ahead: None,
        prev: None,
        prep: native.then(|| formats::Prepare::for_file(&name)),
        print_md: native.then(formats::PrintMd::default),
        held: None,
        shasum: None,
        checkfile: &name,
        subject: false,
        old_quotes: common.compat <= crate::config::GnuCompat::V9_1,
        output_failed: &output_failed,
        failed: false,
        audit,
        uncounted: 0,
    };
    let mut out = Outcomes {
        report: crate::report::check_report(job),
        job,
        checkfile: &name,
        display,
        tally: Tally::default(),
        aborted: false,
        output_failed: &output_failed,
        audit: job.audit.is_some(),
        counts: AuditCounts::default(),
    };
    let lost = schedule(common, &mut lines, &mut |ev, more| out.emit(con, ev, more));
    out.tally.misformatted += lines.uncounted;
    session.last_tag = lines.parser.last_tag;
    session.sha2_switched = lines.parser.switched;
    session.carried_len = lines.parser.carried_len;
    if run_wide {
        session.bsd_reversed = lines.parser.bsd_reversed;
    }
    // GNU checks fclose's result: an error there (after a clean read) is
    // reported as the checksum file's, in place of the summary.
    drop(lines);
    let closed = match held.map(std::sync::Arc::try_unwrap) {
        Some(Ok(f)) => crate::os::close_file(f),
        _ => Ok(()),
    };
    if lost > 0 {
        con.error_msg(format!("internal error: {lost} results were lost; rerun with -j1").as_bytes());
        return false;
    }
    if out.aborted {
        return false;
    }
    if let Err(e) = closed {
        con.error_io(display, &e);
        return false;
    }
    if out.audit {
        out.report.audit_summary(con, &out.counts);
        if out.tally.misformatted != 0 && job.verbosity != Verbosity::Status {
            let n = out.tally.misformatted;
            let what = if n == 1 {
                "line is improperly formatted"
            } else {
                "lines are improperly formatted"
            };
            con.error_msg(format!("WARNING: {n} {what}").as_bytes());
        }
        if let Some(a) = &job.audit {
            audit::hint(con, &out.counts, &a.dir, display);
        }
        return !out.counts.differs() && (!job.strict || out.tally.misformatted == 0);
    }
    out.tally.summarize(con, job, display);
    out.tally.passed(job.strict)
}

/// `--key`: reads the checksum file whole (at most
/// [`crate::sig::MAX_SIGNED_FILE`] bytes), verifies its signature and says
/// so on stderr (and in a JSON record with `--json`). Returns the bytes
/// to read as checksum lines, or `None` (after the one-line message) when
/// the signature is not good: then nothing of the file is checked.
fn signed_text(
    con: &mut Console,
    job: &CheckJob,
    checkfile: &OsStr,
    display: &[u8],
    signed: &crate::config::Signed,
) -> Option<Vec<u8>> {
    use crate::report::json::{SignatureVerdict, signature_record};
    use crate::sig::{self, Place};
    let is_stdin = checkfile == "-";
    let read = || -> std::io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        let r: Box<dyn Read> = if is_stdin {
            crate::os::stdin_reader()
        } else {
            Box::new(std::fs::File::open(checkfile)?)
        };
        r.take(sig::MAX_SIGNED_FILE + 1).read_to_end(&mut buf)?;
        if buf.len() as u64 > sig::MAX_SIGNED_FILE {
            return Err(std::io::Error::other(format!(
                "larger than {} bytes: too large to verify a signature over",
                sig::MAX_SIGNED_FILE
            )));
        }
        Ok(buf)
    };
    let content = match read() {
        Ok(c) => c,
        Err(e) => {
            con.error_io(display, &e);
            return None;
        }
    };
    let req = sig::Request {
        checksum_file: (!is_stdin).then_some(std::path::Path::new(checkfile)),
        key: std::path::Path::new(&signed.key),
        signature: signed.signature.as_deref().map(std::path::Path::new),
        namespace: &signed.namespace,
    };
    let place_bytes = |p: &Option<Place>| match p {
        Some(Place::Detached(f)) => Some(crate::os::os_bytes(f.as_os_str()).into_owned()),
        _ => None,
    };
    // Standard input is named as GNU names it, unquoted.
    let named = |con: &Console| {
        if is_stdin {
            display.to_vec()
        } else {
            con.quotef(display)
        }
    };
    let mut msg = named(con);
    msg.extend_from_slice(b": ");
    match sig::verify(&content, &req) {
        Ok(good) => {
            // `--status` prints nothing for a good run: nor this line.
            let say = job.verbosity != Verbosity::Status;
            msg.extend_from_slice(good.to_string().as_bytes());
            if say {
                con.error_msg(&msg);
            }
            if good.ignored_lines > 0 && say {
                let mut note = named(con);
                let n = good.ignored_lines;
                let s = if n == 1 { "line" } else { "lines" };
                note.extend_from_slice(
                    format!(": {n} {s} outside the signed block ignored, not checked").as_bytes(),
                );
                con.error_msg(&note);
            }
            if job.json {
                let file = place_bytes(&Some(good.place.clone()));
                let mut out = Vec::new();
                signature_record(
                    &mut out,
                    display,
                    &SignatureVerdict {
                        verdict: "good",
                        format: Some(good.format.name()),
                        key_id: Some(&good.key_id),
                        signer: good.signer.as_deref(),
                        signature_file: file.as_deref(),
                        ignored_lines: good.ignored_lines,
                        error: None,
                    },
                );
                con.write_out(&out);
            }
            Some(good.text.unwrap_or(content))
        }
        Err(bad) => {
            let line = bad.to_string();
            msg.extend_from_slice(line.as_bytes());
            con.error_msg(&msg);
            if job.json {
                let file = place_bytes(&bad.place);
                let mut out = Vec::new();
                signature_record(
                    &mut out,
                    display,
                    &SignatureVerdict {
                        verdict: bad.kind.name(),
                        format: bad.format.map(|f| f.name()),
                        key_id: bad.key_id.as_deref(),
                        signer: None,
                        signature_file: file.as_deref(),
                        ignored_lines: 0,
                        error: Some(&line),
                    },
                );
                con.write_out(&out);
            }
            None
        }
    }
}

/// Runs every line `lines` yields through the workers and passes each
/// outcome to `emit` in line order; returns the number of results lost.
fn schedule(common: &Common, lines: &mut Lines<'_>, sink: &mut (dyn FnMut(Event, bool) + Send)) -> usize {
    let mode = common.io;
    let opts = io::InputOpts {
        mode,
        ..io::InputOpts::default()
    };
    let jobs = sched::effective_jobs(common.jobs);
    let window = jobs * sched::WINDOW_PER_JOB;
    let producer = || lines.next_item();
    let emit = |ev, more| sink(ev, more);
    // Several listed files at once in the lanes of a multi-buffer kernel
    // where their algorithm has one (see `io::lanes`).
    match io::lanes::max_lane_count(&opts) {
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
            sched::run_ordered_batched(
                jobs,
                window,
                sched::Batching::lanes(l),
                producer,
                verify_batch,
                emit,
            )
        }
        None => {
            let verify = |listed, buf: &mut io::ReadBuf| verify(listed, buf, mode);
            sched::run_ordered(jobs, window, producer, verify, emit)
        }
    }
}

/// The checksum file as read, shared with the handle kept to close it.
struct Source(std::sync::Arc<std::fs::File>);

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        (&*self.0).read(buf)
    }
}

/// The longest checksum line kept, in bytes: 32 MiB. A line longer than
/// that holds no digest and name that could be checked (a name that long
/// cannot be opened: ENAMETOOLONG past 4,096 bytes), so it is read past
/// without being kept and counted improperly formatted (a comment line
/// stays a comment). GNU's `getline` keeps it whole: the same outcome.
const MAX_LINE: usize = 32 << 20;

/// A line longer than this (256 MiB) ends the checksum file, uncounted,
/// as GNU's `getline` ends it when memory gives out (`yes a | tr -d '\n'
/// | md5sum -c` under `ulimit -v`: `no properly formatted checksum lines
/// found`): endless input without a newline ends.
const END_LINE: usize = 256 << 20;

/// Reads one line (to `\n` or the end of input) into `buf`, keeping at
/// most `cap` bytes of it (and fewer where memory cannot be had); returns
/// the bytes consumed and whether the line was cut; `(0, true)` past
/// [`END_LINE`] bytes without a newline.
///
/// # Errors
/// A read error (EINTR retried a bounded number of times).
fn read_line_capped(r: &mut dyn BufRead, buf: &mut Vec<u8>, cap: usize) -> std::io::Result<(usize, bool)> {
    let (mut consumed, mut cut, mut interrupted) = (0, false, 0);
    loop {
        let avail = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted && interrupted < 1000 => {
                interrupted += 1;
                continue;
            }
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok((consumed, cut));
        }
        let (n, ends) = match memchr::memchr(b'\n', avail) {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        if !cut {
            if buf.len() + n > cap || buf.try_reserve(n).is_err() {
                cut = true;
            } else {
                buf.extend_from_slice(&avail[..n]);
            }
        }
        r.consume(n);
        consumed += n;
        if consumed > END_LINE {
            return Ok((0, true));
        }
        if ends {
            return Ok((consumed, cut));
        }
    }
}

/// The checksum file's lines, parsed into work for the scheduler.
struct Lines<'a> {
    reader: BufReader<Box<dyn Read + Send>>,
    parser: Parser,
    job: &'a CheckJob,
    display: &'a [u8],
    io: IoMode,
    buf: Vec<u8>,
    line_no: u64,
    done: bool,
    /// Standard input named in a checksum file is read here, in order,
    /// never by two threads at once.
    stdin_buf: Option<io::ReadBuf>,
    /// mhash: one line is read ahead, to tell a file listed with several
    /// algorithms (`Listed::annotate`); GNU's dialects read none ahead.
    lookahead: bool,
    ahead: Option<Item<Listed, Event>>,
    /// The previous listed file and its algorithm.
    prev: Option<(Vec<u8>, Algorithm)>,
    /// mhash: the published formats' preparation of each line.
    prep: Option<formats::Prepare>,
    /// mhash: `gpg --print-md` records being gathered.
    print_md: Option<formats::PrintMd>,
    /// A line (and its number) held back while the record it ended goes
    /// first.
    held: Option<(u64, Vec<u8>)>,
    /// The line just read was Perl shasum's `U` or `^` form.
    shasum: Option<crate::algo::bits::ShasumMode>,
    /// The checksum file's name as given (a digest-only file's subject).
    checkfile: &'a [u8],
    /// The line just read was a lone digest, for the file the checksum
    /// file's name stands for.
    subject: bool,
    /// GNU 9.1's quoting of names in messages.
    old_quotes: bool,
    /// Standard output has failed: read no more lines.
    output_failed: &'a AtomicBool,
    /// The checksum file could not be read to its end.
    failed: bool,
    /// `--audit`: the listed names, and the walk after the last line.
    audit: Option<audit::Audit>,
    /// Improperly formatted lines counted here rather than passed on (no
    /// message or record is written for them).
    uncounted: u64,
}

/// The listed file an item is about, if any.
fn listed_in(item: &mut Item<Listed, Event>) -> Option<&mut Listed> {
    match item {
        Item::Work(l) | Item::Done(Event::Verified { listed: l, .. }) => Some(l),
        Item::Done(_) => None,
    }
}

impl Lines<'_> {
    /// The next item: the checksum file's, then (`--audit`) the walk's;
    /// runs under the scheduler's lock.
    fn next_item(&mut self) -> Option<Item<Listed, Event>> {
        if let Some(item) = self.next_line_item() {
            return Some(item);
        }
        if self.failed || self.output_failed.load(Ordering::Relaxed) {
            return None;
        }
        let found = self.audit.as_mut()?.next_found()?;
        Some(Item::Done(Event::Found(found)))
    }

    /// The next item of the checksum file, one line read ahead in mhash's
    /// dialect so that a status line can name its algorithm when one file
    /// is listed with several (`f: OK (SHA256)`).
    fn next_line_item(&mut self) -> Option<Item<Listed, Event>> {
        if !self.lookahead {
            return self.read_item();
        }
        let mut cur = match self.ahead.take() {
            Some(item) => item,
            None => self.read_item()?,
        };
        let counted = self.uncounted;
        self.ahead = self.read_item();
        let mut ahead = self.ahead.take();
        // Lines only counted in between: the next line is not adjacent.
        let next = ahead
            .as_mut()
            .and_then(listed_in)
            .filter(|_| self.uncounted == counted)
            .map(|l| (l.name.clone(), l.algo));
        self.ahead = ahead;
        if let Some(l) = listed_in(&mut cur) {
            let other = |o: &(Vec<u8>, Algorithm)| o.0 == l.name && o.1 != l.algo;
            l.annotate = next.as_ref().is_some_and(other) || self.prev.as_ref().is_some_and(other);
            self.prev = Some((l.name.clone(), l.algo));
        }
        Some(cur)
    }

    /// Reads and parses lines until one names a file to verify (or the
    /// checksum file ends).
    fn read_item(&mut self) -> Option<Item<Listed, Event>> {
        loop {
            if self.output_failed.load(Ordering::Relaxed) {
                return None;
            }
            // A line read after a `gpg --print-md` record, held back
            // while the record went first.
            if let Some((at, l)) = self.held.take() {
                match self.prepared_line_at(at, &l) {
                    Some(item) => return Some(item),
                    None => continue,
                }
            }
            if self.done {
                return None;
            }
            self.buf.clear();
            if self.buf.capacity() > 1 << 20 {
                // After a long line: give the memory back.
                self.buf.shrink_to(64 * 1024);
            }
            let cut = match read_line_capped(&mut self.reader, &mut self.buf, MAX_LINE) {
                Ok((0, _)) => {
                    self.done = true;
                    // The checksum file's last record.
                    let rec = self.print_md.as_mut().and_then(formats::PrintMd::finish);
                    return rec.and_then(|(at, rec)| self.prepared_line_at(at, &rec));
                }
                Ok((_, cut)) => cut,
                Err(_) => {
                    self.done = true;
                    self.failed = true;
                    return Some(Item::Done(Event::ReadError));
                }
            };
            self.line_no += 1;
            if self.prep.is_none() && self.buf.first() == Some(&b'#') {
                continue;
            }
            if cut {
                return Some(self.item(Err(LineError::Malformed)));
            }
            let buf = std::mem::take(&mut self.buf);
            let r = self.raw_line(&buf);
            self.buf = buf;
            // An improperly formatted line nothing is printed for is only
            // counted, here: a disk image given as a checksum file is
            // millions of them.
            if let Some(Item::Done(Event::Misformatted { msg: None, .. })) = &r
                && !self.job.json
            {
                self.uncounted += 1;
                continue;
            }
            if let Some(item) = r {
                return Some(item);
            }
        }
    }

    /// One line as read (its LF still there): the native face's
    /// preparation ([`formats::Prepare`], `gpg --print-md` records), then
    /// [`Self::prepared_line`]. `None`: nothing to verify on it.
    fn raw_line(&mut self, buf: &[u8]) -> Option<Item<Listed, Event>> {
        let mut l: &[u8] = buf;
        if l.last() == Some(&b'\n') {
            l = &l[..l.len() - 1];
        }
        // GNU 8.32 keeps a CR before the LF (part of the name).
        if l.last() == Some(&b'\r') && !self.job.lines_8_32 {
            l = &l[..l.len() - 1];
        }
        let owned;
        if let Some(prep) = &mut self.prep {
            match prep.line(l) {
                formats::Prep::Skip => return None,
                formats::Prep::Hint(kind) => {
                    if self.job.algo.is_none() && self.job.family.is_empty() {
                        self.parser.expect.untagged = Some(Algorithm::new(kind));
                        self.parser.untagged_by = Chosen::Header;
                    }
                    return None;
                }
                formats::Prep::Line(p) => l = p,
                formats::Prep::Owned(v) => {
                    owned = v;
                    l = &owned;
                }
                formats::Prep::Size(name, size) => return self.size_line(name, size),
                formats::Prep::Sfv(name, digest) => {
                    let line = parse::CheckLine {
                        algo: Algorithm::new(crate::algo::AlgoKind::Crc32b),
                        digest,
                        name,
                        chosen: Chosen::Layout,
                        alternatives: Vec::new(),
                    };
                    return Some(self.item(Ok(line)));
                }
            }
            if let Some(md) = &mut self.print_md {
                let (finished, taken) = md.line(l, self.line_no);
                if let Some((at, rec)) = finished {
                    // The record first (at its own line), this line next.
                    if !taken {
                        self.held = Some((self.line_no, l.to_vec()));
                    }
                    return self.prepared_line_at(at, &rec);
                }
                if taken {
                    return None;
                }
            }
        }
        self.prepared_line(l)
    }

    /// A `distinfo` `SIZE` line: nothing to report when the file has that
    /// size or is not there (its digest line says so); a mismatch under
    /// the last tag's algorithm when its size differs (an empty expected
    /// digest, which [`Listed::judge`] never matches).
    fn size_line(&mut self, name: Vec<u8>, size: u64) -> Option<Item<Listed, Event>> {
        let path = match &self.audit {
            Some(a) => a.path_of(&audit::normalize(&name)),
            None => name.clone(),
        };
        if !layouts::size_differs(&path, size) {
            return None;
        }
        let kind = crate::algo::AlgoKind::ALL
            .into_iter()
            .find(|k| k.tag().is_some() && k.tag() == self.parser.last_tag)
            .unwrap_or(crate::algo::AlgoKind::Sha256);
        let line = parse::CheckLine {
            algo: Algorithm::new(kind),
            digest: Vec::new(),
            name,
            chosen: Chosen::Tag,
            alternatives: Vec::new(),
        };
        Some(self.item(Ok(line)))
    }

    /// [`Self::prepared_line`] for line number `at` (a `gpg --print-md`
    /// record's first line, or a line held back behind one).
    fn prepared_line_at(&mut self, at: u64, l: &[u8]) -> Option<Item<Listed, Event>> {
        let now = std::mem::replace(&mut self.line_no, at);
        let r = self.prepared_line(l);
        self.line_no = now;
        r
    }

    /// A line after the native face's preparation (or any line in GNU's
    /// dialects), parsed into an item. `None`: nothing to verify on it.
    fn prepared_line(&mut self, l: &[u8]) -> Option<Item<Listed, Event>> {
        let mut subject_line = None;
        self.subject = false;
        self.shasum = None;
        if self.prep.is_some() {
            if l.first() == Some(&b'#') {
                return None;
            }
            // A digest-only file (`kubectl.sha256`): the lone digest is
            // for the file the checksum file's name stands for.
            if formats::lone_digest(l)
                && let Some(subject) = formats::subject_of(self.checkfile)
            {
                subject_line = Some(formats::untagged_line(l, &subject));
                self.subject = true;
            } else if let Some((line, mode)) = formats::shasum_mode(l, |name| {
                let path = match &self.audit {
                    Some(a) => a.path_of(&audit::normalize(name)),
                    None => name.to_vec(),
                };
                std::fs::symlink_metadata(crate::os::bytes_os(&path)).is_ok()
            }) {
                subject_line = Some(line);
                self.shasum = Some(mode);
            }
        }
        let l = subject_line.as_deref().unwrap_or(l);
        // GNU 8.32 counts an empty line improperly formatted.
        if l.is_empty() && !self.job.lines_8_32 {
            return None;
        }
        let b2_832;
        let parsed = if l.is_empty() {
            Err(LineError::Malformed)
        } else if self.job.lines_8_32
            && self.job.dialect == crate::config::Dialect::Single
            && self
                .job
                .algo
                .is_some_and(|a| a.kind == crate::algo::AlgoKind::Blake2b)
        {
            match rules::b2sum_tag_8_32(l) {
                Ok(Some(v)) => {
                    b2_832 = v;
                    self.parser.parse(&b2_832)
                }
                Ok(None) => self.parser.parse(l),
                Err(e) => Err(e),
            }
        } else {
            self.parser.parse(l)
        };
        Some(self.item(parsed))
    }

    /// The scheduler's item for a parsed line.
    fn item(&mut self, parsed: Result<parse::CheckLine, LineError>) -> Item<Listed, Event> {
        let line = self.line_no;
        // Quoted only for a message that is printed (a line at a time).
        let (display, old_quotes) = (self.display, self.old_quotes);
        let at = |msg: String| [&quote::quotef_compat(display, old_quotes)[..], msg.as_bytes()].concat();
        match parsed {
            Ok(p) => {
                // --audit: read under DIR, shown as the walk spells it.
                let (mut name, mut path) = (p.name, None);
                if let Some(a) = self.audit.as_mut() {
                    let shown = audit::normalize(&name);
                    a.list(&shown);
                    if !shown.is_empty() {
                        name = shown;
                    }
                    path = Some(a.path_of(&name));
                }
                let (mut algo, mut alternatives) = (p.algo, p.alternatives);
                if self.shasum.is_some() && p.chosen != Chosen::Given {
                    // shasum computes SHA-1 and SHA-2 only (its %len2alg).
                    let kind = match p.digest.len() {
                        20 => crate::algo::AlgoKind::Sha1,
                        28 => crate::algo::AlgoKind::Sha224,
                        32 => crate::algo::AlgoKind::Sha256,
                        48 => crate::algo::AlgoKind::Sha384,
                        _ => crate::algo::AlgoKind::Sha512,
                    };
                    algo = Algorithm::new(kind);
                    alternatives.clear();
                }
                let listed = Listed {
                    path,
                    name,
                    algo,
                    expected: p.digest,
                    line,
                    chosen: p.chosen,
                    alternatives,
                    shasum: self.shasum,
                    preferred: Arc::clone(&self.parser.preferred),
                    annotate: false,
                    subject: self.subject,
                };
                if listed.source() == b"-" {
                    let buf = self.stdin_buf.get_or_insert_with(io::ReadBuf::default);
                    return Item::Done(verify(listed, buf, self.io));
                }
                Item::Work(listed)
            }
            Err(LineError::Malformed) => Item::Done(Event::Misformatted {
                msg: (self.job.verbosity == Verbosity::Warn).then(|| {
                    at(format!(
                        ": {line}: improperly formatted {}checksum line",
                        if self.job.lines_8_32 {
                            rules::type_string_8_32(self.job)
                        } else {
                            rules::digest_type_string(self.job, self.parser.last_tag)
                        }
                    ))
                }),
                line,
            }),
        }
    }
}

/// Where the outcomes go: counted, reported, diagnosed.
struct Outcomes<'a> {
    report: Box<dyn CheckReport>,
    job: &'a CheckJob,
    checkfile: &'a [u8],
    display: &'a [u8],
    tally: Tally,
    /// The checksum file could not be read to its end.
    aborted: bool,
    /// Set once standard output has failed: the line reader stops (GNU
    /// fails at once on `... | cksum -c > /dev/full`, endless input too).
    output_failed: &'a AtomicBool,
    /// `--audit`: files are counted by category, missing ones get no
    /// diagnostic (they are a category, not an error).
    audit: bool,
    counts: AuditCounts,
}

impl Outcomes<'_> {
    fn emit(&mut self, con: &mut Console, ev: Event, more: bool) {
        let at = |line, chosen: Chosen, annotate| LineAt {
            checksum_file: self.checkfile,
            line,
            chosen: chosen.as_str(),
            annotate,
        };
        match ev {
            Event::ReadError => {
                self.aborted = true;
                let msg = [&con.quotef(self.display)[..], b": read error"].concat();
                con.error_msg(&msg);
            }
            _ if self.aborted => {}
            Event::Found(found) => match found {
                audit::Found::New(name) => {
                    self.counts.add(Category::New);
                    self.report.found(con, &name, Category::New, None);
                }
                audit::Found::Error(name, path, e) => {
                    con.error_io(&path, &e);
                    self.counts.add(Category::Unreadable);
                    self.report.found(con, &name, Category::Unreadable, Some(&e));
                }
            },
            Event::Misformatted { msg, line } => {
                self.tally.misformatted += 1;
                if let Some(m) = msg {
                    con.error_msg(&m);
                }
                self.report.misformatted(con, at(line, Chosen::Given, false));
            }
            Event::Verified { listed, result } => {
                self.tally.properly_formatted = true;
                let Listed {
                    name,
                    algo,
                    line,
                    chosen,
                    annotate,
                    subject,
                    path,
                    ..
                } = listed;
                if self.job.debug
                    && !matches!(&result, Err(e) if self.job.ignore_missing && crate::os::ErrorClass::of(e) == Some(crate::os::ErrorClass::NotFound))
                {
                    let mut msg = quote::quotef(self.display);
                    msg.extend_from_slice(format!(": {line}: ").as_bytes());
                    msg.extend_from_slice(&quote::quotef(&name));
                    msg.extend_from_slice(
                        format!(": {}, chosen by {}", algo.name(), chosen.as_str()).as_bytes(),
                    );
                    if subject {
                        msg.extend_from_slice(
                            b" (a lone digest: the file the checksum file's name stands for)",
                        );
                    }
                    con.error_msg(&msg);
                }
                match result {
                    Err(e)
                        if self.job.ignore_missing
                            && crate::os::ErrorClass::of(&e) == Some(crate::os::ErrorClass::NotFound) => {}
                    Err(e) => {
                        if self.audit {
                            self.counts.add(Category::of(&Verdict::Unreadable(&e)));
                        }
                        if !(self.audit && crate::report::is_missing(&e)) {
                            con.error_io(path.as_deref().unwrap_or(&name), &e);
                        }
                        self.tally.open_failures += 1;
                        self.report.verified(
                            con,
                            at(line, chosen, annotate),
                            &name,
                            algo,
                            Verdict::Unreadable(&e),
                        );
                    }
                    Ok(ok) => {
                        if ok {
                            self.tally.matched = true;
                        } else {
                            self.tally.mismatched += 1;
                        }
                        let v = if ok { Verdict::Ok } else { Verdict::Mismatch };
                        if self.audit {
                            self.counts.add(Category::of(&v));
                        }
                        self.report
                            .verified(con, at(line, chosen, annotate), &name, algo, v);
                    }
                }
            }
        }
        // GNU writes each status line when its file is done.
        if !more {
            con.flush_now();
        }
        // mhash's own face stops reading at a failed write; GNU 9.1 and
        // 9.4 read the whole checksum file and count every line in the
        // summary (GNU 9.11 exits at the first failed write instead:
        // `Console::set_exits_on_write_error`).
        if self.job.dialect == crate::config::Dialect::Native && con.write_failed() {
            self.output_failed.store(true, Ordering::Relaxed);
        }
    }
}
