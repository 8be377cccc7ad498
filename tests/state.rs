//! `--state FILE` and `--rescan`: the verified-state file.
//!
//! Oracles: the digests are RustCrypto's `sha2` (FIPS 180-4), computed
//! here from the bytes written, never mhash's output; "no file is read" is
//! strace's record of the run's `open`s (Linux, where strace can trace).

use std::fs;
use std::path::Path;
use std::time::Duration;
use tempfile::TempDir;

use crate::util::{self, mhash};

/// SHA-256 of `data`, lower-case hex (RustCrypto's `sha2`).
fn sha256(data: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(data))
}

/// `n` files `d/f000`..: distinct contents; returns GNU's untagged lines
/// for them in walk order, each digest from [`sha256`].
fn tree(dir: &Path, n: usize) -> String {
    fs::create_dir_all(dir.join("d")).unwrap();
    let mut lines = String::new();
    for i in 0..n {
        let data = format!("file {i}\n").repeat(i % 7 + 1);
        fs::write(dir.join(format!("d/f{i:03}")), &data).unwrap();
        lines.push_str(&format!("{}  d/f{i:03}\n", sha256(data.as_bytes())));
    }
    lines
}

/// Waits until files just written are no longer "racy" (their ctime
/// more than 2 s before a read: see `mhash::state::RACY_NS`).
fn settle() {
    std::thread::sleep(Duration::from_millis(2100));
}

/// Runs `mhash ARGS` in `dir`; returns (stdout, stderr, exit code).
fn run(dir: &Path, args: &[&str]) -> (String, String, Option<i32>) {
    let o = mhash(dir).args(args).output().unwrap();
    (
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
        o.status.code(),
    )
}

/// The summary line a `--state` run prints.
fn summary(state: &str, taken: usize, read: usize) -> String {
    let files = |n: usize| if n == 1 { "file" } else { "files" };
    format!(
        "{}: {state}: digests of {taken} {} taken from the state, {read} {} read",
        util::prog(),
        files(taken),
        files(read)
    )
}

#[test]
fn a_second_run_over_an_unchanged_tree_takes_every_digest_from_the_state() {
    let t = TempDir::new().unwrap();
    let want = tree(t.path(), 20);
    settle();
    let (out, err, code) = run(t.path(), &["-r", "d", "--state", "s.json"]);
    assert_eq!((out.as_str(), code), (want.as_str(), Some(0)));
    assert_eq!(err, format!("{}\n", summary("s.json", 0, 20)));
    let (out, err, code) = run(t.path(), &["-r", "d", "--state", "s.json"]);
    assert_eq!((out.as_str(), code), (want.as_str(), Some(0)));
    assert!(err.starts_with(&summary("s.json", 20, 0)), "{err}");
    assert!(err.contains("; the oldest taken was read 20"), "{err}");
    // The file: a versioned header, then one JSON record per file.
    let text = fs::read_to_string(t.path().join("s.json")).unwrap();
    let mut lines = text.lines();
    let head: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(head["mhash_state"], 1);
    let first: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    // Recorded with '/' on every system (a walk on Windows gives `d\f000`).
    assert_eq!(first["path"], "d/f000");
    assert_eq!(first["algo"], "sha256");
    assert_eq!(first["digest"].as_str().unwrap(), sha256(b"file 0\n"));
    assert_eq!(first["size"], 7);
    assert_eq!(lines.count(), 19);
}

/// strace's `open`s of the second run: none of a listed file.
#[cfg(target_os = "linux")]
#[test]
fn strace_shows_no_file_opened_on_the_second_run() {
    let ok = util::command("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        util::skip(
            "state::strace_shows_no_file_opened_on_the_second_run",
            "strace is not installed or cannot trace here: the opens were NOT checked",
        );
        return;
    }
    let t = TempDir::new().unwrap();
    let want = tree(t.path(), 10);
    settle();
    run(t.path(), &["-r", "d", "--state", "s.json"]);
    let o = util::command("strace")
        .args(["-f", "-qq", "-e", "trace=open,openat,openat2", "-o", "TRACE"])
        .arg(util::MHASH)
        .args(["-r", "d", "--state", "s.json"])
        .current_dir(t.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), want);
    let trace = fs::read_to_string(t.path().join("TRACE")).unwrap();
    let opened: Vec<&str> = trace.lines().filter(|l| l.contains("d/f")).collect();
    assert!(opened.is_empty(), "files opened on the second run: {opened:#?}");
    // The first run's trace does open them (the check can fail).
    fs::remove_file(t.path().join("s.json")).unwrap();
    util::command("strace")
        .args(["-f", "-qq", "-e", "trace=open,openat,openat2", "-o", "TRACE"])
        .arg(util::MHASH)
        .args(["-r", "d", "--state", "s.json"])
        .current_dir(t.path())
        .output()
        .unwrap();
    let trace = fs::read_to_string(t.path().join("TRACE")).unwrap();
    assert_eq!(trace.lines().filter(|l| l.contains("d/f")).count(), 10, "{trace}");
}

#[test]
fn a_changed_file_is_read_again_even_with_its_old_mtime() {
    let t = TempDir::new().unwrap();
    let mut want = tree(t.path(), 5);
    settle();
    run(t.path(), &["-r", "d", "--state", "s.json"]);
    // Same size, new bytes, the old mtime put back: the ctime (and on
    // Windows nothing but the mtime... so there the size changes too).
    let f = t.path().join("d/f002");
    let old = fs::metadata(&f).unwrap().modified().unwrap();
    let new = if cfg!(unix) {
        "FILE 2\n".repeat(3)
    } else {
        "changed\n".to_string()
    };
    fs::write(&f, &new).unwrap();
    fs::File::options()
        .write(true)
        .open(&f)
        .unwrap()
        .set_modified(old)
        .unwrap();
    want = want.replace(&sha256("file 2\n".repeat(3).as_bytes()), &sha256(new.as_bytes()));
    let (out, err, _) = run(t.path(), &["-r", "d", "--state", "s.json"]);
    assert_eq!(out, want);
    assert!(err.starts_with(&summary("s.json", 4, 1)), "{err}");
}

#[test]
fn a_truncated_or_garbled_state_is_reported_and_ignored() {
    let t = TempDir::new().unwrap();
    let want = tree(t.path(), 3);
    settle();
    run(t.path(), &["-r", "d", "--state", "s.json"]);
    let good = fs::read_to_string(t.path().join("s.json")).unwrap();
    let p = util::prog();
    let ignoring = "; ignoring the state file (every file is read)";
    let cases = [
        (
            good[..good.len() - 10].to_string(),
            format!("{p}: s.json: line 4: the last line is cut short (no newline){ignoring}"),
        ),
        (
            String::new(),
            format!("{p}: s.json: line 1: empty file, no header{ignoring}"),
        ),
        (
            good.replacen("\"mhash_state\":1", "\"mhash_state\":9", 1),
            format!("{p}: s.json: line 1: state format version 9; this mhash reads version 1{ignoring}"),
        ),
        (
            good.replacen("\"size\":", "\"size\":-", 1),
            // serde's column: just after `"size":-7` on line 2.
            format!(
                "{p}: s.json: line 2: invalid value: integer `-7`, expected u64 (column {}){ignoring}",
                good.lines().nth(1).unwrap().find("\"size\":").unwrap() + "\"size\":-7".len()
            ),
        ),
        (
            format!("{good}not json\n"),
            format!("{p}: s.json: line 5: expected ident (column 2){ignoring}"),
        ),
    ];
    for (text, msg) in cases {
        fs::write(t.path().join("s.json"), &text).unwrap();
        let (out, err, code) = run(t.path(), &["-r", "d", "--state", "s.json"]);
        assert_eq!((out.as_str(), code), (want.as_str(), Some(0)), "{text}");
        let mut lines = err.lines();
        assert_eq!(lines.next(), Some(msg.as_str()));
        assert_eq!(lines.next(), Some(summary("s.json", 0, 3).as_str()));
        // The run wrote a good state again.
        assert!(
            fs::read_to_string(t.path().join("s.json"))
                .unwrap()
                .lines()
                .count()
                == 4
        );
    }
}

#[test]
fn rescan_reads_the_oldest_files_until_every_file_was_read_again() {
    let t = TempDir::new().unwrap();
    let want = tree(t.path(), 4);
    settle();
    run(t.path(), &["-r", "d", "--state", "s.json"]);
    let read_times = || -> Vec<i64> {
        let text = fs::read_to_string(t.path().join("s.json")).unwrap();
        text.lines()
            .skip(1)
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["read_ns"]
                    .as_i64()
                    .unwrap()
            })
            .collect()
    };
    let first = read_times();
    // One byte's worth: one file a run, the one read longest ago.
    for _ in 0..4 {
        let (out, err, _) = run(t.path(), &["-r", "d", "--state", "s.json", "--rescan", "1"]);
        assert_eq!(out, want);
        assert!(
            err.starts_with(&format!("{} (1 by --rescan)", summary("s.json", 3, 1))),
            "{err}"
        );
    }
    let after = read_times();
    assert!(
        first.iter().zip(&after).all(|(a, b)| b > a),
        "{first:?} {after:?}"
    );
    let (_, err, _) = run(t.path(), &["-r", "d", "--state", "s.json", "--rescan", "100%"]);
    assert!(
        err.starts_with(&format!("{} (4 by --rescan)", summary("s.json", 0, 4))),
        "{err}"
    );
}

#[test]
fn shards_writing_one_state_at_once_lose_no_record() {
    let t = TempDir::new().unwrap();
    let want = tree(t.path(), 40);
    settle();
    let names: Vec<String> = (0..40).map(|i| format!("d/f{i:03}")).collect();
    let spawn = |part: &[String]| {
        let mut c = util::command(util::MHASH);
        c.current_dir(t.path())
            .args(["--state", "s.json", "-j1"])
            .args(part);
        c.stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        c.spawn().unwrap()
    };
    let mut kids: Vec<_> = names.chunks(10).map(spawn).collect();
    for k in &mut kids {
        assert!(k.wait().unwrap().success());
    }
    let (out, err, _) = run(t.path(), &["-r", "d", "--state", "s.json"]);
    assert_eq!(out, want);
    assert!(err.starts_with(&summary("s.json", 40, 0)), "{err}");
}

/// A run killed (SIGKILL) at several moments leaves a state that parses
/// and that the next run uses correctly. Each read is slowed by strace's
/// delay injection so that the run outlasts a checkpoint (every 5 s).
#[cfg(target_os = "linux")]
#[test]
fn a_kill_mid_run_leaves_a_usable_state() {
    let ok = util::command("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        util::skip(
            "state::a_kill_mid_run_leaves_a_usable_state",
            "strace is not installed or cannot trace here: the kill test did NOT run",
        );
        return;
    }
    let t = TempDir::new().unwrap();
    let want = tree(t.path(), 400);
    settle();
    // When to kill: at 300 ms (before any checkpoint), as soon as the
    // first checkpoint's state is there, and as soon as a checkpoint's
    // temporary file is seen (during a write, where the poll catches it).
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum When {
        Early,
        AfterCheckpoint,
        DuringWrite,
    }
    let exists = |prefix: &str| {
        fs::read_dir(t.path())
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().starts_with(prefix))
    };
    for when in [When::Early, When::AfterCheckpoint, When::DuringWrite] {
        for e in fs::read_dir(t.path()).unwrap() {
            let e = e.unwrap();
            if e.file_name().to_string_lossy().starts_with("s.json") {
                fs::remove_file(e.path()).unwrap();
            }
        }
        let mut strace = util::command("strace")
            .args([
                "-f",
                "-qq",
                "-o",
                "/dev/null",
                "-e",
                "trace=read",
                "-e",
                "inject=read:delay_exit=30000",
            ])
            .arg(util::MHASH)
            .args(["-r", "d", "--state", "s.json", "-j1"])
            .current_dir(t.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        match when {
            When::Early => std::thread::sleep(Duration::from_millis(300)),
            When::AfterCheckpoint => {
                while !t.path().join("s.json").exists() {
                    assert!(start.elapsed() < Duration::from_secs(20), "no checkpoint in 20 s");
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
            When::DuringWrite => {
                while !exists("s.json.tmp.") && !t.path().join("s.json").exists() {
                    assert!(start.elapsed() < Duration::from_secs(20), "no checkpoint in 20 s");
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
        }
        // mhash is strace's child: kill it, not strace.
        let children =
            fs::read_to_string(format!("/proc/{}/task/{}/children", strace.id(), strace.id())).unwrap();
        let pid: i32 = children
            .split_whitespace()
            .next()
            .expect("mhash still running")
            .parse()
            .unwrap();
        assert!(
            util::command("kill")
                .args(["-9", &pid.to_string()])
                .status()
                .unwrap()
                .success()
        );
        strace.wait().unwrap();
        // The state parses (no "ignoring the state file") and the next
        // run's lines are right.
        let (out, err, code) = run(t.path(), &["-r", "d", "--state", "s.json"]);
        assert_eq!((out.as_str(), code), (want.as_str(), Some(0)), "{when:?}");
        assert!(!err.contains("ignoring the state file"), "{when:?}: {err}");
        let last = err.lines().last().unwrap();
        let taken: usize = last
            .split("digests of ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{last}"));
        match when {
            When::Early => assert_eq!(taken, 0, "{last}"),
            When::AfterCheckpoint => assert!(taken > 0, "{last}"),
            When::DuringWrite => {}
        }
    }
}

#[test]
fn state_options_errors() {
    let t = TempDir::new().unwrap();
    fs::write(t.path().join("f"), "x").unwrap();
    let p = util::prog();
    for (args, msg) in [
        (
            &["--rescan", "5%", "f"][..],
            "the --rescan option is meaningful only with --state",
        ),
        (
            &["--state", "s", "--rescan", "5X", "f"][..],
            "invalid --rescan value '5X': give bytes (a whole number, optionally with K, M, G or T) or a percentage such as 5%",
        ),
        (
            &["--state", "s", "-c", "f"][..],
            "the --state option is meaningful only when hashing (a check always reads every file)",
        ),
        (
            &["--state", "s", "--s3-etag", "f"][..],
            "--state records digests of files; it does not go with the object stores' or tree checksums",
        ),
        (
            &["--state", "", "f"][..],
            "--state needs a file, not an empty name",
        ),
    ] {
        let (out, err, code) = run(t.path(), args);
        assert_eq!((out.as_str(), code), ("", Some(1)), "{args:?}");
        assert_eq!(
            err.lines().next(),
            Some(format!("{p}: {msg}").as_str()),
            "{args:?}"
        );
    }
    // A state in a directory that cannot be written: the digests are
    // printed, the error names the file, the run fails.
    #[cfg(unix)]
    {
        let (out, err, code) = run(t.path(), &["--state", "no/such/dir/s.json", "f"]);
        assert_eq!(out, format!("{}  f\n", sha256(b"x")));
        assert_eq!(code, Some(1));
        assert!(
            err.starts_with(&format!(
                "{p}: no/such/dir/s.json: cannot write the state: No such file or directory\n"
            )),
            "{err}"
        );
    }
}

#[test]
fn a_hand_edited_state_in_another_layout_still_serves_its_digests() {
    // The records rewritten by serde_json (fields in alphabetical order),
    // with spaces and a name's first letter as a `\u` escape: none in the
    // layout mhash writes, so each line is parsed by serde_json.
    let t = TempDir::new().unwrap();
    let want = tree(t.path(), 3);
    settle();
    run(t.path(), &["-r", "d", "--state", "s.json"]);
    let good = fs::read_to_string(t.path().join("s.json")).unwrap();
    let mut edited = String::new();
    for (i, l) in good.lines().enumerate() {
        if i == 0 {
            edited.push_str(l);
        } else {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let text = serde_json::to_string(&v).unwrap();
            edited.push_str(&text.replacen("\"d/", "\"\\u0064/", 1).replace(",\"", ", \""));
        }
        edited.push('\n');
    }
    assert!(edited.contains("\\u0064/f000") && !edited.contains("\"path\":\"d/"));
    fs::write(t.path().join("s.json"), &edited).unwrap();
    let (out, err, code) = run(t.path(), &["-r", "d", "--state", "s.json"]);
    assert_eq!((out.as_str(), code), (want.as_str(), Some(0)));
    assert!(err.starts_with(&summary("s.json", 3, 0)), "{err}");
    // Nothing changed, nothing written: the edited file stays.
    assert_eq!(fs::read_to_string(t.path().join("s.json")).unwrap(), edited);
}

/// `-r`'s order is whole-path byte order, as `find DIR -type f | LC_ALL=C
/// sort` gives (a directory's entries after a name that sorts before `/`).
#[cfg(unix)]
#[test]
fn the_walk_order_is_find_and_c_locale_sort() {
    let t = TempDir::new().unwrap();
    let d = t.path().join("d");
    for dir in ["a", "a/b", "B"] {
        fs::create_dir_all(d.join(dir)).unwrap();
    }
    for f in [
        "a.b", "a/x", "a/b/y", "a/b.c", "a0", "A", "a b", "B/z", "Ba", "\u{e9}",
    ] {
        fs::write(d.join(f), f).unwrap();
    }
    let find = std::process::Command::new("sh")
        .args(["-c", "find d -type f | LC_ALL=C sort"])
        .current_dir(t.path())
        .output()
        .unwrap();
    let want = String::from_utf8(find.stdout).unwrap();
    assert_eq!(want.lines().count(), 10);
    let o = mhash(t.path()).args(["-r", "d"]).output().unwrap();
    let got: Vec<String> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split_once("  ").unwrap().1.to_string())
        .collect();
    assert_eq!(got, want.lines().collect::<Vec<_>>());
}
