//! The I/O layer: turns an input (a path, or `-` for standard input) and a
//! [`Hasher`] into a digest and a byte count, streaming through one reused
//! buffer so memory stays constant whatever the input size.
//!
//! It knows nothing of formats or messages: errors come back as
//! [`std::io::Error`] for the caller to word.

use crate::algo::{Algorithm, Hasher};
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The read size for streaming input: 128 KiB (131,072 bytes).
pub const READ_BUF_LEN: usize = 128 * 1024;

/// A reusable read buffer, one per worker.
pub struct ReadBuf(Vec<u8>);

impl Default for ReadBuf {
    fn default() -> Self {
        ReadBuf(vec![0; READ_BUF_LEN])
    }
}

/// The digest of one input and its length in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Digested {
    /// The digest bytes (see [`crate::algo::Hasher::finalize`]).
    pub digest: Vec<u8>,
    /// How many bytes were read, in bytes.
    pub size: u64,
}

/// Feeds everything `reader` yields into `hasher`, retrying on EINTR, and
/// keeps the running byte count in `total`, so that a caller that tolerates
/// read errors still knows how much was hashed.
///
/// # Errors
/// The first read error other than `Interrupted` (e.g. `EISDIR` for a
/// directory, `EIO`).
pub fn feed(
    reader: &mut dyn Read,
    hasher: &mut dyn Hasher,
    buf: &mut ReadBuf,
    total: &mut u64,
) -> io::Result<u64> {
    loop {
        match reader.read(&mut buf.0) {
            Ok(0) => return Ok(*total),
            Ok(n) => {
                hasher.update(&buf.0[..n]);
                *total += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
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
pub fn stdin_reader() -> Box<dyn Read> {
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

/// Hashes the input named `name` (`-` = standard input) with `algo`.
///
/// # Errors
/// Opening or reading failed (`ENOENT`, `EACCES`, `EISDIR`, `EIO`, ...).
pub fn digest_input(name: &std::ffi::OsStr, algo: Algorithm, buf: &mut ReadBuf) -> io::Result<Digested> {
    digest_input_with(name, algo, buf, false)
}

/// [`digest_input`]; with `read_errors_end_input`, a read error ends the
/// input instead of failing it (GNU cksum 9.1's CRC loop ignored read
/// errors: `cksum DIR` printed `4294967295 0 DIR`). Open errors still fail.
///
/// # Errors
/// Opening failed, or reading failed and `read_errors_end_input` is false.
pub fn digest_input_with(
    name: &std::ffi::OsStr,
    algo: Algorithm,
    buf: &mut ReadBuf,
    read_errors_end_input: bool,
) -> io::Result<Digested> {
    let mut hasher = algo.hasher();
    let mut total = 0u64;
    let r = if name == "-" {
        feed(&mut stdin_reader(), hasher.as_mut(), buf, &mut total)
    } else {
        let mut f = File::open(Path::new(name))?;
        feed(&mut f, hasher.as_mut(), buf, &mut total)
    };
    match r {
        Ok(_) => {}
        Err(_) if read_errors_end_input => {}
        Err(e) => return Err(e),
    }
    Ok(Digested {
        digest: hasher.finalize(),
        size: total,
    })
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
