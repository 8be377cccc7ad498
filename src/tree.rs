//! One digest for a whole tree, as another tool computes it: Go's `h1:`
//! dirhash (go.sum) and Nix's NAR hash (`nix hash path`). Each walks the
//! tree itself, in the order its definition fixes, and hashes with the
//! algorithm table's SHA-256 (so on the fastest backend here).
//!
//! It imports the algorithm table, the configuration's formats and the
//! OS helpers only.

use crate::algo::{AlgoKind, Algorithm, Hasher};
use crate::config::NarFormat;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

/// Why a tree could not be hashed: the file (or directory) at fault and
/// the cause, for `PROG: NAME: CAUSE`.
#[derive(Debug)]
pub struct TreeError {
    /// The path at fault, as the walk reached it.
    pub path: PathBuf,
    /// What went wrong: the system's error, or the format's rule broken.
    pub cause: String,
}

impl TreeError {
    fn io(path: &Path, e: &io::Error) -> TreeError {
        TreeError {
            path: path.to_path_buf(),
            cause: crate::os::strerror(e),
        }
    }
}

/// 64 KiB: the read size for file contents.
const READ: usize = 64 * 1024;

/// Feeds the whole file at `path` (following a symlink, as Go's `os.Open`)
/// into `h`; returns the bytes read.
fn feed_file(path: &Path, h: &mut dyn Hasher, limit: Option<u64>) -> Result<u64, TreeError> {
    let mut f = crate::os::open_read(path).map_err(|e| TreeError::io(path, &e))?;
    let mut buf = vec![0u8; READ];
    let mut total = 0u64;
    loop {
        let want = match limit {
            Some(n) => (n - total).min(READ as u64) as usize,
            None => READ,
        };
        if want == 0 {
            break;
        }
        let n = match crate::os::read_retrying(&mut f, &mut buf[..want]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => return Err(TreeError::io(path, &e)),
        };
        h.update(&buf[..n]);
        total += n as u64;
    }
    Ok(total)
}

/// The entries of the directory `dir`, sorted by name byte for byte.
fn sorted_entries(dir: &Path) -> Result<Vec<OsString>, TreeError> {
    let mut names = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| TreeError::io(dir, &e))? {
        names.push(e.map_err(|e| TreeError::io(dir, &e))?.file_name());
    }
    names.sort_by(|a, b| crate::os::os_bytes(a).cmp(&crate::os::os_bytes(b)));
    Ok(names)
}

/// Go's `dirhash.HashDir(dir, prefix, dirhash.Hash1)`
/// (golang.org/x/mod/sumdb/dirhash): every file under `dir` that is not a
/// directory (symlinks included, as `filepath.Walk`'s `Lstat` sees them;
/// each is then opened, so its target is read), named `prefix/REL`
/// (just `REL` for an empty prefix; `/`-separated); the names sorted byte
/// for byte; the summary `"%x  %s\n"` of each file's SHA-256 and name;
/// `h1:` and the base64 of the summary's SHA-256. For go.sum the prefix is
/// `MODULE@VERSION` and the directory holds the module zip's files. An
/// operand that is a symlink to a directory is followed (Go's `HashDir`
/// refuses one: "is not a directory"; the digest is its directory's).
///
/// # Errors
/// `dir` is not a directory; a name holds a newline (Hash1 refuses it:
/// "dirhash: filenames with newlines are not supported"); a directory or
/// file cannot be read (a symlink to a directory among them).
pub fn go_h1(dir: &Path, prefix: &str) -> Result<String, TreeError> {
    use base64::Engine as _;
    let meta = std::fs::metadata(dir).map_err(|e| TreeError::io(dir, &e))?;
    if !meta.is_dir() {
        return Err(TreeError {
            path: dir.to_path_buf(),
            cause: "is not a directory".to_string(),
        });
    }
    let mut files: Vec<(Vec<u8>, PathBuf)> = Vec::new();
    let mut stack: Vec<(PathBuf, Vec<u8>)> = vec![(dir.to_path_buf(), Vec::new())];
    while let Some((path, rel)) = stack.pop() {
        for name in sorted_entries(&path)? {
            let child = path.join(&name);
            let mut crel = rel.clone();
            if !crel.is_empty() {
                crel.push(b'/');
            }
            crel.extend_from_slice(&crate::os::os_bytes(&name));
            let ft = std::fs::symlink_metadata(&child)
                .map_err(|e| TreeError::io(&child, &e))?
                .file_type();
            if ft.is_dir() {
                stack.push((child, crel));
            } else {
                let mut full = Vec::new();
                if !prefix.is_empty() {
                    full.extend_from_slice(prefix.trim_end_matches('/').as_bytes());
                    full.push(b'/');
                }
                full.extend_from_slice(&crel);
                if full.contains(&b'\n') {
                    return Err(TreeError {
                        path: child,
                        cause: "dirhash: filenames with newlines are not supported".to_string(),
                    });
                }
                files.push((full, child));
            }
        }
    }
    files.sort();
    let sha = Algorithm::new(AlgoKind::Sha256);
    let mut summary = sha.hasher();
    for (name, path) in &files {
        let mut h = sha.hasher();
        feed_file(path, h.as_mut(), None)?;
        summary.update(hex::encode(h.finalize()).as_bytes());
        summary.update(b"  ");
        summary.update(name);
        summary.update(b"\n");
    }
    Ok(format!(
        "h1:{}",
        base64::engine::general_purpose::STANDARD.encode(summary.finalize())
    ))
}

/// `digest` (a SHA-256) as `fmt` writes it: `sha256-<base64>` (SRI),
/// Nix's base-32, hex, or plain base64.
pub fn encode_nar(fmt: NarFormat, digest: &[u8]) -> String {
    use base64::Engine as _;
    let b64 = || base64::engine::general_purpose::STANDARD.encode(digest);
    match fmt {
        NarFormat::Sri => format!("sha256-{}", b64()),
        NarFormat::Base64 => b64(),
        NarFormat::Base16 => hex::encode(digest),
        NarFormat::Nix32 => nix32(digest),
    }
}

/// Nix's base-32 (`libutil/hash.cc` `printHash32`): `ceil(8n / 5)`
/// characters from the alphabet `0123456789abcdfghijklmnpqrsvwxyz`, the
/// last 5-bit group of the little-endian bit string first.
pub fn nix32(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"0123456789abcdfghijklmnpqrsvwxyz";
    let len = (bytes.len() * 8).div_ceil(5);
    let mut s = String::with_capacity(len);
    for n in (0..len).rev() {
        let b = n * 5;
        let (i, j) = (b / 8, b % 8);
        let lo = u32::from(bytes[i]) >> j;
        let hi = bytes.get(i + 1).map_or(0, |&x| u32::from(x) << (8 - j));
        s.push(ALPHABET[((lo | hi) & 0x1f) as usize] as char);
    }
    s
}

/// A NAR being written into a hasher: `str(s)` is the length as a 64-bit
/// little-endian number, the bytes, and zeros to a multiple of 8.
struct Nar<'a>(&'a mut dyn Hasher);

impl Nar<'_> {
    fn str(&mut self, s: &[u8]) {
        self.0.update(&(s.len() as u64).to_le_bytes());
        self.0.update(s);
        self.pad(s.len() as u64);
    }
    fn pad(&mut self, len: u64) {
        let pad = (8 - len % 8) % 8;
        self.0.update(&[0u8; 8][..pad as usize]);
    }

    /// `serialise(path)` of the NAR specification (Nix manual, "Nix
    /// Archive (NAR) format"; Eelco Dolstra's thesis, figure 5.2).
    fn node(&mut self, path: &Path) -> Result<(), TreeError> {
        let meta = std::fs::symlink_metadata(path).map_err(|e| TreeError::io(path, &e))?;
        let ft = meta.file_type();
        self.str(b"(");
        self.str(b"type");
        if ft.is_symlink() {
            let target = std::fs::read_link(path).map_err(|e| TreeError::io(path, &e))?;
            self.str(b"symlink");
            self.str(b"target");
            self.str(&crate::os::os_bytes(target.as_os_str()));
        } else if ft.is_dir() {
            self.str(b"directory");
            for name in sorted_entries(path)? {
                self.str(b"entry");
                self.str(b"(");
                self.str(b"name");
                self.str(&crate::os::os_bytes(&name));
                self.str(b"node");
                self.node(&path.join(&name))?;
                self.str(b")");
            }
        } else if ft.is_file() {
            self.str(b"regular");
            if is_executable(&meta) {
                self.str(b"executable");
                self.str(b"");
            }
            self.str(b"contents");
            let size = meta.len();
            self.0.update(&size.to_le_bytes());
            let got = feed_file(path, self.0, Some(size))?;
            if got != size {
                return Err(TreeError {
                    path: path.to_path_buf(),
                    cause: format!("file changed size while it was read ({size} bytes, then {got})"),
                });
            }
            self.pad(size);
        } else {
            return Err(TreeError {
                path: path.to_path_buf(),
                cause: "has an unsupported type (NAR holds regular files, directories and symlinks)"
                    .to_string(),
            });
        }
        self.str(b")");
        Ok(())
    }
}

/// Nix's rule: executable when the owner may execute (`S_IXUSR`).
fn is_executable(meta: &std::fs::Metadata) -> bool {
    crate::os::is_executable(meta)
}

/// The SHA-256 of the NAR serialisation of `path` (`nix hash path PATH`,
/// `nix-hash --type sha256 PATH`): the path itself is not followed if it
/// is a symlink; regular files carry only their contents and whether the
/// owner may execute them (no other permission, owner or time); directory
/// entries come sorted by name byte for byte; empty directories count.
///
/// # Errors
/// A file cannot be read, or is a FIFO, socket or device.
pub fn nar_sha256(path: &Path) -> Result<Vec<u8>, TreeError> {
    let mut h = Algorithm::new(AlgoKind::Sha256).hasher();
    let mut nar = Nar(h.as_mut());
    nar.str(b"nix-archive-1");
    nar.node(path)?;
    Ok(h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nix32_matches_nix() {
        // Nix's tests (libutil-tests/hash.cc): the SHA-256 of "abc" in
        // base-32.
        let d = Algorithm::new(AlgoKind::Sha256).digest(b"abc");
        assert_eq!(nix32(&d), "1b8m03r63zqhnjf7l5wnldhh7c134ap5vpj0850ymkq1iyzicy5s");
    }
}
