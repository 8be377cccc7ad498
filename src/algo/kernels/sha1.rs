//! SHA-1, FIPS 180-4 §6.1, portable scalar code.

use super::Compress;

/// The SHA-1 state H0..H4.
pub(in crate::algo) struct Sha1([u32; 5]);

/// The initial hash value H(0), FIPS 180-4 §5.3.1.
pub(super) const IV: [u32; 5] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0];

impl Sha1 {
    /// The initial hash value, FIPS 180-4 §5.3.1.
    pub(in crate::algo) fn new() -> Sha1 {
        Sha1(IV)
    }
}

impl Compress for Sha1 {
    const BLOCK: usize = 64;
    const LEN_BYTES: usize = 8;
    const LEN_LITTLE_ENDIAN: bool = false;
    fn compress(&mut self, blocks: &[u8]) {
        for blk in blocks.chunks_exact(64) {
            let mut w = [0u32; 80];
            for (i, c) in blk.chunks_exact(4).enumerate() {
                w[i] = u32::from_be_bytes(c.try_into().unwrap());
            }
            for t in 16..80 {
                w[t] = (w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]).rotate_left(1);
            }
            let [mut a, mut b, mut c, mut d, mut e] = self.0;
            for (t, &wt) in w.iter().enumerate() {
                let (f, k) = match t {
                    0..=19 => ((b & c) | (!b & d), 0x5a82_7999),
                    20..=39 => (b ^ c ^ d, 0x6ed9_eba1),
                    40..=59 => ((b & c) | (b & d) | (c & d), 0x8f1b_bcdc),
                    _ => (b ^ c ^ d, 0xca62_c1d6),
                };
                let tmp = a
                    .rotate_left(5)
                    .wrapping_add(f)
                    .wrapping_add(e)
                    .wrapping_add(k)
                    .wrapping_add(wt);
                e = d;
                d = c;
                c = b.rotate_left(30);
                b = a;
                a = tmp;
            }
            for (h, v) in self.0.iter_mut().zip([a, b, c, d, e]) {
                *h = h.wrapping_add(v);
            }
        }
    }
    fn output(&self, len: usize) -> Vec<u8> {
        self.0.iter().flat_map(|w| w.to_be_bytes()).take(len).collect()
    }
}
