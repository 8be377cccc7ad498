//! Unix (Linux, macOS, the BSDs): errno, descriptors, signals. Called
//! through [`super`]'s portable functions only.

use super::ErrorClass;
use std::fs::File;
use std::io::{self, Read};

pub(super) fn classify(e: &io::Error) -> Option<ErrorClass> {
    Some(match e.raw_os_error()? {
        libc::ENOENT => ErrorClass::NotFound,
        libc::EACCES => ErrorClass::PermissionDenied,
        libc::EPERM => ErrorClass::NotPermitted,
        libc::ENOTDIR => ErrorClass::NotADirectory,
        libc::EISDIR => ErrorClass::IsADirectory,
        libc::ELOOP => ErrorClass::Loop,
        libc::ENAMETOOLONG => ErrorClass::NameTooLong,
        libc::ENXIO => ErrorClass::NoDevice,
        libc::EMFILE => ErrorClass::TooManyOpenFiles,
        libc::ENFILE => ErrorClass::FileTableFull,
        libc::EIO => ErrorClass::Io,
        _ => return None,
    })
}

pub(super) fn error_of(c: ErrorClass) -> io::Error {
    io::Error::from_raw_os_error(match c {
        ErrorClass::NotFound => libc::ENOENT,
        ErrorClass::PermissionDenied => libc::EACCES,
        ErrorClass::NotPermitted => libc::EPERM,
        ErrorClass::NotADirectory => libc::ENOTDIR,
        ErrorClass::IsADirectory => libc::EISDIR,
        ErrorClass::Loop => libc::ELOOP,
        ErrorClass::NameTooLong => libc::ENAMETOOLONG,
        ErrorClass::NoDevice => libc::ENXIO,
        ErrorClass::TooManyOpenFiles => libc::EMFILE,
        ErrorClass::FileTableFull => libc::ENFILE,
        ErrorClass::Io => libc::EIO,
    })
}

/// The C library's text for the errno (what GNU prints), through std,
/// which asks `strerror_r`.
pub(super) fn strerror(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => super::without_code(io::Error::from_raw_os_error(code).to_string()),
        None => super::kind_text(e),
    }
}

pub(super) fn os_bytes(s: &std::ffi::OsStr) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    std::borrow::Cow::Borrowed(s.as_bytes())
}

pub(super) fn bytes_os(b: &[u8]) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(b).to_os_string()
}

pub(super) fn program_name(argv0: &std::ffi::OsStr) -> std::ffi::OsString {
    argv0.to_os_string()
}

pub(super) fn args() -> Vec<std::ffi::OsString> {
    std::env::args_os().collect()
}

pub(super) fn display_path(p: &std::path::Path) -> std::path::PathBuf {
    p.to_path_buf()
}

/// A standard descriptor used directly, never closed on drop.
struct StdFd(std::mem::ManuallyDrop<File>);

impl Read for StdFd {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl io::Write for StdFd {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A raw handle on file descriptor `fd` that is never closed on drop.
fn raw_fd_file(fd: i32) -> StdFd {
    use std::os::fd::FromRawFd;
    // SAFETY: `fd` is one of the standard descriptors, which the process
    // owns for its whole life; ManuallyDrop keeps it from being closed, and
    // a closed descriptor only makes the calls fail with EBADF.
    StdFd(std::mem::ManuallyDrop::new(unsafe { File::from_raw_fd(fd) }))
}

pub(super) fn stdin_reader() -> Box<dyn Read + Send> {
    // Closed when the run began: descriptor 0 may since name a file mhash
    // opened (a checksum file), which `-` must not read; GNU's stdin
    // fails with EBADF there.
    if STDIN_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        return Box::new(ClosedStdin);
    }
    Box::new(raw_fd_file(0))
}

/// Standard input that was closed when the run began: every read fails
/// with EBADF.
struct ClosedStdin;

impl Read for ClosedStdin {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(io::Error::from_raw_os_error(libc::EBADF))
    }
}

pub(super) fn stdout_writer() -> Box<dyn io::Write + Send> {
    Box::new(raw_fd_file(1))
}

pub(super) fn stderr_writer() -> Box<dyn io::Write + Send> {
    Box::new(raw_fd_file(2))
}

/// True when `fd` is not an open descriptor.
fn fd_closed(fd: i32) -> bool {
    // SAFETY: F_GETFD reads the descriptor's flags only.
    unsafe { libc::fcntl(fd, libc::F_GETFD) == -1 }
}

pub(super) fn stdout_closed() -> bool {
    fd_closed(1)
}

pub(super) fn ctype_is_utf8() -> Option<bool> {
    // SAFETY: setlocale is called once (the caller caches the answer),
    // before or while no other thread uses the C library's locale (mhash
    // calls no locale-dependent C function); the strings it and
    // nl_langinfo return are read at once, before any other locale call.
    unsafe {
        if libc::setlocale(libc::LC_CTYPE, c"".as_ptr()).is_null() {
            // Not installed: the C library stays in the C locale.
            return Some(false);
        }
        let codeset = libc::nl_langinfo(libc::CODESET);
        Some(
            !codeset.is_null()
                && std::ffi::CStr::from_ptr(codeset)
                    .to_bytes()
                    .eq_ignore_ascii_case(b"UTF-8"),
        )
    }
}

pub(super) fn close_stdout() -> io::Result<()> {
    // SAFETY: descriptor 1 is closed once, at the end of the run, after
    // its last write; nothing opens files after it.
    if unsafe { libc::close(1) } == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    // EBADF: it was closed when the run began (`>&-`), and nothing is
    // pending (gnulib close_stream); EINTR: Linux freed it.
    match e.raw_os_error() {
        Some(libc::EBADF | libc::EINTR) => Ok(()),
        _ => Err(e),
    }
}

pub(super) fn stdout_shared() -> bool {
    // SAFETY: fstat and F_GETFL on descriptor 1 write only into `st`.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(1, &mut st) == 0 {
            let kind = st.st_mode & libc::S_IFMT;
            if kind == libc::S_IFIFO || kind == libc::S_IFSOCK {
                return true;
            }
        }
        let flags = libc::fcntl(1, libc::F_GETFL);
        flags != -1 && flags & libc::O_APPEND != 0
    }
}

/// Descriptor 0 was closed when [`standard_fds_open`] first looked.
static STDIN_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub(super) fn standard_fds_open() -> bool {
    STDIN_CLOSED.store(fd_closed(0), std::sync::atomic::Ordering::Relaxed);
    !(0..3).any(fd_closed)
}

pub(super) fn check_stdin_closed() -> io::Result<()> {
    if fd_closed(0) {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

pub(super) fn close_file(f: File) -> io::Result<()> {
    use std::os::fd::IntoRawFd;
    let fd = f.into_raw_fd();
    // SAFETY: `fd` was just taken from an owned File: closed exactly once.
    if unsafe { libc::close(fd) } == -1 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(())
}

pub(super) fn reserve_descriptors(n: usize) {
    let Some(limit) = descriptor_limit() else {
        return;
    };
    let top = (n as u64).min(limit).saturating_sub(1);
    if top < 64 {
        return;
    }
    // SAFETY: duplicating descriptor 2 (or failing with EBADF) and
    // closing the new, unused descriptor touch no memory.
    unsafe {
        let fd = libc::fcntl(2, libc::F_DUPFD_CLOEXEC, top as libc::c_int);
        if fd >= 0 {
            libc::close(fd);
        }
    }
}

pub(super) fn descriptor_limit() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into `lim`.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return None;
    }
    // `rlim_t` is unsigned on Linux and macOS, i64 on FreeBSD, where
    // RLIM_INFINITY is i64::MAX.
    #[allow(clippy::useless_conversion, clippy::unnecessary_fallible_conversions)]
    u64::try_from(lim.rlim_cur).ok()
}

pub(super) fn read_at(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, offset)
}

pub(super) fn open_read(path: &std::path::Path, nonblock: bool) -> io::Result<File> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "file name contained an unexpected NUL byte",
        )
    })?;
    open_cstr(&c, nonblock)
}

/// open(2) of `path` for reading (`O_CLOEXEC`, and `O_NONBLOCK` where
/// asked), retried on EINTR at most `MAX_EINTR` times in a row (std's
/// open retries it for ever).
pub(super) fn open_cstr(path: &std::ffi::CStr, nonblock: bool) -> io::Result<File> {
    use std::os::fd::FromRawFd;
    let flags = libc::O_RDONLY | libc::O_CLOEXEC | if nonblock { libc::O_NONBLOCK } else { 0 };
    for _ in 0..super::MAX_EINTR {
        // SAFETY: `path` is NUL-terminated; open(2) writes none of our memory.
        let fd = unsafe { libc::open(path.as_ptr(), flags) };
        if fd >= 0 {
            // SAFETY: open(2) returned a new descriptor, ours.
            return Ok(unsafe { File::from_raw_fd(fd) });
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Err(super::interrupted_too_often())
}

pub(super) fn open_error(_path: &std::path::Path, e: io::Error) -> io::Error {
    e
}

pub(super) fn is_disk_file(f: &File) -> bool {
    f.metadata().is_ok_and(|m| m.is_file())
}

pub(super) fn set_blocking(f: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = f.as_raw_fd();
    // SAFETY: fcntl on a descriptor `f` owns; no memory is passed.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags == -1 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

pub(super) fn wait_if_fifo(f: &File, max_eintr: u32) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    if !f.metadata().is_ok_and(|m| is_fifo(&m)) {
        return Ok(());
    }
    let mut p = libc::pollfd {
        fd: f.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd; no timeout. A FIFO with no writer yet
    // reports nothing until one writes or closes (Linux: POLLHUP only
    // once a writer has been and gone).
    let mut tries = 0;
    while unsafe { libc::poll(&mut p, 1, -1) } == -1 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted || tries == max_eintr {
            return Err(e);
        }
        tries += 1;
    }
    Ok(())
}

pub(super) fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o100 != 0
}

pub(super) fn file_id(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

pub(super) fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => file_id(&x) == file_id(&y),
        _ => false,
    }
}

fn is_fifo(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    meta.file_type().is_fifo()
}

/// What the interrupt handler writes (set once, before it is installed).
static CLEAR: std::sync::OnceLock<&'static [u8]> = std::sync::OnceLock::new();

pub(super) fn clear_on_interrupt(clear: &'static [u8]) {
    let _ = CLEAR.set(clear);
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: sigaction with a null new action only reads the
        // current one into `old`; the handler installed after is
        // async-signal-safe (write, signal, raise).
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) != 0 || old.sa_sigaction != libc::SIG_DFL {
                // Ignored (a background job) or handled: leave it.
                continue;
            }
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = on_interrupt as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut new.sa_mask);
            new.sa_flags = libc::SA_RESETHAND;
            libc::sigaction(sig, &new, std::ptr::null_mut());
        }
    }
}

extern "C" fn on_interrupt(sig: libc::c_int) {
    // SAFETY: write(2), signal(2) and raise(3) are async-signal-safe; the
    // default action (restored by SA_RESETHAND) then ends the process.
    // CLEAR was set before the handler was installed (a plain load).
    unsafe {
        if let Some(clear) = CLEAR.get() {
            libc::write(2, clear.as_ptr().cast(), clear.len());
        }
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

pub(super) fn c_symbol(name: &std::ffi::CStr) -> *const std::ffi::c_void {
    // SAFETY: dlsym with a NUL-terminated name; RTLD_DEFAULT searches the
    // objects already loaded.
    unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) as *const std::ffi::c_void }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strerror_matches_libc_wording() {
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(strerror(&e), "No such file or directory");
        let e = io::Error::from_raw_os_error(libc::EISDIR);
        assert_eq!(strerror(&e), "Is a directory");
    }

    #[test]
    fn the_descriptor_limit_is_read() {
        assert!(descriptor_limit().is_some_and(|n| n >= 3));
    }
}
