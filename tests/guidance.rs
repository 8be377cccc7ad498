//! Messages that say what to do, in the native face only: algorithm names
//! case-blind, "did you mean" for `-a` values and long options, `-r` named
//! for a directory operand, a private key given to `--key` named as one.
//! Under GNU's names every one of these stays GNU's own bytes, compared
//! live with /usr/bin's GNU coreutils (9.1 here: `MHASH_GNU_COMPAT=9.1`).
//!
//! Expected digests are published vectors: SHA-256 and MD5 of "abc"
//! (FIPS 180-2 B.1, RFC 1321 A.5); BLAKE3 from the blake3 crate.
#![cfg(unix)]

use std::path::Path;
use std::process::Output;
use tempfile::TempDir;

use crate::util::{self, MHASH, gnu, gnu_named, mhash};

const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; // FIPS 180-2 B.1
const MD5_ABC: &str = "900150983cd24fb0d6963f7d28e17f72"; // RFC 1321 A.5

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// GNU's `name ARGS` in `dir`, and mhash's under that name (as GNU 9.1),
/// compared: the same stdout, stderr and exit status.
fn same_as_gnu(dir: &Path, name: &str, args: &[&str], test: &str) {
    if !util::gnu_available(test) {
        return;
    }
    let theirs: Output = gnu(name).args(args).current_dir(dir).output().unwrap();
    let ours = gnu_named(dir, name).args(args).output().unwrap();
    assert_bytes_eq!(ours.stdout, theirs.stdout, "{name} {args:?}: stdout");
    assert_bytes_eq!(ours.stderr, theirs.stderr, "{name} {args:?}: stderr");
    assert_eq!(
        ours.status.code(),
        theirs.status.code(),
        "{name} {args:?}: status"
    );
}

#[test]
fn algorithm_names_are_case_blind_in_the_native_face() {
    let d = TempDir::new().unwrap();
    let blake3_abc = blake3::hash(b"abc").to_hex().to_string();
    for (a, want) in [
        ("SHA256", format!("{SHA256_ABC}  -\n")),
        ("Sha256", format!("{SHA256_ABC}  -\n")),
        ("Blake3", format!("{blake3_abc}  -\n")),
        (
            "MD5,SHA256",
            format!("MD5 (-) = {MD5_ABC}\nSHA256 (-) = {SHA256_ABC}\n"),
        ),
    ] {
        mhash(d.path())
            .args(["-a", a])
            .write_stdin("abc")
            .assert()
            .success()
            .stdout(want);
    }
    // GNU's cksum takes exact names only.
    same_as_gnu(
        d.path(),
        "cksum",
        &["-a", "SHA256", "/dev/null"],
        "case_blind GNU",
    );
}

#[test]
fn unknown_algorithm_suggests_the_closest_on_one_line() {
    let d = TempDir::new().unwrap();
    let hint =
        format!("{MHASH}: '-a help' lists every algorithm\nTry '{MHASH} --help' for more information.\n");
    for (args, first) in [
        (
            vec!["-a", "sha265"],
            "invalid algorithm 'sha265'; did you mean 'sha256'?",
        ),
        (vec!["-a", "md4"], "invalid algorithm 'md4'; did you mean 'md5'?"),
        (
            vec!["-a", "crc32"],
            "invalid algorithm 'crc32'; did you mean 'crc32c' or 'crc32b'?",
        ),
        (vec!["-a", "foo"], "invalid algorithm 'foo'"),
        // In a list: the part named, no word about families.
        (
            vec!["-a", "md5,sha265"],
            "invalid algorithm 'sha265' in 'md5,sha265'; did you mean 'sha256'?",
        ),
        // A family in a list: its members named.
        (
            vec!["-a", "md5,sha3"],
            "'sha3' in 'md5,sha3' is a family, not an algorithm: a list names its members \
             (sha3-224, sha3-256, sha3-384, sha3-512)",
        ),
    ] {
        mhash(d.path())
            .args(&args)
            .arg("/dev/null")
            .assert()
            .code(1)
            .stdout("")
            .stderr(format!("{MHASH}: {first}\n{hint}"));
    }
    // GNU's names: GNU's list, byte for byte.
    same_as_gnu(
        d.path(),
        "cksum",
        &["-a", "sha265", "/dev/null"],
        "unknown algorithm GNU",
    );
}

#[test]
fn algorithm_help_lists_every_name_the_native_face_takes() {
    let d = TempDir::new().unwrap();
    let out = mhash(d.path()).args(["-a", "help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let list = text(&out.stdout);
    let names: Vec<&str> = list.lines().map(|l| l.split(' ').next().unwrap()).collect();
    // GNU cksum 9.4+'s algorithm_args are all there, and mhash's own.
    for n in [
        "bsd",
        "sysv",
        "crc",
        "crc32b",
        "md5",
        "sha1",
        "sha224",
        "sha256",
        "sha384",
        "sha512",
        "sha2",
        "sha3",
        "blake2b",
        "sm3",
        "blake3",
        "xxh3",
        "xxh128",
        "crc32c",
        "crc64nvme",
    ] {
        assert!(names.contains(&n), "{n} in {list}");
    }
    // Each is a name -a takes (a family with -l).
    for n in names {
        let mut c = mhash(d.path());
        c.args(["-a", n]);
        if n == "sha2" || n == "sha3" {
            c.args(["-l", "256"]);
        }
        c.arg("/dev/null").assert().success();
    }
}

#[test]
fn misspelled_long_option_suggests_the_option() {
    let d = TempDir::new().unwrap();
    for (typed, meant) in [
        ("--chek", "--check"),
        ("--algoritm=md5", "--algorithm"),
        ("--recursve", "--recursive"),
        ("--ignore-mising", "--ignore-missing"),
    ] {
        mhash(d.path())
            .arg(typed)
            .arg("/dev/null")
            .assert()
            .code(1)
            .stderr(predicates::str::contains(format!("; did you mean '{meant}'?\n")));
    }
    same_as_gnu(d.path(), "sha256sum", &["--chek", "/dev/null"], "long option GNU");
}

#[test]
fn directory_operand_names_r_in_the_native_face() {
    let d = TempDir::new().unwrap();
    std::fs::create_dir(d.path().join("t")).unwrap();
    mhash(d.path()).arg("t").assert().code(1).stderr(format!(
        "{MHASH}: t: Is a directory (use -r to hash a directory's files)\n"
    ));
    same_as_gnu(d.path(), "sha256sum", &["t"], "directory GNU");
    same_as_gnu(d.path(), "md5sum", &["t"], "directory GNU");
}

/// Runs `tool ARGS` in `dir`; false (with a SKIP line) where the tool is
/// not installed or fails.
fn run_tool(dir: &Path, tool: &str, args: &[&str]) -> bool {
    match std::process::Command::new(tool)
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
    {
        Ok(o) if o.status.success() => true,
        _ => {
            util::skip(
                "private_key_given_to_key",
                &format!("{tool} {args:?} did not run"),
            );
            false
        }
    }
}

#[test]
fn private_key_given_to_key_is_named_with_its_public_key() {
    let d = TempDir::new().unwrap();
    let p = d.path();
    std::fs::write(p.join("a"), "abc").unwrap();
    std::fs::write(p.join("SUMS"), format!("{SHA256_ABC}  a\n")).unwrap();
    let cases = [
        (
            "minisign",
            &["-G", "-W", "-p", "m.pub", "-s", "m.key"][..],
            "m.key",
            "a minisign secret key, not a public key: give --key the public key, m.pub",
        ),
        (
            "signify-openbsd",
            &["-G", "-n", "-p", "s.pub", "-s", "s.sec"][..],
            "s.sec",
            "a signify secret key, not a public key: give --key the public key, s.pub",
        ),
        (
            "ssh-keygen",
            &["-q", "-t", "ed25519", "-N", "", "-C", "t", "-f", "id"][..],
            "id",
            "an SSH private key, not a public key: give --key the public key, id.pub",
        ),
    ];
    for (tool, args, key, words) in cases {
        if !run_tool(p, tool, args) {
            continue;
        }
        mhash(p)
            .args(["-c", "SUMS", "--key", key])
            .assert()
            .code(1)
            .stdout("")
            .stderr(format!(
                "{MHASH}: SUMS: signature not checked: key file {key} is {words}\n"
            ));
    }
}

#[test]
fn short_help_is_one_line_per_option_and_help_the_long_text() {
    let d = TempDir::new().unwrap();
    let h = mhash(d.path()).arg("-h").output().unwrap();
    let long = mhash(d.path()).arg("--help").output().unwrap();
    assert_eq!(h.status.code(), Some(0));
    assert_eq!(long.status.code(), Some(0));
    let (h, long) = (text(&h.stdout), text(&long.stdout));
    let lines: Vec<&str> = h.lines().collect();
    assert!(lines.len() < 40, "-h: {} lines", lines.len());
    for l in &lines {
        assert!(l.chars().count() <= 80, "-h line over 80 columns: {l:?}");
    }
    // Each option line names options that --help describes in full.
    let mut named = 0;
    for l in &lines {
        for word in l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
            if word.starts_with("--") && word.len() > 2 {
                named += 1;
                assert!(
                    long.lines()
                        .any(|x| x.trim_start().starts_with(word) || x.contains(&format!(", {word} "))),
                    "{word} in -h but not described by --help"
                );
            }
        }
    }
    assert!(named >= 25, "-h names {named} options");
    assert!(long.lines().count() > 2 * lines.len(), "--help is the long text");
    assert!(long.contains("Environment:") && long.contains("Exit status:"));
    // GNU's names: GNU's --help, and GNU's refusal of -h, byte for byte.
    for name in ["sha256sum", "md5sum", "b2sum", "cksum"] {
        same_as_gnu(d.path(), name, &["--help"], "GNU --help");
        same_as_gnu(d.path(), name, &["-h"], "GNU -h");
    }
}

/// A terminal on standard input: runs `argv` with its stdin, stdout and
/// stderr on a pseudo-terminal, waits `wait` seconds, types `abc`, Enter
/// and Ctrl-D, and returns what the terminal showed (Python's `pty`; None,
/// with a SKIP line, where python3 is not installed).
fn typed_at_a_terminal(dir: &Path, argv: &[&str], wait: f64) -> Option<Vec<u8>> {
    const HARNESS: &str = r#"
import os, pty, select, subprocess, sys, time
wait, argv = float(sys.argv[1]), sys.argv[2:]
m, s = pty.openpty()
p = subprocess.Popen(argv, stdin=s, stdout=s, stderr=s, start_new_session=True)
os.close(s)
out = b""
def drain(t):
    global out
    end = time.time() + t
    while time.time() < end:
        r, _, _ = select.select([m], [], [], 0.05)
        if r:
            try:
                out += os.read(m, 4096)
            except OSError:
                return
drain(wait)
os.write(m, b"abc\n\x04")
p.wait(timeout=30)
drain(0.3)
sys.stdout.buffer.write(out)
"#;
    if !Path::new("/usr/bin/python3").exists() {
        util::skip(
            "typed_at_a_terminal",
            "/usr/bin/python3 not found: the terminal cases did NOT run",
        );
        return None;
    }
    let out = util::command("/usr/bin/python3")
        .current_dir(dir)
        .arg("-c")
        .arg(HARNESS)
        .arg(wait.to_string())
        .args(argv)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    Some(out.stdout)
}

#[test]
fn terminal_stdin_gets_a_notice_and_no_progress_bar() {
    let d = TempDir::new().unwrap();
    // The line typed: "abc\n" (the terminal's Enter), by the sha2 crate.
    let digest = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(b"abc\n"))
    };
    let Some(screen) = typed_at_a_terminal(d.path(), &[MHASH], 2.5) else {
        return;
    };
    assert_bytes_eq!(
        screen,
        format!("{MHASH}: reading standard input; Ctrl-D ends it\r\nabc\r\n{digest}  -\r\n"),
        "the notice once, the echo, the line; no bar"
    );
    // --no-progress changes nothing here: the notice is no bar.
    let screen = typed_at_a_terminal(d.path(), &[MHASH, "--no-progress"], 2.5).unwrap();
    assert_bytes_eq!(
        screen,
        format!("{MHASH}: reading standard input; Ctrl-D ends it\r\nabc\r\n{digest}  -\r\n")
    );
    // Typed at once: no wait, no notice.
    let screen = typed_at_a_terminal(d.path(), &[MHASH], 0.0).unwrap();
    assert_bytes_eq!(screen, format!("abc\r\n{digest}  -\r\n"));
    // GNU's names say nothing, as GNU: the same screen as /usr/bin's.
    if util::gnu_available("terminal stdin GNU") {
        let bin = d.path().join(".bin");
        let link = util::mhash_link(&bin, "sha256sum");
        let ours = typed_at_a_terminal(d.path(), &[link.to_str().unwrap()], 2.5).unwrap();
        let theirs = typed_at_a_terminal(d.path(), &["/usr/bin/sha256sum"], 2.5).unwrap();
        assert_bytes_eq!(ours, theirs, "sha256sum at a terminal");
    }
}
