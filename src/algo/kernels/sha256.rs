//! SHA-224 and SHA-256, FIPS 180-4 §6.2-6.3, portable scalar code.

use super::Compress;

/// The SHA-256 state H0..H7 (SHA-224 differs only in its initial value
/// and in keeping 28 of the 32 output bytes).
pub(in crate::algo) struct Sha256([u32; 8]);

/// The round constants K0..K63, FIPS 180-4 §4.2.2: the one copy every
/// SHA-256 kernel (portable, SHA-NI, AVX2, ARMv8) reads.
pub(super) const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// The SHA-256 initial hash value H(0), FIPS 180-4 §5.3.3.
pub(in crate::algo) const IV_256: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// The SHA-224 initial hash value H(0), FIPS 180-4 §5.3.2.
pub(in crate::algo) const IV_224: [u32; 8] = [
    0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939, 0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4,
];

impl Sha256 {
    /// The SHA-256 initial hash value, FIPS 180-4 §5.3.3.
    pub(in crate::algo) fn new_256() -> Sha256 {
        Sha256(IV_256)
    }
    /// The SHA-224 initial hash value, FIPS 180-4 §5.3.2.
    pub(in crate::algo) fn new_224() -> Sha256 {
        Sha256(IV_224)
    }
}

impl Compress for Sha256 {
    const BLOCK: usize = 64;
    const LEN_BYTES: usize = 8;
    const LEN_LITTLE_ENDIAN: bool = false;
    fn compress(&mut self, blocks: &[u8]) {
        for blk in blocks.chunks_exact(64) {
            let mut w = [0u32; 64];
            for (i, c) in blk.chunks_exact(4).enumerate() {
                w[i] = u32::from_be_bytes(c.try_into().unwrap());
            }
            for t in 16..64 {
                let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
                let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
                w[t] = w[t - 16].wrapping_add(s0).wrapping_add(w[t - 7]).wrapping_add(s1);
            }
            let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = self.0;
            for t in 0..64 {
                let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
                let ch = (e & f) ^ (!e & g);
                let t1 = h
                    .wrapping_add(s1)
                    .wrapping_add(ch)
                    .wrapping_add(K[t])
                    .wrapping_add(w[t]);
                let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
                let maj = (a & b) ^ (a & c) ^ (b & c);
                let t2 = s0.wrapping_add(maj);
                h = g;
                g = f;
                f = e;
                e = d.wrapping_add(t1);
                d = c;
                c = b;
                b = a;
                a = t1.wrapping_add(t2);
            }
            for (s, v) in self.0.iter_mut().zip([a, b, c, d, e, f, g, h]) {
                *s = s.wrapping_add(v);
            }
        }
    }
    fn output(&self, len: usize) -> Vec<u8> {
        self.0.iter().flat_map(|w| w.to_be_bytes()).take(len).collect()
    }
}
