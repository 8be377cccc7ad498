//! SHA3-224/256/384/512 (FIPS 202): the sponge shared by mhash's
//! Keccak-f\[1600\] kernels, and the scalar kernel (compiled for BMI1 and
//! BMI2 on x86-64, and for any CPU).
//!
//! [`Sha3`] does the buffering, SHA-3's domain bits and pad10*1 (FIPS 202
//! §6.1, §5.1) and the squeeze of one block; a [`Permutation`] absorbs
//! whole blocks in its own state layout. Three permutations exist: the
//! AVX-512F one ([`super::sha3_avx512`]), [`Scalar`] (the same loop as
//! `Bmi` for any CPU: the portable SHA-3 on AArch64, where the `sha3`
//! crate takes the SHA3 instructions) and [`Bmi`] here, a scalar
//! Keccak-f\[1600\] written from FIPS 202 §3.2 with every round's 25 lanes
//! in locals (two rounds per loop step) and compiled for BMI1/BMI2, so
//! that chi's `a ^ (!b & c)` is one `andn` and one `xor` and rho's
//! rotations are `rorx`, which leave the flags and their source alone.
//! On an AMD Zen 3 (no AVX-512) it measured 390 MB/s against 330 for the
//! `sha3` crate's loop and 330 for OpenSSL 3.0's `openssl speed -evp
//! sha3-256` (best of 8 interleaved trials over 13.6 MB; see
//! docs/benchmarks). The backend table and the calibration
//! (`algo::calibrate`) decide between it and the AVX-512 kernel.
//!
//! Known-answer tests: tests/vectors.rs (NIST's SHA3 byte-oriented vectors,
//! on every backend the CPU runs) and the unit tests below against the
//! `sha3` crate at every length around each rate.

use crate::algo::Hasher;

/// Keccak-f\[1600\]'s 24 round constants (FIPS 202 §3.2.5, `rc(t)`).
pub(super) const RC: [u64; 24] = [
    0x0000_0000_0000_0001,
    0x0000_0000_0000_8082,
    0x8000_0000_0000_808A,
    0x8000_0000_8000_8000,
    0x0000_0000_0000_808B,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8009,
    0x0000_0000_0000_008A,
    0x0000_0000_0000_0088,
    0x0000_0000_8000_8009,
    0x0000_0000_8000_000A,
    0x0000_0000_8000_808B,
    0x8000_0000_0000_008B,
    0x8000_0000_0000_8089,
    0x8000_0000_0000_8003,
    0x8000_0000_0000_8002,
    0x8000_0000_0000_0080,
    0x0000_0000_0000_800A,
    0x8000_0000_8000_000A,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8080,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8008,
];

/// Rho's rotation of lane `x + 5y` (FIPS 202 §3.2.2, Table 2).
pub(super) const RHO: [u64; 25] = [
    0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
];

/// A Keccak-f\[1600\] kernel: its state layout and its block loop. A value
/// of the type is the proof that the CPU runs the kernel (made only after
/// the feature check).
pub(in crate::algo) trait Permutation: Send + 'static {
    /// The state between calls.
    type State: Copy + Send + 'static;
    /// The all-zero state (FIPS 202 §4, `S = 0^b`).
    const ZERO: Self::State;
    /// XORs each `rate`-byte block of `blocks` (a multiple of `rate`
    /// bytes) into the state and runs the permutation after each.
    fn absorb(&self, state: &mut Self::State, blocks: &[u8], rate: usize);
    /// Lane `i = x + 5y` of the state (FIPS 202 §3.1.2).
    fn lane(state: &Self::State, i: usize) -> u64;
}

/// A SHA-3 computation on permutation `P`: the sponge state, a partial
/// block, and the rate and digest length in bytes.
pub(in crate::algo) struct Sha3<P: Permutation> {
    perm: P,
    state: P::State,
    buf: [u8; 144],
    fill: usize,
    rate: usize,
    out_len: usize,
}

impl<P: Permutation> Sha3<P> {
    /// A fresh SHA3 computation with a `bits`-bit digest (224, 256, 384 or
    /// 512; the rate is 200 - 2 * bits / 8 bytes, FIPS 202 §6.1).
    pub(in crate::algo) fn with(perm: P, bits: usize) -> Sha3<P> {
        let out_len = bits / 8;
        Sha3 {
            perm,
            state: P::ZERO,
            buf: [0; 144],
            fill: 0,
            rate: 200 - 2 * out_len,
            out_len,
        }
    }
}

impl<P: Permutation> Hasher for Sha3<P> {
    fn update(&mut self, mut data: &[u8]) {
        let rate = self.rate;
        if self.fill > 0 {
            let take = (rate - self.fill).min(data.len());
            self.buf[self.fill..self.fill + take].copy_from_slice(&data[..take]);
            self.fill += take;
            data = &data[take..];
            if self.fill < rate {
                return;
            }
            let block = self.buf;
            self.perm.absorb(&mut self.state, &block[..rate], rate);
            self.fill = 0;
        }
        let whole = data.len() / rate * rate;
        if whole > 0 {
            self.perm.absorb(&mut self.state, &data[..whole], rate);
        }
        let rest = &data[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.fill = rest.len();
    }

    fn finalize(mut self: Box<Self>) -> Vec<u8> {
        // SHA-3's domain bits 01, then pad10*1 (FIPS 202 §6.1, §5.1).
        let rate = self.rate;
        let mut block = [0u8; 144];
        block[..self.fill].copy_from_slice(&self.buf[..self.fill]);
        block[self.fill] ^= 0x06;
        block[rate - 1] ^= 0x80;
        self.perm.absorb(&mut self.state, &block[..rate], rate);
        let mut out = Vec::with_capacity(self.out_len);
        for i in 0..self.out_len.div_ceil(8) {
            out.extend_from_slice(&P::lane(&self.state, i).to_le_bytes());
        }
        out.truncate(self.out_len);
        out
    }
}

/// One round of Keccak-f\[1600\] (FIPS 202 §3.3: theta, rho, pi, chi,
/// iota) on lanes `a[x + 5y]`, with theta's column parities carried
/// between rounds: `c[x]` holds `a[x] ^ a[x + 5] ^ ... ^ a[x + 20]` on entry and the same
/// parities of the new lanes on return, computed as chi writes each lane
/// (the lanes a round ends with are in registers then, where a separate
/// pass at the next round's start would load every spilled one again:
/// 3% faster on an AMD EPYC Zen 4, `mhash bench -a sha3-256 --bytes 1M`,
/// 468-473 to 484-488 MB/s in three interleaved pairs). Every index is a
/// constant once the loops are unrolled.
#[inline(always)]
fn round_carried(a: &mut [u64; 25], c: &mut [u64; 5], rc: u64) {
    let mut d = [0u64; 5];
    for x in 0..5 {
        d[x] = c[(x + 4) % 5] ^ c[(x + 1) % 5].rotate_left(1);
    }
    let mut b = [0u64; 25];
    for y in 0..5 {
        for x in 0..5 {
            b[y + 5 * ((2 * x + 3 * y) % 5)] = (a[x + 5 * y] ^ d[x]).rotate_left(RHO[x + 5 * y] as u32);
        }
    }
    *c = [0; 5];
    for y in 0..5 {
        for x in 0..5 {
            let mut v = b[x + 5 * y] ^ (!b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
            if x == 0 && y == 0 {
                v ^= rc;
            }
            a[x + 5 * y] = v;
            c[x] ^= v;
        }
    }
}

/// Absorbs `blocks` (a multiple of `rate` bytes) into `state`, running
/// Keccak-f\[1600\] after each block.
///
/// # Safety
/// The CPU must have BMI1 and BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2")]
unsafe fn absorb_bmi(state: &mut [u64; 25], blocks: &[u8], rate: usize) {
    absorb_blocks(state, blocks, rate);
}

/// The block loop of the scalar kernels, inlined into each so that it is
/// compiled with that kernel's target features.
#[inline(always)]
fn absorb_blocks(state: &mut [u64; 25], blocks: &[u8], rate: usize) {
    let mut s = *state;
    for block in blocks.chunks_exact(rate) {
        super::prefetch_ahead(block.as_ptr(), rate.next_multiple_of(64));
        for (lane, word) in s.iter_mut().zip(block.chunks_exact(8)) {
            *lane ^= u64::from_le_bytes(word.try_into().unwrap());
        }
        let mut c = [0u64; 5];
        for x in 0..5 {
            c[x] = s[x] ^ s[x + 5] ^ s[x + 10] ^ s[x + 15] ^ s[x + 20];
        }
        for i in 0..12 {
            round_carried(&mut s, &mut c, RC[2 * i]);
            round_carried(&mut s, &mut c, RC[2 * i + 1]);
        }
    }
    *state = s;
}

/// The scalar Keccak-f\[1600\] for any CPU, with no feature check: the
/// portable SHA-3 where the `sha3` crate is not portable. On AArch64 its
/// `keccak` takes the ARMv8.2 SHA3 instructions (`EOR3`, `RAX1`, `XAR`,
/// `BCAX`) whenever the CPU has them, whatever `MHASH_BACKEND` says, and
/// on `aarch64-apple-darwin` always (the target enables `sha3`), so that
/// crate is the `armv8-sha3` backend there and this kernel the portable
/// one.
#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
pub(in crate::algo) struct Scalar;

impl Scalar {
    /// A SHA3 computation with a `bits`-bit digest on this kernel.
    #[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
    pub(in crate::algo) fn sha3(bits: usize) -> Sha3<Scalar> {
        Sha3::with(Scalar, bits)
    }
}

impl Permutation for Scalar {
    type State = [u64; 25];
    const ZERO: [u64; 25] = [0; 25];

    fn absorb(&self, state: &mut [u64; 25], blocks: &[u8], rate: usize) {
        absorb_blocks(state, blocks, rate);
    }

    fn lane(state: &[u64; 25], i: usize) -> u64 {
        state[i]
    }
}

/// The scalar Keccak-f\[1600\] compiled for BMI1/BMI2 (`andn`, `rorx`).
#[cfg(target_arch = "x86_64")]
pub(in crate::algo) struct Bmi(());

#[cfg(target_arch = "x86_64")]
impl Bmi {
    /// A SHA3 computation with a `bits`-bit digest on this kernel, or
    /// `None` when the CPU lacks BMI1 or BMI2.
    pub(in crate::algo) fn sha3(bits: usize) -> Option<Sha3<Bmi>> {
        crate::algo::cpu::Feature::Bmi2
            .detected()
            .then(|| Sha3::with(Bmi(()), bits))
    }
}

#[cfg(target_arch = "x86_64")]
impl Permutation for Bmi {
    type State = [u64; 25];
    const ZERO: [u64; 25] = [0; 25];

    fn absorb(&self, state: &mut [u64; 25], blocks: &[u8], rate: usize) {
        // SAFETY: a `Bmi` exists only after `Bmi::sha3` found BMI1/BMI2.
        unsafe { absorb_bmi(state, blocks, rate) }
    }

    fn lane(state: &[u64; 25], i: usize) -> u64 {
        state[i]
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use sha3::Digest as _;

    fn reference(bits: usize, msg: &[u8]) -> Vec<u8> {
        match bits {
            224 => sha3::Sha3_224::digest(msg).to_vec(),
            256 => sha3::Sha3_256::digest(msg).to_vec(),
            384 => sha3::Sha3_384::digest(msg).to_vec(),
            _ => sha3::Sha3_512::digest(msg).to_vec(),
        }
    }

    /// Checks the kernel behind `make` against the `sha3` crate at every
    /// length around each rate, whole and fed in 7-byte pieces.
    pub(in crate::algo::kernels) fn matches_the_sha3_crate<P: Permutation>(make: impl Fn(usize) -> Sha3<P>) {
        let msg: Vec<u8> = (0..2000u32).map(|i| (i * 131 + 7) as u8).collect();
        for bits in [224, 256, 384, 512] {
            let rate = 200 - bits / 4;
            for len in [
                0,
                1,
                rate - 2,
                rate - 1,
                rate,
                rate + 1,
                2 * rate,
                3 * rate + 5,
                2000,
            ] {
                let mut h = Box::new(make(bits));
                h.update(&msg[..len]);
                assert_eq!(
                    h.finalize(),
                    reference(bits, &msg[..len]),
                    "SHA3-{bits}, {len} bytes"
                );
                let mut h = Box::new(make(bits));
                for piece in msg[..len].chunks(7) {
                    h.update(piece);
                }
                assert_eq!(
                    h.finalize(),
                    reference(bits, &msg[..len]),
                    "SHA3-{bits}, {len} bytes in pieces"
                );
            }
        }
    }

    #[test]
    fn scalar_kernel_matches_the_sha3_crate_around_every_rate() {
        matches_the_sha3_crate(Scalar::sha3);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn bmi_kernel_matches_the_sha3_crate_around_every_rate() {
        if Bmi::sha3(256).is_none() {
            eprintln!("SKIP: no BMI1/BMI2");
            return;
        }
        matches_the_sha3_crate(|bits| Bmi::sha3(bits).unwrap());
    }
}
