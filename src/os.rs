//! The process's side of the operating system, below every other module:
//! names as bytes (`OsStr` <-> `[u8]`), the C library's wording of an
//! errno (`strerror`), and the standard descriptors used directly (a closed
//! one fails with EBADF, as in GNU, instead of being reopened or ignored).
//! It imports no other module of the crate.

use std::fs::File;
use std::io::{self, Read};

/// The C library's message for an I/O error (GNU's `strerror (errno)`),
/// e.g. "No such file or directory"; for errors without an errno, Rust's
/// own text.
pub fn strerror(e: &io::Error) -> String {
    if let Some(code) = e.raw_os_error() {
        let text = io::Error::from_raw_os_error(code).to_string();
        // Rust formats "MSG (os error N)"; GNU prints MSG alone.
        if let Some(pos) = text.rfind(" (os error ") {
            return text[..pos].to_string();
        }
        return text;
    }
    match e.kind() {
        io::ErrorKind::UnexpectedEof => "Unexpected end of file".to_string(),
        _ => e.to_string(),
    }
}

/// The bytes of an OS string: exact on Unix; UTF-8 (lossy) elsewhere.
pub fn os_bytes(s: &std::ffi::OsStr) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::borrow::Cow::Borrowed(s.as_bytes())
    }
    #[cfg(not(unix))]
    {
        match s.to_string_lossy() {
            std::borrow::Cow::Borrowed(t) => std::borrow::Cow::Borrowed(t.as_bytes()),
            std::borrow::Cow::Owned(t) => std::borrow::Cow::Owned(t.into_bytes()),
        }
    }
}

/// An OS string from bytes: exact on Unix; UTF-8 (lossy) elsewhere.
pub fn bytes_os(b: &[u8]) -> std::ffi::OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::ffi::OsStr::from_bytes(b).to_os_string()
    }
    #[cfg(not(unix))]
    {
        std::ffi::OsString::from(String::from_utf8_lossy(b).into_owned())
    }
}

static STDIN_USED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// True once standard input has been read (GNU's `have_read_stdin`).
pub fn stdin_was_read() -> bool {
    STDIN_USED.load(std::sync::atomic::Ordering::Relaxed)
}

/// A standard descriptor used directly, never closed on drop.
#[cfg(unix)]
struct StdFd(std::mem::ManuallyDrop<File>);

#[cfg(unix)]
impl Read for StdFd {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

#[cfg(unix)]
impl io::Write for StdFd {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A raw handle on file descriptor `fd` that is never closed on drop.
#[cfg(unix)]
fn raw_fd_file(fd: i32) -> StdFd {
    use std::os::fd::FromRawFd;
    // SAFETY: `fd` is one of the standard descriptors, which the process
    // owns for its whole life; ManuallyDrop keeps it from being closed, and
    // a closed descriptor only makes the calls fail with EBADF.
    StdFd(std::mem::ManuallyDrop::new(unsafe { File::from_raw_fd(fd) }))
}

/// Standard input as a plain reader. On Unix it reads descriptor 0 directly:
/// no second buffer, and a closed descriptor fails with EBADF as in GNU
/// (Rust's `Stdin` would report a closed stdin as empty).
pub fn stdin_reader() -> Box<dyn Read + Send> {
    STDIN_USED.store(true, std::sync::atomic::Ordering::Relaxed);
    #[cfg(unix)]
    {
        Box::new(raw_fd_file(0))
    }
    #[cfg(not(unix))]
    {
        Box::new(io::stdin())
    }
}

/// Standard output as a plain writer (descriptor 1 on Unix, so that a
/// closed stdout fails with EBADF as in GNU instead of swallowing output).
pub fn stdout_writer() -> Box<dyn io::Write + Send> {
    #[cfg(unix)]
    {
        Box::new(raw_fd_file(1))
    }
    #[cfg(not(unix))]
    {
        Box::new(io::stdout())
    }
}

/// True when descriptors 0, 1 and 2 are all open. When one is closed, the
/// next `open` reuses its number; GNU's one-file-at-a-time order decides
/// what then happens (`sha256sum a - <&-`: `a` is opened as descriptor 0
/// and closed again before `-` finds it closed), so the caller must hash
/// one file at a time to reproduce it.
pub fn standard_fds_open() -> bool {
    #[cfg(unix)]
    {
        // SAFETY: F_GETFD on a descriptor number has no side effects.
        (0..3).all(|fd| unsafe { libc::fcntl(fd, libc::F_GETFD) } != -1)
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// GNU's `fclose (stdin)` check at exit: `Err(EBADF)` when standard input
/// was read and its descriptor is closed.
///
/// # Errors
/// EBADF from `fcntl(0, F_GETFD)`.
pub fn check_stdin_closed() -> io::Result<()> {
    #[cfg(unix)]
    {
        // SAFETY: F_GETFD on a descriptor number has no side effects.
        if stdin_was_read() && unsafe { libc::fcntl(0, libc::F_GETFD) } == -1 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
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
}
