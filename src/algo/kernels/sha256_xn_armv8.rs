//! SHA-256 (FIPS 180-4 §6.2) over two or four messages at once with the
//! ARMv8 SHA2 instructions: the messages' rounds interleaved instruction by
//! instruction (`sha256h`/`sha256h2` pairs, `sha256su0`/`sha256su1` for the
//! schedule), as [`super::sha256_xn_shani`] does with SHA-NI: one stream
//! waits on each instruction's latency, several fill the pipeline. The
//! round sequence is RustCrypto sha2's `aarch64_sha2` (from mbedtls).

use super::sha256::{IV_224, IV_256, K};
use crate::algo::lanes::LaneKernel;
use core::arch::aarch64::*;

/// `N` SHA-256 (or SHA-224) states, H0..H7 each; only constructed where
/// the CPU has the ARMv8 SHA2 instructions.
pub(in crate::algo) struct Sha256xNArm<const N: usize> {
    s: [[u32; 8]; N],
    iv: [u32; 8],
    out_len: usize,
}

impl<const N: usize> Sha256xNArm<N> {
    /// `N` lanes at SHA-256's (or, for `sha224`, SHA-224's) initial value,
    /// or `None` when the CPU lacks the SHA2 instructions.
    pub(in crate::algo) fn new(sha224: bool) -> Option<Sha256xNArm<N>> {
        let iv = if sha224 { IV_224 } else { IV_256 };
        let out_len = if sha224 { 28 } else { 32 };
        std::arch::is_aarch64_feature_detected!("sha2").then_some(Sha256xNArm {
            s: [iv; N],
            iv,
            out_len,
        })
    }
}

impl<const N: usize> LaneKernel for Sha256xNArm<N> {
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
        // SAFETY: a `Sha256xNArm` exists only where `new` found the SHA2
        // instructions (`is_aarch64_feature_detected!("sha2")`), the
        // feature `compress_n` enables; each pointer has `len` readable
        // bytes.
        unsafe { compress_n::<N>(self.s.each_mut(), ptrs, len / 64) }
    }
    fn compress_one(&mut self, lane: usize, blocks: &[u8]) {
        assert!(blocks.len().is_multiple_of(64), "whole blocks");
        // SAFETY: as in `compress`; `blocks` has `blocks.len()` bytes.
        unsafe { compress_n::<1>([&mut self.s[lane]], [blocks.as_ptr()], blocks.len() / 64) }
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
/// The CPU must have the SHA2 instructions, and every `p[j]` must point to
/// `n * 64` readable bytes.
#[target_feature(enable = "neon,sha2")]
unsafe fn compress_n<const N: usize>(states: [&mut [u32; 8]; N], p: [*const u8; N], n: usize) {
    let mut abcd = [vdupq_n_u32(0); N];
    let mut efgh = [vdupq_n_u32(0); N];
    for j in 0..N {
        // SAFETY: a state is 8 words.
        unsafe {
            abcd[j] = vld1q_u32(states[j].as_ptr());
            efgh[j] = vld1q_u32(states[j].as_ptr().add(4));
        }
    }
    for blk in 0..n {
        let save = (abcd, efgh);
        let mut w = [[vdupq_n_u32(0); 4]; N];
        for j in 0..N {
            for (q, wq) in w[j].iter_mut().enumerate() {
                // SAFETY: `p[j]` has `n * 64` readable bytes (the caller's
                // promise) and `blk * 64 + q * 16 + 16 <= n * 64`; a byte
                // load needs no alignment. Words are big-endian.
                let v = unsafe { vld1q_u8(p[j].add(blk * 64 + q * 16)) };
                *wq = vreinterpretq_u32_u8(vrev32q_u8(v));
            }
        }
        for r in 0..16 {
            let q = r % 4;
            // SAFETY: `r < 16`, so K[4r..4r+4] is inside K.
            let k = unsafe { vld1q_u32(K.as_ptr().add(4 * r)) };
            for j in 0..N {
                if r >= 4 {
                    w[j][q] = vsha256su1q_u32(
                        vsha256su0q_u32(w[j][q], w[j][(q + 1) % 4]),
                        w[j][(q + 2) % 4],
                        w[j][(q + 3) % 4],
                    );
                }
                let t = vaddq_u32(w[j][q], k);
                let prev = abcd[j];
                abcd[j] = vsha256hq_u32(prev, efgh[j], t);
                efgh[j] = vsha256h2q_u32(efgh[j], prev, t);
            }
        }
        for j in 0..N {
            abcd[j] = vaddq_u32(abcd[j], save.0[j]);
            efgh[j] = vaddq_u32(efgh[j], save.1[j]);
        }
    }
    for (j, st) in states.into_iter().enumerate() {
        // SAFETY: as for the loads.
        unsafe {
            vst1q_u32(st.as_mut_ptr(), abcd[j]);
            vst1q_u32(st.as_mut_ptr().add(4), efgh[j]);
        }
    }
}
