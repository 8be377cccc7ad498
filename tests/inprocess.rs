//! In-process runs: the library's `cli::parse` and `app::run` with an
//! [`Env`] built by hand and a [`Console`] over in-memory buffers, so that
//! every GNU release is exercised in one process without touching this
//! process's environment or descriptors.
use mhash::config::Personality;
use mhash::env::Env;
use mhash::report::{Captured, Console};
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
    let cfg = mhash::cli::parse(p, args, &env).expect("a valid command line");
    let (out, err) = (Captured::default(), Captured::default());
    let mut con = Console::new(
        &cfg.common.prog,
        cfg.common.compat,
        Box::new(out.clone()),
        Box::new(err.clone()),
        false,
    );
    let status = mhash::app::run(cfg, &mut con);
    (out.contents(), err.contents(), status)
}

use std::ffi::OsStr;

// The status lines GNU md5sum prints for a listed name holding a
// backslash: GNU 9.1 (the /usr/bin one here) leaves it alone, 9.4
// escapes it, 9.11 shell-quotes it.
// Unix: a backslash is a separator in a Windows file name.
#[cfg(unix)]
#[test]
fn every_gnu_release_in_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let name = dir.path().join("a\\b");
    std::fs::write(&name, b"x").unwrap();
    let sums = dir.path().join("sums");
    let line = format!("\\9dd4e461268c8034f5c8564e155c67a6  {}\n", name.display()).replace("a\\b", "a\\\\b");
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
    assert!(mhash::cli::parse(Personality::Cksum, argv(), &env("9.1")).is_err());
    assert!(mhash::cli::parse(Personality::Cksum, argv(), &env("9.11")).is_ok());
}

#[test]
fn backends_report_lists_every_algorithm() {
    let report = mhash::app::backend_report();
    for kind in mhash::algo::AlgoKind::ALL {
        let row = format!("\n{:<10} ", kind.name());
        assert!(report.contains(&row), "--backends has a row for {}", kind.name());
    }
}
