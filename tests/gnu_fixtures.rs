//! GNU coreutils' recorded answers (9.11 and 8.32), replayed against mhash.
//!
//! `tests/data/gnu-REL/cases.txt` lists command lines;
//! `scripts/record-gnu-fixtures /opt/gnu-REL/bin tests/data/gnu-REL/cases.txt`
//! ran each under a GNU REL built from its sources and recorded stdout,
//! stderr and the exit status in `tests/data/gnu-REL/fixtures.txt`. Here
//! each case runs again, the same way (a fresh scratch directory, the
//! `@setup` lines, `/bin/bash` with only `PATH`, `LC_ALL=C` and `BINDIR`
//! set, plus `MHASH_GNU_COMPAT=REL` for a release other than the default,
//! stdin `/dev/null`), with mhash's symlinks under GNU's nine names first
//! in `PATH`, and every byte must match: CI checks each release's
//! behaviour without its binaries.
//!
//! `tests/data/gnu-8.32/links` is replayed through links that
//! `mhash --install-links` made with a GNU 8.32 first on `PATH` (stand-in
//! scripts answering `--version` as 8.32's tools do), with no
//! `MHASH_GNU_COMPAT`: the links find the release they reproduce by
//! themselves, as they do on a system whose coreutils is 8.32.

use std::path::Path;
use std::process::{Command, Stdio};
use tempfile::TempDir;

use crate::util;

const NAMES: [&str; 9] = util::GNU_NAMES;

/// One recorded GNU release: its name, `cases.txt` and `fixtures.txt`,
/// and the `MHASH_GNU_COMPAT` value that reproduces it (`None`: the
/// default).
struct Release {
    name: &'static str,
    cases: &'static str,
    fixtures: &'static [u8],
    compat: Option<&'static str>,
    /// Replayed through links made by `mhash --install-links` with a GNU
    /// of this release first on `PATH` (stand-ins), not plain symlinks.
    installed_over: Option<&'static str>,
}

const GNU_9_11: Release = Release {
    name: "9.11",
    cases: include_str!("data/gnu-9.11/cases.txt"),
    fixtures: include_bytes!("data/gnu-9.11/fixtures.txt"),
    compat: None,
    installed_over: None,
};

const GNU_8_32: Release = Release {
    name: "8.32",
    cases: include_str!("data/gnu-8.32/cases.txt"),
    fixtures: include_bytes!("data/gnu-8.32/fixtures.txt"),
    compat: Some("8.32"),
    installed_over: None,
};

const GNU_8_32_LINKS: Release = Release {
    name: "8.32 (links)",
    cases: include_str!("data/gnu-8.32/links/cases.txt"),
    fixtures: include_bytes!("data/gnu-8.32/links/fixtures.txt"),
    compat: None,
    installed_over: Some("8.32"),
};

/// One recorded case: the command line and GNU's answer.
struct Fixture {
    case: String,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    status: i32,
}

/// The `@setup` lines and the cases of `cases.txt`, as the recorder reads
/// them (a case marked `? ` is a known difference: its text without the mark).
fn read_cases(r: &Release) -> (String, Vec<String>) {
    let mut setup = Vec::new();
    let mut cases = Vec::new();
    for line in r.cases.lines() {
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
fn read_fixtures(r: &Release) -> Vec<Fixture> {
    let mut rest = r.fixtures;
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
fn replay(bindir: &Path, compat: Option<&str>, setup: &str, case: &str) -> (Vec<u8>, Vec<u8>, i32) {
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
    if let Some(v) = compat {
        c.env("MHASH_GNU_COMPAT", v);
    }
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

/// Fails unless every case of `r`'s `cases.txt` has its recorded answer.
fn check_recorded(r: &Release) {
    let (_, cases) = read_cases(r);
    let recorded: Vec<String> = read_fixtures(r).into_iter().map(|f| f.case).collect();
    assert_eq!(
        recorded, cases,
        "tests/data/gnu-{0}/cases.txt changed: run scripts/record-gnu-fixtures /opt/gnu-{0}/bin tests/data/gnu-{0}/cases.txt",
        r.name
    );
}

#[test]
fn fixtures_are_recorded_for_every_case() {
    check_recorded(&GNU_9_11);
}

#[test]
fn fixtures_are_recorded_for_every_case_of_8_32() {
    check_recorded(&GNU_8_32);
}

/// Replays every recorded case of `r` against mhash; fails on any
/// difference not marked `? ` in `cases.txt`, and on a marked case that
/// now matches.
fn replay_release(r: &Release) {
    let (setup, _) = read_cases(r);
    let known: Vec<&str> = r.cases.lines().filter_map(|l| l.strip_prefix("? ")).collect();
    let bin = TempDir::new().unwrap();
    let bindir = std::fs::canonicalize(bin.path()).unwrap();
    match r.installed_over {
        None => {
            for n in NAMES {
                util::mhash_link(&bindir, n);
            }
        }
        Some(release) => install_over(&bindir, release),
    }
    let fixtures = read_fixtures(r);
    let mut failed = Vec::new();
    let mut known_left = 0;
    let strace = Path::new("/usr/bin/strace").exists();
    let rel = r.name;
    for f in &fixtures {
        if f.case.contains("strace ") && !strace {
            util::skip("gnu_fixtures", &format!("no /usr/bin/strace for: {}", f.case));
            continue;
        }
        let (stdout, stderr, status) = replay(&bindir, r.compat, &setup, &f.case);
        let same = (&stdout, &stderr, status) == (&f.stdout, &f.stderr, f.status);
        let is_known = known.contains(&f.case.as_str());
        if same && is_known {
            failed.push(format!(
                "case: {}\n  now matches GNU {rel}: remove its `? ` mark in cases.txt",
                f.case
            ));
        } else if !same && is_known {
            known_left += 1;
            eprintln!("KNOWN DIFFERENCE from GNU {rel} (marked `? `): {}", f.case);
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
            "{known_left} of {} recorded GNU {rel} cases are known differences",
            fixtures.len()
        );
    }
    assert!(
        failed.is_empty(),
        "{} of {} recorded GNU {rel} cases differ:\n{}",
        failed.len(),
        fixtures.len(),
        failed.join("\n")
    );
}

/// Makes mhash's links in `bindir` with `mhash --install-links`, a GNU
/// `release` first on `PATH` after it: stand-in scripts that answer
/// `--version` with the first line GNU's tools print (`sha256sum (GNU
/// coreutils) 8.32`; 8.32's cksum: `cksum (coreutils) 8.32`, as a build
/// of 8.32 prints it). Each link's line must name that release.
#[cfg(unix)]
fn install_over(bindir: &Path, release: &str) {
    use std::os::unix::fs::PermissionsExt;
    let gnu = TempDir::new().unwrap();
    for n in NAMES {
        let package = if n == "cksum" && release == "8.32" {
            "coreutils"
        } else {
            "GNU coreutils"
        };
        let p = gnu.path().join(n);
        std::fs::write(&p, format!("#!/bin/sh\necho '{n} ({package}) {release}'\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let o = Command::new(util::MHASH)
        .arg("--install-links")
        .arg(bindir)
        .env_clear()
        .env(
            "PATH",
            format!("{}:{}:/usr/bin:/bin", bindir.display(), gnu.path().display()),
        )
        .output()
        .unwrap();
    assert!(o.status.success(), "--install-links: {o:?}");
    let out = String::from_utf8(o.stdout).unwrap();
    for n in NAMES {
        assert!(
            out.lines().any(|l| l.contains(&format!("/{n} -> "))
                && l.contains(&format!("(as GNU coreutils {release}, found "))),
            "{n}: not installed as GNU {release}:\n{out}"
        );
    }
}

#[cfg(not(unix))]
fn install_over(_: &Path, _: &str) {}

#[test]
fn fixtures_are_recorded_for_every_case_of_8_32_links() {
    check_recorded(&GNU_8_32_LINKS);
}

/// GNU 8.32's answers, through links `--install-links` made over a GNU
/// 8.32, nothing set.
#[cfg(unix)]
#[test]
fn links_installed_over_gnu_8_32_answer_as_gnu_8_32() {
    replay_release(&GNU_8_32_LINKS);
}

#[cfg(unix)]
#[test]
fn mhash_answers_every_recorded_case_as_gnu_9_11() {
    replay_release(&GNU_9_11);
}

/// GNU 8.32 (Ubuntu 22.04, Debian 11, RHEL 9) under `MHASH_GNU_COMPAT=8.32`.
#[cfg(unix)]
#[test]
fn mhash_answers_every_recorded_case_as_gnu_8_32() {
    replay_release(&GNU_8_32);
}

/// A `MHASH_GNU_COMPAT` value naming no release mhash reproduces fails
/// every call at once (exit 1, one line naming the supported values, no
/// output), under every name and in mhash's own face, `--help` included;
/// the accepted values (and an empty one, the default) work.
#[cfg(unix)]
#[test]
fn an_unsupported_gnu_compat_value_is_one_clear_error() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    std::fs::write(d.join("f"), b"abc").unwrap();
    for v in ["7.0", "8.31", "9", "9.12", "10.0", "latest", " 9.1"] {
        let want = format!("mhash: MHASH_GNU_COMPAT={v:?} is not supported (supported: 8.32, 9.1 to 9.11)\n");
        for name in ["sha256sum", "md5sum", "cksum", "sum", "b2sum"] {
            for args in [&["f"][..], &["--help"][..], &["-c", "nosuch"][..]] {
                util::named(d, name)
                    .env("MHASH_GNU_COMPAT", v)
                    .args(args)
                    .assert()
                    .code(1)
                    .stdout("")
                    .stderr(want.clone());
            }
        }
        util::mhash(d)
            .env("MHASH_GNU_COMPAT", v)
            .arg("f")
            .assert()
            .code(1)
            .stdout("")
            .stderr(want);
    }
    for v in ["", "8.32", "9.1", "9.2", "9.3", "9.4", "9.10", "9.11"] {
        util::named(d, "md5sum")
            .env("MHASH_GNU_COMPAT", v)
            .arg("f")
            .assert()
            .success()
            .stdout("900150983cd24fb0d6963f7d28e17f72  f\n")
            .stderr("");
    }
}

/// GNU 8.32's differences from 9.1 that its own test suite checks
/// (tests/misc/md5sum.pl `ck-strict-1`, sha1sum.pl's message, sum.pl),
/// also recorded in `tests/data/gnu-8.32`: here as a quick, readable
/// summary, expected values from GNU 8.32's tests.
#[cfg(unix)]
#[test]
fn gnu_8_32_mode_in_brief() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    std::fs::write(d.join("f"), b"").unwrap();
    let run = |name: &str, args: &[&str]| {
        let mut c = util::named(d, name);
        c.env("MHASH_GNU_COMPAT", "8.32").args(args);
        c
    };
    // md5sum.pl ck-strict-1: an empty line is improperly formatted.
    std::fs::write(d.join("f.md5"), b"d41d8cd98f00b204e9800998ecf8427e  f\n\n").unwrap();
    run("md5sum", &["--check", "--strict", "f.md5"])
        .assert()
        .code(1)
        .stdout("f: OK\n")
        .stderr("md5sum: WARNING: 1 line is improperly formatted\n");
    // sha1sum.pl check-bsd: the algorithm is named.
    std::fs::write(
        d.join("f.md5"),
        b"MD5 (f) = da39a3ee5e6b4b0d3255bfef95601890afd80709\n",
    )
    .unwrap();
    run("sha1sum", &["--check", "f.md5"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("sha1sum: f.md5: no properly formatted SHA1 checksum lines found\n");
    // sum.pl: the BSD sum names a file only when there are several.
    std::fs::write(d.join("f"), b"abc").unwrap();
    run("sum", &["f"]).assert().success().stdout("16556     1\n");
    run("sum", &["-s", "f"]).assert().success().stdout("294 1 f\n");
    run("sum", &["f", "f"])
        .assert()
        .success()
        .stdout("16556     1 f\n16556     1 f\n");
    // cksum is the CRC alone: -a is an invalid option.
    run("cksum", &["-a", "md5", "f"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("cksum: invalid option -- 'a'\nTry 'cksum --help' for more information.\n");
    run("cksum", &["f"]).assert().success().stdout("1219131554 3 f\n");
}
