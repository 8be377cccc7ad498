//! Backends chosen by measurement.
//!
//! The backend tables in `backends.rs` are ordered fastest first on the
//! CPUs they were measured on; on another core the order can be wrong
//! (BLAKE2b: scalar code beats blake2b_simd's AVX2 on AMD Zen 5). As the
//! Linux kernel does for its RAID-6 and XOR routines and OpenZFS for its
//! checksums (`chksum_bench`), an input large enough for it has every
//! usable backend of its algorithm timed on an in-memory buffer first, and
//! the fastest runs it. Everything else keeps the table's order, so
//! start-up and small inputs cost nothing more:
//!
//! - only runs of at least [`MIN_BYTES`], and only algorithms with two or
//!   more usable backends, are ever calibrated: one input whose size is
//!   known to be that large, or many inputs whose bytes, hashed so far
//!   ([`note_hashed`]) and about to be, add up to it ([`run_bytes`]; a
//!   run of 50,000 files of 4 KiB is as long as one file of 200 MB)
//!   (`MHASH_CALIBRATE=never` turns it off, `=always` times the backends
//!   for any input of known size: see [`Mode`]);
//! - each candidate is timed for about [`BUDGET`]: as many short trials
//!   (of at least [`MIN_TRIAL`], and 100 steps of the clock's measured
//!   granularity) as fit, and at least [`MIN_TRIALS`], the best kept;
//! - the calibration goes on past the table's first choice only if all of
//!   it costs under 1% of hashing the input (or the run so far) at that
//!   backend's measured speed ([`worth_it`]); that speed is measured once
//!   per algorithm and process, so a run that grows past the rule's
//!   threshold file by file does not time its first backend again for
//!   each file;
//! - a challenger replaces the table's first choice only when it is more
//!   than [`MARGIN`] faster ([`decide`]);
//! - once per algorithm and process; later inputs reuse the result.
//!
//! `MHASH_BACKEND=NAME` forces the backend of that name wherever the
//! algorithm has one and the CPU can run it (`MHASH_BACKEND=portable`
//! also turns every CPU feature off, see [`super::cpu`]).

use super::backends::Backend;
use super::{AlgoKind, Algorithm};
use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The smallest input, in bytes, for which a calibration is considered:
/// 32 MiB. Below it the 1% rule cannot hold for two candidates at the
/// speeds of the algorithms that have a choice of backends (two
/// candidates cost about 0.8 ms, [`cost_estimate`]: 1% of 80 ms, which is
/// 32 MiB at 420 MB/s; the slowest such backend measured here, the SHA-512
/// kernel, runs at 440 MB/s or more, md5 at 660 MB/s).
pub const MIN_BYTES: u64 = 32 << 20;

/// The most time spent timing one candidate: 300 µs.
pub const BUDGET: Duration = Duration::from_micros(300);

/// The shortest trial: 20 µs (and at least 100 clock steps).
pub const MIN_TRIAL: Duration = Duration::from_micros(20);

/// How much faster a challenger must be to replace the table's first
/// choice: 5% (measurements on a shared machine wobble by a few percent;
/// the table's order is the tie-break).
pub const MARGIN: f64 = 1.05;

/// The buffer each candidate hashes, in bytes: 16 KiB, in the L1 or L2
/// cache of every x86-64 and AArch64 core (a trial of the slowest backend
/// with a rival, about 300 MB/s, is then 55 µs: several fit the budget).
pub const BUFFER: usize = 16 << 10;

/// How the backend that runs an algorithm was chosen.
#[derive(Clone, Debug, PartialEq)]
pub enum ChosenBy {
    /// The table's order: the first backend this CPU can run (small or
    /// unsized inputs, one usable backend, or a calibration not worth it).
    Table,
    /// `MHASH_BACKEND=NAME`.
    Forced,
    /// Timed here: every usable backend's speed, in MB/s (10^6 B/s), in
    /// table order.
    Measured(Vec<(&'static str, f64)>),
    /// The portable backend, because the one chosen first (named here)
    /// computed a wrong digest of the self-test message
    /// (`backends::self_test`).
    SelfTestFailed(&'static str),
}

impl ChosenBy {
    /// How `--debug` and `--backends` say it: `table`, `MHASH_BACKEND`, or
    /// `measurement: avx2 812 MB/s, portable 1020 MB/s`.
    pub fn describe(&self) -> String {
        match self {
            ChosenBy::Table => "table".to_string(),
            ChosenBy::Forced => "MHASH_BACKEND".to_string(),
            ChosenBy::Measured(v) => {
                let parts: Vec<String> = v.iter().map(|(n, s)| format!("{n} {s:.0} MB/s")).collect();
                format!("measurement: {}", parts.join(", "))
            }
            ChosenBy::SelfTestFailed(name) => format!("portable: the self-test of {name} failed"),
        }
    }
}

/// A backend and how it was chosen.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The backend that runs the algorithm.
    pub backend: &'static Backend,
    /// Why it is that one.
    pub by: ChosenBy,
}

/// Which candidate wins, given each one's speed (any unit, larger is
/// faster; index 0 is the table's first choice): the fastest challenger
/// if it beats the first by more than [`MARGIN`], else the first. A speed
/// that is not a positive finite number never wins.
pub fn decide(speeds: &[f64]) -> usize {
    let ok = |s: f64| s.is_finite() && s > 0.0;
    let Some(&first) = speeds.first() else {
        return 0;
    };
    let best = speeds
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, s)| ok(**s))
        .max_by(|a, b| a.1.total_cmp(b.1));
    match best {
        Some((i, &s)) if !ok(first) || s > first * MARGIN => i,
        _ => 0,
    }
}

/// Whether timing `candidates` backends (at most [`BUDGET`] each) costs
/// under 1% of hashing `bytes` at `first_mb_s` MB/s, the table's first
/// choice's measured speed.
pub fn worth_it(bytes: u64, first_mb_s: f64, candidates: usize) -> bool {
    if !(first_mb_s.is_finite() && first_mb_s > 0.0) {
        return false;
    }
    let hashing = bytes as f64 / (first_mb_s * 1e6);
    cost_estimate(candidates) * 100.0 <= hashing
}

/// What timing `candidates` backends costs, in seconds: [`BUDGET`] each
/// and a third more (the warm-up and the last trial's overrun; measured
/// on an AMD EPYC under load, `examples/calibration_cost.rs`: 650 to 860
/// µs for two candidates, 1,140 to 1,240 µs for three).
pub fn cost_estimate(candidates: usize) -> f64 {
    BUDGET.as_secs_f64() * 4.0 / 3.0 * candidates as f64
}

/// The calibration, with the timing injected: `measure(i)` gives
/// candidate `i`'s speed in MB/s (candidates in table order, `n` of them).
/// Returns every measured speed, or `None` when it was not worth it
/// (then nothing past candidate 0 was measured).
pub fn calibrate_with(n: usize, bytes: u64, measure: &mut dyn FnMut(usize) -> f64) -> Option<Vec<f64>> {
    if n < 2 || bytes < MIN_BYTES {
        return None;
    }
    let first = measure(0);
    if !worth_it(bytes, first, n) {
        return None;
    }
    let mut speeds = vec![first];
    speeds.extend((1..n).map(measure));
    Some(speeds)
}

/// The clock's granularity: the smallest non-zero step between two
/// readings of [`Instant::now`] (a few tens of ns on Linux's vDSO clock).
fn granularity() -> Duration {
    static G: OnceLock<Duration> = OnceLock::new();
    *G.get_or_init(|| {
        let mut best = Duration::from_millis(1);
        for _ in 0..16 {
            let a = Instant::now();
            let mut b = Instant::now();
            while b == a {
                b = Instant::now();
            }
            best = best.min(b - a);
        }
        best
    })
}

/// `backend`'s speed hashing `algo` on `buf`, in MB/s: the best of the
/// trials that fit in [`BUDGET`] (at least [`MIN_TRIALS`]), each trial
/// hashing `buf` as many times as it takes to last [`MIN_TRIAL`] and 100
/// clock steps.
pub fn measure(backend: &Backend, algo: Algorithm, buf: &[u8]) -> f64 {
    let mut h = backend.hasher(algo);
    // Warm-up: code and tables into the caches, the buffer too.
    h.update(std::hint::black_box(buf));
    let floor = MIN_TRIAL.max(granularity() * 100);
    let best = best_trial(floor, &mut |reps| {
        let t = Instant::now();
        for _ in 0..reps {
            h.update(std::hint::black_box(buf));
        }
        t.elapsed()
    });
    drop(h);
    match best {
        Some((reps, dt)) if dt > Duration::ZERO => {
            f64::from(reps) * buf.len().max(1) as f64 / dt.as_secs_f64() / 1e6
        }
        _ => 0.0,
    }
}

/// Trials a measurement makes however long they take: 3. With one, a
/// trial the scheduler pre-empted spent the whole budget and stood for
/// the backend: on a busy 2-core VM `mhash --backends` once measured
/// SHA-NI's SHA-224 at 3 MB/s (its speed is about 1,800) and chose the
/// portable code, which a large input would then have run 7x slower.
pub const MIN_TRIALS: u32 = 3;

/// The best trial of `trial(reps)` (which hashes the buffer `reps` times
/// and returns how long that took): trials are doubled in length until
/// one lasts `floor`, then repeated while the counted ones add up to under
/// [`BUDGET`], and at least [`MIN_TRIALS`] times. Returns the best
/// trial's `reps` and duration (fewest seconds per repetition), `None`
/// if no trial was counted.
fn best_trial(floor: Duration, trial: &mut dyn FnMut(u32) -> Duration) -> Option<(u32, Duration)> {
    let mut reps = 1u32;
    let mut best: Option<(u32, Duration)> = None;
    let (mut trials, mut spent) = (0u32, Duration::ZERO);
    while trials < MIN_TRIALS || spent < BUDGET {
        let dt = trial(reps);
        spent += dt;
        if dt < floor && reps < 1 << 20 {
            // Too short to time well: longer trials (this one not counted).
            reps *= 2;
            continue;
        }
        if best.is_none_or(|(r, d)| dt.as_secs_f64() / f64::from(reps) < d.as_secs_f64() / f64::from(r)) {
            best = Some((reps, dt));
        }
        trials += 1;
    }
    best
}

/// When calibrations happen (`MHASH_CALIBRATE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Inputs of [`MIN_BYTES`] or more, where [`worth_it`] (the default).
    Auto,
    /// Never: the table's order for every input (`MHASH_CALIBRATE=never`).
    Never,
    /// Any input whose size is known, however small, and whatever it costs
    /// (`MHASH_CALIBRATE=always`: for tests and for checking the choice).
    Always,
}

static MODE: OnceLock<Mode> = OnceLock::new();

/// Sets, once per process and before the first input, when calibrations
/// happen, from `MHASH_CALIBRATE` as the caller read it (`never`,
/// `always`; anything else, or unset, is [`Mode::Auto`]). Without a call,
/// the first use reads this process's environment.
pub fn configure(value: Option<&str>) {
    let _ = MODE.set(parse_mode(value));
}

fn parse_mode(value: Option<&str>) -> Mode {
    match value.map(str::trim) {
        Some("never") => Mode::Never,
        Some("always") => Mode::Always,
        _ => Mode::Auto,
    }
}

/// The mode in effect (see [`configure`]).
pub fn mode() -> Mode {
    *MODE.get_or_init(|| parse_mode(std::env::var("MHASH_CALIBRATE").ok().as_deref()))
}

/// The backends this CPU can run for `kind` (and the environment has not
/// turned off), in table order, one per name: the candidates of a
/// calibration, and the rows of `mhash bench`.
pub fn candidates(kind: AlgoKind) -> Vec<&'static Backend> {
    let mut seen: Vec<&'static str> = Vec::new();
    kind.info()
        .backends
        .iter()
        .filter(|b| b.is_available())
        // Two rows may name one code path (crc-fast's name is its target).
        .filter(|b| {
            let fresh = !seen.contains(&b.name());
            seen.push(b.name());
            fresh
        })
        .collect()
}

/// Bytes hashed so far in this process, per algorithm, by every thread
/// ([`note_hashed`]), less what each thread still holds in [`PENDING`].
static HASHED: [AtomicU64; AlgoKind::ALL.len()] = [const { AtomicU64::new(0) }; AlgoKind::ALL.len()];

/// What a thread adds to [`HASHED`] at a time, in bytes: 1 MiB, so that
/// workers hashing thousands of small files do not each write the shared
/// counter after every file (its cache line would move between cores on
/// every one); the count is then at most this much per thread behind.
const PENDING_FLUSH: u64 = 1 << 20;

thread_local! {
    /// This thread's bytes not yet added to [`HASHED`], per algorithm.
    static PENDING: [Cell<u64>; AlgoKind::ALL.len()] = const { [const { Cell::new(0) }; AlgoKind::ALL.len()] };
}

/// Counts `bytes` more of input hashed with `kind` in this process (any
/// thread, any input): what [`run_bytes`] adds up.
pub fn note_hashed(kind: AlgoKind, bytes: u64) {
    PENDING.with(|p| {
        let held = p[kind as usize].get().saturating_add(bytes);
        if held >= PENDING_FLUSH {
            HASHED[kind as usize].fetch_add(held, Ordering::Relaxed);
            p[kind as usize].set(0);
        } else {
            p[kind as usize].set(held);
        }
    });
}

/// The bytes [`note_hashed`] has counted for `kind` so far: every
/// thread's, but for what other threads hold back (under 1 MiB each).
pub fn hashed(kind: AlgoKind) -> u64 {
    let own = PENDING.with(|p| p[kind as usize].get());
    HASHED[kind as usize].load(Ordering::Relaxed).saturating_add(own)
}

/// The size of the run a calibration is weighed against, in bytes: the
/// next input's size where known (else 0) and what the run has hashed
/// before it, `seen` ([`hashed`]). What a run hashed so far stands for
/// what it has still to hash: a run of many files measures its backends
/// once it has proved as long as one input that would be measured (by the
/// 1% rule, 64 MiB or more at 1,000 MB/s for two candidates), and the
/// files after that run on the faster backend.
pub fn run_bytes(size: Option<u64>, seen: u64) -> u64 {
    size.unwrap_or(0).saturating_add(seen)
}

/// The table's first choice's speed, MB/s, and the number of candidates,
/// per algorithm: measured once per process, as the 1% rule needs them
/// for every input that reaches [`MIN_BYTES`] until a calibration is made.
static FIRST: [OnceLock<(f64, usize)>; AlgoKind::ALL.len()] =
    [const { OnceLock::new() }; AlgoKind::ALL.len()];

/// The calibrations made so far, one per algorithm.
static DONE: [OnceLock<Choice>; AlgoKind::ALL.len()] = [const { OnceLock::new() }; AlgoKind::ALL.len()];

/// The calibrated choice for `kind`, if one was made in this process.
pub(super) fn calibrated(kind: AlgoKind) -> Option<&'static Choice> {
    DONE[kind as usize].get()
}

/// Calibrates `algo` for an input of `bytes` bytes (once per algorithm and
/// process, where [`calibrate_with`]'s rules allow it; see the module
/// documentation). Returns the choice now in effect when one was measured.
pub(super) fn calibrate(algo: Algorithm, bytes: u64) -> Option<&'static Choice> {
    if let Some(c) = calibrated(algo.kind) {
        return Some(c);
    }
    let mode = mode();
    if mode == Mode::Never || (mode == Mode::Auto && bytes < MIN_BYTES) {
        return None;
    }
    // The 1% rule against a first choice already timed: no allocation,
    // no timing (each file of a long run of small ones comes here).
    if mode == Mode::Auto
        && let Some(&(first, n)) = FIRST[algo.kind as usize].get()
        && !worth_it(bytes, first, n)
    {
        return None;
    }
    let list = candidates(algo.kind);
    if list.len() < 2 {
        return None;
    }
    let buf: Vec<u8> = (0..BUFFER as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mut timed = |i: usize| {
        if i == 0 {
            FIRST[algo.kind as usize]
                .get_or_init(|| (measure(list[0], algo, &buf), list.len()))
                .0
        } else {
            measure(list[i], algo, &buf)
        }
    };
    let speeds = if mode == Mode::Always {
        (0..list.len()).map(&mut timed).collect()
    } else {
        calibrate_with(list.len(), bytes, &mut timed)?
    };
    let i = decide(&speeds);
    let by = ChosenBy::Measured(list.iter().zip(&speeds).map(|(b, &s)| (b.name(), s)).collect());
    Some(DONE[algo.kind as usize].get_or_init(|| Choice { backend: list[i], by }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenger_needs_more_than_five_percent() {
        // The table's first choice keeps its place against a close second.
        assert_eq!(decide(&[1000.0, 1040.0]), 0);
        assert_eq!(decide(&[1000.0, 1050.0]), 0);
        // A clearly faster one replaces it: the fastest of them.
        assert_eq!(decide(&[1000.0, 1200.0, 1100.0]), 1);
        assert_eq!(decide(&[1000.0, 1100.0, 1300.0]), 2);
        // A forced-slow first choice loses to a fast portable one.
        assert_eq!(decide(&[120.0, 1300.0]), 1);
        // Failed measurements never win; a failed first loses to any.
        assert_eq!(decide(&[1000.0, f64::NAN, 0.0]), 0);
        assert_eq!(decide(&[0.0, 10.0]), 1);
        assert_eq!(decide(&[]), 0);
    }

    #[test]
    fn small_inputs_are_never_measured() {
        let mut asked = Vec::new();
        let r = calibrate_with(2, MIN_BYTES - 1, &mut |i| {
            asked.push(i);
            1000.0
        });
        assert_eq!(r, None);
        assert!(asked.is_empty(), "nothing timed below MIN_BYTES");
        // One candidate: nothing to choose.
        assert_eq!(calibrate_with(1, 1 << 40, &mut |_| 1000.0), None);
    }

    #[test]
    fn the_one_percent_rule_decides_past_the_first() {
        // 64 MiB at 20,000 MB/s is 3.4 ms: 3 x 300 µs is far over 1%.
        let mut asked = Vec::new();
        let r = calibrate_with(3, 64 << 20, &mut |i| {
            asked.push(i);
            20_000.0
        });
        assert_eq!(r, None);
        assert_eq!(asked, [0], "only the first was timed");
        // 1 GiB at 800 MB/s is 1.3 s: 0.6 ms is under 1%.
        let mut asked = Vec::new();
        let r = calibrate_with(2, 1 << 30, &mut |i| {
            asked.push(i);
            [800.0, 1200.0][i]
        });
        assert_eq!(r, Some(vec![800.0, 1200.0]));
        assert_eq!(asked, [0, 1]);
        assert_eq!(decide(&r.unwrap_or_default()), 1);
        // Two candidates: 0.8 ms, 1% of 80 ms: 80 MB at 1,000 MB/s.
        assert!(worth_it(100 << 20, 1000.0, 2));
        assert!(!worth_it(60 << 20, 1000.0, 2));
        assert!(!worth_it(1 << 40, 0.0, 2));
    }

    #[test]
    fn a_run_of_small_inputs_counts_what_it_hashed() {
        // 50,000 files of 4 KiB, sizes not asked for: the run so far.
        assert_eq!(run_bytes(None, 50_000 * 4096), 204_800_000);
        assert_eq!(run_bytes(Some(1 << 20), 5 << 20), 6 << 20);
        assert_eq!(run_bytes(Some(u64::MAX), 1), u64::MAX);
        // Under MIN_BYTES nothing is timed; a run of 200 MB at 1,000 MB/s
        // is worth timing two candidates (0.8 ms of 200 ms).
        let mut asked = Vec::new();
        assert_eq!(
            calibrate_with(2, run_bytes(None, MIN_BYTES - 1), &mut |i| {
                asked.push(i);
                1000.0
            }),
            None
        );
        assert!(asked.is_empty());
        let r = calibrate_with(2, run_bytes(None, 200_000_000), &mut |i| [1000.0, 1100.0][i]);
        assert_eq!(r.map(|s| decide(&s)), Some(1));
        // The count only grows.
        let before = hashed(AlgoKind::Sm3);
        note_hashed(AlgoKind::Sm3, 4096);
        assert!(hashed(AlgoKind::Sm3) >= before + 4096);
    }

    #[test]
    fn one_preempted_trial_does_not_stand_for_the_backend() {
        // The first counted trial took 5 ms (the thread was pre-empted),
        // past the whole budget; the next ones 10 us for the same work.
        let mut calls = 0;
        let best = best_trial(Duration::from_micros(1), &mut |_| {
            calls += 1;
            if calls == 1 {
                Duration::from_millis(5)
            } else {
                Duration::from_micros(10)
            }
        });
        assert_eq!(best, Some((1, Duration::from_micros(10))));
        assert_eq!(calls, MIN_TRIALS);
    }

    #[test]
    fn a_real_measurement_gives_a_speed() {
        // Not a timing assertion: only that the figure is a speed at all.
        let a = Algorithm::new(AlgoKind::Md5);
        let b = &a.backends()[a.backends().len() - 1];
        let s = measure(b, a, &[7u8; 4096]);
        assert!(s.is_finite() && s > 0.0, "{s}");
        assert!(granularity() > Duration::ZERO);
    }

    #[test]
    fn the_mode_is_read_from_its_value() {
        assert_eq!(parse_mode(None), Mode::Auto);
        assert_eq!(parse_mode(Some("never")), Mode::Never);
        assert_eq!(parse_mode(Some("always")), Mode::Always);
        assert_eq!(parse_mode(Some("bogus")), Mode::Auto);
    }

    #[test]
    fn the_description_names_every_figure() {
        assert_eq!(ChosenBy::Table.describe(), "table");
        assert_eq!(
            ChosenBy::Measured(vec![("avx2", 812.4), ("portable", 1020.0)]).describe(),
            "measurement: avx2 812 MB/s, portable 1020 MB/s"
        );
    }
}
