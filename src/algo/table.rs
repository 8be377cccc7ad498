//! The algorithm table: one `static` row per algorithm holding every fact
//! about it that the rest of mhash uses. The `-a` names, `--backends`,
//! `--debug` and JSON names, tagged-line tags, checksum-file name
//! inference and inference by digest length are all read from here; a
//! unit test walks [`AlgoKind::ALL`] through each of them.
//!
//! Adding an algorithm: a variant of [`AlgoKind`] (and its place in
//! [`AlgoKind::ALL`]), one row in [`TABLE`], a backend list in
//! `backends.rs` (at least a portable backend), and its known-answer
//! vectors in the tests. Nothing else names algorithms one by one.

use super::AlgoKind;
use super::backends::{self, Backend};

/// What kind of checksum an algorithm is; it decides the line layout and
/// whether a bare digest may be taken for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// A cryptographic hash: tagged and untagged lines, and inferable from
    /// a bare digest's length in `mhash -c`.
    Cryptographic,
    /// A fast non-cryptographic hash (xxHash) or one of mhash's own CRCs
    /// (crc32c, crc64nvme: the digest is the CRC big-endian, as S3 and GCS
    /// encode it): tagged and untagged lines, but never inferred from a
    /// digest's length alone.
    NonCryptographic,
    /// GNU cksum's CRCs and `sum` checksums: printed as `CHECKSUM SIZE NAME`
    /// (GNU cksum.c `output_crc`/`output_bsd`/`output_sysv`), no tag, not
    /// checkable.
    Legacy,
}

/// How a digest's length may be chosen (`-l BITS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    /// The natural length only.
    Fixed,
    /// Any multiple of 8 bits up to the natural length (BLAKE2b, RFC 7693;
    /// GNU b2sum `-l`).
    Truncated,
    /// Any whole number of bytes, the extendable output (BLAKE3's XOF).
    Extendable,
}

/// A family that `cksum -a` names as one (GNU 9.8+), its member chosen by
/// `-l`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// `-a sha2`: SHA-224, SHA-256, SHA-384, SHA-512 (FIPS 180-4).
    Sha2,
    /// `-a sha3`: SHA3-224, SHA3-256, SHA3-384, SHA3-512 (FIPS 202).
    Sha3,
}

impl Family {
    /// The `-a` name: `sha2` or `sha3`.
    pub fn name(self) -> &'static str {
        match self {
            Family::Sha2 => "sha2",
            Family::Sha3 => "sha3",
        }
    }

    /// The members, shortest digest first.
    pub fn members(self) -> Vec<AlgoKind> {
        AlgoKind::ALL
            .into_iter()
            .filter(|k| k.info().family == Some(self))
            .collect()
    }

    /// The member with a digest of `bits` bits, if there is one.
    pub fn member(self, bits: u64) -> Option<AlgoKind> {
        self.members()
            .into_iter()
            .find(|k| u64::from(k.max_bits()) == bits)
    }
}

/// The first GNU coreutils release line, as `MHASH_GNU_COMPAT` names
/// them, whose cksum has the algorithm (`cksum -a NAME`, or a member of
/// `-a sha2` / `-a sha3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum GnuSince {
    /// In GNU 9.1 (cksum -a came with 9.0).
    V9_1,
    /// In the 9.4 line and later, not in 9.1 (crc32b, SHA-3).
    V9_4,
}

/// Every fact about one algorithm.
#[derive(Debug)]
pub struct AlgoInfo {
    /// Which algorithm.
    pub kind: AlgoKind,
    /// The name `-a` takes and `--backends`, `--debug` and `--json` print.
    pub name: &'static str,
    /// The BSD tag of tagged lines (`SHA256 (f) = ...`), `None` for the
    /// legacy checksums, which have no tagged form.
    pub tag: Option<&'static str>,
    /// The natural digest length in bits.
    pub bits: u32,
    /// Where the algorithm is defined.
    pub spec: &'static str,
    /// Legacy, cryptographic or not.
    pub class: Class,
    /// Whether `-l` may choose the digest length.
    pub length: Length,
    /// The `-a sha2` / `-a sha3` family it belongs to, if any.
    pub family: Option<Family>,
    /// The GNU release line that has it, `None` for mhash's own additions
    /// (the GNU personalities never see those).
    pub gnu: Option<GnuSince>,
    /// Checksum-file name stems that name it, lower case: `sha256` stands
    /// for `SHA256SUMS`, `sha256sums.txt`, `x.sha256`, ... (see
    /// `check::rules::algorithm_from_file_name`).
    pub file_stems: &'static [&'static str],
    /// Among the cryptographic algorithms of one digest length, how often
    /// checksum files publish it: 0 the most (`mhash -c` tries a bare
    /// digest as the lowest rank first: sha256, then blake3, sha3-256, sm3).
    pub publish_rank: u8,
    /// What xxhsum writes before an untagged hex digest and reads back as
    /// the algorithm's name (`XXH3_` and 16 hex digits: xxhsum 0.8 `-H3`).
    pub hex_prefix: Option<&'static str>,
    /// Whether a tag may carry a shorter length (`MD5-128 (f) = ...`,
    /// `SHA1-80 (f) = ...`) in GNU cksum's check mode: GNU's tagged
    /// fixed-length algorithms, SHA-3 excepted, whose `SHA3-N` tags name
    /// the variant (GNU cksum.c `split_3` reads a length after any tag).
    pub tag_takes_length: bool,
    /// OpenSSL 3's name of the digest in `openssl dgst` lines
    /// (`SHA2-256(f)= hex`, `BLAKE2B-512(f)= hex`), where it differs from
    /// the tag and mhash reads it.
    pub openssl_name: Option<&'static str>,
    /// Its implementations, fastest first; the last is portable.
    pub backends: &'static [Backend],
}

#[allow(clippy::too_many_arguments)] // one argument per column of the table
const fn row(
    kind: AlgoKind,
    name: &'static str,
    tag: Option<&'static str>,
    bits: u32,
    spec: &'static str,
    class: Class,
    gnu: Option<GnuSince>,
    file_stems: &'static [&'static str],
    backends: &'static [Backend],
) -> AlgoInfo {
    AlgoInfo {
        kind,
        name,
        tag,
        bits,
        spec,
        class,
        length: Length::Fixed,
        family: None,
        gnu,
        file_stems,
        publish_rank: 0,
        hex_prefix: None,
        tag_takes_length: false,
        openssl_name: None,
        backends,
    }
}

use Class::{Cryptographic as C, Legacy as L, NonCryptographic as N};
use GnuSince::{V9_1, V9_4};

/// `rows`, once each row's kind is found to be its index: a row out of
/// place or missing stops the compilation (the table is a `static`, whose
/// initializer is evaluated at compile time).
const fn in_declaration_order(rows: [AlgoInfo; 22]) -> [AlgoInfo; 22] {
    let mut i = 0;
    while i < rows.len() {
        assert!(
            rows[i].kind as usize == i,
            "TABLE's rows follow AlgoKind's declaration order"
        );
        i += 1;
    }
    rows
}

/// The table, in declaration order: `TABLE[kind as usize]` is `kind`'s
/// row, which `in_declaration_order` proves when the program is
/// compiled.
#[rustfmt::skip]
pub static TABLE: [AlgoInfo; 22] = in_declaration_order([
    row(AlgoKind::Bsd, "bsd", None, 16, "BSD sum (GNU sum -r)", L, Some(V9_1), &[], &backends::BSD),
    row(AlgoKind::Sysv, "sysv", None, 16, "System V sum (GNU sum -s)", L, Some(V9_1), &[], &backends::SYSV),
    row(AlgoKind::Crc, "crc", None, 32, "POSIX.1-2017 cksum (CRC-32/CKSUM)", L, Some(V9_1), &[], &backends::CRC),
    row(AlgoKind::Crc32b, "crc32b", None, 32, "CRC-32/ISO-HDLC (zlib crc32)", L, Some(V9_4), &[], &backends::CRC32B),
    AlgoInfo { tag_takes_length: true, ..row(AlgoKind::Md5, "md5", Some("MD5"), 128, "RFC 1321", C, Some(V9_1), &["md5"], &backends::MD5) },
    AlgoInfo { tag_takes_length: true, ..row(AlgoKind::Sha1, "sha1", Some("SHA1"), 160, "FIPS 180-4", C, Some(V9_1), &["sha1"], &backends::SHA1) },
    AlgoInfo { tag_takes_length: true, openssl_name: Some("SHA2-224"), family: Some(Family::Sha2), ..row(AlgoKind::Sha224, "sha224", Some("SHA224"), 224, "FIPS 180-4", C, Some(V9_1), &["sha224"], &backends::SHA256) },
    AlgoInfo { tag_takes_length: true, openssl_name: Some("SHA2-256"), family: Some(Family::Sha2), ..row(AlgoKind::Sha256, "sha256", Some("SHA256"), 256, "FIPS 180-4", C, Some(V9_1), &["sha256"], &backends::SHA256) },
    AlgoInfo { tag_takes_length: true, openssl_name: Some("SHA2-384"), family: Some(Family::Sha2), ..row(AlgoKind::Sha384, "sha384", Some("SHA384"), 384, "FIPS 180-4", C, Some(V9_1), &["sha384"], &backends::SHA512) },
    AlgoInfo { tag_takes_length: true, openssl_name: Some("SHA2-512"), family: Some(Family::Sha2), ..row(AlgoKind::Sha512, "sha512", Some("SHA512"), 512, "FIPS 180-4", C, Some(V9_1), &["sha512"], &backends::SHA512) },
    AlgoInfo { publish_rank: 2, family: Some(Family::Sha3), ..row(AlgoKind::Sha3_224, "sha3-224", Some("SHA3-224"), 224, "FIPS 202", C, Some(V9_4), &["sha3-224"], &backends::SHA3) },
    AlgoInfo { publish_rank: 2, family: Some(Family::Sha3), ..row(AlgoKind::Sha3_256, "sha3-256", Some("SHA3-256"), 256, "FIPS 202", C, Some(V9_4), &["sha3-256"], &backends::SHA3) },
    AlgoInfo { publish_rank: 2, family: Some(Family::Sha3), ..row(AlgoKind::Sha3_384, "sha3-384", Some("SHA3-384"), 384, "FIPS 202", C, Some(V9_4), &["sha3-384"], &backends::SHA3) },
    AlgoInfo { publish_rank: 2, family: Some(Family::Sha3), ..row(AlgoKind::Sha3_512, "sha3-512", Some("SHA3-512"), 512, "FIPS 202", C, Some(V9_4), &["sha3-512"], &backends::SHA3) },
    AlgoInfo {
        publish_rank: 1,
        length: Length::Truncated,
        openssl_name: Some("BLAKE2B-512"),
        ..row(AlgoKind::Blake2b, "blake2b", Some("BLAKE2b"), 512, "RFC 7693", C, Some(V9_1), &["b2", "blake2b", "blake2"], &backends::BLAKE2B)
    },
    AlgoInfo { tag_takes_length: true, publish_rank: 3, ..row(AlgoKind::Sm3, "sm3", Some("SM3"), 256, "GB/T 32905-2016", C, Some(V9_1), &["sm3"], &backends::SM3) },
    AlgoInfo {
        publish_rank: 1,
        length: Length::Extendable,
        ..row(AlgoKind::Blake3, "blake3", Some("BLAKE3"), 256, "the BLAKE3 specification (2020)", C, None, &["b3", "blake3"], &backends::BLAKE3)
    },
    AlgoInfo { hex_prefix: Some("XXH3_"), ..row(AlgoKind::Xxh3, "xxh3", Some("XXH3"), 64, "xxHash 0.8 (XXH3_64bits)", N, None, &["xxh3"], &backends::XXH3) },
    row(AlgoKind::Xxh128, "xxh128", Some("XXH128"), 128, "xxHash 0.8 (XXH3_128bits)", N, None, &["xxh128"], &backends::XXH128),
    row(AlgoKind::Crc32c, "crc32c", Some("CRC32C"), 32, "CRC-32/ISCSI (Castagnoli; RFC 3720 B.4)", N, None, &["crc32c"], &backends::CRC32C),
    row(AlgoKind::Crc64Nvme, "crc64nvme", Some("CRC64NVME"), 64, "CRC-64/NVME (NVM Command Set 1.0; the CRC catalogue)", N, None, &["crc64nvme"], &backends::CRC64NVME),
    row(AlgoKind::Adler32, "adler32", Some("ADLER32"), 32, "Adler-32 (RFC 1950 8.2; zlib adler32)", N, None, &["adler32"], &backends::ADLER32),
]);

impl AlgoKind {
    /// Every kind in the order `--backends` and `mhash -a`'s list show
    /// them: cryptographic, then xxHash, then the legacy checksums; within
    /// each, the declaration's (GNU's) order.
    pub fn report_order() -> Vec<AlgoKind> {
        let mut kinds = AlgoKind::ALL.to_vec();
        kinds.sort_by_key(|k| (k.info().class as u8, *k as u8));
        kinds
    }

    /// This algorithm's row of [`TABLE`].
    pub fn info(self) -> &'static AlgoInfo {
        &TABLE[self as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::Algorithm;

    #[test]
    fn all_lists_every_variant_once() {
        // The match is exhaustive: a new variant fails to compile here
        // until it is added (and then to ALL, or the count fails).
        for k in AlgoKind::ALL {
            match k {
                AlgoKind::Bsd | AlgoKind::Sysv | AlgoKind::Crc | AlgoKind::Crc32b | AlgoKind::Md5 => {}
                AlgoKind::Sha1
                | AlgoKind::Sha224
                | AlgoKind::Sha256
                | AlgoKind::Sha384
                | AlgoKind::Sha512 => {}
                AlgoKind::Sha3_224 | AlgoKind::Sha3_256 | AlgoKind::Sha3_384 | AlgoKind::Sha3_512 => {}
                AlgoKind::Blake2b | AlgoKind::Sm3 | AlgoKind::Blake3 | AlgoKind::Xxh3 | AlgoKind::Xxh128 => {}
                AlgoKind::Crc32c | AlgoKind::Crc64Nvme | AlgoKind::Adler32 => {}
            }
        }
        let mut seen = AlgoKind::declared();
        seen.dedup();
        assert_eq!(seen.len(), AlgoKind::ALL.len());
        assert_eq!(
            AlgoKind::ALL.len(),
            AlgoKind::Adler32 as usize + 1,
            "Adler32 is declared last"
        );
    }

    #[test]
    fn every_kind_has_one_row_at_its_index() {
        assert_eq!(TABLE.len(), AlgoKind::ALL.len());
        for kind in AlgoKind::ALL {
            assert_eq!(kind.info().kind, kind);
        }
    }

    #[test]
    fn every_derived_fact_comes_from_the_row() {
        for kind in AlgoKind::ALL {
            let r = kind.info();
            assert_eq!(kind.name(), r.name);
            assert_eq!(AlgoKind::from_name(r.name), Some(kind));
            assert_eq!(kind.tag(), r.tag);
            assert_eq!(kind.max_bits(), r.bits);
            assert_eq!(kind.is_legacy(), r.class == Class::Legacy);
            assert_eq!(
                kind.is_legacy(),
                r.tag.is_none(),
                "{}: only legacy rows lack a tag",
                r.name
            );
            assert_eq!(kind.is_gnu(), r.gnu.is_some());
            assert!(!r.backends.is_empty());
            assert!(
                r.backends.last().is_some_and(|b| b.is_portable()),
                "{}: last backend portable",
                r.name
            );
            let a = Algorithm::new(kind);
            assert_eq!(a.name(), r.name, "the natural length has the plain name");
            assert_eq!(a.digest_len() * 8, r.bits as usize);
            for stem in r.file_stems {
                assert_eq!(*stem, stem.to_ascii_lowercase());
            }
        }
    }

    #[test]
    fn families_have_their_four_lengths() {
        for f in [Family::Sha2, Family::Sha3] {
            let bits: Vec<u32> = f.members().iter().map(|k| k.max_bits()).collect();
            assert_eq!(bits, [224, 256, 384, 512], "{}", f.name());
        }
        assert_eq!(Family::Sha3.member(256), Some(AlgoKind::Sha3_256));
        assert_eq!(Family::Sha2.member(160), None);
    }

    #[test]
    fn names_and_tags_agree_at_every_length() {
        for (a, name, tag) in [
            (Algorithm::blake2b(256), "blake2b-256", "BLAKE2b-256"),
            (Algorithm::blake3(64), "blake3-512", "BLAKE3-512"),
            (Algorithm::new(AlgoKind::Sha3_256), "sha3-256", "SHA3-256"),
        ] {
            assert_eq!(a.name(), name);
            assert_eq!(a.tag().as_deref(), Some(tag));
        }
    }
}
