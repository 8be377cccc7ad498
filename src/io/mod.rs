//! The I/O layer: turns an input (a path, or `-` for standard input) and a
//! [`Hasher`] into a digest and a byte count, in constant memory whatever
//! the input size: streaming through one reused, page-aligned buffer per
//! worker (the default), or mapping a regular file a bounded window at a
//! time (module `mapped`) where that measurably wins.
//!
//! It knows nothing of formats or messages: errors come back as
//! [`std::io::Error`] for the caller to word.

mod fanout;
pub mod lanes;
mod mapped;
pub mod plan;
mod readers;
mod split;
mod trial;

pub use trial::Figures;

pub use fanout::Multi;
pub use mapped::{set_tree_window, tree_piece};
pub use plan::Method;
use plan::{Advice, Strategy, Threads as _};

use crate::algo::{Algorithm, Capability, Hasher};
use crate::config::IoMode;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The read size for streaming input, in bytes: 256 KiB (262,144 bytes),
/// the best of 64 KiB..2 MiB measured here (see README, Performance).
pub const READ_BUF_LEN: usize = 256 * 1024;

/// A reusable read buffer, one per worker: [`read_size`] bytes, starting
/// on a 4,096-byte page boundary (so the kernel's copy out of the page
/// cache is aligned). A new one is allocated zeroed (calloc-like: fresh
/// pages are not touched until a read fills them, so start-up stays
/// cheap); a dropped one goes back to a process-wide pool of at most
/// [`POOL_MAX`] buffers, and the next buffer of its length is taken from
/// there, holding whatever bytes were last read into it.
///
/// The pool exists for the end of a run: glibc allocates buffers this
/// large with `mmap`, and freeing them with `munmap` while another thread
/// still runs costs a TLB shoot-down (an inter-processor interrupt, dear
/// in a VM) for each. A worker thread that ended freed its lane buffers
/// (16 on AVX-512) that way, while the caller waited for it: md5 on 5,000
/// files of 4 KiB, two threads, took 19.65 ms with the frees and 17.82 ms
/// without (21 interleaved runs, Xeon VM, 2026-12-03).
pub struct ReadBuf {
    storage: Vec<u8>,
    start: usize,
}

/// Most buffers [`ReadBuf`]'s pool keeps: 64 (16 lanes for each of four
/// threads; a run with more threads frees the rest).
pub const POOL_MAX: usize = 64;

/// Storage of dropped [`ReadBuf`]s, for the next ones.
static POOL: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());

impl Default for ReadBuf {
    /// A buffer of [`read_size`] bytes; under an address-space limit
    /// (`ulimit -v`) at most a quarter of what is left, and where the
    /// allocation fails, a smaller one, halved down to 4 KiB (reads are
    /// then shorter, nothing else changes): `sha256sum FILE` under `ulimit
    /// -v 8500` aborted on its 260 KiB buffer where GNU's 32 KiB fit.
    fn default() -> Self {
        let mut len = match crate::sched::address_space_left() {
            Some(left) => read_size().min((left / 4 / 4096 * 4096).max(4096)),
            None => read_size(),
        };
        loop {
            if let Some(b) = ReadBuf::try_with_len(len) {
                return b;
            }
            if len <= 4096 {
                return ReadBuf::aligned(vec![0u8; len + 4096]);
            }
            len = (len / 2 / 4096 * 4096).max(4096);
        }
    }
}

impl Drop for ReadBuf {
    fn drop(&mut self) {
        let storage = std::mem::take(&mut self.storage);
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        if pool.len() < POOL_MAX {
            pool.push(storage);
        }
    }
}

impl crate::sched::WorkerState for ReadBuf {
    fn first() -> Self {
        ReadBuf::default()
    }
    fn another() -> Option<Self> {
        ReadBuf::budgeted()
    }
}

impl ReadBuf {
    /// A buffer, or `None` where memory is short (e.g. under `ulimit -v`):
    /// extra worker threads then do without, instead of aborting the run.
    pub fn try_new() -> Option<ReadBuf> {
        ReadBuf::try_with_len(read_size())
    }

    /// A buffer of [`read_size`] bytes from the pool, or else allocated
    /// only while the run's memory reserve stays free under `ulimit -v`
    /// ([`crate::sched::budgeted`]); `None` where it does not.
    pub(crate) fn budgeted() -> Option<ReadBuf> {
        let len = read_size();
        ReadBuf::pooled(len).or_else(|| crate::sched::budgeted(len + 4096, || ReadBuf::fresh(len)))
    }

    /// A buffer of `len` bytes on a page boundary, or `None` where memory
    /// is short.
    pub(crate) fn try_with_len(len: usize) -> Option<ReadBuf> {
        ReadBuf::pooled(len).or_else(|| ReadBuf::fresh(len))
    }

    /// A newly allocated (zeroed) buffer of `len` bytes, or `None` where
    /// memory is short.
    fn fresh(len: usize) -> Option<ReadBuf> {
        let total = len + 4096;
        let layout = std::alloc::Layout::array::<u8>(total).ok()?;
        // SAFETY: `layout` has a non-zero size; a null result is handled.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return None;
        }
        // SAFETY: `ptr` was allocated by the global allocator with the
        // layout of `total` bytes of alignment 1, all initialised (zeroed);
        // the vector takes ownership with length = capacity = `total`.
        let storage = unsafe { Vec::from_raw_parts(ptr, total, total) };
        Some(ReadBuf::aligned(storage))
    }

    /// A buffer of `len` bytes from the pool, if one is there.
    fn pooled(len: usize) -> Option<ReadBuf> {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        let at = pool.iter().position(|s| s.len() == len + 4096)?;
        let storage = pool.swap_remove(at);
        drop(pool);
        Some(ReadBuf::aligned(storage))
    }

    /// `storage` (4,096 bytes more than the buffer) with the buffer's
    /// start on a page boundary.
    fn aligned(storage: Vec<u8>) -> ReadBuf {
        let start = storage.as_ptr().align_offset(4096).min(4096);
        ReadBuf { storage, start }
    }

    pub(crate) fn bytes(&mut self) -> &mut [u8] {
        let len = self.storage.len() - 4096;
        &mut self.storage[self.start..self.start + len]
    }
}

static READ_SIZE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// The read size in bytes: [`READ_BUF_LEN`], or what [`set_read_size`]
/// chose (`MHASH_READ_SIZE`, for benchmarking).
pub fn read_size() -> usize {
    *READ_SIZE.get_or_init(|| clamp_read_size(None))
}

/// Sets the read size once per process, before the first buffer is made:
/// `bytes` rounded down to whole 4 KiB pages, 4 KiB..=16 MiB; `None` =
/// [`READ_BUF_LEN`]. Later calls change nothing.
pub fn set_read_size(bytes: Option<usize>) {
    let _ = READ_SIZE.set(clamp_read_size(bytes));
}

fn clamp_read_size(bytes: Option<usize>) -> usize {
    bytes.map_or(READ_BUF_LEN, |n| n.clamp(4096, 16 << 20) / 4096 * 4096)
}

/// The digest of one input, its length in bytes, and how it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Digested {
    /// The digest bytes (see [`crate::algo::Hasher::finalize`]).
    pub digest: Vec<u8>,
    /// How many bytes were read, in bytes.
    pub size: u64,
    /// `read`, `mmap` (with `read` for any growth past the size at open),
    /// or `mmap+read` when the file shrank under the map and was re-read.
    pub method: Method,
    /// The lane kernel that hashed it beside other inputs (`avx2-x8`), or
    /// `None` for the single-stream backend ([`lanes::digest_batch`]).
    pub lane_kernel: Option<&'static str>,
    /// An object store's checksum ([`digest_store`]) in place of
    /// [`digest`](Self::digest), which is then empty.
    pub store: Option<crate::algo::stores::StoreDigest>,
    /// Where a large input's way of hashing was chosen by measurement:
    /// each way tried and its speed over its trial in MB/s (10^6 B/s),
    /// e.g. `[("read", 1480), ("mmap", 1890), ("read, hashed beside", 1400)]`
    /// (`--debug` shows them); `None` where nothing was measured.
    pub io_trial: Option<trial::Figures>,
}

/// How many times in a row a read interrupted by a signal (EINTR) is
/// retried before the interruption is reported as the input's error.
pub(crate) const MAX_EINTR: u32 = 1000;

/// One `read`, retried on EINTR at most [`MAX_EINTR`] times in a row.
///
/// # Errors
/// As `reader.read`; `Interrupted` after that many interruptions.
pub(crate) fn read_retrying(reader: &mut dyn Read, bytes: &mut [u8]) -> io::Result<usize> {
    let mut tries = 0;
    loop {
        match reader.read(bytes) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted && tries < MAX_EINTR => tries += 1,
            r => return r,
        }
    }
}

/// Feeds everything `reader` yields into `hasher`, retrying on EINTR, and
/// keeps the running byte count in `total`, so that a caller that tolerates
/// read errors still knows how much was hashed.
///
/// # Errors
/// The first read error other than `Interrupted` (e.g. `EISDIR` for a
/// directory, `EIO`).
pub fn feed(
    reader: &mut dyn Read,
    hasher: &mut dyn Hasher,
    buf: &mut ReadBuf,
    total: &mut u64,
) -> io::Result<u64> {
    feed_then(reader, hasher, buf.bytes(), total, &mut || {})
}

/// [`feed`], calling `on_big` once if the first read fills the whole
/// buffer (a file of at least [`read_size`] bytes: worth a read-ahead hint).
pub(super) fn feed_then(
    reader: &mut dyn Read,
    hasher: &mut dyn Hasher,
    bytes: &mut [u8],
    total: &mut u64,
    on_big: &mut dyn FnMut(),
) -> io::Result<u64> {
    let mut first = true;
    loop {
        match read_retrying(reader, bytes) {
            Ok(0) => return Ok(*total),
            Ok(n) => {
                if first && n == bytes.len() {
                    on_big();
                }
                first = false;
                hasher.update(&bytes[..n]);
                *total += n as u64;
                crate::progress::note_bytes(n as u64);
            }
            Err(e) => return Err(e),
        }
    }
}

/// Bytes per slot when one input is hashed on several threads at once
/// (BLAKE3's tree): 1 MiB. Measured on 1 GiB cached, 2 cores, median of 7
/// (slot size 256 KiB / 512 KiB / 1 MiB / 2 MiB / 4 MiB / 16 MiB /
/// 64 MiB): 0.24 / 0.23 / 0.21 / 0.21 / 0.25 / 0.26 / 0.34 s; peak RSS
/// grows with it (8 MiB at 1 MiB slots).
const PARALLEL_CHUNK: usize = 1 << 20;

/// Streams `reader` into `hasher` like [`feed_then`], but first looks at
/// whether the input is large (its first read fills the buffer); a large
/// input is then hashed on other threads than the reading one: several
/// digests (`-a md5,sha256`) each on a thread of its own over a shared
/// ring of buffers ([`fanout::feed`]), one tree hash (BLAKE3) over all of
/// rayon's threads, `PARALLEL_CHUNK` bytes at a time, or any other digest
/// on one thread over the same ring, `OVERLAP_CHUNK` bytes at a time, where
/// that measures faster than hashing on the reading thread
/// ([`feed_beside_if_faster`]). `threads()` > 1 allows each; for the last
/// it is asked only once the first read has filled the buffer.
fn stream(
    reader: &mut dyn Read,
    hasher: &mut dyn Hasher,
    buf: &mut ReadBuf,
    total: &mut u64,
    threads: &dyn Fn() -> usize,
    on_big: &mut dyn FnMut(),
    figures: &mut Option<trial::Figures>,
) -> io::Result<u64> {
    let tree = matches!(hasher.capability(), Capability::Tree(_));
    let multi = matches!(hasher.capability(), Capability::Multi(_));
    // A tree hash runs on rayon's pool: where that cannot start (memory
    // short), it runs on this thread alone. Only these two ask for the
    // thread count before the first read.
    let parallel = (tree || multi) && {
        let threads = threads();
        threads > 1 && (multi || tree_pool(threads))
    };
    if !parallel && (tree || multi) {
        return feed_then(reader, hasher, buf.bytes(), total, on_big);
    }
    let bytes = buf.bytes();
    let n = read_retrying(reader, bytes)?;
    *total += n as u64;
    crate::progress::note_bytes(n as u64);
    if n < bytes.len() {
        // Small: no threads. Hash it and read on (to EOF) as usual.
        hasher.update(&bytes[..n]);
        return feed_then(reader, hasher, bytes, total, &mut || {});
    }
    on_big();
    if !parallel {
        // One digest of a large input: where a second thread is allowed,
        // it may hash while this one reads the next slot (the copy out of
        // the page cache leaves the hash's critical path), if measured
        // faster.
        hasher.update(&bytes[..n]);
        if threads() > 1 {
            return trial::feed_beside_if_faster(reader, hasher, bytes, total, figures);
        }
        return feed_then(reader, hasher, bytes, total, &mut || {});
    }
    if let Capability::Multi(hashers) = hasher.capability() {
        let len = bytes.len();
        let list = hashers
            .iter_mut()
            .map(|h| h.as_mut() as &mut dyn Hasher)
            .collect();
        fanout::feed(reader, list, len, &bytes[..n], total, u64::MAX)?;
        return Ok(*total);
    }
    // One tree hash (BLAKE3): a hashing thread takes PARALLEL_CHUNK-byte
    // slots from the ring, spreading each over rayon's threads, while this
    // thread reads the next (b3sum hashes large files multi-threaded only
    // from a map; here reading overlaps hashing, and memory stays bounded).
    fanout::feed(reader, vec![hasher], PARALLEL_CHUNK, &bytes[..n], total, u64::MAX)?;
    Ok(*total)
}

/// Starts rayon's global pool for tree hashes (BLAKE3) once: `threads`
/// threads, never more than the cores ([`crate::sched::cores`]: more
/// only adds switching, `-j1000` took 42 s where `-j2` took 0.22 s), on
/// small stacks, and only while memory allows. Returns whether the pool
/// is there (if it is not, a tree hash must not call into rayon, whose
/// own start would abort the process).
fn tree_pool(threads: usize) -> bool {
    static POOL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *POOL.get_or_init(|| {
        let n = threads.min(crate::sched::cores()).max(1);
        // Each thread: its stack and 1 MiB for the C library's own.
        crate::sched::budgeted(n * (WORKER_STACK + (1 << 20)), || {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .stack_size(WORKER_STACK)
                .build_global()
                .ok()
        })
        .is_some()
    })
}

/// The run's threads as [`plan::plan`] asks for them: from `-j` (or the
/// default count) where the input is hashed with threads.
struct RunThreads<'a>(&'a InputOpts);

impl plan::Threads for RunThreads<'_> {
    fn stream(&self) -> usize {
        self.0.threads.map_or(1, crate::sched::effective_jobs)
    }
    fn split(&self) -> Option<usize> {
        self.0
            .threads
            .map(|t| crate::sched::effective_jobs(t).min(crate::sched::cores()))
    }
    fn tree_pool(&self, threads: usize) -> bool {
        tree_pool(threads)
    }
}

/// `hasher`'s capability as [`plan::Shape`].
fn shape_of(hasher: &mut dyn Hasher) -> plan::Shape {
    match hasher.capability() {
        Capability::None => plan::Shape::Plain,
        Capability::Tree(_) => plan::Shape::Tree,
        Capability::Combine(_) => plan::Shape::Combine,
        Capability::Multi(_) => plan::Shape::Multi,
    }
}

/// Stack size of the tree hash's pool threads: 256 KiB (hashing needs
/// little stack).
const WORKER_STACK: usize = 256 * 1024;

/// Hashes the input named `name` (`-` = standard input) with `algo`,
/// reading regular files as `mode` says.
///
/// # Errors
/// Opening or reading failed (`ENOENT`, `EACCES`, `EISDIR`, `EIO`, ...).
pub fn digest_input(
    name: &std::ffi::OsStr,
    algo: Algorithm,
    buf: &mut ReadBuf,
    mode: IoMode,
) -> io::Result<Digested> {
    digest_input_with(
        name,
        algo,
        buf,
        &InputOpts {
            mode,
            ..InputOpts::default()
        },
    )
}

/// How [`digest_input_with`] reads an input.
#[derive(Clone, Copy, Debug)]
pub struct InputOpts {
    /// Read or map regular files.
    pub mode: IoMode,
    /// A read error ends the input instead of failing it (GNU cksum 9.1's
    /// CRC loop ignored read errors: `cksum DIR` printed `4294967295 0 DIR`).
    /// Open errors still fail.
    pub read_errors_end_input: bool,
    /// Threads one large regular file may be split across, for checksums
    /// that can be computed in pieces (the CRCs): `None` = never split,
    /// `Some(n)` = `n` threads, `Some(0)` = one per core (counted only when
    /// a file is large enough to split: counting reads cgroup files).
    pub threads: Option<usize>,
}

impl Default for InputOpts {
    fn default() -> Self {
        InputOpts {
            mode: IoMode::Auto,
            read_errors_end_input: false,
            threads: None,
        }
    }
}

/// [`digest_input`] with every option of [`InputOpts`].
///
/// # Errors
/// Opening failed, or reading failed and `read_errors_end_input` is false.
pub fn digest_input_with(
    name: &std::ffi::OsStr,
    algo: Algorithm,
    buf: &mut ReadBuf,
    opts: &InputOpts,
) -> io::Result<Digested> {
    digest_inputs(name, &[algo], buf, opts)
}

/// [`digest_input_with`] for several algorithms at once, the input read
/// once (`mhash -a md5,sha256`): [`Digested::digest`] holds the digests
/// concatenated in the order of `algos` (split them by
/// [`Algorithm::digest_len`]). With [`InputOpts::threads`] above 1 a large
/// input's digests run on threads of their own.
///
/// # Errors
/// As [`digest_input_with`].
///
/// # Panics
/// If `algos` is empty.
pub fn digest_inputs(
    name: &std::ffi::OsStr,
    algos: &[Algorithm],
    buf: &mut ReadBuf,
    opts: &InputOpts,
) -> io::Result<Digested> {
    use std::io::Seek;
    let algo = algos[0];
    let (mode, read_errors_end_input) = (opts.mode, opts.read_errors_end_input);
    let make = || -> Box<dyn Hasher> {
        if algos.len() == 1 {
            algo.hasher()
        } else {
            Box::new(Multi(algos.iter().map(|a| a.hasher()).collect()))
        }
    };
    let threads = RunThreads(opts);
    // Throws away what was hashed and rewinds: the file changed under a
    // map or a split read, and is read again as it is now.
    let restart = |f: &mut File, hasher: &mut Box<dyn Hasher>, total: &mut u64| -> io::Result<()> {
        *hasher = make();
        *total = 0;
        f.seek(io::SeekFrom::Start(0)).map(|_| ())
    };
    let mut hasher = make();
    let mut total = 0u64;
    let mut method = Method::Read;
    let mut io_trial = None;
    let r = if name == "-" {
        stream(
            &mut crate::os::stdin_reader(),
            hasher.as_mut(),
            buf,
            &mut total,
            &|| threads.stream(),
            &mut || {},
            &mut io_trial,
        )
    } else {
        let mut f = crate::os::open_input(Path::new(name), false, false)?;
        let mut facts = plan::Facts {
            algo,
            digests: algos.len(),
            shape: shape_of(hasher.as_mut()),
            mode,
            read_errors_end_input,
            calibrating: crate::algo::calibrate::mode() != crate::algo::calibrate::Mode::Never,
            threaded: opts.threads.is_some(),
            size: None,
        };
        if facts.wants_size() {
            facts.size = regular_size(&f);
        }
        // A large input, or the input that makes a run of many long
        // enough, first has its algorithm's backends timed, where it has
        // a choice of them (once per run; `prepare_for_input` returns at
        // once for a small one: see algo::calibrate).
        let mut measured = false;
        for a in algos {
            measured |= a.prepare_for_input(facts.size);
        }
        if measured {
            hasher = make();
            facts.shape = shape_of(hasher.as_mut());
        }
        let strategy = plan::plan(&facts, &threads);
        match strategy {
            Strategy::Paired { size } => {
                crate::os::advise_sequential(&f);
                if readers::feed(&f, size, hasher.as_mut(), &mut total)? {
                    // Streams on from where the two readers stopped (the
                    // file may have grown, or shrunk under them).
                    method = Method::ReadPaired;
                    f.seek(io::SeekFrom::Start(total))?;
                }
            }
            Strategy::Trial { size } => {
                crate::os::advise_sequential(&f);
                match trial::feed_file(
                    &f,
                    size,
                    hasher.as_mut(),
                    buf.bytes(),
                    &mut total,
                    threads.stream(),
                    &mut io_trial,
                )? {
                    trial::FileWay::Read => {}
                    trial::FileWay::Mapped => method = Method::Mmap,
                    trial::FileWay::Restart => {
                        method = Method::MmapThenRead;
                        restart(&mut f, &mut hasher, &mut total)?;
                    }
                }
            }
            Strategy::Map { size, tree } => {
                let how = if tree {
                    mapped::Mapping::Tree
                } else {
                    mapped::Mapping::Serial
                };
                match mapped::feed_mapped(&f, 0, size, hasher.as_mut(), how, &mut total) {
                    Ok(mapped::Outcome::Whole) => {
                        // A map leaves the file offset alone: read on from
                        // where the map ended (a tree hash's pieces end
                        // at the last whole piece).
                        method = Method::Mmap;
                        f.seek(io::SeekFrom::Start(total))?;
                    }
                    Ok(mapped::Outcome::Shrank) => {
                        // The file shrank under the map: what was hashed is
                        // wrong (zeros stood in for the lost pages). Start
                        // again, streaming, from the file as it is now.
                        method = Method::MmapThenRead;
                        restart(&mut f, &mut hasher, &mut total)?;
                    }
                    // Not mappable after all (e.g. a file system without
                    // mmap): stream it instead, from the start.
                    Err(_) => restart(&mut f, &mut hasher, &mut total)?,
                }
            }
            Strategy::Split { size, threads } => {
                crate::os::advise_sequential(&f);
                if split::feed_segments(&f, size, hasher.as_mut(), threads, &mut total)? {
                    method = Method::ReadSplit;
                    f.seek(io::SeekFrom::Start(size))?;
                } else {
                    // The file shrank while it was read: start again.
                    restart(&mut f, &mut hasher, &mut total)?;
                }
            }
            Strategy::Stream(Advice::Now) => crate::os::advise_sequential(&f),
            Strategy::Stream(Advice::AfterFirstRead | Advice::Never) => {}
        }
        // Streams the file, or, after a map, whatever it grew by since
        // it was opened: the digest is of the bytes there until EOF. A
        // file whose size was not asked for gets its read-ahead hint once
        // it proves large (its first read fills the buffer).
        let hint_later = strategy == Strategy::Stream(Advice::AfterFirstRead);
        let hint = crate::os::ReadAheadHint::of(&f);
        let r = stream(
            &mut f,
            hasher.as_mut(),
            buf,
            &mut total,
            &|| threads.stream(),
            &mut || {
                if hint_later {
                    hint.apply();
                }
            },
            &mut io_trial,
        );
        // GNU checks fclose's result too: a close error fails the input.
        let closed = f.close();
        r.and_then(|n| closed.map(|()| n))
    };
    match r {
        Ok(_) => {}
        Err(_) if read_errors_end_input => {}
        Err(e) => return Err(e),
    }
    for a in algos {
        a.note_hashed(total);
    }
    Ok(Digested {
        digest: hasher.finalize(),
        size: total,
        method,
        lane_kernel: None,
        store: None,
        io_trial,
    })
}

/// Reads the input named `name` (`-` = standard input) to its end into
/// `store`'s computation (an S3, GCS or HDFS checksum): streamed with
/// `read(2)` in constant memory, the size of a regular file taken at open
/// (the AWS CLI's part size depends on it, see
/// [`crate::algo::stores::Multipart::part_size_for`]).
///
/// # Errors
/// Opening, reading or closing failed (`ENOENT`, `EACCES`, `EISDIR`, `EIO`).
pub fn digest_store(
    name: &std::ffi::OsStr,
    store: &crate::algo::stores::Store,
    buf: &mut ReadBuf,
) -> io::Result<Digested> {
    let mut total = 0u64;
    let h = if name == "-" {
        let mut h = store.hasher(None);
        feed(&mut crate::os::stdin_reader(), &mut h, buf, &mut total)?;
        h
    } else {
        let mut f = crate::os::open_input(Path::new(name), false, false)?;
        let size = regular_size(&f);
        if size.is_some_and(|n| n >= SEQUENTIAL_HINT_MIN) {
            crate::os::advise_sequential(&f);
        }
        let mut h = store.hasher(size);
        let r = feed(&mut f, &mut h, buf, &mut total);
        let closed = f.close();
        r?;
        closed?;
        h
    };
    Ok(Digested {
        digest: Vec::new(),
        size: total,
        method: Method::Read,
        lane_kernel: None,
        store: Some(h.finish()),
        io_trial: None,
    })
}

/// Files at least this large (bytes) are split across threads when the
/// checksum allows it ([`InputOpts::threads`]): 64 MiB.
const SPLIT_MIN: u64 = 64 << 20;

/// Files at least this large (bytes) get `posix_fadvise(SEQUENTIAL)`: 1 MiB.
const SEQUENTIAL_HINT_MIN: u64 = 1 << 20;

/// The size in bytes of `f` if it is a regular file (not a FIFO, device,
/// directory or socket, which are streamed whatever the mode).
fn regular_size(f: &File) -> Option<u64> {
    let m = f.metadata().ok()?;
    m.file_type().is_file().then_some(m.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::AlgoKind;

    #[test]
    fn a_dropped_read_buffer_is_taken_again_from_the_pool() {
        // A length no other test uses, so that the shared pool's other
        // buffers cannot answer.
        let len = 4096 * 77;
        let mut b = ReadBuf::try_with_len(len).expect("memory");
        assert_eq!(b.bytes().len(), len);
        assert_eq!(b.bytes().as_ptr() as usize % 4096, 0, "page-aligned");
        b.bytes()[0] = 0xA5;
        let at = b.bytes().as_ptr();
        drop(b);
        let mut again = ReadBuf::try_with_len(len).expect("memory");
        assert_eq!(again.bytes().as_ptr(), at, "the same storage, not a new mapping");
        assert_eq!(again.bytes().len(), len);
        // Another length is never handed a buffer of this one.
        let mut other = ReadBuf::try_with_len(len + 4096).expect("memory");
        assert_eq!(other.bytes().len(), len + 4096);
        assert_ne!(other.bytes().as_ptr(), at);
    }

    /// A test double for a device that fails mid-file: yields `good` bytes
    /// in small reads, then EIO (every later read too), with an EINTR on
    /// the way that must be retried.
    struct FailingReader {
        good: Vec<u8>,
        pos: usize,
        interrupted: bool,
    }

    impl Read for FailingReader {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if !self.interrupted && self.pos > 0 {
                self.interrupted = true;
                return Err(io::Error::from(io::ErrorKind::Interrupted));
            }
            if self.pos == self.good.len() {
                return Err(crate::os::ErrorClass::Io.error());
            }
            let n = buf.len().min(1000).min(self.good.len() - self.pos);
            buf[..n].copy_from_slice(&self.good[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    #[test]
    fn a_read_error_mid_file_is_reported_with_the_bytes_before_it() {
        let good: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        let algo = Algorithm::new(AlgoKind::Sha256);
        let mut r = FailingReader {
            good: good.clone(),
            pos: 0,
            interrupted: false,
        };
        let mut h = algo.hasher();
        let mut total = 0;
        let err = feed(&mut r, h.as_mut(), &mut ReadBuf::default(), &mut total).unwrap_err();
        assert_eq!(crate::os::ErrorClass::of(&err), Some(crate::os::ErrorClass::Io));
        assert_eq!(crate::os::strerror(&err), "Input/output error");
        // What was read before the error was hashed, and counted (GNU 9.1
        // cksum's CRC prints that much when it ignores the error).
        assert_eq!(total, 5000);
        assert_eq!(h.finalize(), algo.digest(&good));
    }
}
