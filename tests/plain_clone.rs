//! What a plain clone (no `../shared` beside it) can run: the static musl
//! build's GNU conformance step is skipped there, saying why, and runs
//! the cases where they are; the Dockerfile builds the binary that
//! `scripts/musl-build.sh` builds.
//!
//! The expected digest is published: SHA-256 of the empty string
//! (FIPS 180-2).
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use tempfile::TempDir;

use crate::util::{self, GNU_TOOLS, MHASH, bash};

const SHA256_EMPTY: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; // FIPS 180-2

/// The repository's `scripts/gnu-conformance.sh`, copied into
/// `root/clone/scripts/` (a clone's layout; `root/shared` is the place
/// of the cases).
fn clone_with_script(root: &Path) -> std::path::PathBuf {
    let scripts = root.join("clone/scripts");
    fs::create_dir_all(&scripts).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gnu-conformance.sh");
    let dst = scripts.join("gnu-conformance.sh");
    fs::copy(src, &dst).unwrap();
    dst
}

#[test]
fn conformance_step_is_skipped_in_a_plain_clone() {
    let d = TempDir::new().unwrap();
    let script = clone_with_script(d.path());
    let out = bash(d.path(), None, &format!("{} {MHASH}", script.display()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("SKIP conformance: ../shared/conformance/run.sh is not here"),
        "the skip and its reason: {stdout}"
    );
}

#[test]
fn conformance_step_runs_the_cases_where_they_are() {
    let d = TempDir::new().unwrap();
    let script = clone_with_script(d.path());
    // A stand-in for the runner: lists where each GNU name leads, hashes
    // the empty input through one of them, and fails as a failed case does.
    let cases = d.path().join("shared/conformance");
    fs::create_dir_all(&cases).unwrap();
    let runner = cases.join("run.sh");
    fs::write(
        &runner,
        "for n in md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum; do\n\
         \x20 echo \"$n -> $(readlink \"$1/$n\")\"\n\
         done\n\
         \"$1/sha256sum\" </dev/null\n\
         exit 3\n",
    )
    .unwrap();
    fs::set_permissions(&runner, fs::Permissions::from_mode(0o755)).unwrap();
    let out = bash(d.path(), None, &format!("{} {MHASH}", script.display()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "the runner's status: {stdout}");
    for n in GNU_TOOLS {
        assert!(stdout.contains(&format!("{n} -> {MHASH}\n")), "{n}: {stdout}");
    }
    assert!(stdout.contains(&format!("{SHA256_EMPTY}  -\n")), "{stdout}");
    assert!(!stdout.contains("SKIP"), "{stdout}");
}

#[test]
fn dockerfile_builds_with_the_musl_script_into_scratch() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docker = fs::read_to_string(root.join("Dockerfile")).unwrap();
    let script = fs::read_to_string(root.join("scripts/musl-build.sh")).unwrap();
    let stages: Vec<&str> = docker.split("\nFROM ").skip(1).collect();
    assert_eq!(stages.len(), 2, "a build stage and the image");
    assert!(
        stages[0].contains("\nRUN scripts/musl-build.sh\n"),
        "{}",
        stages[0]
    );
    assert!(stages[1].starts_with("scratch\n"), "{}", stages[1]);
    // The image copies what the script builds: its target's release binary.
    let target = script
        .lines()
        .find_map(|l| l.strip_prefix("TARGET="))
        .expect("musl-build.sh names its TARGET");
    assert!(
        stages[1].contains(&format!("target/{target}/release/mhash /usr/local/bin/mhash\n")),
        "{}",
        stages[1]
    );
    assert!(
        stages[1].contains("RUN [\"/usr/local/bin/mhash\", \"--install-links\", \"/usr/local/bin\"]\n"),
        "{}",
        stages[1]
    );
}

#[test]
fn readme_build_and_test_times_say_when_where_and_how_loaded() {
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    // The paragraph after the first two commands.
    let after = readme
        .split("```\n")
        .nth(1)
        .expect("README opens with a sh block");
    let para: String = after
        .trim_start()
        .split("\n\n")
        .next()
        .unwrap()
        .replace('\n', " ");
    let has_date = para.as_bytes().windows(10).any(|w| {
        w.iter().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                *b == b'-'
            } else {
                b.is_ascii_digit()
            }
        })
    });
    assert!(has_date, "a YYYY-MM-DD date: {para}");
    for needle in ["nproc", "load", "min", "release build", "Rust 1."] {
        assert!(para.contains(needle), "{needle:?} in: {para}");
    }
    let model = fs::read_to_string("/proc/cpuinfo").ok().and_then(|c| {
        c.lines()
            .find(|l| l.starts_with("model name"))
            .map(str::to_string)
    });
    if let Some(m) = model {
        let name = m.split(':').nth(1).unwrap().trim().to_string();
        if !para.contains(&name) {
            util::skip(
                "readme_build_and_test_times",
                &format!("README's figures are from another machine than this one ({name})"),
            );
        }
    }
}
