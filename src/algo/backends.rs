//! The backends: one adapter per implementation behind the [`Hasher`] trait.
//!
//! SHA-1, SHA-2 and MD5 come from RustCrypto (which picks SHA-NI / ARMv8 SHA /
//! AVX2 itself at run time), BLAKE2b from blake2b_simd (AVX2 / SSE4.1),
//! SHA-3 and SM3 from RustCrypto, the POSIX CRC from crc-fast (PCLMULQDQ /
//! PMULL folding), zlib's CRC-32 from crc32fast. The portable CRC and the
//! `sum` checksums are mhash's own, small and table-driven.

use super::cpu::{self, Feature};
use super::{AlgoKind, Algorithm};

/// A streaming digest computation: feed bytes, then finish once.
pub trait Hasher: Send {
    /// Feeds the next `data` bytes of the message.
    fn update(&mut self, data: &[u8]);
    /// Finishes and returns the digest bytes: `Algorithm::digest_len()` bytes;
    /// for the CRCs the 32-bit value big-endian, for sysv/bsd the 16-bit
    /// checksum big-endian (the bytes GNU `cksum --raw` writes).
    fn finalize(self: Box<Self>) -> Vec<u8>;
}

/// Adapter over any RustCrypto `digest 0.11` hasher.
struct RustCrypto<D>(D);

impl<D: sha2::digest::Digest + Send> Hasher for RustCrypto<D> {
    fn update(&mut self, data: &[u8]) {
        sha2::digest::Digest::update(&mut self.0, data);
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        self.0.finalize().to_vec()
    }
}

struct Blake2b(blake2b_simd::State);

impl Hasher for Blake2b {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        self.0.finalize().as_bytes().to_vec()
    }
}

/// The POSIX `cksum` CRC: CRC-32/CKSUM over the data, then over the data
/// length in bytes, least-significant byte first, as few bytes as needed
/// (POSIX.1-2017 cksum; GNU coreutils cksum.c).
struct PosixCrc {
    state: CrcState,
    len: u64,
}

enum CrcState {
    Fast(Box<crc_fast::Digest>),
    Table(u32),
}

/// CRC-32/CKSUM table (poly 0x04C11DB7, MSB first), built at compile time.
const CKSUM_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = (i as u32) << 24;
        let mut k = 0;
        while k < 8 {
            c = if c & 0x8000_0000 != 0 {
                (c << 1) ^ 0x04C1_1DB7
            } else {
                c << 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

fn cksum_table_update(mut crc: u32, data: &[u8]) -> u32 {
    for &b in data {
        crc = (crc << 8) ^ CKSUM_TABLE[((crc >> 24) as u8 ^ b) as usize];
    }
    crc
}

impl PosixCrc {
    fn new() -> PosixCrc {
        let state = if Feature::Pclmul.enabled() || Feature::ArmPmull.enabled() {
            CrcState::Fast(Box::new(crc_fast::Digest::new(
                crc_fast::CrcAlgorithm::Crc32Cksum,
            )))
        } else {
            CrcState::Table(0)
        };
        PosixCrc { state, len: 0 }
    }
    fn feed(&mut self, data: &[u8]) {
        match &mut self.state {
            CrcState::Fast(d) => d.update(data),
            CrcState::Table(c) => *c = cksum_table_update(*c, data),
        }
    }
}

impl Hasher for PosixCrc {
    fn update(&mut self, data: &[u8]) {
        self.len += data.len() as u64;
        self.feed(data);
    }
    fn finalize(mut self: Box<Self>) -> Vec<u8> {
        let mut n = self.len;
        let mut tail = [0u8; 8];
        let mut k = 0;
        while n > 0 {
            tail[k] = n as u8;
            n >>= 8;
            k += 1;
        }
        self.feed(&tail[..k]);
        let crc = match self.state {
            // crc-fast applies the final inversion itself.
            CrcState::Fast(d) => d.finalize() as u32,
            CrcState::Table(c) => !c,
        };
        crc.to_be_bytes().to_vec()
    }
}

struct Crc32b(crc32fast::Hasher);

impl Hasher for Crc32b {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        self.0.finalize().to_be_bytes().to_vec()
    }
}

/// `sum -s`: System V checksum (GNU coreutils sum.c `sysv_sum_stream`).
struct Sysv(u32);

impl Hasher for Sysv {
    fn update(&mut self, data: &[u8]) {
        for &b in data {
            self.0 = self.0.wrapping_add(b as u32);
        }
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        let s = self.0;
        let r = (s & 0xffff) + (s >> 16);
        let sum = (r & 0xffff) + (r >> 16);
        (sum as u16).to_be_bytes().to_vec()
    }
}

/// `sum -r`: BSD rotating checksum (GNU coreutils sum.c `bsd_sum_stream`).
struct Bsd(u32);

impl Hasher for Bsd {
    fn update(&mut self, data: &[u8]) {
        let mut c = self.0;
        for &b in data {
            c = (c >> 1) + ((c & 1) << 15);
            c = (c + b as u32) & 0xffff;
        }
        self.0 = c;
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        (self.0 as u16).to_be_bytes().to_vec()
    }
}

/// Adapter for SM3 (`sm3` 0.5, on `digest 0.10`).
struct Sm3(sm3::Sm3);

impl Hasher for Sm3 {
    fn update(&mut self, data: &[u8]) {
        sm3::Digest::update(&mut self.0, data);
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        sm3::Digest::finalize(self.0).to_vec()
    }
}

fn rc<D: sha2::digest::Digest + Send + 'static>(d: D) -> Box<dyn Hasher> {
    Box::new(RustCrypto(d))
}

/// A fresh hasher for `algo` on the fastest backend available.
pub(super) fn new_hasher(algo: Algorithm) -> Box<dyn Hasher> {
    use sha2::digest::Digest as _;
    match algo.kind {
        AlgoKind::Md5 => rc(md5::Md5::new()),
        AlgoKind::Sha1 => rc(sha1::Sha1::new()),
        AlgoKind::Sha224 => rc(sha2::Sha224::new()),
        AlgoKind::Sha256 => rc(sha2::Sha256::new()),
        AlgoKind::Sha384 => rc(sha2::Sha384::new()),
        AlgoKind::Sha512 => rc(sha2::Sha512::new()),
        AlgoKind::Sha3_224 => rc(sha3::Sha3_224::new()),
        AlgoKind::Sha3_256 => rc(sha3::Sha3_256::new()),
        AlgoKind::Sha3_384 => rc(sha3::Sha3_384::new()),
        AlgoKind::Sha3_512 => rc(sha3::Sha3_512::new()),
        AlgoKind::Sm3 => Box::new(Sm3(<sm3::Sm3 as sm3::Digest>::new())),
        AlgoKind::Blake2b => Box::new(Blake2b(
            blake2b_simd::Params::new()
                .hash_length(algo.digest_len())
                .to_state(),
        )),
        AlgoKind::Crc => Box::new(PosixCrc::new()),
        AlgoKind::Crc32b => Box::new(Crc32b(if cpu::force_portable() {
            crc32fast::Hasher::internal_new_baseline(0, 0)
        } else {
            crc32fast::Hasher::new()
        })),
        AlgoKind::Sysv => Box::new(Sysv(0)),
        AlgoKind::Bsd => Box::new(Bsd(0)),
    }
}

/// The name of the implementation [`new_hasher`] picks for `kind` here.
pub(super) fn backend_name(kind: AlgoKind) -> &'static str {
    let hw = |f: Feature| f.detected();
    match kind {
        AlgoKind::Sha1 | AlgoKind::Sha224 | AlgoKind::Sha256 => {
            if hw(Feature::ShaNi) {
                "sha-ni"
            } else if hw(Feature::ArmSha2) {
                "armv8-sha2"
            } else {
                "portable"
            }
        }
        AlgoKind::Sha384 | AlgoKind::Sha512 => {
            if hw(Feature::Avx2) {
                "avx2"
            } else if hw(Feature::ArmSha3) {
                "armv8-sha512"
            } else {
                "portable"
            }
        }
        AlgoKind::Blake2b => {
            if hw(Feature::Avx2) {
                "avx2"
            } else if hw(Feature::Sse41) {
                "sse4.1"
            } else {
                "portable"
            }
        }
        AlgoKind::Crc => {
            if Feature::Pclmul.enabled() {
                "pclmul"
            } else if Feature::ArmPmull.enabled() {
                "pmull"
            } else {
                "portable"
            }
        }
        AlgoKind::Crc32b => {
            if cpu::force_portable() {
                "portable"
            } else if hw(Feature::Pclmul) {
                "pclmul"
            } else {
                "portable"
            }
        }
        _ => "portable",
    }
}
