//! MD5 (RFC 1321), scalar, in two builds of one round function:
//! `TUNED = true` keeps each step's critical path at 4-5 instructions
//! (the message word and constant are added to `a` before the round
//! function is ready, behind [`super::opaque`], and G's two terms are
//! added separately), `TUNED = false` is the plain textbook order.

use super::Compress;

/// The MD5 state (A, B, C, D), RFC 1321 §3.3.
pub(in crate::algo) struct Md5<const TUNED: bool>([u32; 4]);

impl<const TUNED: bool> Md5<TUNED> {
    /// The initial state, RFC 1321 §3.3.
    pub(in crate::algo) fn new() -> Self {
        Md5(IV)
    }
}

#[inline(always)]
fn pre<const TUNED: bool>(v: u32) -> u32 {
    if TUNED { super::opaque(v) } else { v }
}

macro_rules! step {
    (F, $t:ident, $a:ident, $b:ident, $c:ident, $d:ident, $x:expr, $k:expr, $s:expr) => {
        $a = pre::<$t>($a.wrapping_add($x).wrapping_add($k)).wrapping_add((($c ^ $d) & $b) ^ $d);
        $a = $a.rotate_left($s).wrapping_add($b);
    };
    (G, $t:ident, $a:ident, $b:ident, $c:ident, $d:ident, $x:expr, $k:expr, $s:expr) => {
        // (b & d) | (c & !d): the two terms have no common bit, so they
        // can be added one by one, and c & !d does not wait for b.
        $a = pre::<$t>($a.wrapping_add($x).wrapping_add($k).wrapping_add($c & !$d)).wrapping_add($b & $d);
        $a = $a.rotate_left($s).wrapping_add($b);
    };
    (H, $t:ident, $a:ident, $b:ident, $c:ident, $d:ident, $x:expr, $k:expr, $s:expr) => {
        $a = pre::<$t>($a.wrapping_add($x).wrapping_add($k)).wrapping_add(($c ^ $d) ^ $b);
        $a = $a.rotate_left($s).wrapping_add($b);
    };
    (I, $t:ident, $a:ident, $b:ident, $c:ident, $d:ident, $x:expr, $k:expr, $s:expr) => {
        $a = pre::<$t>($a.wrapping_add($x).wrapping_add($k)).wrapping_add($c ^ ($b | !$d));
        $a = $a.rotate_left($s).wrapping_add($b);
    };
}

/// Four rounds of 16 steps over one 64-byte block (RFC 1321 §3.4; the
/// constants are T[i] = floor(2^32 * |sin(i)|)).
#[inline(always)]
fn block<const T: bool>(s: &mut [u32; 4], blk: &[u8]) {
    let x: [u32; 16] =
        core::array::from_fn(|i| u32::from_le_bytes(blk[4 * i..4 * i + 4].try_into().unwrap()));
    let [mut a, mut b, mut c, mut d] = *s;
    step!(F, T, a, b, c, d, x[0], T_TABLE[0], 7);
    step!(F, T, d, a, b, c, x[1], T_TABLE[1], 12);
    step!(F, T, c, d, a, b, x[2], T_TABLE[2], 17);
    step!(F, T, b, c, d, a, x[3], T_TABLE[3], 22);
    step!(F, T, a, b, c, d, x[4], T_TABLE[4], 7);
    step!(F, T, d, a, b, c, x[5], T_TABLE[5], 12);
    step!(F, T, c, d, a, b, x[6], T_TABLE[6], 17);
    step!(F, T, b, c, d, a, x[7], T_TABLE[7], 22);
    step!(F, T, a, b, c, d, x[8], T_TABLE[8], 7);
    step!(F, T, d, a, b, c, x[9], T_TABLE[9], 12);
    step!(F, T, c, d, a, b, x[10], T_TABLE[10], 17);
    step!(F, T, b, c, d, a, x[11], T_TABLE[11], 22);
    step!(F, T, a, b, c, d, x[12], T_TABLE[12], 7);
    step!(F, T, d, a, b, c, x[13], T_TABLE[13], 12);
    step!(F, T, c, d, a, b, x[14], T_TABLE[14], 17);
    step!(F, T, b, c, d, a, x[15], T_TABLE[15], 22);
    step!(G, T, a, b, c, d, x[1], T_TABLE[16], 5);
    step!(G, T, d, a, b, c, x[6], T_TABLE[17], 9);
    step!(G, T, c, d, a, b, x[11], T_TABLE[18], 14);
    step!(G, T, b, c, d, a, x[0], T_TABLE[19], 20);
    step!(G, T, a, b, c, d, x[5], T_TABLE[20], 5);
    step!(G, T, d, a, b, c, x[10], T_TABLE[21], 9);
    step!(G, T, c, d, a, b, x[15], T_TABLE[22], 14);
    step!(G, T, b, c, d, a, x[4], T_TABLE[23], 20);
    step!(G, T, a, b, c, d, x[9], T_TABLE[24], 5);
    step!(G, T, d, a, b, c, x[14], T_TABLE[25], 9);
    step!(G, T, c, d, a, b, x[3], T_TABLE[26], 14);
    step!(G, T, b, c, d, a, x[8], T_TABLE[27], 20);
    step!(G, T, a, b, c, d, x[13], T_TABLE[28], 5);
    step!(G, T, d, a, b, c, x[2], T_TABLE[29], 9);
    step!(G, T, c, d, a, b, x[7], T_TABLE[30], 14);
    step!(G, T, b, c, d, a, x[12], T_TABLE[31], 20);
    step!(H, T, a, b, c, d, x[5], T_TABLE[32], 4);
    step!(H, T, d, a, b, c, x[8], T_TABLE[33], 11);
    step!(H, T, c, d, a, b, x[11], T_TABLE[34], 16);
    step!(H, T, b, c, d, a, x[14], T_TABLE[35], 23);
    step!(H, T, a, b, c, d, x[1], T_TABLE[36], 4);
    step!(H, T, d, a, b, c, x[4], T_TABLE[37], 11);
    step!(H, T, c, d, a, b, x[7], T_TABLE[38], 16);
    step!(H, T, b, c, d, a, x[10], T_TABLE[39], 23);
    step!(H, T, a, b, c, d, x[13], T_TABLE[40], 4);
    step!(H, T, d, a, b, c, x[0], T_TABLE[41], 11);
    step!(H, T, c, d, a, b, x[3], T_TABLE[42], 16);
    step!(H, T, b, c, d, a, x[6], T_TABLE[43], 23);
    step!(H, T, a, b, c, d, x[9], T_TABLE[44], 4);
    step!(H, T, d, a, b, c, x[12], T_TABLE[45], 11);
    step!(H, T, c, d, a, b, x[15], T_TABLE[46], 16);
    step!(H, T, b, c, d, a, x[2], T_TABLE[47], 23);
    step!(I, T, a, b, c, d, x[0], T_TABLE[48], 6);
    step!(I, T, d, a, b, c, x[7], T_TABLE[49], 10);
    step!(I, T, c, d, a, b, x[14], T_TABLE[50], 15);
    step!(I, T, b, c, d, a, x[5], T_TABLE[51], 21);
    step!(I, T, a, b, c, d, x[12], T_TABLE[52], 6);
    step!(I, T, d, a, b, c, x[3], T_TABLE[53], 10);
    step!(I, T, c, d, a, b, x[10], T_TABLE[54], 15);
    step!(I, T, b, c, d, a, x[1], T_TABLE[55], 21);
    step!(I, T, a, b, c, d, x[8], T_TABLE[56], 6);
    step!(I, T, d, a, b, c, x[15], T_TABLE[57], 10);
    step!(I, T, c, d, a, b, x[6], T_TABLE[58], 15);
    step!(I, T, b, c, d, a, x[13], T_TABLE[59], 21);
    step!(I, T, a, b, c, d, x[4], T_TABLE[60], 6);
    step!(I, T, d, a, b, c, x[11], T_TABLE[61], 10);
    step!(I, T, c, d, a, b, x[2], T_TABLE[62], 15);
    step!(I, T, b, c, d, a, x[9], T_TABLE[63], 21);
    s[0] = s[0].wrapping_add(a);
    s[1] = s[1].wrapping_add(b);
    s[2] = s[2].wrapping_add(c);
    s[3] = s[3].wrapping_add(d);
}

/// Compresses `blocks` (a multiple of 64 bytes) into the state `s` with
/// the tuned scalar block function (the lane kernels' single-stream path).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(in crate::algo) fn compress_tuned(s: &mut [u32; 4], blocks: &[u8]) {
    for blk in blocks.chunks_exact(64) {
        super::prefetch_ahead(blk.as_ptr(), 64);
        block::<true>(s, blk);
    }
}

/// The initial state, RFC 1321 §3.3.
/// The sine table T[1..=64] of RFC 1321 §3.4 (T[i] = floor(2^32 * |sin(i)|)),
/// indexed from 0; every MD5 kernel reads its step constants from here.
pub(in crate::algo) const T_TABLE: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

pub(in crate::algo) const IV: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];

impl<const TUNED: bool> Compress for Md5<TUNED> {
    const BLOCK: usize = 64;
    const LEN_BYTES: usize = 8;
    const LEN_LITTLE_ENDIAN: bool = true;
    fn compress(&mut self, blocks: &[u8]) {
        for blk in blocks.chunks_exact(64) {
            block::<TUNED>(&mut self.0, blk);
        }
    }
    fn output(&self, len: usize) -> Vec<u8> {
        self.0.iter().flat_map(|w| w.to_le_bytes()).take(len).collect()
    }
}
