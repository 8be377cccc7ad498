//! BLAKE2b (RFC 7693), unkeyed, digest length 1..=64 bytes: the
//! streaming state, with the compression function F in portable scalar
//! code or, on x86-64 with AVX-512VL, [`super::blake2b_avx512`]'s rows.

use crate::algo::Hasher;

/// The BLAKE2b IV (RFC 7693 §2.6): the SHA-512 initial value.
const IV: [u64; 8] = super::sha512::IV_512;

/// The message schedule SIGMA (RFC 7693 §2.7); rounds 10 and 11 reuse
/// rows 0 and 1.
pub(super) const SIGMA: [[usize; 16]; 10] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

/// A BLAKE2b computation: chained state, the last (possibly full) block
/// held back until it is known to be the last, and the byte counter.
pub(in crate::algo) struct Blake2b {
    h: [u64; 8],
    buf: [u8; 128],
    fill: usize,
    counter: u128,
    out_len: usize,
    /// F runs on [`super::blake2b_avx512`] (set only where the CPU has
    /// AVX-512VL).
    #[cfg(target_arch = "x86_64")]
    avx512: bool,
}

impl Blake2b {
    /// A fresh unkeyed computation giving `out_len` bytes (1..=64).
    pub(in crate::algo) fn new(out_len: usize) -> Blake2b {
        let mut h = IV;
        h[0] ^= 0x0101_0000 ^ out_len as u64;
        Blake2b {
            h,
            buf: [0; 128],
            fill: 0,
            counter: 0,
            out_len,
            #[cfg(target_arch = "x86_64")]
            avx512: false,
        }
    }

    /// As [`Blake2b::new`], with F on AVX-512VL rows, or `None` where
    /// [`crate::algo::cpu`] did not find AVX-512F/VL (and the zmm state).
    #[cfg(target_arch = "x86_64")]
    pub(in crate::algo) fn new_avx512(out_len: usize) -> Option<Blake2b> {
        crate::algo::cpu::Feature::Avx512Vl.detected().then(|| Blake2b {
            avx512: true,
            ..Blake2b::new(out_len)
        })
    }

    /// The compression function F (RFC 7693 §3.2), the twelve rounds
    /// written out so that every message index is a constant and the
    /// working vector lives in registers (what makes GNU's plain C fast:
    /// its blake2b-ref.c `ROUND(0)` ... `ROUND(11)`).
    fn compress(&mut self, block: &[u8; 128], last: bool) {
        #[cfg(target_arch = "x86_64")]
        if self.avx512 {
            // The kernel counts a non-final block in itself.
            let counter = if last {
                self.counter
            } else {
                self.counter.wrapping_sub(128)
            };
            // SAFETY: `avx512` is set only by `new_avx512`, where the CPU
            // has AVX-512F/VL.
            unsafe { super::blake2b_avx512::compress(&mut self.h, block, counter, last) };
            return;
        }
        let m: [u64; 16] = core::array::from_fn(|i| {
            u64::from_le_bytes(block[8 * i..8 * i + 8].try_into().unwrap_or_default())
        });
        let mut v = [0u64; 16];
        v[..8].copy_from_slice(&self.h);
        v[8..].copy_from_slice(&IV);
        v[12] ^= self.counter as u64;
        v[13] ^= (self.counter >> 64) as u64;
        if last {
            v[14] = !v[14];
        }
        #[inline(always)]
        fn g(v: &mut [u64; 16], a: usize, b: usize, c: usize, d: usize, x: u64, y: u64) {
            v[a] = v[a].wrapping_add(v[b]).wrapping_add(x);
            v[d] = (v[d] ^ v[a]).rotate_right(32);
            v[c] = v[c].wrapping_add(v[d]);
            v[b] = (v[b] ^ v[c]).rotate_right(24);
            v[a] = v[a].wrapping_add(v[b]).wrapping_add(y);
            v[d] = (v[d] ^ v[a]).rotate_right(16);
            v[c] = v[c].wrapping_add(v[d]);
            v[b] = (v[b] ^ v[c]).rotate_right(63);
        }
        #[inline(always)]
        fn round(v: &mut [u64; 16], m: &[u64; 16], s: &[usize; 16]) {
            g(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
            g(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
            g(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
            g(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
            g(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
            g(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
            g(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
            g(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
        }
        round(&mut v, &m, &SIGMA[0]);
        round(&mut v, &m, &SIGMA[1]);
        round(&mut v, &m, &SIGMA[2]);
        round(&mut v, &m, &SIGMA[3]);
        round(&mut v, &m, &SIGMA[4]);
        round(&mut v, &m, &SIGMA[5]);
        round(&mut v, &m, &SIGMA[6]);
        round(&mut v, &m, &SIGMA[7]);
        round(&mut v, &m, &SIGMA[8]);
        round(&mut v, &m, &SIGMA[9]);
        round(&mut v, &m, &SIGMA[0]);
        round(&mut v, &m, &SIGMA[1]);
        for i in 0..8 {
            self.h[i] ^= v[i] ^ v[i + 8];
        }
    }
}

impl Hasher for Blake2b {
    fn update(&mut self, mut data: &[u8]) {
        // The last block is held back (it is compressed with the final
        // flag): a block is compressed only once more bytes follow it.
        if self.fill > 0 && !data.is_empty() {
            let take = (128 - self.fill).min(data.len());
            self.buf[self.fill..self.fill + take].copy_from_slice(&data[..take]);
            self.fill += take;
            data = &data[take..];
        }
        if data.is_empty() {
            return;
        }
        if self.fill == 128 {
            self.counter += 128;
            let block = self.buf;
            self.compress(&block, false);
            self.fill = 0;
        }
        // Whole blocks straight from the input, all but the last.
        #[cfg(target_arch = "x86_64")]
        if self.avx512 {
            let whole = (data.len() - 1) / 128 * 128;
            let (blocks, rest) = data.split_at(whole);
            // SAFETY: `avx512` is set only by `new_avx512`, where the CPU
            // has AVX-512F/VL.
            self.counter =
                unsafe { super::blake2b_avx512::compress(&mut self.h, blocks, self.counter, false) };
            data = rest;
        }
        while data.len() > 128 {
            super::prefetch_ahead(data.as_ptr(), 128);
            let (block, rest) = data.split_at(128);
            if let Ok(b) = <&[u8; 128]>::try_from(block) {
                self.counter += 128;
                self.compress(b, false);
            }
            data = rest;
        }
        self.buf[..data.len()].copy_from_slice(data);
        self.fill = data.len();
    }

    fn finalize(mut self: Box<Self>) -> Vec<u8> {
        self.counter += self.fill as u128;
        let mut block = [0u8; 128];
        block[..self.fill].copy_from_slice(&self.buf[..self.fill]);
        self.compress(&block, true);
        self.h
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .take(self.out_len)
            .collect()
    }
}
