//! GNU coreutils 9.11's recorded answers, replayed against mhash.
//!
//! `tests/data/gnu-9.11/cases.txt` lists command lines;
//! `scripts/record-gnu-fixtures /opt/gnu-9.11/bin` ran each under a GNU
//! 9.11 built from its sources and recorded stdout, stderr and the exit
//! status in `tests/data/gnu-9.11/fixtures.txt`. Here each case runs again,
//! the same way (a fresh scratch directory, the `@setup` lines, `/bin/bash`
//! with only `PATH`, `LC_ALL=C` and `BINDIR` set, stdin `/dev/null`), with
//! mhash's symlinks under GNU's nine names first in `PATH`, and every byte
//! must match: CI checks 9.11 behaviour without a 9.11 binary.

use std::path::Path;
use std::process::{Command, Stdio};
use tempfile::TempDir;

use crate::util;

const CASES: &str = include_str!("data/gnu-9.11/cases.txt");
const FIXTURES: &[u8] = include_bytes!("data/gnu-9.11/fixtures.txt");
const NAMES: [&str; 9] = util::GNU_NAMES;

/// One recorded case: the command line and GNU's answer.
struct Fixture {
    case: String,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    status: i32,
}

/// The `@setup` lines and the cases of `cases.txt`, as the recorder reads
/// them (a case marked `? ` is a known difference: its text without the mark).
fn read_cases() -> (String, Vec<String>) {
    let mut setup = Vec::new();
    let mut cases = Vec::new();
    for line in CASES.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        match line.strip_prefix("@setup ") {
            Some(s) => setup.push(s.to_string()),
            None => cases.push(line.strip_prefix("? ").unwrap_or(line).to_string()),
        }
    }
    (setup.join("\n"), cases)
}

/// Splits `fixtures.txt` into its records (see `scripts/record-gnu-fixtures`).
fn read_fixtures() -> Vec<Fixture> {
    let mut rest = FIXTURES;
    let mut out = Vec::new();
    let line = |rest: &mut &[u8]| -> String {
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .expect("fixtures.txt: a line");
        let l = String::from_utf8(rest[..end].to_vec()).expect("fixtures.txt: UTF-8 header");
        *rest = &rest[end + 1..];
        l
    };
    let block = |rest: &mut &[u8], what: &str| -> Vec<u8> {
        let head = line(rest);
        let n: usize = head
            .strip_prefix(what)
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("fixtures.txt: {what} N, got {head:?}"));
        let bytes = rest[..n].to_vec();
        assert_eq!(rest[n], b'\n', "fixtures.txt: newline after {what} bytes");
        *rest = &rest[n + 1..];
        bytes
    };
    while !rest.is_empty() {
        let case = line(&mut rest);
        let case = case
            .strip_prefix("### ")
            .unwrap_or_else(|| panic!("fixtures.txt: ### CASE, got {case:?}"))
            .to_string();
        let stdout = block(&mut rest, "stdout ");
        let stderr = block(&mut rest, "stderr ");
        let status = line(&mut rest);
        let status = status
            .strip_prefix("status ")
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("fixtures.txt: status N, got {status:?}"));
        out.push(Fixture {
            case,
            stdout,
            stderr,
            status,
        });
    }
    out
}

/// Runs one case as the recorder did, with mhash's links in `bindir`.
fn replay(bindir: &Path, setup: &str, case: &str) -> (Vec<u8>, Vec<u8>, i32) {
    let scratch = TempDir::new().unwrap();
    let dir = std::fs::canonicalize(scratch.path()).unwrap();
    let mut c = Command::new("/usr/bin/timeout");
    c.args(["60", "/bin/bash", "-c"])
        .arg(format!("{setup}\n{case}"))
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bindir.display()))
        .env("LC_ALL", "C")
        .env("BINDIR", bindir)
        .current_dir(&dir)
        .stdin(Stdio::null());
    if let Some(b) = std::env::var_os("MHASH_TEST_BACKEND") {
        c.env("MHASH_BACKEND", b);
    }
    let o = c.output().unwrap();
    let norm = |b: Vec<u8>| -> Vec<u8> {
        let b = replace(&b, bindir.to_str().unwrap().as_bytes(), b"@BINDIR@");
        replace(&b, dir.to_str().unwrap().as_bytes(), b"@DIR@")
    };
    let code = o.status.code().unwrap_or(-1);
    (norm(o.stdout), norm(o.stderr), code)
}

fn replace(hay: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hay.len());
    let mut i = 0;
    while i < hay.len() {
        if !from.is_empty() && hay[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(hay[i]);
            i += 1;
        }
    }
    out
}

#[test]
fn fixtures_are_recorded_for_every_case() {
    let (_, cases) = read_cases();
    let recorded: Vec<String> = read_fixtures().into_iter().map(|f| f.case).collect();
    assert_eq!(
        recorded, cases,
        "tests/data/gnu-9.11/cases.txt changed: run scripts/record-gnu-fixtures /opt/gnu-9.11/bin"
    );
}

#[cfg(unix)]
#[test]
fn mhash_answers_every_recorded_case_as_gnu_9_11() {
    let (setup, _) = read_cases();
    let known: Vec<&str> = CASES.lines().filter_map(|l| l.strip_prefix("? ")).collect();
    let bin = TempDir::new().unwrap();
    let bindir = std::fs::canonicalize(bin.path()).unwrap();
    for n in NAMES {
        util::mhash_link(&bindir, n);
    }
    let fixtures = read_fixtures();
    let mut failed = Vec::new();
    let mut known_left = 0;
    let strace = Path::new("/usr/bin/strace").exists();
    for f in &fixtures {
        if f.case.contains("strace ") && !strace {
            util::skip("gnu_fixtures", &format!("no /usr/bin/strace for: {}", f.case));
            continue;
        }
        let (stdout, stderr, status) = replay(&bindir, &setup, &f.case);
        let same = (&stdout, &stderr, status) == (&f.stdout, &f.stderr, f.status);
        let is_known = known.contains(&f.case.as_str());
        if same && is_known {
            failed.push(format!(
                "case: {}\n  now matches GNU 9.11: remove its `? ` mark in cases.txt",
                f.case
            ));
        } else if !same && is_known {
            known_left += 1;
            eprintln!("KNOWN DIFFERENCE from GNU 9.11 (marked `? `): {}", f.case);
        } else if !same {
            failed.push(format!(
                "case: {}\n  GNU:   status {}, stdout \"{}\", stderr \"{}\"\n  mhash: status {}, stdout \"{}\", stderr \"{}\"",
                f.case,
                f.status,
                util::escaped(&f.stdout),
                util::escaped(&f.stderr),
                status,
                util::escaped(&stdout),
                util::escaped(&stderr),
            ));
        }
    }
    if known_left > 0 {
        eprintln!(
            "{known_left} of {} recorded cases are known differences",
            fixtures.len()
        );
    }
    assert!(
        failed.is_empty(),
        "{} of {} recorded GNU 9.11 cases differ:\n{}",
        failed.len(),
        fixtures.len(),
        failed.join("\n")
    );
}
