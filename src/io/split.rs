//! One large regular file read by several threads at once, each hashing a
//! contiguous segment with `pread(2)`, for checksums whose segment results
//! can be joined in order ([`Hasher::segment`] / [`Hasher::absorb`]: the
//! folding CRCs, which run faster than one thread can read).

use crate::algo::{Capability, Hasher, Segment};
use crate::io::ReadBuf;
use std::fs::File;
use std::io;

/// Segments are at least this long (bytes), and start on multiples of it:
/// 16 MiB.
const SEGMENT_MIN: u64 = 16 << 20;

/// Stack size of segment threads, in bytes.
const STACK: usize = 256 * 1024;

/// Hashes the first `size` bytes of `f` on up to `threads` threads into
/// `hasher` (which has seen nothing yet), adding to `total`. Returns false
/// when the file turned out shorter than `size` (it shrank while being
/// read): `hasher` is then unusable and the caller starts again.
///
/// # Errors
/// A read error in any segment.
pub fn feed_segments(
    f: &File,
    size: u64,
    hasher: &mut dyn Hasher,
    threads: usize,
    total: &mut u64,
) -> io::Result<bool> {
    let n = (threads as u64).min(size / SEGMENT_MIN).max(1);
    let seg_len = size / n / SEGMENT_MIN * SEGMENT_MIN;
    let bounds: Vec<(u64, u64)> = (0..n)
        .map(|i| (i * seg_len, if i + 1 == n { size } else { (i + 1) * seg_len }))
        .collect();
    type SegResult = io::Result<Option<Box<dyn Segment>>>;
    let run_segment = |start: u64, end: u64, mut seg: Box<dyn Segment>, buf: &mut ReadBuf| -> SegResult {
        hash_range(f, start, end, &mut |d| seg.update(d), buf).map(|whole| whole.then_some(seg))
    };
    // Every segment's hasher first: a checksum that cannot be split is
    // streamed by the caller instead.
    let mut segs = Vec::with_capacity(bounds.len() - 1);
    for _ in 1..bounds.len() {
        match segment_of(hasher) {
            Ok(seg) => segs.push(seg),
            Err(_) => return Ok(false),
        }
    }
    let (first, rest): (io::Result<bool>, Vec<SegResult>) = std::thread::scope(|s| {
        let here = crate::os::current_cpu();
        let mut pending = Vec::new();
        for (&(start, end), seg) in bounds[1..].iter().zip(segs) {
            // No memory or no thread to be had: the segment is hashed
            // here, afterwards.
            let buf = ReadBuf::budgeted();
            let spawned = match buf.filter(|_| crate::sched::headroom()) {
                Some(buf) => std::thread::Builder::new()
                    .stack_size(STACK)
                    .spawn_scoped(s, move || {
                        crate::os::leave_cpu(here);
                        let mut buf = buf;
                        run_segment(start, end, seg, &mut buf)
                    })
                    .map_err(|_| (start, end)),
                None => Err((start, end)),
            };
            pending.push(spawned);
        }
        if pending.iter().any(Result::is_ok) {
            crate::os::let_run();
        }
        let mut buf = ReadBuf::default();
        let first = hash_range(f, bounds[0].0, bounds[0].1, &mut |d| hasher.update(d), &mut buf);
        let rest = pending
            .into_iter()
            .map(|p| match p {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|_| Err(io::Error::other("segment thread panicked"))),
                Err((start, end)) => {
                    segment_of(hasher).and_then(|seg| run_segment(start, end, seg, &mut buf))
                }
            })
            .collect();
        (first, rest)
    });
    if !first? {
        return Ok(false);
    }
    for r in rest {
        match r? {
            None => return Ok(false),
            Some(seg) => {
                let absorbed = match hasher.capability() {
                    Capability::Combine(c) => c.absorb(seg),
                    _ => false,
                };
                if !absorbed {
                    return Err(io::Error::other("segment of another kind"));
                }
            }
        }
    }
    *total += size;
    Ok(true)
}

/// A fresh segment of `hasher`, a [`Capability::Combine`] checksum.
fn segment_of(hasher: &mut dyn Hasher) -> io::Result<Box<dyn Segment>> {
    match hasher.capability() {
        Capability::Combine(c) => Ok(c.segment()),
        _ => Err(io::Error::other("the checksum cannot be split")),
    }
}

/// Hashes bytes `start..end` of `f` into `h` with positioned reads.
/// Returns false if the file ended before `end`.
fn hash_range(
    f: &File,
    start: u64,
    end: u64,
    h: &mut dyn FnMut(&[u8]),
    buf: &mut ReadBuf,
) -> io::Result<bool> {
    let bytes = buf.bytes();
    let mut off = start;
    while off < end {
        let want = ((end - off) as usize).min(bytes.len());
        let n = read_full(f, &mut bytes[..want], off)?;
        h(&bytes[..n]);
        crate::progress::note_bytes(n as u64);
        off += n as u64;
        if n < want {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Fills `buf` from `f` at `off` with positioned reads, stopping early
/// only at the end of the file; returns the bytes read. `Interrupted` is
/// retried up to [`super::MAX_EINTR`] times in a row.
///
/// # Errors
/// The first other read error.
pub(super) fn read_full(f: &File, buf: &mut [u8], off: u64) -> io::Result<usize> {
    let mut done = 0;
    let mut interrupted = 0;
    while done < buf.len() {
        match read_at(f, &mut buf[done..], off + done as u64) {
            Ok(0) => break,
            Ok(n) => {
                done += n;
                interrupted = 0;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted && interrupted < super::MAX_EINTR => {
                interrupted += 1
            }
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// `pread(2)`: up to `buf.len()` bytes of `f` at offset `off`, the file
/// offset untouched on Unix ([`crate::os::read_at`]).
fn read_at(f: &File, buf: &mut [u8], off: u64) -> io::Result<usize> {
    crate::os::read_at(f, buf, off)
}
