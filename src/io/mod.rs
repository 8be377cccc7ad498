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

/// Feeds everything `reader` yields into `hasher`, retrying on EINTR.
///
/// # Errors
/// The first read error other than `Interrupted` (e.g. `EISDIR` for a
/// directory, `EIO`).
pub fn feed(reader: &mut dyn Read, hasher: &mut dyn Hasher, buf: &mut ReadBuf) -> io::Result<u64> {
    let mut total = 0u64;
    loop {
        match reader.read(&mut buf.0) {
            Ok(0) => return Ok(total),
            Ok(n) => {
                hasher.update(&buf.0[..n]);
                total += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

/// True when `name` means standard input (`-`).
pub fn is_stdin(name: &[u8]) -> bool {
    name == b"-"
}

/// Hashes the input named `name` (`-` = standard input) with `algo`.
///
/// # Errors
/// Opening or reading failed (`ENOENT`, `EACCES`, `EISDIR`, `EIO`, ...).
pub fn digest_input(name: &std::ffi::OsStr, algo: Algorithm, buf: &mut ReadBuf) -> io::Result<Digested> {
    let mut hasher = algo.hasher();
    let size = if name == "-" {
        let stdin = io::stdin();
        let mut lock = stdin.lock();
        feed(&mut lock, hasher.as_mut(), buf)?
    } else {
        let mut f = File::open(Path::new(name))?;
        feed(&mut f, hasher.as_mut(), buf)?
    };
    Ok(Digested {
        digest: hasher.finalize(),
        size,
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
