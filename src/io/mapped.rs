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
//! with `MAP_POPULATE`, or [`tree_window`] bytes faulted in by the threads
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

/// Bytes mapped at a time for a tree hash on `threads` threads: 16 MiB
/// per thread, at least 32 MiB and at most 256 MiB (2 threads: 32 MiB).
/// Not pre-faulted: the hashing threads fault their parts in at once,
/// where `MAP_POPULATE` would fault them in one by one on the mapping
/// thread.
///
/// Each window costs a map, an unmap (whose TLB flush interrupts the other
/// hashing threads) and a meeting of the threads (one `update_rayon` per
/// window), so the window trades speed against peak RSS, which counts the
/// mapped page-cache pages of up to two windows. Measured 2026-12-04 (1 GiB
/// cached file, BLAKE3 on 2 threads, Intel Xeon VM with AVX-512, 11
/// interleaved rounds; b3sum 1.8.7, which maps the whole file, is the
/// yardstick; peak RSS by `/usr/bin/time -f %M`, five runs):
///
/// | window | b3sum's time / mhash's, file in large folios | small folios | peak RSS |
/// | ---: | ---: | ---: | ---: |
/// | 4 MiB | 0.938 | 1.009 | 7.5-8.4 MiB |
/// | 8 MiB | 0.957 | - | 12.4-19.6 MiB |
/// | 16 MiB | 0.981 | 1.031 | 20.2-34.3 MiB |
/// | 32 MiB | 0.999 | 1.045 | 36.3-36.6 MiB |
/// | 64 MiB | 1.005 | 1.050 | 68.2-68.3 MiB |
///
/// (A file written in large chunks sits in the page cache in large folios,
/// faulted in about 1,200 faults per GiB; one written 4 KiB at a time takes
/// about 16,400, which cost b3sum's single map as much as mhash's windows.)
/// 32 MiB is the smallest window at b3sum's speed on both; the 8 MiB
/// bound would cost 6%. Scaled with the threads so each keeps 16 MiB
/// between two meetings on a larger machine.
pub fn tree_window(threads: usize) -> u64 {
    (threads as u64)
        .saturating_mul(16 << 20)
        .clamp(32 << 20, 256 << 20)
}

static TREE_WINDOW_SET: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

/// Sets the tree hash's window once per process (`MHASH_MAP_WINDOW`):
/// `bytes` rounded down to whole MiB (a multiple of every page size),
/// 1 MiB..=1 GiB; `None` leaves [`tree_window`] of the pool's threads.
/// Calls after the first that set it change nothing.
pub fn set_tree_window(bytes: Option<u64>) {
    if let Some(n) = bytes {
        let _ = TREE_WINDOW_SET.set(n.clamp(1 << 20, 1 << 30) >> 20 << 20);
    }
}

/// The window for a tree hash on `threads` threads: what
/// [`set_tree_window`] chose, else [`tree_window`].
fn tree_window_for(threads: usize) -> u64 {
    TREE_WINDOW_SET
        .get()
        .copied()
        .unwrap_or_else(|| tree_window(threads))
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

/// Hashes bytes `start..size` of `file` from the map, a [`WINDOW`] at a
/// time, adding each window's length to `total`. With `tree` (the caller
/// has rayon's pool running and `hasher` is a tree hash), each
/// [`tree_window`] is hashed on every thread of the pool. `start` need not
/// be a multiple of the page size (memmap2 maps from the page below it).
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
    let Some(slot) = crate::os::map_guard::Slot::claim() else {
        return Err(io::Error::from(io::ErrorKind::Unsupported));
    };
    let window = if how == Mapping::Tree {
        tree_window_for(rayon::current_num_threads())
    } else {
        WINDOW
    };
    let map_at = |off: u64| -> io::Result<memmap2::Mmap> {
        let len = (size - off).min(window) as usize;
        let mut options = memmap2::MmapOptions::new();
        options.offset(off).len(len);
        if how != Mapping::Tree {
            options.populate();
        }
        // SAFETY: the map is read-only and private; another process may
        // still change the file's bytes under it (the digest is then of
        // some mix, as with read(2) racing a writer) or truncate it, which
        // the SIGBUS guard armed before it is read turns into zero pages
        // and a flag (MAP_POPULATE itself skips pages past the end).
        let map = unsafe { options.map(file)? };
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(map)
    };
    // Hashes one window; false when it faulted (the file shrank).
    // A tree hash's previous window, unmapped on one of rayon's threads
    // while the pool hashes the next: unmapped between windows, its
    // thousands of page-table entries left the pool idle each time (1 GiB
    // in 16 MiB windows: 955 context switches against b3sum's 25, 1.55
    // CPUs busy against 2.1). Two windows are mapped for that moment
    // (peak RSS: see `tree_window`).
    let mut previous: Option<memmap2::Mmap> = None;
    let mut hash = |map: memmap2::Mmap| -> bool {
        let len = map.len();
        slot.arm(map.as_ptr() as usize, len);
        match hasher.capability() {
            crate::algo::Capability::Tree(t) if how == Mapping::Tree => {
                let old = previous.take();
                rayon::join(|| t.update_parallel(&map), move || drop(old));
            }
            _ => hasher.update(&map),
        }
        let faulted = slot.disarm();
        if how == Mapping::Tree && !faulted {
            previous = Some(map);
        } else {
            drop(map);
        }
        if !faulted {
            *total += len as u64;
            crate::progress::note_bytes(len as u64);
        }
        !faulted
    };
    let mut windows = || -> io::Result<Outcome> {
        let mut off = start;
        while off < size {
            let map = map_at(off)?;
            let len = map.len() as u64;
            if !hash(map) {
                return Ok(Outcome::Shrank);
            }
            off += len;
        }
        Ok(Outcome::Whole)
    };
    if how == Mapping::Tree {
        // The whole loop on one of the pool's threads: called from outside
        // the pool, each window's `join` was handed to the pool and the
        // caller slept until it was done, two wake-ups per window (1 GiB:
        // 152 voluntary context switches a run against 46 this way, b3sum 4;
        // 31 interleaved runs, wall time within 1%).
        rayon::join(windows, || ()).0
    } else {
        windows()
    }
}

/// How [`feed_mapped`] maps and hashes its windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mapping {
    /// One [`WINDOW`] after another on the calling thread, pre-faulted.
    Serial,
    /// [`tree_window`]s hashed on every thread of rayon's pool (BLAKE3).
    Tree,
}

#[cfg(test)]
mod tests {
    use super::tree_window;

    #[test]
    fn tree_window_gives_each_thread_16_mib_within_32_and_256_mib() {
        const MIB: u64 = 1 << 20;
        assert_eq!(tree_window(0), 32 * MIB);
        assert_eq!(tree_window(1), 32 * MIB);
        assert_eq!(tree_window(2), 32 * MIB);
        assert_eq!(tree_window(3), 48 * MIB);
        assert_eq!(tree_window(16), 256 * MIB);
        assert_eq!(tree_window(usize::MAX), 256 * MIB);
    }
}
