//! What check mode accepts, decided once per checksum file from the
//! configuration: which tags and untagged lines a line may use
//! ([`expectations`]), the algorithm a checksum file's name implies
//! ([`algorithm_from_file_name`]), and the type name GNU puts in its
//! "improperly formatted" warning ([`digest_type_string`]).

use super::parse::{Expect, TagRule};
use crate::algo::{AlgoKind, Algorithm, Family};
use crate::config::{CheckJob, Dialect};

/// The algorithm a checksum file's name implies (mhash only), case-blind:
/// a stem of the algorithm table's `file_stems` (`sha256`, `md5`, `b2`,
/// `blake3`, ...) standing as a word of the base name, alone or followed
/// by `sum`/`sums`: `SHA256SUMS`, `sha256sums.txt`, `SHA256SUMS.txt`,
/// `sha256.txt`, `x.sha256`, `x.sha256sum`, `x.sha256.txt`, `SHA256`
/// (OpenBSD), `terraform_1.9.0_SHA256SUMS` (HashiCorp),
/// `CHECKSUM.SHA256-FreeBSD-14.1-RELEASE-amd64` (FreeBSD), `B2SUMS`,
/// `b3sums`, and Node.js's `SHASUMS256.txt` (`shasumsN` is SHA-N). A
/// signature's or armor's suffix (`.asc`, `.sig`, `.gpg`, `.minisig`) is
/// looked through. A name with no algorithm in it (`checksums.txt`,
/// `CHECKSUMS`, `SUMS`) decides nothing.
pub fn algorithm_from_file_name(name: &[u8]) -> Option<Algorithm> {
    let base = name.rsplit(|&b| b == b'/').next().unwrap_or(name);
    let mut base = String::from_utf8_lossy(base).to_ascii_lowercase();
    for suffix in [".asc", ".sig", ".gpg", ".minisig"] {
        if let Some(b) = base.strip_suffix(suffix) {
            base = b.to_string();
        }
    }
    // Node.js: SHASUMS256.txt, SHASUMS1 ...
    if let Some(rest) = base.strip_prefix("shasums") {
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let kind = AlgoKind::from_name(&format!("sha{digits}"));
        if !digits.is_empty() && kind.is_some() {
            return kind.map(Algorithm::new);
        }
    }
    // The stems, longest first (`sha3-256` before `sha3`... and `b2` last
    // among those it could be part of), each tried as a word.
    let mut stems: Vec<(&str, AlgoKind)> = AlgoKind::ALL
        .into_iter()
        .flat_map(|k| k.info().file_stems.iter().map(move |s| (*s, k)))
        .collect();
    stems.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));
    let bytes = base.as_bytes();
    let boundary = |b: Option<&u8>| b.is_none_or(|c| matches!(c, b'.' | b'_' | b'-' | b' '));
    for (stem, kind) in stems {
        for (at, _) in base.match_indices(stem) {
            if at > 0 && !boundary(bytes.get(at - 1)) {
                continue;
            }
            let after = &base[at + stem.len()..];
            let after = after
                .strip_prefix("sums")
                .or_else(|| after.strip_prefix("sum"))
                .unwrap_or(after);
            if boundary(after.as_bytes().first()) {
                return Some(Algorithm::new(kind));
            }
        }
    }
    None
}

/// Every algorithm whose tag `job`'s checksum lines may carry: GNU's for a
/// GNU personality at its release (GNU 9.1's cksum has no SHA-3), all of
/// them for mhash.
fn all_tags(job: &CheckJob) -> Vec<AlgoKind> {
    AlgoKind::ALL
        .into_iter()
        .filter(|k| k.tag().is_some())
        .filter(|k| match k.info().gnu {
            // mhash's own algorithms: the native face only.
            None => job.dialect == Dialect::Native,
            Some(since) => since <= job.gnu_level,
        })
        .collect()
}

/// True when untagged lines of `checkfile` take their algorithm from its
/// name (mhash without `-a`).
pub fn untagged_from_file_name(job: &CheckJob, checkfile: &[u8]) -> bool {
    job.dialect == Dialect::Native
        && job.family.is_empty()
        && job.algo.is_none()
        && algorithm_from_file_name(checkfile).is_some()
}

/// What the lines of the checksum file `checkfile` may use.
pub fn expectations(job: &CheckJob, checkfile: &[u8]) -> Expect {
    let given: Vec<AlgoKind> = if !job.family.is_empty() {
        job.family.clone()
    } else if let (Dialect::Cksum, Some(n), Some(a)) = (job.dialect, job.family_name, job.algo) {
        // `-a sha2 -l 256`: tagged lines may still name any SHA-2 (GNU 9.11).
        let f = if n == "SHA2" { Family::Sha2 } else { Family::Sha3 };
        let mut v = f.members();
        v.retain(|k| *k != a.kind);
        v.insert(0, a.kind);
        v
    } else {
        job.algo.map(|a| vec![a.kind]).unwrap_or_default()
    };
    if job.dialect == Dialect::Single {
        let a = job.algo.unwrap_or_else(|| Algorithm::new(AlgoKind::Sha256));
        let b2 = a.kind == AlgoKind::Blake2b;
        return Expect {
            tag_rule: if b2 { TagRule::AnyChar } else { TagRule::Strict },
            tag_kinds: vec![a.kind],
            untagged: Some(a),
            blake2b_auto_length: b2,
            family_auto_length: false,
            infer_by_length: false,
            base64: job.base64,
            short_lines: b2,
            length_needs_digit: job.gnu_level >= crate::algo::GnuSince::V9_4,
            lines_9_11: job.lines_9_11,
            base64_first: false,
            lines_8_32: job.lines_8_32,
            sha2_switch: false,
            family_tags: false,
            other_tags_improper: false,
            strict_inference: false,
            carry_length: false,
        };
    }
    let native = job.dialect == Dialect::Native;
    let untagged = match job.family.is_empty() {
        true if native => job.algo.or_else(|| algorithm_from_file_name(checkfile)),
        true => job.algo,
        false => None,
    };
    Expect {
        tag_rule: if given.is_empty() {
            TagRule::Blank
        } else {
            TagRule::AnyChar
        },
        tag_kinds: if given.is_empty() { all_tags(job) } else { given },
        untagged,
        blake2b_auto_length: true,
        family_auto_length: job.dialect == Dialect::Cksum && job.family_name.is_some() && job.algo.is_some(),
        infer_by_length: native || (untagged.is_none() && !job.family.is_empty()),
        base64: job.base64,
        short_lines: true,
        length_needs_digit: job.gnu_level >= crate::algo::GnuSince::V9_4,
        lines_9_11: job.lines_9_11,
        base64_first: job.base64 && job.dialect == Dialect::Cksum,
        lines_8_32: job.lines_8_32,
        sha2_switch: job.dialect == Dialect::Cksum && job.family_name == Some("SHA2"),
        family_tags: !(job.dialect == Dialect::Cksum && job.algo.is_some() && job.family_name.is_none()),
        other_tags_improper: native,
        strict_inference: native,
        carry_length: job.dialect == Dialect::Cksum
            && job.lines_9_11
            && (job.algo.is_some() || job.family_name.is_some()),
    }
}

/// GNU 8.32's b2sum reading of a tag: after `BLAKE2` the word runs to a
/// blank, `-` or `(`, and must be what `argmatch` takes for `BLAKE2b`
/// (`BLAKE2` or `BLAKE2b`); the character ending it is then overwritten
/// (a `(` kept). Returns the line with the tag spelled `BLAKE2b` for the
/// 9.1 reading (which overwrites the character after the tag) to go on
/// with, `None` for a line without the tag.
///
/// # Errors
/// [`super::parse::LineError::Malformed`] for another word (`BLAKE2bx`, `BLAKE2s`).
pub fn b2sum_tag_8_32(l: &[u8]) -> Result<Option<Vec<u8>>, super::parse::LineError> {
    let mut i = l.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    if l.get(i) == Some(&b'\\') {
        i += 1;
    }
    if !l[i..].starts_with(b"BLAKE2") {
        return Ok(None);
    }
    let start = i;
    let end = start
        + l[start..]
            .iter()
            .take_while(|&&b| b != 0 && b != b' ' && b != b'\t' && b != b'-' && b != b'(')
            .count();
    let word = &l[start..end];
    if word != b"BLAKE2" && word != b"BLAKE2b" {
        return Err(super::parse::LineError::Malformed);
    }
    let mut v = Vec::with_capacity(l.len() + 1);
    v.extend_from_slice(&l[..start]);
    v.extend_from_slice(b"BLAKE2b");
    v.extend_from_slice(&l[end..]);
    Ok(Some(v))
}

/// GNU 8.32's `DIGEST_TYPE_STRING` with a blank after it (`MD5 `,
/// `SHA256 `, `BLAKE2 `), as "no properly formatted MD5 checksum lines
/// found" and "improperly formatted MD5 checksum line" name it.
pub fn type_string_8_32(job: &CheckJob) -> String {
    match job.algo {
        Some(a) if a.kind == AlgoKind::Blake2b => "BLAKE2 ".to_string(),
        _ => digest_type_string(job, None),
    }
}

/// The type name in "improperly formatted %s checksum line": for cksum
/// without `-a`, the tag of the last tagged line read (GNU switches its
/// global algorithm on each tag, across checksum files).
pub fn digest_type_string(job: &CheckJob, last_tag: Option<&str>) -> String {
    if job.dialect == Dialect::Cksum
        && job.algo.is_none()
        && job.family.is_empty()
        && let Some(t) = last_tag
    {
        return format!("{t} ");
    }
    if job.dialect == Dialect::Cksum
        && let Some(n) = job.family_name
    {
        // A tag switches `-a sha2` (SHA256) or names the family (SHA2-256).
        return format!("{} ", last_tag.unwrap_or(n));
    }
    match job.algo {
        Some(a) if a.kind == AlgoKind::Blake2b => "BLAKE2b ".to_string(),
        Some(a) => format!(
            "{} ",
            a.tag().unwrap_or_else(|| a.kind.name().to_ascii_uppercase())
        ),
        None if job.family.contains(&AlgoKind::Sha256) => "SHA2 ".to_string(),
        None if job.family.contains(&AlgoKind::Sha3_256) => "SHA3 ".to_string(),
        None if job.dialect == Dialect::Cksum => "CRC ".to_string(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_imply_algorithms() {
        let k = |n: &str| algorithm_from_file_name(n.as_bytes()).map(|a| a.kind);
        // The names real projects publish under.
        for (name, kind) in [
            ("SHA256SUMS", AlgoKind::Sha256),
            ("dist/MD5SUMS", AlgoKind::Md5),
            ("foo.tar.gz.sha512", AlgoKind::Sha512),
            ("B2SUMS", AlgoKind::Blake2b),
            ("b2sums.txt", AlgoKind::Blake2b),
            ("x.sha1sum", AlgoKind::Sha1),
            ("sha256sums.txt", AlgoKind::Sha256),
            ("SHA256SUMS.txt", AlgoKind::Sha256),
            ("SHASUMS256.txt", AlgoKind::Sha256),
            ("SHASUMS256.txt.asc", AlgoKind::Sha256),
            ("terraform_1.9.0_SHA256SUMS", AlgoKind::Sha256),
            ("terraform_1.9.0_SHA256SUMS.sig", AlgoKind::Sha256),
            ("x.sha256", AlgoKind::Sha256),
            ("x.sha256sum", AlgoKind::Sha256),
            ("x.sha256.txt", AlgoKind::Sha256),
            ("sha256.txt", AlgoKind::Sha256),
            ("SHA256", AlgoKind::Sha256),
            ("CHECKSUM.SHA256-FreeBSD-14.1-RELEASE-amd64", AlgoKind::Sha256),
            ("CHECKSUM.SHA512-FreeBSD-14.1-RELEASE-amd64", AlgoKind::Sha512),
            ("md5sums.txt", AlgoKind::Md5),
            ("x.md5", AlgoKind::Md5),
            ("x.b3", AlgoKind::Blake3),
            ("b3sums", AlgoKind::Blake3),
            ("SHA512SUMS", AlgoKind::Sha512),
            ("l5.sha512", AlgoKind::Sha512),
            ("x.sha3-256", AlgoKind::Sha3_256),
            ("SHA3-256SUMS", AlgoKind::Sha3_256),
            ("x.xxh128", AlgoKind::Xxh128),
            ("kubectl.sha256", AlgoKind::Sha256),
        ] {
            assert_eq!(k(name), Some(kind), "{name}");
        }
        for name in [
            "checksums.txt",
            "CHECKSUMS",
            "SUMS",
            "l5.txt",
            "mysha256tool.txt",
            "md5x",
        ] {
            assert_eq!(k(name), None, "{name}");
        }
    }

    #[test]
    fn every_file_stem_in_the_table_names_its_algorithm() {
        for kind in AlgoKind::ALL {
            for stem in kind.info().file_stems {
                let upper = format!("{}SUMS", stem.to_ascii_uppercase());
                assert_eq!(
                    algorithm_from_file_name(upper.as_bytes()).map(|a| a.kind),
                    Some(kind)
                );
                let ext = format!("x.{stem}");
                assert_eq!(
                    algorithm_from_file_name(ext.as_bytes()).map(|a| a.kind),
                    Some(kind)
                );
            }
        }
    }
}
