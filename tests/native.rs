//! The native `mhash` face and the default (GNU 9.11) behaviour: `-a`,
//! algorithm inference in `-c`, 9.11's shell-quoted status lines, exit
//! statuses, pipes and full devices. Expected digests are published test
//! vectors (FIPS 180-2 / RFC 1321 "abc" examples); expected lines follow
//! GNU's documented formats.

use std::fs;
#[cfg(unix)]
use std::path::Path;
use tempfile::TempDir;

#[cfg(unix)]
use crate::util;
use crate::util::{mhash, named_by_path};

const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; // FIPS 180-2 B.1
const MD5_ABC: &str = "900150983cd24fb0d6963f7d28e17f72"; // RFC 1321 A.5
const SHA1_ABC: &str = "a9993e364706816aba3e25717850c26c9cd0d89d"; // FIPS 180-2 A.1

fn abc_dir() -> TempDir {
    let d = TempDir::new().unwrap();
    fs::write(d.path().join("abc"), "abc").unwrap();
    d
}

#[test]
fn hashes_with_default_and_named_algorithms() {
    let d = abc_dir();
    mhash(d.path())
        .arg("abc")
        .assert()
        .success()
        .stdout(format!("{SHA256_ABC}  abc\n"));
    mhash(d.path())
        .args(["-a", "md5", "abc"])
        .assert()
        .success()
        .stdout(format!("{MD5_ABC}  abc\n"));
    mhash(d.path())
        .args(["--algorithm=sha1", "--tag", "abc"])
        .assert()
        .success()
        .stdout(format!("SHA1 (abc) = {SHA1_ABC}\n"));
    mhash(d.path())
        .args(["-a", "sha2", "-l", "256", "abc"])
        .assert()
        .success()
        .stdout(format!("{SHA256_ABC}  abc\n"));
}

// Unix: on Windows the GNU names default to binary mode (`HEX *abc`,
// tests/windows.rs).
#[cfg(unix)]
#[test]
fn gnu_personality_prints_what_native_face_prints() {
    let d = abc_dir();
    named_by_path(d.path(), "sha256sum")
        .arg("abc")
        .assert()
        .success()
        .stdout(format!("{SHA256_ABC}  abc\n"));
    named_by_path(d.path(), "md5sum")
        .arg("abc")
        .assert()
        .success()
        .stdout(format!("{MD5_ABC}  abc\n"));
}

#[test]
fn check_infers_algorithm_from_file_name_tag_and_length() {
    let d = abc_dir();
    let p = d.path();
    fs::write(p.join("SHA256SUMS"), format!("{SHA256_ABC}  abc\n")).unwrap();
    mhash(p)
        .args(["-c", "SHA256SUMS"])
        .assert()
        .success()
        .stdout("abc: OK\n");
    // 32 and 40 hex digits name one algorithm each (one file listed with
    // two: the status lines say which).
    fs::write(p.join("list.txt"), format!("{MD5_ABC}  abc\n{SHA1_ABC}  abc\n")).unwrap();
    mhash(p)
        .args(["-c", "list.txt"])
        .assert()
        .success()
        .stdout("abc: OK (MD5)\nabc: OK (SHA1)\n");
    // Tags name the algorithm; one file listed with several algorithms:
    // each status line says which (the native face only).
    fs::write(
        p.join("mixed"),
        format!("MD5 (abc) = {MD5_ABC}\nSHA256 (abc) = {SHA256_ABC}\n"),
    )
    .unwrap();
    mhash(p)
        .args(["-c", "mixed"])
        .assert()
        .success()
        .stdout("abc: OK (MD5)\nabc: OK (SHA256)\n");
}

/// A bare digest whose length fits several algorithms: the most
/// published is computed first (one read when it matches, as with `-a`);
/// when it does not match, the others are computed in one more read.
#[test]
fn check_with_a_shared_length_tries_the_most_published_first_then_the_others() {
    let d = abc_dir();
    let p = d.path();
    fs::write(p.join("list.txt"), format!("{SHA256_ABC}  abc\n")).unwrap();
    mhash(p)
        .args(["-c", "--debug", "list.txt"])
        .assert()
        .success()
        .stdout("abc: OK\n")
        .stderr(predicates::str::contains(
            "list.txt: 1: abc: sha256, chosen by length",
        ));
    // FIPS 202: SHA3-256("abc").
    let sha3 = "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532";
    fs::write(p.join("list.txt"), format!("{sha3}  abc\n")).unwrap();
    mhash(p)
        .args(["-c", "--debug", "list.txt"])
        .assert()
        .success()
        .stdout("abc: OK\n")
        .stderr(predicates::str::contains(
            "list.txt: 1: abc: sha3-256, chosen by fallback",
        ));
    // A digest none of them gives: FAILED, as with -a.
    fs::write(p.join("list.txt"), format!("{}  abc\n", "0".repeat(64))).unwrap();
    mhash(p)
        .args(["-c", "list.txt"])
        .assert()
        .code(1)
        .stdout("abc: FAILED\n");
}

#[test]
fn base64_digests_round_trip_tagged_and_untagged() {
    let d = abc_dir();
    let p = d.path();
    // base64 of the FIPS 180-2 "abc" digest.
    let b64 = "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=";
    mhash(p)
        .args(["-a", "sha256", "--base64", "abc"])
        .assert()
        .success()
        .stdout(format!("{b64}  abc\n"));
    fs::write(p.join("x.sha256"), format!("{b64}  abc\n")).unwrap();
    mhash(p)
        .args(["-c", "x.sha256"])
        .assert()
        .success()
        .stdout("abc: OK\n");
    fs::write(p.join("t"), format!("SHA256 (abc) = {b64}\n")).unwrap();
    mhash(p).args(["-c", "t"]).assert().success().stdout("abc: OK\n");
    // MD5's 16 bytes: a 24-character base64 digest names md5 alone.
    fs::write(p.join("list"), "kAFQmDzST7DWlj99KOF/cg==  abc\n").unwrap();
    mhash(p)
        .args(["-c", "list"])
        .assert()
        .success()
        .stdout("abc: OK\n");
}

// Unix: a newline is not allowed in a Windows file name.
#[cfg(unix)]
#[test]
fn status_lines_are_shell_quoted_as_in_gnu_9_11() {
    let d = abc_dir();
    let p = d.path();
    fs::write(p.join("a\nb"), "abc").unwrap();
    let sums = format!("{SHA256_ABC}   b.txt\n\\{SHA256_ABC}  a\\nb\n");
    fs::write(p.join("sums"), &sums).unwrap();
    named_by_path(p, "sha256sum")
        .args(["-c", "sums"])
        .assert()
        .code(1)
        .stdout("' b.txt': FAILED open or read\n'a'$'\\n''b': OK\n")
        // GNU 9.11 names itself by its bare name in file messages, even
        // when run by a path.
        .stderr(
            "sha256sum: ' b.txt': No such file or directory\n\
             sha256sum: WARNING: 1 listed file could not be read\n",
        );
}

// Unix: a backslash is a separator in a Windows file name.
#[cfg(unix)]
#[test]
fn compat_9_4_escapes_backslash_names_in_status_lines() {
    let d = abc_dir();
    let p = d.path();
    fs::write(p.join("x\\y"), "abc").unwrap();
    fs::write(p.join("sums"), format!("\\{MD5_ABC}  x\\\\y\n")).unwrap();
    named_by_path(p, "md5sum")
        .env("MHASH_GNU_COMPAT", "9.4")
        .args(["-c", "sums"])
        .assert()
        .success()
        .stdout("\\x\\\\y: OK\n");
    named_by_path(p, "md5sum")
        .env("MHASH_GNU_COMPAT", "9.1")
        .args(["-c", "sums"])
        .assert()
        .success()
        .stdout("x\\y: OK\n");
}

#[test]
fn usage_errors_exit_1_not_clap_2() {
    let d = abc_dir();
    mhash(d.path()).arg("--bogus").assert().code(1);
    mhash(d.path()).args(["-a", "nope", "abc"]).assert().code(1);
    named_by_path(d.path(), "sha256sum")
        .arg("--bogus")
        .assert()
        .code(1);
    mhash(d.path())
        .args(["-a", "sha3", "abc"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "--algorithm=sha3 requires specifying --length 224, 256, 384, or 512",
        ));
}

// Unix: bash, SIGPIPE and /dev/full.
#[cfg(unix)]
#[test]
fn closed_pipe_ends_quietly_and_full_device_is_a_write_error() {
    let d = abc_dir();
    let p = d.path();
    let bin = util::MHASH;
    // About 400 KB of output: far more than a pipe holds.
    let args: Vec<&str> = std::iter::repeat_n("abc", 5000).collect();
    let out = util::command("bash")
        .current_dir(p)
        .arg("-c")
        .arg(format!(
            "set -o pipefail; '{bin}' {} | head -c1 >/dev/null",
            args.join(" ")
        ))
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 141 = 128 + SIGPIPE: killed by the signal, as GNU is.
    assert_eq!(out.status.code(), Some(141));
    if Path::new("/dev/full").exists() {
        let full = fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = util::command(bin)
            .current_dir(p)
            .arg("abc")
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("{bin}: write error: No space left on device\n")
        );
    }
}

#[test]
fn a_restricts_tagged_lines_to_that_algorithm() {
    let d = abc_dir();
    let p = d.path();
    fs::write(p.join("TM"), format!("MD5 (abc) = {MD5_ABC}\n")).unwrap();
    // As GNU `cksum -a sha256 -c`: an MD5 line is not a SHA-256 line.
    mhash(p)
        .args(["-a", "sha256", "-c", "TM"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicates::str::ends_with(
            "TM: no properly formatted checksum lines found\n",
        ));
    mhash(p)
        .args(["-a", "md5", "-c", "TM"])
        .assert()
        .success()
        .stdout("abc: OK\n");
    // -l equal to the natural length is accepted.
    mhash(p)
        .args(["-a", "sha256", "-l", "256", "abc"])
        .assert()
        .success()
        .stdout(format!("{SHA256_ABC}  abc\n"));
}

// GLIBC_TUNABLES names x86 features only (glibc's hwcaps mask); on aarch64
// GNU and mhash print the vmull probe instead. It is glibc's: Unix only.
#[cfg(all(unix, any(target_arch = "x86", target_arch = "x86_64")))]
#[test]
fn glibc_tunables_turn_crc_acceleration_off_and_debug_says_so() {
    let d = abc_dir();
    let p = d.path();
    // POSIX cksum of "abc": 1219131554 (GNU coreutils 9.1, tests/data/vectors/crc).
    let off = "glibc.cpu.hwcaps=-AVX512F,-AVX2,-AVX,-PCLMULQDQ";
    let out = named_by_path(p, "cksum")
        .env("GLIBC_TUNABLES", off)
        .args(["--debug", "abc"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1219131554 3 abc\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("using"), "acceleration still reported: {err}");
    assert!(err.contains("pclmul support not detected"), "{err}");
    let out = named_by_path(p, "cksum")
        .env_remove("GLIBC_TUNABLES")
        .arg("abc")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1219131554 3 abc\n");
}

/// On aarch64 (native, or under qemu with `-cpu max` as
/// `scripts/aarch64-test.sh` runs it) the ARMv8 paths are the ones chosen
/// wherever the CPU has them: SHA-1/SHA-256 on the SHA2 instructions,
/// SHA-384/512 on the SHA512 ones, SHA-3 on the SHA3 ones, the CRCs on
/// PMULL and CRC32, and
/// `cksum --debug` prints GNU's vmull line. With `MHASH_BACKEND=portable`
/// (the second emulated run) everything is portable and GNU's "not
/// detected" line is printed instead.
#[cfg(target_arch = "aarch64")]
#[test]
fn aarch64_backends_follow_the_cpu_features() {
    let d = abc_dir();
    let p = d.path();
    // Under `MHASH_BACKEND=portable cargo test` (the second emulated run)
    // mhash runs with the portable backends forced too.
    let portable = util::caller_forces_portable();
    let forced = |mut c: assert_cmd::Command| {
        if portable {
            c.env("MHASH_BACKEND", "portable");
        }
        c
    };
    let out = forced(mhash(p)).arg("--backends").output().unwrap();
    let report = String::from_utf8(out.stdout).unwrap();
    let features = report
        .lines()
        .find_map(|l| l.strip_prefix("CPU features:"))
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>();
    let chosen = |algo: &str| {
        report
            .lines()
            .find_map(|l| {
                let mut w = l.split_whitespace();
                (w.next() == Some(algo)).then(|| w.next().unwrap_or("").to_string())
            })
            .unwrap_or_else(|| panic!("no {algo} row in:\n{report}"))
    };
    let expect = |feature: &str, algos: &[&str], fast: &str| {
        for a in algos {
            let want = if features.contains(&feature) && !portable {
                fast
            } else {
                "portable"
            };
            assert!(chosen(a).contains(want), "{a}: want {want}\n{report}");
        }
    };
    expect("armv8-sha2", &["sha1", "sha224", "sha256"], "armv8-sha2");
    expect("armv8-sha3", &["sha384", "sha512"], "armv8-sha512");
    expect(
        "armv8-sha3",
        &["sha3-224", "sha3-256", "sha3-384", "sha3-512"],
        "armv8-sha3",
    );
    expect("pmull", &["crc"], "pmull");
    expect("armv8-crc32", &["crc32b"], "armv8-crc32");

    let out = forced(named_by_path(p, "cksum"))
        .args(["--debug", "abc"])
        .output()
        .unwrap();
    // POSIX cksum of "abc": 1219131554 (tests/data/vectors/crc).
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1219131554 3 abc\n");
    // GNU 9.11 names the program without its directory in error()
    // messages, --debug's included (recorded in tests/data/gnu-9.11).
    let want = if features.contains(&"pmull") && !portable {
        "cksum: using vmull hardware support\n"
    } else {
        "cksum: vmull support not detected\n"
    };
    assert_eq!(String::from_utf8_lossy(&out.stderr), want);
}

// Unix: GLIBC_TUNABLES (glibc's CPU-feature mask) turns pclmul off.
#[cfg(unix)]
/// GNU 9.11's `cksum --debug -a crc32b` probes pclmul for every file it
/// sums (crc32b_sum_stream), after an earlier operand's error, and not for
/// a file it cannot open. Recorded from GNU 9.11 (built from v9.11) on
/// x86-64: `GLIBC_TUNABLES=glibc.cpu.hwcaps=-PCLMULQDQ cksum --debug -a
/// crc32b nosuch abc . abc` (the tunable makes the line the same on every
/// x86-64 CPU). ARM builds of GNU print nothing for crc32b.
#[test]
fn crc32b_debug_line_comes_for_every_file_summed() {
    let d = abc_dir();
    let out = util::named(d.path(), "cksum")
        .env("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-PCLMULQDQ")
        .args(["--debug", "-a", "crc32b", "nosuch", "abc", ".", "abc"])
        .output()
        .unwrap();
    // zlib's CRC-32 of "abc": 0x352441c2 = 891568578 (tests/data/vectors/crc).
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "891568578 3 abc\n891568578 3 abc\n"
    );
    let want = if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
        "cksum: nosuch: No such file or directory\n\
         cksum: pclmul support not detected\n\
         cksum: pclmul support not detected\n\
         cksum: .: Is a directory\n\
         cksum: pclmul support not detected\n"
    } else {
        "cksum: nosuch: No such file or directory\ncksum: .: Is a directory\n"
    };
    assert_eq!(String::from_utf8_lossy(&out.stderr), want);
    assert_eq!(out.status.code(), Some(1));
}

/// `-l` past 2^64 - 1 on mhash's own face is refused as too long, like
/// any length over the algorithm's (it wrapped to 0, which meant the full
/// 512-bit BLAKE2b digest, without a word).
#[test]
fn a_length_past_u64_is_refused() {
    let t = TempDir::new().unwrap();
    fs::write(t.path().join("a"), b"abc").unwrap();
    for v in ["18446744073709551616", "99999999999999999999"] {
        mhash(t.path())
            .args(["-a", "blake2b", "-l", v, "a"])
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicates::str::contains(format!("invalid length: '{v}'")));
    }
}

/// A binary file given to `mhash -c` (a NUL byte in its first 64 KiB, no
/// properly formatted line there) is read no further: GNU's one line and
/// status 1. The proof that it stopped: a checksum line placed after the
/// first 64 KiB is not read by `mhash -c`, while the `sha256sum`
/// personality (and GNU's own, the oracle) reads the whole file and
/// verifies it; `-w` (a message for each line) reads it all too.
#[test]
fn binary_checksum_file_is_read_no_further() {
    let d = abc_dir();
    let p = d.path();
    let mut junk = vec![0u8; 70 * 1024];
    for (i, b) in junk.iter_mut().enumerate() {
        *b = if i % 97 == 96 { b'\n' } else { (i % 251) as u8 };
    }
    junk.push(b'\n');
    junk.extend_from_slice(format!("{SHA256_ABC}  abc\n").as_bytes());
    fs::write(p.join("blob"), &junk).unwrap();
    mhash(p)
        .args(["-c", "blob"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!(
            "{}: blob: no properly formatted checksum lines found\n",
            crate::util::prog()
        ));
    let warned = mhash(p)
        .args(["-c", "-w", "blob"])
        .assert()
        .success()
        .stdout("abc: OK\n");
    let err = String::from_utf8_lossy(&warned.get_output().stderr).into_owned();
    assert!(
        err.contains(": blob: 900: improperly formatted checksum line\n"),
        "{err}"
    );
    named_by_path(p, "sha256sum")
        .args(["-c", "blob"])
        .assert()
        .success()
        .stdout("abc: OK\n");
    #[cfg(unix)]
    if util::gnu_available("binary_checksum_file_is_read_no_further") {
        let gnu = util::gnu("sha256sum")
            .current_dir(p)
            .args(["-c", "blob"])
            .output()
            .unwrap();
        assert_eq!((gnu.status.code(), &gnu.stdout[..]), (Some(0), &b"abc: OK\n"[..]));
    }
}

/// The first 64 KiB of a checksum file are watched for a NUL byte: a
/// text file's line that spans the 64 KiB mark, a file whose properly
/// formatted line comes before a NUL, and one that ends at exactly 64 KiB
/// without a newline are all read whole.
#[test]
fn checksum_file_past_64_kib_is_read_whole() {
    let d = abc_dir();
    let p = d.path();
    let line = format!("{SHA256_ABC}  abc\n");
    // Comment lines up to just short of 64 KiB, the checksum line across it.
    let mut text = Vec::new();
    while text.len() < 64 * 1024 - 20 {
        text.extend_from_slice(b"# padding padding padding padding\n");
    }
    text.extend_from_slice(line.as_bytes());
    fs::write(p.join("text"), &text).unwrap();
    mhash(p)
        .args(["-c", "text"])
        .assert()
        .success()
        .stdout("abc: OK\n");
    // A properly formatted line first, then binary junk, then a line past
    // 64 KiB: all read.
    let mut mixed = line.clone().into_bytes();
    mixed.extend_from_slice(&[0u8; 70 * 1024]);
    mixed.push(b'\n');
    mixed.extend_from_slice(line.as_bytes());
    fs::write(p.join("mixed"), &mixed).unwrap();
    mhash(p)
        .args(["-c", "mixed"])
        .assert()
        .success()
        .stdout("abc: OK\nabc: OK\n");
    // A NUL, then a checksum line with no newline ending the file at
    // exactly 64 KiB.
    let last = format!("{SHA256_ABC}  abc");
    let mut exact = b"\0\n".to_vec();
    while exact.len() < 64 * 1024 - last.len() - 40 {
        exact.extend_from_slice(b"# padding padding padding padding\n");
    }
    let fill = 64 * 1024 - last.len() - exact.len() - 1;
    exact.extend_from_slice(&vec![b'#'; fill]);
    exact.push(b'\n');
    exact.extend_from_slice(last.as_bytes());
    assert_eq!(exact.len(), 64 * 1024);
    fs::write(p.join("exact"), &exact).unwrap();
    mhash(p)
        .args(["-c", "exact"])
        .assert()
        .success()
        .stdout("abc: OK\n");
}
