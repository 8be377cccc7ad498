//! MD5 (RFC 1321) over eight messages at once, one per 32-bit lane of the
//! AVX2 registers: the four state words of lane `j` sit in lane `j` of
//! four ymm registers, and each step of §3.4 runs on all eight messages
//! with one instruction per operation. Each 64-byte block is loaded as
//! two 8x8 matrices of 32-bit words (8 lanes x 8 words), transposed so
//! that register `t` holds word `t` of every lane's block.
//!
//! The lanes share nothing but the instruction stream, so a step costs
//! what one scalar step costs while doing eight; what is left is the
//! per-step dependency chain (round function, add, rotate, add), the
//! same as the scalar kernel's.
//!
//! Where the CPU has AVX-512F and AVX-512VL, the same kernel runs on the
//! same ymm registers with two of their instructions: `vpternlogd` computes
//! each round function in one instruction, and `vprold` rotates in one
//! (AVX2 needs two or three, and a shift pair and an or): the dependency
//! chain of a step drops from six instructions to four.

use super::md5::T_TABLE;
use super::md5::{IV, compress_tuned};
use crate::algo::lanes::LaneKernel;
use core::arch::x86_64::*;

/// Eight MD5 states, word `w` of lane `j` at `s[w * 8 + j]`; only
/// constructed where the CPU has AVX2 (and, with `avx512`, AVX-512F/VL).
pub(in crate::algo) struct Md5x8 {
    s: [u32; 32],
    avx512: bool,
}

impl Md5x8 {
    /// Eight lanes at the initial state, or `None` when the CPU lacks AVX2
    /// (or, for the `avx512` kernel, AVX-512F and AVX-512VL).
    pub(in crate::algo) fn new(avx512: bool) -> Option<Md5x8> {
        use crate::algo::cpu::Feature;
        let ok = Feature::Avx2.detected() && (!avx512 || Feature::Avx512Vl.detected());
        ok.then(|| {
            let mut k = Md5x8 { s: [0; 32], avx512 };
            for lane in 0..8 {
                k.reset(lane);
            }
            k
        })
    }
}

impl LaneKernel for Md5x8 {
    fn lanes(&self) -> usize {
        8
    }
    fn reset(&mut self, lane: usize) {
        for (w, v) in IV.iter().enumerate() {
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
        if self.avx512 {
            // SAFETY: a `Md5x8` with `avx512` exists only where `new` found
            // AVX2, AVX-512F and AVX-512VL (`Feature::Avx512Vl.detected()`), the
            // features `compress8_avx512` enables; each pointer has `len`
            // readable bytes (checked above).
            unsafe { compress8_avx512(&mut self.s, ptrs, len / 64) }
        } else {
            // SAFETY: a `Md5x8` exists only where `new` found AVX2
            // (`Feature::Avx2.detected()`), the feature `compress8`
            // enables; each pointer has `len` readable bytes (checked above).
            unsafe { compress8(&mut self.s, ptrs, len / 64) }
        }
    }
    fn compress_one(&mut self, lane: usize, blocks: &[u8]) {
        let mut st: [u32; 4] = core::array::from_fn(|w| self.s[w * 8 + lane]);
        compress_tuned(&mut st, blocks);
        for (w, v) in st.iter().enumerate() {
            self.s[w * 8 + lane] = *v;
        }
    }
    fn digest(&self, lane: usize) -> Vec<u8> {
        (0..4).flat_map(|w| self.s[w * 8 + lane].to_le_bytes()).collect()
    }
}

/// (b & c) | (!b & d), as ((c ^ d) & b) ^ d.
macro_rules! f {
    ($b:expr, $c:expr, $d:expr) => {
        _mm256_xor_si256(_mm256_and_si256(_mm256_xor_si256($c, $d), $b), $d)
    };
}
/// (b & d) | (c & !d): the terms share no bit, so an add joins them.
macro_rules! g {
    ($b:expr, $c:expr, $d:expr) => {
        _mm256_or_si256(_mm256_and_si256($b, $d), _mm256_andnot_si256($d, $c))
    };
}
macro_rules! h {
    ($b:expr, $c:expr, $d:expr) => {
        _mm256_xor_si256(_mm256_xor_si256($c, $d), $b)
    };
}
/// c ^ (b | !d).
macro_rules! i {
    ($b:expr, $c:expr, $d:expr) => {
        _mm256_xor_si256(
            $c,
            _mm256_or_si256($b, _mm256_xor_si256($d, _mm256_set1_epi32(-1))),
        )
    };
}

/// `$v` hidden from the optimizer behind an empty `asm!` (as
/// [`super::opaque`] does for the scalar kernel), so that it cannot
/// re-associate the additions: a + w + k is summed before the round
/// function is ready, off the step's critical path (which is then round
/// function, add, rotate, add). Expanded only inside a function that
/// enables AVX2.
macro_rules! opaque {
    ($v:expr) => {{
        let mut v: __m256i = $v;
        // SAFETY: the template is a comment: no instruction, no memory
        // access, no flags; the register keeps its value.
        unsafe {
            core::arch::asm!("/* {0} */", inout(ymm_reg) v, options(pure, nomem, nostack, preserves_flags));
        }
        v
    }};
}

/// One step of §3.4 in all lanes: a = b + ((a + fn(b, c, d) + w + k) <<< s),
/// `$r` being 32 - s.
macro_rules! step {
    (F, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        step!(@ f, $a, $b, $c, $d, $w, $k, $s, $r)
    };
    (G, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        step!(@ g, $a, $b, $c, $d, $w, $k, $s, $r)
    };
    (H, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        step!(@ h, $a, $b, $c, $d, $w, $k, $s, $r)
    };
    (I, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        step!(@ i, $a, $b, $c, $d, $w, $k, $s, $r)
    };
    (@ $f:ident, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        $a = opaque!(_mm256_add_epi32($a, _mm256_add_epi32($w, _mm256_set1_epi32($k as u32 as i32))));
        $a = _mm256_add_epi32($a, $f!($b, $c, $d));
        $a = _mm256_or_si256(_mm256_slli_epi32::<$s>($a), _mm256_srli_epi32::<$r>($a));
        $a = _mm256_add_epi32($a, $b);
    };
}

/// `vpternlogd` on ymm registers: bit `i` of the result is bit
/// `(a_i << 2) | (b_i << 1) | c_i` of the truth table `$tt`. Written as
/// `asm!` (the intrinsic needs Rust 1.89, past mhash's minimum); expanded
/// only inside a function that enables AVX-512F and AVX-512VL.
macro_rules! ternlog {
    ($tt:literal, $a:expr, $b:expr, $c:expr) => {{
        let mut a: __m256i = $a;
        // SAFETY: register operands only (no memory, no flags, no
        // stack); the enclosing function enables AVX-512F and AVX-512VL.
        unsafe {
            core::arch::asm!(
                "vpternlogd {a}, {b}, {c}, {tt}",
                a = inout(ymm_reg) a,
                b = in(ymm_reg) $b,
                c = in(ymm_reg) $c,
                tt = const $tt,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        a
    }};
}

/// `vprold`: each 32-bit lane rotated left by `$s` (as [`ternlog!`]).
macro_rules! rol {
    ($s:literal, $x:expr) => {{
        let r: __m256i;
        // SAFETY: as in `ternlog!`.
        unsafe {
            core::arch::asm!(
                "vprold {r}, {x}, {s}",
                r = lateout(ymm_reg) r,
                x = in(ymm_reg) $x,
                s = const $s,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        r
    }};
}

/// [`step!`] with AVX-512VL: the round function in one `vpternlogd` (its
/// truth table: F 0xCA, G 0xE4, H 0x96, I 0x39), the rotation in one
/// `vprold`.
macro_rules! step512 {
    (F, $($t:tt)*) => { step512!(@ 0xCA, $($t)*) };
    (G, $($t:tt)*) => { step512!(@ 0xE4, $($t)*) };
    (H, $($t:tt)*) => { step512!(@ 0x96, $($t)*) };
    (I, $($t:tt)*) => { step512!(@ 0x39, $($t)*) };
    (@ $tt:literal, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        $a = opaque!(_mm256_add_epi32($a, _mm256_add_epi32($w, _mm256_set1_epi32($k as u32 as i32))));
        $a = _mm256_add_epi32($a, ternlog!($tt, $b, $c, $d));
        $a = rol!($s, $a);
        $a = _mm256_add_epi32($a, $b);
    };
}

/// Transposes eight rows of eight 32-bit words (row `j` = lane `j`) so
/// that result `t` holds word `t` of every row.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn transpose8(r: [__m256i; 8]) -> [__m256i; 8] {
    let t0 = _mm256_unpacklo_epi32(r[0], r[1]);
    let t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    let t2 = _mm256_unpacklo_epi32(r[2], r[3]);
    let t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    let t4 = _mm256_unpacklo_epi32(r[4], r[5]);
    let t5 = _mm256_unpackhi_epi32(r[4], r[5]);
    let t6 = _mm256_unpacklo_epi32(r[6], r[7]);
    let t7 = _mm256_unpackhi_epi32(r[6], r[7]);
    // u0: words 0 | 4 of rows 0-3; u1: 1 | 5; u2: 2 | 6; u3: 3 | 7.
    let u0 = _mm256_unpacklo_epi64(t0, t2);
    let u1 = _mm256_unpackhi_epi64(t0, t2);
    let u2 = _mm256_unpacklo_epi64(t1, t3);
    let u3 = _mm256_unpackhi_epi64(t1, t3);
    let u4 = _mm256_unpacklo_epi64(t4, t6);
    let u5 = _mm256_unpackhi_epi64(t4, t6);
    let u6 = _mm256_unpacklo_epi64(t5, t7);
    let u7 = _mm256_unpackhi_epi64(t5, t7);
    [
        _mm256_permute2x128_si256::<0x20>(u0, u4),
        _mm256_permute2x128_si256::<0x20>(u1, u5),
        _mm256_permute2x128_si256::<0x20>(u2, u6),
        _mm256_permute2x128_si256::<0x20>(u3, u7),
        _mm256_permute2x128_si256::<0x31>(u0, u4),
        _mm256_permute2x128_si256::<0x31>(u1, u5),
        _mm256_permute2x128_si256::<0x31>(u2, u6),
        _mm256_permute2x128_si256::<0x31>(u3, u7),
    ]
}

/// Compresses `n` blocks of each lane: lane `j` reads `n * 64` bytes from
/// `p[j]`.
///
/// # Safety
/// The CPU must have AVX2, and every `p[j]` must point to `n * 64`
/// readable bytes.
#[target_feature(enable = "avx2")]
unsafe fn compress8(s: &mut [u32; 32], p: [*const u8; 8], n: usize) {
    let ld = |k: usize| -> __m256i {
        // SAFETY: `s` has 32 words; `loadu` needs no alignment.
        unsafe { _mm256_loadu_si256(s.as_ptr().add(k * 8).cast()) }
    };
    let (mut sa, mut sb, mut sc, mut sd) = (ld(0), ld(1), ld(2), ld(3));
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
        let w: [__m256i; 16] = core::array::from_fn(|t| if t < 8 { lo[t] } else { hi[t - 8] });
        let (mut a, mut b, mut c, mut d) = (sa, sb, sc, sd);
        md5_lane_steps!(step, a, b, c, d, w);
        sa = _mm256_add_epi32(sa, a);
        sb = _mm256_add_epi32(sb, b);
        sc = _mm256_add_epi32(sc, c);
        sd = _mm256_add_epi32(sd, d);
    }
    let mut st = |k: usize, v: __m256i| {
        // SAFETY: as for the loads.
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().add(k * 8).cast(), v) }
    };
    st(0, sa);
    st(1, sb);
    st(2, sc);
    st(3, sd);
}

/// [`compress8`] with the AVX-512VL round functions and rotations.
///
/// # Safety
/// The CPU must have AVX2, AVX-512F and AVX-512VL, and every `p[j]` must point to `n * 64`
/// readable bytes.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn compress8_avx512(s: &mut [u32; 32], p: [*const u8; 8], n: usize) {
    let ld = |k: usize| -> __m256i {
        // SAFETY: `s` has 32 words; `loadu` needs no alignment.
        unsafe { _mm256_loadu_si256(s.as_ptr().add(k * 8).cast()) }
    };
    let (mut sa, mut sb, mut sc, mut sd) = (ld(0), ld(1), ld(2), ld(3));
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
        let w: [__m256i; 16] = core::array::from_fn(|t| if t < 8 { lo[t] } else { hi[t - 8] });
        let (mut a, mut b, mut c, mut d) = (sa, sb, sc, sd);
        md5_lane_steps!(step512, a, b, c, d, w);
        sa = _mm256_add_epi32(sa, a);
        sb = _mm256_add_epi32(sb, b);
        sc = _mm256_add_epi32(sc, c);
        sd = _mm256_add_epi32(sd, d);
    }
    let mut st = |k: usize, v: __m256i| {
        // SAFETY: as for the loads.
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().add(k * 8).cast(), v) }
    };
    st(0, sa);
    st(1, sb);
    st(2, sc);
    st(3, sd);
}
