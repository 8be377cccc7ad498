//! `--install-links DIR`: each link reproduces the GNU release of the tool
//! it shadows (the next on `PATH`, else /usr/bin's), with nothing to set;
//! `MHASH_GNU_COMPAT` still wins. Compared live with the GNU builds here:
//! /usr/bin (Debian 12: 9.1) and, where present, /opt/gnu-9.11/bin. A GNU
//! 8.32 build is looked for in /opt/gnu-8.32/bin (SKIP where absent).
#![cfg(unix)]

use std::path::{Path, PathBuf};
use tempfile::TempDir;

use crate::util::{self, MHASH};

/// The release in the first line of `tool --version`
/// (`sha256sum (GNU coreutils) 9.1`), where it is GNU's.
pub fn gnu_version(tool: &Path) -> Option<String> {
    let out = util::command(tool).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let first = text.lines().next()?.to_string();
    // GNU 8.32's cksum says `cksum (coreutils) 8.32`.
    let (_, v) = first
        .split_once("(GNU coreutils) ")
        .or_else(|| first.split_once("(coreutils) "))?;
    Some(v.split_whitespace().next()?.to_string())
}

/// Runs `script` with bash in `dir` with `PATH=path`, nothing else set
/// but `LC_ALL=C`; returns stdout and stderr, then the exit status.
fn run(dir: &Path, path: &str, script: &str, env: &[(&str, &str)]) -> (Vec<u8>, Vec<u8>, Option<i32>) {
    let mut c = std::process::Command::new("/bin/bash");
    util::empty_env(&mut c)
        .current_dir(dir)
        .env("PATH", path)
        .args(["-c", script]);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    (o.stdout, o.stderr, o.status.code())
}

/// Twenty GNU commands whose bytes differ between releases or are
/// release-specific (check mode with a quoted name, --help, errors).
const COMMANDS: &[&str] = &[
    "sha256sum -c sums",
    "sha256sum -c --quiet sums",
    "md5sum -c md5s",
    "sha256sum 'a b'",
    "sha256sum --tag 'a b'",
    "sha256sum --help",
    "md5sum --help",
    "b2sum --help",
    "cksum --help",
    "sum --help",
    "sha256sum -b 'a b'",
    "sha256sum nosuch",
    "sha256sum -c nosuch",
    "sha256sum --bogus",
    "sha256sum -c --strict bad",
    "sha256sum -c -w bad",
    "cksum 'a b'",
    "cksum -a md5 'a b'",
    "sum 'a b'",
    "b2sum -l 9 'a b'",
];

fn scene() -> TempDir {
    let d = TempDir::new().unwrap();
    let p = d.path();
    std::fs::write(p.join("a b"), "abc").unwrap();
    let (sums, _, _) = run(p, "/usr/bin:/bin", "/usr/bin/sha256sum 'a b'", &[]);
    std::fs::write(p.join("sums"), sums).unwrap();
    let (md5s, _, _) = run(p, "/usr/bin:/bin", "/usr/bin/md5sum 'a b'", &[]);
    std::fs::write(p.join("md5s"), md5s).unwrap();
    std::fs::write(p.join("bad"), "not a line\n").unwrap();
    d
}

/// Installs the links in `scene/links` with `gnu_dir` after them on PATH,
/// then runs [`COMMANDS`] through them and through `gnu_dir`'s GNU tools
/// (the version line's program name aside): the same bytes, no variable
/// set.
fn links_reproduce(gnu_dir: &str, test: &str) {
    let want = match gnu_version(&Path::new(gnu_dir).join("sha256sum")) {
        Some(v) => v,
        None => return util::skip(test, &format!("no GNU sha256sum in {gnu_dir}")),
    };
    let d = scene();
    let links: PathBuf = d.path().join("links");
    std::fs::create_dir(&links).unwrap();
    let path = format!("{}:{gnu_dir}:/usr/bin:/bin", links.display());
    let (out, err, code) = run(d.path(), &path, &format!("{MHASH} --install-links links"), &[]);
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&err));
    let out = String::from_utf8_lossy(&out).into_owned();
    let exe = std::fs::canonicalize(MHASH).unwrap();
    assert!(
        out.contains(&format!(
            "links/sha256sum -> {} (as GNU coreutils {want}, found {gnu_dir}/sha256sum)\n",
            exe.display()
        )),
        "{out}"
    );
    let theirs_path = format!("{gnu_dir}:/usr/bin:/bin");
    for cmd in COMMANDS {
        let ours = run(d.path(), &path, &format!("{cmd} 2>&1"), &[]);
        let theirs = run(d.path(), &theirs_path, &format!("{cmd} 2>&1"), &[]);
        assert_bytes_eq!(ours.0, theirs.0, "{test}: `{cmd}` as GNU {want}");
        assert_eq!(ours.2, theirs.2, "{test}: `{cmd}` status");
    }
}

#[test]
fn links_reproduce_the_system_gnu_release_with_nothing_set() {
    if !util::gnu_available("links_reproduce_the_system_gnu_release") {
        return;
    }
    links_reproduce("/usr/bin", "links_reproduce_the_system_gnu_release");
}

#[test]
fn links_reproduce_a_gnu_build_first_on_path() {
    for dir in ["/opt/gnu-9.11/bin", "/opt/gnu-8.32/bin"] {
        links_reproduce(dir, &format!("links_reproduce_a_gnu_build_first_on_path ({dir})"));
    }
}

#[test]
fn gnu_compat_variable_still_wins_over_the_links_release() {
    if !util::gnu_available("gnu_compat_variable_still_wins") {
        return;
    }
    let d = scene();
    let links = d.path().join("links");
    std::fs::create_dir(&links).unwrap();
    let path = format!("{}:/usr/bin:/bin", links.display());
    run(d.path(), &path, &format!("{MHASH} --install-links links"), &[]);
    // GNU 9.11 quotes a name with a space in check mode; 9.1 does not
    // (GNU's NEWS for 9.2 onwards; /usr/bin's 9.1 prints `a b: OK`).
    let (out, _, _) = run(
        d.path(),
        &path,
        "sha256sum -c sums",
        &[("MHASH_GNU_COMPAT", "9.11")],
    );
    assert_bytes_eq!(out, "'a b': OK\n");
    let (out, _, _) = run(d.path(), &path, "sha256sum -c sums", &[]);
    let (gnu, _, _) = run(d.path(), "/usr/bin:/bin", "sha256sum -c sums", &[]);
    assert_bytes_eq!(out, gnu);
}
