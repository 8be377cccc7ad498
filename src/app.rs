//! The run: dispatches the configured job (hash, check, install the
//! links, print, report the backends, benchmark) and returns the exit
//! status (GNU: 0 when everything succeeded, else 1).

use crate::config::{Config, Job};
use crate::progress::Progress;
use crate::report::Console;
use crate::sched;

/// Runs `cfg` with its output on `con` and returns the process exit status.
pub fn run(cfg: &Config, con: &mut Console) -> i32 {
    let common = &cfg.common;
    crate::io::set_read_size(common.read_size);
    let ok = match &cfg.job {
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
            con.write_out(crate::bench::run_report(opts).as_bytes());
            true
        }
        Job::InstallLinks { dir, force } => crate::install::install_links(con, dir, *force),
        Job::Hash(job) => with_progress(con, common.progress, |con| crate::hash::run(con, common, job)),
        Job::Check(job) => with_progress(con, common.progress, |con| crate::check::run(con, common, job)),
    };
    let ok = ok & stdin_closed_ok(con);
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

/// GNU's `fclose (stdin)` at exit: standard input was read and is closed.
fn stdin_closed_ok(con: &mut Console) -> bool {
    match crate::os::check_stdin_closed() {
        Ok(()) => true,
        Err(e) => {
            con.error_msg(format!("standard input: {}", crate::os::strerror(&e)).as_bytes());
            false
        }
    }
}

/// `mhash --backends` and `mhash --version --verbose`: the CPU features
/// detected, then every algorithm with the backend it uses here and the
/// others it has.
pub fn backend_report() -> String {
    use crate::algo::cpu::Feature;
    use crate::algo::{AlgoKind, Algorithm, cpu};
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
    for kind in AlgoKind::report_order() {
        let a = Algorithm::new(kind);
        let chosen = a.backend();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Personality;
    use crate::env::Env;
    use crate::report::Captured;
    use std::ffi::OsString;

    /// Runs `argv` in this process with `MHASH_GNU_COMPAT=compat` (as an
    /// [`Env`], the process's own untouched) and returns stdout, stderr
    /// and the exit status.
    fn run_in_process(compat: &str, argv: &[&OsStr]) -> (Vec<u8>, Vec<u8>, i32) {
        let env = Env {
            gnu_compat: Some(compat.to_string()),
            ..Env::default()
        };
        let args: Vec<OsString> = argv.iter().map(|a| a.to_os_string()).collect();
        let p = Personality::from_argv0(argv[0]);
        let cfg = crate::cli::parse(p, args, &env).expect("a valid command line");
        let (out, err) = (Captured::default(), Captured::default());
        let mut con = Console::new(
            &cfg.common.prog,
            cfg.common.compat,
            Box::new(out.clone()),
            Box::new(err.clone()),
            false,
        );
        let status = run(&cfg, &mut con);
        (out.contents(), err.contents(), status)
    }

    use std::ffi::OsStr;

    // The status lines GNU md5sum prints for a listed name holding a
    // backslash: GNU 9.1 (the /usr/bin one here) leaves it alone, 9.4
    // escapes it, 9.11 shell-quotes it.
    #[test]
    fn every_gnu_release_in_one_process() {
        let dir = tempfile::tempdir().unwrap();
        let name = dir.path().join("a\\b");
        std::fs::write(&name, b"x").unwrap();
        let sums = dir.path().join("sums");
        let line =
            format!("\\9dd4e461268c8034f5c8564e155c67a6  {}\n", name.display()).replace("a\\b", "a\\\\b");
        std::fs::write(&sums, line).unwrap();
        let shown = name.display().to_string();
        for (compat, want) in [
            ("9.1", format!("{shown}: OK\n")),
            ("9.4", format!("\\{}: OK\n", shown.replace('\\', "\\\\"))),
            ("9.11", format!("'{shown}': OK\n")),
        ] {
            let (out, err, status) = run_in_process(
                compat,
                &[OsStr::new("md5sum"), OsStr::new("-c"), sums.as_os_str()],
            );
            assert_eq!(String::from_utf8_lossy(&out), want, "MHASH_GNU_COMPAT={compat}");
            assert!(err.is_empty(), "{}", String::from_utf8_lossy(&err));
            assert_eq!(status, 0);
        }
        // GNU 9.1's cksum has no SHA-3; 9.4 and later have it.
        let env = |c: &str| Env {
            gnu_compat: Some(c.to_string()),
            ..Env::default()
        };
        let argv = || {
            vec![
                OsString::from("cksum"),
                "-a".into(),
                "sha3".into(),
                "-l".into(),
                "256".into(),
            ]
        };
        assert!(crate::cli::parse(Personality::Cksum, argv(), &env("9.1")).is_err());
        assert!(crate::cli::parse(Personality::Cksum, argv(), &env("9.11")).is_ok());
    }

    #[test]
    fn backends_report_lists_every_algorithm() {
        let report = backend_report();
        for kind in crate::algo::AlgoKind::ALL {
            let row = format!("\n{:<10} ", kind.name());
            assert!(report.contains(&row), "--backends has a row for {}", kind.name());
        }
    }
}
