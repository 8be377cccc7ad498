//! `mhash bench`: which algorithm is fastest on this machine, on every
//! backend it has here (the table's choice marked). Every algorithm hashes an in-memory buffer
//! of each message size (64 B, 4 KiB and 1 MiB by default) on one thread,
//! a fresh hasher per message, for a share of the time budget (10 s by
//! default); throughput is in MB/s (10^6 bytes per second). No file I/O
//! and no process start-up is included: this measures the kernels.

use crate::algo::{AlgoKind, Algorithm, Backend};
use crate::error::Error;
use std::ffi::OsString;
use std::time::{Duration, Instant};

/// GNU's `quote()` of a value in a message.
fn lq(s: &str) -> String {
    crate::text::quote::locale_quote_bytes(&crate::text::message_bytes(s))
}

/// The clap definition of `mhash bench`.
fn bench_cli() -> clap::Command {
    clap::Command::new("bench")
        .bin_name("mhash bench")
        .about("in-memory throughput of every algorithm's backend on this machine, fastest first")
        .arg(
            clap::Arg::new("json")
                .long("json")
                .action(clap::ArgAction::SetTrue)
                .help("print one JSON object instead of the table"),
        )
        .arg(
            clap::Arg::new("algorithms")
                .long("algorithms")
                .short('a')
                .value_name("LIST")
                .help("comma list of algorithms to measure (default: all)"),
        )
        .arg(
            clap::Arg::new("bytes")
                .long("bytes")
                .value_name("LIST")
                .help("comma list of message sizes, bytes with optional K/M suffix (default 64,4K,1M)"),
        )
        .arg(
            clap::Arg::new("seconds")
                .long("seconds")
                .value_name("S")
                .value_parser(clap::value_parser!(f64))
                .help("time budget for the whole run in seconds (default 10)"),
        )
}

/// What `mhash bench ARGS` asks for.
#[derive(Debug)]
pub enum Command {
    /// `--help`: print this text.
    Help(String),
    /// Measure.
    Run(BenchOpts),
}

/// Parses `mhash bench [--json] [--algorithms LIST] [--bytes LIST]
/// [--seconds S]`; `args[0]` is `bench`.
///
/// # Errors
/// A usage error naming the option and the value at fault.
pub fn parse_args(args: &[OsString]) -> Result<Command, Error> {
    let m = match bench_cli().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) if matches!(e.kind(), clap::error::ErrorKind::DisplayHelp) => {
            return Ok(Command::Help(e.to_string()));
        }
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid usage");
            return Err(Error::usage(format!(
                "bench: {}",
                first.trim_start_matches("error: ")
            )));
        }
    };
    let mut opts = BenchOpts::default();
    if let Some(list) = m.get_one::<String>("algorithms") {
        opts.algorithms.clear();
        for name in list.split(',') {
            let k = AlgoKind::from_name(name.trim())
                .ok_or_else(|| Error::usage(format!("bench: unknown algorithm {}", lq(name))))?;
            opts.algorithms.push(Algorithm::new(k));
        }
    }
    if let Some(list) = m.get_one::<String>("bytes") {
        opts.sizes = list
            .split(',')
            .map(|s| {
                parse_size(s)
                    .ok_or_else(|| Error::usage(format!("bench: invalid size {} (1 B..256 MiB)", lq(s))))
            })
            .collect::<Result<_, _>>()?;
    }
    if let Some(&s) = m.get_one::<f64>("seconds") {
        if !(s > 0.0 && s <= 3600.0) {
            return Err(Error::usage("bench: --seconds must be in (0, 3600]"));
        }
        opts.seconds = s;
    }
    opts.json = m.get_flag("json");
    Ok(Command::Run(opts))
}

/// Measures as `opts` says and returns the report: a table, or one JSON
/// object with `json`.
pub fn run_report(opts: &BenchOpts) -> String {
    let rows = run(opts);
    let lanes = run_lanes(opts, &rows);
    if opts.json {
        report_json(opts, &rows, &lanes)
    } else {
        report_text(opts, &rows, &lanes)
    }
}

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchOpts {
    /// The algorithms, each at its natural digest length.
    pub algorithms: Vec<Algorithm>,
    /// Message sizes in bytes.
    pub sizes: Vec<usize>,
    /// The whole run's time budget in seconds, shared out evenly.
    pub seconds: f64,
    /// `--json`: one JSON object instead of the table.
    pub json: bool,
}

impl Default for BenchOpts {
    fn default() -> Self {
        BenchOpts {
            algorithms: AlgoKind::ALL.into_iter().map(Algorithm::new).collect(),
            sizes: vec![64, 4096, 1 << 20],
            seconds: 10.0,
            json: false,
        }
    }
}

/// One algorithm's figures.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchRow {
    /// `mhash -a` name.
    pub algorithm: &'static str,
    /// The backend that ran (see `mhash --backends`): every usable one of
    /// each algorithm has its row.
    pub backend: &'static str,
    /// True for the backend the table's order gives this algorithm here
    /// (what small inputs run on; large ones may be calibrated to another,
    /// see `mhash::algo::calibrate`).
    pub chosen: bool,
    /// Where its code comes from (`mhash`, or a crate and version).
    pub source: &'static str,
    /// False for the CRCs, the `sum` checksums and xxHash.
    pub cryptographic: bool,
    /// Throughput per message size, in the order of [`BenchOpts::sizes`].
    pub results: Vec<SizeResult>,
}

/// Throughput at one message size.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct SizeResult {
    /// Message size in bytes.
    pub bytes: usize,
    /// MB/s: 10^6 bytes of message per second, best of the timed rounds.
    pub mb_per_s: f64,
}

/// Hashes `msg` with fresh hashers of `algo` for about `budget`, and
/// returns the best throughput of the rounds, in MB/s.
fn measure(algo: Algorithm, backend: &Backend, msg: &[u8], budget: Duration) -> f64 {
    // Rounds of about 1/5 of the budget each; the best one counts (the
    // machine is shared: the best round is the least disturbed).
    let one = |n: usize| -> Duration {
        let t = Instant::now();
        for _ in 0..n {
            let mut h = backend.hasher(algo);
            h.update(std::hint::black_box(msg));
            std::hint::black_box(h.finalize());
        }
        t.elapsed()
    };
    // Calibrate: how many messages fill a round.
    let mut n = 1usize;
    let round = budget / 5;
    loop {
        let t = one(n);
        if t >= round / 4 || n >= 1 << 30 {
            let scale = round.as_secs_f64() / t.as_secs_f64().max(1e-9);
            n = ((n as f64 * scale) as usize).max(1);
            break;
        }
        n *= 4;
    }
    let start = Instant::now();
    let mut best = f64::MAX;
    while start.elapsed() < budget || best == f64::MAX {
        let t = one(n).as_secs_f64().max(1e-9);
        best = best.min(t / n as f64);
    }
    msg.len() as f64 / best / 1e6
}

/// One multi-buffer lane kernel's figures: many messages of each size
/// hashed side by side on one core (see `mhash::algo::lanes`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct LaneRow {
    /// The kernel's name (`avx2-x8`, `sha-ni-x4`, ...).
    pub kernel: &'static str,
    /// The algorithm it serves (`md5`, `sha256`).
    pub algorithm: &'static str,
    /// Messages hashed side by side.
    pub lanes: usize,
    /// Throughput per message size (all lanes together, one core).
    pub results: Vec<SizeResult>,
    /// Each size's throughput over the single-stream backend's at that
    /// size in the same run (1.0 where that was not measured).
    pub speedup: Vec<f64>,
}

/// The lane kernels available here for the algorithms in `opts`.
fn lane_kernels(opts: &BenchOpts) -> Vec<&'static crate::algo::lanes::LaneKernelInfo> {
    crate::algo::lanes::lane_kernels()
        .iter()
        .filter(|k| k.is_available() && opts.algorithms.iter().any(|a| a.kind == k.kind))
        .collect()
}

/// Measures every available lane kernel serving an algorithm of `opts`;
/// `rows` (from [`run`]) give the single-stream figures for the speed-up.
pub fn run_lanes(opts: &BenchOpts, rows: &[BenchRow]) -> Vec<LaneRow> {
    let kernels = lane_kernels(opts);
    let per_cell = cell_budget(opts);
    kernels
        .into_iter()
        .map(|k| {
            let results: Vec<SizeResult> = opts
                .sizes
                .iter()
                .map(|&n| SizeResult {
                    bytes: n,
                    mb_per_s: k.throughput(n, per_cell.as_secs_f64()).unwrap_or(0.0) / 1e6,
                })
                .collect();
            let single = rows.iter().find(|r| r.algorithm == k.kind.name());
            let speedup = results
                .iter()
                .enumerate()
                .map(|(i, r)| match single.and_then(|s| s.results.get(i)) {
                    Some(s) if s.mb_per_s > 0.0 => r.mb_per_s / s.mb_per_s,
                    _ => 1.0,
                })
                .collect();
            LaneRow {
                kernel: k.name,
                algorithm: k.kind.name(),
                lanes: k.lanes,
                results,
                speedup,
            }
        })
        .collect()
}

/// Time for one measurement: the budget shared by every algorithm and
/// lane kernel at every size.
fn cell_budget(opts: &BenchOpts) -> Duration {
    let cells = ((backend_count(opts) + lane_kernels(opts).len()) * opts.sizes.len()).max(1);
    Duration::from_secs_f64((opts.seconds / cells as f64).max(0.01))
}

/// Every backend this CPU can run for `a`, in table order (one per name).
fn usable_backends(a: Algorithm) -> Vec<&'static Backend> {
    crate::algo::calibrate::candidates(a.kind)
}

/// How many (algorithm, backend) rows `opts` measures.
fn backend_count(opts: &BenchOpts) -> usize {
    opts.algorithms.iter().map(|&a| usable_backends(a).len()).sum()
}

/// Runs the benchmark: one row per algorithm and usable backend, sorted
/// fastest first by the largest size.
pub fn run(opts: &BenchOpts) -> Vec<BenchRow> {
    let per_cell = cell_budget(opts);
    let largest = opts.sizes.iter().copied().max().unwrap_or(0);
    let data: Vec<u8> = (0..largest).map(|i| (i % 251) as u8).collect();
    let mut rows: Vec<BenchRow> = opts
        .algorithms
        .iter()
        .flat_map(|&a| {
            let table = a.backend().name();
            usable_backends(a)
                .into_iter()
                .map(move |b| (a, b, b.name() == table))
        })
        .map(|(a, b, chosen)| BenchRow {
            algorithm: a.kind.name(),
            backend: b.name(),
            chosen,
            source: b.source,
            cryptographic: a.kind.is_cryptographic(),
            results: opts
                .sizes
                .iter()
                .map(|&n| SizeResult {
                    bytes: n,
                    mb_per_s: measure(a, b, &data[..n], per_cell),
                })
                .collect(),
        })
        .collect();
    let key = |r: &BenchRow| r.results.last().map_or(0.0, |s| s.mb_per_s);
    rows.sort_by(|x, y| key(y).total_cmp(&key(x)));
    rows
}

fn size_label(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} B")
    }
}

/// Groups digits by thousands: 12345.6 -> `12,346`.
fn thousands(v: f64) -> String {
    let s = format!("{:.0}", v);
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The fastest cryptographic and non-cryptographic rows (by the largest size).
fn fastest(rows: &[BenchRow]) -> (Option<&BenchRow>, Option<&BenchRow>) {
    (
        rows.iter().find(|r| r.cryptographic),
        rows.iter().find(|r| !r.cryptographic),
    )
}

/// The text report: one row per algorithm, the lane kernels, then the two
/// winners.
pub fn report_text(opts: &BenchOpts, rows: &[BenchRow], lanes: &[LaneRow]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "mhash bench: in-memory throughput in MB/s (10^6 B/s), one thread, fastest first ({:.1} s budget)",
        opts.seconds
    );
    let label = |r: &BenchRow| format!("{}{} ({})", if r.chosen { "*" } else { "" }, r.backend, r.source);
    // The backend column: 36 characters, or the longest label's width.
    let w = rows.iter().map(|r| label(r).len()).max().unwrap_or(0).max(36);
    let mut head = format!("{:<10} {:<w$}", "algorithm", "backend");
    for &n in &opts.sizes {
        let _ = write!(head, " {:>10}", size_label(n));
    }
    let _ = writeln!(out, "{}", head.trim_end());
    for r in rows {
        let mut line = format!("{:<10} {:<w$}", r.algorithm, label(r));
        for s in &r.results {
            let _ = write!(line, " {:>10}", thousands(s.mb_per_s));
        }
        let _ = writeln!(out, "{line}");
    }
    if !lanes.is_empty() {
        let _ = writeln!(
            out,
            "multi-buffer lane kernels (many files of one algorithm: messages side by side, one core; x = over one stream):"
        );
        let mut head = format!("{:<10} {:<36}", "algorithm", "lane kernel");
        for &n in &opts.sizes {
            let _ = write!(head, " {:>15}", size_label(n));
        }
        let _ = writeln!(out, "{}", head.trim_end());
        for l in lanes {
            let mut line = format!(
                "{:<10} {:<36}",
                l.algorithm,
                format!("{}, {} lanes (mhash)", l.kernel, l.lanes)
            );
            for (s, x) in l.results.iter().zip(&l.speedup) {
                let _ = write!(line, " {:>15}", format!("{} ({:.1}x)", thousands(s.mb_per_s), x));
            }
            let _ = writeln!(out, "{line}");
        }
    }
    let _ = writeln!(
        out,
        "* the table's choice here (small inputs); inputs of {} MiB or more run on the backend measured fastest",
        crate::algo::calibrate::MIN_BYTES >> 20
    );
    let (c, nc) = fastest(rows);
    let big = opts
        .sizes
        .iter()
        .copied()
        .max()
        .map(size_label)
        .unwrap_or_default();
    for (label, r) in [("cryptographic", c), ("non-cryptographic", nc)] {
        if let Some(r) = r {
            let v = r.results.last().map_or(0.0, |s| s.mb_per_s);
            let _ = writeln!(
                out,
                "fastest {label}: {} ({}, {} MB/s at {big})",
                r.algorithm,
                r.backend,
                thousands(v)
            );
        }
    }
    out
}

/// The `--json` report: one object with the rows and the two winners.
pub fn report_json(opts: &BenchOpts, rows: &[BenchRow], lanes: &[LaneRow]) -> String {
    let (c, nc) = fastest(rows);
    let v = serde_json::json!({
        "unit": "MB/s (10^6 bytes per second)",
        "threads": 1,
        "seconds": opts.seconds,
        "results": rows,
        "lanes": lanes,
        "fastest_cryptographic": c.map(|r| r.algorithm),
        "fastest_non_cryptographic": nc.map(|r| r.algorithm),
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

/// Parses a size with an optional `K`/`KiB`/`M`/`MiB` suffix (powers of 1,024).
pub fn parse_size(s: &str) -> Option<usize> {
    let t = s.trim();
    let (num, mult) = if let Some(n) = t.strip_suffix("KiB").or(t.strip_suffix('K')) {
        (n, 1 << 10)
    } else if let Some(n) = t.strip_suffix("MiB").or(t.strip_suffix('M')) {
        (n, 1 << 20)
    } else {
        (t.strip_suffix('B').unwrap_or(t), 1)
    };
    let v: usize = num.trim().parse().ok()?;
    let v = v.checked_mul(mult)?;
    (1..=(256 << 20)).contains(&v).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_numbers_read_and_print() {
        assert_eq!(parse_size("64"), Some(64));
        assert_eq!(parse_size("4K"), Some(4096));
        assert_eq!(parse_size("1MiB"), Some(1 << 20));
        assert_eq!(parse_size("0"), None);
        assert_eq!(parse_size("x"), None);
        assert_eq!(thousands(1234567.4), "1,234,567");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(size_label(4096), "4 KiB");
    }

    #[test]
    fn a_short_run_reports_every_algorithm_sorted() {
        let opts = BenchOpts {
            algorithms: vec![Algorithm::new(AlgoKind::Md5), Algorithm::new(AlgoKind::Xxh3)],
            sizes: vec![64, 4096],
            seconds: 0.2,
            json: false,
        };
        let rows = run(&opts);
        // Every usable backend of each: md5's tuned-scalar and portable
        // at least, one of them the table's choice.
        assert!(rows.iter().filter(|r| r.algorithm == "md5").count() >= 2);
        assert_eq!(
            rows.iter().filter(|r| r.algorithm == "md5" && r.chosen).count(),
            1
        );
        assert!(
            rows.iter()
                .any(|r| r.algorithm == "md5" && r.backend == "portable")
        );
        assert!(rows.iter().all(|r| r.results.iter().all(|s| s.mb_per_s > 0.0)));
        let lanes = run_lanes(&opts, &rows);
        assert!(lanes.iter().all(|l| l.algorithm == "md5" && l.results.len() == 2));
        let text = report_text(&opts, &rows, &lanes);
        assert!(text.contains("fastest cryptographic: md5"), "{text}");
        assert!(text.contains("fastest non-cryptographic: xxh3"), "{text}");
        let v: serde_json::Value = serde_json::from_str(&report_json(&opts, &rows, &lanes)).unwrap();
        assert_eq!(v["fastest_cryptographic"], "md5");
        assert_eq!(v["results"].as_array().unwrap().len(), rows.len());
    }
}
