//! One digest of a large input hashed the way that measures fastest on
//! this machine: on the reading thread between reads, on a second thread
//! beside the reading ([`fanout::feed`]), or, for a regular file, from a
//! map of it ([`mapped::feed_mapped`]), which leaves out the copy out of
//! the page cache. Each way hashes the next part of the input in order, so
//! the digest is the same whichever wins.

use super::{fanout, feed_then, mapped, read_retrying};
use crate::algo::Hasher;
use std::fs::File;
use std::io::{self, Read, Seek};
use std::time::Instant;

/// The ways a large input's hashing was timed, each with its speed over
/// its trial in MB/s (10^6 B/s), in the order tried: `read` (hashed on the
/// reading thread), `mmap`, `read, hashed beside` (on a second thread).
pub type Figures = Vec<(&'static str, u64)>;

/// Seconds per byte as MB/s (10^6 B/s), rounded.
fn mb_per_s(seconds_per_byte: f64) -> u64 {
    (1e-6 / seconds_per_byte).round() as u64
}

/// Bytes per slot when one digest's hashing overlaps the reading of a
/// large input (a thread each): 512 KiB, so the ring (4 slots) and the
/// read buffer stay under 3 MiB. Measured on a 1 GiB cached file (Xeon,
/// 2 cores, 5 interleaved rounds), 1 MiB slots: sha256 908 -> 816 ms, md5
/// 1,829 -> 1,753 ms against hashing on the reading thread; xxh3 (hashing
/// at 4x the copy's speed) gained nothing at 128 KiB-1 MiB slots (201 vs
/// 210-237 ms, 512 KiB: 219 ms) and lost at 64 KiB (351 ms: the
/// hand-over per slot).
pub(super) const OVERLAP_CHUNK: usize = 512 << 10;

/// Bytes read each way by [`feed_beside_if_faster`]'s trial: 16 MiB (about
/// 8-25 ms of hashing for the digests that take this path).
const OVERLAP_TRIAL: u64 = 16 << 20;

/// How much faster (time per byte) hashing on the reading thread must be
/// in [`feed_beside_if_faster`]'s trial to be kept: 5%, as a backend
/// challenger (`algo::calibrate`). The second thread's trial also pays its
/// start and the ring's filling and draining (one slot each way, about 3%
/// of 16 MiB): BLAKE2b, 6% faster beside the reading over 1 GiB, measured
/// 1-4% slower in its trial.
const OVERLAP_MARGIN: f64 = 1.05;

/// Streams the rest of a large input into one digest, hashed on this
/// thread between reads, or on a second thread while this one reads the
/// next [`OVERLAP_CHUNK`] ([`fanout::feed`]), by measurement:
/// [`OVERLAP_TRIAL`] bytes are read and hashed each way, timed, and the
/// rest is hashed on the second thread unless this thread alone was
/// faster by [`OVERLAP_MARGIN`] (the digest is the same either way: the
/// bytes reach the hasher in order). `MHASH_CALIBRATE=never` skips the
/// trial and hashes on the second thread, as before the trial existed.
///
/// Why measured: handing the bytes to a second thread takes the copy out
/// of the page cache off the hash's path, but the hashing core then reads
/// buffers another core has just written. On a 1 GiB cached file, 2-vCPU
/// Intel Xeon VM, 2026-12-04 afternoon (3-5 interleaved rounds, hashing
/// beside the reading against on the reading thread): SHA-1 934 against
/// 635 ms, SHA-256 836 against 676 (SHA-NI), MD5 1,358 against 1,339,
/// SHA-512 1,348 against 1,393, BLAKE2b 889 against 942, SHA3-256 1,473
/// against 1,559; the same kind of VM the day before had SHA-256 816
/// against 908.
///
/// # Errors
/// The first read error other than `Interrupted`, as [`feed_then`].
pub(super) fn feed_beside_if_faster(
    reader: &mut dyn Read,
    hasher: &mut dyn Hasher,
    bytes: &mut [u8],
    total: &mut u64,
    figures: &mut Option<Figures>,
) -> io::Result<u64> {
    if crate::algo::calibrate::mode() == crate::algo::calibrate::Mode::Never {
        fanout::feed(reader, vec![hasher], OVERLAP_CHUNK, &[], total, u64::MAX)?;
        return Ok(*total);
    }
    let Some(alone) = time_alone(reader, hasher, bytes, total)? else {
        return Ok(*total);
    };
    let Some(beside) = time_beside(reader, hasher, total)? else {
        return Ok(*total);
    };
    *figures = Some(vec![
        ("read", mb_per_s(alone)),
        ("read, hashed beside", mb_per_s(beside)),
    ]);
    if alone * OVERLAP_MARGIN < beside {
        feed_then(reader, hasher, bytes, total, &mut || {})
    } else {
        fanout::feed(reader, vec![hasher], OVERLAP_CHUNK, &[], total, u64::MAX)?;
        Ok(*total)
    }
}

/// Reads and hashes at least [`OVERLAP_TRIAL`] bytes on this thread;
/// returns the seconds per byte it took, or `None` at the end of the
/// input (everything read is hashed either way). Reads end on a multiple
/// of [`OVERLAP_TRIAL`] bytes of `total` where the reads allow it.
fn time_alone(
    reader: &mut dyn Read,
    hasher: &mut dyn Hasher,
    bytes: &mut [u8],
    total: &mut u64,
) -> io::Result<Option<f64>> {
    let start = Instant::now();
    let before = *total;
    let until = (before / OVERLAP_TRIAL + 1) * OVERLAP_TRIAL;
    while *total < until {
        let want = bytes.len().min((until - *total) as usize);
        match read_retrying(reader, &mut bytes[..want])? {
            0 => return Ok(None),
            n => {
                hasher.update(&bytes[..n]);
                *total += n as u64;
                crate::progress::note_bytes(n as u64);
            }
        }
    }
    Ok(Some(start.elapsed().as_secs_f64() / (*total - before) as f64))
}

/// Reads at least [`OVERLAP_TRIAL`] bytes hashed on a second thread;
/// seconds per byte, or `None` at the end of the input.
fn time_beside(reader: &mut dyn Read, hasher: &mut dyn Hasher, total: &mut u64) -> io::Result<Option<f64>> {
    let start = Instant::now();
    let before = *total;
    if fanout::feed(reader, vec![hasher], OVERLAP_CHUNK, &[], total, OVERLAP_TRIAL)? {
        return Ok(None);
    }
    // Not at the end: at least `OVERLAP_TRIAL` bytes were read.
    Ok(Some(start.elapsed().as_secs_f64() / (*total - before) as f64))
}

/// Smallest regular file (bytes at open) whose way [`feed_file`] chooses
/// among three, a map included: 64 MiB (the trials take the first 52 MiB:
/// three of [`OVERLAP_TRIAL`] bytes and a map's untimed first window).
/// Smaller large inputs are streamed ([`feed_beside_if_faster`]).
pub(super) const FILE_TRIAL_MIN: u64 = 64 << 20;

/// How [`feed_file`] ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum FileWay {
    /// Read to its end (on this thread, or hashed beside the reading).
    Read,
    /// Hashed from a map up to its size at open; the file offset is
    /// there, and any growth since is the caller's to read.
    Mapped,
    /// The file shrank under the map, or a map failed part way: what was
    /// hashed must be thrown away and the file read again from its start.
    Restart,
}

/// Hashes the regular file `file` (`size` bytes at open, its offset at 0,
/// nothing hashed yet) into `hasher` the fastest of three ways, measured
/// on the file itself: [`OVERLAP_TRIAL`] bytes read and hashed on this
/// thread, the next as many hashed from a map (after one untimed
/// [`mapped::WINDOW`]), then (with `threads` > 1)
/// as many hashed on a second thread beside the reading; the rest goes
/// the fastest way. Between the two read ways, the second thread wins
/// unless this thread was faster by [`OVERLAP_MARGIN`] (as in
/// [`feed_beside_if_faster`]); the map then wins if it was at least as
/// fast as this thread alone, or faster than the second thread by that
/// margin (whose trial pays the thread's start). Which wins depends on the machine's state as well as
/// its CPU: on the same VM, SHA-256 over 1 GiB took 560 ms from a map
/// against 670 on the reading thread in a quiet hour, and 657 against 616
/// hashed beside the reading in a busier one (prefetching helps that way
/// too: the second core's reads come from the first core's cache).
///
/// Why measured: a map saves `read(2)`'s copy out of the page cache but
/// hashes from main memory, and takes a fault or a `MAP_POPULATE` per
/// page. On a 2-vCPU Intel Xeon VM (1 GiB cached, 5 interleaved rounds,
/// with the kernels' prefetch of `algo::kernels`) a map took SHA-256 from
/// 670 to 560 ms and SHA-1 from 543 to 517, and matched the second thread
/// for MD5, SHA-512, BLAKE2b and SHA3-256 on one core; before the kernels
/// prefetched, the same map made SHA-256 5% faster and SHA-1 20% slower,
/// and on a 2026-11 EPYC VM every map was about 2x slower
/// ([`mapped::should_map`]).
///
/// # Errors
/// A read error (as [`feed_then`]) or a seek error.
pub(super) fn feed_file(
    file: &File,
    size: u64,
    hasher: &mut dyn Hasher,
    bytes: &mut [u8],
    total: &mut u64,
    threads: usize,
    figures: &mut Option<Figures>,
) -> io::Result<FileWay> {
    let mut reader: &File = file;
    let Some(alone) = time_alone(&mut reader, hasher, bytes, total)? else {
        return Ok(FileWay::Read);
    };
    // From a map: one window untimed (the process's first map pays for
    // its page tables and the SIGBUS guard, about 1.5 ms here, which the
    // rest of a large file does not), then the next OVERLAP_TRIAL bytes,
    // or up to the size at open.
    let mut map = f64::INFINITY;
    for timed in [false, true] {
        let start = Instant::now();
        let from = *total;
        let to = size.min(from + if timed { OVERLAP_TRIAL } else { mapped::WINDOW });
        if from >= to {
            map = f64::INFINITY;
            break;
        }
        match mapped::feed_mapped(file, from, to, hasher, mapped::Mapping::Serial, total) {
            Ok(mapped::Outcome::Whole) => map = start.elapsed().as_secs_f64() / (to - from) as f64,
            Ok(mapped::Outcome::Shrank) => return Ok(FileWay::Restart),
            // Not mappable (a file system without mmap, tmpfs): read on.
            Err(_) if *total == from => {
                map = f64::INFINITY;
                break;
            }
            Err(_) => return Ok(FileWay::Restart),
        }
    }
    reader.seek(io::SeekFrom::Start(*total))?;
    let beside = if threads > 1 {
        match time_beside(&mut reader, hasher, total)? {
            Some(t) => t,
            None => return Ok(FileWay::Read),
        }
    } else {
        f64::INFINITY
    };
    let mut tried = vec![("read", mb_per_s(alone))];
    if map.is_finite() {
        tried.push(("mmap", mb_per_s(map)));
    }
    if beside.is_finite() {
        tried.push(("read, hashed beside", mb_per_s(beside)));
    }
    *figures = Some(tried);
    let on_this_thread = alone * OVERLAP_MARGIN < beside;
    // The second thread's trial is pessimistic by about the margin (its
    // start, the ring's filling and draining); the map's is not (its
    // first window was untimed).
    let by_map = if on_this_thread {
        map <= alone
    } else {
        map * OVERLAP_MARGIN <= beside
    };
    if by_map && *total < size {
        return match mapped::feed_mapped(file, *total, size, hasher, mapped::Mapping::Serial, total) {
            Ok(mapped::Outcome::Whole) => {
                reader.seek(io::SeekFrom::Start(size))?;
                Ok(FileWay::Mapped)
            }
            Ok(mapped::Outcome::Shrank) | Err(_) => Ok(FileWay::Restart),
        };
    }
    if on_this_thread {
        feed_then(&mut reader, hasher, bytes, total, &mut || {})?;
    } else {
        fanout::feed(&mut reader, vec![hasher], OVERLAP_CHUNK, &[], total, u64::MAX)?;
    }
    Ok(FileWay::Read)
}
