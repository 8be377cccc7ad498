//! SHA3-224/256/384/512 (FIPS 202) with Keccak-f\[1600\] on AVX-512VL,
//! one lane per 128-bit register: the 25 lanes of the state in 25 `xmm`
//! registers (the low 64 bits used), so pi is only a renaming of
//! registers and no lane is ever moved within a register. Each round is
//! 90 instructions: theta's column parities in two `vpternlogq` per
//! column, `D[x]` folded into one three-input XOR per lane (`A ^ C[x-1] ^
//! rot(C[x+1], 1)`), rho in one `vprolq` per lane, chi in one
//! `vpternlogq` per lane (`a ^ (!b & c)`), iota one XOR. Against the
//! row-register layout of [`super::sha3_avx512`] (27 permutations and 20
//! blends per two rounds, the CRYPTOGAMS `keccak1600-avx512` idea) it
//! trades every shuffle for more, cheaper instructions.
//!
//! Written from FIPS 202 §3.2; the sponge around it is
//! [`super::sha3::Sha3`]. Known-answer tests: the unit tests below against
//! the `sha3` crate at every length around the rate, and tests/vectors.rs
//! (NIST's SHA3 byte-oriented vectors) through the backend table.

use core::arch::x86_64::*;

#[cfg(test)]
use super::sha3::RHO;
use super::sha3::{Permutation, RC, Sha3};

#[target_feature(enable = "avx512f,avx512vl")]
#[inline]
fn xor3(a: __m128i, b: __m128i, c: __m128i) -> __m128i {
    _mm_ternarylogic_epi64::<0x96>(a, b, c)
}

/// Chi's `a ^ (!b & c)`.
#[target_feature(enable = "avx512f,avx512vl")]
#[inline]
fn chi(a: __m128i, b: __m128i, c: __m128i) -> __m128i {
    _mm_ternarylogic_epi64::<0xD2>(a, b, c)
}

#[cfg(test)]
/// Pi's destination of lane `i = x + 5y`: `B[y, 2x + 3y] = A[x, y]`
/// (FIPS 202 §3.2.3, `A'[x, y] = A[(x + 3y) mod 5, x]`, read forwards).
const fn pi_dest(i: usize) -> usize {
    let (x, y) = (i % 5, i / 5);
    y + 5 * ((2 * x + 3 * y) % 5)
}

/// One round of Keccak-f\[1600\] with round constant `rc`, written out
/// lane by lane (generated: indices and rotations are literals, so no
/// lane is looked up at run time): theta's parities `cX`, their rotations
/// `rX`, then `bD = rot(A[i] ^ c[x-1] ^ r[x+1], RHO[i])` with `D` pi's
/// destination of lane `i` (FIPS 202 §3.2.3), then chi and iota.
#[target_feature(enable = "avx512f,avx512vl")]
#[inline]
fn round(a: &mut [__m128i; 25], rc: u64) {
    let c0 = xor3(xor3(a[0], a[5], a[10]), a[15], a[20]);
    let c1 = xor3(xor3(a[1], a[6], a[11]), a[16], a[21]);
    let c2 = xor3(xor3(a[2], a[7], a[12]), a[17], a[22]);
    let c3 = xor3(xor3(a[3], a[8], a[13]), a[18], a[23]);
    let c4 = xor3(xor3(a[4], a[9], a[14]), a[19], a[24]);
    let r0 = _mm_rol_epi64::<1>(c0);
    let r1 = _mm_rol_epi64::<1>(c1);
    let r2 = _mm_rol_epi64::<1>(c2);
    let r3 = _mm_rol_epi64::<1>(c3);
    let r4 = _mm_rol_epi64::<1>(c4);
    let b0 = xor3(a[0], c4, r1);
    let b10 = _mm_rol_epi64::<1>(xor3(a[1], c0, r2));
    let b20 = _mm_rol_epi64::<62>(xor3(a[2], c1, r3));
    let b5 = _mm_rol_epi64::<28>(xor3(a[3], c2, r4));
    let b15 = _mm_rol_epi64::<27>(xor3(a[4], c3, r0));
    let b16 = _mm_rol_epi64::<36>(xor3(a[5], c4, r1));
    let b1 = _mm_rol_epi64::<44>(xor3(a[6], c0, r2));
    let b11 = _mm_rol_epi64::<6>(xor3(a[7], c1, r3));
    let b21 = _mm_rol_epi64::<55>(xor3(a[8], c2, r4));
    let b6 = _mm_rol_epi64::<20>(xor3(a[9], c3, r0));
    let b7 = _mm_rol_epi64::<3>(xor3(a[10], c4, r1));
    let b17 = _mm_rol_epi64::<10>(xor3(a[11], c0, r2));
    let b2 = _mm_rol_epi64::<43>(xor3(a[12], c1, r3));
    let b12 = _mm_rol_epi64::<25>(xor3(a[13], c2, r4));
    let b22 = _mm_rol_epi64::<39>(xor3(a[14], c3, r0));
    let b23 = _mm_rol_epi64::<41>(xor3(a[15], c4, r1));
    let b8 = _mm_rol_epi64::<45>(xor3(a[16], c0, r2));
    let b18 = _mm_rol_epi64::<15>(xor3(a[17], c1, r3));
    let b3 = _mm_rol_epi64::<21>(xor3(a[18], c2, r4));
    let b13 = _mm_rol_epi64::<8>(xor3(a[19], c3, r0));
    let b14 = _mm_rol_epi64::<18>(xor3(a[20], c4, r1));
    let b24 = _mm_rol_epi64::<2>(xor3(a[21], c0, r2));
    let b9 = _mm_rol_epi64::<61>(xor3(a[22], c1, r3));
    let b19 = _mm_rol_epi64::<56>(xor3(a[23], c2, r4));
    let b4 = _mm_rol_epi64::<14>(xor3(a[24], c3, r0));
    a[0] = chi(b0, b1, b2);
    a[1] = chi(b1, b2, b3);
    a[2] = chi(b2, b3, b4);
    a[3] = chi(b3, b4, b0);
    a[4] = chi(b4, b0, b1);
    a[5] = chi(b5, b6, b7);
    a[6] = chi(b6, b7, b8);
    a[7] = chi(b7, b8, b9);
    a[8] = chi(b8, b9, b5);
    a[9] = chi(b9, b5, b6);
    a[10] = chi(b10, b11, b12);
    a[11] = chi(b11, b12, b13);
    a[12] = chi(b12, b13, b14);
    a[13] = chi(b13, b14, b10);
    a[14] = chi(b14, b10, b11);
    a[15] = chi(b15, b16, b17);
    a[16] = chi(b16, b17, b18);
    a[17] = chi(b17, b18, b19);
    a[18] = chi(b18, b19, b15);
    a[19] = chi(b19, b15, b16);
    a[20] = chi(b20, b21, b22);
    a[21] = chi(b21, b22, b23);
    a[22] = chi(b22, b23, b24);
    a[23] = chi(b23, b24, b20);
    a[24] = chi(b24, b20, b21);
    a[0] = _mm_xor_si128(a[0], _mm_set1_epi64x(rc as i64));
}

/// Absorbs `blocks` (a multiple of `rate` bytes) into `state` (lane `i`
/// at `state[2i]`; `state[2i + 1]` is the unused half of its register),
/// running Keccak-f\[1600\] after each block.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512VL.
#[target_feature(enable = "avx512f,avx512vl")]
unsafe fn absorb(state: &mut [u64; 50], blocks: &[u8], rate: usize) {
    let p = state.as_mut_ptr() as *mut __m128i;
    let mut a = [_mm_setzero_si128(); 25];
    for (i, lane) in a.iter_mut().enumerate() {
        // SAFETY: `state` holds 25 pairs of u64s.
        *lane = unsafe { _mm_loadu_si128(p.add(i)) };
    }
    let words = rate / 8;
    for block in blocks.chunks_exact(rate) {
        super::prefetch_ahead(block.as_ptr(), rate.next_multiple_of(64));
        for (i, w) in block.chunks_exact(8).enumerate().take(words) {
            let v = u64::from_le_bytes(w.try_into().unwrap_or_default());
            a[i] = _mm_xor_si128(a[i], _mm_set1_epi64x(v as i64));
        }
        // Four rounds per pass: the loop-carried registers are reshuffled
        // once per pass, not once per round. Measured on a Xeon (1 MiB,
        // best of 21): 483-509 MB/s one round per pass, 507-527 four, no
        // better with eight or 24.
        for rc in RC.chunks_exact(4) {
            round(&mut a, rc[0]);
            round(&mut a, rc[1]);
            round(&mut a, rc[2]);
            round(&mut a, rc[3]);
        }
    }
    // Both halves of each register are stored: were only the low one
    // kept, LLVM would see that the high halves are never used and turn
    // the whole permutation into scalar code (measured 10x slower).
    for (i, lane) in a.iter().enumerate() {
        // SAFETY: as for the loads.
        unsafe { _mm_storeu_si128(p.add(i), *lane) };
    }
}

/// The lane-per-register AVX-512VL Keccak-f\[1600\] (state: lane `i` at
/// `[2i]`, both halves of a register kept).
pub(in crate::algo) struct Avx512Lanes(());

impl Avx512Lanes {
    /// A SHA3 computation with a `bits`-bit digest on this kernel, or
    /// `None` when the CPU lacks AVX-512F and AVX-512VL.
    pub(in crate::algo) fn sha3(bits: usize) -> Option<Sha3<Avx512Lanes>> {
        crate::algo::cpu::Feature::Avx512Vl
            .detected()
            .then(|| Sha3::with(Avx512Lanes(()), bits))
    }
}

impl Permutation for Avx512Lanes {
    type State = [u64; 50];
    const ZERO: [u64; 50] = [0; 50];

    fn absorb(&self, state: &mut [u64; 50], blocks: &[u8], rate: usize) {
        // SAFETY: an `Avx512Lanes` exists only after `Avx512Lanes::sha3`
        // found AVX-512F and AVX-512VL.
        unsafe { absorb(state, blocks, rate) }
    }

    fn lane(state: &[u64; 50], i: usize) -> u64 {
        state[2 * i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pi's destinations form one permutation of the 25 lanes (lane 0
    /// stays, the rest one cycle of 24: FIPS 202 §3.2.3), and lane 0 is
    /// not rotated: what the written-out round assumes.
    #[test]
    fn pi_moves_every_lane_once() {
        let mut seen = [false; 25];
        for i in 0..25 {
            assert!(!seen[pi_dest(i)]);
            seen[pi_dest(i)] = true;
        }
        assert_eq!(pi_dest(0), 0);
        assert_eq!(RHO[0], 0);
    }

    #[test]
    fn matches_the_sha3_crate_around_every_rate() {
        if Avx512Lanes::sha3(256).is_none() {
            eprintln!("SKIP: no AVX-512VL");
            return;
        }
        super::super::sha3::tests::matches_the_sha3_crate(|bits| Avx512Lanes::sha3(bits).unwrap());
    }
}
