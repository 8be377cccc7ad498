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
/// 32 MiB is the smallest window at b3sum's speed on both; issue 3's 8 MiB
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
    guard::supported() && mode == IoMode::Auto && algo.kind == AlgoKind::Blake3 && size >= PARALLEL_MAP_MIN
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
    guard::supported()
        && match mode {
            IoMode::Read => false,
            IoMode::Mmap => true,
            IoMode::Auto => AUTO_MAP_KINDS.contains(&algo.kind),
        }
}

/// True when `file` lives on a file system whose backing store is memory
/// (tmpfs, ramfs, hugetlbfs), where mapping it could allocate its holes.
fn in_memory_fs(file: &File) -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: fstatfs writes only into `st`.
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstatfs(file.as_raw_fd(), &mut st) } != 0 {
            return false;
        }
        const TMPFS_MAGIC: i64 = 0x0102_1994;
        const RAMFS_MAGIC: i64 = 0x8584_58f6;
        const HUGETLBFS_MAGIC: i64 = 0x9584_58f6;
        #[allow(clippy::unnecessary_cast)]
        let kind = st.f_type as i64;
        matches!(kind, TMPFS_MAGIC | RAMFS_MAGIC | HUGETLBFS_MAGIC)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = file;
        false
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
    if in_memory_fs(file) {
        // A fault on a hole of a tmpfs file allocates a page for it (the
        // file system's memory, until the file is deleted): read(2) gives
        // its zeros without allocating. The caller streams it instead.
        return Err(io::Error::from(io::ErrorKind::Unsupported));
    }
    guard::install();
    let Some(slot) = guard::Slot::claim() else {
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
        {
            let _ = map.advise(memmap2::Advice::Sequential);
        }
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

#[cfg(any(target_os = "linux", target_os = "android"))]
mod guard {
    //! The SIGBUS guard (Linux): a process-wide table of armed windows and
    //! a process-wide handler.

    use std::sync::Once;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// Windows armed at once, process-wide (one per thread mapping a file:
    /// `-j` is capped at the cores, far below this).
    const SLOTS: usize = 256;

    /// Each slot's window (start address, length; length 0 = not armed),
    /// whether it faulted, and whether a thread holds the slot.
    static START: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
    static LEN: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
    static FAULTED: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];
    static HELD: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];

    static INSTALL: Once = Once::new();
    static mut PREVIOUS: std::mem::MaybeUninit<libc::sigaction> = std::mem::MaybeUninit::uninit();
    static mut PAGE: usize = 4096;
    static mut INSTALLED: bool = false;

    pub(super) fn supported() -> bool {
        true
    }

    /// Installs the SIGBUS handler once per process.
    pub(super) fn install() {
        INSTALL.call_once(|| {
            // SAFETY: plain libc calls; PREVIOUS, PAGE and INSTALLED are
            // written here, once, before any window is armed, and only
            // read afterwards (by the handler).
            unsafe {
                let page = libc::sysconf(libc::_SC_PAGESIZE);
                if page > 0 {
                    PAGE = page as usize;
                }
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_sigbus as *const () as usize;
                sa.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER;
                libc::sigemptyset(&mut sa.sa_mask);
                let prev = &raw mut PREVIOUS;
                if libc::sigaction(libc::SIGBUS, &sa, (*prev).as_mut_ptr()) == 0 {
                    INSTALLED = true;
                }
            }
        });
    }

    /// A slot of the table, held by one mapping loop; released on drop.
    pub(super) struct Slot(usize);

    impl Slot {
        /// A free slot, or `None` when every slot is held.
        pub(super) fn claim() -> Option<Slot> {
            (0..SLOTS)
                .find(|&i| {
                    HELD[i]
                        .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                        .is_ok()
                })
                .map(Slot)
        }

        /// Arms the guard for `[start, start + len)`, for every thread.
        pub(super) fn arm(&self, start: usize, len: usize) {
            FAULTED[self.0].store(false, Ordering::Relaxed);
            START[self.0].store(start, Ordering::Relaxed);
            LEN[self.0].store(len, Ordering::Release);
        }

        /// Disarms the window; true if the handler patched it.
        pub(super) fn disarm(&self) -> bool {
            LEN[self.0].store(0, Ordering::Release);
            FAULTED[self.0].swap(false, Ordering::AcqRel)
        }
    }

    impl Drop for Slot {
        fn drop(&mut self) {
            LEN[self.0].store(0, Ordering::Release);
            HELD[self.0].store(false, Ordering::Release);
        }
    }

    /// The handler. Async-signal-safe: it reads and writes atomics of the
    /// static table and calls `mmap`/`sigaction`, which are system calls.
    /// Two threads faulting in one window both map zero pages over its
    /// rest; the later map replaces the earlier one with the same zeros.
    extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers;
        // PAGE/PREVIOUS were written before the handler was installed.
        unsafe {
            let addr = (*info).si_addr() as usize;
            for i in 0..SLOTS {
                let len = LEN[i].load(Ordering::Acquire);
                let start = START[i].load(Ordering::Relaxed);
                if len == 0 || addr < start || addr >= start + len {
                    continue;
                }
                let page = addr & !(PAGE - 1);
                let end = start + len;
                let r = libc::mmap(
                    page as *mut libc::c_void,
                    end - page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                );
                if r != libc::MAP_FAILED {
                    FAULTED[i].store(true, Ordering::Release);
                    return;
                }
                break;
            }
            // Not a fault of ours (or it could not be patched): put the
            // previous disposition back and return; the access faults again
            // and gets what it would have got without mhash's handler.
            if INSTALLED {
                let prev = &raw const PREVIOUS;
                libc::sigaction(sig, (*prev).as_ptr(), std::ptr::null_mut());
            } else {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
mod guard {
    //! No guard on this platform: nothing is mapped.

    pub(super) fn supported() -> bool {
        false
    }
    pub(super) fn install() {}
    pub(super) struct Slot(());
    impl Slot {
        pub(super) fn claim() -> Option<Slot> {
            None
        }
        pub(super) fn arm(&self, _start: usize, _len: usize) {}
        pub(super) fn disarm(&self) -> bool {
            false
        }
    }
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
