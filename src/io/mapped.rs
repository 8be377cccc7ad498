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
/// (2,097,152). Each pool thread maps a piece, hashes it as a subtree
/// ([`crate::algo::Tree::piece_function`]), unmaps it and takes the next,
/// so the file's page-cache pages mapped at once are one piece per
/// thread (peak RSS: 4 MiB of the file on 2 threads) and the threads
/// never wait for each other until the last piece.
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
/// [`PIECE`]. Calls after the first that set it change nothing.
pub fn set_tree_window(bytes: Option<u64>) {
    if let Some(n) = bytes {
        let n = n.clamp(64 << 10, 1 << 30);
        let _ = PIECE_SET.set(1 << (63 - n.leading_zeros()));
    }
}

/// The piece of a tree hash: what [`set_tree_window`] chose, else
/// [`PIECE`].
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
        hasher.update(&map);
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
/// whichever pool thread takes it next, then given to `tree` in order
/// ([`crate::algo::Tree::absorb_pieces`]); `total` gains their bytes and
/// the caller hashes the rest (under one piece) from `total` on. `None`
/// where the file holds fewer than two pieces (the caller maps it
/// serially). [`Outcome::Shrank`] when a piece faulted past a new end of
/// the file (the tree has taken nothing then).
///
/// Unlike one map hashed by all threads at once (what b3sum does, peak
/// RSS the file's size), or windows that all threads hash and meet at the
/// end of (32 MiB windows were needed for b3sum's speed here), each thread
/// holds one piece at a time and waits for no other until the last.
///
/// # Errors
/// A piece's `mmap(2)` failed, or the guard's table is full; the tree has
/// taken nothing, and the caller starts again.
pub fn feed_pieces(
    file: &File,
    size: u64,
    tree: &mut dyn crate::algo::Tree,
    total: &mut u64,
) -> io::Result<Option<Outcome>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let piece = tree_piece();
    let pieces = size / piece;
    if pieces < 2 {
        return Ok(None);
    }
    let hash_piece = tree.piece_function();
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let shrank = AtomicBool::new(false);
    let failed: Mutex<Option<io::Error>> = Mutex::new(None);
    let done: Mutex<Vec<(u64, [u8; 32])>> = Mutex::new(Vec::with_capacity(pieces as usize));
    // One piece after another until none is left or one went wrong.
    let work = || -> io::Result<()> {
        let Some(slot) = crate::os::map_guard::Slot::claim() else {
            return Err(io::Error::from(io::ErrorKind::Unsupported));
        };
        let mut mine = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= pieces {
                break;
            }
            let at = i * piece;
            let mut options = memmap2::MmapOptions::new();
            options.offset(at).len(piece as usize);
            // SAFETY: as in `feed_mapped`: read-only, private, and
            // guarded against truncation before it is read.
            let map = unsafe { options.map(file)? };
            slot.arm(map.as_ptr() as usize, map.len());
            let cv = hash_piece(at, &map);
            if slot.disarm() {
                shrank.store(true, Ordering::Relaxed);
                stop.store(true, Ordering::Relaxed);
                break;
            }
            drop(map);
            crate::progress::note_bytes(piece);
            mine.push((i, cv));
        }
        done.lock().unwrap_or_else(|e| e.into_inner()).extend(mine);
        Ok(())
    };
    let run = || {
        if let Err(e) = work() {
            stop.store(true, Ordering::Relaxed);
            failed.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
        }
    };
    rayon::scope(|s| {
        for _ in 1..rayon::current_num_threads() {
            s.spawn(|_| run());
        }
        run();
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    if shrank.into_inner() {
        return Ok(Some(Outcome::Shrank));
    }
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_unstable_by_key(|&(i, _)| i);
    let cvs: Vec<[u8; 32]> = done.into_iter().map(|(_, cv)| cv).collect();
    if cvs.len() as u64 != pieces || !tree.absorb_pieces(piece, &cvs) {
        return Err(io::Error::other("a tree hash's pieces could not be joined"));
    }
    *total += pieces * piece;
    Ok(Some(Outcome::Whole))
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
    use super::{set_tree_window, tree_piece, PIECE};

    #[test]
    fn the_piece_is_2_mib_or_a_power_of_two_set_once() {
        assert_eq!(PIECE, 2 << 20);
        set_tree_window(Some(3 << 20));
        assert_eq!(tree_piece(), 2 << 20);
        set_tree_window(Some(1 << 30));
        assert_eq!(tree_piece(), 2 << 20, "set once");
    }
}
