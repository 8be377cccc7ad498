//! Hash mode: one checksum line (or JSON record) per input, in argument
//! order, the inputs hashed in parallel (`-j`), several at once in the
//! lanes of a multi-buffer kernel where the algorithm has one, one large
//! input split across threads where its checksum allows.

use crate::algo::cpu::Feature;
use crate::algo::{AlgoKind, Algorithm};
use crate::config::{Common, GnuCompat, HashJob, Personality};
use crate::io::{self, Digested, ReadBuf};
use crate::report::{Console, HashReport};
use crate::sched::{self, Item};
use crate::text::quote;
use crate::walk::Inputs;
use std::ffi::{OsStr, OsString};

/// One input's name, what reading it gave, and (under `--state`) how the
/// state served it.
type Res = (OsString, std::io::Result<Digested>, Option<Seen>);

/// How an input met the state file (`--state`).
enum Seen {
    /// Its digests came from the state; the oldest was read at this time
    /// (nanoseconds since the Unix epoch).
    Taken(i64),
    /// It was read, from a regular file whose metadata was `meta` before
    /// and after the read, which began at `read_ns`.
    Read {
        meta: crate::state::Meta,
        read_ns: i64,
        rescanned: bool,
    },
    /// It was read but gets no record (not a regular file, or changed
    /// while it was read).
    Unrecorded,
}

/// Hashes `name` under `--state`: its digests from `state` where a record
/// there matches the file's metadata (no byte read), else by `hash`.
fn hash_with_state(
    name: &OsStr,
    algos: &[Algorithm],
    state: &crate::state::Loading,
    hash: impl FnOnce() -> std::io::Result<Digested>,
) -> (std::io::Result<Digested>, Seen) {
    use crate::state::{Meta, now_ns};
    let before = match std::fs::metadata(name) {
        Ok(md) if md.is_file() => Meta::of(&md),
        _ => return (hash(), Seen::Unrecorded),
    };
    let bytes = crate::os::os_bytes(name);
    let key = crate::state::key_of(&bytes);
    if let Some((digest, oldest)) = state.lookup(&key, algos, &before) {
        let d = Digested {
            digest,
            size: before.size,
            method: io::Method::Read,
            lane_kernel: None,
            store: None,
            io_trial: None,
        };
        return (Ok(d), Seen::Taken(oldest));
    }
    let rescanned = state.rescanning(&key);
    // Before the read (after the `stat`: a file changed between the two is
    // caught by the `stat` after the read).
    let read_ns = now_ns();
    let r = hash();
    let same = match (&r, std::fs::metadata(name)) {
        (Ok(d), Ok(md)) => Meta::of(&md) == before && d.size == before.size,
        _ => false,
    };
    let seen = if same {
        Seen::Read {
            meta: before,
            read_ns,
            rescanned,
        }
    } else {
        Seen::Unrecorded
    };
    (r, seen)
}

/// An operand to hash: its name and, for one that reads standard input
/// (`-`, `/dev/stdin`, `/dev/fd/0`, `/proc/self/fd/0`), its turn among
/// those (they are read one at a time, in argument order).
struct Operand {
    name: OsString,
    stdin_turn: Option<usize>,
}

/// True for an operand that reads standard input ([`crate::os::reads_stdin`]).
fn reads_stdin(name: &OsStr) -> bool {
    crate::os::reads_stdin(&crate::os::os_bytes(name))
}

/// Whose turn it is to read standard input (see [`Operand::stdin_turn`]).
struct StdinTurns {
    next: std::sync::Mutex<usize>,
    cv: std::sync::Condvar,
}

impl StdinTurns {
    /// Runs `f` when `turn` comes (every earlier turn done), then passes
    /// the turn on.
    fn take<T>(&self, turn: usize, f: impl FnOnce() -> T) -> T {
        let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
        while *next != turn {
            next = self.cv.wait(next).unwrap_or_else(|e| e.into_inner());
        }
        drop(next);
        let r = f();
        *self.next.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.cv.notify_all();
        r
    }
}

/// Hashes every input of `job`, reporting each in argument order.
/// Returns true when every input was hashed.
pub fn run(con: &mut Console, common: &Common, mut job: HashJob) -> bool {
    if let Some(tree) = &job.tree {
        return run_tree(con, &job, tree);
    }
    // The operands go to the scheduler's producer as they are.
    let files = std::mem::take(&mut job.inputs.files);
    let operands = files.len();
    let job = &job;
    let algos = &job.algos[..];
    let algo = algos[0];
    // GNU cksum's --debug report of its CRC code comes when the first
    // opened file is summed (crc_sum_stream's one-time choice), after an
    // earlier operand's error; crc32b's on every file (crc32b_sum_stream).
    let mut crc_debug = (job.debug && matches!(algo.kind, AlgoKind::Crc | AlgoKind::Crc32b))
        .then(|| crc_debug_lines(common.compat, algo.kind));
    let crc_debug_each = algo.kind == AlgoKind::Crc32b;
    let per_file_debug = job.debug && common.personality == Personality::Mhash;
    // -r and --files-from may yield any number of inputs.
    let expands = job.inputs.walk.is_some() || !job.inputs.files_from.is_empty();
    // No more threads than operands, where their number is known.
    let jobs = if expands {
        sched::effective_jobs(common.jobs)
    } else if files.len() > 1 {
        sched::effective_jobs(common.jobs).min(files.len())
    } else {
        1
    };
    let opts = io::InputOpts {
        mode: common.io,
        // GNU cksum 9.1's CRC loop ignored read errors.
        read_errors_end_input: common.compat == GnuCompat::V9_1 && algo.kind == AlgoKind::Crc,
        // One file alone may use every thread itself (the CRCs split it).
        threads: (files.len() == 1 && !expands).then_some(common.jobs),
    };
    if let Some(m) = job.store.as_ref().and_then(|s| s.multipart()) {
        store_part_warning(con, m.part_size);
    }
    let hash = |name: &OsString, buf: &mut ReadBuf| match &job.store {
        Some(store) => io::digest_store(name, store, buf),
        None => io::digest_inputs(name, algos, buf, &opts),
    };
    let mut next = Inputs::new(
        files,
        &job.inputs.files_from,
        job.inputs.null,
        job.inputs.walk.clone(),
    );
    let progress = con.progress().cloned();
    let started = |name: &OsStr| {
        if let Some(p) = &progress {
            p.file_started(name, &quote::quotef(&crate::os::os_bytes(name)));
        }
    };
    // Operands that read standard input take turns, in argument order
    // (`md5sum /dev/stdin -`: the first gets the data, as in GNU), each
    // when its turn comes, after the lines before it are written.
    let turns = StdinTurns {
        next: std::sync::Mutex::new(0),
        cv: std::sync::Condvar::new(),
    };
    let mut stdin_operands = 0;
    // Output that cannot be written ends the run: no more inputs are
    // taken (`--files-from -` without end into /dev/full stops). Not
    // under a GNU name: GNU 9.1 and 9.4 hash every operand and report
    // the later ones' errors before "write error"; GNU 9.11's lines exit
    // at the first failed write (`Console::set_exits_on_write_error`).
    // GNU writes each `\n`-ended line when its file is done; `-z` lines
    // stay in stdio's buffer (mhash's own face writes each at once).
    let flushes_each = !(job.format.zero && common.personality.is_gnu());
    let stops_on_write_error = matches!(common.personality, Personality::Mhash | Personality::B3sum);
    let output_failed = std::sync::atomic::AtomicBool::new(false);
    // --shard: each input's place among all inputs (its key in the
    // shard's output), in the order the results come back; the inputs of
    // other shards are counted and skipped.
    let shard = common.shard;
    let keys = std::sync::Mutex::new(std::collections::VecDeque::new());
    let mut walked: u64 = 0;
    let producer = || {
        if output_failed.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let mut item = next.next()?;
        if let Some(s) = shard {
            loop {
                let name = match &item {
                    Ok(n) | Err((n, _)) => n,
                };
                walked += 1;
                if s.owns(&next.shard_key(name)) {
                    break;
                }
                item = next.next()?;
            }
            keys.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push_back(walked - 1);
        }
        Some(match item {
            Err((name, e)) => Item::Done((name, Err(e), None)),
            Ok(name) => {
                let stdin_turn = reads_stdin(&name).then(|| {
                    stdin_operands += 1;
                    stdin_operands - 1
                });
                Item::Work(Operand { name, stdin_turn })
            }
        })
    };
    // Reads a standard-input operand when its turn comes.
    let hash_stdin = |op: &Operand, buf: &mut ReadBuf| {
        let turn = op.stdin_turn.expect("a standard-input operand");
        started(&op.name);
        turns.take(turn, || hash(&op.name, buf))
    };
    let mut report = crate::report::hash_report(job.json, job.format);
    let mut ok = true;
    // The state loads on a thread of its own while the walk starts; the
    // first lookup (and the first result written) waits for it.
    let state = job
        .state
        .as_ref()
        .map(|sf| std::sync::Mutex::new(crate::state::State::load(&sf.path, sf.rescan)));
    let state = state.as_ref();
    let loading = state.map(|st| st.lock().unwrap_or_else(|e| e.into_inner()).loading());
    let loading = loading.as_deref();
    let mut garbled_said = false;
    let mut state_error = false;
    let emit = |(name, r, seen): Res, more: bool| {
        if !garbled_said {
            garbled_said = true;
            state_garbled(con, &job.state, loading);
        }
        if shard.is_some()
            && let Some(k) = keys.lock().unwrap_or_else(|e| e.into_inner()).pop_front()
            && let Some(sink) = con.shard()
        {
            sink.set_key(0, k);
        }
        let name = crate::os::os_bytes(&name);
        let taken = matches!(seen, Some(Seen::Taken(_)));
        if let (Some(st), Some(seen)) = (state, &seen) {
            let mut st = st.lock().unwrap_or_else(|e| e.into_inner());
            match (seen, &r) {
                (Seen::Taken(at), _) => {
                    st.counts.taken += 1;
                    st.counts.oldest_ns = Some(st.counts.oldest_ns.map_or(*at, |o| o.min(*at)));
                }
                (
                    Seen::Read {
                        meta,
                        read_ns,
                        rescanned,
                    },
                    Ok(d),
                ) => {
                    st.counts.read += 1;
                    st.counts.rescanned += u64::from(*rescanned);
                    let mut rest = &d.digest[..];
                    let key = crate::state::key_of(&name);
                    for &a in algos {
                        let (digest, after) = rest.split_at(a.digest_len().min(rest.len()));
                        rest = after;
                        st.record(&key, a, digest, *meta, *read_ns);
                    }
                }
                (_, Ok(_)) => st.counts.read += 1,
                (_, Err(_)) => {}
            }
            if let Err(e) = st.checkpoint()
                && !state_error
            {
                state_error = true;
                state_write_error(con, &job.state, &e);
            }
        }
        if taken && per_file_debug {
            con.error_msg(
                &[
                    quote::quotef(&name),
                    b": taken from the state file (not read)".to_vec(),
                ]
                .concat(),
            );
        }
        if let Some(lines) = &crc_debug
            && opened(&r)
        {
            for l in lines {
                con.error_msg(l.as_bytes());
            }
            if !crc_debug_each {
                crc_debug = None;
            }
        }
        ok &= match (&job.store, r) {
            (Some(store), Ok(d)) if d.store.is_some() => {
                if let Some(sd) = &d.store {
                    report.store(con, &name, store, sd, d.size);
                }
                true
            }
            (_, r) => emit_one(con, &mut *report, &name, algos, r, per_file_debug && !taken),
        };
        // GNU writes each checksum line when its file is done.
        if !more && flushes_each {
            con.flush_now();
        }
        if stops_on_write_error && con.write_failed() {
            output_failed.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    };
    // Lane kernels take one algorithm; a list reads each file once instead.
    // Under --state each file is looked up first: one at a time.
    let lanes = if algos.len() == 1 && job.store.is_none() && job.state.is_none() {
        io::lanes::lane_count(algo, &opts)
    } else {
        None
    };
    // Several files at once in the lanes of a multi-buffer kernel, where
    // the algorithm has one here (see `io::lanes`); else one at a time
    // (lazily: each input is opened only when its turn comes).
    let lane_choice = std::sync::atomic::AtomicBool::new(false);
    let work = match lanes {
        Some(l) => {
            // The lane kernels are timed (where the run is large enough) by the
            // first thread to reach its first batch, while the other threads
            // start and hash their first batches with the table's first choice
            // (each batch takes the kernel chosen when it starts: a digest does
            // not depend on the kernel). Timed before the scheduler, as it was
            // once, the timing (about 0.2 ms) and the threads' start came one
            // after the other; with the others waiting for the choice, they
            // idled 0.2 ms. The batch sizes come from the table's first choice
            // (`lanes` above); a kernel chosen with fewer lanes refills its
            // lanes within a batch.
            let work = |ops: Vec<Operand>, buf: &mut ReadBuf, out: &mut dyn sched::Deliver<Res>| {
                if !lane_choice.swap(true, std::sync::atomic::Ordering::Relaxed) {
                    choose_lane_kernel(algo, (!expands).then_some(operands));
                }
                // The files between standard-input operands go to the
                // lanes; each of those is read alone, in its place.
                let mut from = 0;
                while from < ops.len() {
                    let to = (from..ops.len())
                        .find(|&k| ops[k].stdin_turn.is_some())
                        .unwrap_or(ops.len());
                    let names = &ops[from..to];
                    let inputs: Vec<(&OsStr, Algorithm)> =
                        names.iter().map(|o| (o.name.as_os_str(), algo)).collect();
                    let mut sink =
                        sched::DeliverFn(|op: Option<(usize, std::io::Result<Digested>)>| match op {
                            Some((i, r)) => out.deliver(from + i, (names[i].name.clone(), r, None)),
                            None => out.flush(),
                        });
                    io::lanes::digest_batch(&inputs, buf, &opts, &mut |i| started(&names[i].name), &mut sink);
                    if let Some(op) = ops.get(to) {
                        out.flush();
                        out.deliver(to, (op.name.clone(), hash_stdin(op, buf), None));
                    }
                    from = to + 1;
                }
            };
            io::lanes::reserve_descriptors(jobs);
            let batching = sched::Batching::lanes(l);
            let batching = if expands {
                batching
            } else {
                batching.with_total(operands)
            };
            sched::Work::Batches(batching, work)
        }
        None => {
            // One at a time: with one job, each result is written before
            // the next operand is produced and read; with several, a
            // standard-input operand waits only for its turn.
            let work = |op: Operand, buf: &mut ReadBuf| {
                if op.stdin_turn.is_some() {
                    let r = hash_stdin(&op, buf);
                    return (op.name, r, state.map(|_| Seen::Unrecorded));
                }
                started(&op.name);
                match loading {
                    None => {
                        let r = hash(&op.name, buf);
                        (op.name, r, None)
                    }
                    Some(st) => {
                        let (r, seen) = hash_with_state(&op.name, algos, st, || hash(&op.name, buf));
                        (op.name, r, Some(seen))
                    }
                }
            };
            sched::Work::OneByOne(work)
        }
    };
    let lost = sched::run_work(jobs, work, producer, emit, None);
    if lost > 0 {
        con.error_msg(format!("internal error: {lost} results were lost; rerun with -j1").as_bytes());
        ok = false;
    }
    if !garbled_said {
        state_garbled(con, &job.state, loading);
    }
    if let Some(st) = state {
        let mut st = st.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = st.save() {
            if !state_error {
                state_write_error(con, &job.state, &e);
            }
            state_error = true;
        }
        state_summary(con, &job.state, &st.counts);
        ok &= !state_error;
    }
    ok
}

/// "FILE: line N: CAUSE; ignoring the state file (every file is read)",
/// where the state file did not load (waits for the load).
fn state_garbled(
    con: &mut Console,
    sf: &Option<crate::config::StateFile>,
    loading: Option<&crate::state::Loading>,
) {
    let (Some(sf), Some(g)) = (sf, loading.and_then(|l| l.garbled())) else {
        return;
    };
    let mut msg = con.quotef(&crate::os::os_bytes(sf.path.as_os_str()));
    if g.line > 0 {
        msg.extend_from_slice(format!(": line {}", g.line).as_bytes());
    }
    msg.extend_from_slice(format!(": {}; ignoring the state file (every file is read)", g.cause).as_bytes());
    con.error_msg(&msg);
}

/// "FILE: cannot write the state: CAUSE" (once per run).
fn state_write_error(con: &mut Console, sf: &Option<crate::config::StateFile>, e: &std::io::Error) {
    let Some(sf) = sf else { return };
    let mut msg = con.quotef(&crate::os::os_bytes(sf.path.as_os_str()));
    msg.extend_from_slice(format!(": cannot write the state: {}", crate::os::strerror(e)).as_bytes());
    con.error_msg(&msg);
}

/// The summary of a `--state` run on standard error: how many digests
/// came from the state, how many files were read (and of those how many
/// for `--rescan`), and when the oldest digest taken was read.
fn state_summary(con: &mut Console, sf: &Option<crate::config::StateFile>, c: &crate::state::Counts) {
    let Some(sf) = sf else { return };
    let path = crate::os::os_bytes(sf.path.as_os_str());
    let counts = [c.taken, c.read, c.rescanned];
    // --shard: the counts go in the shard's end line; `mhash merge`
    // prints one summary of the counts summed.
    let sharded = con.shard().is_some();
    if let Some(s) = con.shard() {
        s.state(counts, c.oldest_ns, &path);
        s.mute(true);
    }
    let oldest = c.oldest_ns.map(|at| {
        (
            crate::state::iso_utc(at),
            crate::state::age(crate::state::now_ns() - at),
        )
    });
    crate::report::state_summary(con, &path, counts, oldest);
    if sharded && let Some(s) = con.shard() {
        s.mute(false);
    }
}

/// `--go-h1` / `--nar`: one digest per operand for the whole tree under
/// it, in argument order; an operand that fails is reported (its path
/// and the cause) and the others go on. Returns true when all succeeded.
fn run_tree(con: &mut Console, job: &HashJob, tree: &crate::config::TreeHash) -> bool {
    use crate::config::TreeHash;
    let mut report = crate::report::hash_report(job.json, job.format);
    let inputs = Inputs::new(
        job.inputs.files.clone(),
        &job.inputs.files_from,
        job.inputs.null,
        None,
    );
    let mut ok = true;
    for item in inputs {
        let name = match item {
            Ok(name) => name,
            Err((name, e)) => {
                con.error_io(&crate::os::os_bytes(&name), &e);
                ok = false;
                continue;
            }
        };
        let path = std::path::Path::new(&name);
        let r = match tree {
            TreeHash::GoH1 { prefix } => crate::tree::go_h1(path, prefix).map(|v| ("go-h1", v)),
            TreeHash::Nar(fmt) => {
                crate::tree::nar_sha256(path).map(|d| ("nar", crate::tree::encode_nar(*fmt, &d)))
            }
        };
        match r {
            Ok((kind, value)) => report.tree(con, &crate::os::os_bytes(&name), kind, &value),
            Err(e) => {
                let mut msg = con.quotef(&crate::os::os_bytes(e.path.as_os_str()));
                msg.extend_from_slice(b": ");
                msg.extend_from_slice(e.cause.as_bytes());
                con.error_msg(&msg);
                ok = false;
            }
        }
        if con.write_failed() {
            break;
        }
    }
    ok
}

/// Warns, once, of a part size S3 would refuse (parts of 5 MiB to 5 GiB,
/// the last one shorter): the checksum is computed with it all the same
/// (small parts keep tests short), but no real upload has it.
fn store_part_warning(con: &mut Console, part: u64) {
    use crate::algo::stores::{S3_MAX_PART, S3_MIN_PART};
    if !(S3_MIN_PART..=S3_MAX_PART).contains(&part) {
        con.error_msg(
            format!(
                "warning: --part-size {part}: S3 takes parts of 5 MiB to 5 GiB (but the last); \
                 computing with {part}-byte parts anyway"
            )
            .as_bytes(),
        );
    }
}

/// Reports one input: a line per algorithm of the list (the digests come
/// concatenated in list order), or its error. Returns true on success.
fn emit_one(
    con: &mut Console,
    report: &mut dyn HashReport,
    name: &[u8],
    algos: &[Algorithm],
    r: std::io::Result<Digested>,
    per_file_debug: bool,
) -> bool {
    match r {
        Ok(d) => {
            let mut rest = &d.digest[..];
            for &algo in algos {
                let (digest, after) = rest.split_at(algo.digest_len().min(rest.len()));
                rest = after;
                if per_file_debug {
                    con.error_msg(&debug_line(algo, name, &d));
                }
                report.digest(con, name, algo, digest, d.size);
            }
            true
        }
        Err(e) => {
            report.error(con, name, algos, &e);
            false
        }
    }
}

/// True when an input got as far as being read: hashed, or failed after
/// its open (GNU opens a directory and fails on its read, EISDIR).
fn opened(r: &std::io::Result<Digested>) -> bool {
    match r {
        Ok(_) => true,
        Err(e) => {
            use crate::os::ErrorClass::*;
            !matches!(
                crate::os::ErrorClass::of(e),
                Some(
                    NotFound
                        | PermissionDenied
                        | NotPermitted
                        | NotADirectory
                        | Loop
                        | NameTooLong
                        | NoDevice
                        | TooManyOpenFiles
                        | FileTableFull
                )
            )
        }
    }
}

/// GNU cksum `--debug`'s report of the CRC implementation, printed once
/// before the first CRC is computed: for `crc`, each probe GNU makes
/// (avx512, avx2, pclmul; vmull on ARM); for `crc32b`, the pclmul line only.
fn crc_debug_lines(compat: GnuCompat, kind: AlgoKind) -> Vec<&'static str> {
    let pclmul = Feature::Pclmul.enabled() && Feature::Avx.enabled();
    if kind == AlgoKind::Crc32b {
        // GNU probes pclmul for crc32b on x86-64 only (GL_CRC_X86_64_PCLMUL).
        if !cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
            return Vec::new();
        }
        return vec![if pclmul {
            "using pclmul hardware support"
        } else {
            "pclmul support not detected"
        }];
    }
    if compat == GnuCompat::V9_1 {
        return vec![if pclmul {
            "using pclmul hardware support"
        } else {
            "using generic hardware support"
        }];
    }
    let mut v = Vec::new();
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        if Feature::Avx512Vpclmul.enabled() {
            v.push("using avx512 hardware support");
            return v;
        }
        v.push("avx512 support not detected");
        if Feature::Avx2Vpclmul.enabled() {
            v.push("using avx2 hardware support");
            return v;
        }
        v.push("avx2 support not detected");
        v.push(if pclmul {
            "using pclmul hardware support"
        } else {
            "pclmul support not detected"
        });
    }
    #[cfg(target_arch = "aarch64")]
    {
        v.push(if Feature::ArmPmull.enabled() {
            "using vmull hardware support"
        } else {
            "vmull support not detected"
        });
    }
    let _ = pclmul;
    v
}

/// `mhash --debug`'s line for one input: which backend (or lane kernel,
/// `lanes`) and I/O method ran.
/// Smallest number of operands for which the lane kernels of their
/// algorithm are timed (`algo::lanes::choose_by_measurement`): 4,096. The
/// timing takes [`LANE_TRIAL_SECONDS`], under 1% of what 4,096 files of
/// 4 KiB cost on two cores (about 16 ms, 2026-12-04 Xeon VM).
const LANE_TRIAL_MIN: usize = 4096;

/// Time for timing the lane kernels of a run's algorithm, all together:
/// 150 µs.
const LANE_TRIAL_SECONDS: f64 = 150e-6;

/// Chooses the lane kernel for `algo` by measurement where the run is
/// large enough (`operands` known and at least [`LANE_TRIAL_MIN`], or any
/// run under `MHASH_CALIBRATE=always`; never under `never`).
fn choose_lane_kernel(algo: Algorithm, operands: Option<usize>) {
    use crate::algo::calibrate::{Mode, mode};
    let due = match mode() {
        Mode::Never => false,
        Mode::Always => true,
        Mode::Auto => operands.is_some_and(|n| n >= LANE_TRIAL_MIN),
    };
    if due {
        crate::algo::lanes::choose_by_measurement(algo, LANE_TRIAL_SECONDS);
    }
}

fn debug_line(algo: Algorithm, name: &[u8], d: &io::Digested) -> Vec<u8> {
    let (method, lanes) = (d.method, d.lane_kernel);
    let choice = algo.choice();
    let b = choice.backend;
    let how = if let Some(k) = lanes {
        format!("{k} lanes hardware support")
    } else if b.is_portable() {
        "portable software".to_string()
    } else if b.name() == "tuned-scalar" {
        "tuned scalar software".to_string()
    } else {
        format!("{} hardware support", b.name())
    };
    // Which of the algorithm's backends, and why (algo::calibrate): inside
    // the parentheses, so that the line still ends with the I/O method.
    let mut why = if lanes.is_none() {
        format!("; chosen by {}", choice.by.describe())
    } else if let Some(tried) = crate::algo::lanes::measured_choice(algo) {
        let parts: Vec<String> = tried.iter().map(|(k, mb)| format!("{k} {mb} MB/s")).collect();
        format!("; chosen by measurement: {}", parts.join(", "))
    } else {
        String::new()
    };
    // The I/O way, where a large input's was measured (io::Figures).
    if let Some(tried) = &d.io_trial {
        let parts: Vec<String> = tried.iter().map(|(way, mb)| format!("{way} {mb} MB/s")).collect();
        why.push_str(&format!("; I/O chosen by measurement: {}", parts.join(", ")));
    }
    let mut msg = quote::quotef(name);
    msg.extend_from_slice(format!(": {}: using {how} ({}{why}), {method}", algo.name(), b.source).as_bytes());
    msg
}
