//! The run: dispatches the configured job (hash, check, install the
//! links, print, report the backends, benchmark) and returns the exit
//! status (GNU: 0 when everything succeeded, else 1).

use crate::config::{Config, Job, Tuning};
use crate::progress::Progress;
use crate::report::Console;
use crate::sched;

/// Installs the run's [`Tuning`] where the engine reads it: once, before
/// any backend is chosen or buffer made (later calls change nothing).
/// A library caller that never calls this gets the defaults, except that
/// `algo::cpu` and `algo::calibrate` then read `MHASH_BACKEND`,
/// `GLIBC_TUNABLES` and `MHASH_CALIBRATE` from the process (the in-process
/// known-answer tests run under `MHASH_BACKEND=portable` that way).
pub fn install(t: &Tuning) {
    crate::algo::cpu::configure(t.backend.as_deref(), t.glibc_tunables.as_deref());
    crate::algo::calibrate::configure(t.calibrate.as_deref());
    crate::io::set_read_size(t.read_size);
    crate::io::set_tree_window(t.map_window);
}

/// Runs `cfg` with its output on `con` and returns the process exit status.
/// The job is consumed: a hash job's operands go to the scheduler as they
/// are, not copied (5,000 names: 5,000 allocations before the first file).
pub fn run(cfg: Config, con: &mut Console) -> i32 {
    let Config { common, job } = cfg;
    let common = &common;
    install(&common.tuning);
    // Whether descriptors 0-2 are open is decided (and remembered) now,
    // before any input or checksum file is opened onto a free number.
    let _ = crate::os::standard_fds_open();
    if common.personality == crate::config::Personality::Mhash {
        // A user who ran `mhash` with no FILE at a terminal is told what
        // it waits for (GNU's names and shasum say nothing, as GNU).
        let keys = if cfg!(windows) {
            "Ctrl-Z then Enter ends it"
        } else {
            "Ctrl-D ends it"
        };
        let mut line = con.prog().to_vec();
        line.extend_from_slice(format!(": reading standard input; {keys}\n").as_bytes());
        crate::os::set_terminal_stdin_notice(line);
    }
    if common.personality.is_gnu() {
        // The CRC and sum lines too: GNU 9.11 lost errno there ("write
        // error"), fixed after 9.11 (coreutils 2de1a28bc, "sum,cksum:
        // consistently emit detailed write errors"; its
        // tests/misc/io-errors.sh wants ENOSPC): mhash takes the fix.
        // NUL-ended digest lines (`-z`) are not flushed one by one: stdio
        // meets a write error at the next diagnostic (which flushes
        // first, losing errno) or at fclose (which keeps it).
        let zero = matches!(&job, Job::Hash(h) if h.format.zero);
        let lines = matches!(&job, Job::Hash(_) | Job::Check(_)) && !zero;
        con.set_flushes_per_line(lines);
        // GNU 8.32's cksum dies at the first line it cannot write (no
        // later input is read, no later error reported).
        let dies = common.compat.is_8_32()
            && common.personality == crate::config::Personality::Cksum
            && matches!(&job, Job::Hash(_));
        con.set_exits_on_write_error(lines && (common.compat == crate::config::GnuCompat::V9_11 || dies));
        con.set_keeps_errno_at_close(zero);
        con.set_dies_on_write_error(dies);
    }
    let ok = match job {
        Job::Shasum(job) => {
            // Perl shasum's statuses are its own (a `die` exits with
            // errno), and it ignores failed writes to standard output
            // (`print` under `$| = 1`, no check at exit): no
            // `Console::finish` and its "write error".
            let status = crate::check::shasum::run(con, &job);
            con.flush_now();
            return status;
        }
        Job::Print(text) => {
            con.write_out(text.as_bytes());
            true
        }
        Job::Backends(before) => {
            let report = backend_report();
            let text = if before.is_empty() {
                report.trim_start().to_string()
            } else {
                format!("{before}{report}")
            };
            con.write_out(text.as_bytes());
            true
        }
        Job::Bench(opts) => {
            con.write_out(crate::bench::run_report(&opts).as_bytes());
            true
        }
        Job::InstallLinks { dir, opts } => crate::install::install_links(con, &dir, opts),
        Job::Hash(job) => {
            con.set_directory_hint(
                common.personality == crate::config::Personality::Mhash
                    && job.inputs.walk.is_none()
                    && job.tree.is_none(),
            );
            if let Some(s) = common.shard {
                let sink = crate::report::shard::Sink::new(s.index, s.count, &common.shard_run);
                con.start_shard(sink, "hash", if job.format.zero { b'\0' } else { b'\n' });
            }
            let ok = with_progress(con, common.progress, |con| crate::hash::run(con, common, job));
            con.end_shard(ok);
            ok
        }
        Job::Check(job) => {
            if let Some(s) = common.shard {
                let mut sink = crate::report::shard::Sink::new(s.index, s.count, &common.shard_run);
                sink.settings(
                    job.verbosity == crate::config::Verbosity::Status,
                    job.ignore_missing,
                    job.strict,
                );
                con.start_shard(sink, "check", b'\n');
            }
            let ok = with_progress(con, common.progress, |con| crate::check::run(con, common, &job));
            // --shard: a failure that neither a tally nor a recorded
            // failure accounts for still makes the shard's verdict false.
            if !ok
                && let Some(s) = con.shard()
                && !s.accounted()
            {
                s.fail();
            }
            con.end_shard(ok);
            ok
        }
        Job::Merge(files) => crate::merge::run(con, &files),
    };
    // GNU 8.32's cksum and sum name standard input `-` here too (their
    // `die (EXIT_FAILURE, errno, "-")`); the other tools and later
    // releases say "standard input".
    let stdin_name = if common.compat.is_8_32()
        && matches!(
            common.personality,
            crate::config::Personality::Cksum | crate::config::Personality::Sum
        ) {
        "-"
    } else {
        "standard input"
    };
    let ok = ok & stdin_closed_ok(con, stdin_name);
    let ok = ok & con.finish();
    if ok { 0 } else { 1 }
}

/// Runs `f` with a progress bar on `con` where `mode` lets one show.
fn with_progress(
    con: &mut Console,
    mode: crate::config::ProgressMode,
    f: impl FnOnce(&mut Console) -> bool,
) -> bool {
    let ticker = Progress::start(mode).map(|(p, t)| {
        con.set_progress(Some(p));
        t
    });
    let ok = f(con);
    if let Some(t) = ticker {
        t.finish();
        con.set_progress(None);
    }
    ok
}

/// GNU's `fclose (stdin)` at exit: standard input was read and is closed;
/// a failure is reported as `NAME: REASON`.
fn stdin_closed_ok(con: &mut Console, name: &str) -> bool {
    match crate::os::check_stdin_closed() {
        Ok(()) => true,
        Err(e) => {
            con.error_msg(format!("{name}: {}", crate::os::strerror(&e)).as_bytes());
            false
        }
    }
}

/// `mhash --backends` and `mhash --version --verbose`: the CPU features
/// detected, then every algorithm with the backend it uses here and the
/// others it has.
pub fn backend_report() -> String {
    use crate::algo::cpu::Feature;
    use crate::algo::{AlgoKind, Algorithm, calibrate, cpu};
    use std::fmt::Write as _;
    let mut s = String::new();
    let on: Vec<&str> = Feature::ALL
        .iter()
        .filter(|f| f.detected())
        .map(|f| f.name())
        .collect();
    let off: Vec<&str> = Feature::ALL
        .iter()
        .filter(|f| f.detected() && !f.enabled())
        .map(|f| f.name())
        .collect();
    let _ = writeln!(
        s,
        "\nCPU features: {}",
        if on.is_empty() {
            "none".to_string()
        } else {
            on.join(" ")
        }
    );
    if !off.is_empty() {
        let _ = writeln!(
            s,
            "turned off (MHASH_BACKEND / GLIBC_TUNABLES): {}",
            off.join(" ")
        );
    }
    if cpu::force_portable() {
        let _ = writeln!(s, "MHASH_BACKEND=portable: portable backends forced");
    }
    let _ = writeln!(s, "jobs: {} (cores available)", sched::effective_jobs(0));
    let _ = writeln!(
        s,
        "\n{:<10} {:<20} {:<16} other backends",
        "algorithm", "backend", "source"
    );
    let mut measured = Vec::new();
    for kind in AlgoKind::report_order() {
        let a = Algorithm::new(kind);
        let chosen = a.backend();
        // What an input large enough for a calibration would get here.
        if let Some((b, by)) = large_input_choice(a) {
            measured.push((kind, b, by));
        }
        let others: Vec<String> = a
            .backends()
            .iter()
            .filter(|b| b.name() != chosen.name())
            .map(|b| {
                if b.is_available() {
                    b.name().to_string()
                } else {
                    format!("{} (unavailable)", b.name())
                }
            })
            .collect();
        let _ = writeln!(
            s,
            "{:<10} {:<20} {:<16} {}",
            kind.name(),
            chosen.name(),
            chosen.source,
            if others.is_empty() {
                "-".to_string()
            } else {
                others.join(", ")
            }
        );
    }
    let _ = writeln!(
        s,
        "\nchosen by the table's order above; inputs (or runs of many files) of {} MiB or\n\
         more, where an algorithm has several usable backends, by measurement (each timed\n\
         here for at most {} µs; a challenger needs > {:.0}% over the first). Measured now:",
        calibrate::MIN_BYTES >> 20,
        calibrate::BUDGET.as_micros(),
        (calibrate::MARGIN - 1.0) * 100.0
    );
    if measured.is_empty() {
        let _ = writeln!(s, "  (no algorithm has a choice of backends here)");
    }
    for (kind, b, by) in measured {
        let _ = writeln!(s, "{:<10} {:<20} chosen by {by}", kind.name(), b);
    }
    let _ = writeln!(s, "\nmany files at once (lane kernels):");
    for k in crate::algo::lanes::lane_kernels() {
        let _ = writeln!(
            s,
            "{:<10} {:<20} {:<16} {} lanes{}",
            k.kind.name(),
            k.name,
            k.source,
            k.lanes,
            if k.is_available() { "" } else { " (unavailable)" }
        );
    }
    s
}

/// The backend a large input of `a` would run on here, and how it was
/// chosen (`MHASH_BACKEND`, or a calibration timed now), where `a` has
/// more than one usable backend; `None` otherwise.
fn large_input_choice(a: crate::algo::Algorithm) -> Option<(&'static str, String)> {
    let usable = a.backends().iter().filter(|b| b.is_available()).count();
    if usable < 2 {
        return None;
    }
    a.prepare_for(u64::MAX);
    let c = a.choice();
    Some((c.backend.name(), c.by.describe()))
}
