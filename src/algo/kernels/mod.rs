//! mhash's own hash kernels: a tuned scalar MD5, SHA-384/512 for x86-64
//! with AVX2 and BMI2, and portable SHA-1, SHA-2 and BLAKE2b, the
//! fallbacks that `MHASH_BACKEND=portable` forces (and that run where the
//! CPU has none of the crates' fast paths).
//!
//! Each kernel is a block function behind [`Md`], the Merkle–Damgård
//! buffering and padding shared by MD5, SHA-1 and SHA-2 (RFC 1321 §3.1-3.2,
//! FIPS 180-4 §5.1), or a self-contained streaming state (BLAKE2b).

/// The 64 steps of one MD5 block (RFC 1321 §3.4) for the lane kernels:
/// `$step!(ROUND, a, b, c, d, w[i], T[k], s, 32 - s)` in RFC order, the
/// round function, state words, message word, sine constant and rotation
/// of each step; each kernel's `$step` macro says how on its vectors.
macro_rules! md5_lane_steps {
    ($step:ident, $a:ident, $b:ident, $c:ident, $d:ident, $w:ident) => {
        $step!(F, $a, $b, $c, $d, $w[0], T_TABLE[0], 7, 25);
        $step!(F, $d, $a, $b, $c, $w[1], T_TABLE[1], 12, 20);
        $step!(F, $c, $d, $a, $b, $w[2], T_TABLE[2], 17, 15);
        $step!(F, $b, $c, $d, $a, $w[3], T_TABLE[3], 22, 10);
        $step!(F, $a, $b, $c, $d, $w[4], T_TABLE[4], 7, 25);
        $step!(F, $d, $a, $b, $c, $w[5], T_TABLE[5], 12, 20);
        $step!(F, $c, $d, $a, $b, $w[6], T_TABLE[6], 17, 15);
        $step!(F, $b, $c, $d, $a, $w[7], T_TABLE[7], 22, 10);
        $step!(F, $a, $b, $c, $d, $w[8], T_TABLE[8], 7, 25);
        $step!(F, $d, $a, $b, $c, $w[9], T_TABLE[9], 12, 20);
        $step!(F, $c, $d, $a, $b, $w[10], T_TABLE[10], 17, 15);
        $step!(F, $b, $c, $d, $a, $w[11], T_TABLE[11], 22, 10);
        $step!(F, $a, $b, $c, $d, $w[12], T_TABLE[12], 7, 25);
        $step!(F, $d, $a, $b, $c, $w[13], T_TABLE[13], 12, 20);
        $step!(F, $c, $d, $a, $b, $w[14], T_TABLE[14], 17, 15);
        $step!(F, $b, $c, $d, $a, $w[15], T_TABLE[15], 22, 10);
        $step!(G, $a, $b, $c, $d, $w[1], T_TABLE[16], 5, 27);
        $step!(G, $d, $a, $b, $c, $w[6], T_TABLE[17], 9, 23);
        $step!(G, $c, $d, $a, $b, $w[11], T_TABLE[18], 14, 18);
        $step!(G, $b, $c, $d, $a, $w[0], T_TABLE[19], 20, 12);
        $step!(G, $a, $b, $c, $d, $w[5], T_TABLE[20], 5, 27);
        $step!(G, $d, $a, $b, $c, $w[10], T_TABLE[21], 9, 23);
        $step!(G, $c, $d, $a, $b, $w[15], T_TABLE[22], 14, 18);
        $step!(G, $b, $c, $d, $a, $w[4], T_TABLE[23], 20, 12);
        $step!(G, $a, $b, $c, $d, $w[9], T_TABLE[24], 5, 27);
        $step!(G, $d, $a, $b, $c, $w[14], T_TABLE[25], 9, 23);
        $step!(G, $c, $d, $a, $b, $w[3], T_TABLE[26], 14, 18);
        $step!(G, $b, $c, $d, $a, $w[8], T_TABLE[27], 20, 12);
        $step!(G, $a, $b, $c, $d, $w[13], T_TABLE[28], 5, 27);
        $step!(G, $d, $a, $b, $c, $w[2], T_TABLE[29], 9, 23);
        $step!(G, $c, $d, $a, $b, $w[7], T_TABLE[30], 14, 18);
        $step!(G, $b, $c, $d, $a, $w[12], T_TABLE[31], 20, 12);
        $step!(H, $a, $b, $c, $d, $w[5], T_TABLE[32], 4, 28);
        $step!(H, $d, $a, $b, $c, $w[8], T_TABLE[33], 11, 21);
        $step!(H, $c, $d, $a, $b, $w[11], T_TABLE[34], 16, 16);
        $step!(H, $b, $c, $d, $a, $w[14], T_TABLE[35], 23, 9);
        $step!(H, $a, $b, $c, $d, $w[1], T_TABLE[36], 4, 28);
        $step!(H, $d, $a, $b, $c, $w[4], T_TABLE[37], 11, 21);
        $step!(H, $c, $d, $a, $b, $w[7], T_TABLE[38], 16, 16);
        $step!(H, $b, $c, $d, $a, $w[10], T_TABLE[39], 23, 9);
        $step!(H, $a, $b, $c, $d, $w[13], T_TABLE[40], 4, 28);
        $step!(H, $d, $a, $b, $c, $w[0], T_TABLE[41], 11, 21);
        $step!(H, $c, $d, $a, $b, $w[3], T_TABLE[42], 16, 16);
        $step!(H, $b, $c, $d, $a, $w[6], T_TABLE[43], 23, 9);
        $step!(H, $a, $b, $c, $d, $w[9], T_TABLE[44], 4, 28);
        $step!(H, $d, $a, $b, $c, $w[12], T_TABLE[45], 11, 21);
        $step!(H, $c, $d, $a, $b, $w[15], T_TABLE[46], 16, 16);
        $step!(H, $b, $c, $d, $a, $w[2], T_TABLE[47], 23, 9);
        $step!(I, $a, $b, $c, $d, $w[0], T_TABLE[48], 6, 26);
        $step!(I, $d, $a, $b, $c, $w[7], T_TABLE[49], 10, 22);
        $step!(I, $c, $d, $a, $b, $w[14], T_TABLE[50], 15, 17);
        $step!(I, $b, $c, $d, $a, $w[5], T_TABLE[51], 21, 11);
        $step!(I, $a, $b, $c, $d, $w[12], T_TABLE[52], 6, 26);
        $step!(I, $d, $a, $b, $c, $w[3], T_TABLE[53], 10, 22);
        $step!(I, $c, $d, $a, $b, $w[10], T_TABLE[54], 15, 17);
        $step!(I, $b, $c, $d, $a, $w[1], T_TABLE[55], 21, 11);
        $step!(I, $a, $b, $c, $d, $w[8], T_TABLE[56], 6, 26);
        $step!(I, $d, $a, $b, $c, $w[15], T_TABLE[57], 10, 22);
        $step!(I, $c, $d, $a, $b, $w[6], T_TABLE[58], 15, 17);
        $step!(I, $b, $c, $d, $a, $w[13], T_TABLE[59], 21, 11);
        $step!(I, $a, $b, $c, $d, $w[4], T_TABLE[60], 6, 26);
        $step!(I, $d, $a, $b, $c, $w[11], T_TABLE[61], 10, 22);
        $step!(I, $c, $d, $a, $b, $w[2], T_TABLE[62], 15, 17);
        $step!(I, $b, $c, $d, $a, $w[9], T_TABLE[63], 21, 11);
    };
}

pub(super) mod adler32;
pub(super) mod blake2b;
#[cfg(target_arch = "x86_64")]
pub(super) mod blake2b_avx512;
pub(super) mod blake3;
pub(super) mod crc;
pub(super) mod md5;
#[cfg(target_arch = "x86_64")]
pub(super) mod md5_x16;
#[cfg(target_arch = "aarch64")]
pub(super) mod md5_x4_neon;
#[cfg(target_arch = "x86_64")]
pub(super) mod md5_x4_sse2;
#[cfg(target_arch = "x86_64")]
pub(super) mod md5_x8;
pub(super) mod sha1;
#[cfg(target_arch = "x86_64")]
pub(super) mod sha1_shani;
pub(super) mod sha256;
#[cfg(target_arch = "x86_64")]
pub(super) mod sha256_x16_avx512;
#[cfg(target_arch = "x86_64")]
pub(super) mod sha256_x8_avx2;
#[cfg(target_arch = "aarch64")]
pub(super) mod sha256_xn_armv8;
#[cfg(target_arch = "x86_64")]
pub(super) mod sha256_xn_shani;
pub(super) mod sha3;
#[cfg(target_arch = "x86_64")]
pub(super) mod sha3_avx512;
#[cfg(target_arch = "x86_64")]
pub(super) mod sha3_avx512_lanes;
pub(super) mod sha512;
#[cfg(target_arch = "x86_64")]
pub(super) mod sha512_avx2;

use super::Hasher;

/// How far ahead of the block being hashed, in bytes, the single-stream
/// block loops ask the CPU to fetch (`prefetcht0`, one request per 64-byte
/// line of the block that far ahead): 1 KiB.
///
/// Data read from a map of the page cache comes from main memory, and the
/// CPU's own prefetcher stops at each 4 KiB page. Measured 2026-12-04
/// (Intel Xeon VM, SHA-NI SHA-256, `mhash bench --bytes 1M,64M`, MB/s):
/// no prefetch 1,980 / 1,209, 256 B 1,970 / 1,669, 512 B 1,978 / 1,897,
/// 1 KiB 1,975 / 1,943, 2 KiB 1,933 / 1,959, 4 KiB 1,979 / 1,941. A read
/// buffer (already in cache) is not slowed.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) const PREFETCH_AHEAD: usize = 1024;

/// Asks the CPU to fetch the `bytes` (a multiple of 64) that start
/// [`PREFETCH_AHEAD`] bytes after `p` into its caches. A hint only: the
/// address need not be readable (a prefetch never faults), and elsewhere
/// than x86-64 it does nothing.
#[inline(always)]
pub(super) fn prefetch_ahead(p: *const u8, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let ahead = p.wrapping_add(PREFETCH_AHEAD);
        let mut off = 0;
        while off < bytes {
            // SAFETY: a prefetch reads nothing the program sees and does
            // not fault on any address (Intel SDM, PREFETCHh).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(off).cast()) };
            off += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, bytes);
}

/// A block function of the Merkle–Damgård family.
pub(super) trait Compress: Send + 'static {
    /// Block size in bytes (64 or 128).
    const BLOCK: usize;
    /// Width of the message-length field in the padding, in bytes (8 or 16).
    const LEN_BYTES: usize;
    /// True for MD5, whose length field is little-endian (RFC 1321 §3.2);
    /// SHA-1/SHA-2 write it big-endian (FIPS 180-4 §5.1).
    const LEN_LITTLE_ENDIAN: bool;
    /// Processes `blocks`, whose length is a multiple of [`Self::BLOCK`].
    fn compress(&mut self, blocks: &[u8]);
    /// The digest bytes: the state serialized, truncated to `len` bytes.
    fn output(&self, len: usize) -> Vec<u8>;
}

/// Buffering and padding over a [`Compress`] state: a partial block of up
/// to 127 bytes and the message length in bytes.
pub(super) struct Md<S: Compress> {
    state: S,
    buf: [u8; 128],
    fill: usize,
    len: u128,
    out_len: usize,
}

impl<S: Compress> Md<S> {
    /// A fresh computation from the initial `state`, giving `out_len`
    /// digest bytes.
    pub(super) fn new(state: S, out_len: usize) -> Md<S> {
        Md {
            state,
            buf: [0; 128],
            fill: 0,
            len: 0,
            out_len,
        }
    }
}

impl<S: Compress> Hasher for Md<S> {
    fn update(&mut self, mut data: &[u8]) {
        self.len += data.len() as u128;
        if self.fill > 0 {
            let take = (S::BLOCK - self.fill).min(data.len());
            self.buf[self.fill..self.fill + take].copy_from_slice(&data[..take]);
            self.fill += take;
            data = &data[take..];
            if self.fill < S::BLOCK {
                return;
            }
            let block = self.buf;
            self.state.compress(&block[..S::BLOCK]);
            self.fill = 0;
        }
        let whole = data.len() / S::BLOCK * S::BLOCK;
        if whole > 0 {
            self.state.compress(&data[..whole]);
        }
        let rest = &data[whole..];
        self.buf[..rest.len()].copy_from_slice(rest);
        self.fill = rest.len();
    }

    fn finalize(mut self: Box<Self>) -> Vec<u8> {
        let bits = self.len.wrapping_mul(8);
        let mut tail = [0u8; 256];
        let fill = self.fill;
        tail[..fill].copy_from_slice(&self.buf[..fill]);
        tail[fill] = 0x80;
        let total = (fill + 1 + S::LEN_BYTES).div_ceil(S::BLOCK) * S::BLOCK;
        if S::LEN_LITTLE_ENDIAN {
            let le = bits.to_le_bytes();
            tail[total - S::LEN_BYTES..total].copy_from_slice(&le[..S::LEN_BYTES]);
        } else {
            let be = bits.to_be_bytes();
            tail[total - S::LEN_BYTES..total].copy_from_slice(&be[16 - S::LEN_BYTES..]);
        }
        self.state.compress(&tail[..total]);
        self.state.output(self.out_len)
    }
}

/// Hides `v` from the optimizer: an empty `asm!` that the compiler must
/// treat as computing its output, so it cannot re-associate additions
/// across it (used to keep MD5's critical path short; costs no instruction).
#[inline(always)]
pub(super) fn opaque(v: u32) -> u32 {
    #[cfg(any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64"))]
    {
        let mut v = v;
        // SAFETY: the template is a comment: no instruction, no memory
        // access, no flags; the register keeps its value.
        unsafe {
            #[cfg(target_arch = "aarch64")]
            core::arch::asm!("/* {0:w} */", inout(reg) v, options(pure, nomem, nostack, preserves_flags));
            #[cfg(not(target_arch = "aarch64"))]
            core::arch::asm!("/* {0:e} */", inout(reg) v, options(pure, nomem, nostack, preserves_flags));
        }
        v
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64")))]
    {
        v
    }
}
