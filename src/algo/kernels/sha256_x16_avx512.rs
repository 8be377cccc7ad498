//! SHA-256 (FIPS 180-4 §6.2) over sixteen messages at once, one per 32-bit
//! lane of the AVX-512 (zmm) registers: [`super::sha256_x8_avx2`]'s
//! kernel at twice the width, with AVX-512's own rotate (`vprord`) in
//! place of shift pairs and each three-input function as one `vpternlogd`
//! (Ch 0xCA, Maj 0xE8, the XOR of the three rotations 0x96). Blocks are
//! loaded as [`super::md5_x16`] loads them: four 8x8 transposes joined
//! into zmm registers.

use super::md5_x8::transpose8;
use super::sha256::{IV_224, IV_256, K};
use crate::algo::lanes::LaneKernel;
use core::arch::x86_64::*;

/// Sixteen SHA-256 (or SHA-224) states, word `w` of lane `j` at
/// `s[w * 16 + j]`; only constructed where the CPU has AVX2, AVX-512F and
/// AVX-512VL (`Feature::Avx512Vl`, which also requires the OS to save zmm
/// state).
pub(in crate::algo) struct Sha256x16 {
    s: [u32; 128],
    iv: [u32; 8],
    out_len: usize,
}

impl Sha256x16 {
    /// Sixteen lanes at SHA-256's (or, for `sha224`, SHA-224's) initial
    /// value, or `None` when the CPU lacks AVX-512 (F and VL, with AVX2).
    pub(in crate::algo) fn new(sha224: bool) -> Option<Sha256x16> {
        let iv = if sha224 { IV_224 } else { IV_256 };
        let out_len = if sha224 { 28 } else { 32 };
        crate::algo::cpu::Feature::Avx512Vl.detected().then(|| {
            let mut k = Sha256x16 {
                s: [0; 128],
                iv,
                out_len,
            };
            for lane in 0..16 {
                k.reset(lane);
            }
            k
        })
    }
}

impl LaneKernel for Sha256x16 {
    fn lanes(&self) -> usize {
        16
    }
    fn reset(&mut self, lane: usize) {
        for (w, v) in self.iv.iter().enumerate() {
            self.s[w * 16 + lane] = *v;
        }
    }
    fn compress(&mut self, blocks: &[&[u8]]) {
        assert_eq!(blocks.len(), 16, "sixteen lanes");
        let len = blocks[0].len();
        assert!(
            len.is_multiple_of(64) && blocks.iter().all(|b| b.len() == len),
            "whole blocks, equal lengths"
        );
        let ptrs: [*const u8; 16] = core::array::from_fn(|j| blocks[j].as_ptr());
        // SAFETY: a `Sha256x16` exists only where `new` found AVX2,
        // AVX-512F and AVX-512VL (`Feature::Avx512Vl.detected()`), the
        // features `compress16` enables; each pointer has `len` readable
        // bytes (checked above).
        unsafe { compress16(&mut self.s, ptrs, len / 64) }
    }
    fn compress_one(&mut self, lane: usize, blocks: &[u8]) {
        let mut st: [u32; 8] = core::array::from_fn(|w| self.s[w * 16 + lane]);
        let blocks: Vec<[u8; 64]> = blocks
            .chunks_exact(64)
            .map(|b| b.try_into().expect("64 bytes"))
            .collect();
        // RustCrypto's block function (SHA-NI where present, else its
        // portable rounds).
        sha2::block_api::compress256(&mut st, &blocks);
        for (w, v) in st.iter().enumerate() {
            self.s[w * 16 + lane] = *v;
        }
    }
    fn digest(&self, lane: usize) -> Vec<u8> {
        (0..8)
            .flat_map(|w| self.s[w * 16 + lane].to_be_bytes())
            .take(self.out_len)
            .collect()
    }
}

/// XOR of `x` rotated right by each of three counts, one `vpternlogd`.
macro_rules! rors3 {
    ($x:expr, $a:literal, $b:literal, $c:literal) => {
        _mm512_ternarylogic_epi32::<0x96>(
            _mm512_ror_epi32::<$a>($x),
            _mm512_ror_epi32::<$b>($x),
            _mm512_ror_epi32::<$c>($x),
        )
    };
}

/// Compresses `n` blocks of each lane: lane `j` reads `n * 64` bytes from
/// `p[j]`.
///
/// # Safety
/// The CPU must have AVX2, AVX-512F and AVX-512VL, and every `p[j]` must
/// point to `n * 64` readable bytes.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn compress16(s: &mut [u32; 128], p: [*const u8; 16], n: usize) {
    let bswap = _mm256_set_epi8(
        12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1,
        2, 3,
    );
    let mut st: [__m512i; 8] = core::array::from_fn(|k| {
        // SAFETY: `s` has 128 words; `loadu` needs no alignment.
        unsafe { _mm512_loadu_si512(s.as_ptr().add(k * 16).cast()) }
    });
    for blk in 0..n {
        let off = blk * 64;
        // Words 8h..8h+8 of lanes 8g..8g+8, one register per word.
        let quarter = |g: usize, h: usize| -> [__m256i; 8] {
            transpose8(core::array::from_fn(|j| {
                // SAFETY: `p[8g + j]` has `n * 64` readable bytes (the
                // caller's promise) and `off + h * 32 + 32 <= n * 64`.
                unsafe { _mm256_loadu_si256(p[8 * g + j].add(off + h * 32).cast()) }
            }))
        };
        let (lo0, lo1, hi0, hi1) = (quarter(0, 0), quarter(1, 0), quarter(0, 1), quarter(1, 1));
        // W[0..16], big-endian words.
        let mut w: [__m512i; 16] = core::array::from_fn(|t| {
            let (a, b) = if t < 8 {
                (lo0[t], lo1[t])
            } else {
                (hi0[t - 8], hi1[t - 8])
            };
            let (a, b) = (_mm256_shuffle_epi8(a, bswap), _mm256_shuffle_epi8(b, bswap));
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(a), b)
        });
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = st;
        for t in 0..64 {
            let wt = if t < 16 {
                w[t]
            } else {
                // W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], kept in
                // a ring of sixteen.
                let w2 = w[(t - 2) % 16];
                let w15 = w[(t - 15) % 16];
                let s1 = _mm512_ternarylogic_epi32::<0x96>(
                    _mm512_ror_epi32::<17>(w2),
                    _mm512_ror_epi32::<19>(w2),
                    _mm512_srli_epi32::<10>(w2),
                );
                let s0 = _mm512_ternarylogic_epi32::<0x96>(
                    _mm512_ror_epi32::<7>(w15),
                    _mm512_ror_epi32::<18>(w15),
                    _mm512_srli_epi32::<3>(w15),
                );
                let v = _mm512_add_epi32(
                    _mm512_add_epi32(s1, w[(t - 7) % 16]),
                    _mm512_add_epi32(s0, w[t % 16]),
                );
                w[t % 16] = v;
                v
            };
            let k = _mm512_set1_epi32(K[t] as i32);
            // T1 = h + Σ1(e) + Ch(e, f, g) + K[t] + W[t]
            let ch = _mm512_ternarylogic_epi32::<0xCA>(e, f, g);
            let t1 = _mm512_add_epi32(
                _mm512_add_epi32(_mm512_add_epi32(h, _mm512_add_epi32(k, wt)), ch),
                rors3!(e, 6, 11, 25),
            );
            // T2 = Σ0(a) + Maj(a, b, c)
            let maj = _mm512_ternarylogic_epi32::<0xE8>(a, b, c);
            let t2 = _mm512_add_epi32(rors3!(a, 2, 13, 22), maj);
            h = g;
            g = f;
            f = e;
            e = _mm512_add_epi32(d, t1);
            d = c;
            c = b;
            b = a;
            a = _mm512_add_epi32(t1, t2);
        }
        for (x, v) in st.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *x = _mm512_add_epi32(*x, v);
        }
    }
    for (k, v) in st.iter().enumerate() {
        // SAFETY: as for the loads.
        unsafe { _mm512_storeu_si512(s.as_mut_ptr().add(k * 16).cast(), *v) }
    }
}
