//! mhash as `shasum` against Perl `shasum` 6.02's recorded answers.
//!
//! `scripts/record-shasum-fixtures` ran the real `/usr/bin/shasum` over a
//! fixed tree (`tests/data/shasum/replay/inputs.json`) for every command
//! line of `cases.json` and kept its standard output, standard error and
//! exit status; this replays them against mhash linked as `shasum`, byte
//! for byte. Perl is never run here.
//!
//! Perl's script writes its program name literally: messages say
//! `shasum:` whatever `argv[0]` is (`/usr/bin/shasum missing` prints
//! `shasum: missing: No such file or directory`); so does mhash, also when
//! run by a path ([`program_name_is_shasum_by_path`]).
//!
//! The differential run against the real program is `scripts/shasum-diff`
//! ([`differential_against_perl`], when `/usr/bin/shasum` is installed).

use crate::util::{MHASH, named};
use serde_json::Value;
use std::path::Path;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/shasum/replay");

/// A JSON string of Latin-1 code points as the bytes the recorder wrote.
fn bytes(v: &Value) -> Vec<u8> {
    v.as_str()
        .expect("a string")
        .chars()
        .map(|c| u8::try_from(u32::from(c)).expect("Latin-1"))
        .collect()
}

fn read_json(name: &str) -> Value {
    let text = std::fs::read_to_string(Path::new(DATA).join(name)).expect("fixture");
    serde_json::from_str(&text).expect("JSON")
}

/// The recorded tree, made in `root`.
fn make_tree(root: &Path) {
    let inputs = read_json("inputs.json");
    for (name, data) in inputs["files"].as_object().expect("files") {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, bytes(data)).expect("write");
    }
    for d in inputs["dirs"].as_array().expect("dirs") {
        std::fs::create_dir_all(root.join(d.as_str().expect("dir"))).expect("mkdir");
    }
}

#[cfg(unix)]
#[test]
fn replays_recorded_shasum() {
    let tmp = tempfile::tempdir().expect("tempdir");
    make_tree(tmp.path());
    let cases = read_json("cases.json");
    let cases = cases.as_array().expect("cases");
    assert!(cases.len() > 150, "{} cases", cases.len());
    for case in cases {
        let args: Vec<String> = case["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|a| String::from_utf8(bytes(a)).expect("UTF-8 argument"))
            .collect();
        let out = named(tmp.path(), "shasum")
            .args(&args)
            .write_stdin(bytes(&case["stdin"]))
            .output()
            .expect("run");
        let what = format!("shasum {args:?}");
        let (stdout, stderr) = (bytes(&case["stdout"]), bytes(&case["stderr"]));
        assert_bytes_eq!(out.stdout, stdout, "stdout of {what}");
        assert_bytes_eq!(out.stderr, stderr, "stderr of {what}");
        assert_eq!(
            out.status.code(),
            case["status"].as_i64().map(|s| s as i32),
            "status of {what}"
        );
    }
}

#[cfg(unix)]
#[test]
fn program_name_is_shasum_by_path() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // `SHASUM` is shasum where file names ignore case (macOS here).
    let names: &[&str] = if cfg!(target_os = "macos") {
        &["shasum", "SHASUM"]
    } else {
        &["shasum"]
    };
    for &name in names {
        let out = crate::util::named_by_path(tmp.path(), name)
            .args(["missing", "--st"])
            .output()
            .expect("run");
        assert_bytes_eq!(
            out.stderr,
            "Option st is ambiguous (status, strict)\nType shasum -h for help\n"
        );
        let out = crate::util::named_by_path(tmp.path(), name)
            .arg("missing")
            .output()
            .expect("run");
        assert_bytes_eq!(out.stderr, "shasum: missing: No such file or directory\n");
        assert_eq!(out.status.code(), Some(1));
    }
}

/// `scripts/shasum-diff` for 100 cases, when Perl's shasum is installed.
#[cfg(unix)]
#[test]
fn differential_against_perl() {
    if !Path::new("/usr/bin/shasum").exists() || !Path::new("/usr/bin/python3").exists() {
        crate::util::skip(
            "shasum::differential_against_perl",
            "/usr/bin/shasum or python3 missing",
        );
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/shasum-diff");
    let out = std::process::Command::new("/usr/bin/python3")
        .args([script, "--seed", "7", "-n", "100", MHASH])
        .env("LC_ALL", "C")
        .output()
        .expect("run scripts/shasum-diff");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
