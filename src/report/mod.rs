//! Reporting: everything a run prints goes through here. A [`Console`]
//! holds the standard output and error writers (injected: the process's
//! descriptors in the binary, a [`Captured`] buffer in tests and fuzz
//! targets) and the first write error; a [`HashReport`] turns a digest into
//! a checksum line or a JSON record; a [`CheckReport`] turns a checksum
//! line's outcome into a status line or a JSON record. One implementation
//! per output format: [`lines`] (GNU, BSD tagged, legacy CRC/sum and b3sum
//! lines, GNU status lines) and [`json`] (JSON Lines); [`stores`] prints
//! the object stores' checksums as their own tools do.
//!
//! Hash and check mode decide *what* happened; this module decides how it
//! looks. GNU's diagnostics on standard error (`PROG: NAME: STRERROR`, the
//! check summary's WARNING lines) are the same for every format and are
//! the console's.

pub mod json;
pub mod lines;
pub mod shard;
pub mod stores;

use crate::algo::Algorithm;
use crate::config::{CheckJob, Encoding, Format, GnuCompat, StatusNames, Verbosity};
use crate::progress::Progress;
use crate::text::{escape, quote};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// The run's standard output and error: the program name for diagnostics,
/// the buffered standard output and its first write error.
pub struct Console {
    prog: Vec<u8>,
    compat: GnuCompat,
    out: std::io::BufWriter<Box<dyn Write + Send>>,
    err: Box<dyn Write + Send>,
    line_buffered: bool,
    write_error: Option<std::io::Error>,
    /// The progress bar, when one may show: terminal writes go around it.
    progress: Option<Progress>,
    /// The run flushes standard output as GNU does after each checksum
    /// line, so a write error keeps its errno (see [`Console::finish`]).
    flushes_per_line: bool,
    /// GNU 8.32's `cksum`: a failed checksum line dies at once with
    /// "-: write error: REASON" (then `close_stdout`'s message).
    dies_on_write_error: bool,
    /// GNU 9.10+ digest and check lines: a failed write of a line ends the
    /// run at once with the write error (cksum.c's `ferror (stdout)` check
    /// after each line, coreutils 3621ad2f7).
    exits_on_write_error: bool,
    /// A write to standard error failed (nothing more can be said about
    /// it; the run still fails, see [`Console::finish`]).
    err_failed: bool,
    /// A write error first seen when the buffer is flushed at the end
    /// keeps its errno (GNU's `-z` digest lines: stdio's buffer meets the
    /// error only at fclose, which keeps errno).
    keeps_errno_at_close: bool,
    /// Standard output is the process's descriptor 1, which
    /// [`Console::finish`] closes (not a writer given to [`Console::new`]).
    owns_stdout: bool,
    /// The native face hashing without `-r`: an input that is a directory
    /// is reported with what to do (`use -r`).
    directory_hint: bool,
    /// `--shard`: what each record wrote, for the end line.
    shard: Option<shard::Sink>,
    /// `--shard`: the frame lines' terminator.
    shard_terminator: u8,
}

impl Console {
    /// The process's own standard output (descriptor 1 used directly, see
    /// [`crate::os::stdout_writer`]; line by line when it is a terminal)
    /// and standard error; diagnostics are prefixed with `prog` (GNU's
    /// `program_name`: `argv[0]` as invoked), worded as GNU `compat` does.
    pub fn stdio(prog: &str, compat: GnuCompat) -> Console {
        use std::io::IsTerminal;
        let line_buffered = std::io::stdout().is_terminal();
        let out = crate::os::stdout_writer();
        // Other processes may write into the same pipe or O_APPEND file
        // (`xargs -P4 sha256sum`): each write must hold whole lines.
        let out: Box<dyn Write + Send> = if crate::os::stdout_shared() {
            Box::new(WholeLines(out))
        } else {
            out
        };
        let mut con = Console::new(prog, compat, out, crate::os::stderr_writer(), line_buffered);
        con.owns_stdout = true;
        con
    }

    /// A console over the writers `out` and `err` (`line_buffered`: flush
    /// standard output after every write, as for a terminal).
    pub fn new(
        prog: &str,
        compat: GnuCompat,
        out: Box<dyn Write + Send>,
        err: Box<dyn Write + Send>,
        line_buffered: bool,
    ) -> Console {
        Console {
            prog: crate::text::message_bytes(prog),
            compat,
            out: std::io::BufWriter::with_capacity(64 * 1024, out),
            err,
            line_buffered,
            write_error: None,
            keeps_errno_at_close: false,
            owns_stdout: false,
            progress: None,
            flushes_per_line: true,
            dies_on_write_error: false,
            exits_on_write_error: false,
            err_failed: false,
            directory_hint: false,
            shard: None,
            shard_terminator: b'\n',
        }
    }

    /// Starts a shard's output ([`shard`]): its first line, ended with
    /// `terminator` (the body's), for a run of `mode` (`hash`, `check`).
    pub fn start_shard(&mut self, sink: shard::Sink, mode: &str, terminator: u8) {
        let mut head = sink.head(mode).into_bytes();
        head.push(terminator);
        self.write_out(&head);
        self.shard = Some(sink);
        self.shard_terminator = terminator;
    }

    /// The shard's record keeper, while a shard's output is being written.
    pub fn shard(&mut self) -> Option<&mut shard::Sink> {
        self.shard.as_mut()
    }

    /// Ends a shard's output with its end line (`ok`: see
    /// [`shard::Sink::end`]).
    pub fn end_shard(&mut self, ok: bool) {
        if let Some(mut sink) = self.shard.take() {
            let mut end = sink.end(ok).into_bytes();
            end.push(self.shard_terminator);
            self.write_out(&end);
        }
    }

    /// The prefix of diagnostics (`PROG` of `PROG: MSG`), as bytes.
    pub fn prog(&self) -> &[u8] {
        &self.prog
    }

    /// Says that an input found to be a directory is reported as
    /// `PROG: NAME: Is a directory (use -r to hash a directory's files)`
    /// (the native face's hash mode without `-r`; GNU's names keep GNU's
    /// words).
    pub fn set_directory_hint(&mut self, yes: bool) {
        self.directory_hint = yes;
    }

    /// Prints an input's read error as [`Console::error_io`] does, with the
    /// hint of [`Console::set_directory_hint`] where it applies.
    pub fn error_input(&mut self, name: &[u8], e: &std::io::Error) {
        if !(self.directory_hint && crate::os::ErrorClass::of(e) == Some(crate::os::ErrorClass::IsADirectory))
        {
            return self.error_io(name, e);
        }
        let mut msg = self.quotef(name);
        msg.extend_from_slice(b": ");
        msg.extend_from_slice(crate::os::strerror(e).as_bytes());
        msg.extend_from_slice(b" (use -r to hash a directory's files)");
        self.error_msg(&msg);
    }

    /// Says whether GNU flushes standard output after each line of this
    /// run (9.11: it does for digests and check mode, not for `--help`,
    /// `--version`, whose write errors lose errno; nor, in 9.11, for the
    /// CRC and sum lines, which mhash reports with errno as GNU does
    /// after 9.11).
    pub fn set_flushes_per_line(&mut self, yes: bool) {
        self.flushes_per_line = yes;
    }

    /// Says that a write error met only by the final flush keeps its
    /// errno in the message (GNU's digest lines under `-z`, which stdio
    /// buffers until fclose; an earlier flush, as `error()` makes before
    /// each diagnostic, loses it).
    pub fn set_keeps_errno_at_close(&mut self, yes: bool) {
        self.keeps_errno_at_close = yes;
    }

    /// Says that a failed write of a record first prints GNU 8.32
    /// cksum's `-: write error: REASON` (its `die` after each line).
    pub fn set_dies_on_write_error(&mut self, yes: bool) {
        self.dies_on_write_error = yes;
    }

    /// Says that a failed write of a line ends the process at once, after
    /// the write error's message (GNU 9.11's digest and check lines: no
    /// later input is read, no later diagnostic or summary printed).
    pub fn set_exits_on_write_error(&mut self, yes: bool) {
        self.exits_on_write_error = yes;
    }

    /// Keeps the first write error; with [`Console::set_exits_on_write_error`],
    /// reports it and exits with status 1.
    fn write_failed_with(&mut self, e: std::io::Error) {
        self.write_error.get_or_insert(e);
        if std::mem::take(&mut self.exits_on_write_error) {
            self.finish();
            std::process::exit(1);
        }
    }

    /// Shows a progress bar from now on (`None`: no longer).
    pub fn set_progress(&mut self, progress: Option<Progress>) {
        self.progress = progress;
    }

    /// The progress bar, if one may show.
    pub fn progress(&self) -> Option<&Progress> {
        self.progress.as_ref()
    }

    /// Writes bytes to standard output (buffered; line by line on a terminal).
    pub fn write_out(&mut self, bytes: &[u8]) {
        if self.write_error.is_some() {
            return;
        }
        if let Some(sink) = &mut self.shard
            && !sink.out(bytes.len())
        {
            return;
        }
        let r = if self.line_buffered {
            // Standard output is a terminal, which a progress bar may share.
            let (out, progress) = (&mut self.out, &self.progress);
            let mut write = || out.write_all(bytes).and_then(|()| out.flush());
            match progress {
                Some(p) => p.suspend(write),
                None => write(),
            }
        } else {
            self.out.write_all(bytes)
        };
        if let Err(e) = r {
            self.write_failed_with(e);
        }
    }

    /// True once a write to standard output has failed (the run should
    /// take no more inputs: nothing more can be printed).
    pub fn write_failed(&self) -> bool {
        self.write_error.is_some()
    }

    /// Writes out what standard output holds (GNU writes each checksum
    /// line when its file is done); a failure is kept for [`Console::finish`].
    pub fn flush_now(&mut self) {
        if self.write_error.is_none()
            && let Err(e) = self.out.flush()
        {
            self.write_failed_with(e);
        }
    }

    /// Prints `PROG: MSG` on standard error. Standard output is flushed
    /// first, as GNU's `error()` does, so that the two streams keep their
    /// order when they share a pipe.
    pub fn error_msg(&mut self, msg: &[u8]) {
        self.flush_now();
        let mut line = self.prog.clone();
        line.extend_from_slice(b": ");
        line.extend_from_slice(msg);
        line.push(b'\n');
        if let Some(sink) = &mut self.shard {
            sink.msg(msg);
        }
        let err = &mut self.err;
        let mut write = || err.write_all(&line).and_then(|()| err.flush());
        let written = match &self.progress {
            Some(p) => p.suspend(write),
            None => write(),
        };
        self.err_failed |= written.is_err();
    }

    /// Writes `bytes` to standard error as they are (no program-name
    /// prefix: Perl's `warn` of Getopt::Long's messages), after flushing
    /// standard output as [`Console::error_msg`] does.
    pub fn write_err(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.flush_now();
        if let Some(sink) = &mut self.shard {
            sink.err(bytes);
        }
        let err = &mut self.err;
        let mut write = || err.write_all(bytes).and_then(|()| err.flush());
        let written = match &self.progress {
            Some(p) => p.suspend(write),
            None => write(),
        };
        self.err_failed |= written.is_err();
    }

    /// `name` quoted as the GNU release's `quotef` does.
    pub fn quotef(&self, name: &[u8]) -> Vec<u8> {
        quote::quotef_compat(name, self.compat <= GnuCompat::V9_1)
    }

    /// Prints `PROG: NAME: STRERROR` on standard error, the name quoted as
    /// GNU's `quotef` does.
    pub fn error_io(&mut self, name: &[u8], e: &std::io::Error) {
        let mut msg = self.quotef(name);
        msg.extend_from_slice(b": ");
        msg.extend_from_slice(crate::os::strerror(e).as_bytes());
        self.error_msg(&msg);
    }

    /// Flushes standard output; GNU's `close_stdout`: a failure is
    /// "write error: REASON" and the run fails (GNU 9.1: "write error",
    /// its `close_stream` having lost errno). A failed write to standard
    /// error fails the run too, silently (gnulib closeout.c: `close_stream
    /// (stderr)` fails, `_exit (exit_failure)`; GNU's
    /// tests/misc/warning-errors.sh: `cksum --debug /dev/null 2>/dev/full`
    /// exits 1). Returns true when all output was written.
    pub fn finish(&mut self) -> bool {
        let flushed = self.out.flush();
        let at_close = self.write_error.is_none() && flushed.is_err();
        let Some(e) = self.write_error.take().or(flushed.err()) else {
            // GNU's close_stdout: a write error only close(2) reports.
            if self.owns_stdout
                && let Err(e) = crate::os::close_stdout()
            {
                let msg = format!("write error: {}", crate::os::strerror(&e));
                self.error_msg(msg.as_bytes());
                return false;
            }
            return !self.err_failed;
        };
        // GNU 9.1 lost errno unless the final fclose itself failed with it
        // (a closed stdout: EBADF; not a descriptor open read-only, whose
        // writes fail with EBADF but whose close succeeds); 9.11 too where
        // it did not flush each line itself.
        if self.dies_on_write_error {
            let first = format!("-: write error: {}", crate::os::strerror(&e));
            self.error_msg(first.as_bytes());
        }
        let lost = (self.compat <= GnuCompat::V9_1 || !self.flushes_per_line)
            && !(self.keeps_errno_at_close && at_close);
        let msg = if lost && !crate::os::stdout_closed() {
            "write error".to_string()
        } else {
            format!("write error: {}", crate::os::strerror(&e))
        };
        self.error_msg(msg.as_bytes());
        false
    }
}

/// The most bytes a write to a pipe is atomic for (POSIX `PIPE_BUF`,
/// 4,096 on Linux): writes no longer than this from several processes
/// sharing a pipe never interleave.
pub const PIPE_BUF: usize = 4096;

/// A writer for output that other processes may share (a pipe, a socket,
/// a file opened `O_APPEND`): every write ends at a line boundary and
/// holds at most [`PIPE_BUF`] bytes; a line longer than that goes in a
/// write of its own. So lines from several processes never tear (GNU's
/// stdio achieves the same with its 4 KiB buffer). Regular files and
/// terminals keep the larger batches.
pub struct WholeLines<W>(pub W);

impl<W: Write> Write for WholeLines<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(whole_lines_prefix(buf))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// The longest prefix of `buf` that ends at a line boundary and holds at
/// most [`PIPE_BUF`] bytes; else the first line whole (longer than
/// `PIPE_BUF`), or all of `buf` when it holds no newline.
pub fn whole_lines_prefix(buf: &[u8]) -> &[u8] {
    let head = &buf[..buf.len().min(PIPE_BUF)];
    if head.len() == buf.len() && buf.last() == Some(&b'\n') {
        return buf;
    }
    if let Some(i) = head.iter().rposition(|&b| b == b'\n') {
        return &buf[..=i];
    }
    match buf.iter().position(|&b| b == b'\n') {
        Some(i) => &buf[..=i],
        None => buf,
    }
}

/// A writer into a shared in-memory buffer, for a [`Console`] whose output
/// a test or fuzz target reads back ([`Captured::contents`]).
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// Everything written so far.
    pub fn contents(&self) -> Vec<u8> {
        self.0.lock().map(|b| b.clone()).unwrap_or_default()
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut b) = self.0.lock() {
            b.extend_from_slice(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How hash mode reports each input.
pub trait HashReport: Send {
    /// `algo`'s digest of the input `name`, `size` bytes long.
    fn digest(&mut self, con: &mut Console, name: &[u8], algo: Algorithm, digest: &[u8], size: u64);
    /// An object store's checksum `d` of the input `name`, `size` bytes
    /// long (`--s3-etag`, `--s3-composite`, `--gcs`, `--hdfs`, ...).
    fn store(
        &mut self,
        con: &mut Console,
        name: &[u8],
        store: &crate::algo::stores::Store,
        d: &crate::algo::stores::StoreDigest,
        size: u64,
    );
    /// A digest of the whole tree `name` (`--go-h1`, `--nar`): `kind` is
    /// `go-h1` or `nar`, `value` the digest as the tool writes it.
    fn tree(&mut self, con: &mut Console, name: &[u8], kind: &str, value: &str);
    /// The input `name` could not be read: GNU's diagnostic, and whatever
    /// the format records for each of `algos`.
    fn error(&mut self, con: &mut Console, name: &[u8], algos: &[Algorithm], e: &std::io::Error);
}

/// The reporter for hash mode: JSON Lines with `--json`, else checksum
/// lines as `format` says.
pub fn hash_report(json: bool, format: Format) -> Box<dyn HashReport> {
    if json {
        Box::new(json::JsonHash {
            encoding: format.encoding,
            line: Vec::new(),
        })
    } else {
        Box::new(lines::Lines {
            format,
            line: Vec::with_capacity(256),
        })
    }
}

/// Where in a checksum file a line is: the file as named (`-` for
/// standard input) and its line number, from 1; and how its algorithm was
/// decided.
#[derive(Clone, Copy, Debug)]
pub struct LineAt<'a> {
    /// The checksum file's name as given.
    pub checksum_file: &'a [u8],
    /// The line number, from 1.
    pub line: u64,
    /// How the line's algorithm was decided: `tag`, `-a`, `file name`,
    /// `length`, `fallback`, `layout` (`check::parse::Chosen`).
    pub chosen: &'static str,
    /// The status line names the algorithm (mhash: the file is listed
    /// with several algorithms, one after the other).
    pub annotate: bool,
}

/// A checked line's outcome, as a status line or record shows it.
#[derive(Debug)]
pub enum Verdict<'a> {
    /// The listed file's digest matched (`OK`).
    Ok,
    /// It differed (`FAILED`).
    Mismatch,
    /// It could not be opened or read (`FAILED open or read`).
    Unreadable(&'a std::io::Error),
}

/// How check mode reports each checksum line. The diagnostics on standard
/// error (a file's read error, `-w`'s warnings) are check mode's own and
/// the same for every format.
pub trait CheckReport: Send {
    /// A listed file was verified (or could not be read).
    fn verified(&mut self, con: &mut Console, at: LineAt<'_>, name: &[u8], algo: Algorithm, v: Verdict<'_>);
    /// An improperly formatted line.
    fn misformatted(&mut self, con: &mut Console, at: LineAt<'_>);
    /// `--audit`: the walk found `name` (relative to the audited
    /// directory), not listed ([`Category::New`]), or could not go on
    /// there ([`Category::Unreadable`] with the error). Only the audit
    /// reporters print anything.
    fn found(&mut self, _con: &mut Console, _name: &[u8], _cat: Category, _error: Option<&std::io::Error>) {}
    /// `--audit`: the counts of each category, once, at the end.
    fn audit_summary(&mut self, _con: &mut Console, _counts: &AuditCounts) {}
}

/// What `--audit` found for one file (rclone `check --combined`'s five
/// kinds, with its symbols).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    /// Listed, and its digest matched (`=`).
    Matching,
    /// Listed, and its digest differed (`*`).
    Changed,
    /// Listed, and not there (`-`): no such file, or a directory on its
    /// path is not one.
    Missing,
    /// Under the directory, regular, and not listed (`+`).
    New,
    /// Listed but could not be read, or a part of the tree could not be
    /// walked (`!`).
    Unreadable,
}

impl Category {
    /// Every category, in the summary's order.
    pub const ALL: [Category; 5] = [
        Category::Matching,
        Category::Changed,
        Category::Missing,
        Category::New,
        Category::Unreadable,
    ];

    /// The symbol that begins its line (`=`, `*`, `-`, `+`, `!`).
    pub fn symbol(self) -> char {
        match self {
            Category::Matching => '=',
            Category::Changed => '*',
            Category::Missing => '-',
            Category::New => '+',
            Category::Unreadable => '!',
        }
    }

    /// Its name in JSON records and in the summary.
    pub fn name(self) -> &'static str {
        match self {
            Category::Matching => "matching",
            Category::Changed => "changed",
            Category::Missing => "missing",
            Category::New => "new",
            Category::Unreadable => "unreadable",
        }
    }

    /// The category of a listed file's verdict.
    pub fn of(v: &Verdict<'_>) -> Category {
        match v {
            Verdict::Ok => Category::Matching,
            Verdict::Mismatch => Category::Changed,
            Verdict::Unreadable(e) if is_missing(e) => Category::Missing,
            Verdict::Unreadable(_) => Category::Unreadable,
        }
    }
}

/// True for an error that means the file is not there: `ENOENT`, or
/// `ENOTDIR` (a directory on its path is now a file).
pub fn is_missing(e: &std::io::Error) -> bool {
    matches!(
        crate::os::ErrorClass::of(e),
        Some(crate::os::ErrorClass::NotFound | crate::os::ErrorClass::NotADirectory)
    )
}

/// How many files `--audit` put in each [`Category`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AuditCounts {
    counts: [u64; 5],
}

impl AuditCounts {
    /// Counts one more file of `cat`.
    pub fn add(&mut self, cat: Category) {
        self.counts[cat as usize] += 1;
    }

    /// The files counted in `cat`.
    pub fn get(&self, cat: Category) -> u64 {
        self.counts[cat as usize]
    }

    /// Every category's count, in [`Category::ALL`]'s order.
    pub fn all(&self) -> [u64; 5] {
        self.counts
    }

    /// Counts from [`AuditCounts::all`]'s array.
    pub fn from_all(counts: [u64; 5]) -> AuditCounts {
        AuditCounts { counts }
    }

    /// Prints the counts as `--audit` does at its end: `style` 0 prints
    /// nothing (`--status`), 1 a line per category on standard error,
    /// 2 the JSON summary record on standard output.
    pub fn print(&self, con: &mut Console, style: u8) {
        match style {
            1 => lines::AuditLines::summary(con, self),
            2 => {
                let mut out = Vec::new();
                json::audit_summary_record(&mut out, self);
                con.write_out(&out);
            }
            _ => {}
        }
    }

    /// True when something differs: any file changed, missing, new or
    /// unreadable (the audit then fails).
    pub fn differs(&self) -> bool {
        Category::ALL
            .iter()
            .any(|&c| c != Category::Matching && self.get(c) != 0)
    }
}

/// The reporter for check mode: nothing with `--status`, JSON records
/// with `--json`, else GNU's status lines; with `--audit`, the audit's
/// lines or records instead.
pub fn check_report(job: &CheckJob) -> Box<dyn CheckReport> {
    let quiet = job.verbosity == Verbosity::Quiet;
    if job.verbosity == Verbosity::Status {
        Box::new(Silent)
    } else if job.audit.is_some() && job.json {
        Box::new(json::JsonAudit { quiet })
    } else if job.audit.is_some() {
        Box::new(lines::AuditLines {
            quiet,
            names: job.names,
        })
    } else if job.json {
        Box::new(json::JsonCheck { quiet })
    } else {
        Box::new(StatusLines {
            quiet,
            names: job.names,
        })
    }
}

/// `--status`: standard output stays empty; the exit status tells.
struct Silent;

impl CheckReport for Silent {
    fn verified(&mut self, _: &mut Console, _: LineAt<'_>, _: &[u8], _: Algorithm, _: Verdict<'_>) {}
    fn misformatted(&mut self, _: &mut Console, _: LineAt<'_>) {}
}

/// GNU's status lines: `NAME: OK`, `NAME: FAILED`, `NAME: FAILED open or
/// read` (coreutils digest.c `digest_check`), the name shown as the GNU
/// release does.
struct StatusLines {
    quiet: bool,
    names: StatusNames,
}

impl CheckReport for StatusLines {
    fn verified(&mut self, con: &mut Console, at: LineAt<'_>, name: &[u8], algo: Algorithm, v: Verdict<'_>) {
        let what: &[u8] = match v {
            Verdict::Ok if self.quiet => return,
            Verdict::Ok => b": OK",
            Verdict::Mismatch => b": FAILED",
            Verdict::Unreadable(_) => b": FAILED open or read",
        };
        let mut out = status_name(self.names, name);
        out.extend_from_slice(what);
        if at.annotate {
            out.extend_from_slice(format!(" ({})", algo.tag().unwrap_or_else(|| algo.name())).as_bytes());
        }
        out.push(b'\n');
        con.write_out(&out);
    }
    fn misformatted(&mut self, _: &mut Console, _: LineAt<'_>) {}
}

/// How a name is shown in a status line, per GNU release.
pub(crate) fn status_name(names: StatusNames, name: &[u8]) -> Vec<u8> {
    let escape_it = match names {
        StatusNames::EscapeNewline | StatusNames::EscapeNewlineOnly => name.contains(&b'\n'),
        StatusNames::Escape => escape::needs_escape(name),
        StatusNames::ShellQuote => return quote::quotef(name),
    };
    if escape_it {
        let mut out = vec![b'\\'];
        escape::escape_into_cr(&mut out, name, names != StatusNames::EscapeNewlineOnly);
        out
    } else {
        name.to_vec()
    }
}

/// Appends the text form of `digest` (hex or base64) to `out`.
pub use lines::encode_digest;

/// A hash-mode digest as text in `encoding` (hex unless base64).
pub(crate) fn digest_text(digest: &[u8], encoding: Encoding) -> String {
    let mut v = Vec::new();
    let enc = if encoding == Encoding::Base64 {
        Encoding::Base64
    } else {
        Encoding::Hex
    };
    encode_digest(&mut v, digest, enc);
    String::from_utf8(v).unwrap_or_default()
}

/// The summary of a `--state` run on standard error (`PROG: STATE: digests
/// of T files taken from the state, R files read (S by --rescan); the
/// oldest taken was read ISO (AGE ago)`): `counts` is `[taken, read,
/// rescanned]`, `oldest` the oldest taken digest's read time and age as
/// `crate::state` words them. `hash` prints it after a run, `merge` once
/// for the shards' counts summed.
pub fn state_summary(con: &mut Console, path: &[u8], counts: [u64; 3], oldest: Option<(String, String)>) {
    let [taken, read, rescanned] = counts;
    let mut msg = con.quotef(path);
    let files = |n: u64| if n == 1 { "file" } else { "files" };
    msg.extend_from_slice(
        format!(
            ": digests of {} {} taken from the state, {} {} read",
            taken,
            files(taken),
            read,
            files(read)
        )
        .as_bytes(),
    );
    if rescanned > 0 {
        msg.extend_from_slice(format!(" ({rescanned} by --rescan)").as_bytes());
    }
    if let Some((iso, age)) = oldest {
        msg.extend_from_slice(format!("; the oldest taken was read {iso} ({age} ago)").as_bytes());
    }
    con.error_msg(&msg);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audit_categories_and_counts() {
        use crate::os::ErrorClass;
        let gone = ErrorClass::NotFound.error();
        let notdir = ErrorClass::NotADirectory.error();
        let isdir = ErrorClass::IsADirectory.error();
        assert_eq!(Category::of(&Verdict::Ok), Category::Matching);
        assert_eq!(Category::of(&Verdict::Mismatch), Category::Changed);
        assert_eq!(Category::of(&Verdict::Unreadable(&gone)), Category::Missing);
        assert_eq!(Category::of(&Verdict::Unreadable(&notdir)), Category::Missing);
        assert_eq!(Category::of(&Verdict::Unreadable(&isdir)), Category::Unreadable);
        let symbols: String = Category::ALL.iter().map(|c| c.symbol()).collect();
        assert_eq!(symbols, "=*-+!");
        let mut n = AuditCounts::default();
        n.add(Category::Matching);
        assert!(!n.differs());
        n.add(Category::New);
        assert!(n.differs());
        assert_eq!((n.get(Category::Matching), n.get(Category::New)), (1, 1));
    }
}
