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
    step!(F, T, a, b, c, d, x[0], 0xd76a_a478, 7);
    step!(F, T, d, a, b, c, x[1], 0xe8c7_b756, 12);
    step!(F, T, c, d, a, b, x[2], 0x2420_70db, 17);
    step!(F, T, b, c, d, a, x[3], 0xc1bd_ceee, 22);
    step!(F, T, a, b, c, d, x[4], 0xf57c_0faf, 7);
    step!(F, T, d, a, b, c, x[5], 0x4787_c62a, 12);
    step!(F, T, c, d, a, b, x[6], 0xa830_4613, 17);
    step!(F, T, b, c, d, a, x[7], 0xfd46_9501, 22);
    step!(F, T, a, b, c, d, x[8], 0x6980_98d8, 7);
    step!(F, T, d, a, b, c, x[9], 0x8b44_f7af, 12);
    step!(F, T, c, d, a, b, x[10], 0xffff_5bb1, 17);
    step!(F, T, b, c, d, a, x[11], 0x895c_d7be, 22);
    step!(F, T, a, b, c, d, x[12], 0x6b90_1122, 7);
    step!(F, T, d, a, b, c, x[13], 0xfd98_7193, 12);
    step!(F, T, c, d, a, b, x[14], 0xa679_438e, 17);
    step!(F, T, b, c, d, a, x[15], 0x49b4_0821, 22);
    step!(G, T, a, b, c, d, x[1], 0xf61e_2562, 5);
    step!(G, T, d, a, b, c, x[6], 0xc040_b340, 9);
    step!(G, T, c, d, a, b, x[11], 0x265e_5a51, 14);
    step!(G, T, b, c, d, a, x[0], 0xe9b6_c7aa, 20);
    step!(G, T, a, b, c, d, x[5], 0xd62f_105d, 5);
    step!(G, T, d, a, b, c, x[10], 0x0244_1453, 9);
    step!(G, T, c, d, a, b, x[15], 0xd8a1_e681, 14);
    step!(G, T, b, c, d, a, x[4], 0xe7d3_fbc8, 20);
    step!(G, T, a, b, c, d, x[9], 0x21e1_cde6, 5);
    step!(G, T, d, a, b, c, x[14], 0xc337_07d6, 9);
    step!(G, T, c, d, a, b, x[3], 0xf4d5_0d87, 14);
    step!(G, T, b, c, d, a, x[8], 0x455a_14ed, 20);
    step!(G, T, a, b, c, d, x[13], 0xa9e3_e905, 5);
    step!(G, T, d, a, b, c, x[2], 0xfcef_a3f8, 9);
    step!(G, T, c, d, a, b, x[7], 0x676f_02d9, 14);
    step!(G, T, b, c, d, a, x[12], 0x8d2a_4c8a, 20);
    step!(H, T, a, b, c, d, x[5], 0xfffa_3942, 4);
    step!(H, T, d, a, b, c, x[8], 0x8771_f681, 11);
    step!(H, T, c, d, a, b, x[11], 0x6d9d_6122, 16);
    step!(H, T, b, c, d, a, x[14], 0xfde5_380c, 23);
    step!(H, T, a, b, c, d, x[1], 0xa4be_ea44, 4);
    step!(H, T, d, a, b, c, x[4], 0x4bde_cfa9, 11);
    step!(H, T, c, d, a, b, x[7], 0xf6bb_4b60, 16);
    step!(H, T, b, c, d, a, x[10], 0xbebf_bc70, 23);
    step!(H, T, a, b, c, d, x[13], 0x289b_7ec6, 4);
    step!(H, T, d, a, b, c, x[0], 0xeaa1_27fa, 11);
    step!(H, T, c, d, a, b, x[3], 0xd4ef_3085, 16);
    step!(H, T, b, c, d, a, x[6], 0x0488_1d05, 23);
    step!(H, T, a, b, c, d, x[9], 0xd9d4_d039, 4);
    step!(H, T, d, a, b, c, x[12], 0xe6db_99e5, 11);
    step!(H, T, c, d, a, b, x[15], 0x1fa2_7cf8, 16);
    step!(H, T, b, c, d, a, x[2], 0xc4ac_5665, 23);
    step!(I, T, a, b, c, d, x[0], 0xf429_2244, 6);
    step!(I, T, d, a, b, c, x[7], 0x432a_ff97, 10);
    step!(I, T, c, d, a, b, x[14], 0xab94_23a7, 15);
    step!(I, T, b, c, d, a, x[5], 0xfc93_a039, 21);
    step!(I, T, a, b, c, d, x[12], 0x655b_59c3, 6);
    step!(I, T, d, a, b, c, x[3], 0x8f0c_cc92, 10);
    step!(I, T, c, d, a, b, x[10], 0xffef_f47d, 15);
    step!(I, T, b, c, d, a, x[1], 0x8584_5dd1, 21);
    step!(I, T, a, b, c, d, x[8], 0x6fa8_7e4f, 6);
    step!(I, T, d, a, b, c, x[15], 0xfe2c_e6e0, 10);
    step!(I, T, c, d, a, b, x[6], 0xa301_4314, 15);
    step!(I, T, b, c, d, a, x[13], 0x4e08_11a1, 21);
    step!(I, T, a, b, c, d, x[4], 0xf753_7e82, 6);
    step!(I, T, d, a, b, c, x[11], 0xbd3a_f235, 10);
    step!(I, T, c, d, a, b, x[2], 0x2ad7_d2bb, 15);
    step!(I, T, b, c, d, a, x[9], 0xeb86_d391, 21);
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
        block::<true>(s, blk);
    }
}

/// The initial state, RFC 1321 §3.3.
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
