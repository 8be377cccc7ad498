//! OpenPGP (RFC 4880, RFC 9580) signatures, checked with rpgp (`pgp`).
//!
//! The key file holds one or more transferable public keys, armored
//! (`gpg --export --armor`, several blocks may follow each other) or binary
//! (`gpg --export`, a `pubring.gpg` keyring). GnuPG's keybox
//! (`pubring.kbx`) is not OpenPGP data and is refused with a hint.
//!
//! A signature is good when it verifies with the primary key or a subkey
//! of the key file that it names as issuer, and that key is valid now:
//! not revoked (a key revocation verified by the primary key, or a subkey
//! revocation), not expired (the newest valid self-signature's key
//! expiration time, RFC 9580 §5.2.3.13; for a subkey its binding's, and
//! the primary key's too), and the signature not expired (§5.2.3.18). A
//! signing subkey needs a valid binding signature. GnuPG's `gpg --verify`
//! reports a good signature by an expired or revoked key with a warning
//! and exit 0; mhash refuses it (fails closed). Signatures by keys that
//! are not in the key file are passed over when another one is good.

use super::{Bad, BadKind, Format, Good, KeyKind, Place, Seen};
use pgp::composed::{
    CleartextSignedMessage, Deserializable, DetachedSignature, PublicOrSecret, SignedPublicKey,
};
use pgp::packet::{Signature, SignatureType};
use pgp::types::{KeyDetails, Tag};

/// The armor line that starts a public key block.
const KEY_BLOCK: &str = "-----BEGIN PGP PUBLIC KEY BLOCK-----";

/// The armor line that starts a signature block.
const SIG_BLOCK: &str = "-----BEGIN PGP SIGNATURE-----";

/// `data` cut before each `marker` line, where it holds more than one
/// (armored blocks one after another, as `cat a.asc b.asc` makes them);
/// else `data` whole.
fn blocks<'a>(data: &'a [u8], marker: &str) -> Vec<&'a [u8]> {
    match std::str::from_utf8(data) {
        Ok(t) if t.matches(marker).count() > 1 => t
            .match_indices(marker)
            .map(|(i, _)| i)
            .chain([t.len()])
            .collect::<Vec<_>>()
            .windows(2)
            .map(|w| &data[w[0]..w[1]])
            .collect(),
        _ => vec![data],
    }
}

/// The seconds since the epoch now (0 if the clock is before it).
fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn fpr(k: &impl KeyDetails) -> String {
    format!("{:X}", k.fingerprint())
}

/// The public keys of the key file.
fn parse_keys(key: &[u8]) -> Result<Vec<SignedPublicKey>, Bad> {
    if key.len() >= 12 && &key[8..12] == b"KBXf" {
        return Err(Bad::new(
            BadKind::Unsupported,
            "the key file is a GnuPG keybox (pubring.kbx): give an exported key (gpg --export KEYID > release.pub)",
        ));
    }
    // Armored blocks one after another (`cat a.asc b.asc`): each parsed.
    let mut keys = Vec::new();
    for piece in blocks(key, KEY_BLOCK) {
        if let Ok((iter, _)) = PublicOrSecret::from_reader_many(piece) {
            for k in iter.flatten() {
                match k {
                    PublicOrSecret::Public(p) => keys.push(p),
                    PublicOrSecret::Secret(s) => keys.push(s.to_public_key()),
                }
            }
        }
    }
    if keys.is_empty() {
        // What the file is, in mhash's words (never the parser's text).
        let what = match KeyKind::of(key) {
            KeyKind::OpenPgp => "it is not readable as OpenPGP key packets".to_string(),
            KeyKind::Unknown => "it is not an OpenPGP key".to_string(),
            k => format!("it holds {}", k.words()),
        };
        return Err(Bad::new(
            BadKind::Unsupported,
            format!("the key file holds no OpenPGP public key: {what}"),
        ));
    }
    Ok(keys)
}

/// Whether `sig` names `k` as its issuer (fingerprint or key ID).
fn issued_by(sig: &Signature, k: &impl KeyDetails) -> bool {
    let fp = k.fingerprint();
    let id = k.legacy_key_id();
    sig.issuer_fingerprint().iter().any(|f| **f == fp) || sig.issuer_key_id().iter().any(|i| **i == id)
}

/// The issuer the signature names, for messages.
fn issuer(sig: &Signature) -> Option<String> {
    if let Some(f) = sig.issuer_fingerprint().first() {
        return Some(format!("{f:X}"));
    }
    sig.issuer_key_id().first().map(|i| hex::encode_upper(i.as_ref()))
}

/// Expiry as `created + seconds` (0 or none: never).
fn expired_at(created: u32, expiry: Option<pgp::types::Duration>) -> Option<u64> {
    expiry
        .map(|d| d.as_secs())
        .filter(|&d| d > 0)
        .map(|d| u64::from(created) + u64::from(d))
}

/// The newest of `sigs` that `valid` accepts.
fn newest<'a>(
    sigs: impl Iterator<Item = &'a Signature>,
    valid: impl Fn(&Signature) -> bool,
) -> Option<&'a Signature> {
    sigs.filter(|s| valid(s))
        .max_by_key(|s| s.created().map_or(0, |t| t.as_secs()))
}

/// Why the primary key of `cert` is not usable now, if it is not.
fn primary_unusable(cert: &SignedPublicKey, now: u64) -> Option<(BadKind, String)> {
    let p = &cert.primary_key;
    if cert
        .details
        .revocation_signatures
        .iter()
        .any(|r| r.verify_key(p).is_ok())
    {
        return Some((BadKind::Revoked, format!("key {} is revoked", fpr(p))));
    }
    let user_sigs = cert.details.users.iter().flat_map(|u| {
        u.signatures
            .iter()
            .filter(|s| s.typ() != Some(SignatureType::CertRevocation))
            .map(move |s| (s, Some(u)))
    });
    let direct = cert.details.direct_signatures.iter().map(|s| (s, None));
    let all: Vec<_> = user_sigs.chain(direct).collect();
    let valid = |s: &Signature| {
        all.iter().any(|(t, u)| {
            std::ptr::eq(*t, s)
                && issued_by(s, p)
                && match u {
                    Some(u) => s.verify_certification(p, Tag::UserId, &u.id).is_ok(),
                    None => s.verify_key(p).is_ok(),
                }
        })
    };
    let Some(selfsig) = newest(all.iter().map(|(s, _)| *s), valid) else {
        return Some((
            BadKind::Bad,
            format!("key {} has no valid self-signature", fpr(p)),
        ));
    };
    if let Some(t) = expired_at(p.created_at().as_secs(), selfsig.key_expiration_time())
        && t <= now
    {
        return Some((
            BadKind::Expired,
            format!("key {} expired {}", fpr(p), super::utc(t)),
        ));
    }
    None
}

/// A good signature: the key that made it (the subkey's fingerprint
/// where a subkey signed), who (the first user ID), and the primary
/// key's fingerprint (what tells distinct keys apart).
struct Signer {
    key_id: String,
    who: Option<String>,
    primary: String,
}

/// Checks `sig` over `data` with the keys.
fn check_one(sig: &Signature, data: &[u8], certs: &[SignedPublicKey], now: u64) -> Result<Signer, Bad> {
    let who = |c: &SignedPublicKey| {
        c.details
            .users
            .first()
            .map(|u| String::from_utf8_lossy(u.id.id()).into_owned())
    };
    for cert in certs {
        let p = &cert.primary_key;
        let signer_id;
        if issued_by(sig, p) {
            signer_id = fpr(p);
            sig.verify(p, data).map_err(|_| {
                Bad::new(BadKind::Bad, "the signature does not match the file").key(signer_id.clone())
            })?;
        } else if let Some(sub) = cert.public_subkeys.iter().find(|s| issued_by(sig, &s.key)) {
            signer_id = fpr(&sub.key);
            sig.verify(&sub.key, data).map_err(|_| {
                Bad::new(BadKind::Bad, "the signature does not match the file").key(signer_id.clone())
            })?;
            if sub.signatures.iter().any(|r| {
                r.typ() == Some(SignatureType::SubkeyRevocation)
                    && r.verify_subkey_binding(p, &sub.key).is_ok()
            }) {
                return Err(
                    Bad::new(BadKind::Revoked, format!("subkey {signer_id} is revoked")).key(signer_id),
                );
            }
            let binding = newest(sub.signatures.iter(), |s| {
                s.typ() == Some(SignatureType::SubkeyBinding) && s.verify_subkey_binding(p, &sub.key).is_ok()
            });
            let Some(binding) = binding else {
                return Err(Bad::new(
                    BadKind::Bad,
                    format!("subkey {signer_id} has no valid binding signature"),
                )
                .key(signer_id));
            };
            if let Some(t) = expired_at(sub.key.created_at().as_secs(), binding.key_expiration_time())
                && t <= now
            {
                return Err(Bad::new(
                    BadKind::Expired,
                    format!("subkey {signer_id} expired {}", super::utc(t)),
                )
                .key(signer_id));
            }
        } else {
            continue;
        }
        if let Some((kind, cause)) = primary_unusable(cert, now) {
            return Err(Bad::new(kind, cause).key(signer_id));
        }
        if let Some(created) = sig.created()
            && let Some(t) = expired_at(created.as_secs(), sig.signature_expiration_time())
            && t <= now
        {
            return Err(Bad::new(
                BadKind::Expired,
                format!("the signature expired {}", super::utc(t)),
            )
            .key(signer_id));
        }
        return Ok(Signer {
            key_id: signer_id,
            who: who(cert),
            primary: fpr(p),
        });
    }
    let id = issuer(sig).unwrap_or_else(|| "(none named)".into());
    Err(Bad::new(
        BadKind::UnknownKey,
        format!("made by key {id}, which the key file does not hold"),
    )
    .key(id))
}

/// Checks every signature of `sigs` (a file may hold several: Bitcoin
/// Core's `SHA256SUMS.asc` is each builder's armored signature, one after
/// another). Good when at least `need` of them are good by distinct keys
/// of the key file (a primary key and its subkeys are one key) and none
/// by a key of the key file is BAD (does not verify); signatures by keys
/// the key file lacks are passed over, and those by an expired or revoked
/// key are not counted. Where `need` is not met, the failure of the one
/// signature (or, with none good, of the worst: BAD, expired, revoked
/// before an unknown key), else [`BadKind::TooFew`]. `Good::signatures`
/// and `Bad::signatures` list each signature where there are several.
fn check_all(sigs: &[Signature], data: &[u8], key: &[u8], need: u32) -> Result<Good, Bad> {
    let certs = parse_keys(key)?;
    let now = now();
    let results: Vec<Result<Signer, Bad>> = sigs.iter().map(|s| check_one(s, data, &certs, now)).collect();
    let seen: Vec<Seen> = if results.len() > 1 {
        results
            .iter()
            .map(|r| match r {
                Ok(g) => Seen {
                    key_id: g.key_id.clone(),
                    bad: None,
                },
                Err(b) => Seen {
                    key_id: b.key_id.clone().unwrap_or_else(|| "(none named)".into()),
                    bad: Some(b.kind),
                },
            })
            .collect()
    } else {
        Vec::new()
    };
    let with_list = |mut b: Bad| {
        b.signatures = seen.clone();
        b
    };
    // A signature by a key of the key file that does not verify fails
    // the file, however many others are good.
    if let Some(Err(b)) = results
        .iter()
        .find(|r| matches!(r, Err(b) if b.kind == BadKind::Bad))
    {
        return Err(with_list(b.clone()));
    }
    let mut distinct: Vec<&str> = Vec::new();
    for g in results.iter().flatten() {
        if !distinct.contains(&g.primary.as_str()) {
            distinct.push(&g.primary);
        }
    }
    let need = need.max(1);
    if distinct.len() >= need as usize {
        let Some(first) = results.iter().flatten().next() else {
            unreachable!("need is at least 1, so a good signature was counted")
        };
        return Ok(Good {
            format: Format::OpenPgp,
            place: Place::Inline,
            key_id: first.key_id.clone(),
            signer: first.who.clone(),
            text: None,
            ignored_lines: 0,
            signatures: seen,
        });
    }
    if distinct.is_empty() {
        let mut worst: Option<&Bad> = None;
        for b in results.iter().filter_map(|r| r.as_ref().err()) {
            if worst.is_none_or(|w| w.kind == BadKind::UnknownKey && b.kind != BadKind::UnknownKey) {
                worst = Some(b);
            }
        }
        let b = worst
            .cloned()
            .unwrap_or_else(|| Bad::new(BadKind::Bad, "the signature file holds no signature"));
        if need == 1 {
            return Err(with_list(b));
        }
    }
    let n = distinct.len();
    let s = if n == 1 { "" } else { "s" };
    Err(with_list(Bad::new(
        BadKind::TooFew,
        format!("{n} good signature{s} by distinct keys of the key file, {need} needed (--min-signatures)"),
    )))
}

/// Verifies a detached signature (armored or binary) over `content`:
/// every armored block (several may follow each other) and every
/// signature packet in each, at least `need` good (see [`check_all`]).
pub(super) fn verify_detached(content: &[u8], sig: &[u8], key: &[u8], need: u32) -> Result<Good, Bad> {
    let malformed = |e: String| Bad::new(BadKind::Bad, format!("malformed OpenPGP signature: {e}"));
    let unreadable = |e: pgp::errors::Error| malformed(super::brief(&e, "not OpenPGP packets"));
    let mut sigs = Vec::new();
    for block in blocks(sig, SIG_BLOCK) {
        let (iter, _) = DetachedSignature::from_reader_many(block).map_err(unreadable)?;
        for s in iter {
            sigs.push(s.map_err(unreadable)?.signature);
        }
    }
    if sigs.is_empty() {
        return Err(malformed("no signature packet".into()));
    }
    check_all(&sigs, content, key, need)
}

/// Verifies a clearsigned file (RFC 9580 §7, the Cleartext Signature
/// Framework): only its signed text is returned to be checked; the
/// non-blank lines before `-----BEGIN PGP SIGNED MESSAGE-----` and after
/// `-----END PGP SIGNATURE-----` are counted in [`Good::ignored_lines`].
pub(super) fn verify_clearsigned(content: &[u8], key: &[u8], need: u32) -> Result<Good, Bad> {
    let lines: Vec<&[u8]> = content.split_inclusive(|&b| b == b'\n').collect();
    let trim = |l: &[u8]| l.trim_ascii_end().to_vec();
    let begin = lines
        .iter()
        .position(|l| trim(l) == b"-----BEGIN PGP SIGNED MESSAGE-----")
        .ok_or_else(|| Bad::new(BadKind::Missing, "not clearsigned"))?;
    let end = lines[begin..]
        .iter()
        .position(|l| trim(l) == b"-----END PGP SIGNATURE-----")
        .map(|i| begin + i)
        .ok_or_else(|| {
            Bad::new(
                BadKind::Bad,
                "the clearsigned block has no -----END PGP SIGNATURE----- line",
            )
        })?;
    let blank = |l: &&[u8]| l.trim_ascii().is_empty();
    let ignored = lines[..begin]
        .iter()
        .chain(&lines[end + 1..])
        .filter(|l| !blank(l))
        .count() as u64;
    let block: Vec<u8> = lines[begin..=end].concat();
    let text = std::str::from_utf8(&block)
        .map_err(|_| Bad::new(BadKind::Bad, "the clearsigned block is not UTF-8 text"))?;
    let (msg, _) = CleartextSignedMessage::from_string(text).map_err(|e| {
        let why = super::brief(&e, "not OpenPGP's cleartext signature framework");
        Bad::new(BadKind::Bad, format!("malformed clearsigned message: {why}"))
    })?;
    // What was hashed: dash-escaping undone, trailing blanks dropped, CRLF
    // line ends (RFC 9580 §7.2); the same lines are the ones checked.
    let signed = msg.signed_text();
    let good = check_all(msg.signatures(), signed.as_bytes(), key, need)?;
    let mut checked = signed.replace("\r\n", "\n").into_bytes();
    if !checked.is_empty() {
        checked.push(b'\n');
    }
    Ok(Good {
        text: Some(checked),
        ignored_lines: ignored,
        ..good
    })
}
