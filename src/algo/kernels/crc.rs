//! The CRCs mhash computes itself: CRC-32/CKSUM (POSIX `cksum`),
//! CRC-32/ISO-HDLC (zlib's and `cksum -a crc32b`'s), CRC-32/ISCSI
//! (CRC-32C) and CRC-64/NVME, as a raw CRC register (no final XOR) that
//! [`Crc::update`] advances.
//!
//! - **Tables.** Byte-at-a-time for the MSB-first CRC-32/CKSUM, slicing
//!   by 8 for the reflected ones; built at compile time. They are the
//!   portable backend, and they finish what the folding kernels leave.
//! - **Folding** (x86-64): carry-less multiplication folds 128-bit blocks
//!   of the message forward over a fixed distance, keeping the polynomial
//!   congruent modulo the CRC's generator, as in Intel's "Fast CRC
//!   Computation for Generic Polynomials Using PCLMULQDQ Instruction"
//!   (Gopal et al., 2009): eight 128-bit accumulators with PCLMULQDQ, or
//!   four 256-bit or 512-bit ones with VPCLMULQDQ on AVX2 or AVX-512. What is left, one
//!   128-bit block and fewer than 16 bytes, goes through the table from a
//!   zero register; that gives the CRC the message would have, since the
//!   raw CRC is linear. The fold constants are `x^n mod P` computed at
//!   compile time for each polynomial (`keys`), so no Barrett constants
//!   are needed and one kernel serves every width up to 64 bits.
//! - **Joining** ([`Crc::absorb`]): the register of a message followed by
//!   `n` more bytes is the register times `x^(8n)` modulo P, plus the
//!   register of those bytes alone from zero (`shift`), which lets one
//!   file be hashed in segments on several threads.
//!
//! These kernels take their CPU features from [`crate::algo::cpu`] (the
//! copy of CPUID glibc's loader made), so a `cksum` runs no CPUID of its
//! own; crc-fast and crc32fast ask std's detection, 7 CPUIDs, about 70
//! µs in a virtual machine.

/// One CRC's parameters, as the CRC catalogue (Greg Cook's "Catalogue of
/// parametrised CRC algorithms") lists them.
#[derive(Debug)]
pub struct Spec {
    /// Width in bits (32 or 64).
    pub width: u32,
    /// The generator polynomial without its `x^width` term, MSB-first
    /// ("normal") form: 0x04C11DB7 for CRC-32.
    pub poly: u64,
    /// True for the reflected CRCs (bits taken least-significant first).
    pub reflected: bool,
    /// The register's initial value (reflected form where `reflected`).
    pub init: u64,
    /// What the final register is XORed with.
    pub xorout: u64,
    tables: Tables,
    // Read by the folding kernels (x86-64 only).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    keys: Keys,
}

#[derive(Debug)]
enum Tables {
    /// MSB-first, one byte at a time.
    Normal(&'static [u32; 256]),
    /// Reflected, slicing by 8.
    Reflected(&'static [[u64; 256]; 8]),
}

/// CRC-32/CKSUM: POSIX `cksum`'s CRC (init 0, no reflection, XOR out
/// all ones; POSIX appends the length, see the caller).
pub static CKSUM: Spec = Spec::new(
    32,
    0x04C1_1DB7,
    false,
    0,
    0xFFFF_FFFF,
    Tables::Normal(&CKSUM_TABLE),
);
/// CRC-32/ISO-HDLC: zlib's `crc32`, gzip's and `cksum -a crc32b`'s.
pub static CRC32B: Spec = Spec::new(
    32,
    0x04C1_1DB7,
    true,
    0xFFFF_FFFF,
    0xFFFF_FFFF,
    Tables::Reflected(&CRC32B_TABLES),
);
/// CRC-32/ISCSI (CRC-32C, Castagnoli).
pub static CRC32C: Spec = Spec::new(
    32,
    0x1EDC_6F41,
    true,
    0xFFFF_FFFF,
    0xFFFF_FFFF,
    Tables::Reflected(&CRC32C_TABLES),
);
/// CRC-64/NVME (NVM Express base specification 2.0, section 5.2.1.3.3).
pub static CRC64NVME: Spec = Spec::new(
    64,
    0xAD93_D235_94C9_3659,
    true,
    u64::MAX,
    u64::MAX,
    Tables::Reflected(&CRC64NVME_TABLES),
);

/// CRC-32/CKSUM table (poly 0x04C11DB7, MSB first).
static CKSUM_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = (i as u32) << 24;
        let mut k = 0;
        while k < 8 {
            c = if c & 0x8000_0000 != 0 {
                (c << 1) ^ 0x04C1_1DB7
            } else {
                c << 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// The eight slicing tables of the reflected CRC whose reflected
/// polynomial is `rpoly`.
const fn slicing_tables(rpoly: u64) -> [[u64; 256]; 8] {
    let mut t = [[0u64; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u64;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ rpoly } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut j = 1;
    while j < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[j - 1][i];
            t[j][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            i += 1;
        }
        j += 1;
    }
    t
}

/// `poly` (degree < `width`) reflected over `width` bits.
const fn reflect(poly: u64, width: u32) -> u64 {
    poly.reverse_bits() >> (64 - width)
}

static CRC32B_TABLES: [[u64; 256]; 8] = slicing_tables(reflect(0x04C1_1DB7, 32));
static CRC32C_TABLES: [[u64; 256]; 8] = slicing_tables(reflect(0x1EDC_6F41, 32));
static CRC64NVME_TABLES: [[u64; 256]; 8] = slicing_tables(reflect(0xAD93_D235_94C9_3659, 64));

/// Fold constants for one polynomial: for each distance, the multipliers
/// of an accumulator's low and high 64-bit halves (in that order).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct Keys {
    /// 128 bits: one block into the next.
    k128: [u64; 2],
    /// 256 bits: one 256-bit accumulator into the next.
    k256: [u64; 2],
    /// 512 bits: one 512-bit accumulator into the next.
    k512: [u64; 2],
    /// 1,024 bits: the eight 128-bit (or four 256-bit) accumulators'
    /// stride.
    k1024: [u64; 2],
    /// 2,048 bits: the four 512-bit accumulators' stride.
    k2048: [u64; 2],
}

/// `x^n mod P` (P = `x^width + poly`), MSB-first, degree < `width`.
const fn xpow_mod(n: u32, poly: u64, width: u32) -> u64 {
    let top = 1u128 << width;
    let full = top | poly as u128;
    let mut r: u128 = 1;
    let mut i = 0;
    while i < n {
        r <<= 1;
        if r & top != 0 {
            r ^= full;
        }
        i += 1;
    }
    r as u64
}

/// The multipliers that fold a 128-bit block forward by `d` bits (see
/// the module's notes). MSB-first blocks (byte-swapped loads, bit `i` =
/// `x^i`): low half times `x^d`, high half times `x^(d+64)`. Reflected
/// blocks (bit `i` = `x^(127-i)`; a carry-less product of reflected
/// operands comes out one bit short of reflected): low half (the earlier
/// bytes) times `x^(d+63)`, high half times `x^(d-1)`, each reflected
/// over 64 bits.
const fn fold_keys(d: u32, poly: u64, width: u32, reflected: bool) -> [u64; 2] {
    if reflected {
        [
            xpow_mod(d + 63, poly, width).reverse_bits(),
            xpow_mod(d - 1, poly, width).reverse_bits(),
        ]
    } else {
        [xpow_mod(d, poly, width), xpow_mod(d + 64, poly, width)]
    }
}

impl Spec {
    const fn new(width: u32, poly: u64, reflected: bool, init: u64, xorout: u64, tables: Tables) -> Spec {
        Spec {
            width,
            poly,
            reflected,
            init,
            xorout,
            tables,
            keys: Keys {
                k128: fold_keys(128, poly, width, reflected),
                k256: fold_keys(256, poly, width, reflected),
                k512: fold_keys(512, poly, width, reflected),
                k1024: fold_keys(1024, poly, width, reflected),
                k2048: fold_keys(2048, poly, width, reflected),
            },
        }
    }

    /// The register after `data`, from register `reg`, by the tables.
    pub fn table_update(&self, reg: u64, data: &[u8]) -> u64 {
        match self.tables {
            Tables::Normal(t) => {
                let mut crc = reg as u32;
                for &b in data {
                    crc = (crc << 8) ^ t[((crc >> 24) as u8 ^ b) as usize];
                }
                crc as u64
            }
            Tables::Reflected(t) => {
                let mut c = reg;
                let mut chunks = data.chunks_exact(8);
                for w in &mut chunks {
                    let v = c ^ u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
                    c = t[7][(v & 0xff) as usize]
                        ^ t[6][((v >> 8) & 0xff) as usize]
                        ^ t[5][((v >> 16) & 0xff) as usize]
                        ^ t[4][((v >> 24) & 0xff) as usize]
                        ^ t[3][((v >> 32) & 0xff) as usize]
                        ^ t[2][((v >> 40) & 0xff) as usize]
                        ^ t[1][((v >> 48) & 0xff) as usize]
                        ^ t[0][(v >> 56) as usize];
                }
                for &b in chunks.remainder() {
                    c = (c >> 8) ^ t[0][((c ^ b as u64) & 0xff) as usize];
                }
                c
            }
        }
    }

    /// The register `reg` times `x^(8n)` modulo P: the register of a
    /// message once `n` more bytes have been appended, less those bytes'
    /// own register from zero (zlib's `crc32_combine` rule).
    pub fn shift(&self, reg: u64, n: u64) -> u64 {
        let w = self.width;
        let normal = if self.reflected { reflect(reg, w) } else { reg };
        // x^(8n) mod P by square and multiply over the bits of 8n.
        let mut p = 1u64; // x^0
        let mut base = xpow_mod(1, self.poly, w);
        let mut e = n as u128 * 8;
        while e > 0 {
            if e & 1 == 1 {
                p = self.mulmod(p, base);
            }
            base = self.mulmod(base, base);
            e >>= 1;
        }
        let r = self.mulmod(normal, p);
        if self.reflected { reflect(r, w) } else { r }
    }

    /// `a * b mod P`, MSB-first.
    fn mulmod(&self, a: u64, b: u64) -> u64 {
        let top = 1u128 << self.width;
        let full = top | self.poly as u128;
        let mut r: u128 = 0;
        // Horner over b's bits, high to low.
        for i in (0..self.width).rev() {
            r <<= 1;
            if r & top != 0 {
                r ^= full;
            }
            if b >> i & 1 == 1 {
                r ^= a as u128;
            }
        }
        r as u64
    }

    fn mask(&self) -> u64 {
        if self.width == 64 {
            u64::MAX
        } else {
            (1 << self.width) - 1
        }
    }
}

/// How [`Crc::update`] advances the register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The tables alone.
    Table,
    /// PCLMULQDQ folding (x86-64 with PCLMULQDQ and SSE4.1).
    Pclmul,
    /// VPCLMULQDQ folding on 256-bit registers (x86-64 with AVX2).
    Avx2,
    /// VPCLMULQDQ folding on 512-bit registers (x86-64 with AVX-512F/BW).
    Avx512,
}

impl Engine {
    /// The folding engines, fastest first.
    pub const FOLDING: [Engine; 3] = [Engine::Avx512, Engine::Avx2, Engine::Pclmul];

    /// The engine's backend name (`mhash --backends`, `MHASH_BACKEND`).
    pub const fn name(self) -> &'static str {
        match self {
            Engine::Table => "portable",
            Engine::Pclmul => "pclmul",
            Engine::Avx2 => "avx2-vpclmulqdq",
            Engine::Avx512 => "avx512-vpclmulqdq",
        }
    }

    /// The engine whose backend name is `name` ([`Engine::Table`] for
    /// any other).
    pub fn named(name: &str) -> Engine {
        Engine::FOLDING
            .into_iter()
            .find(|e| e.name() == name)
            .unwrap_or(Engine::Table)
    }

    /// True when this CPU has the instructions the engine runs (whatever
    /// `GLIBC_TUNABLES` turned off: the backend table applies that).
    fn supported(self) -> bool {
        use crate::algo::cpu::Feature;
        let pclmul = cfg!(target_arch = "x86_64") && Feature::Pclmul.detected();
        match self {
            Engine::Table => true,
            Engine::Pclmul => pclmul,
            Engine::Avx2 => pclmul && Feature::Avx2Vpclmul.detected(),
            Engine::Avx512 => pclmul && Feature::Avx512Vpclmul.detected(),
        }
    }
}

/// Shortest input (bytes) the folding engines take; shorter ones go
/// through the tables (the fold's set-up and the table's finish of 16
/// bytes would cost more).
const FOLD_MIN: usize = 256;

/// A running CRC: the raw register (no final XOR) and the byte count.
#[derive(Clone, Debug)]
pub struct Crc {
    spec: &'static Spec,
    engine: Engine,
    reg: u64,
    len: u64,
}

impl Crc {
    /// A CRC at the start of a message, register = the spec's init, on
    /// `engine`, or on the tables where this CPU lacks that engine's
    /// instructions.
    pub fn new(spec: &'static Spec, engine: Engine) -> Crc {
        Crc {
            spec,
            engine: if engine.supported() { engine } else { Engine::Table },
            reg: spec.init,
            len: 0,
        }
    }

    /// A CRC for a later segment of a message: register zero, to be
    /// joined with [`Crc::absorb`].
    pub fn segment(&self) -> Crc {
        Crc {
            reg: 0,
            len: 0,
            ..self.clone()
        }
    }

    /// A fresh CRC of the same kind and engine (register = init).
    pub fn restart(&self) -> Crc {
        Crc {
            reg: self.spec.init,
            len: 0,
            ..self.clone()
        }
    }

    /// Feeds `data`.
    pub fn update(&mut self, data: &[u8]) {
        self.len += data.len() as u64;
        self.reg = match self.engine {
            Engine::Table => self.spec.table_update(self.reg, data),
            _ if data.len() < FOLD_MIN => self.spec.table_update(self.reg, data),
            #[cfg(target_arch = "x86_64")]
            engine => {
                // SAFETY: the engine is one the CPU runs (`Crc::new`
                // checked), and data has at least FOLD_MIN bytes.
                let (block, used) = unsafe { fold::fold(self.spec, engine, self.reg, data) };
                let r = self.spec.table_update(0, &block);
                self.spec.table_update(r, &data[used..])
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => self.spec.table_update(self.reg, data),
        };
    }

    /// Appends `seg` (made by [`Crc::segment`] and fed the bytes that
    /// follow this CRC's).
    pub fn absorb(&mut self, seg: &Crc) {
        self.reg = self.spec.shift(self.reg, seg.len) ^ seg.reg;
        self.len += seg.len;
    }

    /// The CRC value: the register XORed with the spec's `xorout`, in
    /// the low `width` bits.
    pub fn value(&self) -> u64 {
        (self.reg ^ self.spec.xorout) & self.spec.mask()
    }
}

#[cfg(target_arch = "x86_64")]
mod fold {
    //! The folding loops. Each returns the message's last full 128-bit
    //! block as folded (16 bytes in message order) and how many bytes of
    //! the input that accounts for; the caller runs the block, then the
    //! rest, through the table from a zero register.
    use super::{Engine, Keys, Spec};
    use core::arch::x86_64::*;

    /// Folds `data` from register `reg`.
    ///
    /// # Safety
    /// `engine` must be supported by the CPU (PCLMULQDQ and SSE4.1 for
    /// [`Engine::Pclmul`]; with AVX2 and VPCLMULQDQ for [`Engine::Avx2`];
    /// with AVX-512F, AVX-512BW and VPCLMULQDQ for [`Engine::Avx512`]),
    /// and `data` at least 256 bytes long.
    pub(super) unsafe fn fold(spec: &Spec, engine: Engine, reg: u64, data: &[u8]) -> ([u8; 16], usize) {
        debug_assert!(data.len() >= 256);
        // The register goes into the message's first `width` bits.
        let seed: u128 = if spec.reflected {
            reg as u128
        } else {
            (reg as u128) << (128 - spec.width)
        };
        // SAFETY: the caller's contract.
        unsafe {
            match engine {
                Engine::Avx512 => fold_avx512(&spec.keys, spec.reflected, seed, data),
                Engine::Avx2 => fold_avx2(&spec.keys, spec.reflected, seed, data),
                _ => fold_pclmul(&spec.keys, spec.reflected, seed, data),
            }
        }
    }

    #[inline(always)]
    unsafe fn keys128(k: [u64; 2]) -> __m128i {
        // SAFETY: SSE2, baseline on x86-64.
        unsafe { _mm_set_epi64x(k[1] as i64, k[0] as i64) }
    }

    /// One 128-bit block in the accumulator's layout: as stored where
    /// reflected, byte-reversed where MSB-first.
    #[inline(always)]
    unsafe fn load(p: &[u8], reflected: bool) -> __m128i {
        debug_assert!(p.len() >= 16);
        // SAFETY: 16 bytes readable at p (checked by the callers' loop
        // bounds); SSSE3 is implied by the SSE4.1 every caller enables.
        unsafe {
            let v = _mm_loadu_si128(p.as_ptr().cast());
            if reflected {
                v
            } else {
                _mm_shuffle_epi8(v, swap_mask())
            }
        }
    }

    #[inline(always)]
    unsafe fn swap_mask() -> __m128i {
        // SAFETY: SSE2.
        unsafe { _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) }
    }

    #[inline(always)]
    unsafe fn seed128(seed: u128) -> __m128i {
        // SAFETY: SSE2.
        unsafe { _mm_set_epi64x((seed >> 64) as i64, seed as i64) }
    }

    /// `acc` folded forward by the keys' distance, plus `next`.
    #[target_feature(enable = "pclmulqdq,sse4.1")]
    fn fold128(acc: __m128i, k: __m128i, next: __m128i) -> __m128i {
        let lo = _mm_clmulepi64_si128(acc, k, 0x00);
        let hi = _mm_clmulepi64_si128(acc, k, 0x11);
        _mm_xor_si128(_mm_xor_si128(lo, hi), next)
    }

    /// The folded block back in message byte order.
    #[target_feature(enable = "pclmulqdq,sse4.1")]
    fn finish(acc: __m128i, reflected: bool) -> [u8; 16] {
        // SAFETY: SSSE3 (implied by SSE4.1).
        let v = if reflected {
            acc
        } else {
            unsafe { _mm_shuffle_epi8(acc, swap_mask()) }
        };
        let mut out = [0u8; 16];
        // SAFETY: 16 writable bytes.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), v) };
        out
    }

    /// From 16-byte blocks at `off` on: folds one after another into
    /// `acc` (by 128 bits), and returns the last block's value and the
    /// bytes accounted for.
    #[target_feature(enable = "pclmulqdq,sse4.1")]
    fn fold_rest(
        keys: &Keys,
        reflected: bool,
        mut acc: __m128i,
        data: &[u8],
        mut off: usize,
    ) -> ([u8; 16], usize) {
        // SAFETY: SSE2.
        let k128 = unsafe { keys128(keys.k128) };
        while off + 16 <= data.len() {
            // SAFETY: 16 bytes at off.
            acc = fold128(acc, k128, unsafe { load(&data[off..], reflected) });
            off += 16;
        }
        (finish(acc, reflected), off)
    }

    /// Eight 128-bit accumulators, 128 bytes a step.
    #[target_feature(enable = "pclmulqdq,sse4.1")]
    unsafe fn fold_pclmul(keys: &Keys, reflected: bool, seed: u128, data: &[u8]) -> ([u8; 16], usize) {
        // SAFETY (all loads below): each reads 16 bytes inside `data`
        // (the loop conditions and the caller's 256-byte minimum).
        unsafe {
            let mut acc = [_mm_setzero_si128(); 8];
            for (i, a) in acc.iter_mut().enumerate() {
                *a = load(&data[16 * i..], reflected);
            }
            acc[0] = _mm_xor_si128(acc[0], seed128(seed));
            let k1024 = keys128(keys.k1024);
            let mut off = 128;
            while off + 128 <= data.len() {
                for (i, a) in acc.iter_mut().enumerate() {
                    *a = fold128(*a, k1024, load(&data[off + 16 * i..], reflected));
                }
                off += 128;
            }
            let k128 = keys128(keys.k128);
            let mut one = acc[0];
            for a in &acc[1..] {
                one = fold128(one, k128, *a);
            }
            fold_rest(keys, reflected, one, data, off)
        }
    }

    /// Four 256-bit accumulators, 128 bytes a step.
    #[target_feature(enable = "pclmulqdq,sse4.1,avx2,vpclmulqdq")]
    unsafe fn fold_avx2(keys: &Keys, reflected: bool, seed: u128, data: &[u8]) -> ([u8; 16], usize) {
        // SAFETY: SSE2.
        let swap = _mm256_broadcastsi128_si256(unsafe { swap_mask() });
        // SAFETY: 32 bytes readable at p (the callers' loop bounds).
        let load32 = |p: &[u8]| -> __m256i {
            debug_assert!(p.len() >= 32);
            let v = unsafe { _mm256_loadu_si256(p.as_ptr().cast()) };
            if reflected {
                v
            } else {
                _mm256_shuffle_epi8(v, swap)
            }
        };
        // SAFETY: SSE2.
        let k = |k: [u64; 2]| _mm256_broadcastsi128_si256(unsafe { keys128(k) });
        let fold256 = |acc: __m256i, k: __m256i, next: __m256i| {
            let lo = _mm256_clmulepi64_epi128(acc, k, 0x00);
            let hi = _mm256_clmulepi64_epi128(acc, k, 0x11);
            _mm256_xor_si256(_mm256_xor_si256(lo, hi), next)
        };
        let mut acc = [
            load32(data),
            load32(&data[32..]),
            load32(&data[64..]),
            load32(&data[96..]),
        ];
        // SAFETY: SSE2.
        acc[0] = _mm256_xor_si256(acc[0], _mm256_zextsi128_si256(unsafe { seed128(seed) }));
        let k1024 = k(keys.k1024);
        let mut off = 128;
        while off + 128 <= data.len() {
            for (i, a) in acc.iter_mut().enumerate() {
                *a = fold256(*a, k1024, load32(&data[off + 32 * i..]));
            }
            off += 128;
        }
        let k256 = k(keys.k256);
        let mut y = acc[0];
        for a in &acc[1..] {
            y = fold256(y, k256, *a);
        }
        // SAFETY: SSE2.
        let k128 = unsafe { keys128(keys.k128) };
        let one = fold128(
            _mm256_extracti128_si256::<0>(y),
            k128,
            _mm256_extracti128_si256::<1>(y),
        );
        fold_rest(keys, reflected, one, data, off)
    }

    /// Four 512-bit accumulators, 256 bytes a step.
    #[target_feature(enable = "pclmulqdq,sse4.1,avx512f,avx512bw,vpclmulqdq")]
    unsafe fn fold_avx512(keys: &Keys, reflected: bool, seed: u128, data: &[u8]) -> ([u8; 16], usize) {
        let swap = _mm512_broadcast_i32x4(
            // SAFETY: SSE2.
            unsafe { swap_mask() },
        );
        // SAFETY: 64 bytes readable at p (the callers' loop bounds).
        let load64 = |p: &[u8]| -> __m512i {
            debug_assert!(p.len() >= 64);
            let v = unsafe { _mm512_loadu_si512(p.as_ptr().cast()) };
            if reflected {
                v
            } else {
                _mm512_shuffle_epi8(v, swap)
            }
        };
        // SAFETY: SSE2.
        let k = |k: [u64; 2]| _mm512_broadcast_i32x4(unsafe { keys128(k) });
        let fold512 = |acc: __m512i, k: __m512i, next: __m512i| {
            let lo = _mm512_clmulepi64_epi128(acc, k, 0x00);
            let hi = _mm512_clmulepi64_epi128(acc, k, 0x11);
            _mm512_ternarylogic_epi64(lo, hi, next, 0x96)
        };
        let mut acc = [
            load64(data),
            load64(&data[64..]),
            load64(&data[128..]),
            load64(&data[192..]),
        ];
        // SAFETY: SSE2.
        acc[0] = _mm512_xor_si512(acc[0], _mm512_zextsi128_si512(unsafe { seed128(seed) }));
        let k2048 = k(keys.k2048);
        let mut off = 256;
        while off + 256 <= data.len() {
            for (i, a) in acc.iter_mut().enumerate() {
                *a = fold512(*a, k2048, load64(&data[off + 64 * i..]));
            }
            off += 256;
        }
        let k512 = k(keys.k512);
        let mut z = acc[0];
        for a in &acc[1..] {
            z = fold512(z, k512, *a);
        }
        // The four 128-bit lanes, first to last, into one.
        // SAFETY: SSE2.
        let k128 = unsafe { keys128(keys.k128) };
        let lanes = [
            _mm512_extracti32x4_epi32::<0>(z),
            _mm512_extracti32x4_epi32::<1>(z),
            _mm512_extracti32x4_epi32::<2>(z),
            _mm512_extracti32x4_epi32::<3>(z),
        ];
        let mut one = lanes[0];
        for l in &lanes[1..] {
            one = fold128(one, k128, *l);
        }
        fold_rest(keys, reflected, one, data, off)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    fn engines() -> Vec<Engine> {
        let mut e = vec![Engine::Table];
        #[cfg(target_arch = "x86_64")]
        {
            use crate::algo::cpu::Feature;
            if Feature::Pclmul.detected() {
                e.push(Engine::Pclmul);
            }
            if Feature::Avx2Vpclmul.detected() {
                e.push(Engine::Avx2);
            }
            if Feature::Avx512Vpclmul.detected() {
                e.push(Engine::Avx512);
            }
        }
        e
    }

    /// The catalogue's check values (CRC of the nine ASCII bytes
    /// "123456789"): CRC-32/CKSUM 0x765E7680 (before POSIX's length),
    /// CRC-32/ISO-HDLC 0xCBF43926, CRC-32/ISCSI 0xE3069283, CRC-64/NVME
    /// 0xAE8B14860A799888.
    #[test]
    fn catalogue_check_values() {
        for (spec, check) in [
            (&CKSUM, 0x765E_7680u64),
            (&CRC32B, 0xCBF4_3926),
            (&CRC32C, 0xE306_9283),
            (&CRC64NVME, 0xAE8B_1486_0A79_9888),
        ] {
            let mut c = Crc::new(spec, Engine::Table);
            c.update(b"123456789");
            assert_eq!(c.value(), check, "{spec:?}");
        }
    }

    /// Every engine agrees with the tables at every length up to 700
    /// bytes and around powers of two and at unaligned starts, fed whole and in uneven pieces, and
    /// segments joined with `absorb` agree too.
    #[test]
    fn folding_matches_tables() {
        let data: Vec<u8> = (0..6000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for spec in [&CKSUM, &CRC32B, &CRC32C, &CRC64NVME] {
            for len in (0..700).chain([1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 5000]) {
                for start in [0, 5] {
                    let msg = &data[start..start + len];
                    let mut want = Crc::new(spec, Engine::Table);
                    want.update(msg);
                    for &e in &engines() {
                        let mut got = Crc::new(spec, e);
                        got.update(msg);
                        assert_eq!(got.value(), want.value(), "{e:?} len {len} start {start}");
                        // Pieces of 300, 17, 1000 bytes ...
                        let mut p = Crc::new(spec, e);
                        let mut rest = msg;
                        for n in [300usize, 17, 1000].iter().cycle() {
                            if rest.is_empty() {
                                break;
                            }
                            let n = (*n).min(rest.len());
                            p.update(&rest[..n]);
                            rest = &rest[n..];
                        }
                        assert_eq!(p.value(), want.value(), "{e:?} pieces len {len}");
                        // ... and two segments joined.
                        let cut = len / 3;
                        let mut a = Crc::new(spec, e);
                        a.update(&msg[..cut]);
                        let mut b = a.segment();
                        b.update(&msg[cut..]);
                        a.absorb(&b);
                        assert_eq!(a.value(), want.value(), "{e:?} joined len {len}");
                    }
                }
            }
        }
    }
}
