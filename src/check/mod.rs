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

pub mod parse;
pub mod rules;
pub mod tally;

pub use rules::algorithm_from_file_name;
pub use tally::Tally;

use crate::algo::Algorithm;
use crate::config::{CheckJob, Common, IoMode, Verbosity};
use crate::io;
use crate::report::{CheckReport, Console, LineAt, Verdict};
use crate::sched::{self, Item};
use crate::text::quote;
use parse::{LineError, Parser};
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read};

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
}

impl Default for Session {
    fn default() -> Session {
        Session {
            last_tag: None,
            bsd_reversed: -1,
        }
    }
}

/// Verifies every checksum file of `job` in order. Returns true when GNU
/// would count every one of them as passed.
pub fn run(con: &mut Console, common: &Common, job: &CheckJob) -> bool {
    let files = &job.checksum_files;
    let mut session = Session::default();
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
        listed: Listed,
        result: std::io::Result<bool>,
    },
    /// The checksum file itself could not be read further.
    ReadError,
}

/// Reads and verifies `listed` (on a worker, or in the producer for `-`).
fn verify(listed: Listed, buf: &mut io::ReadBuf, mode: IoMode) -> Event {
    let name = crate::os::bytes_os(&listed.name);
    let result = io::digest_input(&name, listed.algo, buf, mode).map(|d| d.digest == listed.expected);
    Event::Verified { listed, result }
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
    let is_stdin = checkfile == "-";
    let name = crate::os::os_bytes(checkfile).into_owned();
    let display: &[u8] = if is_stdin { b"standard input" } else { &name };
    let reader: Box<dyn Read + Send> = if is_stdin {
        crate::os::stdin_reader()
    } else {
        match std::fs::File::open(checkfile) {
            Ok(f) => Box::new(f),
            Err(e) => {
                con.error_io(display, &e);
                return false;
            }
        }
    };
    let mut parser = Parser::new(rules::expectations(job, &name), is_stdin);
    parser.last_tag = session.last_tag;
    let run_wide = job.dialect != crate::config::Dialect::Native;
    if run_wide {
        parser.bsd_reversed = session.bsd_reversed;
    }
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
        old_quotes: common.compat == crate::config::GnuCompat::V9_1,
    };
    let mut out = Outcomes {
        report: crate::report::check_report(job),
        job,
        checkfile: &name,
        display,
        tally: Tally::default(),
        aborted: false,
    };
    let lost = schedule(common, &mut lines, &mut |ev, more| out.emit(con, ev, more));
    session.last_tag = lines.parser.last_tag;
    if run_wide {
        session.bsd_reversed = lines.parser.bsd_reversed;
    }
    if lost > 0 {
        con.error_msg(format!("internal error: {lost} results were lost; rerun with -j1").as_bytes());
        return false;
    }
    if out.aborted {
        return false;
    }
    out.tally.summarize(con, job, display);
    out.tally.passed(job.strict)
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
                    let names: Vec<std::ffi::OsString> =
                        batch.iter().map(|j| crate::os::bytes_os(&j.name)).collect();
                    let inputs: Vec<(&OsStr, Algorithm)> = names
                        .iter()
                        .zip(&batch)
                        .map(|(n, j)| (n.as_os_str(), j.algo))
                        .collect();
                    let mut batch: Vec<Option<Listed>> = batch.into_iter().map(Some).collect();
                    let mut sink =
                        sched::DeliverFn(|op: Option<(usize, std::io::Result<io::Digested>)>| match op {
                            Some((i, r)) => {
                                let listed = batch[i].take().expect("one result per listed file");
                                let result = r.map(|d| d.digest == listed.expected);
                                out.deliver(i, Event::Verified { listed, result });
                            }
                            None => out.flush(),
                        });
                    io::lanes::digest_batch(&inputs, buf, &opts, &mut |_| {}, &mut sink);
                };
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
    /// GNU 9.1's quoting of names in messages.
    old_quotes: bool,
}

impl Lines<'_> {
    /// Reads and parses lines until one names a file to verify (or the
    /// checksum file ends); runs under the scheduler's lock, in order.
    fn next_item(&mut self) -> Option<Item<Listed, Event>> {
        loop {
            if self.done {
                return None;
            }
            self.buf.clear();
            match self.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => {
                    self.done = true;
                    return Some(Item::Done(Event::ReadError));
                }
            }
            self.line_no += 1;
            if self.buf[0] == b'#' {
                continue;
            }
            let mut l: &[u8] = &self.buf;
            if l.last() == Some(&b'\n') {
                l = &l[..l.len() - 1];
            }
            if l.last() == Some(&b'\r') {
                l = &l[..l.len() - 1];
            }
            if l.is_empty() {
                continue;
            }
            let parsed = self.parser.parse(l);
            return Some(self.item(parsed));
        }
    }

    /// The scheduler's item for a parsed line.
    fn item(&mut self, parsed: Result<parse::CheckLine, LineError>) -> Item<Listed, Event> {
        let line = self.line_no;
        let shown = quote::quotef_compat(self.display, self.old_quotes);
        let at = |msg: String| [&shown[..], msg.as_bytes()].concat();
        match parsed {
            Ok(p) => {
                let listed = Listed {
                    name: p.name,
                    algo: p.algo,
                    expected: p.digest,
                    line,
                };
                if listed.name == b"-" {
                    let buf = self.stdin_buf.get_or_insert_with(io::ReadBuf::default);
                    return Item::Done(verify(listed, buf, self.io));
                }
                Item::Work(listed)
            }
            Err(LineError::Ambiguous(n)) => Item::Done(Event::Misformatted {
                msg: Some(at(format!(
                    ": {line}: cannot tell the algorithm of a {}-bit digest ({}); use -a ALGO",
                    n * 8,
                    rules::candidates(n).join(", ")
                ))),
                ambiguous: true,
                line,
            }),
            Err(LineError::Malformed) => Item::Done(Event::Misformatted {
                msg: (self.job.verbosity == Verbosity::Warn).then(|| {
                    at(format!(
                        ": {line}: improperly formatted {}checksum line",
                        rules::digest_type_string(self.job, self.parser.last_tag)
                    ))
                }),
                ambiguous: false,
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
}

impl Outcomes<'_> {
    fn emit(&mut self, con: &mut Console, ev: Event, more: bool) {
        let at = |line| LineAt {
            checksum_file: self.checkfile,
            line,
        };
        match ev {
            Event::ReadError => {
                self.aborted = true;
                let msg = [&con.quotef(self.display)[..], b": read error"].concat();
                con.error_msg(&msg);
            }
            _ if self.aborted => {}
            Event::Misformatted { msg, ambiguous, line } => {
                self.tally.misformatted += 1;
                self.tally.ambiguous += u64::from(ambiguous);
                if let Some(m) = msg {
                    con.error_msg(&m);
                }
                self.report.misformatted(con, at(line), ambiguous);
            }
            Event::Verified { listed, result } => {
                self.tally.properly_formatted = true;
                let Listed { name, algo, line, .. } = listed;
                match result {
                    Err(e) if self.job.ignore_missing && e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => {
                        con.error_io(&name, &e);
                        self.tally.open_failures += 1;
                        self.report
                            .verified(con, at(line), &name, algo, Verdict::Unreadable(&e));
                    }
                    Ok(ok) => {
                        if ok {
                            self.tally.matched = true;
                        } else {
                            self.tally.mismatched += 1;
                        }
                        let v = if ok { Verdict::Ok } else { Verdict::Mismatch };
                        self.report.verified(con, at(line), &name, algo, v);
                    }
                }
            }
        }
        // GNU writes each status line when its file is done.
        if !more {
            con.flush_now();
        }
    }
}
