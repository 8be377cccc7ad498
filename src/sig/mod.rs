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
//!
//! A fifth, with no key file: a Sigstore bundle ([`SigstorePolicy`]:
//! `--bundle`, `--certificate-identity`, `--certificate-oidc-issuer`,
//! `--trusted-root`, `--attestation`), found beside the checksum file
//! ([`BUNDLE_SIBLINGS`]) or the checksum file itself when it is an
//! attestation, verified offline by `sigstore-verify` (module `sigstore`,
//! the `sigstore` cargo feature; without it, [`BadKind::Unsupported`]
//! with the command that builds it).

#[cfg(feature = "signatures")]
mod ed;
#[cfg(feature = "signatures")]
mod openpgp;
mod private;
#[cfg(feature = "sigstore")]
mod sigstore;
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
    /// A Sigstore bundle (cosign, GitHub artifact attestations): a
    /// Fulcio certificate for an OIDC identity, logged in Rekor.
    Sigstore,
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
            Format::Sigstore => "Sigstore",
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

/// A rule a certificate's identity or issuer must meet: cosign's
/// `--certificate-identity` (exact) or `--certificate-identity-regexp`
/// (a regular expression found anywhere in the value, as Go's
/// `regexp.MatchString`, which cosign uses, finds it).
#[derive(Clone, Debug)]
pub enum Matcher {
    /// The value must be this string.
    Exact(String),
    /// The value must contain a match of this expression.
    Regex(regex::bytes::Regex),
}

impl Matcher {
    /// The option that gave it: `base`, or `base-regexp`.
    pub fn flag(&self, base: &str) -> String {
        match self {
            Matcher::Exact(_) => base.to_string(),
            Matcher::Regex(_) => format!("{base}-regexp"),
        }
    }
}

/// How a Sigstore bundle is verified: `--bundle`,
/// `--certificate-identity[-regexp]`, `--certificate-oidc-issuer[-regexp]`,
/// `--trusted-root`.
#[derive(Clone, Debug)]
pub struct SigstorePolicy {
    /// `--bundle`; `None`: `FILE.sigstore.json`, `FILE.sigstore`,
    /// `FILE.bundle` beside the checksum file, else the checksum file
    /// itself when it is a bundle of an in-toto statement.
    pub bundle: Option<PathBuf>,
    /// The certificate's identity (its SAN: a workflow URI, an email).
    pub identity: Matcher,
    /// The certificate's OIDC issuer
    /// (`https://token.actions.githubusercontent.com`, ...).
    pub issuer: Matcher,
    /// `--trusted-root`: a trusted root (JSON), or several (JSON lines,
    /// as `gh attestation trusted-root` writes them); `None`: the
    /// public-good instance's root built in.
    pub trusted_root: Option<PathBuf>,
    /// `--attestation BUNDLE FILE...`: the checksum file is an
    /// attestation bundle, and only these files are checked, each against
    /// the subject of its name (its path, or its last component); empty:
    /// every subject.
    pub only: Vec<PathBuf>,
    /// `--attestation`: the checksum file must be an attestation bundle.
    pub attestation: bool,
}

/// The names tried beside a checksum file for its Sigstore bundle, in
/// order (goreleaser writes `.sigstore.json`, sigstore-python
/// `.sigstore.json` and formerly `.sigstore`, cosign's docs `.bundle`).
pub const BUNDLE_SIBLINGS: [&str; 3] = ["sigstore.json", "sigstore", "bundle"];

/// How to verify: the options of `--key`, `--signature`, `--namespace`,
/// or of a Sigstore bundle.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    /// The checksum file's path; `None` for standard input (then the
    /// signature must be `signature` or inline).
    pub checksum_file: Option<&'a Path>,
    /// `--key`; `None` with `sigstore`.
    pub key: Option<&'a Path>,
    /// The Sigstore options; then `key` and `signature` are `None`.
    pub sigstore: Option<&'a SigstorePolicy>,
    /// `--signature`; `None`: `FILE.sig`, `FILE.asc`, `FILE.gpg`,
    /// `FILE.minisig` beside the checksum file, in the order the key's
    /// format gives (see [`candidates`]), else inline.
    pub signature: Option<&'a Path>,
    /// `--namespace` (SSH signatures only).
    pub namespace: &'a str,
    /// `--min-signatures`: how many good signatures by distinct keys of
    /// the key file are needed (1 by default; more only an OpenPGP file
    /// of several signatures can give).
    pub min_signatures: u32,
    /// `--trusted-comment`: a pattern the whole of a minisign signature's
    /// trusted comment must match (the caller anchors it); a signature of
    /// another format is then refused.
    pub trusted_comment: Option<&'a regex::bytes::Regex>,
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
    /// Every signature of a file that holds several (OpenPGP: armored
    /// blocks one after another, or several packets in one), in order;
    /// empty for a file of one signature.
    pub signatures: Vec<Seen>,
}

/// One signature of a file that holds several, and what became of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    /// The key that made it, or that it names as issuer (OpenPGP
    /// fingerprint, or a 16-digit key ID where the signature names no
    /// fingerprint).
    pub key_id: String,
    /// `None`: good; else why not.
    pub bad: Option<BadKind>,
}

impl Seen {
    /// `good by KEY`, `KEY not in the key file`, `BAD by KEY`, `KEY
    /// EXPIRED`, `KEY REVOKED`: one item of a verdict's list.
    pub fn words(&self) -> String {
        let k = &self.key_id;
        match self.bad {
            None => format!("good by {k}"),
            Some(BadKind::UnknownKey) => format!("{k} not in the key file"),
            Some(BadKind::Expired) => format!("{k} EXPIRED"),
            Some(BadKind::Revoked) => format!("{k} REVOKED"),
            Some(_) => format!("BAD by {k}"),
        }
    }

    /// The JSON verdict: `good`, or [`BadKind::name`].
    pub fn verdict(&self) -> &'static str {
        self.bad.map_or("good", BadKind::name)
    }
}

/// `N signatures: good by A, B not in the key file, ...`: the list of a
/// file's several signatures, for a verdict line; empty for none.
pub fn seen_list(seen: &[Seen]) -> String {
    if seen.is_empty() {
        return String::new();
    }
    let items: Vec<String> = seen.iter().map(Seen::words).collect();
    format!("{} signatures: {}", seen.len(), items.join(", "))
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
    /// Fewer good signatures by distinct keys of the key file than
    /// `--min-signatures` asks for (and none of them BAD).
    TooFew,
}

impl BadKind {
    /// The verdict as JSON records name it: `bad`, `missing`, `unreadable`,
    /// `unsupported`, `unknown key`, `expired`, `revoked`, `too few`.
    pub fn name(self) -> &'static str {
        match self {
            BadKind::Bad => "bad",
            BadKind::Missing => "missing",
            BadKind::Unreadable => "unreadable",
            BadKind::Unsupported => "unsupported",
            BadKind::UnknownKey => "unknown key",
            BadKind::Expired => "expired",
            BadKind::Revoked => "revoked",
            BadKind::TooFew => "too few",
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
            BadKind::TooFew => "too few good signatures",
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
    /// Every signature of a file that holds several (see
    /// [`Good::signatures`]); empty otherwise.
    pub signatures: Vec<Seen>,
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
            signatures: Vec::new(),
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
            if self.format == Some(Format::Sigstore) {
                parts.push(format!("identity {}", name(Path::new(k))));
            } else {
                parts.push(format!("key {k}"));
            }
        }
        match &self.place {
            Some(Place::Detached(p)) => parts.push(name(p)),
            Some(Place::Inline) if self.format == Some(Format::Sigstore) => {
                parts.push("attestation".to_string())
            }
            Some(Place::Inline) => parts.push("inline".to_string()),
            None => {}
        }
        if !parts.is_empty() {
            out.push_str(&format!(" ({})", parts.join(", ")));
        }
        out.push_str(": ");
        out.push_str(&self.cause);
        if !self.signatures.is_empty() {
            out.push_str("; ");
            out.push_str(&seen_list(&self.signatures));
        }
        out
    }
}

impl Good {
    /// `Good signature (OpenPGP, key FPR, signer 'A <a@b>', SUMS.asc)`,
    /// the signer and the signature file's name written by `name` (the
    /// caller's quoting, GNU's `quotef`); for a file of several
    /// signatures, then `: N signatures: good by A, B not in the key
    /// file, ...` (see [`seen_list`]).
    pub fn message(&self, name: &dyn Fn(&Path) -> String) -> String {
        let mut out = if self.format == Format::Sigstore {
            format!(
                "Good signature (Sigstore, identity {}, issuer {}",
                name(Path::new(&self.key_id)),
                name(Path::new(self.signer.as_deref().unwrap_or_default()))
            )
        } else {
            format!("Good signature ({}, key {}", self.format.name(), self.key_id)
        };
        if let Some(s) = &self.signer
            && self.format != Format::Sigstore
        {
            out.push_str(&format!(", signer {}", name(Path::new(s))));
        }
        match &self.place {
            Place::Detached(p) => out.push_str(&format!(", {})", name(p))),
            Place::Inline if self.format == Format::Sigstore => out.push_str(", attestation)"),
            Place::Inline => out.push_str(", inline)"),
        }
        if !self.signatures.is_empty() {
            out.push_str(": ");
            out.push_str(&seen_list(&self.signatures));
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
    brief_to(e, fallback, 100)
}

/// [`brief`] with room for `max` bytes (Sigstore's errors name a
/// verification step, then its cause: 100 bytes cut them mid-word).
#[cfg_attr(not(feature = "signatures"), allow(dead_code))]
fn brief_to(e: &dyn std::fmt::Display, fallback: &str, max: usize) -> String {
    let text = e.to_string();
    let cut = ["Error(", "{", "[", "\n", "backtrace", "Backtrace"]
        .iter()
        .filter_map(|m| text.find(m))
        .min()
        .unwrap_or(text.len());
    let mut out: String = text[..cut].chars().filter(|c| !c.is_control()).collect();
    if out.len() > max {
        let mut end = max;
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

/// The names tried beside a checksum file, in the order used when the
/// key's format is not known (see [`candidates`] for the others).
pub const SIBLINGS: [&str; 4] = ["sig", "asc", "gpg", "minisig"];

/// What a key file holds, told by its contents (the same shapes the
/// verifiers read): it orders the signature files tried beside a checksum
/// file, and passes over those of another format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// An OpenPGP public key or keyring: `-----BEGIN PGP PUBLIC KEY
    /// BLOCK-----`, or a binary packet (first byte with bit 7 set).
    OpenPgp,
    /// A minisign public key: `untrusted comment: minisign public key
    /// ...` (or no comment, `minisign -P`'s bare line), then the base64
    /// of `Ed`, a key number and a 32-byte key.
    Minisign,
    /// The same key layout with another comment: a signify or usign
    /// public key (`untrusted comment: NAME public key`).
    Signify,
    /// An SSH public key or allowed-signers file (a line with an SSH key
    /// type: `ssh-...`, `ecdsa-sha2-...`, `sk-...`).
    Ssh,
    /// None of these (or unreadable): every format is tried.
    Unknown,
}

impl KeyKind {
    /// Reads `key`'s kind from its bytes.
    pub fn of(key: &[u8]) -> KeyKind {
        let text = trim_start(key);
        if text.starts_with(b"-----BEGIN PGP PUBLIC KEY BLOCK-----") {
            return KeyKind::OpenPgp;
        }
        if key.first().is_some_and(|b| b & 0x80 != 0) {
            return KeyKind::OpenPgp;
        }
        let mut lines = text
            .split(|&b| b == b'\n')
            .map(|l| trim_cr(l).trim_ascii())
            .filter(|l| !l.is_empty());
        let first = lines.next().unwrap_or_default();
        let (comment, body) = match first.strip_prefix(b"untrusted comment:") {
            Some(c) => (Some(c), lines.next().unwrap_or_default()),
            None => (None, first),
        };
        if b64(body).is_some_and(|b| b.len() == 42 && b.starts_with(b"Ed")) {
            let minisign = comment.is_none_or(|c| c.trim_ascii().starts_with(b"minisign"));
            return if minisign {
                KeyKind::Minisign
            } else {
                KeyKind::Signify
            };
        }
        let ssh_type =
            |w: &[u8]| w.starts_with(b"ssh-") || w.starts_with(b"ecdsa-sha2-") || w.starts_with(b"sk-");
        if text.split(|&b| b == b'\n').any(|l| {
            let l = trim_cr(l).trim_ascii();
            !l.starts_with(b"#") && l.split(|c| c.is_ascii_whitespace()).take(3).any(ssh_type)
        }) {
            return KeyKind::Ssh;
        }
        KeyKind::Unknown
    }

    /// Its name in messages: `an OpenPGP key`, `a minisign key`, ...
    fn words(self) -> &'static str {
        match self {
            KeyKind::OpenPgp => "an OpenPGP key",
            KeyKind::Minisign => "a minisign key",
            KeyKind::Signify => "a signify or usign key",
            KeyKind::Ssh => "an SSH key",
            KeyKind::Unknown => "a key",
        }
    }

    /// Whether a signature of `sig`'s kind can be made by such a key
    /// (minisign and signify share their key layout).
    fn fits(self, sig: SigKind) -> bool {
        match self {
            KeyKind::OpenPgp => sig == SigKind::OpenPgp,
            KeyKind::Minisign | KeyKind::Signify => {
                matches!(sig, SigKind::Minisign | SigKind::Signify)
            }
            KeyKind::Ssh => sig == SigKind::Ssh,
            KeyKind::Unknown => true,
        }
    }
}

/// The names tried beside a checksum file for a key of `kind`, in order:
/// a minisign key `.minisig` first, an OpenPGP key `.asc`, `.sig`,
/// `.gpg`, a signify/usign or SSH key `.sig` (OpenWrt ships a usign
/// `.sig` and an OpenPGP `.asc` beside one list). The others follow, and
/// are passed over when of another format.
pub fn candidates(kind: KeyKind) -> [&'static str; 4] {
    match kind {
        KeyKind::OpenPgp => ["asc", "sig", "gpg", "minisig"],
        KeyKind::Minisign => ["minisig", "sig", "asc", "gpg"],
        KeyKind::Signify | KeyKind::Ssh | KeyKind::Unknown => SIBLINGS,
    }
}

/// Verifies the signature of the checksum file whose exact bytes are
/// `content`, as `req` says. `Ok`: the lines to check are
/// [`Good::text`], or `content` when that is `None`.
///
/// Errors: every failure is a [`Bad`]; nothing here panics on any input.
pub fn verify(content: &[u8], req: &Request<'_>) -> Result<Good, Bad> {
    if let Some(policy) = req.sigstore {
        return verify_sigstore(content, req, policy);
    }
    let Some(key_path) = req.key else {
        return Err(Bad::new(BadKind::Missing, "no key given (--key KEYFILE)"));
    };
    let key = read_aux(key_path, "key file", BadKind::Unreadable, req.name);
    // A private key where the public one belongs: said first, with the
    // public key to give.
    if let Ok(k) = &key
        && let Some(kind) = private::private_kind(k)
    {
        return Err(Bad::new(
            BadKind::Unreadable,
            private::private_key_message(kind, key_path, req.name),
        ));
    }
    let kind = key.as_deref().map_or(KeyKind::Unknown, KeyKind::of);
    let (place, sig) = find_signature(content, req, kind)?;
    let bad_at = |b: Bad| Bad {
        place: Some(place.clone()),
        ..b
    };
    let key = key.map_err(bad_at)?;
    let good = match &place {
        Place::Detached(_) => verify_detached(content, &sig, &key, req),
        Place::Inline => verify_inline(content, &key, req),
    };
    good.and_then(|g| enough(g, req))
        .map(|mut g| {
            g.place = place.clone();
            g
        })
        .map_err(bad_at)
}

/// A Sigstore bundle: `--bundle`, else one beside the checksum file
/// ([`BUNDLE_SIBLINGS`]), else the checksum file itself when it is a
/// bundle (an in-toto statement's: its subjects are the lines checked).
fn verify_sigstore(content: &[u8], req: &Request<'_>, policy: &SigstorePolicy) -> Result<Good, Bad> {
    let at = |place: &Place| {
        let place = place.clone();
        move |b: Bad| Bad {
            place: Some(place.clone()),
            format: Some(Format::Sigstore),
            ..b
        }
    };
    let self_bundle = looks_like_bundle(content);
    if policy.attestation && !self_bundle {
        return Err(Bad::new(
            BadKind::Unsupported,
            "--attestation names a file that is not a Sigstore bundle (JSON with a mediaType of \
             application/vnd.dev.sigstore.bundle)",
        )
        .format(Format::Sigstore));
    }
    let (place, bundle) = if let Some(b) = &policy.bundle {
        let place = Place::Detached(b.clone());
        let bytes = read_aux(b, "bundle", BadKind::Missing, req.name).map_err(at(&place))?;
        (place, bytes)
    } else if self_bundle {
        (Place::Inline, content.to_vec())
    } else {
        let Some(f) = req.checksum_file else {
            return Err(Bad::new(
                BadKind::Missing,
                "standard input has no bundle beside it: give --bundle BUNDLE",
            )
            .format(Format::Sigstore));
        };
        let beside = |ext: &str| {
            let mut p = f.as_os_str().to_os_string();
            p.push(".");
            p.push(ext);
            PathBuf::from(p)
        };
        let found = BUNDLE_SIBLINGS
            .iter()
            .map(|e| beside(e))
            .find(|p| std::fs::symlink_metadata(p).is_ok());
        match found {
            Some(p) => {
                let place = Place::Detached(p.clone());
                let bytes = read_aux(&p, "bundle", BadKind::Unreadable, req.name).map_err(at(&place))?;
                (place, bytes)
            }
            None => {
                let tried: Vec<String> = BUNDLE_SIBLINGS.iter().map(|e| (req.name)(&beside(e))).collect();
                let legacy = beside("sig").exists() && (beside("pem").exists() || beside("crt").exists());
                let b = if legacy {
                    Bad::new(
                        BadKind::Unsupported,
                        format!("none of {} exists; {}", tried.join(", "), LEGACY),
                    )
                } else {
                    Bad::new(
                        BadKind::Missing,
                        format!("none of {} exists (give --bundle BUNDLE)", tried.join(", ")),
                    )
                };
                return Err(b.format(Format::Sigstore));
            }
        }
    };
    let inline = place == Place::Inline;
    verify_bundle(
        if inline { None } else { Some(content) },
        &bundle,
        &place,
        policy,
        req,
    )
    .and_then(|mut g| {
        if inline {
            g.text = Some(subject_lines(&bundle, &policy.only, req.name)?);
        }
        Ok(g)
    })
    .map_err(at(&place))
}

/// The message for a legacy cosign bundle or a `.sig` + `.pem` pair.
const LEGACY: &str = "a cosign signature in the old format (a legacy bundle, or a .sig with a .pem): \
     mhash reads Sigstore bundles only: sign with `cosign sign-blob --new-bundle-format --bundle \
     FILE.sigstore.json` (cosign 2.4 or later; cosign 3 writes bundles by default)";

/// Whether `content` is JSON naming a Sigstore bundle media type (no
/// more is read or checked).
fn looks_like_bundle(content: &[u8]) -> bool {
    let t = trim_start(content);
    t.starts_with(b"{")
        && serde_json::from_slice::<serde_json::Value>(t).is_ok_and(|v| {
            v.get("mediaType")
                .and_then(|m| m.as_str())
                .is_some_and(|m| m.starts_with("application/vnd.dev.sigstore.bundle"))
        })
}

#[cfg(feature = "sigstore")]
fn verify_bundle(
    artifact: Option<&[u8]>,
    bundle: &[u8],
    place: &Place,
    policy: &SigstorePolicy,
    req: &Request<'_>,
) -> Result<Good, Bad> {
    sigstore::verify(artifact, bundle, place, policy, req.name)
}

#[cfg(feature = "sigstore")]
fn subject_lines(bundle: &[u8], only: &[PathBuf], name: &dyn Fn(&Path) -> String) -> Result<Vec<u8>, Bad> {
    sigstore::subject_lines(bundle, only, name)
}

#[cfg(not(feature = "sigstore"))]
fn verify_bundle(
    _: Option<&[u8]>,
    _: &[u8],
    _: &Place,
    _: &SigstorePolicy,
    _: &Request<'_>,
) -> Result<Good, Bad> {
    Err(Bad::new(
        BadKind::Unsupported,
        "this mhash was built without Sigstore support: rebuild it from its source with `cargo install --locked --path . --features sigstore` (the release binaries have it)",
    ))
}

#[cfg(not(feature = "sigstore"))]
fn subject_lines(_: &[u8], _: &[PathBuf], _: &dyn Fn(&Path) -> String) -> Result<Vec<u8>, Bad> {
    Err(Bad::new(
        BadKind::Unsupported,
        "this mhash was built without Sigstore support",
    ))
}

/// The checks a good signature still has to pass: `--trusted-comment`
/// (minisign only: its trusted comment, signed, must match the pattern)
/// and `--min-signatures` (OpenPGP counts its own; any other format holds
/// one signature).
fn enough(g: Good, req: &Request<'_>) -> Result<Good, Bad> {
    if let Some(re) = req.trusted_comment {
        if g.format != Format::Minisign {
            return Err(Bad::new(
                BadKind::Unsupported,
                format!(
                    "--trusted-comment needs a minisign signature, and this one is {}",
                    g.format.name()
                ),
            )
            .format(g.format)
            .key(g.key_id));
        }
        let comment = g.signer.as_deref().unwrap_or_default();
        if !re.is_match(comment.as_bytes()) {
            return Err(Bad::new(
                BadKind::Bad,
                format!(
                    "its trusted comment {} does not match --trusted-comment",
                    (req.name)(Path::new(comment))
                ),
            )
            .format(g.format)
            .key(g.key_id));
        }
    }
    if req.min_signatures > 1 && g.format != Format::OpenPgp {
        return Err(Bad::new(
            BadKind::TooFew,
            format!(
                "1 good signature, {} needed: a {} signature file holds one signature",
                req.min_signatures,
                g.format.name()
            ),
        )
        .format(g.format)
        .key(g.key_id));
    }
    Ok(g)
}

/// The signature: `--signature`, a file beside (in the order the key's
/// format gives, those of another format passed over), or the checksum
/// file itself when it holds one (clearsigned, signify embedded).
fn find_signature(content: &[u8], req: &Request<'_>, kind: KeyKind) -> Result<(Place, Vec<u8>), Bad> {
    if let Some(s) = req.signature {
        let place = Place::Detached(s.to_path_buf());
        return read_aux(s, "signature", BadKind::Missing, req.name)
            .map(|b| (place.clone(), b))
            .map_err(|mut e| {
                e.place = Some(place);
                e
            });
    }
    let mut absent = Vec::new();
    let mut other = Vec::new();
    if let Some(f) = req.checksum_file {
        for ext in candidates(kind) {
            let mut p = f.as_os_str().to_os_string();
            p.push(".");
            p.push(ext);
            let p = PathBuf::from(p);
            match std::fs::symlink_metadata(&p) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    absent.push((req.name)(&p));
                    continue;
                }
                _ => {}
            }
            let place = Place::Detached(p.clone());
            let sig = read_aux(&p, "signature", BadKind::Unreadable, req.name).map_err(|mut e| {
                e.place = Some(place.clone());
                e
            })?;
            match sig_kind(&sig) {
                Some(s) if !kind.fits(s) => {
                    other.push(format!("{} is {}", (req.name)(&p), s.format().name()));
                }
                _ => return Ok((place, sig)),
            }
        }
    }
    let inline = if is_clearsigned(content) {
        Some(SigKind::OpenPgp)
    } else if is_signify_embedded(content) {
        Some(SigKind::Signify)
    } else {
        None
    };
    if let Some(s) = inline
        && kind.fits(s)
    {
        return Ok((Place::Inline, Vec::new()));
    }
    if !other.is_empty() {
        let mut cause = format!(
            "no signature beside the checksum file fits the key file's key ({}): {}",
            kind.words(),
            other.join(", ")
        );
        if !absent.is_empty() {
            cause.push_str(&format!("; {} not there", absent.join(", ")));
        }
        return Err(Bad::new(BadKind::Unsupported, cause));
    }
    if inline.is_some() {
        return Ok((Place::Inline, Vec::new()));
    }
    let cause = if absent.is_empty() {
        "standard input is not clearsigned: give --signature SIGFILE".to_string()
    } else {
        format!(
            "none of {} exists, and the file is not clearsigned (give --signature SIGFILE)",
            absent.join(", ")
        )
    };
    Err(Bad::new(BadKind::Missing, cause))
}

/// `secs` seconds since 1970 as a UTC time, `2025-01-01T12:00:00Z` (what
/// `date -u -d @SECS +%FT%TZ` prints), for the expiry of a key or
/// signature ([`crate::text::utc`]).
pub fn utc(secs: u64) -> String {
    crate::text::utc(i64::try_from(secs).unwrap_or(i64::MAX))
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

impl SigKind {
    /// The format it is.
    fn format(self) -> Format {
        match self {
            SigKind::OpenPgp => Format::OpenPgp,
            SigKind::Minisign => Format::Minisign,
            SigKind::Signify => Format::Signify,
            SigKind::Ssh => Format::Ssh,
        }
    }
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
        Some(SigKind::OpenPgp) => openpgp::verify_detached(content, sig, key, req.min_signatures)
            .map_err(|b| b.format(Format::OpenPgp)),
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
fn verify_inline(content: &[u8], key: &[u8], req: &Request<'_>) -> Result<Good, Bad> {
    if is_clearsigned(content) {
        openpgp::verify_clearsigned(content, key, req.min_signatures).map_err(|b| b.format(Format::OpenPgp))
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
fn verify_inline(_: &[u8], _: &[u8], _: &Request<'_>) -> Result<Good, Bad> {
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

    /// `utc` against GNU `date -u -d @SECS +%FT%TZ` (values it printed,
    /// and, where `date` is there, what it prints now).
    #[test]
    fn utc_is_what_date_prints() {
        let known = [
            (0, "1970-01-01T00:00:00Z"),
            (1_577_923_200, "2020-01-02T00:00:00Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (1_735_732_800, "2025-01-01T12:00:00Z"),
            (4_107_542_399, "2100-02-28T23:59:59Z"),
            (253_402_300_799, "9999-12-31T23:59:59Z"),
        ];
        for (secs, want) in known {
            assert_eq!(utc(secs), want, "{secs}");
        }
        let mut probe: Vec<u64> = known.iter().map(|k| k.0).collect();
        probe.extend((0..40u64).map(|i| i * 7_919_993_117 % 253_402_300_799));
        for secs in probe {
            let Ok(o) = std::process::Command::new("date")
                .args(["-u", "-d", &format!("@{secs}"), "+%FT%TZ"])
                .output()
            else {
                return;
            };
            if !o.status.success() {
                return;
            }
            assert_eq!(utc(secs), String::from_utf8_lossy(&o.stdout).trim_end(), "{secs}");
        }
    }

    #[test]
    fn key_kinds_are_told_by_their_contents() {
        assert_eq!(
            KeyKind::of(b"-----BEGIN PGP PUBLIC KEY BLOCK-----\n"),
            KeyKind::OpenPgp
        );
        assert_eq!(KeyKind::of(&[0x99, 0x01]), KeyKind::OpenPgp);
        let ed = "RWTIx5S3jdtTjaZULgz9wQrXm4+uMIK8rc1KkMScx4/vD3+oQQtnS8bf";
        let ed_bytes = b64(ed.as_bytes()).unwrap();
        assert_eq!((ed_bytes.len(), &ed_bytes[..2]), (42, &b"Ed"[..]));
        let mini = format!("untrusted comment: minisign public key 1A9021D23D385415\n{ed}\n");
        assert_eq!(KeyKind::of(mini.as_bytes()), KeyKind::Minisign);
        assert_eq!(KeyKind::of(format!("{ed}\n").as_bytes()), KeyKind::Minisign);
        let usign = format!("untrusted comment: public key 8d53db8db794c7c8\n{ed}\n");
        assert_eq!(KeyKind::of(usign.as_bytes()), KeyKind::Signify);
        assert_eq!(
            KeyKind::of(b"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA x@y\n"),
            KeyKind::Ssh
        );
        assert_eq!(
            KeyKind::of(b"# signers\nx@y namespaces=\"file\" ssh-ed25519 AAAA\n"),
            KeyKind::Ssh
        );
        assert_eq!(KeyKind::of(b"garbage"), KeyKind::Unknown);
        assert_eq!(KeyKind::of(b""), KeyKind::Unknown);
        assert_eq!(candidates(KeyKind::Minisign)[0], "minisig");
        assert_eq!(candidates(KeyKind::OpenPgp)[..3], ["asc", "sig", "gpg"]);
        assert_eq!(candidates(KeyKind::Signify)[0], "sig");
        assert!(KeyKind::Minisign.fits(SigKind::Signify));
        assert!(!KeyKind::OpenPgp.fits(SigKind::Signify));
        assert!(!KeyKind::Ssh.fits(SigKind::Minisign));
    }

    #[test]
    fn several_signatures_are_listed_one_by_one() {
        let seen = |k: &str, bad| Seen {
            key_id: k.into(),
            bad,
        };
        let list = seen_list(&[
            seen("A", None),
            seen("B", Some(BadKind::UnknownKey)),
            seen("C", Some(BadKind::Bad)),
            seen("D", Some(BadKind::Expired)),
        ]);
        assert_eq!(
            list,
            "4 signatures: good by A, B not in the key file, BAD by C, D EXPIRED"
        );
        assert_eq!(seen_list(&[]), "");
    }

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
            signatures: Vec::new(),
        };
        let quoted = |p: &Path| format!("[{}]", p.display());
        assert_eq!(
            b.message(&quoted),
            "BAD signature (minisign, key ABCD, [S.minisig]): signature does not match the file"
        );
    }
}
