//! What check mode accepts, decided once per checksum file from the
//! configuration: which tags and untagged lines a line may use
//! ([`expectations`]), the algorithm a checksum file's name implies
//! ([`algorithm_from_file_name`]), and the type name GNU puts in its
//! "improperly formatted" warning ([`digest_type_string`]).

use super::parse::{self, Expect, TagRule};
use crate::algo::{AlgoKind, Algorithm, Family};
use crate::config::{CheckJob, Dialect};

/// The algorithm a checksum file's name implies (mhash only): `SHA256SUMS`,
/// `foo.sha256`, `MD5SUMS`, `x.md5`, `B2SUMS`, `x.b2`, ... The names are
/// each algorithm's `file_stems` in the algorithm table.
pub fn algorithm_from_file_name(name: &[u8]) -> Option<Algorithm> {
    let base = name.rsplit(|&b| b == b'/').next().unwrap_or(name);
    let base = String::from_utf8_lossy(base).to_ascii_lowercase();
    let stem = base
        .strip_suffix("sums")
        .or_else(|| base.strip_suffix("sum"))
        .unwrap_or("");
    let ext = base
        .rsplit_once('.')
        .map(|(_, e)| e.trim_end_matches("sum"))
        .unwrap_or("");
    [stem, ext]
        .into_iter()
        .filter(|c| !c.is_empty())
        .find_map(|cand| {
            AlgoKind::ALL
                .into_iter()
                .find(|k| k.info().file_stems.contains(&cand))
                .map(Algorithm::new)
        })
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
            infer_by_length: false,
            base64: job.base64,
            short_lines: b2,
            length_needs_digit: job.gnu_level >= crate::algo::GnuSince::V9_4,
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
        infer_by_length: untagged.is_none() && (native || !job.family.is_empty()),
        base64: job.base64,
        short_lines: true,
        length_needs_digit: job.gnu_level >= crate::algo::GnuSince::V9_4,
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
        return format!("{n} ");
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

/// The algorithms a digest of `len` bytes may be, by name, sorted (for
/// the "cannot tell the algorithm" message).
pub fn candidates(len: usize) -> Vec<String> {
    let mut v: Vec<String> = parse::by_length(len)
        .into_iter()
        .map(|a| a.kind.name().to_string())
        .collect();
    v.sort();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_imply_algorithms() {
        let k = |n: &str| algorithm_from_file_name(n.as_bytes()).map(|a| a.kind);
        assert_eq!(k("SHA256SUMS"), Some(AlgoKind::Sha256));
        assert_eq!(k("dist/MD5SUMS"), Some(AlgoKind::Md5));
        assert_eq!(k("foo.tar.gz.sha512"), Some(AlgoKind::Sha512));
        assert_eq!(k("B2SUMS"), Some(AlgoKind::Blake2b));
        assert_eq!(k("x.sha1sum"), Some(AlgoKind::Sha1));
        assert_eq!(k("checksums.txt"), None);
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
