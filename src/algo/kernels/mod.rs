//! mhash's own hash kernels: a tuned scalar MD5, SHA-384/512 for x86-64
//! with AVX2 and BMI2, and portable SHA-1, SHA-2 and BLAKE2b, the
//! fallbacks that `MHASH_BACKEND=portable` forces (and that run where the
//! CPU has none of the crates' fast paths).
//!
//! Each kernel is a block function behind [`Md`], the Merkle–Damgård
//! buffering and padding shared by MD5, SHA-1 and SHA-2 (RFC 1321 §3.1-3.2,
//! FIPS 180-4 §5.1), or a self-contained streaming state (BLAKE2b).

pub(super) mod blake2b;
pub(super) mod blake3;
pub(super) mod md5;
#[cfg(target_arch = "aarch64")]
pub(super) mod md5_x4_neon;
#[cfg(target_arch = "x86_64")]
pub(super) mod md5_x4_sse2;
#[cfg(target_arch = "x86_64")]
pub(super) mod md5_x8;
pub(super) mod sha1;
pub(super) mod sha256;
#[cfg(target_arch = "x86_64")]
pub(super) mod sha256_x8_avx2;
#[cfg(target_arch = "aarch64")]
pub(super) mod sha256_xn_armv8;
#[cfg(target_arch = "x86_64")]
pub(super) mod sha256_xn_shani;
pub(super) mod sha512;
#[cfg(target_arch = "x86_64")]
pub(super) mod sha512_avx2;

use super::Hasher;

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
