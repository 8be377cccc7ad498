//! minisign and signify: Ed25519 with a key number.
//!
//! Both write a public key as `untrusted comment: ...` and the base64 of
//! `Ed` + 8-byte key number + 32-byte key (42 bytes). A signify signature
//! is `untrusted comment: ...` and the base64 of `Ed` + key number +
//! 64-byte Ed25519 signature over the message (74 bytes; OpenBSD signify.c,
//! `struct sig`); an embedded one (`signify -S -e`) has the message after
//! those two lines. A minisign signature adds `trusted comment: ...` and a
//! global signature over the signature and that comment (minisign's
//! SIGNATURE format); minisign-verify checks it. Key numbers are shown as
//! minisign shows them: the 8 bytes as a little-endian number in
//! upper-case hex, with no leading zeros (minisign's `%" PRIX64`).

use super::{Bad, BadKind, Format, Good, Place, b64, trim_cr};

/// A raw Ed25519 public key of the two formats, parsed from a key file.
struct EdKey {
    keynum: [u8; 8],
    key: [u8; 32],
    /// The file's base64 line (what minisign-verify parses).
    line: String,
}

/// The key number as minisign prints it.
fn keynum_hex(k: &[u8; 8]) -> String {
    format!("{:X}", u64::from_le_bytes(*k))
}

/// Reads a minisign/signify public key: an `untrusted comment:` line and
/// the base64 line, or the base64 line alone (`minisign -P`).
fn parse_key(key: &[u8], what: Format) -> Result<EdKey, Bad> {
    let not = |why: &str| {
        Bad::new(
            BadKind::Unsupported,
            format!("the key file is not a {} public key ({why})", what.name()),
        )
    };
    let text = std::str::from_utf8(key).map_err(|_| not("not text"))?;
    let line = text
        .lines()
        .map(|l| l.trim())
        .find(|l| !l.is_empty() && !l.starts_with("untrusted comment:"))
        .ok_or_else(|| not("no key line"))?;
    let bin = b64(line.as_bytes()).ok_or_else(|| not("its key line is not base64"))?;
    if bin.len() != 42 || !bin.starts_with(b"Ed") {
        return Err(not("its key line is not Ed, a key number and a 32-byte key"));
    }
    let mut keynum = [0; 8];
    keynum.copy_from_slice(&bin[2..10]);
    let mut k = [0; 32];
    k.copy_from_slice(&bin[10..42]);
    Ok(EdKey {
        keynum,
        key: k,
        line: line.to_string(),
    })
}

/// Verifies a minisign signature (`sig`, the `.minisig` file) over `content`.
pub(super) fn verify_minisign(content: &[u8], sig: &[u8], key: &[u8]) -> Result<Good, Bad> {
    let k = parse_key(key, Format::Minisign)?;
    let id = keynum_hex(&k.keynum);
    // Told minisign by its lines, then not readable as minisign: a
    // malformed signature, BAD.
    let text = std::str::from_utf8(sig)
        .map_err(|_| Bad::new(BadKind::Bad, "malformed minisign signature: not text").key(id.clone()))?;
    let s = minisign_verify::Signature::decode(text)
        .map_err(|e| Bad::new(BadKind::Bad, minisign_malformed(&e)).key(id.clone()))?;
    // The key number the signature names (its second line, bytes 2..10).
    let signed_by = text
        .lines()
        .nth(1)
        .and_then(|l| b64(l.as_bytes()))
        .filter(|b| b.len() == 74)
        .map(|b| {
            let mut n = [0; 8];
            n.copy_from_slice(&b[2..10]);
            n
        });
    if let Some(n) = signed_by.filter(|n| *n != k.keynum) {
        return Err(Bad::new(
            BadKind::UnknownKey,
            format!("made by key {}, the key file holds key {id}", keynum_hex(&n)),
        )
        .key(keynum_hex(&n)));
    }
    let pk = minisign_verify::PublicKey::from_base64(&k.line).map_err(|_| {
        Bad::new(BadKind::Unsupported, "the key file is not a minisign public key").key(id.clone())
    })?;
    // Legacy (non-prehashed `Ed`) signatures are accepted, as minisign
    // 0.11 -V accepts them.
    pk.verify(content, &s, true).map_err(|e| {
        let (kind, cause) = match e {
            minisign_verify::Error::UnexpectedKeyId => (
                BadKind::UnknownKey,
                "made by another key than the key file's".to_string(),
            ),
            minisign_verify::Error::InvalidSignature => {
                (BadKind::Bad, "the signature does not match the file".to_string())
            }
            e => (BadKind::Bad, minisign_malformed(&e)),
        };
        Bad::new(kind, cause).key(id.clone())
    })?;
    Ok(Good {
        format: Format::Minisign,
        place: Place::Inline,
        key_id: id,
        signer: Some(s.trusted_comment().to_string()),
        text: None,
        ignored_lines: 0,
        signatures: Vec::new(),
    })
}

/// Why a signature told minisign by its lines could not be read, in
/// mhash's words (the crate's name no more than the fault).
fn minisign_malformed(e: &minisign_verify::Error) -> String {
    let why = match e {
        minisign_verify::Error::InvalidEncoding => {
            "not a comment, a base64 signature of 74 bytes, a trusted comment and a base64 global signature of 64 bytes"
        }
        minisign_verify::Error::UnsupportedAlgorithm | minisign_verify::Error::UnexpectedAlgorithm => {
            "its algorithm is neither Ed nor ED"
        }
        _ => "not readable",
    };
    format!("malformed minisign signature: {why}")
}

/// A signify signature's two parts: key number and signature. A second
/// line that is not base64 of `Ed`, a key number and 64 bytes is a
/// malformed signature: BAD.
fn parse_signify_sig(b64_line: &[u8]) -> Result<([u8; 8], [u8; 64]), Bad> {
    let bin = b64(trim_cr(b64_line)).ok_or_else(|| {
        Bad::new(
            BadKind::Bad,
            "malformed signify signature: its second line is not base64",
        )
    })?;
    if bin.len() != 74 || !bin.starts_with(b"Ed") {
        return Err(Bad::new(
            BadKind::Bad,
            "malformed signify signature: not Ed, a key number and a 64-byte signature",
        ));
    }
    let mut n = [0; 8];
    n.copy_from_slice(&bin[2..10]);
    let mut s = [0; 64];
    s.copy_from_slice(&bin[10..74]);
    Ok((n, s))
}

/// Ed25519 over `msg` (strict: a non-canonical signature or a small-order
/// key fails), the key numbers compared first as signify does.
fn check_signify(msg: &[u8], keynum: [u8; 8], sig: [u8; 64], key: &[u8]) -> Result<String, Bad> {
    let k = parse_key(key, Format::Signify)?;
    let id = keynum_hex(&k.keynum);
    if keynum != k.keynum {
        return Err(Bad::new(
            BadKind::UnknownKey,
            format!("made by key {}, the key file holds key {id}", keynum_hex(&keynum)),
        )
        .key(keynum_hex(&keynum)));
    }
    let vk = ed25519_dalek::VerifyingKey::from_bytes(&k.key).map_err(|_| {
        Bad::new(BadKind::Unsupported, "the key file's key is not an Ed25519 point").key(id.clone())
    })?;
    let s = ed25519_dalek::Signature::from_bytes(&sig);
    vk.verify_strict(msg, &s)
        .map_err(|_| Bad::new(BadKind::Bad, "the signature does not match the file").key(id.clone()))?;
    Ok(id)
}

/// Verifies a detached signify signature (`signify -S`).
pub(super) fn verify_signify(content: &[u8], sig: &[u8], key: &[u8]) -> Result<Good, Bad> {
    let line = sig
        .split(|&b| b == b'\n')
        .nth(1)
        .ok_or_else(|| Bad::new(BadKind::Bad, "malformed signify signature: no second line"))?;
    let (n, s) = parse_signify_sig(line)?;
    let id = check_signify(content, n, s, key)?;
    Ok(Good {
        format: Format::Signify,
        place: Place::Inline,
        key_id: id,
        signer: None,
        text: None,
        ignored_lines: 0,
        signatures: Vec::new(),
    })
}

/// Verifies a signify embedded signature (`signify -S -e`): the message,
/// returned as the text to check, follows the two signature lines.
pub(super) fn verify_signify_embedded(content: &[u8], key: &[u8]) -> Result<Good, Bad> {
    let mut it = content.splitn(3, |&b| b == b'\n');
    let (_comment, line, msg) = (it.next(), it.next(), it.next());
    let (Some(line), Some(msg)) = (line, msg) else {
        return Err(Bad::new(
            BadKind::Bad,
            "malformed signify signature: no message after the signature lines",
        ));
    };
    let (n, s) = parse_signify_sig(line)?;
    let id = check_signify(msg, n, s, key)?;
    Ok(Good {
        format: Format::Signify,
        place: Place::Inline,
        key_id: id,
        signer: None,
        text: Some(msg.to_vec()),
        ignored_lines: 0,
        signatures: Vec::new(),
    })
}
