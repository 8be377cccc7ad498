//! The backends: every implementation of every algorithm, behind the
//! [`Hasher`] trait, in a table ordered fastest first; the first one whose
//! CPU features are present (and not turned off) is the one that runs.
//!
//! SHA-1 and SHA-2 on ARMv8 come from RustCrypto, BLAKE2b on AVX2 / SSE4.1
//! from blake2b_simd, SHA-3's portable code and SM3 from RustCrypto, the
//! CRCs on AArch64 from crc-fast (PMULL) and crc32fast (the CRC32
//! instructions), zlib's CRC-32 without carry-less multiplication from
//! crc32fast (slicing by 16). MD5 (tuned scalar), SHA-1/SHA-256 on SHA-NI,
//! SHA-384/512 on AVX2+BMI2, SHA-3 and BLAKE2b on AVX-512, the x86-64
//! folding CRCs (PCLMULQDQ / VPCLMULQDQ) and the CRC tables, the portable
//! SHA-1/SHA-2/BLAKE2b fallbacks and the `sum` checksums are mhash's own
//! ([`super::kernels`]). crc-fast's CRC-32C is offered on x86-64 too, for
//! calibration to pick where it measures faster.

use super::cpu::{self, Feature};
use super::kernels::crc::{self, Crc, Engine};
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

/// A tree hash that can hash one large buffer on many threads, or take
/// its message's first pieces as subtrees hashed elsewhere.
pub trait Tree: Send {
    /// Feeds `data` using every thread of the current rayon pool. Worth it
    /// for large inputs only (a few hundred KiB per call at least).
    fn update_parallel(&mut self, data: &[u8]);
    /// The function that hashes one piece of the message as a subtree:
    /// `piece(offset, data)` is the 32-byte chaining value of `data` found
    /// at byte `offset` of the message, where `offset` is a multiple of
    /// `data.len()`, itself a power of two of at least 1 KiB (BLAKE3's
    /// chunk). A plain function, so that any thread (or process) can call
    /// it without the hasher.
    fn piece_function(&self) -> PieceFn;
    /// Takes `cvs`, the chaining values of the message's next
    /// `cvs.len()` pieces of `piece_len` bytes each (computed by
    /// [`piece_function`](Self::piece_function)), as its next
    /// `cvs.len() * piece_len` bytes; later calls add the pieces after
    /// them, and [`update`](Hasher::update)s the bytes after those. False
    /// (nothing changed) when: the first call comes after bytes were fed,
    /// gives fewer than two pieces (a message of one piece has no subtree
    /// to join) or a `piece_len` that is not a power of two of at least
    /// 1 KiB; a later call gives another `piece_len`, or comes after
    /// `update` fed part of a piece.
    fn absorb_pieces(&mut self, piece_len: u64, cvs: &[[u8; 32]]) -> bool;
}

/// See [`Tree::piece_function`]: `(offset in bytes, piece) -> chaining value`.
pub type PieceFn = fn(u64, &[u8]) -> [u8; 32];

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

/// A CRC on crc-fast (AArch64's PMULL) or on mhash's own tables and
/// folding kernels ([`kernels::crc`]).
enum CrcState {
    Fast(Box<crc_fast::Digest>),
    Own(Crc),
}

impl CrcState {
    fn update(&mut self, data: &[u8]) {
        match self {
            CrcState::Fast(d) => d.update(data),
            CrcState::Own(c) => c.update(data),
        }
    }
    /// The CRC value (final XOR applied), in the low bits.
    fn value(&self) -> u64 {
        match self {
            CrcState::Fast(d) => d.finalize(),
            CrcState::Own(c) => c.value(),
        }
    }
    fn segment(&self) -> CrcState {
        match self {
            CrcState::Fast(d) => CrcState::Fast(Box::new((**d).tap_reset())),
            CrcState::Own(c) => CrcState::Own(c.segment()),
        }
    }
    /// A fresh CRC of the same kind, at the start of a message.
    fn restart(&self) -> CrcState {
        match self {
            CrcState::Fast(d) => CrcState::Fast(Box::new((**d).tap_reset())),
            CrcState::Own(c) => CrcState::Own(c.restart()),
        }
    }
    /// Appends `other`, a segment of the same kind; false for another.
    fn absorb(&mut self, other: &CrcState) -> bool {
        match (self, other) {
            (CrcState::Fast(d), CrcState::Fast(o)) => {
                d.combine(o);
                true
            }
            (CrcState::Own(c), CrcState::Own(o)) => {
                c.absorb(o);
                true
            }
            _ => false,
        }
    }
}

impl TapReset for crc_fast::Digest {
    fn tap_reset(mut self) -> Self {
        self.reset();
        self
    }
}

impl PosixCrc {
    fn new(state: CrcState) -> PosixCrc {
        PosixCrc { state, len: 0 }
    }
}

impl Hasher for PosixCrc {
    fn update(&mut self, data: &[u8]) {
        self.len += data.len() as u64;
        self.state.update(data);
    }
    fn capability(&mut self) -> Capability<'_> {
        Capability::Combine(self)
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
        self.state.update(&tail[..k]);
        // Both apply the final inversion themselves.
        (self.state.value() as u32).to_be_bytes().to_vec()
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
        Box::new(PosixCrc::new(self.state.segment()))
    }
    fn absorb(&mut self, seg: Box<dyn Segment>) -> bool {
        match seg.into_any().downcast::<PosixCrc>() {
            Ok(other) if self.state.absorb(&other.state) => {
                self.len += other.len;
                true
            }
            _ => false,
        }
    }
}

/// crc32b, crc32c or crc64nvme on crc-fast or mhash's own kernels; the
/// digest is the CRC big-endian (what S3's `x-amz-checksum-*` headers and
/// GCS's `crc32c` hold, base64-encoded).
struct WideCrc {
    state: CrcState,
    width_bytes: usize,
}

impl WideCrc {
    fn fast(algo: crc_fast::CrcAlgorithm, width_bytes: usize) -> WideCrc {
        WideCrc {
            state: CrcState::Fast(Box::new(crc_fast::Digest::new(algo))),
            width_bytes,
        }
    }
    fn own(spec: &'static crc::Spec, engine: Engine) -> WideCrc {
        WideCrc {
            state: CrcState::Own(Crc::new(spec, engine)),
            width_bytes: spec.width as usize / 8,
        }
    }
}

impl Hasher for WideCrc {
    fn update(&mut self, data: &[u8]) {
        self.state.update(data);
    }
    fn capability(&mut self) -> Capability<'_> {
        Capability::Combine(self)
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        let v = self.state.value().to_be_bytes();
        v[8 - self.width_bytes..].to_vec()
    }
}

impl Segment for WideCrc {
    fn update(&mut self, data: &[u8]) {
        self.state.update(data);
    }
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

impl Combine for WideCrc {
    fn segment(&self) -> Box<dyn Segment> {
        Box::new(WideCrc {
            state: self.state.segment(),
            width_bytes: self.width_bytes,
        })
    }
    fn absorb(&mut self, seg: Box<dyn Segment>) -> bool {
        match seg.into_any().downcast::<WideCrc>() {
            Ok(other) => other.width_bytes == self.width_bytes && self.state.absorb(&other.state),
            Err(_) => false,
        }
    }
}

/// CRC-32C of short pieces one after the other (HDFS's CRC per
/// `bytes-per-checksum` chunk): on the backend `--backends` shows for
/// crc32c.
pub(super) struct Crc32cChunks(CrcState);

impl Crc32cChunks {
    /// A fresh chunk, on the backend chosen for crc32c here.
    pub(super) fn new() -> Crc32cChunks {
        let b = chosen(AlgoKind::Crc32c);
        Crc32cChunks(if b.source.starts_with("crc-fast") {
            CrcState::Fast(Box::new(crc_fast::Digest::new(
                crc_fast::CrcAlgorithm::Crc32Iscsi,
            )))
        } else {
            CrcState::Own(Crc::new(&crc::CRC32C, Engine::named(b.name())))
        })
    }

    /// Feeds the current chunk's next bytes.
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The current chunk's CRC-32C; the next bytes start a new chunk.
    pub fn finish_reset(&mut self) -> u32 {
        let v = self.0.value() as u32;
        self.0 = self.0.restart();
        v
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
/// SSE4.1, SSE2 or NEON), reading `len` bytes of extended output. Fed
/// either as one stream (`h`), or, once [`Tree::absorb_pieces`] has given
/// it the first pieces' chaining values, as those and a subtree hasher for
/// the bytes after them (`pieces`).
struct Blake3Crate {
    h: blake3::Hasher,
    len: usize,
    pieces: Option<Blake3Pieces>,
}

/// A BLAKE3 message fed as equal pieces (subtrees of `piece` bytes, a
/// power of two of at least one 1 KiB chunk) and then, maybe, as a
/// stream. The pieces' chaining values are joined as BLAKE3's own hasher
/// joins its chunks' (BLAKE3 specification 5.1.2: a subtree is merged as
/// soon as it is complete and known not to end the message), with a piece
/// in place of a chunk, so the root is the one `blake3::hash` gives for
/// the same bytes and the state is one value per level (at most 64).
struct Blake3Pieces {
    piece: u64,
    /// Complete subtrees known not to end the message, left to right.
    stack: Vec<blake3::hazmat::ChainingValue>,
    /// Pieces merged into `stack`.
    merged: u64,
    /// The latest complete piece, which may still end the message.
    last: Option<blake3::hazmat::ChainingValue>,
    /// The piece being fed, after `merged` and `last`.
    tail: blake3::Hasher,
    tail_len: u64,
}

impl Blake3Pieces {
    fn new(piece: u64) -> Blake3Pieces {
        Blake3Pieces {
            piece,
            stack: Vec::new(),
            merged: 0,
            last: None,
            tail: blake3::Hasher::new(),
            tail_len: 0,
        }
    }

    /// Pieces before the tail.
    fn pieces(&self) -> u64 {
        self.merged + u64::from(self.last.is_some())
    }

    /// More bytes follow `last`: it joins the stack.
    fn settle(&mut self) {
        use blake3::hazmat::{Mode, merge_subtrees_non_root};
        if let Some(mut cv) = self.last.take() {
            self.merged += 1;
            let mut t = self.merged;
            while t & 1 == 0 {
                let left = self.stack.pop().expect("a complete subtree's left half");
                cv = merge_subtrees_non_root(&left, &cv, Mode::Hash);
                t >>= 1;
            }
            self.stack.push(cv);
        }
    }

    fn push_piece(&mut self, cv: blake3::hazmat::ChainingValue) {
        self.settle();
        self.last = Some(cv);
    }

    fn update(&mut self, mut data: &[u8]) {
        use blake3::hazmat::HasherExt;
        while !data.is_empty() {
            if self.tail_len == 0 {
                self.settle();
                self.tail = blake3::Hasher::new();
                self.tail.set_input_offset(self.pieces() * self.piece);
            }
            let take = ((self.piece - self.tail_len) as usize).min(data.len());
            self.tail.update(&data[..take]);
            self.tail_len += take as u64;
            data = &data[take..];
            if self.tail_len == self.piece {
                let cv = self.tail.finalize_non_root();
                self.tail_len = 0;
                self.push_piece(cv);
            }
        }
    }

    /// The root's extended output: `out.len()` bytes. At least two pieces
    /// were absorbed, so the root is a parent node.
    fn finalize(mut self, out: &mut [u8]) {
        use blake3::hazmat::{HasherExt, Mode, merge_subtrees_non_root, merge_subtrees_root_xof};
        let mut cv = if self.tail_len > 0 {
            self.settle();
            self.tail.finalize_non_root()
        } else {
            self.last.take().expect("two pieces at least")
        };
        while self.stack.len() > 1 {
            let left = self.stack.pop().expect("checked");
            cv = merge_subtrees_non_root(&left, &cv, Mode::Hash);
        }
        let left = self.stack.pop().expect("two pieces at least");
        merge_subtrees_root_xof(&left, &cv, Mode::Hash).fill(out);
    }
}

/// [`Tree::piece_function`] of BLAKE3: the piece hashed as a subtree at
/// `offset` (SIMD over its chunks, on the calling thread).
fn blake3_piece(offset: u64, data: &[u8]) -> [u8; 32] {
    use blake3::hazmat::HasherExt;
    let mut h = blake3::Hasher::new();
    h.set_input_offset(offset);
    h.update(data);
    h.finalize_non_root()
}

impl Hasher for Blake3Crate {
    fn update(&mut self, data: &[u8]) {
        match &mut self.pieces {
            Some(p) => p.update(data),
            None => {
                self.h.update(data);
            }
        }
    }
    fn capability(&mut self) -> Capability<'_> {
        Capability::Tree(self)
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        let mut out = vec![0u8; self.len];
        match self.pieces {
            Some(p) => p.finalize(&mut out),
            None => self.h.finalize_xof().fill(&mut out),
        }
        out
    }
}

impl Tree for Blake3Crate {
    fn update_parallel(&mut self, data: &[u8]) {
        match &mut self.pieces {
            Some(p) => p.update(data),
            None => {
                self.h.update_rayon(data);
            }
        }
    }
    fn piece_function(&self) -> PieceFn {
        blake3_piece
    }
    fn absorb_pieces(&mut self, piece_len: u64, cvs: &[[u8; 32]]) -> bool {
        let ok = match &self.pieces {
            Some(p) => p.piece == piece_len && p.tail_len == 0,
            None => {
                self.h.count() == 0
                    && cvs.len() >= 2
                    && piece_len.is_power_of_two()
                    && piece_len >= blake3::CHUNK_LEN as u64
            }
        };
        if !ok {
            return false;
        }
        let p = self.pieces.get_or_insert_with(|| Blake3Pieces::new(piece_len));
        for cv in cvs {
            p.push_piece(*cv);
        }
        true
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
    backend!("sse4.1", "blake2b_simd 1", || on(Feature::Sse41), blake2b_simd),
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

/// mhash's lane-per-register AVX-512VL Keccak
/// ([`kernels::sha3_avx512_lanes`]); the `sha3` crate where the CPU lacks
/// it (the backend is then not chosen).
fn avx512_lanes_sha3(a: Algorithm) -> Box<dyn Hasher> {
    #[cfg(target_arch = "x86_64")]
    if let Some(s) = kernels::sha3_avx512_lanes::Avx512Lanes::sha3(a.bits as usize) {
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

/// The portable SHA-3: the `sha3` crate, except on AArch64, where its
/// `keccak` takes the ARMv8.2 SHA3 instructions wherever the CPU has them
/// (there it is the `armv8-sha3` backend) and mhash's scalar kernel
/// ([`kernels::sha3::Scalar`]) is the portable one.
fn portable_sha3(a: Algorithm) -> Box<dyn Hasher> {
    #[cfg(target_arch = "aarch64")]
    {
        Box::new(kernels::sha3::Scalar::sha3(a.bits as usize))
    }
    #[cfg(not(target_arch = "aarch64"))]
    {
        sha3_crate(a)
    }
}

/// Where [`portable_sha3`] comes from.
const PORTABLE_SHA3_SOURCE: &str = if cfg!(target_arch = "aarch64") {
    "mhash"
} else {
    "sha3 0.12"
};

pub(super) static SHA3: [Backend; 5] = [
    backend!("avx512", "mhash", || on(Feature::Avx512Vl), avx512_sha3),
    backend!(
        "avx512vl-lanes",
        "mhash",
        || on(Feature::Avx512Vl),
        avx512_lanes_sha3
    ),
    backend!("bmi2", "mhash", || on(Feature::Bmi2), bmi_sha3),
    // keccak 0.2's ARMv8.2 path (`EOR3`, `RAX1`, `XAR`, `BCAX`), taken by
    // its own check of the same `sha3` feature (cpufeatures).
    backend!("armv8-sha3", "sha3 0.12", || on(Feature::ArmSha3), sha3_crate),
    backend!(PORTABLE, PORTABLE_SHA3_SOURCE, always, portable_sha3),
];

pub(super) static SM3: [Backend; 1] = [backend!(PORTABLE, "sm3 0.5", always, |_| {
    Box::new(Sm3(<sm3::Sm3 as sm3::Digest>::new()))
})];

/// mhash's VPCLMULQDQ folding: AVX-512F/BW and VPCLMULQDQ with the OS's
/// ZMM state (the PCLMULQDQ it also uses comes with them on every such
/// CPU; checked anyway).
fn avx512_fold() -> bool {
    on(Feature::Avx512Vpclmul) && Feature::Pclmul.detected()
}

/// mhash's VPCLMULQDQ folding on AVX2 (Zen 3, Intel since Ice Lake and
/// Alder Lake).
fn avx2_fold() -> bool {
    on(Feature::Avx2Vpclmul) && Feature::Pclmul.detected()
}

/// One CRC's mhash backends, fastest first: VPCLMULQDQ on 512 and 256
/// bits, PCLMULQDQ ([`kernels::crc`]).
macro_rules! own_crc_backends {
    ($make:expr) => {
        [
            backend!(Engine::Avx512.name(), "mhash", avx512_fold, |_| $make(
                Engine::Avx512
            )),
            backend!(Engine::Avx2.name(), "mhash", avx2_fold, |_| $make(Engine::Avx2)),
            backend!(Engine::Pclmul.name(), "mhash", || on(Feature::Pclmul), |_| $make(
                Engine::Pclmul
            )),
        ]
    };
}

/// The crc-fast code path on this CPU: `neon-pmull...` on AArch64;
/// on x86-64, where only crc32c offers it (as a challenger to mhash's
/// own, for calibration), its tier prefixed `crc-fast-`
/// (`crc-fast-avx512-vpclmulqdq`) so that the name differs from mhash's.
fn crc_fast_name_for(algo: crc_fast::CrcAlgorithm) -> String {
    let t = crc_fast::get_calculator_target(algo);
    if let Some(t) = t.strip_prefix("aarch64-") {
        return t.to_string();
    }
    let t = t.strip_prefix("x86_64-").unwrap_or(&t);
    format!("crc-fast-{}", t.strip_prefix("sse-").unwrap_or(t))
}

/// crc-fast's name for `algo` where it is offered only on AArch64:
/// its code path there, "pmull" elsewhere (listed as unavailable).
fn arm_crc_fast_name(algo: crc_fast::CrcAlgorithm, cell: &'static OnceLock<String>) -> &'static str {
    if !cfg!(target_arch = "aarch64") {
        return "pmull";
    }
    cell.get_or_init(|| crc_fast_name_for(algo))
}

fn crc32c_fast_name() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| crc_fast_name_for(crc_fast::CrcAlgorithm::Crc32Iscsi))
}

fn posix_crc_own(e: Engine) -> Box<dyn Hasher> {
    Box::new(PosixCrc::new(CrcState::Own(Crc::new(&crc::CKSUM, e))))
}

fn crc32b_own(e: Engine) -> Box<dyn Hasher> {
    Box::new(WideCrc::own(&crc::CRC32B, e))
}

fn crc32c_own(e: Engine) -> Box<dyn Hasher> {
    Box::new(WideCrc::own(&crc::CRC32C, e))
}

fn crc64nvme_own(e: Engine) -> Box<dyn Hasher> {
    Box::new(WideCrc::own(&crc::CRC64NVME, e))
}

pub(super) static CRC: [Backend; 5] = {
    let [avx512, avx2, pclmul] = own_crc_backends!(posix_crc_own);
    [
        avx512,
        avx2,
        pclmul,
        Backend {
            name: || {
                static NAME: OnceLock<String> = OnceLock::new();
                arm_crc_fast_name(crc_fast::CrcAlgorithm::Crc32Cksum, &NAME)
            },
            source: "crc-fast 1.10",
            available: || on(Feature::ArmPmull),
            make: |_| {
                Box::new(PosixCrc::new(CrcState::Fast(Box::new(crc_fast::Digest::new(
                    crc_fast::CrcAlgorithm::Crc32Cksum,
                )))))
            },
        },
        backend!(PORTABLE, "mhash", always, |_| posix_crc_own(Engine::Table)),
    ]
};

pub(super) static CRC32B: [Backend; 5] = {
    let [avx512, avx2, pclmul] = own_crc_backends!(crc32b_own);
    [
        avx512,
        avx2,
        pclmul,
        backend!("armv8-crc32", "crc32fast 1.5", || on(Feature::ArmCrc32), |_| {
            Box::new(Crc32b(crc32fast::Hasher::new()))
        }),
        // crc32fast's slicing by 16, faster than mhash's slicing by 8.
        backend!(PORTABLE, "crc32fast 1.5", always, |_| {
            Box::new(Crc32b(crc32fast::Hasher::internal_new_baseline(0, 0)))
        }),
    ]
};

pub(super) static CRC32C: [Backend; 5] = {
    let [avx512, avx2, pclmul] = own_crc_backends!(crc32c_own);
    [
        avx512,
        avx2,
        pclmul,
        // With the SSE4.2 CRC32 instruction beside the folding: 5-15%
        // faster than mhash's at 1 MiB in memory on an AVX-512 Xeon, so
        // offered on x86-64 too, for calibration to pick.
        Backend {
            name: crc32c_fast_name,
            source: "crc-fast 1.10",
            available: || on(Feature::Pclmul) || on(Feature::ArmPmull),
            make: |_| Box::new(WideCrc::fast(crc_fast::CrcAlgorithm::Crc32Iscsi, 4)),
        },
        backend!(PORTABLE, "mhash", always, |_| crc32c_own(Engine::Table)),
    ]
};

pub(super) static CRC64NVME: [Backend; 5] = {
    let [avx512, avx2, pclmul] = own_crc_backends!(crc64nvme_own);
    [
        avx512,
        avx2,
        pclmul,
        Backend {
            name: || {
                static NAME: OnceLock<String> = OnceLock::new();
                arm_crc_fast_name(crc_fast::CrcAlgorithm::Crc64Nvme, &NAME)
            },
            source: "crc-fast 1.10",
            available: || on(Feature::ArmPmull),
            make: |_| Box::new(WideCrc::fast(crc_fast::CrcAlgorithm::Crc64Nvme, 8)),
        },
        backend!(PORTABLE, "mhash", always, |_| crc64nvme_own(Engine::Table)),
    ]
};

/// Adler-32 on one of simd-adler32's kernels (`fn(a, b, data) -> (a, b)`).
struct SimdAdler {
    update: simd_adler32::imp::Adler32Imp,
    a: u16,
    b: u16,
}

impl Hasher for SimdAdler {
    fn update(&mut self, data: &[u8]) {
        (self.a, self.b) = (self.update)(self.a, self.b, data);
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        ((u32::from(self.b) << 16) | u32::from(self.a))
            .to_be_bytes()
            .to_vec()
    }
}

/// mhash's scalar Adler-32 ([`kernels::adler32`]).
struct OwnAdler(kernels::adler32::Adler32);

impl Hasher for OwnAdler {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        self.0.value().to_be_bytes().to_vec()
    }
}

/// A simd-adler32 kernel, or the scalar one where the CPU lacks it (the
/// backend is then not chosen).
fn simd_adler(imp: Option<simd_adler32::imp::Adler32Imp>) -> Box<dyn Hasher> {
    match imp {
        Some(update) => Box::new(SimdAdler { update, a: 1, b: 0 }),
        None => Box::new(OwnAdler(kernels::adler32::Adler32::new())),
    }
}

/// simd-adler32's kernels (its AVX-512 one needs a nightly compiler),
/// fastest first, then mhash's scalar one. Each simd-adler32 kernel
/// checks the CPU itself (`get_imp`) and is offered where mhash's own
/// feature switches leave the feature on.
pub(super) static ADLER32: [Backend; 5] = [
    backend!("avx2", "simd-adler32 0.3", || on(Feature::Avx2), |_| simd_adler(
        simd_adler32::imp::avx2::get_imp()
    )),
    backend!(
        "ssse3",
        "simd-adler32 0.3",
        || not_forced_portable() && simd_adler32::imp::ssse3::get_imp().is_some(),
        |_| simd_adler(simd_adler32::imp::ssse3::get_imp())
    ),
    backend!(
        "sse2",
        "simd-adler32 0.3",
        || not_forced_portable() && simd_adler32::imp::sse2::get_imp().is_some(),
        |_| simd_adler(simd_adler32::imp::sse2::get_imp())
    ),
    backend!(
        "neon",
        "simd-adler32 0.3",
        || not_forced_portable() && simd_adler32::imp::neon::get_imp().is_some(),
        |_| simd_adler(simd_adler32::imp::neon::get_imp())
    ),
    backend!(PORTABLE, "mhash", always, |_| Box::new(OwnAdler(
        kernels::adler32::Adler32::new()
    ))),
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
                pieces: None,
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
/// [`super::calibrate`]), else the first available one; in each case only
/// if it passes its [self-test](self_test), else the portable one.
pub(super) fn chosen(kind: AlgoKind) -> &'static Backend {
    choice(kind).backend
}

/// [`chosen`] and how it was chosen.
pub(super) fn choice(kind: AlgoKind) -> super::calibrate::Choice {
    use super::calibrate::{Choice, ChosenBy};
    let list = kind.info().backends;
    let picked = if let Some(name) = cpu::forced_backend()
        && let Some(b) = list.iter().find(|b| b.name() == name && b.is_available())
    {
        Choice {
            backend: b,
            by: ChosenBy::Forced,
        }
    } else if let Some(c) = super::calibrate::calibrated(kind) {
        c.clone()
    } else {
        Choice {
            backend: list
                .iter()
                .find(|b| b.is_available())
                .unwrap_or(&list[list.len() - 1]),
            by: ChosenBy::Table,
        }
    };
    checked(kind, list, picked)
}

/// The self-test's message: [`SELF_TEST_LEN`] bytes `(i * 7 + 3) mod 251`.
/// At 300 bytes it spans several blocks of every block size (64 bytes for
/// MD5/SHA-1/SHA-256/SM3, 128 for SHA-512/BLAKE2b, 136 and 144 for SHA-3's
/// rates) plus a partial one, and the folding CRCs' 64- and 256-byte
/// strides.
const SELF_TEST_LEN: usize = 300;

/// The self-test's message (see [`SELF_TEST_LEN`]); the lane kernels'
/// self-test cuts its messages from it too.
pub(super) fn self_test_message() -> [u8; SELF_TEST_LEN] {
    let mut msg = [0u8; SELF_TEST_LEN];
    for (i, b) in msg.iter_mut().enumerate() {
        *b = ((i * 7 + 3) % 251) as u8;
    }
    msg
}

/// A self-test's outcome, kept for the rest of the process: not run yet,
/// passed or failed.
pub(super) struct Verdict(std::sync::atomic::AtomicU8);

impl Verdict {
    /// Not run yet.
    pub(super) const fn untested() -> Verdict {
        Verdict(std::sync::atomic::AtomicU8::new(0))
    }

    /// The kept outcome, or `test`'s, run now and kept (two threads that
    /// ask at once may both run it; they get the same answer).
    pub(super) fn passes(&self, test: impl FnOnce() -> bool) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        match self.0.load(Relaxed) {
            1 => true,
            2 => false,
            _ => {
                let ok = test();
                self.0.store(if ok { 1 } else { 2 }, Relaxed);
                ok
            }
        }
    }
}

/// Whether `candidate` computes the digest `reference` (the list's
/// portable backend, itself checked against the official vectors in
/// tests/vectors.rs) computes, for `algo`'s natural length, of the
/// self-test message fed as 1 byte then 299 (so that the kernel also
/// meets a partial block carried between calls). Run once per backend and
/// process (600 bytes hashed in all; not timed on its own: the whole of
/// `sha256sum /dev/null` is, see docs/building.md): a backend chosen at run time never gives a digest
/// that its CPU detection or its code got wrong (BusyBox 1.36.0 shipped a
/// SHA-NI path that crashed on CPUs without it).
pub fn self_test(candidate: &Backend, reference: &Backend, algo: Algorithm) -> bool {
    let msg = self_test_message();
    let mut a = candidate.hasher(algo);
    a.update(&msg[..1]);
    a.update(&msg[1..]);
    let mut b = reference.hasher(algo);
    b.update(&msg);
    a.finalize() == b.finalize()
}

/// The most backends one algorithm has (a unit test checks every list).
const MAX_BACKENDS: usize = 6;

/// Each backend's self-test outcome in this process, by algorithm (the
/// table's order) and position in its list.
static SELF_TESTED: [[Verdict; MAX_BACKENDS]; AlgoKind::ALL.len()] =
    [const { [const { Verdict::untested() }; MAX_BACKENDS] }; AlgoKind::ALL.len()];

/// `picked` where its backend passes [`self_test`] (run once per backend
/// and process) or is the portable one, else the list's portable backend,
/// chosen [`ChosenBy::SelfTestFailed`](super::calibrate::ChosenBy).
fn checked(
    kind: AlgoKind,
    list: &'static [Backend],
    picked: super::calibrate::Choice,
) -> super::calibrate::Choice {
    let portable = &list[list.len() - 1];
    let Some(at) = list.iter().position(|b| std::ptr::eq(b, picked.backend)) else {
        return picked;
    };
    if at == list.len() - 1 || at >= MAX_BACKENDS {
        return picked;
    }
    if SELF_TESTED[kind as usize][at].passes(|| self_test(picked.backend, portable, Algorithm::new(kind))) {
        picked
    } else {
        super::calibrate::Choice {
            backend: portable,
            by: super::calibrate::ChosenBy::SelfTestFailed(picked.backend.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BLAKE3 fed as pieces (subtrees hashed apart, then absorbed) and
    /// then as a stream gives the `blake3` crate's digest of the whole
    /// message, at every length around the piece edges, for 32 bytes and
    /// for extended output.
    #[test]
    fn blake3_pieces_give_the_crates_digest_of_the_whole_message() {
        let msg: Vec<u8> = (0..40_000u32).map(|i| (i * 7 + 3) as u8).collect();
        for piece in [1024u64, 2048, 4096] {
            let p = piece as usize;
            for len in [
                2 * p,
                2 * p + 1,
                3 * p - 1,
                3 * p,
                5 * p + 100,
                8 * p,
                9 * p - 1,
                msg.len(),
            ] {
                let msg = &msg[..len];
                for k in 2..=len / p {
                    for out_len in [32, 100] {
                        let mut h = Blake3Crate {
                            h: blake3::Hasher::new(),
                            len: out_len,
                            pieces: None,
                        };
                        let f = h.piece_function();
                        let cvs: Vec<[u8; 32]> = (0..k)
                            .map(|i| f((i * p) as u64, &msg[i * p..(i + 1) * p]))
                            .collect();
                        // In two calls where there are pieces enough.
                        let cut = if k >= 4 { 2 } else { k };
                        assert!(h.absorb_pieces(piece, &cvs[..cut]));
                        assert!(h.absorb_pieces(piece, &cvs[cut..]));
                        for part in msg[k * p..].chunks(777) {
                            h.update(part);
                        }
                        let mut want = vec![0u8; out_len];
                        blake3::Hasher::new().update(msg).finalize_xof().fill(&mut want);
                        assert_eq!(Box::new(h).finalize(), want, "piece {piece} len {len} k {k}");
                    }
                }
            }
        }
    }

    /// Pieces are refused by a hasher already fed, below two pieces, and
    /// for a piece length that is not a power of two of at least 1 KiB.
    #[test]
    fn blake3_refuses_pieces_it_cannot_join() {
        let fresh = || Blake3Crate {
            h: blake3::Hasher::new(),
            len: 32,
            pieces: None,
        };
        let cv = [0u8; 32];
        let mut fed = fresh();
        fed.update(b"x");
        assert!(!fed.absorb_pieces(1024, &[cv, cv]));
        assert!(!fresh().absorb_pieces(1024, &[cv]));
        assert!(!fresh().absorb_pieces(3072, &[cv, cv]));
        assert!(!fresh().absorb_pieces(512, &[cv, cv]));
        let mut twice = fresh();
        assert!(twice.absorb_pieces(1024, &[cv, cv]));
        assert!(!twice.absorb_pieces(2048, &[cv]), "another piece length");
        assert!(twice.absorb_pieces(1024, &[cv]), "the next piece");
        twice.update(b"x");
        assert!(!twice.absorb_pieces(1024, &[cv]), "after part of a piece");
    }

    /// Every backend this CPU can run passes the self-test, and no list is
    /// longer than the self-test's cache allows.
    #[test]
    fn every_available_backend_passes_the_self_test() {
        for kind in AlgoKind::ALL {
            let list = kind.info().backends;
            assert!(list.len() <= MAX_BACKENDS, "{kind:?}: {} backends", list.len());
            let portable = &list[list.len() - 1];
            assert!(
                portable.is_portable(),
                "{kind:?}: the last backend is not portable"
            );
            for b in list.iter().filter(|b| b.is_available()) {
                assert!(
                    self_test(b, portable, Algorithm::new(kind)),
                    "{kind:?} on {}",
                    b.name()
                );
            }
        }
    }

    /// A hasher that gets the last bit of every digest wrong.
    struct Wrong(Box<dyn Hasher>);
    impl Hasher for Wrong {
        fn update(&mut self, data: &[u8]) {
            self.0.update(data);
        }
        fn finalize(self: Box<Self>) -> Vec<u8> {
            let mut d = self.0.finalize();
            if let Some(last) = d.last_mut() {
                *last ^= 1;
            }
            d
        }
    }

    /// A backend that computes a wrong digest fails the self-test and is
    /// replaced by the portable one, saying which it replaced.
    #[test]
    fn a_wrong_backend_falls_back_to_portable() {
        static LIST: [Backend; 2] = [
            backend!("wrong-kernel", "test", always, |a| Box::new(Wrong(
                SHA256[2].hasher(a)
            ))),
            backend!(PORTABLE, "test", always, |a| SHA256[2].hasher(a)),
        ];
        assert!(!self_test(&LIST[0], &LIST[1], Algorithm::new(AlgoKind::Sha256)));
        assert!(self_test(&LIST[1], &LIST[1], Algorithm::new(AlgoKind::Sha256)));
        // The cache cell of a kind no real list reaches at this position.
        let picked = super::super::calibrate::Choice {
            backend: &LIST[0],
            by: super::super::calibrate::ChosenBy::Table,
        };
        let c = checked(AlgoKind::Sysv, &LIST, picked);
        assert!(std::ptr::eq(c.backend, &LIST[1]));
        assert_eq!(c.by.describe(), "portable: the self-test of wrong-kernel failed");
    }

    /// Each ARMv8 backend of SHA-256, SHA-512 and SHA-3 is offered exactly
    /// where its feature is on (never on x86-64), and on AArch64 it is the
    /// first one offered, so that the table picks it without calibration.
    #[test]
    fn armv8_backends_follow_their_features() {
        for (list, name, feature) in [
            (&SHA256[..], "armv8-sha2", Feature::ArmSha2),
            (&SHA512[..], "armv8-sha512", Feature::ArmSha3),
            (&SHA3[..], "armv8-sha3", Feature::ArmSha3),
        ] {
            let b = list.iter().find(|b| b.name() == name).expect(name);
            assert_eq!(b.is_available(), feature.enabled(), "{name}");
            if cfg!(target_arch = "aarch64") && feature.enabled() {
                let first = list.iter().find(|b| b.is_available()).unwrap();
                assert_eq!(first.name(), name);
            }
        }
    }

    /// The portable SHA-3 computes SHA-3 (FIPS 202's SHA3-256 of "abc").
    #[test]
    fn portable_sha3_is_sha3() {
        let mut h = portable_sha3(Algorithm::new(AlgoKind::Sha3_256));
        h.update(b"abc");
        assert_eq!(
            hex::encode(h.finalize()),
            "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"
        );
    }
}
