//! The BLAKE2b compression function F (RFC 7693 §3.2) for x86-64 with
//! AVX-512F and AVX-512VL.
//!
//! The working vector v[0..16] is held as four rows of four 64-bit words
//! (a = v0..v3, b = v4..v7, c = v8..v11, d = v12..v15), one ymm register
//! each, so that the four column mixes G of a round run side by side; the
//! four diagonal mixes follow once rows a, c and d are rotated across the
//! lanes (`vpermq`) to put one diagonal in each lane (the row layout of
//! the BLAKE2 authors' SSE/AVX2 code; b, the last row each step computes,
//! stays in place so that the other rows' permutes overlap it). The
//! rotations are `vprorq`, one instruction each where AVX2 needs byte
//! shuffles or, for 63, three instructions. Each round's sixteen message
//! words are picked from the block, held in two zmm registers, with two
//! `vpermt2q`.
//!
//! One block depends on the previous one, so the rows' chain of additions,
//! XORs and rotations bounds the speed. Measured (`mhash bench -a blake2b
//! --bytes 1M`, Intel Xeon with AVX-512, 3 runs): 924-933 MB/s, against
//! 918-923 for blake2b_simd 1.0's AVX2 path. An AVX2 version of these rows
//! (rotations by `vpshufb`, message words gathered in general registers)
//! ran at 854-871 and is not kept.
//!
//! The kernel asks the CPU nothing itself: [`super::blake2b`] calls it only
//! where [`crate::algo::cpu`] (glibc's start-up CPUID copy) found the
//! features, so `b2sum` runs no CPUID instruction of its own (blake2b_simd
//! asks std's `is_x86_feature_detected!`, seven CPUIDs, each a trap to the
//! hypervisor in a virtual machine).

use core::arch::x86_64::*;

/// The BLAKE2b IV (RFC 7693 §2.6).
const IV: [u64; 8] = super::sha512::IV_512;

/// Compresses `blocks` (a whole number of 128-byte blocks; a partial tail
/// is ignored) into the chained value `h` and returns the byte counter
/// after them. With `last` unset, `counter` is the count before the first
/// block and each block adds 128 to it; with `last` set, `blocks` is the
/// final block, `counter` the message's whole length (its padding is not
/// counted), and the finalization flag f0 is set.
///
/// # Safety
/// The CPU must have AVX2, AVX-512F and AVX-512VL, with the OS saving the
/// zmm state (`cpu::Feature::Avx512Vl`).
#[target_feature(enable = "avx2,avx512f,avx512vl")]
pub(in crate::algo) unsafe fn compress(
    h: &mut [u64; 8],
    blocks: &[u8],
    mut counter: u128,
    last: bool,
) -> u128 {
    let load = |p: &[u64]| {
        // SAFETY: `p` is a `[u64; 4]` half of `h` or `IV`; unaligned load.
        unsafe { _mm256_loadu_si256(p.as_ptr().cast()) }
    };
    let (h_lo, h_hi) = h.split_at(4);
    let mut h_lo = load(h_lo);
    let mut h_hi = load(h_hi);
    let iv_lo = load(&IV[..4]);
    let iv_hi = load(&IV[4..]);
    for block in blocks.chunks_exact(128) {
        super::prefetch_ahead(block.as_ptr(), 128);
        if !last {
            counter = counter.wrapping_add(128);
        }
        let mut a = h_lo;
        let mut b = h_hi;
        let mut c = iv_lo;
        let t_f = _mm256_setr_epi64x(
            counter as i64,
            (counter >> 64) as i64,
            if last { -1 } else { 0 },
            0,
        );
        let mut d = _mm256_xor_si256(iv_hi, t_f);
        // The block's sixteen words (little-endian, as x86 is), eight per
        // zmm register.
        // SAFETY: `block` is 128 readable bytes; unaligned loads.
        let z = unsafe {
            [
                _mm512_loadu_si512(block.as_ptr().cast()),
                _mm512_loadu_si512(block[64..].as_ptr().cast()),
            ]
        };
        // One round; written out twelve times below (as a loop, LLVM kept
        // it rolled, with the message indices loaded each time).
        macro_rules! round {
            ($r:expr) => {{
                let pick = |k: usize| {
                    // SAFETY: `SIGMA_Z[r][k]` is eight i64; unaligned load.
                    let idx = unsafe { _mm512_loadu_si512(SIGMA_Z[$r][k].as_ptr().cast()) };
                    _mm512_permutex2var_epi64(z[0], idx, z[1])
                };
                let (p, q) = (pick(0), pick(1));
                let m0 = _mm512_castsi512_si256(p);
                let m1 = _mm512_extracti64x4_epi64::<1>(p);
                let m2 = _mm512_castsi512_si256(q);
                let m3 = _mm512_extracti64x4_epi64::<1>(q);
                // Column step: G on (v0,v4,v8,v12) .. (v3,v7,v11,v15).
                a = _mm256_add_epi64(_mm256_add_epi64(a, m0), b);
                d = _mm256_ror_epi64::<32>(_mm256_xor_si256(d, a));
                c = _mm256_add_epi64(c, d);
                b = _mm256_ror_epi64::<24>(_mm256_xor_si256(b, c));
                a = _mm256_add_epi64(_mm256_add_epi64(a, m1), b);
                d = _mm256_ror_epi64::<16>(_mm256_xor_si256(d, a));
                c = _mm256_add_epi64(c, d);
                b = _mm256_ror_epi64::<63>(_mm256_xor_si256(b, c));
                // Diagonalize, b staying: lane i then holds diagonal
                // k = (i + 3) % 4, that is v_k, v_{4+(k+1)%4} = b[i],
                // v_{8+(k+2)%4} and v_{12+(k+3)%4}.
                a = _mm256_permute4x64_epi64::<0b10_01_00_11>(a);
                c = _mm256_permute4x64_epi64::<0b00_11_10_01>(c);
                d = _mm256_permute4x64_epi64::<0b01_00_11_10>(d);
                // Diagonal step: G on (v0,v5,v10,v15) .. (v3,v4,v9,v14).
                a = _mm256_add_epi64(_mm256_add_epi64(a, m2), b);
                d = _mm256_ror_epi64::<32>(_mm256_xor_si256(d, a));
                c = _mm256_add_epi64(c, d);
                b = _mm256_ror_epi64::<24>(_mm256_xor_si256(b, c));
                a = _mm256_add_epi64(_mm256_add_epi64(a, m3), b);
                d = _mm256_ror_epi64::<16>(_mm256_xor_si256(d, a));
                c = _mm256_add_epi64(c, d);
                b = _mm256_ror_epi64::<63>(_mm256_xor_si256(b, c));
                // Undiagonalize (b again stays).
                a = _mm256_permute4x64_epi64::<0b00_11_10_01>(a);
                c = _mm256_permute4x64_epi64::<0b10_01_00_11>(c);
                d = _mm256_permute4x64_epi64::<0b01_00_11_10>(d);
            }};
        }
        round!(0);
        round!(1);
        round!(2);
        round!(3);
        round!(4);
        round!(5);
        round!(6);
        round!(7);
        round!(8);
        round!(9);
        round!(10);
        round!(11);
        // h ^= v[0..8] ^ v[8..16].
        h_lo = _mm256_xor_si256(h_lo, _mm256_xor_si256(a, c));
        h_hi = _mm256_xor_si256(h_hi, _mm256_xor_si256(b, d));
    }
    let (out_lo, out_hi) = h.split_at_mut(4);
    // SAFETY: `out_lo` and `out_hi` are `[u64; 4]` halves of `h`;
    // unaligned stores.
    unsafe {
        _mm256_storeu_si256(out_lo.as_mut_ptr().cast(), h_lo);
        _mm256_storeu_si256(out_hi.as_mut_ptr().cast(), h_hi);
    }
    counter
}

/// The message schedule SIGMA (RFC 7693 §2.7) for rounds 0..12, each row
/// reordered into the four vectors a round adds: lanes 0..4 of the column
/// step's first and second word, then of the diagonal step's.
const SIGMA_V: [[usize; 16]; 12] = {
    let s = super::blake2b::SIGMA;
    let mut out = [[0; 16]; 12];
    let mut r = 0;
    while r < 12 {
        let row = s[r % 10];
        let mut i = 0;
        while i < 4 {
            out[r][i] = row[2 * i];
            out[r][4 + i] = row[2 * i + 1];
            // Diagonal step: lane i mixes diagonal (i + 3) % 4.
            out[r][8 + i] = row[8 + 2 * ((i + 3) % 4)];
            out[r][12 + i] = row[9 + 2 * ((i + 3) % 4)];
            i += 1;
        }
        r += 1;
    }
    out
};

/// [`SIGMA_V`] as `vpermt2q` indices: per round, two vectors of eight
/// word numbers (0..16: bit 3 picks the second zmm of the block).
const SIGMA_Z: [[[i64; 8]; 2]; 12] = {
    let mut out = [[[0; 8]; 2]; 12];
    let mut r = 0;
    while r < 12 {
        let mut i = 0;
        while i < 16 {
            out[r][i / 8][i % 8] = SIGMA_V[r][i] as i64;
            i += 1;
        }
        r += 1;
    }
    out
};

#[cfg(test)]
mod tests {
    use super::super::blake2b::Blake2b;
    use crate::algo::Hasher;

    /// Random inputs of 0..=1,100 bytes (empty, partial, exact and many
    /// blocks), fed whole and in uneven pieces, at output lengths 1..=64,
    /// give the portable kernel's digest.
    #[test]
    fn matches_portable() {
        if Blake2b::new_avx512(64).is_none() {
            eprintln!("no AVX-512VL here: skipped");
            return;
        }
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for len in (0..=1100).step_by(7).chain([127, 128, 129, 255, 256, 257]) {
            let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let out = 1 + (next() % 64) as usize;
            let piece = 1 + (next() % 300) as usize;
            let mut want = Box::new(Blake2b::new(out));
            want.update(&data);
            let mut got = Box::new(Blake2b::new_avx512(out).unwrap());
            for p in data.chunks(piece) {
                got.update(p);
            }
            assert_eq!(
                got.finalize(),
                want.finalize(),
                "{len} bytes in pieces of {piece}, {out}-byte digest"
            );
        }
    }
}
