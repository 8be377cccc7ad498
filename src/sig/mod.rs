//! Signed checksum files (`mhash -c SUMS --key KEYFILE`): the checksum
//! file's signature is verified over its exact bytes before any line of it
//! is read.
//!
//! Four formats, told apart by their contents (never by a file's name):
//!
//! | format   | signature                                   | key (`--key`)                                  |
//! |----------|---------------------------------------------|------------------------------------------------|
//! | OpenPGP  | detached, armored or binary; or clearsigned | armored or binary key(s), a keyring export     |
//! | minisign | `untrusted comment:`, sig, `trusted comment:`, global sig | `minisign.pub` (or its bare base64 line) |
//! | signify  | `untrusted comment:` + base64 of `Ed`, keynum, sig; or embedded (`signify -S -e`) | `untrusted comment:` + base64 of `Ed`, keynum, key |
//! | SSH      | `-----BEGIN SSH SIGNATURE-----` (`ssh-keygen -Y sign`) | a public key line, or an allowed-signers file |
//!
//! The cryptography is the crates' ([`pgp`](https://docs.rs/pgp) for
//! OpenPGP, `minisign-verify`, `ssh-key`, `ed25519-dalek` for signify's
//! Ed25519); this module finds the signature, detects formats, picks the
//! key and turns every outcome into a [`Good`] or a [`Bad`]. See
//! docs/signatures.md for the rules a user sees.
//!
//! Built without the `signatures` cargo feature, [`verify`] answers
//! [`BadKind::Unsupported`] for every file.

#[cfg(feature = "signatures")]
mod ed;
#[cfg(feature = "signatures")]
mod openpgp;
mod private;
#[cfg(feature = "signatures")]
mod ssh;

use std::path::{Path, PathBuf};

/// The largest signature or key file read: 16 MiB (a keyring export of a
/// few hundred keys fits; a signature is a few hundred bytes).
pub const MAX_AUX_FILE: u64 = 16 << 20;

/// The largest checksum file whose signature is checked: 1 GiB (it is
/// held in memory, so that the lines checked are the bytes verified).
pub const MAX_SIGNED_FILE: u64 = 1 << 30;

/// A signature format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// RFC 4880 / RFC 9580 signatures (GnuPG): detached or clearsigned.
    OpenPgp,
    /// minisign (Ed25519 over BLAKE2b-512 of the file, or over the file
    /// itself for legacy signatures, plus a signed trusted comment).
    Minisign,
    /// OpenBSD signify (Ed25519 over the file).
    Signify,
    /// OpenSSH `ssh-keygen -Y sign` (PROTOCOL.sshsig).
    Ssh,
}

impl Format {
    /// Its name in messages and JSON records: `OpenPGP`, `minisign`,
    /// `signify`, `SSH`.
    pub fn name(self) -> &'static str {
        match self {
            Format::OpenPgp => "OpenPGP",
            Format::Minisign => "minisign",
            Format::Signify => "signify",
            Format::Ssh => "SSH",
        }
    }
}

/// Where the signature was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// A detached signature file (`--signature`, or found beside).
    Detached(PathBuf),
    /// Inside the checksum file: OpenPGP clearsigned, or a signify
    /// embedded signature (`signify -S -e`).
    Inline,
}

/// How to verify: the options of `--key`, `--signature`, `--namespace`.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    /// The checksum file's path; `None` for standard input (then the
    /// signature must be `signature` or inline).
    pub checksum_file: Option<&'a Path>,
    /// `--key`.
    pub key: &'a Path,
    /// `--signature`; `None`: `FILE.sig`, `FILE.asc`, `FILE.gpg`,
    /// `FILE.minisig` beside the checksum file, in that order, else inline.
    pub signature: Option<&'a Path>,
    /// `--namespace` (SSH signatures only).
    pub namespace: &'a str,
    /// How a file name is written in a message (GNU's `quotef`, from the
    /// caller): every key and signature file name in a [`Bad`]'s cause
    /// goes through it, so that no name reaches a terminal raw.
    pub name: &'a dyn Fn(&Path) -> String,
}

/// A signature that verified.
#[derive(Clone, Debug)]
pub struct Good {
    /// Its format.
    pub format: Format,
    /// Where it was.
    pub place: Place,
    /// The key that made it: an OpenPGP fingerprint (upper-case hex, the
    /// subkey's when a subkey signed), a minisign/signify key number (in
    /// upper-case hex as minisign prints it, no leading zeros), an SSH `SHA256:`
    /// fingerprint.
    pub key_id: String,
    /// Who signed, where the key says: an OpenPGP key's first user ID, an
    /// allowed-signers principal, an SSH key's comment, minisign's trusted
    /// comment.
    pub signer: Option<String>,
    /// The bytes to read as checksum lines where they are not the whole
    /// file: a clearsigned file's signed text (dash-escaping undone, as
    /// hashed: trailing blanks dropped, LF line ends), a signify embedded
    /// signature's message.
    pub text: Option<Vec<u8>>,
    /// Non-blank lines of the file outside the signed block (before
    /// `-----BEGIN PGP SIGNED MESSAGE-----`, after the signature): not
    /// read, not checked.
    pub ignored_lines: u64,
}

/// Why a checksum file's signature did not verify.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadKind {
    /// The signature does not verify over the file with the key, or it is
    /// malformed: told to be of a format by its contents, then not
    /// readable as that format.
    Bad,
    /// No signature was found.
    Missing,
    /// The signature or key could not be read (I/O error, too large, the
    /// key file not there).
    Unreadable,
    /// Not a signature in a format mhash reads (or an empty file), a key
    /// file that is not a key of the signature's format (another format,
    /// or not readable as a key), or this build has no signature support.
    Unsupported,
    /// The key file holds no key that made the signature.
    UnknownKey,
    /// The signing key (or the signature itself) has expired.
    Expired,
    /// The signing key was revoked.
    Revoked,
}

impl BadKind {
    /// The verdict as JSON records name it: `bad`, `missing`, `unreadable`,
    /// `unsupported`, `unknown key`, `expired`, `revoked`.
    pub fn name(self) -> &'static str {
        match self {
            BadKind::Bad => "bad",
            BadKind::Missing => "missing",
            BadKind::Unreadable => "unreadable",
            BadKind::Unsupported => "unsupported",
            BadKind::UnknownKey => "unknown key",
            BadKind::Expired => "expired",
            BadKind::Revoked => "revoked",
        }
    }

    /// The message's opening words (`BAD signature`, `no signature`, ...).
    fn words(self) -> &'static str {
        match self {
            BadKind::Bad => "BAD signature",
            BadKind::Missing => "no signature",
            BadKind::Unreadable => "signature not checked",
            BadKind::Unsupported => "unsupported signature",
            BadKind::UnknownKey => "signature by a key not in the key file",
            BadKind::Expired => "signature by an EXPIRED key",
            BadKind::Revoked => "signature by a REVOKED key",
        }
    }
}

/// A signature that did not verify: nothing of the file may be checked.
#[derive(Clone, Debug)]
pub struct Bad {
    /// What went wrong.
    pub kind: BadKind,
    /// The signature's format, where it was told.
    pub format: Option<Format>,
    /// The key the signature names or was checked against, where known.
    pub key_id: Option<String>,
    /// Where the signature was (or was looked for).
    pub place: Option<Place>,
    /// The cause, in words (`signature does not match the file`, the
    /// crate's or the OS's message).
    pub cause: String,
}

impl Bad {
    /// A failure of `kind` with `cause`, nothing else known yet.
    pub fn new(kind: BadKind, cause: impl Into<String>) -> Bad {
        Bad {
            kind,
            format: None,
            key_id: None,
            place: None,
            cause: cause.into(),
        }
    }

    /// Sets the format unless one is known already.
    #[cfg_attr(not(feature = "signatures"), allow(dead_code))]
    fn format(mut self, f: Format) -> Bad {
        self.format.get_or_insert(f);
        self
    }

    /// Sets the key ID unless one is known already.
    #[cfg_attr(not(feature = "signatures"), allow(dead_code))]
    fn key(mut self, id: impl Into<String>) -> Bad {
        self.key_id.get_or_insert(id.into());
        self
    }
}

impl Bad {
    /// `BAD signature (minisign, key 1A2B..., SUMS.minisig): CAUSE`: the
    /// words for the kind, then what is known of format, key and place,
    /// the signature file's name written by `name` (the caller's quoting).
    pub fn message(&self, name: &dyn Fn(&Path) -> String) -> String {
        let mut out = self.kind.words().to_string();
        let mut parts = Vec::new();
        if let Some(x) = self.format {
            parts.push(x.name().to_string());
        }
        if let Some(k) = &self.key_id {
            parts.push(format!("key {k}"));
        }
        match &self.place {
            Some(Place::Detached(p)) => parts.push(name(p)),
            Some(Place::Inline) => parts.push("inline".to_string()),
            None => {}
        }
        if !parts.is_empty() {
            out.push_str(&format!(" ({})", parts.join(", ")));
        }
        out.push_str(": ");
        out.push_str(&self.cause);
        out
    }
}

impl Good {
    /// `Good signature (OpenPGP, key FPR, signer "A <a@b>", SUMS.asc)`,
    /// the signature file's name written by `name` (the caller's quoting).
    pub fn message(&self, name: &dyn Fn(&Path) -> String) -> String {
        let mut out = format!("Good signature ({}, key {}", self.format.name(), self.key_id);
        if let Some(s) = &self.signer {
            out.push_str(&format!(", signer {s:?}"));
        }
        match &self.place {
            Place::Detached(p) => out.push_str(&format!(", {})", name(p))),
            Place::Inline => out.push_str(", inline)"),
        }
        out
    }
}

/// A crate's error message, made fit for one line of a verdict: the
/// text before the first Rust debug dump in it (`Error(`, `{`, `[`: rpgp's
/// errors carry the input bytes as decimal arrays and whole backtraces) or
/// line break, at most 100 bytes, control characters left out; when
/// nothing is left, `fallback`.
#[cfg_attr(not(feature = "signatures"), allow(dead_code))]
fn brief(e: &dyn std::fmt::Display, fallback: &str) -> String {
    let text = e.to_string();
    let cut = ["Error(", "{", "[", "\n", "backtrace", "Backtrace"]
        .iter()
        .filter_map(|m| text.find(m))
        .min()
        .unwrap_or(text.len());
    let mut out: String = text[..cut].chars().filter(|c| !c.is_control()).collect();
    if out.len() > 100 {
        let mut end = 100;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
    }
    let out = out.trim_end_matches(|c: char| c.is_whitespace() || ":,;(".contains(c));
    if out.is_empty() {
        fallback.to_string()
    } else {
        out.to_string()
    }
}

/// The names tried beside a checksum file, in order.
pub const SIBLINGS: [&str; 4] = ["sig", "asc", "gpg", "minisig"];

/// Verifies the signature of the checksum file whose exact bytes are
/// `content`, as `req` says. `Ok`: the lines to check are
/// [`Good::text`], or `content` when that is `None`.
///
/// Errors: every failure is a [`Bad`]; nothing here panics on any input.
pub fn verify(content: &[u8], req: &Request<'_>) -> Result<Good, Bad> {
    let key = read_aux(req.key, "key file", BadKind::Unreadable, req.name);
    // A private key where the public one belongs: said first, with the
    // public key to give.
    if let Ok(k) = &key
        && let Some(kind) = private::private_kind(k)
    {
        return Err(Bad::new(
            BadKind::Unreadable,
            private::private_key_message(kind, req.key, req.name),
        ));
    }
    let (place, sig) = find_signature(content, req)?;
    let bad_at = |b: Bad| Bad {
        place: Some(place.clone()),
        ..b
    };
    let key = key.map_err(bad_at)?;
    let good = match &place {
        Place::Detached(_) => verify_detached(content, &sig, &key, req),
        Place::Inline => verify_inline(content, &key),
    };
    good.map(|mut g| {
        g.place = place.clone();
        g
    })
    .map_err(bad_at)
}

/// The signature: `--signature`, a file beside, or the checksum file
/// itself when it holds one (clearsigned, signify embedded).
fn find_signature(content: &[u8], req: &Request<'_>) -> Result<(Place, Vec<u8>), Bad> {
    let mut tried = Vec::new();
    if let Some(s) = req.signature {
        let place = Place::Detached(s.to_path_buf());
        return read_aux(s, "signature", BadKind::Missing, req.name)
            .map(|b| (place.clone(), b))
            .map_err(|mut e| {
                e.place = Some(place);
                e
            });
    }
    if let Some(f) = req.checksum_file {
        for ext in SIBLINGS {
            let mut p = f.as_os_str().to_os_string();
            p.push(".");
            p.push(ext);
            let p = PathBuf::from(p);
            match std::fs::symlink_metadata(&p) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    tried.push((req.name)(&p));
                    continue;
                }
                _ => {}
            }
            let place = Place::Detached(p.clone());
            return read_aux(&p, "signature", BadKind::Unreadable, req.name)
                .map(|b| (place.clone(), b))
                .map_err(|mut e| {
                    e.place = Some(place);
                    e
                });
        }
    }
    if is_clearsigned(content) || is_signify_embedded(content) {
        return Ok((Place::Inline, Vec::new()));
    }
    let cause = if tried.is_empty() {
        "standard input is not clearsigned: give --signature SIGFILE".to_string()
    } else {
        format!(
            "none of {} exists, and the file is not clearsigned (give --signature SIGFILE)",
            tried.join(", ")
        )
    };
    Err(Bad::new(BadKind::Missing, cause))
}

/// Reads a key or signature file (`what` and `name(path)` name it in
/// errors), at most [`MAX_AUX_FILE`] bytes. A file that is not there is a
/// `missing` failure; any other error, a larger file, or one that is not a
/// regular file, [`BadKind::Unreadable`].
///
/// Only a regular file is read: a FIFO without a writer would block the
/// open (and one with a writer the read) for ever, a device may never end.
/// The kind is checked before the open (with `stat`, which opens nothing),
/// then on the open descriptor, opened without waiting (`O_NONBLOCK`), in
/// case the name was replaced in between.
fn read_aux(
    path: &Path,
    what: &str,
    missing: BadKind,
    name: &dyn Fn(&Path) -> String,
) -> Result<Vec<u8>, Bad> {
    use std::io::Read;
    let io = |e: std::io::Error| {
        let kind = if e.kind() == std::io::ErrorKind::NotFound {
            missing
        } else {
            BadKind::Unreadable
        };
        Bad::new(
            kind,
            format!("{what} {}: {}", name(path), crate::os::strerror(&e)),
        )
    };
    let regular = |m: std::fs::Metadata| match special_kind(&m.file_type()) {
        None => Ok(()),
        Some(k) => Err(Bad::new(
            BadKind::Unreadable,
            format!("{what} {}: {k}, not a regular file: not read", name(path)),
        )),
    };
    regular(std::fs::metadata(path).map_err(io)?)?;
    let f = crate::os::open_input(path, true, false).map_err(io)?;
    regular(f.metadata().map_err(io)?)?;
    crate::os::set_blocking(&f).map_err(io)?;
    let mut buf = Vec::new();
    f.take(MAX_AUX_FILE + 1).read_to_end(&mut buf).map_err(io)?;
    if buf.len() as u64 > MAX_AUX_FILE {
        return Err(Bad::new(
            BadKind::Unreadable,
            format!("{what} {}: larger than {MAX_AUX_FILE} bytes", name(path)),
        ));
    }
    Ok(buf)
}

/// What a file that is not a regular file is, in words (`a FIFO`, `a
/// directory`, ...); `None` for a regular file.
fn special_kind(t: &std::fs::FileType) -> Option<&'static str> {
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
    }
    Some("a special file")
}

/// What a signature file's contents are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SigKind {
    /// `-----BEGIN PGP SIGNATURE-----`, or a binary OpenPGP packet.
    OpenPgp,
    /// `untrusted comment:`, base64 (74 bytes), `trusted comment:`, base64.
    Minisign,
    /// `untrusted comment:`, base64 (74 bytes), nothing more.
    Signify,
    /// `-----BEGIN SSH SIGNATURE-----`.
    Ssh,
}

/// Tells a signature's format from its first bytes and lines.
fn sig_kind(sig: &[u8]) -> Option<SigKind> {
    let text = trim_start(sig);
    if text.starts_with(b"-----BEGIN SSH SIGNATURE-----") {
        return Some(SigKind::Ssh);
    }
    if text.starts_with(b"-----BEGIN PGP SIGNATURE-----") {
        return Some(SigKind::OpenPgp);
    }
    if sig.first().is_some_and(|b| b & 0x80 != 0) {
        return Some(SigKind::OpenPgp);
    }
    if text.starts_with(b"untrusted comment:") {
        let mut lines = text.split(|&b| b == b'\n').map(trim_cr);
        lines.next();
        lines.next().filter(|l| !l.is_empty())?;
        return match lines.next() {
            Some(l) if l.starts_with(b"trusted comment:") => Some(SigKind::Minisign),
            _ => Some(SigKind::Signify),
        };
    }
    None
}

/// A clearsigned file: a line `-----BEGIN PGP SIGNED MESSAGE-----`.
fn is_clearsigned(content: &[u8]) -> bool {
    content
        .split(|&b| b == b'\n')
        .any(|l| trim_cr(l) == b"-----BEGIN PGP SIGNED MESSAGE-----")
}

/// A signify embedded signature (`signify -S -e`, OpenBSD's `SHA256.sig`):
/// `untrusted comment:` then a base64 line of 74 bytes starting `Ed`.
fn is_signify_embedded(content: &[u8]) -> bool {
    let mut lines = content.split(|&b| b == b'\n');
    lines.next().is_some_and(|l| l.starts_with(b"untrusted comment:"))
        && lines
            .next()
            .and_then(|l| b64(trim_cr(l)))
            .is_some_and(|b| b.len() == 74 && b.starts_with(b"Ed"))
}

fn trim_start(b: &[u8]) -> &[u8] {
    let n = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
    &b[n..]
}

fn trim_cr(l: &[u8]) -> &[u8] {
    l.strip_suffix(b"\r").unwrap_or(l)
}

/// Standard base64 (with padding) of one line, or `None`.
fn b64(line: &[u8]) -> Option<Vec<u8>> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(line.trim_ascii())
        .ok()
}

#[cfg(feature = "signatures")]
fn verify_detached(content: &[u8], sig: &[u8], key: &[u8], req: &Request<'_>) -> Result<Good, Bad> {
    match sig_kind(sig) {
        Some(SigKind::OpenPgp) => {
            openpgp::verify_detached(content, sig, key).map_err(|b| b.format(Format::OpenPgp))
        }
        Some(SigKind::Minisign) => {
            ed::verify_minisign(content, sig, key).map_err(|b| b.format(Format::Minisign))
        }
        Some(SigKind::Signify) => {
            ed::verify_signify(content, sig, key).map_err(|b| b.format(Format::Signify))
        }
        Some(SigKind::Ssh) => {
            ssh::verify(content, sig, key, req.namespace).map_err(|b| b.format(Format::Ssh))
        }
        None if sig.is_empty() => Err(Bad::new(BadKind::Unsupported, "the signature file is empty")),
        None => Err(Bad::new(
            BadKind::Unsupported,
            "not a signature mhash reads (OpenPGP, minisign, signify or SSH)",
        )),
    }
}

#[cfg(feature = "signatures")]
fn verify_inline(content: &[u8], key: &[u8]) -> Result<Good, Bad> {
    if is_clearsigned(content) {
        openpgp::verify_clearsigned(content, key).map_err(|b| b.format(Format::OpenPgp))
    } else {
        ed::verify_signify_embedded(content, key).map_err(|b| b.format(Format::Signify))
    }
}

#[cfg(not(feature = "signatures"))]
fn verify_detached(_: &[u8], sig: &[u8], _: &[u8], _: &Request<'_>) -> Result<Good, Bad> {
    let _ = sig_kind(sig);
    Err(no_support())
}

#[cfg(not(feature = "signatures"))]
fn verify_inline(_: &[u8], _: &[u8]) -> Result<Good, Bad> {
    Err(no_support())
}

#[cfg(not(feature = "signatures"))]
fn no_support() -> Bad {
    Bad::new(
        BadKind::Unsupported,
        "this mhash was built without signature support (cargo feature `signatures`)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_by_their_first_lines() {
        assert_eq!(
            sig_kind(b"-----BEGIN SSH SIGNATURE-----\nU1NI\n"),
            Some(SigKind::Ssh)
        );
        assert_eq!(
            sig_kind(b"\n-----BEGIN PGP SIGNATURE-----\n"),
            Some(SigKind::OpenPgp)
        );
        assert_eq!(sig_kind(&[0x88, 0x75]), Some(SigKind::OpenPgp));
        assert_eq!(
            sig_kind(b"untrusted comment: x\nRWQ=\ntrusted comment: t\nAA==\n"),
            Some(SigKind::Minisign)
        );
        assert_eq!(sig_kind(b"untrusted comment: x\nRWQ=\n"), Some(SigKind::Signify));
        assert_eq!(sig_kind(b"untrusted comment: x\n"), None);
        assert_eq!(sig_kind(b"garbage"), None);
        assert_eq!(sig_kind(b""), None);
    }

    #[test]
    fn crate_errors_lose_their_debug_dumps() {
        let dump = "IO error: failed reading: armor footer Error(Error { input: [78, 68], code: Tag })";
        assert_eq!(brief(&dump, "x"), "IO error: failed reading: armor footer");
        let nested = "error while parsing composed key: IO { source: Custom { kind: Other } }";
        assert_eq!(brief(&nested, "x"), "error while parsing composed key: IO");
        assert_eq!(brief(&"{ all: [1, 2] }", "unreadable"), "unreadable");
        assert_eq!(brief(&"a\u{1b}[2Kb", "x"), "a");
        assert!(brief(&"long ".repeat(100), "x").len() <= 100);
    }

    #[test]
    fn a_bad_verdict_names_format_key_and_place() {
        let b = Bad {
            kind: BadKind::Bad,
            format: Some(Format::Minisign),
            key_id: Some("ABCD".into()),
            place: Some(Place::Detached("S.minisig".into())),
            cause: "signature does not match the file".into(),
        };
        let quoted = |p: &Path| format!("[{}]", p.display());
        assert_eq!(
            b.message(&quoted),
            "BAD signature (minisign, key ABCD, [S.minisig]): signature does not match the file"
        );
    }
}
