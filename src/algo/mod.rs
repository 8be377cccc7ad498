//! The algorithm registry: one enum of every checksum algorithm mhash knows,
//! one table row per algorithm ([`table::TABLE`]: its name, tag, length,
//! specification, GNU release, checksum-file names and backends), and the
//! backend (implementation) chosen for it on this CPU at run time.
//!
//! This module sees bytes only: no paths, no files, no printing, and it
//! imports no other module of the crate. Adding an algorithm is the recipe
//! in [`table`]: a variant, a row, a backend list, known-answer vectors.

mod backends;
pub mod bits;
pub mod calibrate;
pub mod cpu;
mod kernels;
pub mod lanes;
pub mod stores;
pub mod table;

pub use backends::{Backend, Capability, Combine, Hasher, PieceFn, Segment, Tree};
pub use calibrate::{Choice, ChosenBy};
pub use table::{AlgoInfo, Class, Family, GnuSince, Length};

/// The family of a checksum algorithm, as named by `cksum -a` (GNU coreutils
/// 9.11: `sysv bsd crc crc32b md5 sha1 sha2 sha3 blake2b sm3`), with the SHA-2
/// and SHA-3 members spelled out. Declared in the order of GNU cksum's
/// `algorithm_args` list (mhash's own algorithms last), which `-a`'s
/// "Valid arguments" list follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AlgoKind {
    /// `sum -r`: the BSD 16-bit rotating checksum over 1024-byte blocks.
    Bsd,
    /// `sum -s`: the System V 16-bit checksum over 512-byte blocks.
    Sysv,
    /// The POSIX `cksum` CRC (CRC-32/CKSUM over the data, then the length).
    Crc,
    /// zlib's CRC-32 (CRC-32/ISO-HDLC), `cksum -a crc32b` (GNU 9.6+).
    Crc32b,
    /// MD5, RFC 1321.
    Md5,
    /// SHA-1, FIPS 180-4.
    Sha1,
    /// SHA-224, FIPS 180-4.
    Sha224,
    /// SHA-256, FIPS 180-4.
    Sha256,
    /// SHA-384, FIPS 180-4.
    Sha384,
    /// SHA-512, FIPS 180-4.
    Sha512,
    /// SHA3-224, FIPS 202.
    Sha3_224,
    /// SHA3-256, FIPS 202.
    Sha3_256,
    /// SHA3-384, FIPS 202.
    Sha3_384,
    /// SHA3-512, FIPS 202.
    Sha3_512,
    /// BLAKE2b, RFC 7693, with a digest length of 8..=512 bits.
    Blake2b,
    /// SM3, GB/T 32905-2016.
    Sm3,
    /// BLAKE3 (the BLAKE3 specification, 2020), with an extended (XOF)
    /// output of any whole number of bytes; 256 bits by default. Not GNU.
    Blake3,
    /// XXH3, the 64-bit hash of xxHash 0.8 (non-cryptographic). Not GNU.
    Xxh3,
    /// XXH128, the 128-bit hash of xxHash 0.8 (non-cryptographic). Not GNU.
    Xxh128,
    /// CRC-32C (CRC-32/ISCSI, the Castagnoli polynomial 0x1EDC6F41,
    /// reflected, init and xorout 0xFFFFFFFF; RFC 3720 B.4): the checksum
    /// of iSCSI, SCTP, ext4, HDFS, Google Cloud Storage and S3's
    /// `x-amz-checksum-crc32c`. Not GNU.
    Crc32c,
    /// CRC-64/NVME (polynomial 0xAD93D23594C93659, reflected, init and
    /// xorout all ones; NVM Express NVM Command Set 1.0, 5.2.1.3.4; the
    /// Linux kernel's CRC-64/Rocksoft): S3's default `x-amz-checksum-crc64nvme`.
    /// Not GNU.
    Crc64Nvme,
    /// Adler-32 (RFC 1950 8.2, zlib's `adler32`): the checksum that the
    /// data-transfer services of science grids record and compare (CERN
    /// FTS, XRootD, dCache, Globus: `ADLER32:xxxxxxxx`). Not GNU.
    Adler32,
}

/// The digest lengths, in bytes, at which mhash's own face infers an
/// algorithm from a bare digest: those of the standard digests, MD5 (RFC
/// 1321), SHA-1 and SHA-2 (FIPS 180-4), SHA-3 (FIPS 202): 128, 160, 224,
/// 256, 384 and 512 bits, in hex or in base64 of exactly that length.
/// A digest of another length is written tagged by the native face, so
/// that `mhash -c` reads its own output.
pub const STANDARD_DIGEST_LENGTHS: [usize; 6] = [16, 20, 28, 32, 48, 64];

/// The longest BLAKE3 output mhash writes, in bytes (16 MiB: b3sum
/// accepts any `u64`; mhash keeps digests in memory).
pub const BLAKE3_MAX_BYTES: u64 = 1 << 24;

/// An algorithm with its digest length fixed: what a checksum line names.
///
/// `bits` is the digest length in bits; it differs from the kind's natural
/// length only for BLAKE2b (`-l`, a multiple of 8 in 8..=512).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Algorithm {
    /// Which algorithm.
    pub kind: AlgoKind,
    /// Digest length in bits (16 for sysv/bsd, 32 for the 32-bit CRCs, 64
    /// for CRC-64/NVME).
    pub bits: u32,
}

impl AlgoKind {
    /// Every kind, in the order `mhash -c` tries tags (longest tag first where
    /// one tag is a prefix of another).
    pub const ALL: [AlgoKind; 22] = [
        AlgoKind::Sha3_224,
        AlgoKind::Sha3_256,
        AlgoKind::Sha3_384,
        AlgoKind::Sha3_512,
        AlgoKind::Sha224,
        AlgoKind::Sha256,
        AlgoKind::Sha384,
        AlgoKind::Sha512,
        AlgoKind::Sha1,
        AlgoKind::Md5,
        AlgoKind::Blake2b,
        AlgoKind::Sm3,
        AlgoKind::Blake3,
        AlgoKind::Xxh128,
        AlgoKind::Xxh3,
        AlgoKind::Crc64Nvme,
        AlgoKind::Crc32c,
        AlgoKind::Adler32,
        AlgoKind::Crc32b,
        AlgoKind::Crc,
        AlgoKind::Sysv,
        AlgoKind::Bsd,
    ];

    /// Every kind in the order of its declaration (GNU cksum's
    /// `algorithm_args` order, mhash's own last).
    pub fn declared() -> Vec<AlgoKind> {
        let mut v = AlgoKind::ALL.to_vec();
        v.sort();
        v
    }

    /// The natural (maximum) digest length in bits.
    pub fn max_bits(self) -> u32 {
        self.info().bits
    }

    /// The name `mhash -a` and `mhash backends` use (`sha256`, `sha3-256`).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The BSD tag GNU prints with `--tag` (`SHA256`, `SHA3-256`, `BLAKE2b`),
    /// or `None` for the CRC and sum algorithms, which have no tagged form.
    pub fn tag(self) -> Option<&'static str> {
        self.info().tag
    }

    /// True for the algorithms GNU coreutils has (the GNU-named
    /// personalities never see the others: BLAKE3, XXH3, XXH128, CRC-32C,
    /// CRC-64/NVME).
    pub fn is_gnu(self) -> bool {
        self.info().gnu.is_some()
    }

    /// True for the cryptographic hashes (not the CRCs, `sum` checksums
    /// or xxHash), as `mhash bench` sorts them.
    pub fn is_cryptographic(self) -> bool {
        self.info().class == Class::Cryptographic
    }

    /// True when the digest length can be chosen: BLAKE2b (`-l BITS`,
    /// 8..=512) and BLAKE3 (any whole number of bytes, its XOF).
    pub fn variable_length(self) -> bool {
        self.info().length != Length::Fixed
    }

    /// True for the algorithms printed as `CHECKSUM SIZE NAME` (GNU cksum's
    /// legacy format) rather than as a hex digest line.
    pub fn is_legacy(self) -> bool {
        self.info().class == Class::Legacy
    }

    /// Looks up a kind by its [`name`](Self::name); `None` if unknown.
    pub fn from_name(name: &str) -> Option<AlgoKind> {
        AlgoKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl Algorithm {
    /// The algorithm at its natural digest length.
    pub fn new(kind: AlgoKind) -> Algorithm {
        Algorithm {
            kind,
            bits: kind.max_bits(),
        }
    }

    /// BLAKE2b with a digest of `bits` bits.
    ///
    /// # Panics
    /// Never; callers validate `bits` first (a multiple of 8 in 8..=512,
    /// GNU coreutils b2sum `-l`), and out-of-range values are clamped.
    pub fn blake2b(bits: u32) -> Algorithm {
        let bits = bits.clamp(8, 512) / 8 * 8;
        Algorithm {
            kind: AlgoKind::Blake2b,
            bits,
        }
    }

    /// BLAKE3 with an output of `bytes` bytes (its XOF; b3sum `--length`).
    /// `bytes` is clamped to 1..=[`BLAKE3_MAX_BYTES`].
    pub fn blake3(bytes: u64) -> Algorithm {
        Algorithm {
            kind: AlgoKind::Blake3,
            bits: bytes.clamp(1, BLAKE3_MAX_BYTES) as u32 * 8,
        }
    }

    /// The name `--json`, `--debug` and `mhash bench` print: the `-a` name,
    /// with the length for a non-natural one (`blake2b-256`, `blake3-512`),
    /// as [`tag`](Self::tag) has it (`BLAKE2b-256`, `BLAKE3-512`).
    pub fn name(self) -> String {
        if self.kind.variable_length() && self.bits != self.kind.max_bits() {
            format!("{}-{}", self.kind.name(), self.bits)
        } else {
            self.kind.name().to_string()
        }
    }

    /// Digest length in bytes (`bits / 8`).
    pub fn digest_len(self) -> usize {
        (self.bits / 8) as usize
    }

    /// The BSD tag for `--tag` output and tagged check lines: `BLAKE2b-128`
    /// for a shortened BLAKE2b, else [`AlgoKind::tag`].
    pub fn tag(self) -> Option<String> {
        let base = self.kind.tag()?;
        if self.kind.variable_length() && self.bits != self.kind.max_bits() {
            Some(format!("{base}-{}", self.bits))
        } else {
            Some(base.to_string())
        }
    }

    /// A fresh streaming hasher using the fastest backend for this CPU.
    pub fn hasher(self) -> Box<dyn Hasher> {
        self.backend().hasher(self)
    }

    /// Computes the digest of `data` in one call (for tests and benchmarks).
    pub fn digest(self, data: &[u8]) -> Vec<u8> {
        let mut h = self.hasher();
        h.update(data);
        h.finalize()
    }

    /// The backend [`hasher`](Self::hasher) uses on this CPU: the one
    /// `MHASH_BACKEND` names, else the one measured fastest for a large
    /// input ([`prepare_for`](Self::prepare_for)), else the first
    /// available entry of [`backends`](Self::backends); its name is e.g.
    /// `sha-ni`, `avx512-vpclmulqdq`, `avx2`, `tuned-scalar`, `portable`.
    pub fn backend(self) -> &'static Backend {
        backends::chosen(self.kind)
    }

    /// [`backend`](Self::backend) and how it was chosen: by the table's
    /// order, by `MHASH_BACKEND`, or by measurement (with the figures).
    pub fn choice(self) -> Choice {
        backends::choice(self.kind)
    }

    /// Prepares for an input of `bytes` bytes: where it is large enough
    /// (see [`calibrate`]), times every usable backend once per algorithm
    /// and process, and makes the fastest the one [`hasher`](Self::hasher)
    /// uses from then on. Returns true when a measured choice is in
    /// effect; `MHASH_BACKEND=NAME` still wins over it.
    pub fn prepare_for(self, bytes: u64) -> bool {
        if cpu::forced_backend()
            .is_some_and(|n| self.backends().iter().any(|b| b.name() == n && b.is_available()))
        {
            return false;
        }
        calibrate::calibrate(self, bytes).is_some()
    }

    /// Prepares for the next input of a run, `size` bytes where known:
    /// as [`prepare_for`](Self::prepare_for), weighed against the input
    /// and what the run has hashed with this algorithm before it
    /// ([`note_hashed`](Self::note_hashed); see
    /// [`calibrate::run_bytes`]), so that a run of many small files has
    /// its backends timed once it is as long as one large input that
    /// would be. An input of unknown size counts only under
    /// `MHASH_CALIBRATE`'s default mode. Returns true when this call made
    /// the measured choice: a hasher made before it may run on a backend
    /// no longer chosen.
    pub fn prepare_for_input(self, size: Option<u64>) -> bool {
        if calibrate::calibrated(self.kind).is_some()
            || (size.is_none() && calibrate::mode() != calibrate::Mode::Auto)
        {
            return false;
        }
        self.prepare_for(calibrate::run_bytes(size, calibrate::hashed(self.kind)))
    }

    /// Counts `bytes` of input hashed with this algorithm, for
    /// [`prepare_for_input`](Self::prepare_for_input).
    pub fn note_hashed(self, bytes: u64) {
        // Once a choice is measured, no later input needs the count.
        if calibrate::calibrated(self.kind).is_none() {
            calibrate::note_hashed(self.kind, bytes);
        }
    }

    /// Every implementation of this algorithm, fastest first, whether or
    /// not this CPU can run it (see [`Backend::is_available`]); the last
    /// one is portable and always available.
    pub fn backends(self) -> &'static [Backend] {
        self.kind.info().backends
    }
}
