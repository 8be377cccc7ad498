//! One large regular file copied out of the page cache by two threads at
//! once with `pread(2)`, and hashed in order by one of them
//! (reading at the copy floor).
//!
//! A digest that runs faster than the kernel copies (XXH3 hashes 20 GB/s
//! and more on one core; the copy out of the page cache gives 7-8 GB/s on
//! one core of the Xeon this was measured on) is bound by that copy when
//! one thread both reads and hashes, or when one thread reads for another:
//! `dd bs=256K` is then the ceiling. Two threads copying different chunks
//! at once lift it. The calling thread hashes chunk `k` as soon as it is
//! there and, while it is not, reads the next chunk nobody has claimed; a
//! second thread only reads. Chunks go through a ring of [`SLOTS`] buffers
//! of [`CHUNK`] bytes, so memory is `SLOTS` x `CHUNK` (4 MiB) whatever the
//! file's size, and the reads run at most `SLOTS` chunks ahead of the hash.
//!
//! Measured (1 GiB cached file, XXH3, Intel Xeon VM with 2 cores, a
//! prototype of this loop, 5 interleaved rounds): 4, 5, 6 and 8 slots of
//! 1 MiB all took 145-150 ms (median) against `dd bs=256K`'s 180-200 ms
//! in the same rounds; 512 KiB chunks 161 ms; 2-4 MiB chunks were no
//! better in an earlier run. Four slots keep the peak resident set of the
//! whole process near 6 MiB (the bound is 8 MiB); the windows a
//! second thread mapped ahead, which this replaces, held 19.9 MiB.
//!
//! A chunk that comes back short (the file shrank while it was read) ends
//! this part: what was read is hashed, and the caller streams on from
//! there with `read(2)`, as one thread reading alone would have.

use crate::algo::{AlgoKind, Algorithm, Hasher};
use crate::config::IoMode;
use crate::io::ReadBuf;
use std::fs::File;
use std::io;
use std::sync::{Condvar, Mutex, MutexGuard};

/// Bytes per chunk: 1 MiB (1,048,576).
pub const CHUNK: usize = 1 << 20;

/// Chunks in the ring: 4.
pub const SLOTS: usize = 4;

/// Smallest file (bytes) read on two threads: 16 MiB (below it the second
/// thread's start is not worth it).
const MIN_SIZE: u64 = 16 << 20;

/// Whether `auto` reads a regular file of `size` bytes hashed with `algo`
/// here, on two threads at once (the caller knows it may use a second
/// thread): XXH3 and XXH128, which hash several times faster than one
/// thread copies out of the page cache, for files of at least
/// [`MIN_SIZE`] bytes.
pub fn should_read(mode: IoMode, algo: Algorithm, size: u64) -> bool {
    mode == IoMode::Auto && matches!(algo.kind, AlgoKind::Xxh3 | AlgoKind::Xxh128) && size >= MIN_SIZE
}

/// Stack size of the reading thread, in bytes (it only copies).
const STACK: usize = 64 * 1024;

/// The ring's bookkeeping, under one lock.
struct Ring {
    /// The next chunk nobody has claimed.
    next: u64,
    /// Chunks hashed so far: chunk `k` may be read once `k < hashed + SLOTS`.
    hashed: u64,
    /// The hasher has stopped (end, error, short chunk): claim nothing more.
    stop: bool,
    /// Slot `k % SLOTS`: chunk `k` once read (its length, or the error
    /// reading it gave) until the hasher takes it.
    ready: [Option<io::Result<usize>>; SLOTS],
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Hashes the first `size` bytes of `f` (a regular file) into `hasher`,
/// which has seen nothing yet, with two threads reading, and adds the
/// bytes hashed to `total`. Returns `Ok(false)` with nothing hashed where
/// the ring's buffers cannot be had (memory short): the caller streams
/// instead. Fewer than `size` bytes are hashed when the file shrank; the
/// caller reads on from offset `total` either way (the file may also have
/// grown). Where the second thread cannot start, the calling thread reads
/// every chunk itself.
///
/// # Errors
/// The first read error, in file order (the hasher then holds every byte
/// before the chunk that failed; `Interrupted` is retried).
pub fn feed(f: &File, size: u64, hasher: &mut dyn Hasher, total: &mut u64) -> io::Result<bool> {
    let Some(bufs) = crate::sched::budgeted(SLOTS * (CHUNK + 4096), || {
        (0..SLOTS)
            .map(|_| ReadBuf::try_with_len(CHUNK).map(Mutex::new))
            .collect::<Option<Vec<_>>>()
    }) else {
        return Ok(false);
    };
    let chunks = size.div_ceil(CHUNK as u64);
    let ring = Mutex::new(Ring {
        next: 0,
        hashed: 0,
        stop: false,
        ready: [const { None }; SLOTS],
    });
    let changed = Condvar::new();
    // The length chunk `k` has when the file is still `size` bytes long.
    let want = |k: u64| (size - k * CHUNK as u64).min(CHUNK as u64) as usize;
    // Reads chunk `k` into its slot and marks it ready.
    let read = |k: u64| {
        let s = (k % SLOTS as u64) as usize;
        let r = {
            let mut buf = lock(&bufs[s]);
            super::split::read_full(f, &mut buf.bytes()[..want(k)], k * CHUNK as u64)
        };
        lock(&ring).ready[s] = Some(r);
        changed.notify_all();
    };
    // Claims the next chunk to read, if the ring has room for it (its
    // slot's chunk `k - SLOTS` has been hashed).
    let claim = |r: &mut Ring| -> Option<u64> {
        let k = r.next;
        (!r.stop && k < chunks && k < r.hashed + SLOTS as u64).then(|| {
            r.next += 1;
            k
        })
    };
    let reader = || {
        loop {
            let k = {
                let mut r = lock(&ring);
                loop {
                    if r.stop || r.next >= chunks {
                        return;
                    }
                    if let Some(k) = claim(&mut r) {
                        break k;
                    }
                    r = changed.wait(r).unwrap_or_else(std::sync::PoisonError::into_inner);
                }
            };
            read(k);
        }
    };
    let mut result = Ok(true);
    std::thread::scope(|scope| {
        // Without a second thread, this one reads every chunk itself.
        if crate::sched::headroom() {
            let here = crate::os::current_cpu();
            let started = std::thread::Builder::new()
                .stack_size(STACK)
                .spawn_scoped(scope, move || {
                    crate::os::leave_cpu(here);
                    reader();
                });
            if started.is_ok() {
                crate::os::let_run();
            }
        }
        'chunks: for k in 0..chunks {
            let s = (k % SLOTS as u64) as usize;
            // Waits for chunk `k`, reading others meanwhile.
            let got = loop {
                let mut r = lock(&ring);
                // Only chunk `k` can be ready in this slot: `k + SLOTS` is
                // not claimed before `k` is hashed.
                if let Some(got) = r.ready[s].take() {
                    break got;
                }
                if let Some(j) = claim(&mut r) {
                    drop(r);
                    read(j);
                    continue;
                }
                drop(changed.wait(r).unwrap_or_else(std::sync::PoisonError::into_inner));
            };
            match got {
                Ok(n) => {
                    let mut buf = lock(&bufs[s]);
                    hasher.update(&buf.bytes()[..n]);
                    *total += n as u64;
                    crate::progress::note_bytes(n as u64);
                    if n < want(k) {
                        // The file shrank: the caller reads on from here.
                        break 'chunks;
                    }
                }
                Err(e) => {
                    result = Err(e);
                    break 'chunks;
                }
            }
            lock(&ring).hashed = k + 1;
            changed.notify_all();
        }
        lock(&ring).stop = true;
        changed.notify_all();
    });
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A hasher that keeps every byte it is given.
    struct Keep(Vec<u8>);

    impl Hasher for Keep {
        fn update(&mut self, data: &[u8]) {
            self.0.extend_from_slice(data);
        }
        fn finalize(self: Box<Self>) -> Vec<u8> {
            self.0
        }
    }

    fn file_of(len: usize) -> (tempfile::NamedTempFile, Vec<u8>) {
        let bytes: Vec<u8> = (0..len as u64)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8)
            .collect();
        let mut t = tempfile::NamedTempFile::new().unwrap();
        t.write_all(&bytes).unwrap();
        (t, bytes)
    }

    #[test]
    fn every_byte_reaches_the_hasher_once_in_order() {
        // Around the chunk size and past the ring's length.
        for len in [
            0,
            1,
            CHUNK - 1,
            CHUNK,
            CHUNK + 1,
            SLOTS * CHUNK + 12_345,
            3 * SLOTS * CHUNK,
        ] {
            let (t, bytes) = file_of(len);
            let mut h = Keep(Vec::new());
            let mut total = 0;
            assert!(feed(t.as_file(), len as u64, &mut h, &mut total).unwrap());
            assert_eq!(total, len as u64);
            assert!(h.0 == bytes, "length {len}: bytes differ");
        }
    }

    #[test]
    fn a_file_shorter_than_its_size_at_open_ends_where_it_ends() {
        // Opened at 5 MiB + 7 bytes, now 3 MiB + 5: the rest is the
        // caller's to read on from `total`.
        let (t, bytes) = file_of(3 * CHUNK + 5);
        let mut h = Keep(Vec::new());
        let mut total = 0;
        assert!(feed(t.as_file(), 5 * CHUNK as u64 + 7, &mut h, &mut total).unwrap());
        assert_eq!(total, bytes.len() as u64);
        assert!(h.0 == bytes);
    }
}
