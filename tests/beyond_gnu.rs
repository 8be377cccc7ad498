//! Beyond GNU: BLAKE3 and the `b3sum` personality, XXH3/XXH128
//! in xxhsum's formats, several algorithms from one read
//! (`-a md5,sha256,...`), check files mixing algorithms, and `mhash bench`.
//!
//! Expected values: GNU coreutils 9.1's own output for the GNU algorithms
//! (`md5sum --tag`, `sha256sum --tag`, ...), the BLAKE3 team's published
//! test vectors (`tests/data/vectors/blake3`), xxHash's own values for
//! "abc" (`xxhsum -H3`/`-H2`), never mhash's own output.
#![cfg(unix)]

use std::fs;
use std::path::Path;
use tempfile::TempDir;

use crate::util::{self, gnu_named, mhash, noise};

const BLAKE3_ABC: &str = "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"; // BLAKE3 reference implementation
const XXH3_ABC: &str = "78af5f94892f3950"; // xxhsum -H3
const XXH128_ABC: &str = "06b05ab6733a618578af5f94892f3950"; // xxhsum -H2

/// GNU 9.1's tool itself (`/usr/bin/NAME`): its stdout, or `None` when
/// GNU coreutils is not installed.
fn gnu(dir: &Path, name: &str, args: &[&str]) -> Option<Vec<u8>> {
    if !util::gnu_available(&format!("beyond_gnu: the {name} comparison")) {
        return None;
    }
    let out = util::gnu(name).current_dir(dir).args(args).output().unwrap();
    Some(out.stdout)
}

fn corpus() -> TempDir {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(d.join("abc"), b"abc").unwrap();
    fs::write(d.join("empty"), b"").unwrap();
    fs::write(d.join("a\\b"), b"backslash\n").unwrap();
    fs::write(d.join("two\nlines"), b"newline\n").unwrap();
    // Larger than the read buffer (256 KiB), so one read does not hold it:
    // the ring of shared buffers is used (one thread per digest).
    fs::write(d.join("big"), noise(3 << 20 | 12_345, 5)).unwrap();
    t
}

const GNU_TOOLS: [(&str, &str); 4] = [
    ("md5", "md5sum"),
    ("sha1", "sha1sum"),
    ("sha256", "sha256sum"),
    ("blake2b", "b2sum"),
];

/// What `mhash -a md5,sha1,sha256,blake2b FILES` must print: for each file
/// in argument order, GNU's `--tag` line of each algorithm in list order.
fn expected_multi(dir: &Path, files: &[&str]) -> Option<Vec<u8>> {
    let mut want = Vec::new();
    for f in files {
        for (_, tool) in GNU_TOOLS {
            want.extend(gnu(dir, tool, &["--tag", f])?);
        }
    }
    Some(want)
}

#[test]
fn several_algorithms_from_one_read_match_gnu_tagged_lines() {
    let t = corpus();
    let d = t.path();
    let files = ["abc", "empty", "a\\b", "two\nlines", "big"];
    let Some(want) = expected_multi(d, &files) else {
        return;
    };
    for jobs in ["1", "2", "3"] {
        let out = mhash(d)
            .args(["-a", "md5,sha1,sha256,blake2b", "-j", jobs])
            .args(files)
            .output()
            .unwrap();
        assert!(out.status.success(), "-j{jobs}: {out:?}");
        assert_bytes_eq!(out.stdout, want, "-j{jobs}");
    }
    // One large file alone: each digest on its own thread (the ring).
    let Some(want) = expected_multi(d, &["big"]) else {
        return;
    };
    for jobs in ["1", "2", "4"] {
        let out = mhash(d)
            .args(["-a", "md5,sha1,sha256,blake2b", "-j", jobs, "big"])
            .output()
            .unwrap();
        assert_bytes_eq!(out.stdout, want, "big -j{jobs}");
    }
    // Standard input, read once for all digests.
    let big = fs::read(d.join("big")).unwrap();
    let out = mhash(d)
        .args(["-a", "md5,sha256", "-j", "2"])
        .write_stdin(big)
        .output()
        .unwrap();
    let mut want = gnu(d, "md5sum", &["--tag", "big"]).unwrap();
    want.extend(gnu(d, "sha256sum", &["--tag", "big"]).unwrap());
    let want = String::from_utf8(want).unwrap().replace("(big)", "(-)");
    assert_bytes_eq!(out.stdout, want, "stdin");
}

#[test]
fn several_algorithms_report_a_missing_file_once_and_go_on() {
    let t = corpus();
    let d = t.path();
    let out = mhash(d)
        .args(["-a", "md5,blake3", "nope", "abc"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("MD5 (abc) = 900150983cd24fb0d6963f7d28e17f72\nBLAKE3 (abc) = {BLAKE3_ABC}\n")
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("nope: No such file or directory").count(), 1, "{err}");
    // The list is validated: unknown members, families, --untagged, -l.
    for bad in [
        &["-a", "md5,nosuch"][..],
        &["-a", "md5,sha2"],
        &["-a", "md5,sha256", "--untagged"],
        &["-a", "md5,blake3", "-l", "128"],
    ] {
        let out = mhash(d).args(bad).arg("abc").output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
        assert!(out.stdout.is_empty(), "{bad:?}");
    }
}

#[test]
fn a_check_file_mixing_algorithms_is_verified_line_by_line() {
    let t = corpus();
    let d = t.path();
    let mut sums = Vec::new();
    for (_, tool) in GNU_TOOLS {
        let Some(o) = gnu(d, tool, &["--tag", "abc", "big"]) else {
            return;
        };
        sums.extend(o);
    }
    sums.extend(
        format!("BLAKE3 (abc) = {BLAKE3_ABC}\nXXH3_{XXH3_ABC}  abc\nXXH128 (abc) = {XXH128_ABC}\n").bytes(),
    );
    fs::write(d.join("MIXED"), &sums).unwrap();
    let out = mhash(d).args(["-c", "MIXED"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches(": OK").count(), 11, "{text}");
    // One wrong digest: that line fails, the rest pass, exit 1.
    let bad = String::from_utf8(sums)
        .unwrap()
        .replace(BLAKE3_ABC, &BLAKE3_ABC.replace('6', "7"));
    fs::write(d.join("MIXED"), bad).unwrap();
    let out = mhash(d).args(["-c", "MIXED"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    // (the BLAKE3 line is next to XXH3's for the same file: it names its
    // algorithm)
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .matches("abc: FAILED (BLAKE3)\n")
            .count(),
        1
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("WARNING: 1 computed checksum did NOT match"));
}

#[test]
fn xxhash_lines_use_xxhsum_formats_and_read_back() {
    let t = corpus();
    let d = t.path();
    let line =
        |args: &[&str]| String::from_utf8(mhash(d).args(args).arg("abc").output().unwrap().stdout).unwrap();
    assert_eq!(line(&["-a", "xxh3"]), format!("XXH3_{XXH3_ABC}  abc\n"));
    assert_eq!(
        line(&["-a", "xxh3", "--tag"]),
        format!("XXH3 (abc) = {XXH3_ABC}\n")
    );
    // XXH128 is written tagged: a bare 32-digit line would be read as MD5.
    assert_eq!(line(&["-a", "xxh128"]), format!("XXH128 (abc) = {XXH128_ABC}\n"));
    assert_eq!(
        line(&["-a", "xxh128", "--untagged"]),
        format!("{XXH128_ABC}  abc\n")
    );
    assert_eq!(
        line(&["-a", "xxh128", "--tag"]),
        format!("XXH128 (abc) = {XXH128_ABC}\n")
    );
    // xxhsum's own files: XXH3_ lines with or without -a; plain 32-digit
    // lines as XXH128 by -a or by the file's name.
    fs::write(d.join("sums.xxh3"), format!("XXH3_{XXH3_ABC}  abc\n")).unwrap();
    fs::write(d.join("sums.xxh128"), format!("{XXH128_ABC}  abc\n")).unwrap();
    fs::write(d.join("plain"), format!("{XXH128_ABC}  abc\n")).unwrap();
    for args in [
        &["-c", "sums.xxh3"][..],
        &["-a", "xxh3", "-c", "sums.xxh3"],
        &["-c", "sums.xxh128"],
        &["-a", "xxh128", "-c", "plain"],
    ] {
        mhash(d).args(args).assert().success().stdout("abc: OK\n");
    }
    // Without a hint a 32-digit line is MD5 (as GNU reads it): it fails.
    mhash(d)
        .args(["-c", "plain"])
        .assert()
        .code(1)
        .stdout("abc: FAILED\n");
}

#[test]
fn blake3_matches_the_official_vectors_through_the_cli() {
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/vectors/blake3/test_vectors.json");
    let text = fs::read_to_string(&vectors).unwrap_or_else(|e| panic!("{}: {e}", vectors.display()));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let t = TempDir::new().unwrap();
    let d = t.path();
    for c in v["cases"].as_array().unwrap() {
        let len = c["input_len"].as_u64().unwrap() as usize;
        if ![0, 1, 1023, 1024, 1025, 8193, 102_400].contains(&len) {
            continue;
        }
        let input: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        fs::write(d.join("in"), &input).unwrap();
        let xof = c["hash"].as_str().unwrap();
        mhash(d)
            .args(["-a", "blake3", "in"])
            .assert()
            .success()
            .stdout(format!("{}  in\n", &xof[..64]));
        // -l is in bits on the native face; b3sum's --length in bytes. A
        // length `mhash -c` infers nothing at is written tagged unless
        // --untagged says otherwise.
        mhash(d)
            .args(["-a", "blake3", "-l", "1048", "--untagged", "in"])
            .assert()
            .stdout(format!("{xof}  in\n"));
        mhash(d)
            .args(["-a", "blake3", "-l", "1048", "in"])
            .assert()
            .stdout(format!("BLAKE3-1048 (in) = {xof}\n"));
        gnu_named(d, "b3sum")
            .args(["--length", "131", "in"])
            .assert()
            .success()
            .stdout(format!("{xof}  in\n"));
        mhash(d)
            .env("MHASH_BACKEND", "portable")
            .args(["-a", "blake3", "in"])
            .assert()
            .stdout(format!("{}  in\n", &xof[..64]));
    }
}

#[test]
fn blake3_one_large_file_on_all_threads_equals_one_thread() {
    let t = corpus();
    let d = t.path();
    fs::write(d.join("huge"), noise(11 << 20 | 777, 9)).unwrap();
    let one = mhash(d)
        .args(["-a", "blake3", "-j", "1", "huge"])
        .output()
        .unwrap()
        .stdout;
    let portable = mhash(d)
        .env("MHASH_BACKEND", "portable")
        .args(["-a", "blake3", "huge"])
        .output()
        .unwrap()
        .stdout;
    assert_eq!(one, portable, "crate vs mhash's portable BLAKE3");
    for j in ["2", "4"] {
        assert_eq!(
            mhash(d)
                .args(["-a", "blake3", "-j", j, "huge"])
                .output()
                .unwrap()
                .stdout,
            one,
            "-j{j}"
        );
    }
    let all = gnu_named(d, "b3sum")
        .args(["--num-threads", "3", "huge"])
        .output()
        .unwrap()
        .stdout;
    assert_eq!(all, one);
}

#[test]
fn b3sum_personality_flags() {
    let t = corpus();
    let d = t.path();
    let b3 = |args: &[&str]| {
        let mut c = gnu_named(d, "b3sum");
        c.args(args);
        c
    };
    b3(&["abc"])
        .assert()
        .success()
        .stdout(format!("{BLAKE3_ABC}  abc\n"));
    b3(&["--tag", "abc"])
        .assert()
        .success()
        .stdout(format!("BLAKE3 (abc) = {BLAKE3_ABC}\n"));
    b3(&["--no-names", "abc"])
        .assert()
        .success()
        .stdout(format!("{BLAKE3_ABC}\n"));
    b3(&["--no-mmap", "abc"])
        .assert()
        .success()
        .stdout(format!("{BLAKE3_ABC}  abc\n"));
    let raw = b3(&["--raw", "abc"]).output().unwrap().stdout;
    assert_eq!(hex::encode(raw), BLAKE3_ABC);
    b3(&[])
        .write_stdin("abc")
        .assert()
        .success()
        .stdout(format!("{BLAKE3_ABC}  -\n"));
    // Names with a backslash or newline are escaped as b3sum and GNU do.
    b3(&["two\nlines"])
        .assert()
        .success()
        .stdout(predicates::str::starts_with("\\").and(predicates::str::ends_with("  two\\nlines\n")));
    // Check mode.
    fs::write(d.join("SUMS"), format!("{BLAKE3_ABC}  abc\n")).unwrap();
    b3(&["-c", "SUMS"]).assert().success().stdout("abc: OK\n");
    b3(&["-c", "--quiet", "SUMS"]).assert().success().stdout("");
    fs::write(d.join("SUMS"), format!("{}  abc\n", BLAKE3_ABC.replace('6', "0"))).unwrap();
    b3(&["-c", "SUMS"]).assert().code(1).stdout("abc: FAILED\n");
    // Refusals: keyed modes, --raw with two inputs, bad lengths, -c with -l.
    for bad in [
        &["--keyed", "abc"][..],
        &["--derive-key", "ctx", "abc"],
        &["--raw", "abc", "empty"],
        &["--length", "0", "abc"],
        &["-c", "-l", "8", "SUMS"],
    ] {
        let out = b3(bad).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{bad:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{bad:?}");
    }
}

use predicates::prelude::PredicateBooleanExt;

#[test]
fn gnu_names_do_not_know_the_new_algorithms() {
    if !util::gnu_available("beyond_gnu::gnu_names_do_not_know_the_new_algorithms") {
        return;
    }
    let t = corpus();
    let d = t.path();
    // Both run as `cksum` (argv[0]), the program name their messages print.
    for name in ["blake3", "xxh3", "xxh128"] {
        let ours = gnu_named(d, "cksum").args(["-a", name, "abc"]).output().unwrap();
        let theirs = util::gnu("cksum")
            .current_dir(d)
            .args(["-a", name, "abc"])
            .output()
            .unwrap();
        assert_eq!(ours.status.code(), theirs.status.code(), "{name}");
        assert_bytes_eq!(ours.stderr, theirs.stderr, "{name}");
    }
    // A tagged BLAKE3 line is not one GNU cksum -c reads.
    fs::write(d.join("SUMS"), format!("BLAKE3 (abc) = {BLAKE3_ABC}\n")).unwrap();
    let ours = gnu_named(d, "cksum").args(["-c", "SUMS"]).output().unwrap();
    let theirs = util::gnu("cksum")
        .current_dir(d)
        .args(["-c", "SUMS"])
        .output()
        .unwrap();
    assert_eq!(ours.status.code(), theirs.status.code());
    assert_bytes_eq!(ours.stderr, theirs.stderr, "cksum -c SUMS");
}

#[test]
fn bench_reports_every_algorithm_asked_for() {
    let t = TempDir::new().unwrap();
    let out = mhash(t.path())
        .args([
            "bench",
            "--json",
            "--seconds",
            "0.6",
            "--algorithms",
            "md5,blake3,xxh3",
            "--bytes",
            "64,4K",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["results"].as_array().unwrap();
    // A row per usable backend of each, one of them the table's choice.
    for algo in ["md5", "blake3", "xxh3"] {
        let of = |chosen: bool| {
            rows.iter()
                .filter(|r| r["algorithm"] == algo && (!chosen || r["chosen"] == true))
                .count()
        };
        assert!(of(false) >= 1, "{algo} has rows");
        assert_eq!(of(true), 1, "{algo}: one table choice");
    }
    for r in rows {
        let sizes: Vec<u64> = r["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["bytes"].as_u64().unwrap())
            .collect();
        assert_eq!(sizes, [64, 4096]);
        assert!(r["results"][1]["mb_per_s"].as_f64().unwrap() > 0.0);
        assert!(!r["backend"].as_str().unwrap().is_empty());
    }
    assert_eq!(v["fastest_non_cryptographic"], "xxh3");
    assert!(["md5", "blake3"].contains(&v["fastest_cryptographic"].as_str().unwrap()));
    let text = mhash(t.path())
        .args(["bench", "--seconds", "0.3", "-a", "crc,sha256", "--bytes", "1K"])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("fastest cryptographic: sha256"), "{text}");
    assert!(text.contains("fastest non-cryptographic: crc"), "{text}");
    mhash(t.path())
        .args(["bench", "--algorithms", "nosuch"])
        .assert()
        .code(1);
    mhash(t.path()).args(["bench", "--bytes", "0"]).assert().code(1);
}

/// `-a` with BLAKE3 or BLAKE2b (whose untagged lines take any length, and
/// base64) over a check file that mixes algorithms: a tagged line of an
/// algorithm outside the list is improperly formatted, not read as an
/// untagged line (`SHA1` as a 3-byte base64 digest of the file
/// `(abc) = ...`). Digests: RFC 1321's MD5 and FIPS 180's SHA-1 of "abc",
/// the BLAKE3 reference's.
#[test]
fn a_list_with_blake3_skips_other_algorithms_tagged_lines() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(d.join("abc"), b"abc").unwrap();
    fs::write(
        d.join("CHECKSUMS"),
        format!(
            "MD5 (abc) = 900150983cd24fb0d6963f7d28e17f72\n\
             SHA1 (abc) = a9993e364706816aba3e25717850c26c9cd0d89d\n\
             BLAKE3 (abc) = {BLAKE3_ABC}\n"
        ),
    )
    .unwrap();
    for (algos, stdout, warning) in [
        (
            "md5,blake3",
            "abc: OK\nabc: OK (BLAKE3)\n",
            "WARNING: 1 line is improperly formatted",
        ),
        ("blake3", "abc: OK\n", "WARNING: 2 lines are improperly formatted"),
    ] {
        mhash(d)
            .args(["-a", algos, "-c", "CHECKSUMS"])
            .assert()
            .success()
            .stdout(stdout)
            .stderr(predicates::str::contains(warning));
    }
}
