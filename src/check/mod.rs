//! Check mode (`-c`): read checksum files line by line, verify each listed
//! file, report `NAME: OK` / `NAME: FAILED` / `NAME: FAILED open or read`
//! (or JSON records), then GNU's WARNING summary (coreutils digest.c
//! `digest_check`).
//!
//! In parts, each a file of this module:
//! - `lines`: reading a checksum file in bounded memory, each line
//!   prepared ([`formats`]), parsed ([`parse`], pure, under what
//!   [`rules`] allows) and turned into work for the scheduler;
//! - `verify`: the per-line verifier (a listed file read and its digest
//!   judged) and the scheduling of the listed files on the workers,
//!   several at once in lane kernels;
//! - `signed`: `--key`, the signature verified before any line is read
//!   (a caller of [`crate::sig`]);
//! - `outcome`: each line's outcome reported through the
//!   [`crate::report::CheckReport`] and counted in the [`tally`], which
//!   judges the file;
//! - this file: the run over the checksum files and the state GNU keeps
//!   across them ([`Session`]); [`shasum`] is Perl shasum's own check.
//!
//! Memory stays bounded by the longest line: the checksum file is streamed.
//! With `--audit DIR` ([`audit`]), the listed names are kept too, and DIR
//! is walked for the files they do not name.

pub mod audit;
pub mod formats;
pub mod layouts;
mod lines;
mod outcome;
pub mod parse;
pub mod rules;
pub mod s3report;
pub mod shasum;
mod signed;
pub mod tally;
mod verify;

pub use rules::algorithm_from_file_name;
pub use tally::Tally;

use crate::config::{CheckJob, Common, Verbosity};
use crate::report::{AuditCounts, Console};
use lines::{Lines, Source};
use outcome::Outcomes;
use parse::{Chosen, Parser};
use signed::signed_text;
use std::ffi::OsStr;
use std::io::{BufReader, Read};
use std::sync::atomic::AtomicBool;
use verify::schedule;

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
    if let Some(root) = &job.s3_report_root {
        let mut ok = true;
        for f in &files.files {
            ok &= s3report::run(con, common, job, f, root);
        }
        return ok;
    }
    let mut session = Session::default();
    if let (Some(crate::config::AuditDir { dir, walk }), [manifest]) =
        (job.audit.as_deref(), &files.files[..])
    {
        // --shard: every shard meets these alike; shard 0 keeps them.
        if let Some(s) = con.shard() {
            s.set_key(0, 0);
            s.set_shared(true);
        }
        if let Err(e) = std::fs::metadata(dir).and_then(|m| {
            if m.is_dir() {
                Ok(())
            } else {
                Err(crate::os::ErrorClass::NotADirectory.error())
            }
        }) {
            con.error_io(&crate::os::os_bytes(dir), &e);
            if let Some(s) = con.shard() {
                s.fail();
            }
            return false;
        }
        let audit = audit::Audit::new(dir, walk, manifest);
        let passed = check_file_with(con, common, job, &mut session, manifest, Some(audit));
        if let Some(s) = con.shard()
            && !s.take_tallied()
        {
            s.file_failed(0);
        }
        return passed;
    }
    let mut ok = true;
    let inputs = crate::walk::Inputs::new(files.files.clone(), &files.files_from, files.null, None);
    for (i, f) in (0u64..).zip(inputs) {
        // --shard: what every shard meets alike (a checksum file that
        // cannot be opened) is kept by shard 0 alone.
        if let Some(s) = con.shard() {
            s.set_key(i, 0);
            s.set_shared(true);
        }
        match f {
            Ok(f) => {
                let passed = check_file(con, common, job, &mut session, &f);
                ok &= passed;
                if let Some(s) = con.shard()
                    && !s.take_tallied()
                {
                    s.file_failed(i);
                }
            }
            Err((name, e)) => {
                con.error_io(&crate::os::os_bytes(&name), &e);
                if let Some(s) = con.shard() {
                    s.fail();
                }
                ok = false;
            }
        }
    }
    ok
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
        crate::os::open_read(std::path::Path::new(checkfile)).map(|f| {
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
        queued: Default::default(),
        shasum: None,
        checkfile: &name,
        subject: false,
        old_quotes: common.compat <= crate::config::GnuCompat::V9_1,
        output_failed: &output_failed,
        failed: false,
        audit,
        uncounted: 0,
        sniff: lines::Sniff::Unread,
        progress: con.progress().cloned(),
        shard: common.shard,
        skipped: 0,
        found: 0,
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
    if let Some(s) = con.shard() {
        s.set_shared(true);
    }
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
        // A failed write stopped the audit part way: counts would look
        // complete and are not. Finish says why (`write error: ...`).
        if con.write_failed() && job.stops_on_write_error {
            con.error_msg(
                b"audit: stopped before the end: standard output could not be written; nothing is counted",
            );
            return false;
        }
        // --shard: the counts go in the shard's end line; `mhash merge`
        // prints the summary of the counts summed.
        let sharded = con.shard().is_some();
        if let Some(s) = con.shard() {
            let t = &out.tally;
            let counts = [t.misformatted, t.open_failures, t.mismatched];
            s.tally(counts, [t.properly_formatted, t.matched], display);
            let style = if job.verbosity == Verbosity::Status {
                0
            } else if job.json {
                2
            } else {
                1
            };
            let dir = job
                .audit
                .as_ref()
                .map(|a| crate::os::os_bytes(&a.dir).into_owned());
            s.audit(out.counts.all(), style, &dir.unwrap_or_default());
            s.mute(true);
        }
        let passed = audit_summary(con, job, &mut out, display);
        if sharded && let Some(s) = con.shard() {
            s.mute(false);
        }
        return passed;
    }
    // --shard: the tally goes in the shard's end line; `mhash merge`
    // prints the summary of the tallies summed.
    if let Some(s) = con.shard() {
        let t = &out.tally;
        let counts = [t.misformatted, t.open_failures, t.mismatched];
        s.tally(counts, [t.properly_formatted, t.matched], display);
        s.mute(true);
    }
    out.tally.summarize(con, job, display);
    if let Some(s) = con.shard() {
        s.mute(false);
    }
    out.tally.passed(job.strict)
}

/// `--audit`'s summary of the checksum file shown as `display`: the
/// counts (`out`'s reporter), the WARNING for improperly formatted lines,
/// the hint when nothing listed was found. Returns whether the audit
/// passed.
fn audit_summary(con: &mut Console, job: &CheckJob, out: &mut Outcomes<'_>, display: &[u8]) -> bool {
    out.report.audit_summary(con, &out.counts);
    let status = job.verbosity == Verbosity::Status;
    let dir = job.audit.as_ref().map(|a| a.dir.as_os_str());
    audit_tail(con, &out.counts, out.tally.misformatted, status, dir, display);
    !out.counts.differs() && (!job.strict || out.tally.misformatted == 0)
}

/// What `--audit` prints after its counts: the WARNING for `misformatted`
/// improperly formatted lines (not with `--status`), and the hint when
/// nothing listed was found under `dir` ([`audit::hint`]).
pub fn audit_tail(
    con: &mut Console,
    counts: &AuditCounts,
    misformatted: u64,
    status: bool,
    dir: Option<&OsStr>,
    display: &[u8],
) {
    if misformatted != 0 && !status {
        let n = misformatted;
        let what = if n == 1 {
            "line is improperly formatted"
        } else {
            "lines are improperly formatted"
        };
        con.error_msg(format!("WARNING: {n} {what}").as_bytes());
    }
    if let Some(dir) = dir {
        audit::hint(con, counts, dir, display);
    }
}
