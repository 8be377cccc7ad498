//! MD5 (RFC 1321) over four messages at once, one per 32-bit lane of the
//! AArch64 NEON (Advanced SIMD) registers every ARMv8-A CPU has: the
//! kernel of [`super::md5_x4_sse2`] with NEON instructions (`bic` and `orn`
//! give G's `c & !d` and I's `b | !d` in one instruction each).

use super::md5::T_TABLE;
use super::md5::{IV, compress_tuned};
use crate::algo::lanes::LaneKernel;
use core::arch::aarch64::*;

/// Four MD5 states, word `w` of lane `j` at `s[w * 4 + j]`.
pub(in crate::algo) struct Md5x4Neon {
    s: [u32; 16],
}

impl Md5x4Neon {
    /// Four lanes at the initial state (NEON is part of ARMv8-A).
    pub(in crate::algo) fn new() -> Md5x4Neon {
        let mut k = Md5x4Neon { s: [0; 16] };
        for lane in 0..4 {
            k.reset(lane);
        }
        k
    }
}

impl LaneKernel for Md5x4Neon {
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
        // SAFETY: NEON is part of the aarch64 baseline (the target enables
        // it; no run-time check needed); each pointer has `len` readable
        // bytes (checked above).
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
        let mut v: uint32x4_t = $v;
        // SAFETY: the template is a comment: no instruction, no memory
        // access, no flags; the register keeps its value.
        unsafe {
            core::arch::asm!("/* {0:v} */", inout(vreg) v, options(pure, nomem, nostack, preserves_flags));
        }
        v
    }};
}

/// One step of §3.4 in all lanes: a = b + ((a + fn(b, c, d) + w + k) <<< s),
/// `$r` being 32 - s.
macro_rules! step {
    (F, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        step!(@ veorq_u32(vandq_u32(veorq_u32($c, $d), $b), $d), $a, $b, $w, $k, $s, $r)
    };
    (G, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        step!(@ vorrq_u32(vandq_u32($b, $d), vbicq_u32($c, $d)), $a, $b, $w, $k, $s, $r)
    };
    (H, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        step!(@ veorq_u32(veorq_u32($c, $d), $b), $a, $b, $w, $k, $s, $r)
    };
    (I, $a:ident, $b:ident, $c:ident, $d:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        step!(@ veorq_u32($c, vornq_u32($b, $d)), $a, $b, $w, $k, $s, $r)
    };
    (@ $f:expr, $a:ident, $b:ident, $w:expr, $k:expr, $s:literal, $r:literal) => {
        $a = opaque!(vaddq_u32($a, vaddq_u32($w, vdupq_n_u32($k))));
        $a = vaddq_u32($a, $f);
        $a = vsriq_n_u32::<$r>(vshlq_n_u32::<$s>($a), $a);
        $a = vaddq_u32($a, $b);
    };
}

/// Transposes four rows of four 32-bit words (row `j` = lane `j`).
#[inline]
#[target_feature(enable = "neon")]
fn transpose4(r: [uint32x4_t; 4]) -> [uint32x4_t; 4] {
    let t0 = vreinterpretq_u64_u32(vtrn1q_u32(r[0], r[1]));
    let t1 = vreinterpretq_u64_u32(vtrn2q_u32(r[0], r[1]));
    let t2 = vreinterpretq_u64_u32(vtrn1q_u32(r[2], r[3]));
    let t3 = vreinterpretq_u64_u32(vtrn2q_u32(r[2], r[3]));
    [
        vreinterpretq_u32_u64(vtrn1q_u64(t0, t2)),
        vreinterpretq_u32_u64(vtrn1q_u64(t1, t3)),
        vreinterpretq_u32_u64(vtrn2q_u64(t0, t2)),
        vreinterpretq_u32_u64(vtrn2q_u64(t1, t3)),
    ]
}

/// Compresses `n` blocks of each lane: lane `j` reads `n * 64` bytes from
/// `p[j]`.
///
/// # Safety
/// The CPU must have NEON (every ARMv8-A CPU does), and every `p[j]` must
/// point to `n * 64` readable bytes.
#[target_feature(enable = "neon")]
unsafe fn compress4(s: &mut [u32; 16], p: [*const u8; 4], n: usize) {
    let ld = |k: usize| -> uint32x4_t {
        // SAFETY: `s` has 16 words, `k * 4 + 4 <= 16`.
        unsafe { vld1q_u32(s.as_ptr().add(k * 4)) }
    };
    let (mut sa, mut sb, mut sc, mut sd) = (ld(0), ld(1), ld(2), ld(3));
    for blk in 0..n {
        let off = blk * 64;
        let quarter = |q: usize| -> [uint32x4_t; 4] {
            transpose4(core::array::from_fn(|j| {
                // SAFETY: `p[j]` has `n * 64` readable bytes (the caller's
                // promise) and `off + q * 16 + 16 <= n * 64`; a byte load
                // needs no alignment. Little-endian words, as MD5 reads them.
                vreinterpretq_u32_u8(unsafe { vld1q_u8(p[j].add(off + q * 16)) })
            }))
        };
        let (q0, q1, q2, q3) = (quarter(0), quarter(1), quarter(2), quarter(3));
        let w: [uint32x4_t; 16] = core::array::from_fn(|t| match t / 4 {
            0 => q0[t % 4],
            1 => q1[t % 4],
            2 => q2[t % 4],
            _ => q3[t % 4],
        });
        let (mut a, mut b, mut c, mut d) = (sa, sb, sc, sd);
        md5_lane_steps!(step, a, b, c, d, w);
        sa = vaddq_u32(sa, a);
        sb = vaddq_u32(sb, b);
        sc = vaddq_u32(sc, c);
        sd = vaddq_u32(sd, d);
    }
    for (k, v) in [sa, sb, sc, sd].into_iter().enumerate() {
        // SAFETY: as for the loads.
        unsafe { vst1q_u32(s.as_mut_ptr().add(k * 4), v) }
    }
}
