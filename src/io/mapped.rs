//! Memory-mapped input, a bounded window at a time, guarded against a file
//! that shrinks under the map.
//!
//! Mapping saves the copy out of the page cache that `read(2)` makes, which
//! matters where hashing is faster than that copy: BLAKE3 on several
//! threads ([`should_map_tree`]), which `auto` maps when the file is large
//! (XXH3, as fast but one stream, is read by two threads at once instead:
//! `io::readers`); and one digest of a large file, where a map measures
//! faster than reading on that file (`io::trial`).
//! Peak memory stays bounded: each window ([`WINDOW`] bytes, pre-faulted
//! with `MAP_POPULATE`, or a [`tree_piece`] per thread, faulted in by the threads
//! that hash it) is mapped, hashed and unmapped before the next.
//!
//! A file truncated while it is mapped makes the lost pages raise SIGBUS on
//! access, which would kill the process. The guard is a SIGBUS handler:
//! when the faulting address lies in a window armed by any thread (the
//! windows are in a process-wide table, so a fault on one of rayon's
//! threads hashing a window is caught too), it maps anonymous zero pages
//! over the rest of that window, notes the fault, and returns, so the
//! access completes; [`feed_mapped`] then reports [`Outcome::Shrank`] and
//! the caller re-reads the file with `read(2)`. A SIGBUS anywhere else gets
//! the previous disposition back (the default: the process dies as it
//! would have).

use crate::algo::{AlgoKind, Algorithm, Hasher};
use crate::config::IoMode;
use std::fs::File;
use std::io;

/// Bytes mapped at a time: 4 MiB (4,194,304), so a mapped file adds at most
/// this much to the resident set.
pub const WINDOW: u64 = 4 << 20;

/// How a mapped hash ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every byte up to the size at open was hashed from the map.
    Whole,
    /// The file shrank under the map: the hasher saw zeros for lost pages
    /// and must be thrown away.
    Shrank,
}

/// Bytes of each piece of a tree hash (BLAKE3 on several threads): 2 MiB
/// (2,097,152). Each worker ([`feed_pieces`]) maps a piece, hashes it as
/// a subtree ([`crate::algo::Tree::piece_function`]), unmaps it and takes
/// the next, so the file's page-cache pages mapped at once are one piece
/// per worker (peak RSS: 4 MiB of the file on 2 workers) and the workers
/// wait for each other only at the end of a round of 8,192 pieces.
///
/// Why 2 MiB, measured 2026-12-06 (Intel Xeon VM, 2 vCPUs, AVX-512, Linux
/// 6.18, ext4; 1 GiB cached file; `perf stat -r 7` and 21-31 interleaved
/// rounds; b3sum 1.8.7, which maps the whole file, as the yardstick):
/// a piece of one PMD (2 MiB, mapped at a 2 MiB-aligned address) is
/// mapped by one page fault where the page cache holds the file in 2 MiB
/// folios (607 faults per GiB); 1 MiB pieces took 17,594 faults and 14%
/// more time. Larger pieces cost fewer unmaps, each of whose TLB flush
/// interrupts the other hashing threads: 8 MiB pieces took 207 ms of CPU
/// against 235 ms for 2 MiB, for 4x the peak RSS.
pub const PIECE: u64 = 2 << 20;

static PIECE_SET: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

/// Sets the tree hash's piece once per process (`MHASH_MAP_WINDOW`):
/// `bytes` rounded down to a power of two, 64 KiB..=1 GiB; `None` leaves
/// `PIECE` (2 MiB). Calls after the first that set it change nothing.
pub fn set_tree_window(bytes: Option<u64>) {
    if let Some(n) = bytes {
        let n = n.clamp(64 << 10, 1 << 30);
        let _ = PIECE_SET.set(1 << (63 - n.leading_zeros()));
    }
}

/// The piece of a tree hash: what [`set_tree_window`] chose, else
/// `PIECE` (2 MiB).
pub fn tree_piece() -> u64 {
    PIECE_SET.get().copied().unwrap_or(PIECE)
}

/// Smallest file (bytes) that `auto` maps for a hash on several threads
/// (a tree hash): 16 MiB (below it the other threads are not worth a map).
const PARALLEL_MAP_MIN: u64 = 16 << 20;

/// Whether `auto` maps a regular file of `size` bytes hashed with `algo`
/// as one tree hash on several threads (the caller knows the threads are
/// there): BLAKE3 files of at least [`PARALLEL_MAP_MIN`] bytes.
pub fn should_map_tree(mode: IoMode, algo: Algorithm, size: u64) -> bool {
    crate::os::map_guard::supported()
        && mode == IoMode::Auto
        && algo.kind == AlgoKind::Blake3
        && size >= PARALLEL_MAP_MIN
}

/// Smallest file (bytes) that `auto` maps: 1 MiB. Below it the map, populate
/// and unmap calls cost more than the copy they save.
const AUTO_MIN: u64 = 1 << 20;

/// Whether a regular file of `size` bytes is hashed from a map in `mode`.
///
/// `auto` maps only where the benchmark showed a gain (and, through
/// `io::trial`, where a map measures faster on the file itself). Measured
/// on a 2026-11 EPYC VM, before the block kernels prefetched ahead
/// (`--io read` vs `--io mmap`, 512 MiB cached file, 1 MiB-512 MiB windows,
/// with and without MAP_POPULATE): mapping was about 2x *slower* for every
/// algorithm (crc 3,800-4,000 vs 5,900-7,900 MB/s, sha256 480-540 vs
/// 1,020-1,140, md5 255-310 vs 520-740), so `auto` maps nothing. The
/// candidates are kept in [`AUTO_MAP_KINDS`] (empty) for machines where the
/// benchmark says otherwise.
pub fn should_map(mode: IoMode, algo: Algorithm, size: u64) -> bool {
    may_map(mode, algo) && size > 0 && (mode == IoMode::Mmap || size >= AUTO_MIN)
}

/// Whether a file hashed with `algo` could be mapped in `mode`, whatever
/// its size (when not, its size need not be asked for).
pub fn may_map(mode: IoMode, algo: Algorithm) -> bool {
    crate::os::map_guard::supported()
        && match mode {
            IoMode::Read => false,
            IoMode::Mmap => true,
            IoMode::Auto => AUTO_MAP_KINDS.contains(&algo.kind),
        }
}

/// The algorithms `auto` maps (files of at least 1 MiB): none, see
/// [`should_map`].
const AUTO_MAP_KINDS: [AlgoKind; 0] = [];

/// Hashes bytes `start..size` of `file` from the map, adding each hashed
/// length to `total`. [`Mapping::Serial`]: a [`WINDOW`] at a time on the
/// calling thread. [`Mapping::Tree`] (`hasher` a fresh tree hash, `start`
/// 0): the whole pieces ([`tree_piece`]) on every thread of rayon's pool
/// ([`feed_pieces`]), leaving the last partial piece to the caller, who
/// goes on from `total`. `start` need not be a multiple of the page size
/// (memmap2 maps from the page below it).
///
/// # Errors
/// `mmap(2)` failed (e.g. a file system that cannot map), or the guard's
/// table of windows is full; nothing has been promised about the hasher's
/// state then, and the caller starts again.
pub fn feed_mapped(
    file: &File,
    start: u64,
    size: u64,
    hasher: &mut dyn Hasher,
    how: Mapping,
    total: &mut u64,
) -> io::Result<Outcome> {
    if crate::os::in_memory_fs(file) {
        // A fault on a hole of a tmpfs file allocates a page for it (the
        // file system's memory, until the file is deleted): read(2) gives
        // its zeros without allocating. The caller streams it instead.
        return Err(io::Error::from(io::ErrorKind::Unsupported));
    }
    crate::os::map_guard::install();
    if how == Mapping::Tree
        && start == 0
        && let crate::algo::Capability::Tree(t) = hasher.capability()
        && let Some(outcome) = feed_pieces(file, size, t, total)?
    {
        return Ok(outcome);
    }
    let Some(slot) = crate::os::map_guard::Slot::claim() else {
        return Err(io::Error::from(io::ErrorKind::Unsupported));
    };
    let mut off = start;
    while off < size {
        let len = (size - off).min(WINDOW) as usize;
        let mut options = memmap2::MmapOptions::new();
        options.offset(off).len(len).populate();
        // SAFETY: the map is read-only and private; another process may
        // still change the file's bytes under it (the digest is then of
        // some mix, as with read(2) racing a writer) or truncate it, which
        // the SIGBUS guard armed before it is read turns into zero pages
        // and a flag (MAP_POPULATE itself skips pages past the end).
        let map = unsafe { options.map(file)? };
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        slot.arm(map.as_ptr() as usize, len);
        match hasher.capability() {
            // A tree hash of a file too short for two pieces: each window
            // on every thread of the pool.
            crate::algo::Capability::Tree(t) if how == Mapping::Tree => t.update_parallel(&map),
            _ => hasher.update(&map),
        }
        if slot.disarm() {
            return Ok(Outcome::Shrank);
        }
        drop(map);
        *total += len as u64;
        crate::progress::note_bytes(len as u64);
        off += len as u64;
    }
    Ok(Outcome::Whole)
}

/// A tree hash of `file`'s first `size` bytes by pieces: the whole
/// [`tree_piece`]s, each mapped, hashed as a subtree and unmapped by
/// whichever worker takes it next, then given to `tree` in order
/// ([`crate::algo::Tree::absorb_pieces`]); `total` gains their bytes and
/// the caller hashes the rest (under one piece) from `total` on. `None`
/// where the file holds fewer than two pieces (the caller maps it
/// serially). [`Outcome::Shrank`] when a piece faulted past a new end of
/// the file (what the tree took must then be thrown away).
///
/// The workers are as many as rayon's pool has threads: on Linux, a file
/// of [`PROCESSES_MIN`] bytes (256 MiB) or more is hashed by one thread of
/// this process and forked worker processes ([`Workers::Processes`]),
/// smaller ones (and any under qemu-user emulation:
/// [`crate::os::workers::forkable`]) by the pool's threads. Each worker
/// holds one piece at a time and waits for no other until the round's
/// last piece (a round: 8,192 pieces); unlike b3sum's one map of the
/// whole file, peak RSS is a piece per worker. The piece is [`tree_piece`], or smaller (a power of
/// two, 64 KiB at least) where the file holds fewer than two per worker.
///
/// # Errors
/// A piece's `mmap(2)` failed, or the guard's table is full; the caller
/// starts again.
pub fn feed_pieces(
    file: &File,
    size: u64,
    tree: &mut dyn crate::algo::Tree,
    total: &mut u64,
) -> io::Result<Option<Outcome>> {
    let workers =
        if size >= PROCESSES_MIN && crate::os::map_guard::supported() && crate::os::workers::forkable() {
            Workers::Processes
        } else {
            Workers::Threads
        };
    let n = rayon::current_num_threads();
    // Two pieces per worker at least (a power of two, 64 KiB or more), so
    // that a file of a few pieces still keeps every worker busy.
    let per_worker = (size / (2 * n.max(1) as u64)).max(64 << 10);
    let piece = tree_piece().min(1 << (63 - per_worker.leading_zeros()));
    feed_pieces_with(file, size, tree, total, workers, n, piece)
}

/// Smallest file (bytes) hashed by worker processes rather than threads:
/// 256 MiB. A worker costs a fork and an exit, about 0.8 ms of wall time
/// measured on 2 vCPUs; from 256 MiB up the flushes it saves pay for it.
///
/// Why processes: threads of one process share its page tables, so each
/// unmap of a piece sends a TLB flush to every other CPU running a hashing
/// thread (an inter-processor interrupt; on a VM, exits to the
/// hypervisor), a cost that grows with the threads; a process's unmap
/// flushes its own CPU only. Measured 2026-12-06 on an Intel Xeon VM, 2
/// vCPUs, Linux 6.18, 2 MiB pieces, medians of 31 interleaved rounds
/// (wall / CPU): 1 GiB cached file, threads 139.1 / 273.9 ms, processes
/// 137.7 / 271.0 ms, b3sum 137.0 / 270.1 ms; 256 MiB, threads 47.9 /
/// 91.8 ms, processes 47.6 / 91.3 ms; 128 MiB, threads 22.9 ms,
/// processes 23.7 ms; 64 MiB, threads 11.1 ms, processes 12.0 ms. A
/// quiet hour's prototype outside the tree gave 2 threads 235 ms of CPU
/// against 2 processes 213 ms and 1 thread 208 ms (`perf stat -r 7`).
pub const PROCESSES_MIN: u64 = 256 << 20;

/// Who hashes a tree hash's pieces ([`feed_pieces_with`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workers {
    /// This thread and the other threads of rayon's pool.
    Threads,
    /// This thread and forked processes (Linux; where a fork fails, the
    /// pool's threads take its place).
    Processes,
}

/// The board's words: the next piece to take, stop, shrank, failed (a map
/// could not be made), bytes hashed; then [`SLOT_WORDS`] per piece: done,
/// and the chaining value's four little-endian words.
const NEXT: usize = 0;
const STOP: usize = 1;
const SHRANK: usize = 2;
const FAILED: usize = 3;
const BYTES: usize = 4;
const HEAD: usize = 5;
const SLOT_WORDS: usize = 5;

/// Pieces given out at once: 8,192 (16 GiB in 2 MiB pieces; a board of
/// 320 KiB). A larger file takes several rounds.
const ROUND: u64 = 8192;

/// [`feed_pieces`] by `workers`, `n` of them (this thread included), in
/// pieces of `piece` bytes (a power of two, a multiple of the page size).
pub fn feed_pieces_with(
    file: &File,
    size: u64,
    tree: &mut dyn crate::algo::Tree,
    total: &mut u64,
    workers: Workers,
    n: usize,
    piece: u64,
) -> io::Result<Option<Outcome>> {
    use std::sync::atomic::Ordering;
    let pieces = size / piece;
    if pieces < 2 {
        return Ok(None);
    }
    let hash_piece = tree.piece_function();
    let mut first = 0;
    while first < pieces {
        let count = (pieces - first).min(ROUND);
        let board = crate::os::workers::Board::new(HEAD + SLOT_WORDS * count as usize)?;
        let w = board.words();
        let here = std::sync::atomic::AtomicU64::new(0);
        let round = Round {
            file,
            first,
            count,
            piece,
            hash_piece,
        };
        let work = || round.take(w, &here);
        let mut children = Vec::new();
        if workers == Workers::Processes {
            for _ in 1..n {
                match crate::os::workers::spawn(&work) {
                    Ok(c) => children.push(c),
                    Err(_) => break,
                }
            }
        }
        // Threads of this process stand in for the workers that could
        // not be forked.
        let threads = n - children.len();
        rayon::scope(|s| {
            for _ in 1..threads {
                s.spawn(|_| work());
            }
            work();
        });
        for c in children {
            c.wait();
        }
        // The bytes the children hashed (this process's workers noted
        // their own as they went).
        crate::progress::note_bytes(w[BYTES].load(Ordering::Relaxed) - here.load(Ordering::Relaxed));
        let cvs = match round.gather(w, &here) {
            Ok(cvs) => cvs,
            Err(Gathered::Shrank) => return Ok(Some(Outcome::Shrank)),
            Err(Gathered::Failed) => return Err(io::Error::from(io::ErrorKind::Unsupported)),
        };
        if !tree.absorb_pieces(piece, &cvs) {
            return Err(io::Error::other("a tree hash's pieces could not be joined"));
        }
        first += count;
        *total += count * piece;
    }
    Ok(Some(Outcome::Whole))
}

/// Why a round gave no chaining values ([`Round::gather`]).
#[derive(Debug, PartialEq, Eq)]
enum Gathered {
    /// A piece faulted past a new end of the file.
    Shrank,
    /// A piece could not be mapped.
    Failed,
}

/// A slot's chaining value (words 1..5, little-endian).
fn read_cv(slot: &[std::sync::atomic::AtomicU64]) -> [u8; 32] {
    let mut cv = [0u8; 32];
    for (k, word) in slot[1..SLOT_WORDS].iter().enumerate() {
        cv[8 * k..8 * k + 8].copy_from_slice(&word.load(std::sync::atomic::Ordering::Relaxed).to_le_bytes());
    }
    cv
}

/// A round of a tree hash: `count` pieces of `piece` bytes of `file`
/// from piece `first`, each hashed by `hash_piece`; its board (one per
/// round) is passed to each call.
#[derive(Clone, Copy)]
struct Round<'a> {
    file: &'a File,
    first: u64,
    count: u64,
    piece: u64,
    hash_piece: crate::algo::PieceFn,
}

impl Round<'_> {
    /// One worker's loop: takes the next piece on `board`, maps it,
    /// hashes it, unmaps it, writes its chaining value and marks it done,
    /// until none is left or a worker stopped the round; `here` counts the
    /// bytes hashed in this process (noted for the progress line at once).
    /// Run in forked children too: it allocates nothing and takes no lock.
    fn take(&self, board: &[std::sync::atomic::AtomicU64], here: &std::sync::atomic::AtomicU64) {
        use std::sync::atomic::Ordering;
        let stop = |flag: usize| {
            board[flag].store(1, Ordering::Release);
            board[STOP].store(1, Ordering::Release);
        };
        let Some(slot) = crate::os::map_guard::Slot::claim() else {
            return stop(FAILED);
        };
        while board[STOP].load(Ordering::Relaxed) == 0 {
            let j = board[NEXT].fetch_add(1, Ordering::Relaxed);
            if j >= self.count {
                break;
            }
            let at = (self.first + j) * self.piece;
            let mut options = memmap2::MmapOptions::new();
            options.offset(at).len(self.piece as usize);
            // SAFETY: as in `feed_mapped`: read-only, private, and guarded
            // against truncation before it is read.
            let Ok(map) = (unsafe { options.map(self.file) }) else {
                return stop(FAILED);
            };
            slot.arm(map.as_ptr() as usize, map.len());
            let cv = (self.hash_piece)(at, &map);
            if slot.disarm() {
                return stop(SHRANK);
            }
            drop(map);
            let at = HEAD + SLOT_WORDS * j as usize;
            for (k, word) in board[at + 1..at + SLOT_WORDS].iter().enumerate() {
                let bytes: [u8; 8] = cv[8 * k..8 * k + 8].try_into().unwrap_or_default();
                word.store(u64::from_le_bytes(bytes), Ordering::Relaxed);
            }
            board[at].store(1, Ordering::Release);
            board[BYTES].fetch_add(self.piece, Ordering::Relaxed);
            here.fetch_add(self.piece, Ordering::Relaxed);
            crate::progress::note_bytes(self.piece);
        }
    }

    /// The finished round's chaining values, in order, from `board`; a
    /// piece that no worker marked done (its worker process was killed)
    /// is hashed here, so no value is ever taken that was not computed
    /// from the bytes.
    fn gather(
        &self,
        board: &[std::sync::atomic::AtomicU64],
        here: &std::sync::atomic::AtomicU64,
    ) -> Result<Vec<[u8; 32]>, Gathered> {
        use std::sync::atomic::{AtomicU64, Ordering};
        let flags = |b: &[AtomicU64]| {
            if b[SHRANK].load(Ordering::Acquire) != 0 {
                Err(Gathered::Shrank)
            } else if b[FAILED].load(Ordering::Acquire) != 0 {
                Err(Gathered::Failed)
            } else {
                Ok(())
            }
        };
        flags(board)?;
        let mut cvs = Vec::with_capacity(self.count as usize);
        for j in 0..self.count as usize {
            let slot = &board[HEAD + SLOT_WORDS * j..HEAD + SLOT_WORDS * (j + 1)];
            if slot[0].load(Ordering::Acquire) != 0 {
                cvs.push(read_cv(slot));
                continue;
            }
            let one = [const { AtomicU64::new(0) }; HEAD + SLOT_WORDS];
            let alone = Round {
                first: self.first + j as u64,
                count: 1,
                ..*self
            };
            alone.take(&one, here);
            flags(&one)?;
            if one[HEAD].load(Ordering::Acquire) == 0 {
                return Err(Gathered::Failed);
            }
            cvs.push(read_cv(&one[HEAD..]));
        }
        Ok(cvs)
    }
}

/// How [`feed_mapped`] maps and hashes its windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mapping {
    /// One [`WINDOW`] after another on the calling thread, pre-faulted.
    Serial,
    /// Pieces of a tree hash (BLAKE3) on every thread of rayon's pool
    /// ([`feed_pieces`]).
    Tree,
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_os = "linux")]
    use crate::algo::Capability;
    #[cfg(target_os = "linux")]
    use std::io::Write;

    #[test]
    fn the_piece_is_2_mib_or_a_power_of_two_set_once() {
        assert_eq!(PIECE, 2 << 20);
        set_tree_window(Some(3 << 20));
        assert_eq!(tree_piece(), 2 << 20);
        set_tree_window(Some(1 << 30));
        assert_eq!(tree_piece(), 2 << 20, "set once");
    }

    /// A file of `len` bytes of noise.
    #[cfg(target_os = "linux")]
    fn noise_file(len: usize) -> (tempfile::NamedTempFile, Vec<u8>) {
        let bytes: Vec<u8> = (0..len as u64)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8)
            .collect();
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&bytes).unwrap();
        f.flush().unwrap();
        (f, bytes)
    }

    /// The BLAKE3 backend's piece function, where it has one.
    #[cfg(target_os = "linux")]
    fn blake3_piece_function() -> Option<crate::algo::PieceFn> {
        let mut h = crate::algo::Algorithm::new(AlgoKind::Blake3).hasher();
        match h.capability() {
            Capability::Tree(t) => Some(t.piece_function()),
            _ => None,
        }
    }

    /// BLAKE3 of `file` by pieces of 64 KiB (`workers`, `n`), then the
    /// rest streamed; the digest, and the bytes the pieces took.
    #[cfg(target_os = "linux")]
    fn by_pieces(file: &File, bytes: &[u8], workers: Workers, n: usize) -> (Vec<u8>, u64) {
        let mut h = crate::algo::Algorithm::new(AlgoKind::Blake3).hasher();
        let mut total = 0;
        let Capability::Tree(t) = h.capability() else {
            panic!("BLAKE3 is a tree hash here")
        };
        let got = feed_pieces_with(file, bytes.len() as u64, t, &mut total, workers, n, 64 << 10);
        assert_eq!(got.unwrap(), Some(Outcome::Whole));
        h.update(&bytes[total as usize..]);
        (h.finalize(), total)
    }

    /// Pieces hashed by threads and by worker processes give the `blake3`
    /// crate's digest, with a partial last piece or none.
    #[cfg(target_os = "linux")] // the only OS that maps (os::map_guard)
    #[test]
    fn pieces_by_threads_and_by_processes_give_blake3s_digest() {
        if blake3_piece_function().is_none() {
            return; // the portable backend (MHASH_BACKEND=portable) has no pieces
        }
        for len in [(5 << 16) + 1234, 7 << 16, (2 << 16) + 1] {
            let (f, bytes) = noise_file(len);
            let want = blake3::hash(&bytes).as_bytes().to_vec();
            for workers in [Workers::Threads, Workers::Processes] {
                for n in [1, 2, 3] {
                    let (got, total) = by_pieces(f.as_file(), &bytes, workers, n);
                    assert_eq!(got, want, "{len} bytes, {workers:?} x{n}");
                    assert_eq!(total, (len as u64) >> 16 << 16);
                }
            }
        }
    }

    /// A piece that no worker marked done (as when a worker process is
    /// killed) is hashed by the gathering thread: the values are those of
    /// a round where every piece was done.
    #[cfg(target_os = "linux")] // the only OS that maps (os::map_guard)
    #[test]
    fn pieces_left_undone_are_hashed_when_gathered() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let (f, _) = noise_file(6 << 16);
        let Some(f0) = blake3_piece_function() else {
            return;
        };
        let here = AtomicU64::new(0);
        let whole: Vec<AtomicU64> = (0..HEAD + SLOT_WORDS * 6).map(|_| AtomicU64::new(0)).collect();
        let round = Round {
            file: f.as_file(),
            first: 0,
            count: 6,
            piece: 64 << 10,
            hash_piece: f0,
        };
        round.take(&whole, &here);
        let want = round.gather(&whole, &here).unwrap();
        // The same round with pieces 1 and 4 left undone.
        let part: Vec<AtomicU64> = (0..HEAD + SLOT_WORDS * 6).map(|_| AtomicU64::new(0)).collect();
        round.take(&part, &here);
        for j in [1, 4] {
            for w in &part[HEAD + SLOT_WORDS * j..HEAD + SLOT_WORDS * (j + 1)] {
                w.store(0, Ordering::Relaxed);
            }
        }
        assert_eq!(round.gather(&part, &here).unwrap(), want);
        // A stop flag set by a worker is the round's outcome.
        part[SHRANK].store(1, Ordering::Relaxed);
        assert_eq!(round.gather(&part, &here), Err(Gathered::Shrank));
    }
}
