//! Scheduling: many inputs hashed on several threads, results delivered in
//! input order.
//!
//! A *producer* yields items one at a time (operands, or parsed checksum
//! lines read from a stream); an item is either work for any thread or a
//! result the producer already has (a misformatted line, standard input).
//! Workers run the work in parallel; the results pass through a reorder
//! window of at most `window` items and reach the *emitter* strictly in
//! production order, so output, error messages and their relative order are
//! exactly those of a sequential run. Memory is bounded by the window, not
//! by the number of inputs, and the producer runs lazily, so endless input
//! (`yes | mhash -c`) streams.
//!
//! With one job there are no threads: a plain loop.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};

/// What each worker thread owns for the whole run and lends to every work
/// call (the I/O layer's read buffer): made once per thread, so that
/// nothing is allocated per item.
pub trait WorkerState: Send + Sized {
    /// The calling thread's state; it must exist (a one-job run needs it).
    fn first() -> Self;
    /// Another thread's state, or `None` where memory is short (the run
    /// then goes on with the threads it has).
    fn another() -> Option<Self>;
}

/// What the producer hands out.
pub enum Item<W, R> {
    /// Work for any thread: turned into a result by the work function.
    Work(W),
    /// A result that needs no work (it is emitted in its place in order).
    Done(R),
}

/// The reorder window per worker thread: how many finished results may
/// wait for an earlier, slower input before a worker pauses (bounds memory
/// whatever the number of inputs).
pub const WINDOW_PER_JOB: usize = 64;

/// Most items a worker claims at once (small, quick inputs).
const MAX_BATCH: usize = 16;

/// Bytes that items waiting in the reorder window may hold between them
/// (their names, as [`Held::note`] counts them): 16 MiB. Past it no more
/// items are claimed until earlier ones are emitted; one item may always be
/// in flight, whatever it holds. Results taken out of the window to be
/// written hold up to as much again while they are written. Without it a window of 128 check lines
/// naming 4 MiB files each held 1 GB (GNU, one line at a time: 10 MB).
pub const HELD_BUDGET: usize = 16 << 20;

/// Where a producer says how many bytes the item it is about to yield
/// holds (a file name read from a checksum line), for the scheduler to
/// keep the window within [`HELD_BUDGET`]. The producer calls
/// [`note`](Self::note) before returning each item; an item it notes
/// nothing for counts 0.
#[derive(Default)]
pub struct Held(std::sync::atomic::AtomicUsize);

impl Held {
    /// The item the producer yields next holds `bytes` bytes.
    pub fn note(&self, bytes: usize) {
        self.0.store(bytes, std::sync::atomic::Ordering::Relaxed);
    }

    /// The bytes noted for the item just yielded (0 if none), and clears it.
    fn take(&self) -> usize {
        self.0.swap(0, std::sync::atomic::Ordering::Relaxed)
    }
}

/// Items quicker than this (the batch's mean) let a worker claim twice as
/// many next time: 50 µs, about a 64 KiB file at 1.3 GB/s plus its system
/// calls.
const QUICK_ITEM: std::time::Duration = std::time::Duration::from_micros(50);

/// Stack size of worker threads, in bytes: hashing needs little stack, and
/// a small reservation keeps the address space small (GNU's tests run
/// `cksum --check` under a virtual-memory limit of start-up size + 12 MB).
const WORKER_STACK: usize = 256 * 1024;

/// The number of worker threads for `requested` (0 = one per available
/// core, as `std::thread::available_parallelism` counts them, which honours
/// CPU affinity and cgroup quotas).
///
/// Always 1 when a standard descriptor is closed (see
/// [`crate::os::standard_fds_open`]).
pub fn effective_jobs(requested: usize) -> usize {
    if !crate::os::standard_fds_open() {
        return 1;
    }
    if requested > 0 {
        return requested;
    }
    cores()
}

/// The cores this process may run on (`std::thread::available_parallelism`:
/// CPU affinity and cgroup quotas count), counted once.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

struct State<W, R, P> {
    producer: P,
    exhausted: bool,
    /// Index of the next item the producer will yield.
    produced: usize,
    /// Index of the next result to emit; `slots[0]` belongs to it.
    emitted: usize,
    slots: VecDeque<Option<R>>,
    /// The bytes each item in `slots` holds ([`Held`]), in the same order.
    weights: VecDeque<usize>,
    /// Their sum.
    held: usize,
    /// A thread holds the emitter role.
    emitting: bool,
    /// Threads waiting on the window's condition variable (std's
    /// `notify_all` makes a system call whether or not any thread waits).
    waiting: usize,
    _w: std::marker::PhantomData<fn() -> W>,
}

/// How the inputs of a run are worked: one at a time, or in batches that
/// a multi-buffer kernel hashes side by side (`io::lanes`).
pub enum Work<F, G> {
    /// `F(item, state) -> result`, one item per call.
    OneByOne(F),
    /// `G(items, state, out)`, delivering each item's result through
    /// `out` (in any order, by index), in batches as `batching` says.
    Batches(Batching, G),
}

/// The one entry to the scheduler for hash mode and check mode: runs
/// every item `producer` yields on `jobs` threads as `work` says, with a
/// window of [`WINDOW_PER_JOB`] results per thread, and passes each result
/// to `emit` in production order ([`run_ordered`],
/// [`run_ordered_batched`]). Returns the number of results lost (0 unless
/// the scheduler failed).
///
/// `held`, where given, is how the producer says what each item holds
/// ([`Held`]): the items waiting in the window then hold at most
/// [`HELD_BUDGET`] bytes between them (beside the first).
pub fn run_work<W, R, S, P, F, G, E>(
    jobs: usize,
    work: Work<F, G>,
    producer: P,
    emit: E,
    held: Option<&Held>,
) -> usize
where
    W: Send,
    R: Send,
    P: FnMut() -> Option<Item<W, R>> + Send,
    S: WorkerState,
    F: Fn(W, &mut S) -> R + Sync,
    G: Fn(Vec<W>, &mut S, &mut dyn Deliver<R>) + Sync,
    E: FnMut(R, bool) + Send,
{
    let window = jobs.max(1) * WINDOW_PER_JOB;
    match work {
        Work::OneByOne(f) => run_ordered(jobs, window, producer, f, emit, held),
        Work::Batches(batching, g) => run_ordered_batched(jobs, window, batching, producer, g, emit, held),
    }
}

/// Runs every item `producer` yields, on `jobs` threads (the caller's
/// included), and passes each result to `emit` in production order.
///
/// `emit` gets each result and whether more results follow at once (false
/// for the last of those ready now: the moment to flush output, so that a
/// reader sees each result as soon as its turn comes, as GNU writes each
/// line when its file is done). `work` gets a reusable read buffer owned
/// by the calling thread. At most
/// `window` results wait for their turn; a thread that gets ahead of the
/// oldest unfinished item by that much waits. If a thread cannot be
/// started, the run goes on with fewer.
///
/// Returns the number of items whose result never reached `emit` (0 unless
/// something went wrong inside the scheduler: callers report it as an
/// error rather than let output go missing silently).
pub fn run_ordered<W, R, S, P, F, E>(
    jobs: usize,
    window: usize,
    producer: P,
    work: F,
    emit: E,
    held: Option<&Held>,
) -> usize
where
    W: Send,
    R: Send,
    P: FnMut() -> Option<Item<W, R>> + Send,
    S: WorkerState,
    F: Fn(W, &mut S) -> R + Sync,
    E: FnMut(R, bool) + Send,
{
    if jobs <= 1 {
        let (mut producer, mut emit) = (producer, emit);
        let mut buf = S::first();
        while let Some(item) = producer() {
            match item {
                Item::Work(w) => emit(work(w, &mut buf), false),
                Item::Done(r) => emit(r, false),
            }
        }
        return 0;
    }
    let batch_work = |ws: Vec<W>, buf: &mut S, out: &mut dyn Deliver<R>| {
        for (k, w) in ws.into_iter().enumerate() {
            out.deliver(k, work(w, buf));
        }
    };
    run_ordered_batched(
        jobs,
        window,
        Batching::ONE_BY_ONE,
        producer,
        batch_work,
        emit,
        held,
    )
}

/// Where a batch work function ([`run_ordered_batched`]) hands its results.
pub trait Deliver<R> {
    /// The result of work item `at` of the batch (its position among the
    /// work items handed over), in any order, exactly once per item.
    fn deliver(&mut self, at: usize, r: R);
    /// Passes the results delivered so far on now (those whose turn has
    /// come are written out): called before the work function does
    /// something that may wait on another process (opening a FIFO), so
    /// that a reader waiting for an earlier line is not kept waiting.
    /// Results are also passed on when the work function returns.
    fn flush(&mut self);
}

/// A [`Deliver`] over one closure: `Some((at, r))` delivers, `None` flushes.
pub struct DeliverFn<F>(pub F);

impl<R, F: FnMut(Option<(usize, R)>)> Deliver<R> for DeliverFn<F> {
    fn deliver(&mut self, at: usize, r: R) {
        (self.0)(Some((at, r)));
    }
    fn flush(&mut self) {
        (self.0)(None);
    }
}

/// How many work items a thread hands its work function at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batching {
    /// The fewest items a thread claims (it may get fewer at the end).
    pub min: usize,
    /// The most, claimed while items prove quick.
    pub max: usize,
    /// How many items the producer yields in all, where that is known
    /// ([`Batching::with_total`]): near the end, batches shrink.
    total: Option<usize>,
    /// The threads that share the items (set by [`run_ordered_batched`]).
    threads: usize,
}

impl Batching {
    /// One item per call; batches of up to 16 quick items are claimed
    /// under one lock, but still worked one at a time.
    pub const ONE_BY_ONE: Batching = Batching {
        min: 1,
        max: MAX_BATCH,
        total: None,
        threads: 1,
    };

    /// Batches for a work function that keeps `lanes` inputs in flight:
    /// at least `lanes` items, up to four times that while they are quick.
    pub fn lanes(lanes: usize) -> Batching {
        Batching {
            min: lanes.max(1),
            max: (lanes * 4).max(MAX_BATCH),
            total: None,
            threads: 1,
        }
    }

    /// The same batching for a producer that yields `total` items in all
    /// (an operand list; not a directory walk): once fewer remain than
    /// every thread's largest batch, a thread claims at most its share of
    /// what is left, `ceil(left / (2 * threads))` and no fewer than `min`
    /// (guided self-scheduling, Polychronopoulos and Kuck 1987), so the
    /// threads finish close together. Measured on 5,000 x 4 KiB files, two
    /// threads, batches of up to 64: the first thread to run out of work
    /// waited 70-410 µs for the other (median of eight runs 170 µs).
    pub fn with_total(self, total: usize) -> Batching {
        Batching {
            total: Some(total),
            ..self
        }
    }

    /// How many items to claim now: `batch` (the size items have earned),
    /// capped near the end as [`Batching::with_total`] says, when
    /// `produced` of them have been handed out already.
    fn claim(&self, batch: usize, produced: usize) -> usize {
        match self.total {
            Some(total) => {
                let share = total.saturating_sub(produced).div_ceil(2 * self.threads.max(1));
                batch.min(share.max(self.min))
            }
            None => batch,
        }
    }
}

/// [`run_ordered`] with a work function that takes a batch of work items
/// at once, as `batching` sizes them (a lane scheduler hashes them side by
/// side), and hands each result to its [`Deliver`] argument, with the
/// item's position in the batch, in any order. The results of a batch are
/// passed on together when the work function returns or calls
/// [`Deliver::flush`] (one lock and one write for many small files). Items
/// the producer has already done pass through in their place. With one job,
/// batches are still formed, so that a single thread fills its lanes too.
/// With batches of more than one item, the window is raised to at least
/// `(jobs + 1) * 2 * batching.max` items, so that a thread ahead of the
/// others can claim another batch while theirs are hashed.
///
/// # Panics
/// When `work` does not deliver exactly one result per item (a bug in the
/// caller).
pub fn run_ordered_batched<W, R, S, P, F, E>(
    jobs: usize,
    window: usize,
    batching: Batching,
    producer: P,
    work: F,
    emit: E,
    held: Option<&Held>,
) -> usize
where
    W: Send,
    R: Send,
    P: FnMut() -> Option<Item<W, R>> + Send,
    S: WorkerState,
    F: Fn(Vec<W>, &mut S, &mut dyn Deliver<R>) + Sync,
    E: FnMut(R, bool) + Send,
{
    let mut producer = producer;
    let mut emit = emit;
    let batching = Batching {
        threads: jobs.max(1),
        ..batching
    };
    if jobs <= 1 {
        let mut buf = S::first();
        let mut claimed: Vec<Item<W, R>> = Vec::with_capacity(batching.max);
        loop {
            // Up to `max` items, of which `min`..`max` are work.
            let mut works = 0;
            let mut bytes = 0usize;
            while claimed.len() < batching.max.max(1) * 2 && works < batching.max && bytes < HELD_BUDGET {
                match producer() {
                    None => break,
                    Some(item) => {
                        bytes = bytes.saturating_add(held.map_or(0, Held::take));
                        works += usize::from(matches!(item, Item::Work(_)));
                        claimed.push(item);
                    }
                }
            }
            if claimed.is_empty() {
                return 0;
            }
            // On each flush, emit the results whose turn has come.
            let mut pending: Vec<Option<R>> = (0..claimed.len()).map(|_| None).collect();
            let mut next = 0;
            work_batch(
                &mut claimed,
                &work,
                &mut buf,
                &mut DeliverFn(|op: Option<(usize, R)>| match op {
                    Some((at, r)) => pending[at] = Some(r),
                    None => {
                        while let Some(r) = pending.get_mut(next).and_then(Option::take) {
                            let more = pending.get(next + 1).is_some_and(Option::is_some);
                            emit(r, more);
                            next += 1;
                        }
                    }
                }),
            );
        }
    }
    // Room for every thread's batch in flight and one more batch each: a
    // thread that finished a later batch claims its next while an earlier
    // one is still being hashed. With the window at 64 per job and batches
    // of 64 (16 lanes x 4), two threads filled it between them, and the
    // one ahead slept in `room.wait` until the other's batch was written
    // (md5 on 5,000 files of 4 KiB, two threads: 16 such sleeps a run).
    let batches_room = if batching.max > 1 {
        (jobs + 1) * 2 * batching.max
    } else {
        0
    };
    let window = window.max(jobs).max(batches_room);
    // Room for the whole window where memory allows; under a tight
    // `ulimit -v` the slots grow as they are used instead (a window of
    // 384 results took 672 KiB at once and aborted the run).
    let mut slots = VecDeque::new();
    let _ = slots.try_reserve(window);
    let state = Mutex::new(State {
        producer,
        exhausted: false,
        produced: 0,
        emitted: 0,
        slots,
        weights: VecDeque::new(),
        held: 0,
        emitting: false,
        waiting: 0,
        _w: std::marker::PhantomData,
    });
    let room = Condvar::new();
    let emit = Mutex::new(emit);
    let worker = |buf: S, first_claimed: Option<&mut dyn FnMut()>| {
        worker_loop(
            &state,
            &room,
            &emit,
            &work,
            window,
            batching,
            held,
            buf,
            first_claimed,
        )
    };
    // The caller's own buffer first: it must exist (as in a one-job run);
    // the other threads' buffers are taken only if memory allows.
    let own = S::first();
    std::thread::scope(|s| {
        // The other threads start once the caller has claimed the first
        // items, and only if more may follow: the first input is always
        // read by the calling thread (as in GNU, which has no other: a
        // tracer following that thread alone, `strace -P FILE -e
        // fault=...` in GNU's tests/cksum/cksum-c.sh, sees its reads),
        // and a run whose first claim took every item starts none.
        let mut start_others = || {
            let here = crate::os::current_cpu();
            let mut started = 0;
            for _ in 1..jobs {
                // Where memory is short (a thread stack or a buffer cannot be
                // had), the run goes on with the threads it has.
                let Some(buf) = S::another() else {
                    break;
                };
                // The check and the stack's mapping together (see `budgeted`).
                let spawned = budgeted(WORKER_STACK + (1 << 20), || {
                    if !headroom() {
                        return None;
                    }
                    std::thread::Builder::new()
                        .name("mhash-worker".into())
                        .stack_size(WORKER_STACK)
                        .spawn_scoped(s, move || {
                            crate::os::leave_cpu(here);
                            worker(buf, None);
                        })
                        .ok()
                });
                if spawned.is_none() {
                    break;
                }
                started += 1;
            }
            if started > 0 {
                crate::os::let_run();
            }
        };
        worker(own, Some(&mut start_others));
    });
    let st = lock(&state);
    st.produced - st.emitted
}

/// Runs the work items of `claimed` (drained) through `work` as one batch
/// and delivers every result, work and done, to `out` with its position in
/// `claimed`, then flushes `out`.
fn work_batch<W, R, S, F>(claimed: &mut Vec<Item<W, R>>, work: &F, buf: &mut S, out: &mut dyn Deliver<R>)
where
    F: Fn(Vec<W>, &mut S, &mut dyn Deliver<R>),
{
    let mut ws = Vec::new();
    let mut work_at = Vec::new();
    for (at, item) in claimed.drain(..).enumerate() {
        match item {
            Item::Work(w) => {
                work_at.push(at);
                ws.push(w);
            }
            Item::Done(r) => out.deliver(at, r),
        }
    }
    if !ws.is_empty() {
        let mut delivered = vec![false; ws.len()];
        let mut inner = DeliverFn(|op: Option<(usize, R)>| match op {
            Some((k, r)) => {
                assert!(
                    !std::mem::replace(&mut delivered[k], true),
                    "one result per work item"
                );
                out.deliver(work_at[k], r);
            }
            None => out.flush(),
        });
        work(ws, buf, &mut inner);
        assert!(delivered.iter().all(|&d| d), "one result per work item");
    }
    out.flush();
}

/// Address space kept free for everything a run allocates on the way
/// (names, lines, the reorder window, the C library's own): 8 MiB. Threads
/// and buffers are only added while this much stays free, so that no
/// small allocation later fails (Rust aborts the process when one does).
pub const MEMORY_RESERVE: usize = 8 << 20;

/// Bytes of memory this process may still map under its `RLIMIT_AS`
/// (`ulimit -v`) and `RLIMIT_DATA` (`ulimit -d`), the smaller of the two
/// (see `os::address_space_left`); `None` when there is no limit.
pub fn address_space_left() -> Option<usize> {
    crate::os::address_space_left()
}

/// True when `bytes` more of address space can be had and
/// [`MEMORY_RESERVE`] still stays free (always true without a limit).
pub fn fits(bytes: usize) -> bool {
    address_space_left().is_none_or(|left| left >= bytes.saturating_add(MEMORY_RESERVE))
}

/// Runs `alloc` (which maps `bytes` or so: a buffer, a thread's stack)
/// only if [`fits`] says `bytes` can be had, one caller at a time: threads
/// that check and allocate at once could each see the same room free.
/// `None` when it does not fit or `alloc` gives nothing.
pub fn budgeted<T>(bytes: usize, alloc: impl FnOnce() -> Option<T>) -> Option<T> {
    static BUDGET: Mutex<()> = Mutex::new(());
    let _one_at_a_time = lock(&BUDGET);
    if !fits(bytes) {
        return None;
    }
    alloc()
}

/// True when a thread started now (its stack, its buffer having been
/// taken) leaves [`MEMORY_RESERVE`] free, and 1 MiB more of address space
/// can still be had: the thread will find memory for what the C library
/// allocates for it (glibc aborts the process when it cannot register a
/// thread's TLS destructors). The probe is mapped untouched and freed at
/// once.
pub(crate) fn headroom() -> bool {
    if !fits(WORKER_STACK + (1 << 20)) {
        return false;
    }
    let layout = std::alloc::Layout::from_size_align(1 << 20, 4096).expect("valid layout");
    // SAFETY: a non-zero-size layout; the block is freed with the same layout.
    unsafe {
        let p = std::alloc::alloc(layout);
        if p.is_null() {
            return false;
        }
        std::alloc::dealloc(p, layout);
    }
    true
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic elsewhere is a bug that aborts the process (panic = "abort"
    // in release); in tests, carry on with the data as it is.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One thread's loop: claim items, work them, store and emit results.
/// `first_claimed` (the calling thread's) runs once, after the first
/// claim, unless that claim took every item.
#[allow(clippy::too_many_arguments)]
fn worker_loop<W, R, S, P, F, E>(
    state: &Mutex<State<W, R, P>>,
    room: &Condvar,
    emit: &Mutex<E>,
    work: &F,
    window: usize,
    batching: Batching,
    held: Option<&Held>,
    mut buf: S,
    mut first_claimed: Option<&mut dyn FnMut()>,
) where
    P: FnMut() -> Option<Item<W, R>>,
    F: Fn(Vec<W>, &mut S, &mut dyn Deliver<R>),
    E: FnMut(R, bool),
{
    // Items are claimed in batches while they prove quick (small files),
    // so that hand-off costs (a lock, a wake-up) stay small beside the
    // hashing; one at a time once they take longer (large files), so that
    // no thread sits on a batch while others idle.
    let mut batch = batching.min;
    let mut claimed: Vec<Item<W, R>> = Vec::with_capacity(batching.max);
    let mut done: Vec<(usize, R)> = Vec::with_capacity(batching.max);
    loop {
        // Claim the next items, waiting while the window is full; they
        // are consecutive, from index `first`.
        let first = {
            let mut st = lock(state);
            loop {
                if st.exhausted {
                    return;
                }
                if st.produced < st.emitted + window && (st.produced == st.emitted || st.held < HELD_BUDGET) {
                    break;
                }
                st.waiting += 1;
                st = room.wait(st).unwrap_or_else(|e| e.into_inner());
                st.waiting -= 1;
            }
            let room_left = st.emitted + window - st.produced;
            let first = st.produced;
            for _ in 0..batching.claim(batch, first).min(room_left) {
                if !claimed.is_empty() && st.held >= HELD_BUDGET {
                    break;
                }
                match (st.producer)() {
                    None => {
                        st.exhausted = true;
                        room.notify_all();
                        break;
                    }
                    Some(item) => {
                        let w = held.map_or(0, Held::take);
                        st.produced += 1;
                        st.slots.push_back(None);
                        st.weights.push_back(w);
                        st.held = st.held.saturating_add(w);
                        claimed.push(item);
                    }
                }
            }
            first
        };
        if claimed.is_empty() {
            return;
        }
        if let Some(hook) = first_claimed.take() {
            // The producer's end is known only once it returns None: a
            // single item still starts the others, which find nothing.
            if !lock(state).exhausted {
                hook();
            }
        }
        let started = std::time::Instant::now();
        let n = claimed.len();
        work_batch(
            &mut claimed,
            work,
            &mut buf,
            &mut DeliverFn(|op: Option<(usize, R)>| match op {
                Some((at, r)) => done.push((first + at, r)),
                None => store_and_emit(state, room, emit, done.drain(..)),
            }),
        );
        let per_item = started.elapsed() / n as u32;
        batch = if per_item < QUICK_ITEM {
            (batch * 2).min(batching.max)
        } else {
            batching.min
        };
    }
}

/// Stores `results` (index, result) in their slots; if the oldest one's
/// turn has come and no thread is emitting, emits every result that is
/// ready, in order.
fn store_and_emit<W, R, P, E>(
    state: &Mutex<State<W, R, P>>,
    room: &Condvar,
    emit: &Mutex<E>,
    results: impl Iterator<Item = (usize, R)>,
) where
    E: FnMut(R, bool),
{
    let mut results = results.peekable();
    if results.peek().is_none() {
        return;
    }
    let mut st = lock(state);
    for (idx, result) in results {
        let at = idx - st.emitted;
        st.slots[at] = Some(result);
    }
    if st.emitting || st.slots.front().is_none_or(|s| s.is_none()) {
        return;
    }
    st.emitting = true;
    loop {
        let mut ready = Vec::new();
        while st.slots.front().is_some_and(|s| s.is_some()) {
            ready.push(st.slots.pop_front().flatten().expect("checked above"));
            let w = st.weights.pop_front().unwrap_or(0);
            st.held = st.held.saturating_sub(w);
            st.emitted += 1;
        }
        if ready.is_empty() {
            st.emitting = false;
            break;
        }
        if st.waiting > 0 {
            room.notify_all();
        }
        drop(st);
        let mut e = lock(emit);
        let last = ready.len() - 1;
        for (i, r) in ready.into_iter().enumerate() {
            e(r, i < last);
        }
        drop(e);
        st = lock(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worker state for tests: nothing to own.
    struct Scratch;

    impl WorkerState for Scratch {
        fn first() -> Self {
            Scratch
        }
        fn another() -> Option<Self> {
            Some(Scratch)
        }
    }

    fn run(jobs: usize, window: usize, n: usize) -> Vec<usize> {
        let mut next = 0usize;
        let producer = move || {
            if next == n {
                return None;
            }
            next += 1;
            Some(if next.is_multiple_of(7) {
                Item::Done(next * 10)
            } else {
                Item::Work(next)
            })
        };
        let mut out = Vec::new();
        let lost = run_ordered(
            jobs,
            window,
            producer,
            |w: usize, _buf: &mut Scratch| {
                // Uneven work so that items finish out of order.
                let spin = (w * 7919) % 5000;
                let mut x = 0u64;
                for i in 0..spin {
                    x = x.wrapping_add(std::hint::black_box(i as u64));
                }
                std::hint::black_box(x);
                w * 10
            },
            |r, _more| out.push(r),
            None,
        );
        assert_eq!(lost, 0);
        out
    }

    /// Items that each hold half of [`HELD_BUDGET`]: at most two wait in
    /// the window at once, and as many may be in the emitter's hands (out
    /// of the window, not yet written), on any number of threads, one by
    /// one or in batches; all in order.
    #[test]
    fn held_bytes_bound_the_window() {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        for jobs in [1, 2, 4] {
            for batching in [Batching::ONE_BY_ONE, Batching::lanes(8)] {
                let held = Held::default();
                let (produced, emitted, most) =
                    (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
                let producer = || {
                    let n = produced.load(SeqCst);
                    if n == 200 {
                        return None;
                    }
                    produced.store(n + 1, SeqCst);
                    most.fetch_max(n + 1 - emitted.load(SeqCst), SeqCst);
                    held.note(HELD_BUDGET / 2);
                    Some(Item::Work(n))
                };
                let mut out = Vec::new();
                let lost = run_ordered_batched(
                    jobs,
                    jobs * 64,
                    batching,
                    producer,
                    |ws: Vec<usize>, _buf: &mut Scratch, out: &mut dyn Deliver<usize>| {
                        std::thread::sleep(std::time::Duration::from_micros(200));
                        for (k, w) in ws.into_iter().enumerate() {
                            out.deliver(k, w);
                        }
                    },
                    |r, _more| {
                        emitted.fetch_add(1, SeqCst);
                        out.push(r)
                    },
                    Some(&held),
                );
                assert_eq!(lost, 0);
                assert_eq!(out, (0..200).collect::<Vec<_>>(), "jobs {jobs} {batching:?}");
                let most = most.load(SeqCst);
                assert!(most <= 4, "jobs {jobs} {batching:?}: {most} items held at once");
            }
        }
    }

    #[test]
    fn batches_shrink_to_a_share_of_what_is_left_near_the_end() {
        let b = Batching {
            threads: 2,
            ..Batching::lanes(16).with_total(5000)
        };
        // Far from the end: the batch the items earned (at most 64).
        assert_eq!(b.claim(64, 0), 64);
        // 200 left, two threads: a quarter each, rounded up.
        assert_eq!(b.claim(64, 4800), 50);
        // Never under `min` (16), even with fewer left (the producer ends).
        assert_eq!(b.claim(64, 4990), 16);
        assert_eq!(Batching::lanes(16).claim(64, 4990), 64);
    }

    #[test]
    fn batched_results_come_in_production_order() {
        for jobs in [1, 2, 3, 8] {
            for batching in [Batching::ONE_BY_ONE, Batching::lanes(2), Batching::lanes(8)] {
                let mut next = 0usize;
                let producer = move || {
                    if next == 3000 {
                        return None;
                    }
                    next += 1;
                    Some(if next.is_multiple_of(5) {
                        Item::Done(next * 10)
                    } else {
                        Item::Work(next)
                    })
                };
                let mut out = Vec::new();
                let lost = run_ordered_batched(
                    jobs,
                    jobs * 64,
                    batching,
                    producer,
                    |ws: Vec<usize>, _buf: &mut Scratch, out: &mut dyn Deliver<usize>| {
                        assert!(ws.len() <= batching.max);
                        // Finish in reverse inside the batch: order is
                        // restored by position.
                        for (k, w) in ws.iter().enumerate().rev() {
                            out.deliver(k, w * 10);
                            if k % 3 == 0 {
                                out.flush();
                            }
                        }
                    },
                    |r, _more| out.push(r),
                    None,
                );
                assert_eq!(lost, 0);
                let want: Vec<usize> = (1..=3000).map(|i| i * 10).collect();
                assert_eq!(out, want, "jobs {jobs} {batching:?}");
            }
        }
    }

    #[test]
    fn results_come_in_production_order() {
        let want: Vec<usize> = (1..=2000).map(|i| i * 10).collect();
        for jobs in [1, 2, 3, 8] {
            for window in [1, 2, 16, 1000] {
                assert_eq!(run(jobs, window, 2000), want, "jobs {jobs} window {window}");
            }
        }
        assert!(run(4, 8, 0).is_empty());
    }
}
