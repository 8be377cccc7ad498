//! SHA3-224/256/384/512 (FIPS 202) with Keccak-f\[1600\] on AVX-512F: the
//! 5x5 state of 64-bit lanes in five 512-bit registers (five lanes used of
//! eight), theta's and chi's three-input logic in one `vpternlogq` each,
//! rho in one `vprolvq` per register.
//!
//! Layouts. `A[x, y]` is lane `x + 5y` (FIPS 202 §3.1.2). Between
//! permutations, and at the start of each even round, register `y` holds
//! row `y` (lane `x` at position `x`): theta's column parities are four
//! `vpternlogq`, and pi moves every lane of row `y` into column `y`
//! (FIPS 202 §3.2.3: `A'[x, y] = A[(x + 3y) mod 5, x]`), so it is one
//! in-register permutation per register, after which register `x` holds
//! column `x` (lane `y` at position `y`) and chi (`A[x] ^= !A[x+1] &
//! A[x+2]` along a row) is one `vpternlogq` per register, no shuffle.
//! The odd round gathers the columns back into diagonals with masked
//! blends (register `d` gets `A[q, q-d]` at position `q`), where theta's
//! parities line up again and pi sends diagonal `d` to row `2d`: again an
//! in-register permutation, and chi along rows needs two lane rotations
//! per register. Two rounds so cost 27 permutations, 20 blends and 60
//! logic operations for 25 lanes.
//!
//! The same observation (pi's input aligned by one coordinate gives an
//! output aligned by the other, so the layout changes every other round)
//! underlies the CRYPTOGAMS `keccak1600-avx512` module; this code is
//! written from FIPS 202; the sponge around it is [`super::sha3::Sha3`].
//! Known-answer tests: tests/vectors.rs (NIST's
//! SHA3 byte-oriented vectors) and the unit tests below against the
//! `sha3` crate at every length around the rate.

use core::arch::x86_64::*;

use super::sha3::{Permutation, RC, RHO, Sha3};

/// A permutation index: position `p < 5` takes lane `(p + k) mod 5`;
/// positions 5-7 (unused) keep their own.
const fn rot(k: usize) -> [u64; 8] {
    let mut a = [0, 1, 2, 3, 4, 5, 6, 7];
    let mut p = 0;
    while p < 5 {
        a[p] = ((p + k) % 5) as u64;
        p += 1;
    }
    a
}

/// Pi on row `y`: position `y'` of column `y` takes lane `(3y' + y) mod 5`
/// of the row (FIPS 202 §3.2.3 solved for the source lane).
const fn pi_row(y: usize) -> [u64; 8] {
    let mut a = [0, 1, 2, 3, 4, 5, 6, 7];
    let mut p = 0;
    while p < 5 {
        a[p] = ((3 * p + y) % 5) as u64;
        p += 1;
    }
    a
}

/// Rho's rotations for row `y` (position `x`: lane `x + 5y`).
const fn rho_row(y: usize) -> [u64; 8] {
    let mut a = [0; 8];
    let mut x = 0;
    while x < 5 {
        a[x] = RHO[x + 5 * y];
        x += 1;
    }
    a
}

/// Rho's rotations for diagonal `d` (position `q`: lane `A[q, q - d]`).
const fn rho_diag(d: usize) -> [u64; 8] {
    let mut a = [0; 8];
    let mut q = 0;
    while q < 5 {
        a[q] = RHO[q + 5 * ((q + 5 - d) % 5)];
        q += 1;
    }
    a
}

/// The constant vectors of one permutation, built once per call.
struct Consts {
    /// `rot[k]`: position `p` takes lane `(p + k) mod 5`.
    rot: [__m512i; 5],
    pi_row: [__m512i; 5],
    rho_row: [__m512i; 5],
    rho_diag: [__m512i; 5],
}

#[inline(always)]
fn vec(a: [u64; 8]) -> __m512i {
    // SAFETY: __m512i is 64 bytes of plain integer data, as is [u64; 8].
    unsafe { core::mem::transmute::<[u64; 8], __m512i>(a) }
}

// Every helper below is compiled for AVX-512F and inlined into `absorb`,
// the one entry point, which `Sha3Avx512::new` guards with a CPU check.

impl Consts {
    #[inline(always)]
    fn new() -> Consts {
        Consts {
            rot: [0, 1, 2, 3, 4].map(|k| vec(rot(k))),
            pi_row: [0, 1, 2, 3, 4].map(|y| vec(pi_row(y))),
            rho_row: [0, 1, 2, 3, 4].map(|y| vec(rho_row(y))),
            rho_diag: [0, 1, 2, 3, 4].map(|d| vec(rho_diag(d))),
        }
    }
}

#[target_feature(enable = "avx512f")]
#[inline]
fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64::<0x96>(a, b, c)
}

/// Chi's `a ^ (!b & c)`.
#[target_feature(enable = "avx512f")]
#[inline]
fn chi(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64::<0xD2>(a, b, c)
}

#[target_feature(enable = "avx512f")]
#[inline]
fn perm(idx: __m512i, a: __m512i) -> __m512i {
    _mm512_permutexvar_epi64(idx, a)
}

/// Theta on five registers whose positions are aligned by `x`.
#[target_feature(enable = "avx512f")]
#[inline]
fn theta(s: &mut [__m512i; 5], k: &Consts) {
    let c = xor3(xor3(s[0], s[1], s[2]), s[3], s[4]);
    let cm1 = perm(k.rot[4], c);
    let cp1 = _mm512_rol_epi64::<1>(perm(k.rot[1], c));
    for r in s.iter_mut() {
        *r = xor3(*r, cm1, cp1);
    }
}

#[target_feature(enable = "avx512f")]
#[inline]
fn iota(a: __m512i, rc: u64) -> __m512i {
    _mm512_xor_si512(a, _mm512_maskz_set1_epi64(1, rc as i64))
}

/// Rounds `2i` and `2i + 1` from row layout back to row layout.
#[target_feature(enable = "avx512f")]
#[inline]
fn two_rounds(rows: &mut [__m512i; 5], k: &Consts, rc0: u64, rc1: u64) {
    // Even round: theta, rho, pi (row y -> column y), chi, iota.
    theta(rows, k);
    let mut col = [rows[0]; 5];
    for y in 0..5 {
        let t = _mm512_rolv_epi64(rows[y], k.rho_row[y]);
        col[y] = perm(k.pi_row[y], t);
    }
    let mut c2 = [col[0]; 5];
    for x in 0..5 {
        c2[x] = chi(col[x], col[(x + 1) % 5], col[(x + 2) % 5]);
    }
    c2[0] = iota(c2[0], rc0);

    // Odd round: columns -> diagonals (position q of diagonal d holds
    // A[q, q - d]), theta, rho, pi (diagonal d -> row 2d), chi, iota.
    let mut diag = [c2[0]; 5];
    for d in 0..5 {
        // Position p from column (p + d) mod 5: A[p + d, p] ...
        let mut e = c2[d];
        for p in 1..5 {
            e = _mm512_mask_blend_epi64(1 << p, e, c2[(p + d) % 5]);
        }
        // ... then rotated so that position q holds A[q, q - d].
        diag[d] = if d == 0 { e } else { perm(k.rot[5 - d], e) };
    }
    theta(&mut diag, k);
    for d in 0..5 {
        let t = _mm512_rolv_epi64(diag[d], k.rho_diag[d]);
        rows[(2 * d) % 5] = if d == 0 { t } else { perm(k.rot[d], t) };
    }
    for r in rows.iter_mut() {
        *r = chi(*r, perm(k.rot[1], *r), perm(k.rot[2], *r));
    }
    rows[0] = iota(rows[0], rc1);
}

/// Absorbs `blocks` (a multiple of `rate` bytes) into `state` (row `y`
/// at `state[8y..8y + 5]`), running Keccak-f\[1600\] after each block.
///
/// # Safety
/// The CPU must have AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn absorb(state: &mut [u64; 40], blocks: &[u8], rate: usize) {
    let k = Consts::new();
    let p = state.as_mut_ptr();
    let mut rows = [_mm512_setzero_si512(); 5];
    for (y, r) in rows.iter_mut().enumerate() {
        // SAFETY: `state` holds 40 u64s = five 64-byte rows.
        *r = unsafe { _mm512_loadu_si512(p.add(8 * y) as *const _) };
    }
    let words = rate / 8;
    let masks: [__mmask8; 5] = core::array::from_fn(|y| {
        let n = words.saturating_sub(5 * y).min(5);
        ((1u16 << n) - 1) as __mmask8
    });
    for block in blocks.chunks_exact(rate) {
        super::prefetch_ahead(block.as_ptr(), rate.next_multiple_of(64));
        let b = block.as_ptr() as *const u64;
        for y in 0..5 {
            if masks[y] != 0 {
                // SAFETY: the mask covers lanes within the block (`rate`
                // bytes); masked-off lanes are not read.
                let m = unsafe { _mm512_maskz_loadu_epi64(masks[y], b.add(5 * y) as *const _) };
                rows[y] = _mm512_xor_si512(rows[y], m);
            }
        }
        for i in 0..12 {
            two_rounds(&mut rows, &k, RC[2 * i], RC[2 * i + 1]);
        }
    }
    for (y, r) in rows.iter().enumerate() {
        // SAFETY: as for the loads.
        unsafe { _mm512_storeu_si512(p.add(8 * y) as *mut _, *r) };
    }
}

/// The AVX-512F Keccak-f\[1600\] (state: row `y` at `[8y..8y + 5]`).
pub(in crate::algo) struct Avx512(());

impl Avx512 {
    /// A SHA3 computation with a `bits`-bit digest on this kernel, or
    /// `None` when the CPU lacks AVX-512F (with AVX2 and AVX-512VL, as
    /// the backend table asks).
    pub(in crate::algo) fn sha3(bits: usize) -> Option<Sha3<Avx512>> {
        crate::algo::cpu::Feature::Avx512Vl
            .detected()
            .then(|| Sha3::with(Avx512(()), bits))
    }
}

impl Permutation for Avx512 {
    type State = [u64; 40];
    const ZERO: [u64; 40] = [0; 40];

    fn absorb(&self, state: &mut [u64; 40], blocks: &[u8], rate: usize) {
        // SAFETY: an `Avx512` exists only after `Avx512::sha3` found
        // AVX-512F.
        unsafe { absorb(state, blocks, rate) }
    }

    fn lane(state: &[u64; 40], i: usize) -> u64 {
        state[8 * (i / 5) + i % 5]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_sha3_crate_around_every_rate() {
        if Avx512::sha3(256).is_none() {
            eprintln!("SKIP: no AVX-512F");
            return;
        }
        super::super::sha3::tests::matches_the_sha3_crate(|bits| Avx512::sha3(bits).unwrap());
    }
}
