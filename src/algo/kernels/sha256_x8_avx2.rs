//! SHA-256 (FIPS 180-4 §6.2) over eight messages at once, one per 32-bit
//! lane of the AVX2 registers, for CPUs without the SHA extensions (where
//! the single stream runs the portable rounds). The eight working
//! variables a..h each sit in one ymm register, lane `j` belonging to
//! message `j`; the message schedule runs in sixteen more, computed a
//! round ahead of its use. Rotations are shift pairs (AVX2 has no vector
//! rotate); Ch and Maj use `andnot` and the `b ^ ((a ^ b) & (b ^ c))` form.

use super::md5_x8::transpose8;
use super::sha256::{IV_224, IV_256, K};
use crate::algo::lanes::LaneKernel;
use core::arch::x86_64::*;

/// Eight SHA-256 (or SHA-224) states, word `w` of lane `j` at
/// `s[w * 8 + j]`; only constructed where the CPU has AVX2.
pub(in crate::algo) struct Sha256x8 {
    s: [u32; 64],
    iv: [u32; 8],
    out_len: usize,
}

impl Sha256x8 {
    /// Eight lanes at SHA-256's (or, for `sha224`, SHA-224's) initial
    /// value, or `None` when the CPU lacks AVX2.
    pub(in crate::algo) fn new(sha224: bool) -> Option<Sha256x8> {
        let iv = if sha224 { IV_224 } else { IV_256 };
        let out_len = if sha224 { 28 } else { 32 };
        crate::algo::cpu::Feature::Avx2.detected().then(|| {
            let mut k = Sha256x8 {
                s: [0; 64],
                iv,
                out_len,
            };
            for lane in 0..8 {
                k.reset(lane);
            }
            k
        })
    }
}

impl LaneKernel for Sha256x8 {
    fn lanes(&self) -> usize {
        8
    }
    fn reset(&mut self, lane: usize) {
        for (w, v) in self.iv.iter().enumerate() {
            self.s[w * 8 + lane] = *v;
        }
    }
    fn compress(&mut self, blocks: &[&[u8]]) {
        assert_eq!(blocks.len(), 8, "eight lanes");
        let len = blocks[0].len();
        assert!(
            len.is_multiple_of(64) && blocks.iter().all(|b| b.len() == len),
            "whole blocks, equal lengths"
        );
        let ptrs: [*const u8; 8] = core::array::from_fn(|j| blocks[j].as_ptr());
        // SAFETY: a `Sha256x8` exists only where `new` found AVX2
        // (`Feature::Avx2.detected()`), the feature `compress8`
        // enables; each pointer has `len` readable bytes (checked above).
        unsafe { compress8(&mut self.s, ptrs, len / 64) }
    }
    fn compress_one(&mut self, lane: usize, blocks: &[u8]) {
        let mut st: [u32; 8] = core::array::from_fn(|w| self.s[w * 8 + lane]);
        let blocks: Vec<[u8; 64]> = blocks
            .chunks_exact(64)
            .map(|b| b.try_into().expect("64 bytes"))
            .collect();
        // RustCrypto's block function: SHA-NI where present (not on the
        // CPUs this kernel is chosen for), else its portable rounds.
        sha2::block_api::compress256(&mut st, &blocks);
        for (w, v) in st.iter().enumerate() {
            self.s[w * 8 + lane] = *v;
        }
    }
    fn digest(&self, lane: usize) -> Vec<u8> {
        (0..8)
            .flat_map(|w| self.s[w * 8 + lane].to_be_bytes())
            .take(self.out_len)
            .collect()
    }
}

/// Each 32-bit lane of `$x` rotated right by `$n` (`$m` = 32 - n).
macro_rules! ror {
    ($x:expr, $n:literal, $m:literal) => {
        _mm256_or_si256(_mm256_srli_epi32::<$n>($x), _mm256_slli_epi32::<$m>($x))
    };
}

/// Compresses `n` blocks of each lane: lane `j` reads `n * 64` bytes from
/// `p[j]`.
///
/// # Safety
/// The CPU must have AVX2, and every `p[j]` must point to `n * 64`
/// readable bytes.
#[target_feature(enable = "avx2")]
unsafe fn compress8(s: &mut [u32; 64], p: [*const u8; 8], n: usize) {
    let bswap = _mm256_set_epi8(
        12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1,
        2, 3,
    );
    let mut st: [__m256i; 8] = core::array::from_fn(|k| {
        // SAFETY: `s` has 64 words; `loadu` needs no alignment.
        unsafe { _mm256_loadu_si256(s.as_ptr().add(k * 8).cast()) }
    });
    for blk in 0..n {
        let off = blk * 64;
        let half = |h: usize| -> [__m256i; 8] {
            transpose8(core::array::from_fn(|j| {
                // SAFETY: `p[j]` has `n * 64` readable bytes (the caller's
                // promise) and `off + h * 32 + 32 <= n * 64`.
                unsafe { _mm256_loadu_si256(p[j].add(off + h * 32).cast()) }
            }))
        };
        let lo = half(0);
        let hi = half(1);
        // W[0..16], big-endian words.
        let mut w: [__m256i; 16] =
            core::array::from_fn(|t| _mm256_shuffle_epi8(if t < 8 { lo[t] } else { hi[t - 8] }, bswap));
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = st;
        for t in 0..64 {
            let wt = if t < 16 {
                w[t]
            } else {
                // W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], kept in
                // a ring of sixteen.
                let w2 = w[(t - 2) % 16];
                let w15 = w[(t - 15) % 16];
                let s1 = _mm256_xor_si256(
                    _mm256_xor_si256(ror!(w2, 17, 15), ror!(w2, 19, 13)),
                    _mm256_srli_epi32::<10>(w2),
                );
                let s0 = _mm256_xor_si256(
                    _mm256_xor_si256(ror!(w15, 7, 25), ror!(w15, 18, 14)),
                    _mm256_srli_epi32::<3>(w15),
                );
                let v = _mm256_add_epi32(
                    _mm256_add_epi32(s1, w[(t - 7) % 16]),
                    _mm256_add_epi32(s0, w[t % 16]),
                );
                w[t % 16] = v;
                v
            };
            let k = _mm256_set1_epi32(K[t] as i32);
            // T1 = h + Σ1(e) + Ch(e, f, g) + K[t] + W[t]
            let big_s1 = _mm256_xor_si256(_mm256_xor_si256(ror!(e, 6, 26), ror!(e, 11, 21)), ror!(e, 25, 7));
            let ch = _mm256_xor_si256(_mm256_and_si256(e, f), _mm256_andnot_si256(e, g));
            let t1 = _mm256_add_epi32(
                _mm256_add_epi32(_mm256_add_epi32(h, _mm256_add_epi32(k, wt)), ch),
                big_s1,
            );
            // T2 = Σ0(a) + Maj(a, b, c)
            let big_s0 = _mm256_xor_si256(_mm256_xor_si256(ror!(a, 2, 30), ror!(a, 13, 19)), ror!(a, 22, 10));
            let maj = _mm256_xor_si256(
                b,
                _mm256_and_si256(_mm256_xor_si256(a, b), _mm256_xor_si256(b, c)),
            );
            let t2 = _mm256_add_epi32(big_s0, maj);
            h = g;
            g = f;
            f = e;
            e = _mm256_add_epi32(d, t1);
            d = c;
            c = b;
            b = a;
            a = _mm256_add_epi32(t1, t2);
        }
        for (x, v) in st.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *x = _mm256_add_epi32(*x, v);
        }
    }
    for (k, v) in st.iter().enumerate() {
        // SAFETY: as for the loads.
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().add(k * 8).cast(), *v) }
    }
}
