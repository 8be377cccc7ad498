//! Portable BLAKE3: the specification's reference structure (the BLAKE3
//! paper, 2020, §2: chunks of 1,024 bytes, a binary tree of parents, the
//! root compressed with ROOT set and read as an extendable output), one
//! block at a time with no SIMD. `MHASH_BACKEND=portable` forces it; the
//! `blake3` crate's SIMD paths are what normally runs.

use crate::algo::Hasher;

const BLOCK_LEN: usize = 64;
const CHUNK_LEN: usize = 1024;

const CHUNK_START: u32 = 1;
const CHUNK_END: u32 = 2;
const PARENT: u32 = 4;
const ROOT: u32 = 8;

/// BLAKE3's IV: SHA-256's initial hash value (FIPS 180-4 §5.3.3).
const IV: [u32; 8] = [
    0x6A09_E667,
    0xBB67_AE85,
    0x3C6E_F372,
    0xA54F_F53A,
    0x510E_527F,
    0x9B05_688C,
    0x1F83_D9AB,
    0x5BE0_CD19,
];

/// The message word permutation applied between rounds.
const MSG_PERMUTATION: [usize; 16] = [2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8];

#[inline(always)]
fn g(s: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize, mx: u32, my: u32) {
    s[a] = s[a].wrapping_add(s[b]).wrapping_add(mx);
    s[d] = (s[d] ^ s[a]).rotate_right(16);
    s[c] = s[c].wrapping_add(s[d]);
    s[b] = (s[b] ^ s[c]).rotate_right(12);
    s[a] = s[a].wrapping_add(s[b]).wrapping_add(my);
    s[d] = (s[d] ^ s[a]).rotate_right(8);
    s[c] = s[c].wrapping_add(s[d]);
    s[b] = (s[b] ^ s[c]).rotate_right(7);
}

#[inline(always)]
fn round(s: &mut [u32; 16], m: &[u32; 16]) {
    g(s, 0, 4, 8, 12, m[0], m[1]);
    g(s, 1, 5, 9, 13, m[2], m[3]);
    g(s, 2, 6, 10, 14, m[4], m[5]);
    g(s, 3, 7, 11, 15, m[6], m[7]);
    g(s, 0, 5, 10, 15, m[8], m[9]);
    g(s, 1, 6, 11, 12, m[10], m[11]);
    g(s, 2, 7, 8, 13, m[12], m[13]);
    g(s, 3, 4, 9, 14, m[14], m[15]);
}

/// The compression function: 7 rounds over one 64-byte block.
fn compress(cv: &[u32; 8], block: &[u32; 16], counter: u64, block_len: u32, flags: u32) -> [u32; 16] {
    let mut s = [
        cv[0],
        cv[1],
        cv[2],
        cv[3],
        cv[4],
        cv[5],
        cv[6],
        cv[7],
        IV[0],
        IV[1],
        IV[2],
        IV[3],
        counter as u32,
        (counter >> 32) as u32,
        block_len,
        flags,
    ];
    let mut m = *block;
    for r in 0..7 {
        round(&mut s, &m);
        if r < 6 {
            m = core::array::from_fn(|i| m[MSG_PERMUTATION[i]]);
        }
    }
    for i in 0..8 {
        s[i] ^= s[i + 8];
        s[i + 8] ^= cv[i];
    }
    s
}

fn first_8(w: [u32; 16]) -> [u32; 8] {
    core::array::from_fn(|i| w[i])
}

fn words(block: &[u8; BLOCK_LEN]) -> [u32; 16] {
    core::array::from_fn(|i| u32::from_le_bytes(block[4 * i..4 * i + 4].try_into().expect("4 bytes")))
}

/// What the last compression of a node needs: compressed once for a
/// chaining value, or repeatedly (counter 0, 1, ...) with ROOT for output.
struct Output {
    cv: [u32; 8],
    block: [u32; 16],
    counter: u64,
    block_len: u32,
    flags: u32,
}

impl Output {
    fn chaining_value(&self) -> [u32; 8] {
        first_8(compress(
            &self.cv,
            &self.block,
            self.counter,
            self.block_len,
            self.flags,
        ))
    }

    fn root_bytes(&self, out: &mut [u8]) {
        for (n, piece) in out.chunks_mut(2 * 32).enumerate() {
            let w = compress(&self.cv, &self.block, n as u64, self.block_len, self.flags | ROOT);
            for (word, dst) in w.iter().zip(piece.chunks_mut(4)) {
                dst.copy_from_slice(&word.to_le_bytes()[..dst.len()]);
            }
        }
    }
}

fn parent(left: [u32; 8], right: [u32; 8]) -> Output {
    let mut block = [0u32; 16];
    block[..8].copy_from_slice(&left);
    block[8..].copy_from_slice(&right);
    Output {
        cv: IV,
        block,
        counter: 0,
        block_len: BLOCK_LEN as u32,
        flags: PARENT,
    }
}

struct Chunk {
    cv: [u32; 8],
    counter: u64,
    block: [u8; BLOCK_LEN],
    block_len: usize,
    blocks_done: usize,
}

impl Chunk {
    fn new(counter: u64) -> Chunk {
        Chunk {
            cv: IV,
            counter,
            block: [0; BLOCK_LEN],
            block_len: 0,
            blocks_done: 0,
        }
    }

    fn len(&self) -> usize {
        BLOCK_LEN * self.blocks_done + self.block_len
    }

    fn start_flag(&self) -> u32 {
        if self.blocks_done == 0 { CHUNK_START } else { 0 }
    }

    fn update(&mut self, mut input: &[u8]) {
        while !input.is_empty() {
            if self.block_len == BLOCK_LEN {
                let w = words(&self.block);
                self.cv = first_8(compress(
                    &self.cv,
                    &w,
                    self.counter,
                    BLOCK_LEN as u32,
                    self.start_flag(),
                ));
                self.blocks_done += 1;
                self.block = [0; BLOCK_LEN];
                self.block_len = 0;
            }
            let take = (BLOCK_LEN - self.block_len).min(input.len());
            self.block[self.block_len..self.block_len + take].copy_from_slice(&input[..take]);
            self.block_len += take;
            input = &input[take..];
        }
    }

    fn output(&self) -> Output {
        Output {
            cv: self.cv,
            block: words(&self.block),
            counter: self.counter,
            block_len: self.block_len as u32,
            flags: self.start_flag() | CHUNK_END,
        }
    }
}

/// Portable streaming BLAKE3 with `out_len` bytes of output.
pub(in crate::algo) struct Blake3 {
    chunk: Chunk,
    /// Chaining values of completed subtrees, at most one per level
    /// (54 levels cover 2^64 bytes).
    stack: Vec<[u32; 8]>,
    out_len: usize,
}

impl Blake3 {
    /// A fresh unkeyed hash giving `out_len` bytes.
    pub(in crate::algo) fn new(out_len: usize) -> Blake3 {
        Blake3 {
            chunk: Chunk::new(0),
            stack: Vec::with_capacity(54),
            out_len,
        }
    }

    fn push_chunk_cv(&mut self, mut cv: [u32; 8], mut total_chunks: u64) {
        // Merge completed subtrees: one per trailing zero bit of the count.
        while total_chunks & 1 == 0 {
            let left = self.stack.pop().expect("a subtree to merge");
            cv = parent(left, cv).chaining_value();
            total_chunks >>= 1;
        }
        self.stack.push(cv);
    }
}

impl Hasher for Blake3 {
    fn update(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            if self.chunk.len() == CHUNK_LEN {
                let cv = self.chunk.output().chaining_value();
                let total = self.chunk.counter + 1;
                self.push_chunk_cv(cv, total);
                self.chunk = Chunk::new(total);
            }
            let take = (CHUNK_LEN - self.chunk.len()).min(data.len());
            self.chunk.update(&data[..take]);
            data = &data[take..];
        }
    }

    fn finalize(self: Box<Self>) -> Vec<u8> {
        let mut out = self.chunk.output();
        for left in self.stack.iter().rev() {
            out = parent(*left, out.chaining_value());
        }
        let mut bytes = vec![0u8; self.out_len];
        out.root_bytes(&mut bytes);
        bytes
    }
}
