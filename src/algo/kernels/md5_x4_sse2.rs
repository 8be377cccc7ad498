//! MD5 (RFC 1321) over four messages at once, one per 32-bit lane of the
//! SSE2 registers every x86-64 CPU has: [`super::md5_x8`]'s kernel at half
//! the width, for CPUs without AVX2. Each 64-byte block is loaded as four
//! 4x4 matrices of 32-bit words, transposed so that register `t` holds
//! word `t` of every lane's block.

use super::md5::T_TABLE;
use super::md5::{IV, compress_tuned};
use crate::algo::lanes::LaneKernel;
use core::arch::x86_64::*;

/// Four MD5 states, word `w` of lane `j` at `s[w * 4 + j]`.
pub(in crate::algo) struct Md5x4 {
    s: [u32; 16],
}

impl Md5x4 {
    /// Four lanes at the initial state (SSE2 is part of x86-64).
    pub(in crate::algo) fn new() -> Md5x4 {
        let mut k = Md5x4 { s: [0; 16] };
        for lane in 0..4 {
            k.reset(lane);
        }
        k
    }
}

impl LaneKernel for Md5x4 {
    fn lanes(&self) -> usize {
        4
    }
    fn reset(&mut self, lane: usize) {
        for (w, v) in IV.iter().enumerate() {
            self.s[w * 4 + lane] = *v;
        }
    }
    fn compress(&mut self, blocks: &[&[u8]]) {
        assert_eq!(blocks.len(), 4, "four lanes");
        let len = blocks[0].len();
        assert!(
            len.is_multiple_of(64) && blocks.iter().all(|b| b.len() == len),
            "whole blocks, equal lengths"
        );
        let ptrs: [*const u8; 4] = core::array::from_fn(|j| blocks[j].as_ptr());
        // SAFETY: SSE2 is part of the x86-64 baseline (no run-time check
        // needed); each pointer has `len` readable bytes (checked above).
        unsafe { compress4(&mut self.s, ptrs, len / 64) }
    }
    fn compress_one(&mut self, lane: usize, blocks: &[u8]) {
        let mut st: [u32; 4] = core::array::from_fn(|w| self.s[w * 4 + lane]);
        compress_tuned(&mut st, blocks);
        for (w, v) in st.iter().enumerate() {
            self.s[w * 4 + lane] = *v;
        }
    }
    fn digest(&self, lane: usize) -> Vec<u8> {
        (0..4).flat_map(|w| self.s[w * 4 + lane].to_le_bytes()).collect()
    }
}

/// `$v` hidden from the optimizer (see `md5_x8`'s `opaque!`).
macro_rules! opaque {
    ($v:expr) => {{
        let mut v: __m128i = $v;
        // SAFETY: the template is a comment: no instruction, no memory
        // access, no flags; the register keeps its value.
        unsafe {
            core::arch::asm!("/* {0} */", inout(xmm_reg) v, options(pure, nomem, nostack, preserves_flags));
        }
        v
    }};
}

/// One step of §3.4 in all lanes: a = b + ((a + fn(b, c, d) + w + k) <<< s),
/// `$r` being 32 - s.
macro_rules! step {
    (F, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        step!(@ _mm_xor_si128(_mm_and_si128(_mm_xor_si128($c, $d), $b), $d), $a, $b, $w, $k, $s, $r)
    };
    (G, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        step!(@ _mm_or_si128(_mm_and_si128($b, $d), _mm_andnot_si128($d, $c)), $a, $b, $w, $k, $s, $r)
    };
    (H, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        step!(@ _mm_xor_si128(_mm_xor_si128($c, $d), $b), $a, $b, $w, $k, $s, $r)
    };
    (I, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        step!(@ _mm_xor_si128($c, _mm_or_si128($b, _mm_xor_si128($d, _mm_set1_epi32(-1)))), $a, $b, $w, $k, $s, $r)
    };
    (@ $f:expr, $a:ident, $b:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        $a = opaque!(_mm_add_epi32($a, _mm_add_epi32($w, _mm_set1_epi32($k as u32 as i32))));
        $a = _mm_add_epi32($a, $f);
        $a = _mm_or_si128(_mm_slli_epi32::<$s>($a), _mm_srli_epi32::<$r>($a));
        $a = _mm_add_epi32($a, $b);
    };
}

/// Transposes four rows of four 32-bit words (row `j` = lane `j`).
#[inline]
#[target_feature(enable = "sse2")]
fn transpose4(r: [__m128i; 4]) -> [__m128i; 4] {
    let t0 = _mm_unpacklo_epi32(r[0], r[1]);
    let t1 = _mm_unpacklo_epi32(r[2], r[3]);
    let t2 = _mm_unpackhi_epi32(r[0], r[1]);
    let t3 = _mm_unpackhi_epi32(r[2], r[3]);
    [
        _mm_unpacklo_epi64(t0, t1),
        _mm_unpackhi_epi64(t0, t1),
        _mm_unpacklo_epi64(t2, t3),
        _mm_unpackhi_epi64(t2, t3),
    ]
}

/// Compresses `n` blocks of each lane: lane `j` reads `n * 64` bytes from
/// `p[j]`.
///
/// # Safety
/// Every `p[j]` must point to `n * 64` readable bytes.
#[target_feature(enable = "sse2")]
unsafe fn compress4(s: &mut [u32; 16], p: [*const u8; 4], n: usize) {
    let ld = |k: usize| -> __m128i {
        // SAFETY: `s` has 16 words; `loadu` needs no alignment.
        unsafe { _mm_loadu_si128(s.as_ptr().add(k * 4).cast()) }
    };
    let (mut sa, mut sb, mut sc, mut sd) = (ld(0), ld(1), ld(2), ld(3));
    for blk in 0..n {
        let off = blk * 64;
        let quarter = |q: usize| -> [__m128i; 4] {
            transpose4(core::array::from_fn(|j| {
                // SAFETY: `p[j]` has `n * 64` readable bytes (the caller's
                // promise) and `off + q * 16 + 16 <= n * 64`.
                unsafe { _mm_loadu_si128(p[j].add(off + q * 16).cast()) }
            }))
        };
        let (q0, q1, q2, q3) = (quarter(0), quarter(1), quarter(2), quarter(3));
        let w: [__m128i; 16] = core::array::from_fn(|t| match t / 4 {
            0 => q0[t % 4],
            1 => q1[t % 4],
            2 => q2[t % 4],
            _ => q3[t % 4],
        });
        let (mut a, mut b, mut c, mut d) = (sa, sb, sc, sd);
        md5_lane_steps!(step, a, b, c, d, w);
        sa = _mm_add_epi32(sa, a);
        sb = _mm_add_epi32(sb, b);
        sc = _mm_add_epi32(sc, c);
        sd = _mm_add_epi32(sd, d);
    }
    let mut st = |k: usize, v: __m128i| {
        // SAFETY: as for the loads.
        unsafe { _mm_storeu_si128(s.as_mut_ptr().add(k * 4).cast(), v) }
    };
    st(0, sa);
    st(1, sb);
    st(2, sc);
    st(3, sd);
}
