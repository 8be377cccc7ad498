//! Many inputs at once: the files of a batch that use one algorithm with a
//! lane kernel ([`crate::algo::lanes`]) are hashed side by side, one per
//! lane, each lane reading its file through its own buffer and taking the
//! next file the moment its message ends. The other inputs (and a batch
//! with one input of the algorithm) take the single-stream path,
//! [`super::digest_input_with`]. Results come back in input order; what
//! the caller sees (digests, sizes, errors) is what the single-stream path
//! gives, except [`Digested::lane_kernel`].
//!
//! Memory: one read buffer per lane (the caller's for lane 0, the others
//! kept per thread), [`super::read_size`] bytes each, whatever the file
//! sizes.

use super::{Digested, InputOpts, ReadBuf, mapped};
use crate::algo::Algorithm;
use crate::algo::lanes::{LaneInput, Lanes, MAX_LANES, lane_kernel, verified_lane_kernel};
use crate::config::IoMode;
use crate::os::Input;
#[cfg(target_os = "linux")]
use crate::os::ring;
use crate::sched::Deliver;
use std::cell::RefCell;
use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::path::Path;

thread_local! {
    /// Lanes 1.. of this thread's lane buffers (lane 0 reads into the
    /// caller's buffer), allocated on first use.
    static SPARE: RefCell<Vec<ReadBuf>> = const { RefCell::new(Vec::new()) };
}

/// The lane count of the kernel that [`digest_batch`] would use for
/// `algo` read as `opts` says, or `None` when inputs of `algo` are hashed
/// one at a time: no lane kernel here (or `MHASH_BACKEND=portable`), files
/// mapped (`--io mmap`), the CRC's read-error rule, or a standard
/// descriptor closed (files must then be opened one at a time, as GNU
/// does, for descriptor numbers to match).
pub fn lane_count(algo: Algorithm, opts: &InputOpts) -> Option<usize> {
    let k = lane_kernel(algo)?;
    let ok = opts.mode != IoMode::Mmap
        && !mapped::may_map(opts.mode, algo)
        && !opts.read_errors_end_input
        && crate::os::standard_fds_open();
    ok.then_some(k.lanes)
}

/// The most lanes [`digest_batch`] can use for any algorithm read as
/// `opts` says (for a batch of mixed algorithms: check mode), or `None`.
pub fn max_lane_count(opts: &InputOpts) -> Option<usize> {
    crate::algo::lanes::lane_kernels()
        .iter()
        .filter_map(|k| lane_count(Algorithm::new(k.kind), opts))
        .max()
}

/// Hashes every input of `inputs` (path and algorithm; never `-`, which
/// the caller reads in order itself) and delivers each result to `out`
/// with the input's index, as soon as it is ready (not in input order).
/// `started(i)` is called as input `i` is opened (for a progress display).
///
/// An input that is not a regular file (a FIFO or device, whose reads may
/// wait on another process; a directory) is hashed alone, after every
/// input before it in its lanes has been delivered and `out` flushed: a
/// reader waiting for an earlier line before it feeds a FIFO is not kept
/// waiting, as with GNU.
pub fn digest_batch(
    inputs: &[(&OsStr, Algorithm)],
    buf: &mut ReadBuf,
    opts: &InputOpts,
    started: &mut dyn FnMut(usize),
    out: &mut dyn Deliver<io::Result<Digested>>,
) {
    let n = inputs.len();
    let mut lanes_of: Vec<(Algorithm, bool)> = Vec::new();
    // One input needs no lanes: skip the kernels' CPU checks (start-up).
    let lane_ok: Vec<bool> = inputs
        .iter()
        .take(if n >= 2 { n } else { 0 })
        .map(|&(_, algo)| match lanes_of.iter().find(|(a, _)| *a == algo) {
            Some(&(_, ok)) => ok,
            None => {
                let ok = lane_count(algo, opts).is_some();
                lanes_of.push((algo, ok));
                ok
            }
        })
        .collect();
    let mut left: Vec<usize> = Vec::new();
    if n >= 2 && lane_ok.iter().filter(|&&ok| ok).count() >= 2 {
        left.extend((0..n).filter(|&i| !lane_ok[i]));
        let mut seen: Vec<Algorithm> = Vec::new();
        for i in (0..n).filter(|&i| lane_ok[i]) {
            let algo = inputs[i].1;
            if seen.contains(&algo) {
                continue;
            }
            seen.push(algo);
            let group: Vec<usize> = (i..n).filter(|&k| lane_ok[k] && inputs[k].1 == algo).collect();
            let ran = group.len() >= 2
                && verified_lane_kernel(algo)
                    .and_then(|k| k.start(algo))
                    .is_some_and(|lanes| {
                        let batches = Batches::new(
                            opts.mode == IoMode::Auto && ring_due(group.len()) && group.len() >= RING_MIN,
                        );
                        run_lanes(lanes, batches, &group, inputs, buf, started, out)
                    });
            if !ran {
                left.extend(group);
            }
        }
        left.sort_unstable();
    } else {
        left.extend(0..n);
    }
    for i in left {
        // The input may be a FIFO: what is done is written first.
        out.flush();
        started(i);
        out.deliver(i, super::digest_input_with(inputs[i].0, inputs[i].1, buf, opts));
    }
}

/// One lane's input: the open file and its bytes in the lane's buffer.
struct Feed {
    /// The input's index in the batch.
    at: usize,
    file: Input,
    /// Unhashed bytes are `buf[pos..end]`.
    pos: usize,
    end: usize,
    eof: bool,
    /// Bytes read so far.
    total: u64,
    /// Its size, measured once a read filled the buffer (`u64::MAX`
    /// where the input is not a regular file: a device, endless as far as
    /// is known); `None` for a smaller input, read to the read that
    /// returns 0.
    size: Option<u64>,
    first_read: bool,
    /// `O_NONBLOCK` was cleared after a read said EAGAIN: another EAGAIN
    /// is an error.
    unblocked: bool,
}

/// Hashes the inputs `group` (indices into `inputs`, one algorithm) in
/// `lanes`, delivering each result. Returns false, having done nothing
/// (the inputs then go the single-stream way), if the lane buffers cannot
/// be had.
///
/// Each input is opened without waiting (`O_NONBLOCK`: opening a FIFO
/// must not wait for its writer while other lanes have work) and read at
/// offsets ([`read_at`], `pread`): an input that can be (a regular file, a
/// block device) takes a lane; anything else (a FIFO or terminal, whose
/// first read fails with `ESPIPE` and takes nothing from it), and an
/// input whose first read fails, waits until the lanes are empty and
/// their results delivered and flushed, and is then read alone
/// ([`digest_alone`]), from its start.
///
/// With `batches` on, the files are opened [`ring::MAX_OPENS`] at a time
/// and closed in batches through io_uring (see [`Batches`]).
fn run_lanes(
    mut lanes: Lanes,
    mut batches: Batches,
    group: &[usize],
    inputs: &[(&OsStr, Algorithm)],
    buf: &mut ReadBuf,
    started: &mut dyn FnMut(usize),
    out: &mut dyn Deliver<io::Result<Digested>>,
) -> bool {
    let l = lanes.lanes();
    let kernel_name = lanes.info().name;
    SPARE.with(|spare| {
        let mut spare = spare.borrow_mut();
        while spare.len() < l - 1 {
            // Where memory is short, the inputs are hashed one at a time.
            match ReadBuf::budgeted() {
                Some(b) => spare.push(b),
                None => return false,
            }
        }
        let mut bufs: Vec<&mut [u8]> = Vec::with_capacity(l);
        bufs.push(buf.bytes());
        bufs.extend(spare.iter_mut().take(l - 1).map(ReadBuf::bytes));
        let mut feeds: [Option<Feed>; MAX_LANES] = Default::default();
        let mut next = 0;
        let mut done = Vec::with_capacity(l);
        // A non-regular input, opened, waiting for the lanes to empty.
        let mut alone: Option<(usize, Input)> = None;
        // Descriptors ran out while this thread held some: go on with the
        // lanes it has until one frees its file.
        let mut starved = false;
        loop {
            // Every lane busy (while inputs remain) with a block to hash,
            // or with its input ended.
            for lane in 0..l {
                loop {
                    if feeds[lane].is_none() {
                        if alone.is_some() || starved {
                            break;
                        }
                        let (at, ahead) = match batches.take(group, &mut next, inputs, kernel_name, out) {
                            Some(a) => a,
                            None => {
                                let Some(&at) = group.get(next) else {
                                    break;
                                };
                                next += 1;
                                (at, Ahead::Later)
                            }
                        };
                        let file = match ahead {
                            Ahead::Opened(file) => {
                                started(at);
                                file
                            }
                            Ahead::Failed(e) => {
                                started(at);
                                out.deliver(at, Err(e));
                                continue;
                            }
                            Ahead::Later => {
                                // Finished files first give their
                                // descriptors back.
                                batches.flush_closes(kernel_name, out);
                                // With files open in other lanes (or opened
                                // ahead), descriptors running out is no
                                // error: go on with those.
                                let holding = alone.is_some()
                                    || feeds.iter().any(Option::is_some)
                                    || batches.holds_files();
                                match crate::os::open_input(Path::new(inputs[at].0), true, holding) {
                                    Ok(file) => {
                                        started(at);
                                        file
                                    }
                                    Err(e) if holding && crate::os::fds_exhausted(&e) => {
                                        // Tried again after the others (once a
                                        // lane has closed its file).
                                        batches.later(at);
                                        starved = feeds.iter().any(Option::is_some);
                                        break;
                                    }
                                    Err(e) => {
                                        started(at);
                                        out.deliver(at, Err(e));
                                        continue;
                                    }
                                }
                            }
                        };
                        if !may_take_lane(&file) {
                            alone = Some((at, file));
                            break;
                        }
                        let mut f = Feed {
                            at,
                            file,
                            pos: 0,
                            end: 0,
                            eof: false,
                            total: 0,
                            size: None,
                            first_read: true,
                            unblocked: false,
                        };
                        // The first read also says what the input is: one
                        // that cannot be read at an offset (a FIFO, a
                        // terminal: ESPIPE), or whose first read fails, is
                        // read alone, from its start (nothing was taken
                        // from it), and reports its own error there.
                        if fill(&mut f, bufs[lane]).is_err() {
                            alone = Some((at, f.file));
                            break;
                        }
                        feeds[lane] = Some(f);
                        lanes.start_message(lane);
                    }
                    let f = feeds[lane].as_mut().expect("filled above");
                    match fill(f, bufs[lane]) {
                        Ok(()) => break,
                        Err(e) => {
                            out.deliver(f.at, Err(e));
                            lanes.abandon(lane);
                            feeds[lane] = None;
                            starved = false;
                        }
                    }
                }
            }
            if feeds.iter().all(Option::is_none) {
                match alone.take() {
                    Some((at, file)) => {
                        batches.flush_closes(kernel_name, out);
                        out.flush();
                        out.deliver(at, digest_alone(file, inputs[at].1, bufs[0]));
                        starved = false;
                        continue;
                    }
                    None if batches.has_ahead() || next < group.len() => {
                        starved = false;
                        continue;
                    }
                    None => {
                        batches.flush_closes(kernel_name, out);
                        return true;
                    }
                }
            }
            let mut input = [LaneInput::IDLE; MAX_LANES];
            for (lane, f) in feeds.iter().enumerate().take(l) {
                if let Some(f) = f {
                    input[lane] = LaneInput {
                        data: &bufs[lane][f.pos..f.end],
                        end: f.eof,
                    };
                }
            }
            let mut used = [0usize; MAX_LANES];
            lanes.step(&input[..l], &mut used, &mut done);
            for (lane, f) in feeds.iter_mut().enumerate().take(l) {
                if let Some(f) = f {
                    f.pos += used[lane];
                }
            }
            let finished_some = !done.is_empty();
            for (lane, digest) in done.drain(..) {
                let f = feeds[lane].take().expect("a finished lane had an input");
                starved = false;
                batches.finish(f.at, digest, f.total, f.file, kernel_name, out);
            }
            // A lane still has a large file ahead of it: what is done is
            // written now, as GNU writes each line when its file is done
            // (a reader such as `head -1` sees it, and exits, at once).
            if finished_some
                && feeds
                    .iter()
                    .flatten()
                    .any(|f| f.size.unwrap_or(0).saturating_sub(f.total) >= FLUSH_BEHIND)
            {
                batches.flush_closes(kernel_name, out);
                out.flush();
            }
        }
    })
}

/// Bytes still to read in some lane above which the results of the lanes
/// that finished are written at once (1 MiB, a millisecond or more of
/// hashing); below it they wait for the batch, one write for many small
/// files.
const FLUSH_BEHIND: u64 = 1 << 20;

/// The fewest files in a lane group for which opening and closing them
/// in batches (io_uring) is tried.
const RING_MIN: usize = 8;

/// Files a thread hashes in lanes before it sets up a ring: a ring costs
/// about 60-100 µs (setup, probe, teardown at exit; measured as the
/// difference of whole runs on 8, 16 and 48 files, 200 interleaved runs
/// each) and saves about 1 µs per file, so runs of a few hundred files
/// keep the plain system calls.
const RING_AFTER: usize = 256;

thread_local! {
    /// Files this thread has taken into lanes so far.
    static LANE_FILES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts `n` more files into this thread's lanes; true once the thread
/// has seen [`RING_AFTER`] files before these.
fn ring_due(n: usize) -> bool {
    LANE_FILES.with(|c| {
        let seen = c.get();
        c.set(seen.saturating_add(n));
        seen >= RING_AFTER
    })
}

/// A file opened ahead of its turn (or not).
enum Ahead {
    Opened(Input),
    /// Its open failed with this error (reported in its place).
    Failed(io::Error),
    /// To be opened by [`crate::os::open_input`] when its turn comes.
    Later,
}

/// A finished input: its index, digest and size.
struct Finished {
    at: usize,
    digest: Vec<u8>,
    total: u64,
}

/// A finished input whose close is still to be made: its result waits
/// for close(2)'s (GNU fails an input whose close fails).
struct Closing {
    done: Finished,
    file: Input,
}

impl Closing {
    /// Closes the file with close(2) and delivers the input's result.
    fn close_now(self, kernel_name: &'static str, out: &mut dyn Deliver<io::Result<Digested>>) {
        let r = self.file.close();
        out.deliver(self.done.at, finished(r, self.done, kernel_name));
    }
}

/// Files opened per batch (at most [`ring::MAX_OPENS`]): 16 and 32
/// measured alike; fewer keep fewer descriptors open.
const OPEN_BATCH: usize = 16;

/// Grows the descriptor table, before `jobs` threads start hashing in
/// lanes, to what they may hold open at once: per thread the files opened
/// ahead, those in lanes and those waiting for their close, and its ring
/// (see [`crate::os::reserve_descriptors`]).
pub fn reserve_descriptors(jobs: usize) {
    if jobs > 1 {
        crate::os::reserve_descriptors(jobs * (2 * OPEN_BATCH + MAX_LANES + 2) + 16);
    }
}

/// Opens the next files [`ring::MAX_OPENS`] at a time and closes the
/// finished ones in the same submissions, through io_uring (Linux; see
/// `super::ring`); where that is off or refused, every file is opened
/// and closed by the lanes themselves, one system call each, as before.
struct Batches {
    on: bool,
    ahead: std::collections::VecDeque<(usize, Ahead)>,
    closing: Vec<Closing>,
}

impl Batches {
    fn new(wanted: bool) -> Batches {
        Batches {
            on: wanted && ring_may_use(),
            ahead: std::collections::VecDeque::new(),
            closing: Vec::new(),
        }
    }

    /// The next input of `group` (advancing `next`), opened ahead if it
    /// could be, or `None` when batches are off and nothing is ahead.
    fn take(
        &mut self,
        group: &[usize],
        next: &mut usize,
        inputs: &[(&OsStr, Algorithm)],
        kernel_name: &'static str,
        out: &mut dyn Deliver<io::Result<Digested>>,
    ) -> Option<(usize, Ahead)> {
        if self.ahead.is_empty() && self.on && *next < group.len() {
            let end = (*next + OPEN_BATCH).min(group.len());
            self.open_batch(&group[*next..end], inputs, kernel_name, out);
            *next = end;
        }
        self.ahead.pop_front()
    }

    /// Puts `at` back, to be opened by itself after the others ahead.
    fn later(&mut self, at: usize) {
        self.ahead.push_back((at, Ahead::Later));
    }

    fn has_ahead(&self) -> bool {
        !self.ahead.is_empty()
    }

    /// True when a file opened ahead holds a descriptor.
    fn holds_files(&self) -> bool {
        self.ahead.iter().any(|(_, a)| matches!(a, Ahead::Opened(_)))
    }

    /// A lane's input is done: its result is delivered once its file is
    /// closed (now, with batches off; with the next batch, else).
    fn finish(
        &mut self,
        at: usize,
        digest: Vec<u8>,
        total: u64,
        file: Input,
        kernel_name: &'static str,
        out: &mut dyn Deliver<io::Result<Digested>>,
    ) {
        let c = Closing {
            done: Finished { at, digest, total },
            file,
        };
        if !self.on {
            c.close_now(kernel_name, out);
            return;
        }
        self.closing.push(c);
        if self.closing.len() >= OPEN_BATCH {
            self.flush_closes(kernel_name, out);
        }
    }

    /// Closes every finished file still open and delivers its result.
    fn flush_closes(&mut self, kernel_name: &'static str, out: &mut dyn Deliver<io::Result<Digested>>) {
        if !self.closing.is_empty() {
            self.open_batch(&[], &[], kernel_name, out);
        }
    }

    /// One submission: the pending closes, then the opens of `ats`.
    fn open_batch(
        &mut self,
        ats: &[usize],
        inputs: &[(&OsStr, Algorithm)],
        kernel_name: &'static str,
        out: &mut dyn Deliver<io::Result<Digested>>,
    ) {
        let closing = std::mem::take(&mut self.closing);
        match ring_batch(ats, inputs, closing) {
            Ok((opened, closed)) => {
                for (done, r) in closed {
                    crate::os::input_closed();
                    out.deliver(done.at, finished(r, done, kernel_name));
                }
                for (&at, r) in ats.iter().zip(opened) {
                    let a = match r {
                        Some(Ok(f)) => Ahead::Opened(Input::adopt(f)),
                        // Descriptors ran out: opened again in turn.
                        Some(Err(e)) if crate::os::fds_exhausted(&e) => Ahead::Later,
                        Some(Err(e)) => Ahead::Failed(e),
                        None => Ahead::Later,
                    };
                    self.ahead.push_back((at, a));
                }
            }
            Err(closing) => {
                // No ring on this thread: everything one call at a time.
                self.on = false;
                for c in closing {
                    c.close_now(kernel_name, out);
                }
                self.ahead.extend(ats.iter().map(|&at| (at, Ahead::Later)));
            }
        }
    }
}

/// An input's result once its file is closed.
fn finished(closed: io::Result<()>, done: Finished, kernel_name: &'static str) -> io::Result<Digested> {
    closed.map(|()| Digested {
        digest: done.digest,
        size: done.total,
        method: crate::io::Method::Read,
        lane_kernel: Some(kernel_name),
        store: None,
        io_trial: None,
    })
}

/// Opens the inputs `ats` and closes `closing` in one io_uring
/// submission: each open's result (`None`: a name io_uring cannot take,
/// with a NUL byte, left to open(2)), each close with its result; or
/// `Err(closing)`, untouched, where this thread has no ring.
#[cfg(target_os = "linux")]
#[allow(clippy::type_complexity)]
fn ring_batch(
    ats: &[usize],
    inputs: &[(&OsStr, Algorithm)],
    closing: Vec<Closing>,
) -> Result<(Vec<Option<io::Result<File>>>, Vec<(Finished, io::Result<()>)>), Vec<Closing>> {
    use std::os::unix::ffi::OsStrExt;
    let names: Vec<Option<std::ffi::CString>> = ats
        .iter()
        .map(|&at| std::ffi::CString::new(inputs[at].0.as_bytes()).ok())
        .collect();
    let paths: Vec<&std::ffi::CStr> = names.iter().flatten().map(|c| c.as_c_str()).collect();
    // The descriptors go to the kernel, still counted as open inputs
    // until their closes complete.
    let (fds, dones): (Vec<_>, Vec<_>) = closing
        .into_iter()
        .map(|c| (c.file.into_raw_fd(), c.done))
        .unzip();
    match ring::open_and_close(&paths, fds) {
        Ok(done) => {
            let mut opened = done.opened.into_iter();
            let results = names
                .iter()
                .map(|n| n.as_ref().and_then(|_| opened.next()))
                .collect();
            Ok((results, dones.into_iter().zip(done.closed).collect()))
        }
        // The kernel took nothing: the descriptors are given back.
        Err(fds) => Err(fds
            .into_iter()
            .zip(dones)
            .map(|(fd, done)| Closing {
                done,
                // SAFETY: `fd` came from `into_raw_fd` above and is still
                // open (the batch was refused before the kernel took it).
                file: unsafe { Input::reclaim(fd) },
            })
            .collect()),
    }
}

#[cfg(not(target_os = "linux"))]
#[allow(clippy::type_complexity)]
fn ring_batch(
    _ats: &[usize],
    _inputs: &[(&OsStr, Algorithm)],
    closing: Vec<Closing>,
) -> Result<(Vec<Option<io::Result<File>>>, Vec<(Finished, io::Result<()>)>), Vec<Closing>> {
    Err(closing)
}

/// True unless this thread found io_uring refused.
fn ring_may_use() -> bool {
    #[cfg(target_os = "linux")]
    {
        ring::may_use()
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// Reads until `f` has at least one 64-byte block unhashed in `buf`, or its
/// input has ended (retrying on EINTR).
///
/// # Errors
/// The first read error other than `Interrupted` (`EISDIR`, `EIO`, ...).
fn fill(f: &mut Feed, buf: &mut [u8]) -> io::Result<()> {
    if f.eof || f.end - f.pos >= 64 {
        return Ok(());
    }
    // Under a block left: move it to the front and read after it.
    buf.copy_within(f.pos..f.end, 0);
    f.end -= f.pos;
    f.pos = 0;
    let mut interrupted = 0;
    while f.end < 64 && !f.eof {
        match read_at(&f.file, &mut buf[f.end..], f.total) {
            Ok(0) => f.eof = true,
            Ok(n) => {
                let asked = buf.len() - f.end;
                // A first read that fills the buffer: a large file, worth
                // the read-ahead hint (as the single-stream path gives it),
                // and one system call to learn its size (the end is then
                // known without a last read, and the lanes that finish
                // meanwhile are written at once: FLUSH_BEHIND).
                if f.first_read && n == asked {
                    crate::os::advise_sequential(&f.file);
                    f.size = Some(match f.file.metadata() {
                        Ok(m) if m.is_file() => m.len(),
                        _ => u64::MAX,
                    });
                }
                f.first_read = false;
                f.end += n;
                f.total += n as u64;
                crate::progress::note_bytes(n as u64);
                // A regular file read to the size it had a moment ago, and
                // the read came back short: that is its end (one read
                // less per small file). A file that grew since is read on.
                if n < asked && f.size == Some(f.total) {
                    f.eof = true;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted && interrupted < super::MAX_EINTR => {
                interrupted += 1
            }
            // Opened without waiting: a file system that honours that for
            // regular files says so here; read on, waiting (once: another
            // EAGAIN is the file's error, as GNU reports it).
            Err(e) if e.kind() == io::ErrorKind::WouldBlock && !f.unblocked => {
                f.unblocked = true;
                set_blocking(&f.file)?;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Reads into `buf` from byte `offset` of `f` ([`crate::os::read_at`]:
/// `pread(2)` on Unix, which fails with `ESPIPE` on an input that cannot
/// be read at an offset, a FIFO or a terminal, without taking anything
/// from it, so that the first read of a lane is also the test of what the
/// input is). For a 4 KiB file, `pread` and then the `pread` that returns
/// 0 cost less than the `fstat` and one read they replace: 3.90 against
/// 4.12 µs per file for open, both calls and close (a C loop over 5,000
/// cached files, median of 30, 2-core AMD EPYC Zen 4 VM, Linux 6.18).
///
/// # Errors
/// As `pread(2)` (`ESPIPE`, `EISDIR`, `EINTR`, `EIO`, ...).
fn read_at(f: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    crate::os::read_at(f, buf, offset)
}

/// Whether `f` may be read in a lane before its first read has said so
/// (see [`read_at`]): on Unix every input (the read tells), on Windows a
/// file on a disk ([`crate::os::is_disk_file`]).
fn may_take_lane(f: &File) -> bool {
    crate::os::READ_AT_TELLS_KIND || crate::os::is_disk_file(f)
}

/// Clears `O_NONBLOCK` on `f`: reads wait for data again.
fn set_blocking(f: &File) -> io::Result<()> {
    crate::os::set_blocking(f)
}

/// Hashes a non-regular input (FIFO, device, directory) opened by
/// [`crate::os::open_input`] without waiting (`O_NONBLOCK`), alone, as the single-stream path reads it: a FIFO is
/// first waited on until a writer has written or come and gone (what a
/// plain open and first read would wait for), then read to its end.
///
/// # Errors
/// As [`super::feed`]: the first read error (`EISDIR` for a directory).
fn digest_alone(file: Input, algo: Algorithm, buf: &mut [u8]) -> io::Result<Digested> {
    let mut file = file;
    let r = read_alone(&mut file, algo, buf);
    let closed = file.close();
    r.and_then(|d| closed.map(|()| d))
}

fn read_alone(file: &mut File, algo: Algorithm, buf: &mut [u8]) -> io::Result<Digested> {
    set_blocking(file)?;
    // A FIFO with no writer yet: wait until one writes or comes and goes.
    crate::os::wait_if_fifo(file, super::MAX_EINTR)?;
    let mut hasher = algo.hasher();
    let mut total = 0u64;
    loop {
        match super::read_retrying(file, buf)? {
            0 => break,
            n => {
                hasher.update(&buf[..n]);
                total += n as u64;
                crate::progress::note_bytes(n as u64);
            }
        }
    }
    Ok(Digested {
        digest: hasher.finalize(),
        size: total,
        method: crate::io::Method::Read,
        lane_kernel: None,
        store: None,
        io_trial: None,
    })
}
