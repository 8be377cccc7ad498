//! The backends: every implementation of every algorithm, behind the
//! [`Hasher`] trait, in a table ordered fastest first; the first one whose
//! CPU features are present (and not turned off) is the one that runs.
//!
//! SHA-1 and SHA-2 come from RustCrypto (SHA-NI / ARMv8 SHA2 / AVX2),
//! BLAKE2b from blake2b_simd (AVX2 / SSE4.1), SHA-3 and SM3 from
//! RustCrypto, the POSIX CRC, CRC-32C and CRC-64/NVME from crc-fast (VPCLMULQDQ / PCLMULQDQ / PMULL
//! folding), zlib's CRC-32 from crc32fast. MD5 (tuned scalar), SHA-384/512
//! on AVX2+BMI2, the portable SHA-1/SHA-2/BLAKE2b fallbacks, the table CRC and the `sum`
//! checksums are mhash's own ([`super::kernels`]), as are the slicing-by-8
//! tables of the portable CRC-32C and CRC-64/NVME.

use super::cpu::{self, Feature};
use super::kernels::{self, Md};
use super::{AlgoKind, Algorithm};
use std::sync::OnceLock;

/// A streaming digest computation: feed bytes, then finish once.
pub trait Hasher: Send {
    /// Feeds the next `data` bytes of the message.
    fn update(&mut self, data: &[u8]);
    /// Finishes and returns the digest bytes: `Algorithm::digest_len()` bytes;
    /// for the CRCs the 32-bit value big-endian, for sysv/bsd the 16-bit
    /// checksum big-endian (the bytes GNU `cksum --raw` writes).
    fn finalize(self: Box<Self>) -> Vec<u8>;
    /// What this hasher can do beyond [`update`](Self::update) and
    /// [`finalize`](Self::finalize), for the I/O layer to use on large
    /// inputs; [`Capability::None`] (the default) for most.
    fn capability(&mut self) -> Capability<'_> {
        Capability::None
    }
}

/// An optional capability of a [`Hasher`].
pub enum Capability<'a> {
    /// Nothing beyond update and finalize.
    None,
    /// A checksum computed in segments and joined (the folding CRCs): one
    /// large input is split across threads.
    Combine(&'a mut dyn Combine),
    /// A tree hash whose [`Tree::update_parallel`] uses every thread of the
    /// current rayon pool (BLAKE3).
    Tree(&'a mut dyn Tree),
    /// Several digests of one input (the I/O layer's multi-digest hasher),
    /// each of which may run on a thread of its own.
    Multi(&'a mut Vec<Box<dyn Hasher>>),
}

/// A checksum that can be computed in pieces and joined.
pub trait Combine: Send {
    /// A fresh hasher for a later segment of the message, hashed
    /// separately (on another thread) and then passed to
    /// [`absorb`](Self::absorb).
    fn segment(&self) -> Box<dyn Segment>;
    /// Appends `seg`, a finished segment made by [`segment`](Self::segment),
    /// as the bytes that follow those hashed so far. Returns false (and
    /// changes nothing) for a segment of another kind.
    fn absorb(&mut self, seg: Box<dyn Segment>) -> bool;
}

/// A segment of a [`Combine`] checksum.
pub trait Segment: Send {
    /// Feeds the segment's next bytes.
    fn update(&mut self, data: &[u8]);
    /// The segment's state, for [`Combine::absorb`] to take back.
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}

/// A tree hash that can hash one large buffer on many threads.
pub trait Tree: Send {
    /// Feeds `data` using every thread of the current rayon pool. Worth it
    /// for large inputs only (a few hundred KiB per call at least).
    fn update_parallel(&mut self, data: &[u8]);
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
    fn new(fast: bool) -> PosixCrc {
        let state = if fast {
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
    fn capability(&mut self) -> Capability<'_> {
        match self.state {
            CrcState::Fast(_) => Capability::Combine(self),
            CrcState::Table(_) => Capability::None,
        }
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

impl Segment for PosixCrc {
    fn update(&mut self, data: &[u8]) {
        Hasher::update(self, data);
    }
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

impl Combine for PosixCrc {
    fn segment(&self) -> Box<dyn Segment> {
        Box::new(PosixCrc::new(true))
    }
    fn absorb(&mut self, seg: Box<dyn Segment>) -> bool {
        let CrcState::Fast(d) = &mut self.state else {
            return false;
        };
        match seg.into_any().downcast::<PosixCrc>() {
            Ok(other) => match other.state {
                CrcState::Fast(o) => {
                    d.combine(&o);
                    self.len += other.len;
                    true
                }
                CrcState::Table(_) => false,
            },
            Err(_) => false,
        }
    }
}

/// A reflected CRC of up to 64 bits (CRC-32/ISCSI, CRC-64/NVME) by
/// slicing-by-8 tables built at compile time: mhash's portable backend
/// for crc32c and crc64nvme. `poly` is the reflected polynomial; init and
/// xorout are all ones of the width (both CRCs' catalogue parameters).
#[derive(Clone)]
struct ReflectedCrc {
    table: &'static [[u64; 256]; 8],
    state: u64,
    width_bytes: usize,
}

/// The eight slicing tables of the reflected CRC with polynomial `poly`.
const fn slicing_tables(poly: u64) -> [[u64; 256]; 8] {
    let mut t = [[0u64; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u64;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ poly } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut j = 1;
    while j < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[j - 1][i];
            t[j][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            i += 1;
        }
        j += 1;
    }
    t
}

/// CRC-32/ISCSI: the polynomial 0x1EDC6F41 reflected.
static CRC32C_TABLES: [[u64; 256]; 8] = slicing_tables(0x82F6_3B78);
/// CRC-64/NVME: the polynomial 0xAD93D23594C93659 reflected.
static CRC64NVME_TABLES: [[u64; 256]; 8] = slicing_tables(0x9A6C_9329_AC4B_C9B5);

impl ReflectedCrc {
    fn crc32c() -> ReflectedCrc {
        ReflectedCrc {
            table: &CRC32C_TABLES,
            state: 0xFFFF_FFFF,
            width_bytes: 4,
        }
    }
    fn crc64nvme() -> ReflectedCrc {
        ReflectedCrc {
            table: &CRC64NVME_TABLES,
            state: u64::MAX,
            width_bytes: 8,
        }
    }
    fn feed(&mut self, data: &[u8]) {
        let t = self.table;
        let mut c = self.state;
        let mut chunks = data.chunks_exact(8);
        for w in &mut chunks {
            let v = c ^ u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
            c = t[7][(v & 0xff) as usize]
                ^ t[6][((v >> 8) & 0xff) as usize]
                ^ t[5][((v >> 16) & 0xff) as usize]
                ^ t[4][((v >> 24) & 0xff) as usize]
                ^ t[3][((v >> 32) & 0xff) as usize]
                ^ t[2][((v >> 40) & 0xff) as usize]
                ^ t[1][((v >> 48) & 0xff) as usize]
                ^ t[0][(v >> 56) as usize];
        }
        for &b in chunks.remainder() {
            c = (c >> 8) ^ t[0][((c ^ b as u64) & 0xff) as usize];
        }
        self.state = c;
    }
    fn value(&self) -> u64 {
        let mask = if self.width_bytes == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * self.width_bytes)) - 1
        };
        !self.state & mask
    }
}

impl Hasher for ReflectedCrc {
    fn update(&mut self, data: &[u8]) {
        self.feed(data);
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        let v = self.value().to_be_bytes();
        v[8 - self.width_bytes..].to_vec()
    }
}

/// crc32c or crc64nvme on crc-fast (VPCLMULQDQ / PCLMULQDQ / PMULL
/// folding); the digest is the CRC big-endian (what S3's
/// `x-amz-checksum-*` headers and GCS's `crc32c` hold, base64-encoded).
struct FastCrc {
    d: Box<crc_fast::Digest>,
    algo: crc_fast::CrcAlgorithm,
    width_bytes: usize,
}

impl FastCrc {
    fn new(algo: crc_fast::CrcAlgorithm, width_bytes: usize) -> FastCrc {
        FastCrc {
            d: Box::new(crc_fast::Digest::new(algo)),
            algo,
            width_bytes,
        }
    }
}

impl Hasher for FastCrc {
    fn update(&mut self, data: &[u8]) {
        self.d.update(data);
    }
    fn capability(&mut self) -> Capability<'_> {
        Capability::Combine(self)
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        let v = self.d.finalize().to_be_bytes();
        v[8 - self.width_bytes..].to_vec()
    }
}

impl Segment for FastCrc {
    fn update(&mut self, data: &[u8]) {
        self.d.update(data);
    }
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

impl Combine for FastCrc {
    fn segment(&self) -> Box<dyn Segment> {
        Box::new(FastCrc::new(self.algo, self.width_bytes))
    }
    fn absorb(&mut self, seg: Box<dyn Segment>) -> bool {
        match seg.into_any().downcast::<FastCrc>() {
            Ok(other) if other.width_bytes == self.width_bytes => {
                self.d.combine(&other.d);
                true
            }
            _ => false,
        }
    }
}

/// CRC-32C of short pieces one after the other (HDFS's CRC per
/// `bytes-per-checksum` chunk): on the backend `--backends` shows for
/// crc32c (crc-fast, or the portable tables under `MHASH_BACKEND=portable`).
pub(super) struct Crc32cChunks(Crc32cState);

enum Crc32cState {
    Fast(Box<crc_fast::Digest>),
    Table(ReflectedCrc),
}

impl Crc32cChunks {
    /// A fresh chunk, on the backend chosen for crc32c here.
    pub(super) fn new() -> Crc32cChunks {
        if chosen(AlgoKind::Crc32c).is_portable() {
            Crc32cChunks(Crc32cState::Table(ReflectedCrc::crc32c()))
        } else {
            Crc32cChunks(Crc32cState::Fast(Box::new(crc_fast::Digest::new(
                crc_fast::CrcAlgorithm::Crc32Iscsi,
            ))))
        }
    }

    /// Feeds the current chunk's next bytes.
    pub fn update(&mut self, data: &[u8]) {
        match &mut self.0 {
            Crc32cState::Fast(d) => d.update(data),
            Crc32cState::Table(t) => t.feed(data),
        }
    }

    /// The current chunk's CRC-32C; the next bytes start a new chunk.
    pub fn finish_reset(&mut self) -> u32 {
        match &mut self.0 {
            Crc32cState::Fast(d) => d.finalize_reset() as u32,
            Crc32cState::Table(t) => {
                let v = t.value() as u32;
                *t = ReflectedCrc::crc32c();
                v
            }
        }
    }
}

impl Default for Crc32cChunks {
    fn default() -> Self {
        Crc32cChunks::new()
    }
}

struct Crc32b(crc32fast::Hasher);

/// A fresh crc32fast hasher on the same implementation (baseline or
/// PCLMULQDQ) as the one it is called on.
trait TapReset {
    fn tap_reset(self) -> Self;
}

impl TapReset for crc32fast::Hasher {
    fn tap_reset(mut self) -> Self {
        self.reset();
        self
    }
}

impl Hasher for Crc32b {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
    fn capability(&mut self) -> Capability<'_> {
        Capability::Combine(self)
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        self.0.finalize().to_be_bytes().to_vec()
    }
}

impl Segment for Crc32b {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

impl Combine for Crc32b {
    fn segment(&self) -> Box<dyn Segment> {
        Box::new(Crc32b(self.0.clone().tap_reset()))
    }
    fn absorb(&mut self, seg: Box<dyn Segment>) -> bool {
        match seg.into_any().downcast::<Crc32b>() {
            Ok(other) => {
                self.0.combine(&other.0);
                true
            }
            Err(_) => false,
        }
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

/// The `blake3` crate's hasher (its own run-time choice of AVX-512, AVX2,
/// SSE4.1, SSE2 or NEON), reading `len` bytes of extended output.
struct Blake3Crate {
    h: blake3::Hasher,
    len: usize,
}

impl Hasher for Blake3Crate {
    fn update(&mut self, data: &[u8]) {
        self.h.update(data);
    }
    fn capability(&mut self) -> Capability<'_> {
        Capability::Tree(self)
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        let mut out = vec![0u8; self.len];
        self.h.finalize_xof().fill(&mut out);
        out
    }
}

impl Tree for Blake3Crate {
    fn update_parallel(&mut self, data: &[u8]) {
        self.h.update_rayon(data);
    }
}

/// XXH3 (64-bit) from twox-hash 2, which picks AVX2, SSE2 or NEON at run
/// time; the digest is the canonical big-endian form xxhsum prints.
struct Xxh3Twox(twox_hash::XxHash3_64);

impl Hasher for Xxh3Twox {
    fn update(&mut self, data: &[u8]) {
        std::hash::Hasher::write(&mut self.0, data);
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        std::hash::Hasher::finish(&self.0).to_be_bytes().to_vec()
    }
}

/// XXH128 from twox-hash 2 (run-time AVX2/SSE2/NEON), big-endian.
struct Xxh128Twox(twox_hash::XxHash3_128);

impl Hasher for Xxh128Twox {
    fn update(&mut self, data: &[u8]) {
        self.0.write(data);
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        self.0.finish_128().to_be_bytes().to_vec()
    }
}

/// XXH3/XXH128 from xxhash-rust 0.8, compiled for the target's baseline
/// (scalar, or SSE2 on x86-64 where it is part of the baseline ISA): the
/// portable fallback.
struct XxhPortable {
    h: xxhash_rust::xxh3::Xxh3,
    wide: bool,
}

impl Hasher for XxhPortable {
    fn update(&mut self, data: &[u8]) {
        self.h.update(data);
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        if self.wide {
            self.h.digest128().to_be_bytes().to_vec()
        } else {
            self.h.digest().to_be_bytes().to_vec()
        }
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

/// One implementation of an algorithm: its name as reports print it, where
/// the code comes from, when it can run, and how to start it.
#[derive(Clone, Copy)]
pub struct Backend {
    name: fn() -> &'static str,
    /// Where the code comes from: `mhash`, or the crate and its version.
    pub source: &'static str,
    available: fn() -> bool,
    make: fn(Algorithm) -> Box<dyn Hasher>,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.name(), self.source)
    }
}

impl Backend {
    /// The backend's short name: the instruction set it relies on
    /// (`sha-ni`, `avx2`, `avx512-vpclmulqdq`, `pclmul`, `armv8-sha2`),
    /// `tuned-scalar`, or `portable`.
    pub fn name(&self) -> &'static str {
        (self.name)()
    }

    /// True when this CPU has what the backend needs and the environment
    /// (`MHASH_BACKEND=portable`, `GLIBC_TUNABLES`) has not turned it off.
    pub fn is_available(&self) -> bool {
        (self.available)()
    }

    /// True for the backends that need no particular CPU feature.
    pub fn is_portable(&self) -> bool {
        self.name() == "portable"
    }

    /// A fresh hasher for `algo` on this backend. Callers check
    /// [`is_available`](Self::is_available) first: a backend whose
    /// instructions the CPU lacks falls back inside its crate, or (for
    /// mhash's own kernels) needs none.
    pub fn hasher(&self, algo: Algorithm) -> Box<dyn Hasher> {
        (self.make)(algo)
    }
}

fn always() -> bool {
    true
}

fn not_forced_portable() -> bool {
    !cpu::force_portable()
}

fn on(f: Feature) -> bool {
    f.enabled()
}

macro_rules! backend {
    ($name:expr, $source:expr, $avail:expr, $make:expr) => {
        Backend {
            name: || $name,
            source: $source,
            available: $avail,
            make: $make,
        }
    };
}

const PORTABLE: &str = "portable";

/// The crc-fast code path on this CPU (`avx512-vpclmulqdq`, `pclmulqdq`, ...).
fn crc_fast_name() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| {
        let t = crc_fast::get_calculator_target(crc_fast::CrcAlgorithm::Crc32Cksum);
        let t = t
            .strip_prefix("x86_64-")
            .or(t.strip_prefix("aarch64-"))
            .unwrap_or(&t);
        t.strip_prefix("sse-").unwrap_or(t).to_string()
    })
}

pub(super) static MD5: [Backend; 2] = [
    backend!("tuned-scalar", "mhash", not_forced_portable, |_| {
        Box::new(Md::new(kernels::md5::Md5::<true>::new(), 16))
    }),
    backend!(PORTABLE, "mhash", always, |_| Box::new(Md::new(
        kernels::md5::Md5::<false>::new(),
        16
    ))),
];

/// mhash's SHA-NI kernel ([`kernels::sha1_shani`]); the portable one
/// where the CPU lacks the SHA extensions (the backend is then not chosen).
fn shani_1(_: Algorithm) -> Box<dyn Hasher> {
    #[cfg(target_arch = "x86_64")]
    if let Some(s) = kernels::sha1_shani::Sha1Ni::new() {
        return Box::new(Md::new(s, 20));
    }
    Box::new(Md::new(kernels::sha1::Sha1::new(), 20))
}

pub(super) static SHA1: [Backend; 3] = [
    backend!("sha-ni", "mhash", || on(Feature::ShaNi), shani_1),
    backend!("armv8-sha2", "sha1 0.11", || on(Feature::ArmSha2), |_| {
        rc(<sha1::Sha1 as sha1::Digest>::new())
    }),
    backend!(PORTABLE, "mhash", always, |_| Box::new(Md::new(
        kernels::sha1::Sha1::new(),
        20
    ))),
];

fn sha2_256(a: Algorithm) -> Box<dyn Hasher> {
    use sha2::Digest as _;
    if a.kind == AlgoKind::Sha224 {
        rc(sha2::Sha224::new())
    } else {
        rc(sha2::Sha256::new())
    }
}

fn portable_256(a: Algorithm) -> Box<dyn Hasher> {
    if a.kind == AlgoKind::Sha224 {
        Box::new(Md::new(kernels::sha256::Sha256::new_224(), 28))
    } else {
        Box::new(Md::new(kernels::sha256::Sha256::new_256(), 32))
    }
}

/// mhash's SHA-NI kernel, one stream ([`kernels::sha256_xn_shani`]); the
/// portable one where the CPU lacks the SHA extensions (the backend is
/// then not chosen).
fn shani_256(a: Algorithm) -> Box<dyn Hasher> {
    #[cfg(target_arch = "x86_64")]
    {
        let sha224 = a.kind == AlgoKind::Sha224;
        if let Some(s) = kernels::sha256_xn_shani::Sha256Ni::new(sha224) {
            return Box::new(Md::new(s, if sha224 { 28 } else { 32 }));
        }
    }
    portable_256(a)
}

pub(super) static SHA256: [Backend; 3] = [
    backend!("sha-ni", "mhash", || on(Feature::ShaNi), shani_256),
    backend!("armv8-sha2", "sha2 0.11", || on(Feature::ArmSha2), sha2_256),
    backend!(PORTABLE, "mhash", always, portable_256),
];

fn sha2_512(a: Algorithm) -> Box<dyn Hasher> {
    use sha2::Digest as _;
    if a.kind == AlgoKind::Sha384 {
        rc(sha2::Sha384::new())
    } else {
        rc(sha2::Sha512::new())
    }
}

fn portable_512(a: Algorithm) -> Box<dyn Hasher> {
    if a.kind == AlgoKind::Sha384 {
        Box::new(Md::new(kernels::sha512::Sha512::new_384(), 48))
    } else {
        Box::new(Md::new(kernels::sha512::Sha512::new_512(), 64))
    }
}

/// mhash's AVX2+BMI2 kernel ([`kernels::sha512_avx2`]); the portable
/// one where the CPU lacks those features (the backend is then not chosen).
fn avx2_512(a: Algorithm) -> Box<dyn Hasher> {
    #[cfg(target_arch = "x86_64")]
    {
        use kernels::sha512::{IV_384, IV_512};
        use kernels::sha512_avx2::Sha512Avx2;
        let (iv, len) = if a.kind == AlgoKind::Sha384 {
            (IV_384, 48)
        } else {
            (IV_512, 64)
        };
        if let Some(s) = Sha512Avx2::new(iv) {
            return Box::new(Md::new(s, len));
        }
    }
    portable_512(a)
}

pub(super) static SHA512: [Backend; 4] = [
    backend!("avx2-bmi2", "mhash", || on(Feature::Avx2Bmi2), avx2_512),
    backend!("avx2", "sha2 0.11", || on(Feature::Avx2), sha2_512),
    backend!("armv8-sha512", "sha2 0.11", || on(Feature::ArmSha3), sha2_512),
    backend!(PORTABLE, "mhash", always, portable_512),
];

fn blake2b_simd(a: Algorithm) -> Box<dyn Hasher> {
    Box::new(Blake2b(
        blake2b_simd::Params::new().hash_length(a.digest_len()).to_state(),
    ))
}

/// mhash's BLAKE2b on AVX-512VL rows ([`kernels::blake2b_avx512`]); the
/// portable kernel where the CPU lacks them (the backend is then not
/// chosen).
fn blake2b_avx512(a: Algorithm) -> Box<dyn Hasher> {
    #[cfg(target_arch = "x86_64")]
    if let Some(b) = kernels::blake2b::Blake2b::new_avx512(a.digest_len()) {
        return Box::new(b);
    }
    Box::new(kernels::blake2b::Blake2b::new(a.digest_len()))
}

pub(super) static BLAKE2B: [Backend; 4] = [
    // As fast as blake2b_simd's AVX2 path, and needs no CPUID of its own
    // (`kernels::blake2b_avx512`).
    backend!("avx512vl", "mhash", || on(Feature::Avx512Vl), blake2b_avx512),
    backend!("avx2", "blake2b_simd 1", || on(Feature::Avx2), blake2b_simd),
    // blake2b_simd takes AVX2 whenever the CPU has it: offer its SSE4.1
    // path only where AVX2 is absent, not merely turned off.
    backend!(
        "sse4.1",
        "blake2b_simd 1",
        || on(Feature::Sse41) && !Feature::Avx2.detected(),
        blake2b_simd
    ),
    backend!(PORTABLE, "mhash", always, |a| Box::new(
        kernels::blake2b::Blake2b::new(a.digest_len())
    )),
];

fn sha3_crate(a: Algorithm) -> Box<dyn Hasher> {
    use sha2::digest::Digest as _;
    match a.bits {
        224 => rc(sha3::Sha3_224::new()),
        256 => rc(sha3::Sha3_256::new()),
        384 => rc(sha3::Sha3_384::new()),
        _ => rc(sha3::Sha3_512::new()),
    }
}

/// mhash's AVX-512F Keccak ([`kernels::sha3_avx512`]); the `sha3` crate
/// where the CPU lacks it (the backend is then not chosen).
fn avx512_sha3(a: Algorithm) -> Box<dyn Hasher> {
    #[cfg(target_arch = "x86_64")]
    if let Some(s) = kernels::sha3_avx512::Avx512::sha3(a.bits as usize) {
        return Box::new(s);
    }
    sha3_crate(a)
}

/// mhash's scalar Keccak for BMI1/BMI2 ([`kernels::sha3`]); the `sha3`
/// crate where the CPU lacks them (the backend is then not chosen).
fn bmi_sha3(a: Algorithm) -> Box<dyn Hasher> {
    #[cfg(target_arch = "x86_64")]
    if let Some(s) = kernels::sha3::Bmi::sha3(a.bits as usize) {
        return Box::new(s);
    }
    sha3_crate(a)
}

pub(super) static SHA3: [Backend; 3] = [
    backend!("avx512", "mhash", || on(Feature::Avx512Vl), avx512_sha3),
    backend!("bmi2", "mhash", || on(Feature::Bmi2), bmi_sha3),
    backend!(PORTABLE, "sha3 0.12", always, sha3_crate),
];

pub(super) static SM3: [Backend; 1] = [backend!(PORTABLE, "sm3 0.5", always, |_| {
    Box::new(Sm3(<sm3::Sm3 as sm3::Digest>::new()))
})];

pub(super) static CRC: [Backend; 2] = [
    Backend {
        name: crc_fast_name,
        source: "crc-fast 1.10",
        available: || on(Feature::Pclmul) || on(Feature::ArmPmull),
        make: |_| Box::new(PosixCrc::new(true)),
    },
    backend!(PORTABLE, "mhash", always, |_| Box::new(PosixCrc::new(false))),
];

pub(super) static CRC32B: [Backend; 3] = [
    backend!("pclmul", "crc32fast 1.5", || on(Feature::Pclmul), |_| {
        Box::new(Crc32b(crc32fast::Hasher::new()))
    }),
    backend!("armv8-crc32", "crc32fast 1.5", || on(Feature::ArmCrc32), |_| {
        Box::new(Crc32b(crc32fast::Hasher::new()))
    }),
    backend!(PORTABLE, "crc32fast 1.5", always, |_| {
        Box::new(Crc32b(crc32fast::Hasher::internal_new_baseline(0, 0)))
    }),
];

/// The crc-fast code path for crc32c/crc64nvme on this CPU.
fn crc_fast_name_for(algo: crc_fast::CrcAlgorithm) -> String {
    let t = crc_fast::get_calculator_target(algo);
    let t = t
        .strip_prefix("x86_64-")
        .or(t.strip_prefix("aarch64-"))
        .unwrap_or(&t);
    t.strip_prefix("sse-").unwrap_or(t).to_string()
}

fn crc32c_fast_name() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| crc_fast_name_for(crc_fast::CrcAlgorithm::Crc32Iscsi))
}

fn crc64nvme_fast_name() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| crc_fast_name_for(crc_fast::CrcAlgorithm::Crc64Nvme))
}

pub(super) static CRC32C: [Backend; 2] = [
    Backend {
        name: crc32c_fast_name,
        source: "crc-fast 1.10",
        available: || on(Feature::Pclmul) || on(Feature::ArmPmull),
        make: |_| Box::new(FastCrc::new(crc_fast::CrcAlgorithm::Crc32Iscsi, 4)),
    },
    backend!(PORTABLE, "mhash", always, |_| Box::new(ReflectedCrc::crc32c())),
];

pub(super) static CRC64NVME: [Backend; 2] = [
    Backend {
        name: crc64nvme_fast_name,
        source: "crc-fast 1.10",
        available: || on(Feature::Pclmul) || on(Feature::ArmPmull),
        make: |_| Box::new(FastCrc::new(crc_fast::CrcAlgorithm::Crc64Nvme, 8)),
    },
    backend!(PORTABLE, "mhash", always, |_| Box::new(ReflectedCrc::crc64nvme())),
];

/// The SIMD path the `blake3` crate takes on this CPU (its own detection
/// order: AVX-512F+VL, AVX2, SSE4.1, SSE2; NEON on AArch64).
fn blake3_simd_name() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512vl") {
            "avx512"
        } else if std::arch::is_x86_feature_detected!("avx2") {
            "avx2"
        } else if std::arch::is_x86_feature_detected!("sse4.1") {
            "sse4.1"
        } else {
            "sse2"
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        "neon"
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        "portable"
    }
}

pub(super) static BLAKE3: [Backend; 2] = [
    Backend {
        name: blake3_simd_name,
        source: "blake3 1.8",
        available: || not_forced_portable() && blake3_simd_name() != PORTABLE,
        make: |a| {
            Box::new(Blake3Crate {
                h: blake3::Hasher::new(),
                len: a.digest_len(),
            })
        },
    },
    backend!(PORTABLE, "mhash", always, |a| Box::new(
        kernels::blake3::Blake3::new(a.digest_len())
    )),
];

/// The xxHash SIMD path twox-hash takes here: AVX2 where the CPU has it
/// (x86-64), NEON (AArch64); SSE2 otherwise on x86-64.
fn xxh_simd_name() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            "avx2"
        } else {
            "sse2"
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        "neon"
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        PORTABLE
    }
}

/// twox-hash takes AVX2 whenever the CPU has it: offer it only where AVX2
/// is not turned off, so that `GLIBC_TUNABLES=...-AVX2` gets the portable one.
fn xxh_simd_available() -> bool {
    not_forced_portable()
        && match xxh_simd_name() {
            "avx2" => on(Feature::Avx2),
            "sse2" => false,
            n => n != PORTABLE,
        }
}

pub(super) static XXH3: [Backend; 2] = [
    Backend {
        name: xxh_simd_name,
        source: "twox-hash 2",
        available: xxh_simd_available,
        make: |_| Box::new(Xxh3Twox(twox_hash::XxHash3_64::new())),
    },
    backend!(PORTABLE, "xxhash-rust 0.8", always, |_| Box::new(XxhPortable {
        h: xxhash_rust::xxh3::Xxh3::new(),
        wide: false,
    })),
];

pub(super) static XXH128: [Backend; 2] = [
    Backend {
        name: xxh_simd_name,
        source: "twox-hash 2",
        available: xxh_simd_available,
        make: |_| Box::new(Xxh128Twox(twox_hash::XxHash3_128::new())),
    },
    backend!(PORTABLE, "xxhash-rust 0.8", always, |_| Box::new(XxhPortable {
        h: xxhash_rust::xxh3::Xxh3::new(),
        wide: true,
    })),
];

pub(super) static SYSV: [Backend; 1] = [backend!(PORTABLE, "mhash", always, |_| Box::new(Sysv(0)))];
pub(super) static BSD: [Backend; 1] = [backend!(PORTABLE, "mhash", always, |_| Box::new(Bsd(0)))];

/// The backend that runs `kind` here: the one `MHASH_BACKEND` names where
/// `kind` has it available, else the calibrated one (see
/// [`super::calibrate`]), else the first available one.
pub(super) fn chosen(kind: AlgoKind) -> &'static Backend {
    choice(kind).backend
}

/// [`chosen`] and how it was chosen.
pub(super) fn choice(kind: AlgoKind) -> super::calibrate::Choice {
    use super::calibrate::{Choice, ChosenBy};
    let list = kind.info().backends;
    if let Some(name) = cpu::forced_backend()
        && let Some(b) = list.iter().find(|b| b.name() == name && b.is_available())
    {
        return Choice {
            backend: b,
            by: ChosenBy::Forced,
        };
    }
    if let Some(c) = super::calibrate::calibrated(kind) {
        return c.clone();
    }
    Choice {
        backend: list
            .iter()
            .find(|b| b.is_available())
            .unwrap_or(&list[list.len() - 1]),
        by: ChosenBy::Table,
    }
}
