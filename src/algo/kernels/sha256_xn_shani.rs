//! SHA-256 (FIPS 180-4 §6.2) over two or four messages at once with the
//! x86 SHA extensions: the messages' rounds are interleaved instruction by
//! instruction, so the second stream's `sha256rnds2` issues while the
//! first one's waits for its result. One stream is bound by that
//! latency; two or more fill the unit's pipeline.
//!
//! The round sequence is Intel's (and RustCrypto sha2's `x86_sha`): the
//! state held as ABEF/CDGH, four rounds per `rnds2` pair, the message
//! schedule with `sha256msg1`/`sha256msg2`.

use super::Compress;
use super::sha256::{IV_224, IV_256, K};
use crate::algo::lanes::LaneKernel;
use core::arch::x86_64::*;

/// One SHA-256 (or SHA-224) state, H0..H7, for the single-stream backend
/// (`sha-ni`, source mhash), compressed by [`compress_1`]. Only
/// constructed where the CPU has the SHA extensions with SSSE3 and SSE4.1.
///
/// The same instructions as RustCrypto sha2's `x86_sha`, whose first use
/// runs its own CPU check (`cpufeatures`: three CPUID instructions, each
/// a trap to the hypervisor in a VM, about 10 µs each measured on the
/// 2-core Xeon VM); this kernel asks [`crate::algo::cpu`], which reads
/// what glibc's loader already found.
pub(in crate::algo) struct Sha256Ni([u32; 8]);

impl Sha256Ni {
    /// SHA-256's (or, for `sha224`, SHA-224's) initial value, FIPS 180-4
    /// §5.3.2-5.3.3, or `None` when the CPU lacks SHA-NI, SSSE3 or SSE4.1.
    pub(in crate::algo) fn new(sha224: bool) -> Option<Sha256Ni> {
        detected().then_some(Sha256Ni(if sha224 { IV_224 } else { IV_256 }))
    }
}

impl Compress for Sha256Ni {
    const BLOCK: usize = 64;
    const LEN_BYTES: usize = 8;
    const LEN_LITTLE_ENDIAN: bool = false;
    fn compress(&mut self, blocks: &[u8]) {
        assert!(blocks.len().is_multiple_of(64), "whole blocks");
        // SAFETY: a `Sha256Ni` exists only where `new` found SHA, SSSE3
        // and SSE4.1, the features `compress_1` enables; `blocks` has
        // `blocks.len()` readable bytes.
        unsafe { compress_1(&mut self.0, blocks.as_ptr(), blocks.len() / 64) }
    }
    fn output(&self, len: usize) -> Vec<u8> {
        self.0.iter().flat_map(|w| w.to_be_bytes()).take(len).collect()
    }
}

/// `N` SHA-256 (or SHA-224) states, H0..H7 each; only constructed where
/// the CPU has the SHA extensions with SSSE3 and SSE4.1.
pub(in crate::algo) struct Sha256xN<const N: usize> {
    s: [[u32; 8]; N],
    iv: [u32; 8],
    out_len: usize,
}

/// True when the CPU has what [`compress_n`] enables.
fn detected() -> bool {
    crate::algo::cpu::Feature::ShaNi.detected()
}

impl<const N: usize> Sha256xN<N> {
    /// `N` lanes at SHA-256's (or, for `sha224`, SHA-224's) initial value,
    /// or `None` when the CPU lacks SHA-NI, SSSE3 or SSE4.1.
    pub(in crate::algo) fn new(sha224: bool) -> Option<Sha256xN<N>> {
        let iv = if sha224 { IV_224 } else { IV_256 };
        let out_len = if sha224 { 28 } else { 32 };
        detected().then_some(Sha256xN {
            s: [iv; N],
            iv,
            out_len,
        })
    }
}

impl<const N: usize> LaneKernel for Sha256xN<N> {
    fn lanes(&self) -> usize {
        N
    }
    fn reset(&mut self, lane: usize) {
        self.s[lane] = self.iv;
    }
    fn compress(&mut self, blocks: &[&[u8]]) {
        assert_eq!(blocks.len(), N, "one slice per lane");
        let len = blocks[0].len();
        assert!(
            len.is_multiple_of(64) && blocks.iter().all(|b| b.len() == len),
            "whole blocks, equal lengths"
        );
        let ptrs: [*const u8; N] = core::array::from_fn(|j| blocks[j].as_ptr());
        // SAFETY: a `Sha256xN` exists only where `new` found SHA, SSSE3
        // and SSE4.1 (`Feature::ShaNi.detected()`), the features
        // `compress_n` enables; each pointer has `len` readable bytes.
        unsafe { compress_n::<N>(self.s.each_mut(), ptrs, len / 64) }
    }
    fn compress_one(&mut self, lane: usize, blocks: &[u8]) {
        assert!(blocks.len().is_multiple_of(64), "whole blocks");
        // SAFETY: as in `compress`; `blocks` has `blocks.len()` bytes.
        unsafe { compress_1(&mut self.s[lane], blocks.as_ptr(), blocks.len() / 64) }
    }
    fn digest(&self, lane: usize) -> Vec<u8> {
        self.s[lane]
            .iter()
            .flat_map(|w| w.to_be_bytes())
            .take(self.out_len)
            .collect()
    }
}

/// Compresses `n` blocks into each of `N` states, state `j` reading
/// `n * 64` bytes from `p[j]`, the streams' instructions interleaved.
///
/// # Safety
/// The CPU must have SHA, SSSE3 and SSE4.1, and every `p[j]` must point to
/// `n * 64` readable bytes.
#[target_feature(enable = "sha,ssse3,sse4.1")]
unsafe fn compress_n<const N: usize>(states: [&mut [u32; 8]; N], p: [*const u8; N], n: usize) {
    let mut abef = [_mm_setzero_si128(); N];
    let mut cdgh = [_mm_setzero_si128(); N];
    for j in 0..N {
        (abef[j], cdgh[j]) = load_state(states[j]);
    }
    let bswap = _mm_set_epi64x(0x0C0D_0E0F_0809_0A0B, 0x0405_0607_0001_0203);
    for blk in 0..n {
        let save = (abef, cdgh);
        let mut w = [[_mm_setzero_si128(); 4]; N];
        for j in 0..N {
            for (q, wq) in w[j].iter_mut().enumerate() {
                // SAFETY: `p[j]` has `n * 64` readable bytes (the caller's
                // promise) and `blk * 64 + q * 16 + 16 <= n * 64`.
                let v = unsafe { _mm_loadu_si128(p[j].add(blk * 64 + q * 16).cast()) };
                *wq = _mm_shuffle_epi8(v, bswap);
            }
        }
        for r in 0..16 {
            let q = r % 4;
            let k = round_k(r);
            for j in 0..N {
                if r >= 4 {
                    // W[4r..4r+4] from the four previous groups.
                    let t1 = _mm_sha256msg1_epu32(w[j][q], w[j][(q + 1) % 4]);
                    let t2 = _mm_alignr_epi8::<4>(w[j][(q + 3) % 4], w[j][(q + 2) % 4]);
                    w[j][q] = _mm_sha256msg2_epu32(_mm_add_epi32(t1, t2), w[j][(q + 3) % 4]);
                }
                let t1 = _mm_add_epi32(w[j][q], k);
                cdgh[j] = _mm_sha256rnds2_epu32(cdgh[j], abef[j], t1);
                let t2 = _mm_shuffle_epi32::<0x0E>(t1);
                abef[j] = _mm_sha256rnds2_epu32(abef[j], cdgh[j], t2);
            }
        }
        for j in 0..N {
            abef[j] = _mm_add_epi32(abef[j], save.0[j]);
            cdgh[j] = _mm_add_epi32(cdgh[j], save.1[j]);
        }
    }
    for (j, st) in states.into_iter().enumerate() {
        store_state(st, abef[j], cdgh[j]);
    }
}

/// H0..H7 as the SHA instructions hold them: (ABEF, CDGH).
#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn load_state(state: &[u32; 8]) -> (__m128i, __m128i) {
    // SAFETY: a state is 32 bytes; `loadu` needs no alignment.
    let (dcba, hgfe) = unsafe {
        let sp: *const __m128i = state.as_ptr().cast();
        (_mm_loadu_si128(sp), _mm_loadu_si128(sp.add(1)))
    };
    let cdab = _mm_shuffle_epi32::<0xB1>(dcba);
    let efgh = _mm_shuffle_epi32::<0x1B>(hgfe);
    (
        _mm_alignr_epi8::<8>(cdab, efgh),
        _mm_blend_epi16::<0xF0>(efgh, cdab),
    )
}

/// Writes (ABEF, CDGH) back as H0..H7: [`load_state`] undone.
#[inline]
#[target_feature(enable = "ssse3,sse4.1")]
fn store_state(state: &mut [u32; 8], abef: __m128i, cdgh: __m128i) {
    let feba = _mm_shuffle_epi32::<0x1B>(abef);
    let dchg = _mm_shuffle_epi32::<0xB1>(cdgh);
    let dcba = _mm_blend_epi16::<0xF0>(feba, dchg);
    let hgef = _mm_alignr_epi8::<8>(dchg, feba);
    // SAFETY: a state is 32 bytes; `storeu` needs no alignment.
    unsafe {
        let sp: *mut __m128i = state.as_mut_ptr().cast();
        _mm_storeu_si128(sp, dcba);
        _mm_storeu_si128(sp.add(1), hgef);
    }
}

/// Compresses `n` blocks from `p` into `state`: the rounds of
/// [`compress_n`] for one stream, unrolled so that the four message
/// groups stay in registers (`mhash bench --bytes 1M`: the generic loop
/// with `N = 1` gave 1,000 MB/s against sha2's 1,390; unrolled, 1,402
/// against 1,397, medians of 7).
///
/// # Safety
/// The CPU must have SHA, SSSE3 and SSE4.1, and `p` must point to `n * 64`
/// readable bytes.
#[target_feature(enable = "sha,ssse3,sse4.1")]
unsafe fn compress_1(state: &mut [u32; 8], p: *const u8, n: usize) {
    let (mut abef, mut cdgh) = load_state(state);
    let bswap = _mm_set_epi64x(0x0C0D_0E0F_0809_0A0B, 0x0405_0607_0001_0203);
    for blk in 0..n {
        let (save_abef, save_cdgh) = (abef, cdgh);
        super::prefetch_ahead(p.wrapping_add(blk * 64), 64);
        // SAFETY: `p` has `n * 64` readable bytes (the caller's promise)
        // and `blk * 64 + 64 <= n * 64`.
        let [mut w0, mut w1, mut w2, mut w3] = core::array::from_fn(|q| unsafe {
            _mm_shuffle_epi8(_mm_loadu_si128(p.add(blk * 64 + q * 16).cast()), bswap)
        });
        // Four rounds with message group `w` and K[4r..4r+4].
        macro_rules! rounds {
            ($r:expr, $w:ident) => {
                let t1 = _mm_add_epi32($w, round_k($r));
                cdgh = _mm_sha256rnds2_epu32(cdgh, abef, t1);
                abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32::<0x0E>(t1));
            };
        }
        // The next message group into `a` from the four previous (a, b,
        // c, d oldest first), as in `compress_n`.
        macro_rules! schedule {
            ($a:ident, $b:ident, $c:ident, $d:ident) => {
                let t = _mm_add_epi32(_mm_sha256msg1_epu32($a, $b), _mm_alignr_epi8::<4>($d, $c));
                $a = _mm_sha256msg2_epu32(t, $d);
            };
        }
        rounds!(0, w0);
        rounds!(1, w1);
        rounds!(2, w2);
        rounds!(3, w3);
        macro_rules! sixteen {
            ($r:expr) => {
                schedule!(w0, w1, w2, w3);
                rounds!($r, w0);
                schedule!(w1, w2, w3, w0);
                rounds!($r + 1, w1);
                schedule!(w2, w3, w0, w1);
                rounds!($r + 2, w2);
                schedule!(w3, w0, w1, w2);
                rounds!($r + 3, w3);
            };
        }
        sixteen!(4);
        sixteen!(8);
        sixteen!(12);
        abef = _mm_add_epi32(abef, save_abef);
        cdgh = _mm_add_epi32(cdgh, save_cdgh);
    }
    store_state(state, abef, cdgh);
}

/// Round constants K[4r..4r+4] as one vector.
#[inline]
#[target_feature(enable = "sse2")]
fn round_k(r: usize) -> __m128i {
    // SAFETY: `r < 16`, so the 16 bytes at `K[4 * r]` are inside `K`.
    unsafe { _mm_loadu_si128(K.as_ptr().add(4 * r).cast()) }
}
