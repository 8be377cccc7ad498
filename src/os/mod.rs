//! The operating system, below every other module, and the one place
//! that names the platform crates (`libc`, `windows-sys`, `io-uring`;
//! `scripts/check-layers` fails CI on any other): names as bytes
//! (`OsStr` <-> `[u8]`), errors classified and worded as GNU words them on
//! every OS ([`ErrorClass`], [`strerror`]), the standard descriptors used
//! directly, counted input files, and the system calls the I/O layer and
//! the scheduler tune with. The shape of std's `library/std/src/sys`: this
//! file is the portable surface; `unix.rs`, `linux.rs` and `windows.rs`
//! hold what one platform does, chosen by `cfg` here and nowhere else.
//! It imports no other module of the crate.

use std::fs::File;
use std::io::{self, Read};
use std::sync::atomic::Ordering::SeqCst;
use std::sync::atomic::{AtomicBool, AtomicUsize};

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub use linux::{map_guard, workers};
#[cfg(target_os = "linux")]
pub mod ring;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as imp;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as imp;

/// An I/O error in the terms of GNU's messages, whatever code the OS gave:
/// Linux's errno, a BSD's, or a Win32 error code. Each class is one errno
/// of POSIX and is worded as glibc's `strerror` words it ([`strerror`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// ENOENT, "No such file or directory" (Win32: file, path, drive or
    /// network name not found, an invalid name).
    NotFound,
    /// EACCES, "Permission denied" (Win32: access denied, a sharing or
    /// lock violation).
    PermissionDenied,
    /// EPERM, "Operation not permitted".
    NotPermitted,
    /// ENOTDIR, "Not a directory" (Win32: ERROR_DIRECTORY).
    NotADirectory,
    /// EISDIR, "Is a directory" (Windows: a directory opened as a file,
    /// which Win32 reports as access denied; see [`open_input`]).
    IsADirectory,
    /// ELOOP, "Too many levels of symbolic links".
    Loop,
    /// ENAMETOOLONG, "File name too long".
    NameTooLong,
    /// ENXIO, "No such device or address".
    NoDevice,
    /// EMFILE, "Too many open files" (this process's descriptors).
    TooManyOpenFiles,
    /// ENFILE, "Too many open files in system".
    FileTableFull,
    /// EIO, "Input/output error".
    Io,
}

impl ErrorClass {
    /// Every class, for tests and tables.
    pub const ALL: [ErrorClass; 11] = [
        ErrorClass::NotFound,
        ErrorClass::PermissionDenied,
        ErrorClass::NotPermitted,
        ErrorClass::NotADirectory,
        ErrorClass::IsADirectory,
        ErrorClass::Loop,
        ErrorClass::NameTooLong,
        ErrorClass::NoDevice,
        ErrorClass::TooManyOpenFiles,
        ErrorClass::FileTableFull,
        ErrorClass::Io,
    ];

    /// The class of `e`, or `None` for an error of no class here (then
    /// [`strerror`] words it as the OS does).
    pub fn of(e: &io::Error) -> Option<ErrorClass> {
        imp::classify(e)
    }

    /// A new error of this class, as the OS itself would report it (on
    /// Unix the errno, so that `strerror` gives the C library's text).
    pub fn error(self) -> io::Error {
        imp::error_of(self)
    }

    /// glibc's `strerror` text for this class's errno (GNU's words).
    pub fn gnu_text(self) -> &'static str {
        match self {
            ErrorClass::NotFound => "No such file or directory",
            ErrorClass::PermissionDenied => "Permission denied",
            ErrorClass::NotPermitted => "Operation not permitted",
            ErrorClass::NotADirectory => "Not a directory",
            ErrorClass::IsADirectory => "Is a directory",
            ErrorClass::Loop => "Too many levels of symbolic links",
            ErrorClass::NameTooLong => "File name too long",
            ErrorClass::NoDevice => "No such device or address",
            ErrorClass::TooManyOpenFiles => "Too many open files",
            ErrorClass::FileTableFull => "Too many open files in system",
            ErrorClass::Io => "Input/output error",
        }
    }
}

/// The message for an I/O error as GNU prints it (`strerror (errno)`),
/// e.g. "No such file or directory": on Unix the C library's text for the
/// errno; on Windows glibc's text for the errno the Win32 code stands for
/// (as Cygwin and MSYS2, the GNU builds Windows users run, map it), else
/// Windows' own text; for errors without a code, Rust's text.
pub fn strerror(e: &io::Error) -> String {
    imp::strerror(e)
}

/// "MSG (os error N)", Rust's formatting of an OS error, as MSG alone.
fn without_code(text: String) -> String {
    match text.rfind(" (os error ") {
        Some(pos) => text[..pos].to_string(),
        None => text,
    }
}

/// Rust's text for an error without an OS code, GNU's where GNU has one.
fn kind_text(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => "Unexpected end of file".to_string(),
        _ => e.to_string(),
    }
}

/// The bytes of an OS string: exact on Unix; UTF-8 elsewhere (Windows'
/// UTF-16 names, an unpaired surrogate as U+FFFD).
pub fn os_bytes(s: &std::ffi::OsStr) -> std::borrow::Cow<'_, [u8]> {
    imp::os_bytes(s)
}

/// An OS string from bytes: exact on Unix; from UTF-8 (lossy) elsewhere.
pub fn bytes_os(b: &[u8]) -> std::ffi::OsString {
    imp::bytes_os(b)
}

/// `argv[0]` as messages name the program: as given on Unix (GNU prints
/// its `argv[0]`); on Windows the base name without `.exe` (`sha256sum`,
/// not `C:\tools\sha256sum.exe`), as MSYS2's GNU tools print theirs.
pub fn program_name(argv0: &std::ffi::OsStr) -> std::ffi::OsString {
    imp::program_name(argv0)
}

/// The process's arguments. On Windows, wildcards in them (`*.txt`,
/// `?`, `[ab]`) are expanded here, as a Unix shell would have expanded
/// them (cmd.exe and PowerShell leave that to the program; the `wild`
/// crate, as b3sum and uutils use it); a pattern that matches nothing is
/// kept as typed.
pub fn args() -> Vec<std::ffi::OsString> {
    imp::args()
}

/// True where file names are matched without regard to ASCII case by
/// the file system users most often have (Windows' NTFS, macOS's APFS), so
/// that a program found as `MD5SUM` is `md5sum`.
pub const CASE_INSENSITIVE_NAMES: bool = cfg!(any(windows, target_os = "macos"));

/// A file name as checksum lines write it: on Windows each `\` becomes
/// `/`, so that a checksum file written there verifies on Linux and the
/// reverse (Windows opens names with either separator; b3sum and uutils
/// write `/` too); elsewhere unchanged (a `\` is part of a Unix name).
pub fn portable_name(name: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if cfg!(windows) && name.contains(&b'\\') {
        std::borrow::Cow::Owned(name.iter().map(|&b| if b == b'\\' { b'/' } else { b }).collect())
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

/// A path as the user would type it: Windows' verbatim prefix (`\\?\`,
/// which `canonicalize` adds) removed where the rest is a plain drive path
/// (`\\?\C:\x` -> `C:\x`); unchanged elsewhere.
pub fn display_path(p: &std::path::Path) -> std::path::PathBuf {
    imp::display_path(p)
}

/// Whether GNU's `*` (binary) marker is the default in checksum lines:
/// true where GNU is built with `O_BINARY` (Windows: MSYS2's and Git for
/// Windows' `sha256sum` print `HEX *name` unless told `-t`), false on
/// Unix. GNU digest.c: `binary = O_BINARY && !isatty (input)`.
pub const BINARY_BY_DEFAULT: bool = cfg!(windows);

static STDIN_USED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// True once standard input has been read (GNU's `have_read_stdin`).
pub fn stdin_was_read() -> bool {
    STDIN_USED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Standard input as a plain reader. On Unix it reads descriptor 0 directly:
/// no second buffer, and a closed descriptor fails with EBADF as in GNU
/// (Rust's `Stdin` would report a closed stdin as empty).
///
/// Where standard input is a terminal, the reader is marked as such while
/// it lives ([`reading_terminal_stdin`]: no progress bar draws over what
/// the user types), and a read that waits [`STDIN_NOTICE_AFTER`] prints
/// the notice of [`set_terminal_stdin_notice`], once.
pub fn stdin_reader() -> Box<dyn Read + Send> {
    STDIN_USED.store(true, std::sync::atomic::Ordering::Relaxed);
    let inner = imp::stdin_reader();
    if stdin_is_terminal() {
        Box::new(TerminalStdin::new(inner))
    } else {
        inner
    }
}

/// The name of the file beside the GNU-name links that says which GNU
/// release each name reproduces (`mhash --install-links` writes it).
pub const RELEASE_FILE: &str = ".mhash-gnu-release";

/// The GNU release that `--install-links` recorded for the program `name`
/// beside the link this process was started through (the path given to
/// `execve`: Linux's `AT_EXECFN`; elsewhere `argv0` where it names a
/// directory, or the executable's own path on Windows, where the links
/// are hard links). `None` when there is no such record.
pub fn installed_release(argv0: &std::ffi::OsStr, name: &str) -> Option<String> {
    let started: std::path::PathBuf = started_as(argv0)?;
    let file = started.parent()?.join(RELEASE_FILE);
    let text = std::fs::read_to_string(file).ok()?;
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.trim().to_string())
}

/// The path this process was started through (see [`installed_release`]).
#[cfg(windows)]
fn started_as(_argv0: &std::ffi::OsStr) -> Option<std::path::PathBuf> {
    std::env::current_exe().ok()
}

/// The path this process was started through (see [`installed_release`]).
#[cfg(not(windows))]
fn started_as(argv0: &std::ffi::OsStr) -> Option<std::path::PathBuf> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getauxval only reads the auxiliary vector; AT_EXECFN is
        // the address of the NUL-terminated path given to execve, which
        // lives on the stack for the whole life of the process.
        let p = unsafe { libc::getauxval(libc::AT_EXECFN) } as *const std::ffi::c_char;
        if !p.is_null() {
            // SAFETY: see above: a NUL-terminated string that outlives us.
            let bytes = unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes();
            use std::os::unix::ffi::OsStrExt;
            return Some(std::path::PathBuf::from(std::ffi::OsStr::from_bytes(bytes)));
        }
    }
    let p = std::path::Path::new(argv0);
    (p.components().count() > 1).then(|| p.to_path_buf())
}

/// How long a read of a terminal on standard input waits before the
/// notice of [`set_terminal_stdin_notice`] is printed: 1 second.
pub const STDIN_NOTICE_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether standard input is a terminal (asked once).
fn stdin_is_terminal() -> bool {
    use std::io::IsTerminal;
    static TERMINAL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TERMINAL.get_or_init(|| io::stdin().is_terminal())
}

/// Readers of a terminal on standard input now alive.
static TERMINAL_READERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// True while standard input is being read and is a terminal.
pub fn reading_terminal_stdin() -> bool {
    TERMINAL_READERS.load(std::sync::atomic::Ordering::Relaxed) > 0
}

/// The notice (a whole line) for a read of a terminal on standard input
/// that waits; none by default (GNU's names and shasum print none).
static STDIN_NOTICE: std::sync::Mutex<Option<Vec<u8>>> = std::sync::Mutex::new(None);

/// Sets the line printed on standard error, once, when a read of a
/// terminal on standard input has waited [`STDIN_NOTICE_AFTER`] (the
/// native face: `mhash: reading standard input; Ctrl-D ends it`). Printed
/// only where standard error is a terminal too: it is for the person
/// typing, not for a log.
pub fn set_terminal_stdin_notice(line: Vec<u8>) {
    if let Ok(mut n) = STDIN_NOTICE.lock() {
        *n = Some(line);
    }
}

/// Milliseconds since [`notice_epoch`] at which the current read of a
/// terminal stdin began, plus 1; 0 while no read waits.
static READ_WAITING_SINCE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn notice_epoch() -> std::time::Instant {
    static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *EPOCH.get_or_init(std::time::Instant::now)
}

fn millis_now() -> u64 {
    u64::try_from(notice_epoch().elapsed().as_millis()).unwrap_or(u64::MAX - 1)
}

/// Starts, once per process, the thread that prints the stdin notice when
/// a read has waited long enough (where a notice is set and standard error
/// is a terminal).
fn start_notice_watch() {
    use std::io::IsTerminal;
    use std::sync::atomic::Ordering;
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let Some(line) = STDIN_NOTICE.lock().ok().and_then(|n| n.clone()) else {
            return;
        };
        if !io::stderr().is_terminal() {
            return;
        }
        let _ = notice_epoch();
        let _ = std::thread::Builder::new()
            .name("mhash-stdin-notice".into())
            .stack_size(64 * 1024)
            .spawn(move || {
                let wait = u64::try_from(STDIN_NOTICE_AFTER.as_millis()).unwrap_or(1000);
                loop {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    let since = READ_WAITING_SINCE.load(Ordering::Relaxed);
                    if since != 0 && millis_now() + 1 >= since + wait {
                        let _ = io::Write::write_all(&mut stderr_writer(), &line);
                        return;
                    }
                }
            });
    });
}

/// Standard input while it is a terminal (see [`stdin_reader`]).
struct TerminalStdin {
    inner: Box<dyn Read + Send>,
}

impl TerminalStdin {
    fn new(inner: Box<dyn Read + Send>) -> TerminalStdin {
        TERMINAL_READERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        TerminalStdin { inner }
    }
}

impl Read for TerminalStdin {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use std::sync::atomic::Ordering;
        start_notice_watch();
        READ_WAITING_SINCE.store(millis_now() + 1, Ordering::Relaxed);
        let r = self.inner.read(buf);
        READ_WAITING_SINCE.store(0, Ordering::Relaxed);
        r
    }
}

impl Drop for TerminalStdin {
    fn drop(&mut self) {
        TERMINAL_READERS.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Standard output as a plain writer (descriptor 1 on Unix, so that a
/// closed stdout fails with EBADF as in GNU instead of swallowing output;
/// on Windows std's, which writes UTF-8 to a console as UTF-16 and bytes
/// as they are to a file or pipe).
pub fn stdout_writer() -> Box<dyn io::Write + Send> {
    Box::new(BoundedEintr(imp::stdout_writer()))
}

/// Standard error as a plain writer (descriptor 2 on Unix, unbuffered as
/// C's `stderr`): a closed or full standard error fails with EBADF or
/// ENOSPC, which the run's exit status reports as GNU's does (Rust's
/// `Stderr` would swallow EBADF).
pub fn stderr_writer() -> Box<dyn io::Write + Send> {
    Box::new(BoundedEintr(imp::stderr_writer()))
}

/// True when descriptor 1 is not open (`>&-`): closing standard output
/// would then fail with EBADF, the one write error gnulib's
/// `close_stream` reports with its errno once the stream's error flag
/// was set earlier (a descriptor open read-only fails its writes with
/// EBADF too, but closes fine: "write error" alone). False on Windows.
pub fn stdout_closed() -> bool {
    imp::stdout_closed()
}

/// Opens `path` for reading, as `File::open` does but retrying EINTR at
/// most [`MAX_EINTR`] times in a row (std retries it for ever). Not an
/// input of the run's ([`open_input`] counts those).
///
/// # Errors
/// open(2)'s (`ENOENT`, `EACCES`, ...); [`interrupted_too_often`].
pub fn open_read(path: &std::path::Path) -> io::Result<File> {
    imp::open_read(path, false)
}

/// How many times in a row a system call interrupted by a signal (EINTR)
/// is retried (open, write, close) before the interruption is reported:
/// GNU retries none of them under `SA_RESTART`-less signals and reports
/// `Interrupted system call`; mhash retries a transient interruption and
/// stops a persistent one (a busy loop otherwise).
pub const MAX_EINTR: u32 = 1000;

/// The error for a call interrupted [`MAX_EINTR`] times in a row, worded
/// as glibc words EINTR, and of a kind other than `Interrupted`, so that
/// std's retrying loops (`write_all`) stop on it.
pub fn interrupted_too_often() -> io::Error {
    io::Error::other("Interrupted system call")
}

/// A reader or writer whose calls are retried on EINTR at most
/// [`MAX_EINTR`] times in a row, then fail with
/// [`interrupted_too_often`] (which std's loops, `read_until` and
/// `write_all`, do not retry).
pub struct BoundedEintr<T>(pub T);

impl<R: io::Read> io::Read for BoundedEintr<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        for _ in 0..MAX_EINTR {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                r => return r,
            }
        }
        Err(interrupted_too_often())
    }
}

/// One `read`, retried on EINTR at most [`MAX_EINTR`] times in a row.
///
/// # Errors
/// As `reader.read`; [`interrupted_too_often`] after that many
/// interruptions.
pub fn read_retrying(reader: &mut dyn io::Read, buf: &mut [u8]) -> io::Result<usize> {
    io::Read::read(&mut BoundedEintr(reader), buf)
}

impl<W: io::Write> io::Write for BoundedEintr<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for _ in 0..MAX_EINTR {
            match self.0.write(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                r => return r,
            }
        }
        Err(interrupted_too_often())
    }

    fn flush(&mut self) -> io::Result<()> {
        for _ in 0..MAX_EINTR {
            match self.0.flush() {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                r => return r,
            }
        }
        Err(interrupted_too_often())
    }
}

/// Whether the character type of the locale the environment names
/// (`LC_ALL`, `LC_CTYPE`, `LANG`) is UTF-8, as the C library decides it:
/// `setlocale(LC_CTYPE, "")` then `nl_langinfo(CODESET)`. A locale that is
/// named but not installed (`LANG=en_US.UTF-8` in a slim container) is
/// the C locale, as it is for GNU. `None` where there is no such C
/// library call (Windows): the caller reads the variables itself.
pub fn ctype_is_utf8() -> Option<bool> {
    imp::ctype_is_utf8()
}

/// Closes standard output at the end of a run, as gnulib's `close_stdout`
/// does: an error that only close(2) reports (NFS, FUSE: a delayed write
/// failing) is the run's write error. A descriptor already closed when
/// the run began is not an error. Nothing on Windows.
///
/// # Errors
/// close(2)'s error (EIO, ENOSPC, EDQUOT, ...).
pub fn close_stdout() -> io::Result<()> {
    imp::close_stdout()
}

/// True when standard output may be shared with other processes' writes
/// line by line: a pipe or socket, or a file opened `O_APPEND` (false on
/// Windows).
pub fn stdout_shared() -> bool {
    imp::stdout_shared()
}

/// True when descriptors 0, 1 and 2 are all open. When one is closed, the
/// next `open` reuses its number; GNU's one-file-at-a-time order decides
/// what then happens (`sha256sum a - <&-`: `a` is opened as descriptor 0
/// and closed again before `-` finds it closed), so the caller must hash
/// one file at a time to reproduce it. Always true on Windows (handles
/// are never reused as standard handles).
///
/// Checked once per process, at the first call (before any input is
/// opened: the scheduler asks first), and remembered: later calls, once
/// per batch of files, would otherwise cost three system calls each, and
/// a descriptor number reused by an input would read as open anyway.
pub fn standard_fds_open() -> bool {
    static OPEN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OPEN.get_or_init(imp::standard_fds_open)
}

/// GNU's `fclose (stdin)` check at exit: `Err(EBADF)` when standard input
/// was read and its descriptor is closed (never on Windows).
///
/// # Errors
/// EBADF from `fcntl(0, F_GETFD)`.
pub fn check_stdin_closed() -> io::Result<()> {
    if stdin_was_read() {
        imp::check_stdin_closed()
    } else {
        Ok(())
    }
}

/// Inputs open now (files being hashed), process-wide, and a signal for
/// each close: a thread that finds descriptors exhausted (EMFILE, ENFILE)
/// waits for another thread's input to close instead of failing the file.
static OPEN_INPUTS: AtomicUsize = AtomicUsize::new(0);
/// Threads waiting for a close (a close signals only when there are).
static WAITING: AtomicUsize = AtomicUsize::new(0);
static WAIT_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
static INPUT_CLOSED: std::sync::Condvar = std::sync::Condvar::new();

/// How many times an open that finds descriptors exhausted, with no input
/// open anywhere in the process to wait for, is tried again (10 ms apart:
/// ENFILE is system-wide and another process may free one; a descriptor
/// mhash holds for a moment, a cgroup file read to count the cores, may
/// close) before its error is reported.
const EXHAUSTED_RETRIES: u32 = 10;

/// Set when an open's retries ran out with no input open ([`open_input`]),
/// cleared by the next open that succeeds: while set, an open that finds
/// descriptors exhausted with no input open fails at once. So a limit
/// that nothing of mhash's can free (`prlimit --nofile=4 md5sum -c`: the
/// checksum file holds the last descriptor) costs the wait once, not once
/// per file, and each file fails at once as GNU's does.
static EXHAUSTED: AtomicBool = AtomicBool::new(false);

/// True for "too many open files" (EMFILE, this process; ENFILE, the
/// system; Win32's ERROR_TOO_MANY_OPEN_FILES).
pub fn fds_exhausted(e: &io::Error) -> bool {
    matches!(
        ErrorClass::of(e),
        Some(ErrorClass::TooManyOpenFiles | ErrorClass::FileTableFull)
    )
}

/// An open input file, counted: while it is open, a thread that finds the
/// descriptors exhausted waits for it (or one like it) to close. Close it
/// with [`Input::close`] to learn close(2)'s result (GNU reports it, e.g.
/// EIO on NFS); dropping it closes it too, ignoring the result.
#[derive(Debug)]
pub struct Input {
    file: Option<File>,
}

impl std::ops::Deref for Input {
    type Target = File;
    fn deref(&self) -> &File {
        self.file.as_ref().expect("open until closed")
    }
}

impl std::ops::DerefMut for Input {
    fn deref_mut(&mut self) -> &mut File {
        self.file.as_mut().expect("open until closed")
    }
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (**self).read(buf)
    }
}

impl Input {
    /// Counts `file`, opened elsewhere (io_uring: [`ring`]), as an
    /// open input.
    pub fn adopt(file: File) -> Input {
        OPEN_INPUTS.fetch_add(1, SeqCst);
        Input { file: Some(file) }
    }

    /// Gives up the descriptor without closing it, for a close made
    /// elsewhere (io_uring); the caller closes it and then calls
    /// [`input_closed`].
    #[cfg(unix)]
    pub fn into_raw_fd(mut self) -> std::os::fd::RawFd {
        use std::os::fd::IntoRawFd;
        self.file.take().expect("open until closed").into_raw_fd()
    }

    /// Takes back a descriptor given up with [`Input::into_raw_fd`] and
    /// not closed (it still counts as open).
    ///
    /// # Safety
    /// `fd` must come from [`Input::into_raw_fd`] and be open and owned by
    /// no one else.
    #[cfg(unix)]
    pub unsafe fn reclaim(fd: std::os::fd::RawFd) -> Input {
        use std::os::fd::FromRawFd;
        // SAFETY: the caller's contract.
        Input {
            file: Some(unsafe { File::from_raw_fd(fd) }),
        }
    }

    /// Closes the file, reporting close(2)'s error ([`close_file`]).
    ///
    /// # Errors
    /// close(2) failed (EIO, ENOSPC, EDQUOT on network file systems).
    pub fn close(mut self) -> io::Result<()> {
        let f = self.file.take().expect("open until closed");
        let r = close_file(f);
        released();
        r
    }
}

impl Drop for Input {
    fn drop(&mut self) {
        if let Some(f) = self.file.take() {
            drop(f);
            released();
        }
    }
}

/// Closes `f`, returning close(2)'s error (EINTR counts as closed: Linux
/// frees the descriptor whatever close returns). GNU checks `fclose`'s
/// result on every input and checksum file. On Windows the handle is
/// closed and nothing is reported (CloseHandle fails only on a bad handle).
///
/// # Errors
/// close(2) failed (EIO, ENOSPC, EDQUOT on network file systems).
pub fn close_file(f: File) -> io::Result<()> {
    imp::close_file(f)
}

/// Grows this process's descriptor table to hold descriptor numbers up
/// to `n` (at most the soft `RLIMIT_NOFILE`), while the process is still
/// single-threaded: one `F_DUPFD` to number `n - 1`, then its close.
///
/// Linux grows the table when an open needs a number past its size (64,
/// then powers of two), and in a multi-threaded process each growth waits
/// for an RCU grace period (`expand_fdtable`: `synchronize_rcu`), 10-15
/// ms measured in a 2-core VM, longer than hashing 5,000 small files
/// takes. Worker threads that keep files open ahead (the lanes with
/// io_uring) would pay that in the middle of the run; grown before they
/// start, it costs two system calls. Errors are ignored (the table then
/// grows later, as it would have). Nothing on Windows.
pub fn reserve_descriptors(n: usize) {
    imp::reserve_descriptors(n)
}

/// The soft `RLIMIT_NOFILE` (one more than the highest descriptor number
/// an open may return), or `None` where it cannot be read or there is
/// none (Windows).
pub fn descriptor_limit() -> Option<u64> {
    imp::descriptor_limit()
}

/// The CPU the calling thread runs on (Linux `sched_getcpu`), for
/// [`leave_cpu`] in a thread it starts; `None` elsewhere or on error.
pub fn current_cpu() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        linux::current_cpu()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Called first thing in a worker thread that a thread running on `cpu`
/// (its [`current_cpu`]) has just started: if the worker was put on that
/// same CPU, moves it to another CPU it may use (Linux; nothing elsewhere).
///
/// Why: Linux placed a new thread on its creator's CPU, where it waited
/// for the creator's time slice to end (until the next tick's balancing)
/// while the other CPU stayed idle: `md5sum` on 5,000 files of 4 KiB in a
/// 2-CPU VM started its second thread 0.3 / 1.4 / 2.5 ms (quartiles of 40
/// runs) after creating it, of a 15 ms run; with this and [`let_run`],
/// about 0.1 ms (Linux 6.18, 2026-12-03).
pub fn leave_cpu(cpu: Option<usize>) {
    #[cfg(target_os = "linux")]
    linux::leave_cpu(cpu);
    #[cfg(not(target_os = "linux"))]
    let _ = cpu;
}

/// Called by a thread that has just started a worker: yields its CPU once,
/// so that a worker put on this CPU runs at once (and moves itself away,
/// [`leave_cpu`]) instead of waiting for this thread's time slice to end.
/// Returns at once where nothing else waits for this CPU.
pub fn let_run() {
    std::thread::yield_now();
}

/// True for a name that reads standard input: `-`, and on Unix the paths
/// that name descriptor 0 (`/dev/stdin`, `/dev/fd/0`, `/proc/self/fd/0`).
/// Such inputs are read one at a time, in argument or line order: they
/// share one stream (GNU reads them in order, one process, one thread).
pub fn reads_stdin(name: &[u8]) -> bool {
    name == b"-" || (cfg!(unix) && matches!(name, b"/dev/stdin" | b"/dev/fd/0" | b"/proc/self/fd/0"))
}

/// Bytes of memory this process may still map under its `RLIMIT_AS`
/// (`ulimit -v`: the limit less the current size, `/proc/self/statm`) and
/// its `RLIMIT_DATA` (`ulimit -d`: the limit less the private writable
/// mappings, which Linux 4.7+ counts against it: `VmData` of
/// `/proc/self/status`), the smaller of the two; 0 when a figure cannot be
/// read; `None` when there is neither limit, and on every OS but Linux. Under a limit, glibc is also told
/// to keep one malloc arena (it reserves 64 MiB of address space for each
/// extra one).
pub fn address_space_left() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        linux::address_space_left()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Tells the kernel `f` will be read once, front to back (Linux: a
/// larger read-ahead window). Only a hint: errors are ignored; nothing
/// elsewhere.
pub fn advise_sequential(f: &File) {
    #[cfg(target_os = "linux")]
    linux::advise_sequential(f);
    #[cfg(not(target_os = "linux"))]
    let _ = f;
}

/// [`advise_sequential`] for later, on a file that is borrowed
/// elsewhere meanwhile (it holds the descriptor's number, not the file:
/// applied after the file is closed it fails with EBADF, ignored).
#[derive(Clone, Copy, Debug)]
pub struct ReadAheadHint {
    #[cfg(target_os = "linux")]
    fd: i32,
}

impl ReadAheadHint {
    /// The hint for `f`.
    pub fn of(f: &File) -> ReadAheadHint {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            ReadAheadHint { fd: f.as_raw_fd() }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = f;
            ReadAheadHint {}
        }
    }

    /// Gives the hint now ([`advise_sequential`]).
    pub fn apply(self) {
        #[cfg(target_os = "linux")]
        linux::advise_sequential_fd(self.fd);
    }
}

/// True when `f` lives on a file system whose backing store is memory
/// (Linux: tmpfs, ramfs, hugetlbfs), where mapping it could allocate its
/// holes; false elsewhere and on error.
pub fn in_memory_fs(f: &File) -> bool {
    #[cfg(target_os = "linux")]
    {
        linux::in_memory_fs(f)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = f;
        false
    }
}

/// Up to `buf.len()` bytes of `f` from byte `offset`: `pread(2)` on Unix,
/// which leaves the file offset alone and fails with `ESPIPE` on an input
/// that cannot be read at an offset (a FIFO, a terminal) without taking
/// anything from it; `ReadFile` at an offset on Windows (which moves the
/// file pointer: callers read a file through this alone).
///
/// # Errors
/// As `pread(2)` (`ESPIPE`, `EISDIR`, `EINTR`, `EIO`, ...) or `ReadFile`.
pub fn read_at(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    imp::read_at(f, buf, offset)
}

/// True where [`read_at`]'s first read tells a regular file from a FIFO
/// or terminal (Unix: `ESPIPE`), so that an input may be read at offsets
/// before anything else is asked about it; elsewhere a file is asked
/// (`fstat`) first.
pub const READ_AT_TELLS_KIND: bool = cfg!(unix);

/// True when the open file `f` is a file on a disk, not a pipe, console
/// or device: on Windows `GetFileType` (a directory never opens as a
/// file there), which answers without the round trip to the volume that
/// `metadata()` makes (`GetFileInformationByHandle` asks for the volume's
/// serial number: under Wine about a dozen server requests per file,
/// 3.6x the time of md5 over 5,000 files of 4 KiB); on Unix `fstat`.
pub fn is_disk_file(f: &File) -> bool {
    imp::is_disk_file(f)
}

/// Clears `O_NONBLOCK` on `f` (opened by [`open_input`] with `nonblock`):
/// reads wait for data again. Nothing on Windows.
///
/// # Errors
/// As `fcntl(2)`.
pub fn set_blocking(f: &File) -> io::Result<()> {
    imp::set_blocking(f)
}

/// Waits until the FIFO `f` has data or its writer has come and gone
/// (`poll(2)`), retrying EINTR `max_eintr` times; returns at once for any
/// other kind of file, and on Windows.
///
/// # Errors
/// As `poll(2)`.
pub fn wait_if_fifo(f: &File, max_eintr: u32) -> io::Result<()> {
    imp::wait_if_fifo(f, max_eintr)
}

/// True for a file its owner may execute (`S_IXUSR`; Nix's rule for a
/// NAR's executable flag); false on Windows, which has no such bit.
pub fn is_executable(meta: &std::fs::Metadata) -> bool {
    imp::is_executable(meta)
}

/// A file's device and inode number; `None` where the platform has none
/// that `std` exposes (Windows).
pub fn file_id(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    imp::file_id(meta)
}

/// True when `a` and `b` name one file (Unix: device and inode, links
/// followed; Windows: volume serial number and file index, so two hard
/// links are one file); false when either cannot be read.
pub fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    imp::same_file(a, b)
}

/// Once called, an interrupt that would end the process (Unix: SIGINT or
/// SIGTERM at their default action; Windows: Ctrl-C or Ctrl-Break at the
/// console) first writes `clear` to standard error (a progress bar's
/// "erase this line"), then ends the process as it would have. Installed
/// once per process; later calls do nothing.
pub fn clear_on_interrupt(clear: &'static [u8]) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| imp::clear_on_interrupt(clear));
}

/// An address in the C library's symbol namespace (`dlsym(RTLD_DEFAULT,
/// name)`), or null where there is none or no dynamic loader (Windows).
pub fn c_symbol(name: &std::ffi::CStr) -> *const std::ffi::c_void {
    imp::c_symbol(name)
}

/// The guard of memory-mapped input where there is none (every OS but
/// Linux): nothing is mapped.
#[cfg(not(target_os = "linux"))]
pub mod map_guard {
    /// False: no map is guarded here, so none is made.
    pub fn supported() -> bool {
        false
    }
    /// Nothing to install.
    pub fn install() {}
    /// Never handed out.
    pub struct Slot(());
    impl Slot {
        /// `None`: nothing is mapped.
        pub fn claim() -> Option<Slot> {
            None
        }
        /// Nothing to arm.
        pub fn arm(&self, _start: usize, _len: usize) {}
        /// False: nothing faulted.
        pub fn disarm(&self) -> bool {
            false
        }
    }
}

/// Worker processes where there are none (every OS but Linux, where
/// nothing is mapped): a board in this process's memory, and no fork.
#[cfg(not(target_os = "linux"))]
pub mod workers {
    use std::io;
    use std::sync::atomic::AtomicU64;

    /// `words` zeroed atomics.
    pub struct Board(Box<[AtomicU64]>);

    impl Board {
        /// A zeroed board of `words` atomics.
        ///
        /// # Errors
        /// None here.
        pub fn new(words: usize) -> io::Result<Board> {
            Ok(Board((0..words.max(1)).map(|_| AtomicU64::new(0)).collect()))
        }
        /// The board's atomics.
        pub fn words(&self) -> &[AtomicU64] {
            &self.0
        }
    }

    /// False: no worker process is forked here.
    pub fn forkable() -> bool {
        false
    }

    /// Never made.
    pub struct Worker(());

    /// Unsupported: no worker process is forked here.
    ///
    /// # Errors
    /// Always `Unsupported`.
    pub fn spawn(_work: &dyn Fn()) -> io::Result<Worker> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }

    impl Worker {
        /// False: there is no child.
        pub fn wait(self) -> bool {
            false
        }
    }
}

/// An input given up with [`Input::into_raw_fd`] has been closed: it no
/// longer counts as open.
pub fn input_closed() {
    released();
}

fn released() {
    OPEN_INPUTS.fetch_sub(1, SeqCst);
    if WAITING.load(SeqCst) > 0 {
        let _g = WAIT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        INPUT_CLOSED.notify_all();
    }
}

/// Opens `path` for reading (`nonblock`: with `O_NONBLOCK`, so that a FIFO
/// opens without waiting for a writer) as a counted [`Input`]. On Windows
/// a directory, which Win32 refuses to open as a file (access denied), is
/// reported as [`ErrorClass::IsADirectory`], GNU's error for it.
///
/// Descriptors exhausted (EMFILE, ENFILE) never cost the file while
/// another input is open elsewhere in the process: this waits for one to
/// close and tries again. A caller that holds inputs itself (`holding`:
/// lanes) gets the error back at once, to go on with the inputs it has
/// (see [`fds_exhausted`]); waiting there could wait on itself. With
/// nothing open anywhere, the open is tried a few more times and then
/// fails with the error.
///
/// # Errors
/// As `open(2)`.
pub fn open_input(path: &std::path::Path, nonblock: bool, holding: bool) -> io::Result<Input> {
    let mut idle_tries = 0;
    loop {
        let seen = OPEN_INPUTS.load(SeqCst);
        match imp::open_read(path, nonblock) {
            Ok(file) => {
                OPEN_INPUTS.fetch_add(1, SeqCst);
                EXHAUSTED.store(false, SeqCst);
                return Ok(Input { file: Some(file) });
            }
            Err(e) if fds_exhausted(&e) && !holding => {
                if OPEN_INPUTS.load(SeqCst) > 0 {
                    // Wait for another thread's input to close (unless one
                    // did since the failed open); 50 ms at most.
                    WAITING.fetch_add(1, SeqCst);
                    let g = WAIT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
                    if OPEN_INPUTS.load(SeqCst) == seen {
                        let _ = INPUT_CLOSED.wait_timeout(g, std::time::Duration::from_millis(50));
                    }
                    WAITING.fetch_sub(1, SeqCst);
                    continue;
                }
                if idle_tries == EXHAUSTED_RETRIES || EXHAUSTED.load(SeqCst) {
                    EXHAUSTED.store(true, SeqCst);
                    return Err(e);
                }
                idle_tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => return Err(imp::open_error(path, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_round_trips_and_is_worded_as_glibc() {
        for c in ErrorClass::ALL {
            let e = c.error();
            assert_eq!(ErrorClass::of(&e), Some(c), "{c:?}");
            assert_eq!(strerror(&e), c.gnu_text(), "{c:?}");
        }
    }

    #[test]
    fn a_missing_file_and_a_directory_say_what_gnu_says() {
        let dir = std::env::temp_dir();
        let e = open_input(&dir.join("mhash-no-such-file-here"), false, false).unwrap_err();
        assert_eq!(strerror(&e), "No such file or directory");
        assert_eq!(ErrorClass::of(&e), Some(ErrorClass::NotFound));
        // A directory: Unix opens it and fails its read with EISDIR;
        // Windows refuses the open, which is reported the same way.
        let mut buf = [0u8; 16];
        let e = open_input(&dir, false, false)
            .and_then(|mut f| f.read(&mut buf).map(|_| f))
            .unwrap_err();
        assert_eq!(strerror(&e), "Is a directory");
    }

    #[test]
    fn portable_names_use_slashes_on_windows_only() {
        let n = portable_name(b"d\\e/y");
        if cfg!(windows) {
            assert_eq!(&*n, b"d/e/y");
        } else {
            assert_eq!(&*n, b"d\\e/y");
        }
    }
}
