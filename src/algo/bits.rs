//! SHA-1 and SHA-2 over messages whose length in bits need not be a
//! multiple of 8, for Perl `shasum`'s BITS mode (`shasum -0 FILE`, lines
//! `HEX ^FILE`): the file holds the message as ASCII `0`/`1` characters,
//! every other byte ignored (Digest::SHA's `addfile` mode "0": `tr/01//cd`,
//! then `add_bits`).
//!
//! The padding is FIPS 180-4 §5.1 for an l-bit message: a 1 bit, zeros to
//! 448 mod 512 (SHA-1, SHA-224, SHA-256) or 896 mod 1024 (SHA-384,
//! SHA-512), then l as a 64- or 128-bit big-endian integer; the
//! compression functions are RustCrypto's (`sha1::block_api::compress`,
//! `sha2::block_api::compress256`/`compress512`). The initial hash values
//! are FIPS 180-4 §5.3 (SHA-1's here, SHA-2's from the kernels).

use super::AlgoKind;

/// FIPS 180-4 §5.3.1.
const SHA1_IV: [u32; 5] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0];
use super::kernels::sha256::{IV_224 as SHA224_IV, IV_256 as SHA256_IV};
use super::kernels::sha512::{IV_384 as SHA384_IV, IV_512 as SHA512_IV};
/// FIPS 180-4 §5.3.6.1.
const SHA512_224_IV: [u64; 8] = [
    0x8C3D37C819544DA2,
    0x73E1996689DCD4D6,
    0x1DFAB7AE32FF9C82,
    0x679DD514582F9FCF,
    0x0F6D2B697BD44DA8,
    0x77E36F7304C48942,
    0x3F9D85A86A1D36C8,
    0x1112E6AD91D692A1,
];
/// FIPS 180-4 §5.3.6.2.
const SHA512_256_IV: [u64; 8] = [
    0x22312194FC2BF72C,
    0x9F555FA3C84C64C2,
    0x2393B86B6F53B151,
    0x963877195940EABD,
    0x96283EE2A88EFFE3,
    0xBE5E1E2553863992,
    0x2B0199FC2C85B8AA,
    0x0EB72DDC81C52CA2,
];

#[derive(Clone, Debug)]
enum State {
    Sha1([u32; 5]),
    Sha256([u32; 8]),
    Sha512([u64; 8]),
}

/// A SHA-1/SHA-2 computation fed bit by bit.
#[derive(Clone, Debug)]
pub struct BitHasher {
    state: State,
    /// Output length in bytes (28 for SHA-224, ...).
    out_len: usize,
    /// The block being filled (64 or 128 bytes are used).
    block: [u8; 128],
    /// Bits in `block` so far.
    filled: usize,
    /// Message length so far, in bits.
    total: u128,
}

impl BitHasher {
    /// A hasher for `kind`; `None` for an algorithm other than SHA-1,
    /// SHA-224, SHA-256, SHA-384 and SHA-512 (what `shasum` computes).
    pub fn new(kind: AlgoKind) -> Option<BitHasher> {
        let (state, out_len) = match kind {
            AlgoKind::Sha1 => (State::Sha1(SHA1_IV), 20),
            AlgoKind::Sha224 => (State::Sha256(SHA224_IV), 28),
            AlgoKind::Sha256 => (State::Sha256(SHA256_IV), 32),
            AlgoKind::Sha384 => (State::Sha512(SHA384_IV), 48),
            AlgoKind::Sha512 => (State::Sha512(SHA512_IV), 64),
            _ => return None,
        };
        Some(BitHasher {
            state,
            out_len,
            block: [0; 128],
            filled: 0,
            total: 0,
        })
    }

    /// A hasher for SHA-512/t, `t` = 224 or 256 (FIPS 180-4 §5.3.6: SHA-512
    /// with its own initial hash value, the digest cut to t bits), which
    /// Perl `shasum -0 -a 512224|512256` computes; `None` for any other t.
    pub fn sha512_t(t: u32) -> Option<BitHasher> {
        let (iv, out_len) = match t {
            224 => (SHA512_224_IV, 28),
            256 => (SHA512_256_IV, 32),
            _ => return None,
        };
        Some(BitHasher {
            state: State::Sha512(iv),
            out_len,
            block: [0; 128],
            filled: 0,
            total: 0,
        })
    }

    /// Block size in bits.
    fn block_bits(&self) -> usize {
        match self.state {
            State::Sha512(_) => 1024,
            _ => 512,
        }
    }

    fn push(&mut self, bit: bool) {
        let byte = self.filled / 8;
        let mask = 0x80u8 >> (self.filled % 8);
        if bit {
            self.block[byte] |= mask;
        } else {
            self.block[byte] &= !mask;
        }
        self.filled += 1;
        if self.filled == self.block_bits() {
            self.compress();
        }
    }

    fn compress(&mut self) {
        match &mut self.state {
            State::Sha1(s) => {
                let b: [u8; 64] = self.block[..64].try_into().unwrap_or([0; 64]);
                sha1::block_api::compress(s, &[b]);
            }
            State::Sha256(s) => {
                let b: [u8; 64] = self.block[..64].try_into().unwrap_or([0; 64]);
                sha2::block_api::compress256(s, &[b]);
            }
            State::Sha512(s) => sha2::block_api::compress512(s, &[self.block]),
        }
        self.filled = 0;
        self.block = [0; 128];
    }

    /// Adds the message bits written as ASCII `0` and `1` in `ascii`;
    /// every other byte is ignored (Digest::SHA `tr/01//cd`).
    pub fn update_ascii(&mut self, ascii: &[u8]) {
        for &c in ascii {
            if c == b'0' || c == b'1' {
                self.total += 1;
                self.push(c == b'1');
            }
        }
    }

    /// Adds whole bytes, most significant bit first.
    pub fn update_bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            for i in (0..8).rev() {
                self.total += 1;
                self.push(b >> i & 1 == 1);
            }
        }
    }

    /// The digest (FIPS 180-4 §5.1 padding, then the state's leading
    /// `out_len` bytes, big-endian words).
    pub fn finalize(mut self) -> Vec<u8> {
        let total = self.total;
        let len_bits = if self.block_bits() == 1024 { 128 } else { 64 };
        self.push(true);
        while self.filled != self.block_bits() - len_bits {
            self.push(false);
        }
        for i in (0..len_bits).rev() {
            self.push(i < 128 && total >> i & 1 == 1);
        }
        let mut out = Vec::with_capacity(64);
        match self.state {
            State::Sha1(s) => s.iter().for_each(|w| out.extend_from_slice(&w.to_be_bytes())),
            State::Sha256(s) => s.iter().for_each(|w| out.extend_from_slice(&w.to_be_bytes())),
            State::Sha512(s) => s.iter().for_each(|w| out.extend_from_slice(&w.to_be_bytes())),
        }
        out.truncate(self.out_len);
        out
    }
}

/// Perl `shasum`'s reading modes beyond binary and text (its mode
/// characters in checksum lines: `U`, `^`; Digest::SHA `addfile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShasumMode {
    /// `shasum -U`, lines `HEX UNAME`: "universal newlines", every CR LF
    /// and every lone CR read as LF (Digest::SHA `_addfileuniv`).
    Universal,
    /// `shasum -0`, lines `HEX ^NAME`: the file's `0`/`1` characters are
    /// the message's bits (SHA-1 and SHA-2 only).
    Bits,
}

/// A hasher for `algo` reading the input as `mode` says; `None` for
/// [`ShasumMode::Bits`] with an algorithm [`BitHasher`] does not compute.
pub fn shasum_hasher(algo: super::Algorithm, mode: ShasumMode) -> Option<Box<dyn super::Hasher>> {
    Some(match mode {
        ShasumMode::Universal => Box::new(Universal {
            inner: algo.hasher(),
            cr: false,
            out: Vec::new(),
        }),
        ShasumMode::Bits => Box::new(BitHasher::new(algo.kind)?),
    })
}

/// `inner` behind Perl shasum's universal-newline reading (`-U`): every
/// CR LF and every lone CR reaches it as LF (Digest::SHA `_addfileuniv`).
pub fn universal(inner: Box<dyn super::Hasher>) -> Box<dyn super::Hasher> {
    Box::new(Universal {
        inner,
        cr: false,
        out: Vec::new(),
    })
}

/// Universal-newline reading in front of another hasher.
struct Universal {
    inner: Box<dyn super::Hasher>,
    /// The last byte seen was a CR (already passed on as LF).
    cr: bool,
    out: Vec<u8>,
}

impl super::Hasher for Universal {
    fn update(&mut self, data: &[u8]) {
        self.out.clear();
        for &b in data {
            match b {
                b'\r' => {
                    self.out.push(b'\n');
                    self.cr = true;
                }
                b'\n' if self.cr => self.cr = false,
                _ => {
                    self.out.push(b);
                    self.cr = false;
                }
            }
        }
        self.inner.update(&self.out);
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        self.inner.finalize()
    }
}

impl super::Hasher for BitHasher {
    fn update(&mut self, data: &[u8]) {
        self.update_ascii(data);
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        BitHasher::finalize(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::Algorithm;

    /// Whole-byte messages give the ordinary digests (which the NIST
    /// vectors test): the IVs, padding and length encoding are right.
    #[test]
    fn whole_bytes_match_the_byte_oriented_digests() {
        for kind in [
            AlgoKind::Sha1,
            AlgoKind::Sha224,
            AlgoKind::Sha256,
            AlgoKind::Sha384,
            AlgoKind::Sha512,
        ] {
            for len in [0usize, 1, 3, 55, 56, 63, 64, 111, 112, 127, 128, 200] {
                let msg: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
                let mut h = BitHasher::new(kind).unwrap();
                h.update_bytes(&msg);
                assert_eq!(h.finalize(), Algorithm::new(kind).digest(&msg), "{kind:?} {len}");
            }
        }
    }

    /// SHA-512/224 and SHA-512/256 over whole bytes are RustCrypto's.
    #[test]
    fn sha512_t_matches_sha2() {
        use sha2::Digest as _;
        for len in [0usize, 3, 111, 112, 200] {
            let msg: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let mut h = BitHasher::sha512_t(224).unwrap();
            h.update_bytes(&msg);
            assert_eq!(h.finalize(), sha2::Sha512_224::digest(&msg).to_vec());
            let mut h = BitHasher::sha512_t(256).unwrap();
            h.update_bytes(&msg);
            assert_eq!(h.finalize(), sha2::Sha512_256::digest(&msg).to_vec());
        }
        assert!(BitHasher::sha512_t(384).is_none());
    }

    #[test]
    fn only_sha1_and_sha2() {
        assert!(BitHasher::new(AlgoKind::Md5).is_none());
        assert!(BitHasher::new(AlgoKind::Sha3_256).is_none());
    }
}
