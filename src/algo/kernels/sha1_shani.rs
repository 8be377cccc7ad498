//! SHA-1 (FIPS 180-4 §6.1) with the x86 SHA extensions, one stream.
//!
//! The round sequence is Intel's ("Intel SHA Extensions", 2013; also
//! RustCrypto sha1's `x86` backend and Linux's `sha1_ni_asm.S`): A..D in
//! one vector (A in the top lane), E in the top lane of another,
//! `sha1rnds4` for four rounds, `sha1nexte` for the next E plus the
//! message, and `sha1msg1`/`sha1msg2` for the schedule
//! W[t] = ROTL1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]).
//!
//! Why mhash's own: RustCrypto sha1 checks the CPU itself on first use
//! (`cpufeatures`: CPUID three times, each a trap to the hypervisor in a
//! VM, about 10 µs each on the 2-core Xeon VM), which every `sha1sum` run
//! paid at start-up; this kernel asks [`crate::algo::cpu`], which reads
//! what glibc's loader already found.

use super::Compress;
use core::arch::x86_64::*;

/// The SHA-1 state H0..H4; only constructed where the CPU has the SHA
/// extensions with SSSE3 and SSE4.1.
pub(in crate::algo) struct Sha1Ni([u32; 5]);

impl Sha1Ni {
    /// The initial hash value (FIPS 180-4 §5.3.1), or `None` when the CPU
    /// lacks SHA-NI, SSSE3 or SSE4.1.
    pub(in crate::algo) fn new() -> Option<Sha1Ni> {
        crate::algo::cpu::Feature::ShaNi
            .detected()
            .then_some(Sha1Ni(super::sha1::IV))
    }
}

impl Compress for Sha1Ni {
    const BLOCK: usize = 64;
    const LEN_BYTES: usize = 8;
    const LEN_LITTLE_ENDIAN: bool = false;
    fn compress(&mut self, blocks: &[u8]) {
        assert!(blocks.len().is_multiple_of(64), "whole blocks");
        // SAFETY: a `Sha1Ni` exists only where `new` found SHA, SSSE3 and
        // SSE4.1, the features `compress` enables; `blocks` has
        // `blocks.len()` readable bytes.
        unsafe { compress(&mut self.0, blocks.as_ptr(), blocks.len() / 64) }
    }
    fn output(&self, len: usize) -> Vec<u8> {
        self.0.iter().flat_map(|w| w.to_be_bytes()).take(len).collect()
    }
}

/// Compresses `n` blocks from `p` into `state`.
///
/// # Safety
/// The CPU must have SHA, SSSE3 and SSE4.1, and `p` must point to `n * 64`
/// readable bytes.
#[target_feature(enable = "sha,ssse3,sse4.1")]
unsafe fn compress(state: &mut [u32; 5], p: *const u8, n: usize) {
    // SAFETY: `state` has 20 bytes; the load reads the first 16.
    let dcba = unsafe { _mm_loadu_si128(state.as_ptr().cast()) };
    // A in the top lane, D in the bottom one; E in the top lane.
    let mut abcd = _mm_shuffle_epi32::<0x1B>(dcba);
    let mut e0 = _mm_set_epi32(state[4] as i32, 0, 0, 0);
    // Big-endian words, W0 in the top lane: all 16 bytes reversed.
    let reverse = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0A0B_0C0D_0E0F);
    for blk in 0..n {
        let (save_abcd, save_e) = (abcd, e0);
        super::prefetch_ahead(p.wrapping_add(blk * 64), 64);
        // SAFETY: `p` has `n * 64` readable bytes (the caller's promise)
        // and `blk * 64 + 64 <= n * 64`.
        let [mut m0, mut m1, mut m2, mut m3] = core::array::from_fn(|q| unsafe {
            _mm_shuffle_epi8(_mm_loadu_si128(p.add(blk * 64 + q * 16).cast()), reverse)
        });
        // Rounds 0-3: E plus W0..W3.
        let mut prev = abcd;
        abcd = _mm_sha1rnds4_epu32::<0>(abcd, _mm_add_epi32(e0, m0));
        // Four rounds with message group `m` and round function `f`
        // (0: Ch, 1: Parity, 2: Maj, 3: Parity; rounds 20i..20i+19): the
        // next E comes from the state four rounds back.
        macro_rules! rounds {
            ($f:literal, $m:ident) => {
                let e = _mm_sha1nexte_epu32(prev, $m);
                prev = abcd;
                abcd = _mm_sha1rnds4_epu32::<$f>(abcd, e);
            };
        }
        // The next message group into `a` from the four previous (a, b,
        // c, d, oldest first).
        macro_rules! schedule {
            ($a:ident, $b:ident, $c:ident, $d:ident) => {
                $a = _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32($a, $b), $c), $d);
            };
        }
        rounds!(0, m1);
        rounds!(0, m2);
        rounds!(0, m3);
        macro_rules! four {
            ($f0:literal, $f1:literal, $f2:literal, $f3:literal) => {
                schedule!(m0, m1, m2, m3);
                rounds!($f0, m0);
                schedule!(m1, m2, m3, m0);
                rounds!($f1, m1);
                schedule!(m2, m3, m0, m1);
                rounds!($f2, m2);
                schedule!(m3, m0, m1, m2);
                rounds!($f3, m3);
            };
        }
        // Groups 4..19 (rounds 16-79); group g uses function g / 5.
        four!(0, 1, 1, 1);
        four!(1, 1, 2, 2);
        four!(2, 2, 2, 3);
        four!(3, 3, 3, 3);
        e0 = _mm_sha1nexte_epu32(prev, save_e);
        abcd = _mm_add_epi32(abcd, save_abcd);
    }
    let dcba = _mm_shuffle_epi32::<0x1B>(abcd);
    // SAFETY: as for the load.
    unsafe { _mm_storeu_si128(state.as_mut_ptr().cast(), dcba) };
    state[4] = _mm_extract_epi32::<3>(e0) as u32;
}
