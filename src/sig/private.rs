//! A private key given where the public one belongs (`--key
//! ~/.ssh/id_ed25519`, `--key minisign.key`): told from the file's
//! contents, so that the message says so and names the public key to give,
//! instead of "not a key mhash reads".
//!
//! The shapes, from each tool's key format:
//! - OpenPGP: `-----BEGIN PGP PRIVATE KEY BLOCK-----`, or a binary first
//!   packet with tag 5, Secret-Key (RFC 9580 5.5.1.3; old format header
//!   0x94-0x97, new format 0xC5);
//! - SSH: `-----BEGIN OPENSSH PRIVATE KEY-----` (ssh-keygen's own), and the
//!   PEM/PKCS#8 `-----BEGIN [RSA |EC |DSA |ENCRYPTED ]PRIVATE KEY-----`;
//! - minisign: `untrusted comment:` then the base64 of 158 bytes starting
//!   `Ed` (signature algorithm), then the KDF (`Sc` or two zero bytes) and
//!   `B2` (checksum algorithm) (minisign's `SecretKey`);
//! - signify: `untrusted comment:` then the base64 of 104 bytes starting
//!   `EdBK` (Ed25519, bcrypt KDF; OpenBSD signify.c `struct enckey`).

use std::path::{Path, PathBuf};

/// Which tool's private key a key file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrivateKind {
    /// An OpenPGP secret key (GnuPG `--export-secret-keys`).
    OpenPgp,
    /// An SSH private key.
    Ssh,
    /// A minisign secret key (`minisign.key`).
    Minisign,
    /// A signify secret key (`NAME.sec`).
    Signify,
}

/// The kind of private key `key` (a key file's bytes) is, or `None` when it
/// is not one.
pub fn private_kind(key: &[u8]) -> Option<PrivateKind> {
    let text = super::trim_start(key);
    if text.starts_with(b"-----BEGIN PGP PRIVATE KEY BLOCK-----") {
        return Some(PrivateKind::OpenPgp);
    }
    for pem in [
        &b"-----BEGIN OPENSSH PRIVATE KEY-----"[..],
        b"-----BEGIN RSA PRIVATE KEY-----",
        b"-----BEGIN EC PRIVATE KEY-----",
        b"-----BEGIN DSA PRIVATE KEY-----",
        b"-----BEGIN PRIVATE KEY-----",
        b"-----BEGIN ENCRYPTED PRIVATE KEY-----",
    ] {
        if text.starts_with(pem) {
            return Some(PrivateKind::Ssh);
        }
    }
    if matches!(key.first(), Some(0x94..=0x97 | 0xC5)) {
        return Some(PrivateKind::OpenPgp);
    }
    if text.starts_with(b"untrusted comment:") {
        let mut lines = text.split(|&b| b == b'\n').map(super::trim_cr);
        lines.next();
        let body = lines.next().and_then(super::b64)?;
        if body.len() == 158 && body.starts_with(b"Ed") && body.get(4..6) == Some(b"B2") {
            return Some(PrivateKind::Minisign);
        }
        if body.len() == 104 && body.starts_with(b"EdBK") {
            return Some(PrivateKind::Signify);
        }
    }
    None
}

/// The message for a private key given as `--key path`: what it is, and
/// the public key to give instead (the file beside it where that file is
/// there, else how to get it). File names are written by `name` (the
/// caller's quoting, as [`super::Request::name`]).
pub fn private_key_message(kind: PrivateKind, path: &Path, name: &dyn Fn(&Path) -> String) -> String {
    let beside = |from: &str, to: &str| -> Option<PathBuf> {
        let name = path.file_name()?.to_str()?;
        let public = match name.strip_suffix(from) {
            Some(stem) if !from.is_empty() => format!("{stem}{to}"),
            _ if from.is_empty() => format!("{name}{to}"),
            _ => return None,
        };
        let p = path.with_file_name(public);
        p.is_file().then_some(p)
    };
    let found = |p: Option<PathBuf>, how: &str| match p {
        Some(p) => format!(", {}", name(&p)),
        None => format!(" ({how})"),
    };
    let (what, public) = match kind {
        PrivateKind::Ssh => (
            "an SSH private key",
            found(
                beside("", ".pub"),
                &format!("`ssh-keygen -y -f {}` prints it", name(path)),
            ),
        ),
        PrivateKind::Minisign => (
            "a minisign secret key",
            found(
                beside(".key", ".pub").or_else(|| {
                    let p = path.with_file_name("minisign.pub");
                    p.is_file().then_some(p)
                }),
                "the minisign.pub that `minisign -G` wrote with it",
            ),
        ),
        PrivateKind::Signify => (
            "a signify secret key",
            found(
                beside(".sec", ".pub"),
                "the NAME.pub that `signify -G` wrote with it",
            ),
        ),
        PrivateKind::OpenPgp => (
            "an OpenPGP secret key",
            found(None, "`gpg --export --armor KEYID` prints it"),
        ),
    };
    format!(
        "key file {} is {what}, not a public key: give --key the public key{public}",
        name(path)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_keys_are_not_taken_for_private_ones() {
        assert_eq!(
            private_kind(b"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA user@host\n"),
            None
        );
        assert_eq!(private_kind(b"-----BEGIN PGP PUBLIC KEY BLOCK-----\n"), None);
        // An OpenPGP public key packet (tag 6): old format 0x99, new 0xC6.
        assert_eq!(private_kind(&[0x99, 0x01]), None);
        assert_eq!(private_kind(&[0xC6, 0x01]), None);
        assert_eq!(private_kind(&[0x95, 0x01]), Some(PrivateKind::OpenPgp));
        assert_eq!(
            private_kind(b"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n"),
            Some(PrivateKind::Ssh)
        );
    }
}
