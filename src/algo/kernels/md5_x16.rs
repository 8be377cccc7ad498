//! MD5 (RFC 1321) over sixteen messages at once, one per 32-bit lane of
//! the AVX-512 (zmm) registers: [`super::md5_x8`]'s kernel at twice the
//! width. Each step of §3.4 is the same four-instruction chain (add,
//! `vpternlogd` round function, `vprold`, add) on all sixteen messages,
//! and a step's latency, not the instruction count, bounds the eight-lane
//! kernel: twice the lanes cost about the same time per block.
//!
//! Each 64-byte block is loaded as four 8x8 matrices of 32-bit words (two
//! groups of eight lanes, two halves of the block), transposed with the
//! eight-lane kernel's AVX2 transpose, and each word's two eight-lane
//! halves are joined into one zmm register.

use super::md5::T_TABLE;
use super::md5::{IV, compress_tuned};
use super::md5_x8::transpose8;
use crate::algo::lanes::LaneKernel;
use core::arch::x86_64::*;

/// Sixteen MD5 states, word `w` of lane `j` at `s[w * 16 + j]`; only
/// constructed where the CPU has AVX2, AVX-512F and AVX-512VL
/// (`Feature::Avx512Vl`, which also requires the OS to save zmm state).
pub(in crate::algo) struct Md5x16 {
    s: [u32; 64],
}

impl Md5x16 {
    /// Sixteen lanes at the initial state, or `None` when the CPU lacks
    /// AVX-512 (F and VL, with AVX2).
    pub(in crate::algo) fn new() -> Option<Md5x16> {
        crate::algo::cpu::Feature::Avx512Vl.detected().then(|| {
            let mut k = Md5x16 { s: [0; 64] };
            for lane in 0..16 {
                k.reset(lane);
            }
            k
        })
    }
}

impl LaneKernel for Md5x16 {
    fn lanes(&self) -> usize {
        16
    }
    fn reset(&mut self, lane: usize) {
        for (w, v) in IV.iter().enumerate() {
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
        // SAFETY: a `Md5x16` exists only where `new` found AVX2, AVX-512F
        // and AVX-512VL (`Feature::Avx512Vl.detected()`), the features
        // `compress16` enables; each pointer has `len` readable bytes
        // (checked above).
        unsafe { compress16(&mut self.s, ptrs, len / 64) }
    }
    fn compress_one(&mut self, lane: usize, blocks: &[u8]) {
        let mut st: [u32; 4] = core::array::from_fn(|w| self.s[w * 16 + lane]);
        compress_tuned(&mut st, blocks);
        for (w, v) in st.iter().enumerate() {
            self.s[w * 16 + lane] = *v;
        }
    }
    fn digest(&self, lane: usize) -> Vec<u8> {
        (0..4).flat_map(|w| self.s[w * 16 + lane].to_le_bytes()).collect()
    }
}

/// `$v` hidden from the optimizer behind an empty `asm!`, so that a + w + k
/// is summed off the step's critical path (as in [`super::md5_x8`]).
/// Expanded only inside a function that enables AVX-512F.
macro_rules! opaque {
    ($v:expr) => {{
        let mut v: __m512i = $v;
        // SAFETY: the template is a comment: no instruction, no memory
        // access, no flags; the register keeps its value.
        unsafe {
            core::arch::asm!("/* {0} */", inout(zmm_reg) v, options(pure, nomem, nostack, preserves_flags));
        }
        v
    }};
}

/// One step of §3.4 in all sixteen lanes: a = b + ((a + fn(b, c, d) + w + k)
/// <<< s), the round function as one `vpternlogd` (truth tables: F 0xCA,
/// G 0xE4, H 0x96, I 0x39), the rotation one `vprold`.
macro_rules! step16 {
    (F, $($t:tt)*) => { step16!(@ 0xCA, $($t)*) };
    (G, $($t:tt)*) => { step16!(@ 0xE4, $($t)*) };
    (H, $($t:tt)*) => { step16!(@ 0x96, $($t)*) };
    (I, $($t:tt)*) => { step16!(@ 0x39, $($t)*) };
    (@ $tt:literal, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        $a = opaque!(_mm512_add_epi32($a, _mm512_add_epi32($w, _mm512_set1_epi32($k as u32 as i32))));
        $a = _mm512_add_epi32($a, _mm512_ternarylogic_epi32::<$tt>($b, $c, $d));
        $a = _mm512_rol_epi32::<$s>($a);
        $a = _mm512_add_epi32($a, $b);
    };
}

/// Compresses `n` blocks of each lane: lane `j` reads `n * 64` bytes from
/// `p[j]`.
///
/// # Safety
/// The CPU must have AVX2, AVX-512F and AVX-512VL, and every `p[j]` must
/// point to `n * 64` readable bytes.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn compress16(s: &mut [u32; 64], p: [*const u8; 16], n: usize) {
    let ld = |k: usize| -> __m512i {
        // SAFETY: `s` has 64 words; `loadu` needs no alignment.
        unsafe { _mm512_loadu_si512(s.as_ptr().add(k * 16).cast()) }
    };
    let (mut sa, mut sb, mut sc, mut sd) = (ld(0), ld(1), ld(2), ld(3));
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
        let w: [__m512i; 16] = core::array::from_fn(|t| {
            let (a, b) = if t < 8 {
                (lo0[t], lo1[t])
            } else {
                (hi0[t - 8], hi1[t - 8])
            };
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(a), b)
        });
        let (mut a, mut b, mut c, mut d) = (sa, sb, sc, sd);
        md5_lane_steps!(step16, a, b, c, d, w);
        sa = _mm512_add_epi32(sa, a);
        sb = _mm512_add_epi32(sb, b);
        sc = _mm512_add_epi32(sc, c);
        sd = _mm512_add_epi32(sd, d);
    }
    let mut st = |k: usize, v: __m512i| {
        // SAFETY: as for the loads.
        unsafe { _mm512_storeu_si512(s.as_mut_ptr().add(k * 16).cast(), v) }
    };
    st(0, sa);
    st(1, sb);
    st(2, sc);
    st(3, sd);
}
