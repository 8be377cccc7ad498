//! Backends chosen by measurement: small inputs keep the
//! table's order, large ones have their algorithm's backends timed first,
//! `MHASH_BACKEND=NAME` forces one, and `--debug` / `--backends` say which
//! and why. Which backend wins a measurement depends on the machine, so
//! these tests assert the rules and the report, never a timing; the
//! digests are published vectors (RFC 7693 Appendix A) or values from an
//! independent implementation (Python's hashlib, noted at each).

use mhash::algo::calibrate::{self, ChosenBy};
use std::fs;
use tempfile::TempDir;

use crate::util::{mhash, named_by_path};

/// RFC 7693 Appendix A: BLAKE2b-512("abc").
const BLAKE2B_ABC: &str = "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923";
/// Python 3 `hashlib.blake2b(b"\0" * (33 << 20)).hexdigest()`.
const BLAKE2B_33MIB_ZEROS: &str = "2b31eed038fb4c2708e17d35c9104906a30ad3ebc0c48d0f45ebf0793338d2c08229b3c366c057150d2000fa5fd1ff42415c2ef545f3ff4b74712c66d81ba25b";
/// Python 3 `hashlib.md5(b"\0" * (33 << 20)).hexdigest()`.
const MD5_33MIB_ZEROS: &str = "a359f08e59828efe8a94742db4fcb208";

/// A directory with `abc` and `big` (33 MiB of zeros: over
/// [`calibrate::MIN_BYTES`]).
fn dir() -> TempDir {
    let d = TempDir::new().unwrap();
    fs::write(d.path().join("abc"), "abc").unwrap();
    fs::write(d.path().join("big"), vec![0u8; 33 << 20]).unwrap();
    const { assert!(33 << 20 >= calibrate::MIN_BYTES) };
    d
}

/// True when the suite runs with the portable backends forced
/// (`MHASH_TEST_BACKEND=portable`, passed on as `MHASH_BACKEND`).
fn suite_forces_backend() -> bool {
    std::env::var_os("MHASH_TEST_BACKEND").is_some()
}

fn debug_run(d: &TempDir, algo: &str, file: &str, backend: Option<&str>) -> (String, String) {
    debug_run_with(d, algo, file, backend, None)
}

fn debug_run_with(
    d: &TempDir,
    algo: &str,
    file: &str,
    backend: Option<&str>,
    calibrate: Option<&str>,
) -> (String, String) {
    let mut c = mhash(d.path());
    c.args(["-a", algo, "--debug", file]);
    if let Some(b) = backend {
        c.env("MHASH_BACKEND", b);
    }
    if let Some(m) = calibrate {
        c.env("MHASH_CALIBRATE", m);
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn small_inputs_keep_the_tables_order() {
    let d = dir();
    let (out, err) = debug_run(&d, "blake2b", "abc", None);
    assert_eq!(out, format!("{BLAKE2B_ABC}  abc\n"));
    if suite_forces_backend() {
        assert!(err.contains("; chosen by MHASH_BACKEND)"), "{err}");
    } else {
        assert!(err.contains("; chosen by table)"), "{err}");
        assert!(!err.contains("measurement"), "{err}");
    }
}

/// By default a 33 MiB input is timed only where that costs under 1% of
/// hashing it (a slow build or core: yes; a fast one: the table's order).
#[test]
fn a_large_input_is_measured_or_not_by_the_one_percent_rule() {
    let d = dir();
    for (algo, want) in [("md5", MD5_33MIB_ZEROS), ("blake2b", BLAKE2B_33MIB_ZEROS)] {
        let (out, err) = debug_run(&d, algo, "big", None);
        assert_eq!(out, format!("{want}  big\n"), "{algo}");
        assert!(
            [
                "; chosen by table",
                "; chosen by measurement: ",
                "; chosen by MHASH_BACKEND"
            ]
            .iter()
            .any(|s| err.contains(s)),
            "{err}"
        );
        // Never measured when turned off.
        let (out, err) = debug_run_with(&d, algo, "big", None, Some("never"));
        assert_eq!(out, format!("{want}  big\n"), "{algo}");
        assert!(!err.contains("measurement"), "{err}");
    }
}

#[test]
fn a_calibrated_input_names_every_figure_and_its_digest_is_right() {
    let d = dir();
    for (algo, file, want) in [
        ("md5", "big", MD5_33MIB_ZEROS),
        ("blake2b", "big", BLAKE2B_33MIB_ZEROS),
        ("blake2b", "abc", BLAKE2B_ABC),
    ] {
        let (out, err) = debug_run_with(&d, algo, file, None, Some("always"));
        assert_eq!(out, format!("{want}  {file}\n"), "{algo}");
        if suite_forces_backend() {
            assert!(err.contains("; chosen by MHASH_BACKEND"), "{err}");
            continue;
        }
        // md5 always has two usable backends (tuned-scalar, portable);
        // blake2b has its portable one and, on x86-64, blake2b_simd's.
        let usable: Vec<&str> = mhash::algo::Algorithm::new(mhash::algo::AlgoKind::from_name(algo).unwrap())
            .backends()
            .iter()
            .filter(|b| b.is_available())
            .map(|b| b.name())
            .collect();
        if usable.len() < 2 {
            continue;
        }
        assert!(err.contains("; chosen by measurement: "), "{algo}: {err}");
        for name in usable {
            assert!(
                err.contains(&format!("{name} ")),
                "{algo}: {name} measured: {err}"
            );
        }
        assert!(err.contains(" MB/s"), "{err}");
    }
}

#[test]
fn mhash_backend_forces_a_backend_by_name() {
    let d = dir();
    // Forced over the table and over a measurement, large input or not.
    let (out, err) = debug_run(&d, "md5", "big", Some("portable"));
    assert_eq!(out, format!("{MD5_33MIB_ZEROS}  big\n"));
    // A large input's I/O trial may follow inside the parentheses.
    assert!(
        err.contains("using portable software (mhash; chosen by MHASH_BACKEND") && err.ends_with(", read\n"),
        "{err}"
    );
    if suite_forces_backend() {
        return;
    }
    let (out, err) = debug_run(&d, "md5", "big", Some("tuned-scalar"));
    assert_eq!(out, format!("{MD5_33MIB_ZEROS}  big\n"));
    // A large input's I/O trial may follow inside the parentheses.
    assert!(
        err.contains("using tuned scalar software (mhash; chosen by MHASH_BACKEND")
            && err.ends_with(", read\n"),
        "{err}"
    );
    // A name the algorithm lacks: its own order, as without the variable.
    let (out, err) = debug_run(&d, "blake2b", "abc", Some("tuned-scalar"));
    assert_eq!(out, format!("{BLAKE2B_ABC}  abc\n"));
    assert!(err.contains("; chosen by table)"), "{err}");
}

#[test]
fn gnu_names_keep_gnus_debug_output() {
    let d = dir();
    // GNU 9.11's cksum --debug reports the CRC code only: nothing here.
    let out = named_by_path(d.path(), "cksum")
        .args(["-a", "blake2b", "--debug", "big"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("BLAKE2b (big) = {BLAKE2B_33MIB_ZEROS}\n")
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "GNU's cksum prints nothing more"
    );
    let out = named_by_path(d.path(), "b2sum").arg("big").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    // GNU built with O_BINARY (Windows) marks the line `*`.
    let marker = if cfg!(windows) { " *" } else { "  " };
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{BLAKE2B_33MIB_ZEROS}{marker}big\n")
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn backends_report_says_how_each_was_chosen() {
    let d = dir();
    // The default (the harness turns measurement off under an emulator).
    let out = mhash(d.path())
        .env_remove("MHASH_CALIBRATE")
        .arg("--backends")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Measured now:"), "{text}");
    let md5 = text
        .lines()
        .find(|l| l.starts_with("md5 ") && l.contains("chosen by"))
        .unwrap_or_else(|| panic!("no md5 choice line: {text}"));
    if suite_forces_backend() {
        assert!(md5.contains("chosen by MHASH_BACKEND"), "{md5}");
    } else {
        assert!(md5.contains("chosen by measurement: tuned-scalar "), "{md5}");
        assert!(md5.contains(", portable "), "{md5}");
    }
}

/// The calibration's rule with timings injected: a forced-slow first
/// choice loses to a fast challenger; a close one does not replace it.
#[test]
fn a_slow_backend_loses_to_a_fast_one_with_injected_timings() {
    // 1 GiB: worth timing two candidates (0.6 ms of a second or more).
    let slow_first = [90.0, 900.0];
    let speeds = calibrate::calibrate_with(2, 1 << 30, &mut |i| slow_first[i]).unwrap();
    assert_eq!(calibrate::decide(&speeds), 1);
    let close = [900.0, 920.0];
    let speeds = calibrate::calibrate_with(2, 1 << 30, &mut |i| close[i]).unwrap();
    assert_eq!(calibrate::decide(&speeds), 0, "within 5%: the table's order");
    // Too small: nothing timed, the table decides.
    assert_eq!(
        calibrate::calibrate_with(2, 1 << 20, &mut |_| unreachable!()),
        None
    );
    assert_eq!(
        ChosenBy::Measured(vec![("avx2", 900.0), ("portable", 1000.0)]).describe(),
        "measurement: avx2 900 MB/s, portable 1000 MB/s"
    );
}

/// Python 3 `hashlib.blake2b(b"\0" * (1 << 20)).hexdigest()`.
const BLAKE2B_1MIB_ZEROS: &str = "a834b19291e54808ba8367ca60e6abd9c744138541284b12bb6caa532fae419b063c26022121148fef68a7d8dc0fa83eb2f00454138c1c54753f7148f6911e0d";

/// A run of many small files counts as one long input: none is measured
/// before what the run has hashed and the next file's size (where it was
/// asked for) reach [`calibrate::MIN_BYTES`], any after may be (by the 1% rule, which depends on the
/// machine), and once a measured choice is made every later file keeps it.
#[test]
fn a_run_of_many_files_is_weighed_by_what_it_has_hashed() {
    let d = TempDir::new().unwrap();
    let files: Vec<String> = (0..36).map(|i| format!("f{i:02}")).collect();
    for f in &files {
        fs::write(d.path().join(f), vec![0u8; 1 << 20]).unwrap();
    }
    const { assert!(calibrate::MIN_BYTES == 32 << 20) };
    let out = mhash(d.path())
        .env_remove("MHASH_CALIBRATE")
        .args(["-a", "blake2b", "--debug", "-j", "1"])
        .args(&files)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let want: String = files
        .iter()
        .map(|f| format!("{BLAKE2B_1MIB_ZEROS}  {f}\n"))
        .collect();
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    let err = String::from_utf8_lossy(&out.stderr);
    let mut measured = false;
    for (i, f) in files.iter().enumerate() {
        let line = err
            .lines()
            .find(|l| l.contains(&format!(" {f}: blake2b")))
            .unwrap_or_else(|| panic!("no --debug line for {f}: {err}"));
        if suite_forces_backend() {
            assert!(line.contains("; chosen by MHASH_BACKEND"), "{line}");
            continue;
        }
        let by_measurement = line.contains("; chosen by measurement: ");
        assert!(by_measurement || line.contains("; chosen by table"), "{line}");
        // Before file 32 (31 MiB hashed and 1 MiB to come): the table's
        // order.
        if i < 31 {
            assert!(!by_measurement, "{f} measured too early: {line}");
        }
        assert!(
            !measured || by_measurement,
            "{f} lost the measured choice: {line}"
        );
        measured |= by_measurement;
    }
}
