//! `mhash -c` never takes a word for a digest (the native face): without
//! a tag, `-a` or an algorithm the checksum file's name names, a digest is
//! inferred only at the standard digest lengths; a named algorithm never
//! gives way to another by length; a line that is not a checksum line is
//! an improperly formatted line and fixes nothing for the lines after it;
//! a file with no checksum line gets GNU's one line and exit status 1.

use crate::util::{self, mhash};
use std::fs;

/// FIPS 180-2, Appendix B.1: SHA-256("abc").
const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

#[test]
fn a_prose_line_leaves_the_next_line_as_gnu_reads_it() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("x"), "abc").unwrap();
    fs::write(
        d.path().join("list"),
        format!("note this line\n{SHA256_ABC}  x\n"),
    )
    .unwrap();
    mhash(d.path())
        .args(["-c", "list"])
        .assert()
        .code(0)
        .stdout("x: OK\n")
        .stderr(format!(
            "{}: WARNING: 1 line is improperly formatted\n",
            util::prog()
        ));
    // As GNU's sha256sum reads the same file, where it is installed.
    #[cfg(unix)]
    if util::gnu_available("words::a_prose_line_leaves_the_next_line_as_gnu_reads_it") {
        let gnu = util::gnu("sha256sum")
            .current_dir(d.path())
            .args(["-c", "list"])
            .output()
            .unwrap();
        assert_eq!((gnu.status.code(), &gnu.stdout[..]), (Some(0), &b"x: OK\n"[..]));
    }
}

#[test]
fn one_byte_digests_in_a_sha256sums_never_pass() {
    // `printf '%02x  rel.tar\n' $x > SHA256SUMS` for every x: no BLAKE2b-8
    // (nor any other algorithm by length) stands in for SHA-256.
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("rel.tar"), "release").unwrap();
    let mut passed = Vec::new();
    for x in 0..=255u8 {
        fs::write(d.path().join("SHA256SUMS"), format!("{x:02x}  rel.tar\n")).unwrap();
        let out = mhash(d.path()).args(["-c", "SHA256SUMS"]).output().unwrap();
        if out.status.success() || out.stdout.windows(2).any(|w| w == b"OK") {
            passed.push(x);
        }
    }
    assert_eq!(passed, Vec::<u8>::new());
    // Nor under a name that names nothing.
    fs::write(d.path().join("list"), "c8  rel.tar\n").unwrap();
    mhash(d.path())
        .args(["-c", "list"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!(
            "{}: list: no properly formatted checksum lines found\n",
            util::prog()
        ));
}

#[test]
fn a_named_algorithm_does_not_give_way_to_a_digest_length() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("abc"), "abc").unwrap();
    // SHA-256 lines in a file named for MD5: improperly formatted.
    fs::write(d.path().join("MD5SUMS"), format!("{SHA256_ABC}  abc\n")).unwrap();
    mhash(d.path())
        .args(["-c", "MD5SUMS"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!(
            "{}: MD5SUMS: no properly formatted checksum lines found\n",
            util::prog()
        ));
    // A tag still names its own algorithm there.
    fs::write(d.path().join("MD5SUMS"), format!("SHA256 (abc) = {SHA256_ABC}\n")).unwrap();
    mhash(d.path())
        .args(["-c", "MD5SUMS"])
        .assert()
        .code(0)
        .stdout("abc: OK\n");
}

#[test]
fn text_files_are_one_line_and_exit_1() {
    let d = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["README.md", "Cargo.lock", "Cargo.toml"] {
        fs::copy(root.join(name), d.path().join(name)).unwrap();
        mhash(d.path())
            .args(["-c", name])
            .assert()
            .code(1)
            .stdout("")
            .stderr(format!(
                "{}: {name}: no properly formatted checksum lines found\n",
                util::prog()
            ));
    }
}

/// The user CPU seconds of bash's children, from `times`' second line
/// (`0m0.778s 0m0.005s`).
#[cfg(unix)]
fn children_user_seconds(times: &str) -> f64 {
    let user = times
        .lines()
        .nth(1)
        .and_then(|l| l.split_whitespace().next())
        .unwrap();
    let (m, s) = user.trim_end_matches('s').split_once('m').unwrap();
    m.parse::<f64>().unwrap() * 60.0 + s.parse::<f64>().unwrap()
}

#[cfg(unix)]
#[test]
fn a_large_binary_file_is_one_line_and_quick() {
    // 64 MiB of noise: a newline every 256 bytes or so, a quarter of a
    // million short "lines", none a checksum line. Each is only counted:
    // the test build (unoptimized) takes about 0.8 s of CPU here (4.2 s
    // before lines were refused early), the release build 0.09 s (GNU
    // 9.11's sha256sum 0.06 s); CPU time, not wall time, so that a loaded
    // machine does not fail it.
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("disk.img"), util::noise(64 << 20, 7)).unwrap();
    let out = util::bash(
        d.path(),
        None,
        &format!("'{}' -c disk.img 2> err; echo $? > rc; times", util::MHASH),
    )
    .output()
    .unwrap();
    let err = fs::read_to_string(d.path().join("err")).unwrap();
    assert_eq!(
        err,
        format!(
            "{}: disk.img: no properly formatted checksum lines found\n",
            util::prog()
        )
    );
    assert_eq!(fs::read_to_string(d.path().join("rc")).unwrap(), "1\n");
    let times = String::from_utf8_lossy(&out.stdout);
    let cpu = children_user_seconds(&times);
    assert!(cpu < 3.0, "{cpu} s of CPU:\n{times}");
}
