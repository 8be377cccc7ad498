//! Check mode (`-c`): read checksum files line by line, verify each listed
//! file, print `NAME: OK` / `NAME: FAILED` / `NAME: FAILED open or read`,
//! then GNU's WARNING summary (coreutils digest.c `digest_check`).
//!
//! Memory stays bounded by the longest line: the checksum file is streamed.

pub mod parse;

use crate::algo::{AlgoKind, Algorithm};
use crate::app::Run;
use crate::cli::personality::Personality;
use crate::cli::{Config, GnuCompat, Verbosity};
use crate::io;
use crate::json::Outcome;
use crate::sched::{self, Item};
use crate::text::{escape, quote};
use parse::{Expect, LineError, Parser, TagRule};
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read};

/// Counts for one checksum file, and whether anything matched.
#[derive(Debug, Default)]
struct Tally {
    misformatted: u64,
    /// mhash: lines whose algorithm could not be told (also misformatted).
    ambiguous: u64,
    open_failures: u64,
    mismatched: u64,
    properly_formatted: bool,
    matched: bool,
}

/// The algorithm a checksum file's name implies (mhash only): `SHA256SUMS`,
/// `foo.sha256`, `MD5SUMS`, `x.md5`, `B2SUMS`, `x.b2`, ...
pub fn algorithm_from_file_name(name: &[u8]) -> Option<Algorithm> {
    let base = name.rsplit(|&b| b == b'/').next().unwrap_or(name);
    let base = String::from_utf8_lossy(base).to_ascii_lowercase();
    let stem = base
        .strip_suffix("sums")
        .or_else(|| base.strip_suffix("sum"))
        .unwrap_or("");
    let ext = base
        .rsplit_once('.')
        .map(|(_, e)| e.trim_end_matches("sum"))
        .unwrap_or("");
    for cand in [stem, ext] {
        let kind = match cand {
            "md5" => AlgoKind::Md5,
            "sha1" => AlgoKind::Sha1,
            "sha224" => AlgoKind::Sha224,
            "sha256" => AlgoKind::Sha256,
            "sha384" => AlgoKind::Sha384,
            "sha512" => AlgoKind::Sha512,
            "sha3-224" => AlgoKind::Sha3_224,
            "sha3-256" => AlgoKind::Sha3_256,
            "sha3-384" => AlgoKind::Sha3_384,
            "sha3-512" => AlgoKind::Sha3_512,
            "b2" | "blake2b" | "blake2" => AlgoKind::Blake2b,
            "sm3" => AlgoKind::Sm3,
            "b3" | "blake3" => AlgoKind::Blake3,
            "xxh3" => AlgoKind::Xxh3,
            "xxh128" => AlgoKind::Xxh128,
            _ => continue,
        };
        return Some(Algorithm::new(kind));
    }
    None
}

fn expectations(cfg: &Config, checkfile: &[u8]) -> Expect {
    let base64 = cfg.compat >= GnuCompat::V9_4 || cfg.personality == Personality::Mhash;
    // Every algorithm with a tag; GNU 9.1's cksum has no SHA-3.
    let all_tags: Vec<AlgoKind> = AlgoKind::ALL
        .into_iter()
        .filter(|k| k.tag().is_some())
        .filter(|k| k.is_gnu() || cfg.personality == Personality::Mhash)
        .filter(|k| {
            cfg.compat > GnuCompat::V9_1
                || !matches!(
                    k,
                    AlgoKind::Sha3_224 | AlgoKind::Sha3_256 | AlgoKind::Sha3_384 | AlgoKind::Sha3_512
                )
        })
        .collect();
    let given: Vec<AlgoKind> = if !cfg.family.is_empty() {
        cfg.family.clone()
    } else {
        cfg.algo.map(|a| vec![a.kind]).unwrap_or_default()
    };
    match cfg.personality {
        Personality::Mhash | Personality::Cksum => {
            let untagged = match cfg.personality {
                Personality::Mhash if cfg.family.is_empty() => {
                    cfg.algo.or_else(|| algorithm_from_file_name(checkfile))
                }
                _ if cfg.family.is_empty() => cfg.algo,
                _ => None,
            };
            Expect {
                tag_rule: if given.is_empty() {
                    TagRule::Blank
                } else {
                    TagRule::AnyChar
                },
                tag_kinds: if given.is_empty() { all_tags } else { given },
                untagged,
                blake2b_auto_length: true,
                infer_by_length: untagged.is_none()
                    && (cfg.personality == Personality::Mhash || !cfg.family.is_empty()),
                base64,
                short_lines: true,
            }
        }
        _ => {
            let a = cfg.algo.unwrap_or_else(|| Algorithm::new(AlgoKind::Sha256));
            let b2 = a.kind == AlgoKind::Blake2b;
            Expect {
                tag_rule: if b2 { TagRule::AnyChar } else { TagRule::Strict },
                tag_kinds: vec![a.kind],
                untagged: Some(a),
                blake2b_auto_length: b2,
                infer_by_length: false,
                base64,
                short_lines: b2,
            }
        }
    }
}

/// The type name in "improperly formatted %s checksum line": for cksum
/// without `-a`, the tag of the last tagged line read (GNU switches its
/// global algorithm on each tag, across checksum files).
fn digest_type_string(cfg: &Config, last_tag: Option<&str>) -> String {
    if cfg.personality == Personality::Cksum
        && cfg.algo.is_none()
        && cfg.family.is_empty()
        && let Some(t) = last_tag
    {
        return format!("{t} ");
    }
    match cfg.algo {
        Some(a) if a.kind == AlgoKind::Blake2b => "BLAKE2b ".to_string(),
        Some(a) => format!(
            "{} ",
            a.tag().unwrap_or_else(|| a.kind.name().to_ascii_uppercase())
        ),
        None if cfg.family.contains(&AlgoKind::Sha256) => "SHA2 ".to_string(),
        None if cfg.family.contains(&AlgoKind::Sha3_256) => "SHA3 ".to_string(),
        None if cfg.personality == Personality::Cksum => "CRC ".to_string(),
        None => String::new(),
    }
}

/// How a name is shown in a status line, per GNU release.
fn status_name(cfg: &Config, name: &[u8]) -> Vec<u8> {
    let escape_it = match cfg.compat {
        GnuCompat::V9_1 => name.contains(&b'\n'),
        GnuCompat::V9_4 => escape::needs_escape(name),
        GnuCompat::V9_11 => return quote::quotef(name),
    };
    if escape_it {
        let mut out = vec![b'\\'];
        escape::escape_into(&mut out, name);
        out
    } else {
        name.to_vec()
    }
}

/// Verifies every line of the checksum file `checkfile` (`-` = stdin).
/// Returns true when GNU would count this file as passed.
pub fn check_file(run: &mut Run, cfg: &Config, checkfile: &OsStr) -> bool {
    let is_stdin = checkfile == "-";
    let checkfile_bytes = crate::os::os_bytes(checkfile);
    let display: &[u8] = if is_stdin {
        b"standard input"
    } else {
        &checkfile_bytes
    };
    let reader: Box<dyn Read + Send> = if is_stdin {
        crate::os::stdin_reader()
    } else {
        match std::fs::File::open(checkfile) {
            Ok(f) => Box::new(f),
            Err(e) => {
                run.error_io(display, &e);
                return false;
            }
        }
    };
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let mut parser = Parser::new(expectations(cfg, &checkfile_bytes), is_stdin);
    parser.last_tag = run.last_tag;
    let mut t = Tally::default();
    let mut aborted = false;
    let io_mode = cfg.io;
    let verify = move |job: Job, buf: &mut io::ReadBuf| {
        let name_os = crate::os::bytes_os(&job.name);
        let result = io::digest_input(&name_os, job.algo, buf, io_mode).map(|d| d.digest == job.expected);
        Event::Verified {
            name: job.name,
            result,
            line: job.line,
            algo: job.algo,
        }
    };
    // Several listed files at once in the lanes of a multi-buffer kernel
    // where their algorithm has one (see `io::lanes`).
    let opts = io::InputOpts {
        mode: io_mode,
        ..io::InputOpts::default()
    };
    let verify_batch = |jobs: Vec<Job>, buf: &mut io::ReadBuf, out: &mut dyn sched::Deliver<Event>| {
        let names: Vec<std::ffi::OsString> = jobs.iter().map(|j| crate::os::bytes_os(&j.name)).collect();
        let inputs: Vec<(&OsStr, Algorithm)> = names
            .iter()
            .zip(&jobs)
            .map(|(n, j)| (n.as_os_str(), j.algo))
            .collect();
        let mut jobs: Vec<Option<Job>> = jobs.into_iter().map(Some).collect();
        let mut sink = sched::DeliverFn(|op: Option<(usize, std::io::Result<io::Digested>)>| match op {
            Some((i, r)) => {
                let job = jobs[i].take().expect("one result per job");
                let result = r.map(|d| d.digest == job.expected);
                out.deliver(
                    i,
                    Event::Verified {
                        name: job.name,
                        result,
                        line: job.line,
                        algo: job.algo,
                    },
                );
            }
            None => out.flush(),
        });
        io::lanes::digest_batch(&inputs, buf, &opts, &mut |_| {}, &mut sink);
    };
    {
        let mut line = Vec::new();
        let mut line_no: u64 = 0;
        let mut done = false;
        let mut stdin_buf: Option<io::ReadBuf> = None;
        // Reads and parses lines until one names a file to verify (or the
        // checksum file ends); runs under the scheduler's lock, in order.
        let producer = || -> Option<Item<Job, Event>> {
            loop {
                if done {
                    return None;
                }
                line.clear();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) => return None,
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => {
                        done = true;
                        return Some(Item::Done(Event::ReadError));
                    }
                }
                line_no += 1;
                if line[0] == b'#' {
                    continue;
                }
                let mut l: &[u8] = &line;
                if l.last() == Some(&b'\n') {
                    l = &l[..l.len() - 1];
                }
                if l.last() == Some(&b'\r') {
                    l = &l[..l.len() - 1];
                }
                if l.is_empty() {
                    continue;
                }
                match parser.parse(l) {
                    Ok(p) => {
                        let job = Job {
                            name: p.name,
                            algo: p.algo,
                            expected: p.digest,
                            line: line_no,
                        };
                        // Standard input named in a checksum file is read
                        // here, in order, never by two threads at once.
                        if job.name == b"-" {
                            let buf = stdin_buf.get_or_insert_with(io::ReadBuf::default);
                            return Some(Item::Done(verify(job, buf)));
                        }
                        return Some(Item::Work(job));
                    }
                    Err(LineError::Ambiguous(n)) => {
                        let names: Vec<String> = parse_candidates(n);
                        let msg = [
                            &quote::quotef(display)[..],
                            format!(
                                ": {line_no}: cannot tell the algorithm of a {}-bit digest ({}); use -a ALGO",
                                n * 8,
                                names.join(", ")
                            )
                            .as_bytes(),
                        ]
                        .concat();
                        return Some(Item::Done(Event::Misformatted {
                            msg: Some(msg),
                            ambiguous: true,
                            line: line_no,
                        }));
                    }
                    Err(LineError::Malformed) => {
                        let msg = (cfg.verbosity == Verbosity::Warn).then(|| {
                            [
                                &quote::quotef(display)[..],
                                format!(
                                    ": {line_no}: improperly formatted {}checksum line",
                                    digest_type_string(cfg, parser.last_tag)
                                )
                                .as_bytes(),
                            ]
                            .concat()
                        });
                        return Some(Item::Done(Event::Misformatted {
                            msg,
                            ambiguous: false,
                            line: line_no,
                        }));
                    }
                }
            }
        };
        let status = cfg.verbosity == Verbosity::Status;
        // `--json`: a record per line replaces each status line.
        let json = |run: &mut Run,
                    line: u64,
                    file: Option<(&[u8], Algorithm)>,
                    outcome: Outcome,
                    error: Option<String>| {
            let mut out = Vec::new();
            crate::json::check_record(&mut out, &checkfile_bytes, line, file, outcome, error);
            run.write_out(&out);
        };
        let emit = |ev: Event, more: bool| {
            'ev: {
                match ev {
                    Event::ReadError => {
                        aborted = true;
                        run.error_msg(&[&quote::quotef(display)[..], b": read error"].concat());
                    }
                    _ if aborted => {}
                    Event::Misformatted { msg, ambiguous, line } => {
                        t.misformatted += 1;
                        t.ambiguous += u64::from(ambiguous);
                        if let Some(m) = msg {
                            run.error_msg(&m);
                        }
                        if cfg.json && !status {
                            let (outcome, error) = if ambiguous {
                                let e = "the digest length fits several algorithms; use -a ALGO";
                                (Outcome::Ambiguous, Some(e.to_string()))
                            } else {
                                (Outcome::Malformed, None)
                            };
                            json(run, line, None, outcome, error);
                        }
                    }
                    Event::Verified {
                        name,
                        result,
                        line,
                        algo,
                    } => {
                        t.properly_formatted = true;
                        match result {
                            Err(e) => {
                                if cfg.ignore_missing && e.kind() == std::io::ErrorKind::NotFound {
                                    break 'ev;
                                }
                                run.error_io(&name, &e);
                                t.open_failures += 1;
                                if cfg.json && !status {
                                    let err = Some(crate::os::strerror(&e));
                                    json(run, line, Some((&name, algo)), Outcome::Unreadable, err);
                                } else if !status {
                                    let mut out = status_name(cfg, &name);
                                    out.extend_from_slice(b": FAILED open or read\n");
                                    run.write_out(&out);
                                }
                            }
                            Ok(ok) => {
                                if ok {
                                    t.matched = true;
                                } else {
                                    t.mismatched += 1;
                                }
                                if cfg.json && !status && (!ok || cfg.verbosity != Verbosity::Quiet) {
                                    let outcome = if ok { Outcome::Ok } else { Outcome::Mismatch };
                                    json(run, line, Some((&name, algo)), outcome, None);
                                } else if !status && (!ok || cfg.verbosity != Verbosity::Quiet) {
                                    let mut out = status_name(cfg, &name);
                                    out.extend_from_slice(if ok { b": OK\n" } else { b": FAILED\n" });
                                    run.write_out(&out);
                                }
                            }
                        }
                    }
                }
            }
            // GNU writes each status line when its file is done.
            if !more {
                run.flush_now();
            }
        };
        let jobs = sched::effective_jobs(cfg.jobs);
        let window = jobs * crate::app::WINDOW_PER_JOB;
        let lost = match io::lanes::max_lane_count(&opts) {
            Some(l) => sched::run_ordered_batched(
                jobs,
                window,
                sched::Batching::lanes(l),
                producer,
                verify_batch,
                emit,
            ),
            None => sched::run_ordered(jobs, window, producer, verify, emit),
        };
        if lost > 0 {
            run.error_msg(format!("internal error: {lost} results were lost; rerun with -j1").as_bytes());
            return false;
        }
    }
    if aborted {
        run.last_tag = parser.last_tag;
        return false;
    }
    run.last_tag = parser.last_tag;
    if !t.properly_formatted {
        run.error_msg(
            &[
                &quote::quotef(display)[..],
                b": no properly formatted checksum lines found",
            ]
            .concat(),
        );
    } else if cfg.verbosity != Verbosity::Status {
        let plural = |n: u64, one: &str, many: &str| {
            if n == 1 { one.to_string() } else { many.to_string() }
        };
        if t.misformatted != 0 {
            let n = t.misformatted;
            run.error_msg(
                format!(
                    "WARNING: {n} {}",
                    plural(
                        n,
                        "line is improperly formatted",
                        "lines are improperly formatted"
                    )
                )
                .as_bytes(),
            );
        }
        if t.open_failures != 0 {
            let n = t.open_failures;
            run.error_msg(
                format!(
                    "WARNING: {n} {}",
                    plural(
                        n,
                        "listed file could not be read",
                        "listed files could not be read"
                    )
                )
                .as_bytes(),
            );
        }
        if t.mismatched != 0 {
            let n = t.mismatched;
            run.error_msg(
                format!(
                    "WARNING: {n} {}",
                    plural(
                        n,
                        "computed checksum did NOT match",
                        "computed checksums did NOT match"
                    )
                )
                .as_bytes(),
            );
        }
        if cfg.ignore_missing && !t.matched {
            run.error_msg(&[&quote::quotef(display)[..], b": no file was verified"].concat());
        }
    }
    t.properly_formatted
        && t.matched
        && t.mismatched == 0
        && t.open_failures == 0
        && t.ambiguous == 0
        && (!cfg.strict || t.misformatted == 0)
}

/// A listed file to verify.
struct Job {
    name: Vec<u8>,
    algo: Algorithm,
    expected: Vec<u8>,
    /// Its line number in the checksum file (for `--json`).
    line: u64,
}

/// One line's outcome, emitted in line order.
enum Event {
    /// An improperly formatted line, with the message `-w` (or an
    /// ambiguous digest length) prints.
    Misformatted {
        msg: Option<Vec<u8>>,
        ambiguous: bool,
        line: u64,
    },
    /// A listed file was read: does its digest match?
    Verified {
        name: Vec<u8>,
        result: std::io::Result<bool>,
        line: u64,
        algo: Algorithm,
    },
    /// The checksum file itself could not be read further.
    ReadError,
}

fn parse_candidates(len: usize) -> Vec<String> {
    let mut v: Vec<String> = parse::by_length(len)
        .into_iter()
        .map(|a| a.kind.name().to_string())
        .collect();
    v.sort();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_imply_algorithms() {
        let k = |n: &str| algorithm_from_file_name(n.as_bytes()).map(|a| a.kind);
        assert_eq!(k("SHA256SUMS"), Some(AlgoKind::Sha256));
        assert_eq!(k("dist/MD5SUMS"), Some(AlgoKind::Md5));
        assert_eq!(k("foo.tar.gz.sha512"), Some(AlgoKind::Sha512));
        assert_eq!(k("B2SUMS"), Some(AlgoKind::Blake2b));
        assert_eq!(k("x.sha1sum"), Some(AlgoKind::Sha1));
        assert_eq!(k("checksums.txt"), None);
    }
}
