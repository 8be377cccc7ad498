//! The native face's everyday conveniences: `-r` walks,
//! `--files-from` lists, `--json` records, the progress bar, shell
//! completions, the man page and `--install-links`; and that none of them
//! exists under a GNU name (GNU's own diagnostics for unknown options).
//!
//! Expected digests are published vectors: SHA-256 and MD5 of "abc" and of
//! the empty string (FIPS 180-2 B.1, RFC 1321 A.5), BLAKE2b-512("abc")
//! (RFC 7693 Appendix A). Expected paths and their order come from the
//! rule (byte-wise path order), computed here, never from mhash's output.
#![cfg(unix)]

use serde_json::Value;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;
use tempfile::TempDir;

use crate::util::{self, MHASH, gnu_named, mhash};

const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; // FIPS 180-2 B.1
const SHA256_EMPTY: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; // FIPS 180-2
const MD5_ABC: &str = "900150983cd24fb0d6963f7d28e17f72"; // RFC 1321 A.5
const MD5_EMPTY: &str = "d41d8cd98f00b204e9800998ecf8427e"; // RFC 1321 A.5
const BLAKE2B_ABC: &str = "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1\
                           7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"; // RFC 7693 A

fn stdout(c: &mut assert_cmd::Command) -> String {
    let out = c.output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

fn write(dir: &Path, rel: &str, data: &str) {
    let p = dir.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, data).unwrap();
}

/// A tree whose byte-wise path order differs from a per-directory name
/// order: `t/a-b/y` < `t/a.txt` < `t/a/x` ('-' < '.' < '/'), and
/// uppercase before lowercase.
fn tree() -> TempDir {
    let d = TempDir::new().unwrap();
    let p = d.path();
    write(p, "t/a/x", "abc");
    write(p, "t/a-b/y", "abc");
    write(p, "t/a.txt", "");
    write(p, "t/B", "abc");
    write(p, "t/sub/deep/z.o", "abc");
    write(p, "t/sub/keep.c", "");
    write(p, "outside", "abc");
    symlink("../outside", p.join("t/link-to-file")).unwrap();
    symlink("sub", p.join("t/link-to-dir")).unwrap();
    d
}

/// `(path, content)` of the regular files of [`tree`], in byte-wise order.
fn tree_files() -> Vec<(&'static str, &'static str)> {
    let mut v = vec![
        ("t/a/x", "abc"),
        ("t/a-b/y", "abc"),
        ("t/a.txt", ""),
        ("t/B", "abc"),
        ("t/sub/deep/z.o", "abc"),
        ("t/sub/keep.c", ""),
    ];
    v.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    v
}

fn sha256_of(content: &str) -> &'static str {
    if content.is_empty() {
        SHA256_EMPTY
    } else {
        SHA256_ABC
    }
}

fn lines(files: &[(&str, &str)]) -> String {
    files
        .iter()
        .map(|(p, c)| format!("{}  {p}\n", sha256_of(c)))
        .collect()
}

#[test]
fn recursive_walk_is_in_bytewise_path_order_and_skips_symlinks() {
    let d = tree();
    let files = tree_files();
    assert_eq!(files[0].0, "t/B");
    assert_eq!(files[1].0, "t/a-b/y");
    assert_eq!(files[2].0, "t/a.txt");
    assert_eq!(files[3].0, "t/a/x");
    mhash(d.path())
        .args(["-r", "t"])
        .assert()
        .success()
        .stdout(lines(&files))
        .stderr("");
    // The same with a trailing slash on the operand, and -j1.
    mhash(d.path())
        .args(["-j1", "--recursive", "t/"])
        .assert()
        .success()
        .stdout(lines(&files));
}

#[test]
fn recursive_follow_includes_link_targets_and_reports_loops() {
    let d = tree();
    let mut files: Vec<(String, &str)> = tree_files()
        .into_iter()
        .map(|(p, c)| (p.to_string(), c))
        .collect();
    files.push(("t/link-to-file".into(), "abc"));
    files.push(("t/link-to-dir/deep/z.o".into(), "abc"));
    files.push(("t/link-to-dir/keep.c".into(), ""));
    files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let expected: String = files
        .iter()
        .map(|(p, c)| format!("{}  {p}\n", sha256_of(c)))
        .collect();
    mhash(d.path())
        .args(["-r", "--follow", "t"])
        .assert()
        .success()
        .stdout(expected.clone())
        .stderr("");
    // A link back to an ancestor: reported, the rest still hashed, exit 1.
    symlink("..", d.path().join("t/sub/up")).unwrap();
    let out = mhash(d.path()).args(["-r", "-L", "t"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
    // Reached twice: through t/link-to-dir (sorted first) and t/sub.
    let prog = MHASH;
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "{prog}: t/link-to-dir/up: file system loop: it leads back to t\n\
             {prog}: t/sub/up: file system loop: it leads back to t\n"
        )
    );
    // Without --follow the loop is just a symlink: skipped.
    mhash(d.path())
        .args(["-r", "t"])
        .assert()
        .success()
        .stdout(lines(&tree_files()));
    // The ancestor's name is quoted as every name in a diagnostic: a
    // newline in it cannot start a line of its own (GNU's quotef).
    std::fs::create_dir_all(d.path().join("n\nl/sub")).unwrap();
    symlink("..", d.path().join("n\nl/sub/up")).unwrap();
    let out = mhash(d.path()).args(["-r", "-L", "n\nl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!("{prog}: 'n'$'\\n''l/sub/up': file system loop: it leads back to 'n'$'\\n''l'\n")
    );
}

#[test]
fn include_and_exclude_globs_filter_the_walk() {
    let d = tree();
    let pick = |keep: &dyn Fn(&str) -> bool| -> String {
        let v: Vec<(&str, &str)> = tree_files().into_iter().filter(|(p, _)| keep(p)).collect();
        lines(&v)
    };
    // A name glob: anywhere in the tree.
    mhash(d.path())
        .args(["-r", "--exclude", "*.o", "t"])
        .assert()
        .success()
        .stdout(pick(&|p| !p.ends_with(".o")));
    // A directory that matches is not entered.
    mhash(d.path())
        .args(["-r", "--exclude=sub", "--exclude", "a", "t"])
        .assert()
        .success()
        .stdout(pick(&|p| !p.starts_with("t/sub/") && !p.starts_with("t/a/")));
    // A glob with '/' matches the path relative to the operand; '*' does
    // not cross '/', '**' does.
    mhash(d.path())
        .args(["-r", "--include", "sub/*", "t"])
        .assert()
        .success()
        .stdout(pick(&|p| p == "t/sub/keep.c"));
    mhash(d.path())
        .args(["-r", "--include", "sub/**", "--include", "*.txt", "t"])
        .assert()
        .success()
        .stdout(pick(&|p| p.starts_with("t/sub/") || p.ends_with(".txt")));
    // Exclusion wins over inclusion.
    mhash(d.path())
        .args(["-r", "--include", "sub/**", "--exclude", "deep", "t"])
        .assert()
        .success()
        .stdout(pick(&|p| p == "t/sub/keep.c"));
    // A bad glob is a usage error.
    mhash(d.path())
        .args(["-r", "--exclude", "a[", "t"])
        .assert()
        .code(1)
        .stdout("");
}

#[test]
fn recursive_hashes_file_operands_and_stdin_in_place() {
    let d = tree();
    let mut expected = format!("{SHA256_ABC}  outside\n");
    expected += &lines(&tree_files());
    expected += &format!("{SHA256_ABC}  -\n");
    expected += &format!("{SHA256_ABC}  t/a/x\n");
    mhash(d.path())
        .args(["-r", "outside", "t", "-", "t/a/x"])
        .write_stdin("abc")
        .assert()
        .success()
        .stdout(expected);
    // Without -r a directory is an error, as in GNU, which names -r.
    mhash(d.path()).arg("t").assert().code(1).stderr(format!(
        "{}: t: Is a directory (use -r to hash a directory's files)\n",
        MHASH
    ));
}

#[test]
fn unreadable_directory_is_reported_and_the_walk_goes_on() {
    use std::os::unix::fs::PermissionsExt;
    let d = tree();
    // Root reads any directory: run as nobody through setpriv instead.
    let root = is_root();
    if root && !Path::new("/usr/bin/setpriv").exists() {
        util::skip(
            "everyday::unreadable_directory_is_reported_and_the_walk_goes_on",
            "root, and no /usr/bin/setpriv to drop privileges",
        );
        return;
    }
    fs::set_permissions(d.path(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(d.path().join("t/sub"), fs::Permissions::from_mode(0o700)).unwrap();
    if !root {
        fs::set_permissions(d.path().join("t/sub"), fs::Permissions::from_mode(0o000)).unwrap();
    }
    let mut cmd = if root {
        let mut c = util::command("/usr/bin/setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(MHASH);
        c
    } else {
        util::command(MHASH)
    };
    let out = cmd.current_dir(d.path()).args(["-r", "t"]).output().unwrap();
    fs::set_permissions(d.path().join("t/sub"), fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Vec<(&str, &str)> = tree_files()
        .into_iter()
        .filter(|(p, _)| !p.starts_with("t/sub/"))
        .collect();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), lines(&v));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!("{}: t/sub: Permission denied\n", MHASH)
    );
}

fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout == b"0\n")
        .unwrap_or(false)
}

#[test]
fn one_file_system_stays_on_the_operands_device() {
    use std::os::unix::fs::MetadataExt;
    let other = match TempDir::new_in("/dev/shm") {
        Ok(t) => t,
        Err(_) => {
            util::skip(
                "everyday::one_file_system_stays_on_the_operands_device",
                "no /dev/shm",
            );
            return;
        }
    };
    let d = tree();
    if fs::metadata(other.path()).unwrap().dev() == fs::metadata(d.path()).unwrap().dev() {
        util::skip(
            "everyday::one_file_system_stays_on_the_operands_device",
            "/dev/shm is on the same file system as the temp dir",
        );
        return;
    }
    fs::write(other.path().join("far"), "abc").unwrap();
    symlink(other.path(), d.path().join("t/mnt")).unwrap();
    let mut all: Vec<(String, &str)> = tree_files()
        .into_iter()
        .map(|(p, c)| (p.to_string(), c))
        .collect();
    all.push(("t/link-to-file".into(), "abc"));
    all.push(("t/link-to-dir/deep/z.o".into(), "abc"));
    all.push(("t/link-to-dir/keep.c".into(), ""));
    let render = |v: &[(String, &str)]| -> String {
        let mut v = v.to_vec();
        v.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        v.iter()
            .map(|(p, c)| format!("{}  {p}\n", sha256_of(c)))
            .collect()
    };
    mhash(d.path())
        .args(["-r", "-L", "--one-file-system", "t"])
        .assert()
        .success()
        .stdout(render(&all));
    all.push(("t/mnt/far".into(), "abc"));
    mhash(d.path())
        .args(["-r", "-L", "t"])
        .assert()
        .success()
        .stdout(render(&all));
}

#[test]
fn walk_options_need_recursive_and_recursive_needs_hash_mode() {
    let d = tree();
    let prog = MHASH;
    for (args, opt) in [
        (vec!["--follow", "t"], "follow"),
        (vec!["--exclude", "x", "t"], "exclude"),
        (vec!["--include=x", "t"], "include"),
        (vec!["--one-file-system", "t"], "one-file-system"),
    ] {
        mhash(d.path())
            .args(&args)
            .assert()
            .code(1)
            .stdout("")
            .stderr(format!(
                "{prog}: the --{opt} option is meaningful only with --recursive\n\
             Try '{prog} --help' for more information.\n"
            ));
    }
    mhash(d.path())
        .args(["-c", "-r", "t"])
        .assert()
        .code(1)
        .stderr(format!(
            "{prog}: the --recursive option is meaningful only when hashing\n\
             Try '{prog} --help' for more information.\n"
        ));
    mhash(d.path())
        .args(["--raw", "-r", "t"])
        .assert()
        .code(1)
        .stderr(format!(
            "{prog}: the --raw option is not supported with multiple files\n"
        ));
}

#[test]
fn files_from_reads_newline_and_nul_lists() {
    let d = tree();
    let p = d.path();
    fs::write(p.join("weird\nname"), "abc").unwrap();
    // Operands first, then the list; empty entries are skipped.
    fs::write(p.join("list"), "t/a.txt\n\nt/a/x\n").unwrap();
    mhash(p)
        .args(["-a", "md5", "outside", "--files-from", "list"])
        .assert()
        .success()
        .stdout(format!(
            "{MD5_ABC}  outside\n{MD5_EMPTY}  t/a.txt\n{MD5_ABC}  t/a/x\n"
        ));
    // A NUL-separated list on stdin, as `find -print0` writes it, with a
    // newline inside a name (escaped in the output, as GNU escapes it).
    mhash(p)
        .args(["-a", "md5", "--files-from", "-", "-0"])
        .write_stdin(&b"weird\nname\0t/a.txt\0"[..])
        .assert()
        .success()
        .stdout(format!("\\{MD5_ABC}  weird\\nname\n{MD5_EMPTY}  t/a.txt\n"));
    // With -r, directories in a list are walked.
    fs::write(p.join("dirs"), "t/sub\n").unwrap();
    mhash(p)
        .args(["-r", "--files-from=dirs"])
        .assert()
        .success()
        .stdout(format!(
            "{SHA256_ABC}  t/sub/deep/z.o\n{SHA256_EMPTY}  t/sub/keep.c\n"
        ));
    // A missing list and a missing listed file: reported, exit 1.
    let prog = MHASH;
    fs::write(p.join("list2"), "nope\noutside\n").unwrap();
    mhash(p)
        .args(["--files-from", "absent", "--files-from", "list2"])
        .assert()
        .code(1)
        .stdout(format!("{SHA256_ABC}  outside\n"))
        .stderr(format!(
            "{prog}: absent: No such file or directory\n{prog}: nope: No such file or directory\n"
        ));
    // -0 only makes sense with a list.
    mhash(p).args(["-0", "outside"]).assert().code(1);
}

#[test]
fn files_from_lists_checksum_files_in_check_mode() {
    let d = tree();
    let p = d.path();
    fs::write(p.join("MD5SUMS"), format!("{MD5_ABC}  outside\n")).unwrap();
    fs::write(p.join("lists"), "MD5SUMS\n").unwrap();
    mhash(p)
        .args(["-c", "--files-from", "lists"])
        .assert()
        .success()
        .stdout("outside: OK\n");
}

fn json_lines(out: &[u8]) -> Vec<Value> {
    std::str::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

#[test]
fn json_hash_records_parse_back_field_by_field() {
    let d = tree();
    let p = d.path();
    fs::write(p.join(std::ffi::OsStr::from_bytes(b"bad\xffname")), "abc").unwrap();
    let out = mhash(p)
        .args(["--json", "outside", "t/a.txt", "missing"])
        .arg(std::ffi::OsStr::from_bytes(b"bad\xffname"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!("{}: missing: No such file or directory\n", MHASH)
    );
    let recs = json_lines(&out.stdout);
    assert_eq!(recs.len(), 4);
    let r = &recs[0];
    assert_eq!(r["path"], "outside");
    assert_eq!(r["size"], 3);
    assert_eq!(r["algorithm"], "sha256");
    assert_eq!(r["digest"], SHA256_ABC);
    assert!(r.get("error").is_none());
    assert_eq!(r.as_object().unwrap().len(), 4);
    assert_eq!(recs[1]["path"], "t/a.txt");
    assert_eq!(recs[1]["size"], 0);
    assert_eq!(recs[1]["digest"], SHA256_EMPTY);
    let e = &recs[2];
    assert_eq!(e["path"], "missing");
    assert_eq!(e["algorithm"], "sha256");
    assert_eq!(e["error"], "No such file or directory");
    assert!(e.get("digest").is_none() && e.get("size").is_none());
    // Not UTF-8: still a string, and the exact bytes beside it, as an array.
    let bytes: Vec<u64> = b"bad\xffname".iter().map(|&b| u64::from(b)).collect();
    assert_eq!(recs[3]["path"], "bad\u{fffd}name");
    assert_eq!(recs[3]["path_bytes"], serde_json::json!(bytes));
    assert!(recs[0].get("path_bytes").is_none());
    assert_eq!(recs[3]["digest"], SHA256_ABC);
}

#[test]
fn json_names_algorithms_and_honours_base64() {
    let d = tree();
    let p = d.path();
    let one = |args: &[&str]| -> Value {
        let out = mhash(p).args(args).arg("outside").output().unwrap();
        assert!(out.status.success());
        let mut v = json_lines(&out.stdout);
        assert_eq!(v.len(), 1);
        v.remove(0)
    };
    let r = one(&["--json", "-a", "md5"]);
    assert_eq!(
        (r["algorithm"].as_str(), r["digest"].as_str()),
        (Some("md5"), Some(MD5_ABC))
    );
    let r = one(&["--json", "-a", "blake2b"]);
    assert_eq!(r["algorithm"], "blake2b");
    assert_eq!(r["digest"], BLAKE2B_ABC);
    let r = one(&["--json", "-a", "blake2b", "-l", "256"]);
    assert_eq!(r["algorithm"], "blake2b-256");
    assert_eq!(r["digest"].as_str().unwrap().len(), 64);
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(hex::decode(SHA256_ABC).unwrap());
    let r = one(&["--json", "--base64"]);
    assert_eq!(r["digest"], b64);
    // --tag, -b and -z do not change records.
    let r = one(&["--json", "--tag", "-z"]);
    assert_eq!(r["digest"], SHA256_ABC);
    mhash(p)
        .args(["--json", "--raw", "outside"])
        .assert()
        .code(1)
        .stdout("");
}

#[test]
fn json_check_mode_has_one_record_per_line_with_its_outcome() {
    let d = tree();
    let p = d.path();
    let bad = MD5_EMPTY;
    fs::write(
        p.join("MD5SUMS"),
        format!(
            "{MD5_ABC}  outside\n{bad}  t/a/x\n# a comment\nnot a checksum line\n{MD5_ABC}  missing\n{MD5_EMPTY}  t/a.txt\n"
        ),
    )
    .unwrap();
    let out = mhash(p).args(["-c", "--json", "MD5SUMS"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let recs = json_lines(&out.stdout);
    let want = [
        (1, Some("outside"), "ok"),
        (2, Some("t/a/x"), "mismatch"),
        (4, None, "malformed"),
        (5, Some("missing"), "unreadable"),
        (6, Some("t/a.txt"), "ok"),
    ];
    assert_eq!(recs.len(), want.len());
    for (r, (line, path, outcome)) in recs.iter().zip(want) {
        assert_eq!(r["checksum_file"], "MD5SUMS");
        assert_eq!(r["line"], line);
        assert_eq!(r["outcome"], outcome);
        match path {
            Some(p) => {
                assert_eq!(r["path"], p);
                assert_eq!(r["algorithm"], "md5");
            }
            None => assert!(r.get("path").is_none() && r.get("algorithm").is_none()),
        }
    }
    assert_eq!(recs[3]["error"], "No such file or directory");
    // The summary still goes to stderr.
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("WARNING: 1 computed checksum did NOT match"),
        "{err}"
    );
    // --quiet drops the ok records; --status prints none.
    let quiet = json_lines(
        &mhash(p)
            .args(["-c", "--json", "--quiet", "MD5SUMS"])
            .output()
            .unwrap()
            .stdout,
    );
    let outcomes: Vec<&str> = quiet.iter().map(|r| r["outcome"].as_str().unwrap()).collect();
    assert_eq!(outcomes, ["mismatch", "malformed", "unreadable"]);
    mhash(p)
        .args(["-c", "--json", "--status", "MD5SUMS"])
        .assert()
        .code(1)
        .stdout("");
    // An untagged 256-bit digest without a hint: SHA-256 by its length.
    fs::write(p.join("sums.txt"), format!("{SHA256_ABC}  outside\n")).unwrap();
    let recs = json_lines(
        &mhash(p)
            .args(["-c", "--json", "sums.txt"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["outcome"], "ok");
    assert_eq!(recs[0]["algorithm"], "sha256");
    assert_eq!(recs[0]["chosen_by"], "length");
    assert_eq!(recs[0]["line"], 1);
    let recs = json_lines(
        &mhash(p)
            .args(["-c", "--json", "-a", "sha256", "sums.txt"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(recs[0]["outcome"], "ok");
    assert_eq!(recs[0]["algorithm"], "sha256");
}

#[test]
fn progress_never_shows_when_stderr_is_not_a_terminal() {
    // A run longer than a second, stderr a pipe: nothing on stderr.
    let d = tree();
    let out = util::command("sh")
        .current_dir(d.path())
        .arg("-c")
        .arg(format!("(sleep 1.3; printf abc) | '{MHASH}'"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{SHA256_ABC}  -\n")
    );
    assert_eq!(out.stderr, b"");
}

#[test]
fn progress_flag_forces_the_bar_and_no_progress_wins_when_last() {
    let d = tree();
    let out = mhash(d.path()).args(["--progress", "outside"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{SHA256_ABC}  outside\n")
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("B/s"), "no rate in {err:?}");
    assert!(err.contains("ETA"), "no ETA in {err:?}");
    // Cleared at the end: the last thing written is an erase-line.
    assert!(err.trim_end_matches(' ').ends_with("\r\x1b[2K"), "{err:?}");
    // Standard input has no size: bytes and rate, no total, no ETA.
    let out = mhash(d.path())
        .arg("--progress")
        .write_stdin("abc")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{SHA256_ABC}  -\n")
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("B/s") && !err.contains("ETA"), "{err:?}");
    mhash(d.path())
        .args(["--progress", "--no-progress", "outside"])
        .assert()
        .success()
        .stderr("");
    // Under a GNU name the option does not exist: GNU's message.
    gnu_named(d.path(), "sha256sum")
        .args(["--progress", "outside"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(
            "sha256sum: unrecognized option '--progress'\n\
             Try 'sha256sum --help' for more information.\n",
        );
}

/// Check mode's bar has a total and an ETA: the sizes of the files the
/// lines read so far list (statted as each line is read); every rate is in
/// decimal units (MB/s, 10^6 bytes), never MiB/s.
#[test]
fn check_progress_shows_a_total_an_eta_and_decimal_units() {
    let d = TempDir::new().unwrap();
    // 3,000,000 bytes (2.86 MiB): the total reads `3.00 MB` in decimal
    // units, `2.86 MiB` in binary ones.
    fs::write(d.path().join("big"), vec![b'a'; 3_000_000]).unwrap();
    write(d.path(), "abc", "abc");
    // SHA-256("abc"), FIPS 180-2 B.1; the other line is judged whatever
    // its digest, the bar is what is looked at.
    let sums = format!("{SHA256_ABC}  abc\n{SHA256_EMPTY}  big\n");
    write(d.path(), "SUMS", &sums);
    let out = mhash(d.path())
        .args(["--progress", "-c", "SUMS"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "abc: OK\nbig: FAILED\n");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("ETA"), "no ETA in check mode: {err:?}");
    assert!(
        err.contains("/3.00 MB "),
        "no total of the listed sizes (3,000,003 B) in {err:?}"
    );
    assert!(err.contains("MB/s") || err.contains(" B/s"), "no rate in {err:?}");
    assert!(!err.contains("iB"), "binary units in {err:?}");
    // Hash mode too: decimal units.
    let out = mhash(d.path()).args(["--progress", "big"]).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("/3.00 MB "), "{err:?}");
    assert!(!err.contains("iB"), "binary units in {err:?}");
    // A checksum file on standard input listing no regular file: no total.
    let out = mhash(d.path())
        .args(["--progress", "-c", "-"])
        .write_stdin(format!("{SHA256_ABC}  -\n"))
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("B/s") && !err.contains("ETA"), "{err:?}");
}

/// Runs `cmd` under `script`, so that mhash's stdout and stderr are a
/// pseudo-terminal; returns what the terminal received.
fn in_pty(dir: &Path, cmd: &str) -> Option<String> {
    if !Path::new("/usr/bin/script").exists() {
        util::skip(
            "everyday::progress_shows_on_a_terminal_after_a_second_but_never_under_gnu_names",
            "/usr/bin/script (util-linux) not found",
        );
        return None;
    }
    let out = util::command("script")
        .current_dir(dir)
        .env("PATH", format!("{}/.bin:/usr/bin:/bin", dir.display()))
        .args(["-qec", cmd, "/dev/null"])
        .output()
        .unwrap();
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn progress_shows_on_a_terminal_after_a_second_but_never_under_gnu_names() {
    let d = tree();
    let bin = d.path().join(".bin");
    util::mhash_link(&bin, "mhash");
    util::mhash_link(&bin, "sha256sum");
    let Some(screen) = in_pty(d.path(), "(sleep 1.5; printf abc) | mhash -") else {
        return;
    };
    assert!(screen.contains("B/s"), "no bar on the terminal: {screen:?}");
    assert!(screen.contains(&format!("{SHA256_ABC}  -")), "{screen:?}");
    // A short run on a terminal: no bar.
    let screen = in_pty(d.path(), "mhash outside").unwrap();
    assert_eq!(screen, format!("{SHA256_ABC}  outside\r\n"));
    // --no-progress and GNU names: no bar, however long the run.
    let screen = in_pty(d.path(), "(sleep 1.5; printf abc) | mhash --no-progress -").unwrap();
    assert_eq!(screen, format!("{SHA256_ABC}  -\r\n"));
    let screen = in_pty(d.path(), "(sleep 1.5; printf abc) | sha256sum").unwrap();
    assert_eq!(screen, format!("{SHA256_ABC}  -\r\n"));
}

/// Every long option of the native face, read from its `--help`.
fn native_long_options(dir: &Path) -> Vec<String> {
    let help = stdout(mhash(dir).arg("--help"));
    let mut v: Vec<String> = Vec::new();
    for word in help.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
        if let Some(name) = word.strip_prefix("--")
            && !name.is_empty()
            && name.chars().next().unwrap().is_ascii_lowercase()
            && !v.iter().any(|x| x == name)
        {
            v.push(name.to_string());
        }
    }
    v
}

#[test]
fn completions_cover_every_flag_for_every_shell() {
    let d = TempDir::new().unwrap();
    let flags = native_long_options(d.path());
    for f in [
        "recursive",
        "files-from",
        "json",
        "progress",
        "no-progress",
        "install-links",
        "algorithm",
        "check",
    ] {
        assert!(flags.iter().any(|x| x == f), "--{f} not in --help");
    }
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout(mhash(d.path()).args(["completions", shell]));
        assert!(script.len() > 500, "{shell}: {script}");
        for f in &flags {
            let form = match shell {
                "fish" => format!("-l {f}"),
                _ => format!("--{f}"),
            };
            assert!(script.contains(&form), "{shell} completion lacks --{f}");
        }
    }
    // The bash script is valid bash.
    let bash = stdout(mhash(d.path()).args(["completions", "bash"]));
    fs::write(d.path().join("c.bash"), &bash).unwrap();
    let ok = std::process::Command::new("bash")
        .args(["-n", "c.bash"])
        .current_dir(d.path())
        .status()
        .unwrap();
    assert!(ok.success());
    mhash(d.path())
        .args(["completions", "tcsh"])
        .assert()
        .code(1)
        .stdout("");
    mhash(d.path()).arg("completions").assert().code(1).stdout("");
}

/// Completes `words` (the command line so far, the last word being
/// completed) with the bash script `script`, in `dir`; returns COMPREPLY.
fn bash_complete(dir: &Path, script: &Path, words: &[&str]) -> Vec<String> {
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(
            r#"source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
               prev=""; [ $# -ge 2 ] && prev="${COMP_WORDS[COMP_CWORD-1]}";
               _mhash mhash "${COMP_WORDS[COMP_CWORD]}" "$prev" 2>/dev/null;
               printf '%s\n' "${COMPREPLY[@]}""#,
        )
        .arg("bash")
        .arg(script)
        .args(words)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{words:?}: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// The completion scripts offer the values of every option that has a
/// fixed set (`-a`: the algorithm table's names, each of which `-a`
/// takes; `--io`; `--nar-format`) and no file names there; bash's script
/// is run, fish's too (`complete -C`) and zsh's is parsed (`zsh -n`) where
/// those shells are installed.
#[test]
fn completions_offer_algorithms_and_fixed_values_not_file_names() {
    let d = TempDir::new().unwrap();
    // Files whose names a file completion would offer for `sha2`.
    write(d.path(), "sha2file", "abc");
    write(d.path(), "sha2-notes", "abc");
    let bash = stdout(mhash(d.path()).args(["completions", "bash"]));
    let script = d.path().join("c.bash");
    fs::write(&script, &bash).unwrap();
    let got = bash_complete(d.path(), &script, &["mhash", "-a", "sha2"]);
    assert!(got.iter().any(|w| w == "sha256"), "{got:?}");
    assert!(got.iter().any(|w| w == "sha224"), "{got:?}");
    assert!(
        !got.iter().any(|w| w.contains("file") || w.contains("notes")),
        "{got:?}"
    );
    let all = bash_complete(d.path(), &script, &["mhash", "--algorithm", ""]);
    // Names from the specs (FIPS 180-4, FIPS 202, RFC 7693, BLAKE3, GNU
    // cksum's crc/bsd/sysv/crc32b), each offered...
    for name in [
        "md5", "sha1", "sha256", "sha512", "sha3-256", "blake2b", "blake3", "crc", "crc32b", "bsd", "sysv",
    ] {
        assert!(all.iter().any(|w| w == name), "{name} not offered: {all:?}");
    }
    // ...and everything offered is a name -a takes (a family, sha2 or
    // sha3, with a length).
    for name in &all {
        let mut c = mhash(d.path());
        c.args(["-a", name, "sha2file"]);
        if name == "sha2" || name == "sha3" {
            c.args(["-l", "256"]);
        }
        c.assert().success();
    }
    let io = bash_complete(d.path(), &script, &["mhash", "--io", ""]);
    assert_eq!(io, ["auto", "read", "mmap"]);
    let nar = bash_complete(d.path(), &script, &["mhash", "--nar-format", ""]);
    assert_eq!(nar, ["sri", "nix32", "base16", "base64"]);
    for v in &nar {
        mhash(d.path())
            .args(["--nar", "--nar-format", v, "sha2file"])
            .assert()
            .success();
    }
    // A number: no file names either (the script answers the word as
    // typed, so bash's default file completion does not step in).
    assert!(bash_complete(d.path(), &script, &["mhash", "--jobs", ""]).is_empty());

    let zsh = stdout(mhash(d.path()).args(["completions", "zsh"]));
    assert!(
        zsh.contains(":TYPE:(md5 sha1 sha224 sha256 "),
        "zsh script offers no -a values"
    );
    if Path::new("/usr/bin/zsh").exists() || Path::new("/bin/zsh").exists() {
        fs::write(d.path().join("c.zsh"), &zsh).unwrap();
        let ok = std::process::Command::new("zsh")
            .args(["-n", "c.zsh"])
            .current_dir(d.path())
            .status()
            .unwrap();
        assert!(ok.success(), "zsh -n");
    } else {
        util::skip(
            "everyday::completions_offer_algorithms_and_fixed_values_not_file_names (zsh -n)",
            "zsh not installed",
        );
    }
    let fish = stdout(mhash(d.path()).args(["completions", "fish"]));
    if Path::new("/usr/bin/fish").exists() {
        fs::write(d.path().join("c.fish"), &fish).unwrap();
        let run = |line: &str| {
            let out = std::process::Command::new("fish")
                .arg("-c")
                .arg(format!("source c.fish; complete -C '{line}'"))
                .current_dir(d.path())
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            String::from_utf8(out.stdout).unwrap()
        };
        let got = run("mhash -a sha2");
        let words: Vec<&str> = got.lines().map(|l| l.split('\t').next().unwrap()).collect();
        assert!(words.contains(&"sha256"), "fish: {got:?}");
        assert!(!got.contains("sha2file"), "fish offers files for -a: {got:?}");
        assert!(run("mhash sha2").contains("sha2file"));
    } else {
        util::skip(
            "everyday::completions_offer_algorithms_and_fixed_values_not_file_names (fish)",
            "fish not installed",
        );
    }
}

#[test]
fn man_page_is_roff_and_documents_every_flag() {
    let d = TempDir::new().unwrap();
    let flags = native_long_options(d.path());
    let page = stdout(mhash(d.path()).arg("man"));
    assert!(page.contains(".TH mhash 1"), "{page}");
    assert!(page.contains(".SH NAME"));
    assert!(page.contains(".SH SYNOPSIS"));
    for f in &flags {
        let roff = format!("\\-\\-{}", f.replace('-', "\\-"));
        assert!(page.contains(&roff), "man page lacks --{f}");
    }
    // It renders: groff turns it into text that names the options.
    if Path::new("/usr/bin/groff").exists() {
        fs::write(d.path().join("mhash.1"), &page).unwrap();
        let out = std::process::Command::new("groff")
            .args(["-man", "-Tascii", "mhash.1"])
            .current_dir(d.path())
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("--install-links"), "{text}");
    } else {
        util::skip(
            "everyday::man_page_is_roff_and_documents_every_flag (rendering)",
            "/usr/bin/groff not found",
        );
    }
}

#[test]
fn install_links_creates_gnu_names_that_behave_as_gnu() {
    let d = tree();
    let bin = d.path().join("bin");
    fs::create_dir(&bin).unwrap();
    let exe = fs::canonicalize(MHASH).unwrap();
    let names = util::GNU_NAMES;
    // Each link names the GNU release it reproduces: that of /usr/bin's
    // tool (the only one on this PATH), as its --version says.
    let expected: String = names
        .iter()
        .map(|n| {
            let note = match crate::link_release::gnu_version(&util::gnu_path(n)) {
                Some(v) => format!(" (as GNU coreutils {v}, found /usr/bin/{n})"),
                None => format!(" (as GNU coreutils 9.11: no GNU {n} found to shadow)"),
            };
            format!("{}/{n} -> {}{note}\n", bin.display(), exe.display())
        })
        .collect();
    mhash(d.path())
        .arg("--install-links")
        .arg(&bin)
        .env("PATH", "/usr/bin:/bin")
        .assert()
        .success()
        .stdout(expected)
        .stderr("");
    for n in names {
        assert_eq!(fs::read_link(bin.join(n)).unwrap(), exe, "{n}");
    }
    let run = |name: &str| {
        let mut c = util::command(bin.join(name));
        c.arg("outside").current_dir(d.path());
        stdout(&mut assert_cmd::Command::from_std(c))
    };
    assert_eq!(run("sha256sum"), format!("{SHA256_ABC}  outside\n"));
    assert_eq!(run("md5sum"), format!("{MD5_ABC}  outside\n"));
    // cksum of "abc": 1219131554 3 (POSIX CRC; GNU cksum's documented output).
    assert_eq!(run("cksum"), "1219131554 3 outside\n");
    // GNU sum's BSD checksum of "abc" (GNU coreutils 9.11 `sum`).
    assert_eq!(run("sum"), "16556     1 outside\n");
    // Again: nothing to do, nothing replaced.
    mhash(d.path())
        .arg("--install-links")
        .arg(&bin)
        .assert()
        .success()
        .stdout("");
}

#[test]
fn install_links_refuses_to_replace_files_unless_forced() {
    let d = TempDir::new().unwrap();
    let bin = d.path().join("bin");
    fs::create_dir(&bin).unwrap();
    fs::write(bin.join("sha256sum"), "#!/bin/sh\n").unwrap();
    let prog = MHASH;
    mhash(d.path())
        .args(["--install-links", "bin"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!(
            "{prog}: bin/sha256sum: File exists (--force replaces it)\n"
        ));
    // Nothing was made, the file is untouched.
    assert_eq!(fs::read_dir(&bin).unwrap().count(), 1);
    assert_eq!(fs::read(bin.join("sha256sum")).unwrap(), b"#!/bin/sh\n");
    mhash(d.path())
        .args(["--install-links", "bin", "--force"])
        .assert()
        .success();
    let exe = fs::canonicalize(prog).unwrap();
    assert_eq!(fs::read_link(bin.join("sha256sum")).unwrap(), exe);
    // The nine links, and the release file where a GNU tool was found.
    let files = fs::read_dir(&bin).unwrap().count();
    assert!(
        files == 9 || files == 10 && bin.join(".mhash-gnu-release").is_file(),
        "{files}"
    );
    // Not a directory; --force alone; operands.
    mhash(d.path())
        .args(["--install-links", "bin/sha256sum"])
        .assert()
        .code(1)
        .stderr(format!("{prog}: bin/sha256sum: Not a directory\n"));
    mhash(d.path()).args(["--force", "x"]).assert().code(1);
    mhash(d.path())
        .args(["--install-links", "bin", "x"])
        .assert()
        .code(1);
}

/// `--relative`: each link's target is relative to DIR, and the links
/// still work once DIR and the binary's directory are moved together.
#[test]
fn install_links_relative_targets_survive_moving_the_tree() {
    let d = TempDir::new().unwrap();
    let root = d.path().join("pkg");
    fs::create_dir_all(root.join("bin")).unwrap();
    fs::create_dir_all(root.join("lib")).unwrap();
    let exe = root.join("lib/mhash");
    fs::copy(MHASH, &exe).unwrap();
    let out = util::command(&exe)
        .args(["--install-links", "pkg/bin", "--relative"])
        .env("PATH", "/usr/bin:/bin")
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("pkg/bin/md5sum -> ../lib/mhash ("), "{text}");
    for name in util::GNU_NAMES {
        let target = fs::read_link(root.join("bin").join(name)).unwrap();
        assert_eq!(target, Path::new("../lib/mhash"), "{name}");
    }
    let moved = d.path().join("moved");
    fs::rename(&root, &moved).unwrap();
    let abc = d.path().join("abc");
    fs::write(&abc, "abc").unwrap();
    let out = util::command(moved.join("bin/sha256sum"))
        .arg(&abc)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{SHA256_ABC}  {}\n", abc.display())
    );
    // Running it again there: every link is already in place.
    let out = util::command(moved.join("lib/mhash"))
        .args(["--install-links", "moved/bin", "--relative"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(out.stdout, b"");
    // Only with --install-links.
    mhash(d.path())
        .args(["--relative", "abc"])
        .assert()
        .code(1)
        .stderr(format!(
            "{p}: the --relative option is meaningful only with --install-links\n\
             Try '{p} --help' for more information.\n",
            p = util::prog()
        ));
}

/// `--with-b3sum` adds a `b3sum` link (BLAKE3 as b3sum prints it) and
/// its line names the b3sum it shadows, with that tool's version line;
/// without the option no `b3sum` is made.
#[test]
fn install_links_with_b3sum_says_what_it_shadows() {
    use std::os::unix::fs::PermissionsExt;
    let d = TempDir::new().unwrap();
    let bin = d.path().join("bin");
    let other = d.path().join("other");
    fs::create_dir_all(&bin).unwrap();
    fs::create_dir_all(&other).unwrap();
    // Another b3sum later on PATH: a stand-in that answers --version as
    // b3sum 1.x does (`b3sum 1.5.4`).
    let real = other.join("b3sum");
    fs::write(&real, "#!/bin/sh\necho 'b3sum 1.5.4'\n").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}:/usr/bin:/bin", bin.display(), other.display());
    let exe = fs::canonicalize(MHASH).unwrap();
    let out = mhash(d.path())
        .args(["--install-links", "bin"])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(!bin.join("b3sum").exists(), "b3sum made without --with-b3sum");
    let out = mhash(d.path())
        .args(["--install-links", "bin", "--with-b3sum"])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "bin/b3sum -> {} (b3sum's face; shadows {}, b3sum 1.5.4)\n",
            exe.display(),
            real.display()
        )
    );
    // It is b3sum's face: BLAKE3("abc") from the BLAKE3 reference
    // implementation's test vectors (b3sum prints `HEX  NAME`).
    write(d.path(), "abc", "abc");
    let out = util::command(bin.join("b3sum"))
        .arg("abc")
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85  abc\n"
    );
    // No other b3sum: the line says so.
    fs::remove_file(bin.join("b3sum")).unwrap();
    fs::remove_file(&real).unwrap();
    let out = mhash(d.path())
        .args(["--install-links", "bin", "--with-b3sum"])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "bin/b3sum -> {} (b3sum's face; no other b3sum found to shadow)\n",
            exe.display()
        )
    );
}

/// Every native-only option is unknown to every GNU name, worded as GNU
/// 9.1's getopt words it (compared with the installed GNU tool when
/// present).
#[test]
fn gnu_names_reject_native_only_options_as_gnu_does() {
    let d = tree();
    let cases: &[&[&str]] = &[
        &["-r", "t"],
        &["--recursive", "t"],
        &["-L", "t"],
        &["--follow", "t"],
        &["--include=x", "t"],
        &["--exclude", "x", "t"],
        &["--one-file-system", "t"],
        &["--files-from", "list"],
        &["-0", "outside"],
        &["--null", "outside"],
        &["--json", "outside"],
        &["--progress", "outside"],
        &["--no-progress", "outside"],
        &["--install-links", "bin"],
        &["--force", "outside"],
        &["--relative", "outside"],
        &["--with-b3sum", "outside"],
    ];
    let gnu =
        util::gnu_available("everyday::gnu_names_reject_native_only_options_as_gnu_does (GNU comparison)");
    for name in ["sha256sum", "md5sum", "b2sum", "cksum"] {
        for args in cases {
            let ours = gnu_named(d.path(), name).args(*args).output().unwrap();
            assert_eq!(ours.status.code(), Some(1), "{name} {args:?}");
            assert_eq!(ours.stdout, b"", "{name} {args:?}");
            let err = String::from_utf8(ours.stderr.clone()).unwrap();
            assert!(
                err.contains("invalid option") || err.contains("unrecognized option"),
                "{name} {args:?}: {err}"
            );
            if gnu {
                let theirs = util::gnu(name)
                    .args(*args)
                    .current_dir(d.path())
                    .output()
                    .unwrap();
                assert_eq!(ours.status.code(), theirs.status.code(), "{name} {args:?}");
                assert_bytes_eq!(ours.stderr, theirs.stderr, "{name} {args:?}: stderr");
            }
        }
    }
}

/// `mhash -r DIR` prints what GNU sha256sum prints for
/// `find DIR -type f | LC_ALL=C sort` (the order and the naming rule, with
/// an independent oracle), on a tree of awkward names and on
/// /usr/share/zoneinfo (about 900 files and many symlinks) where present.
#[test]
fn recursive_matches_gnu_sha256sum_over_find_sorted() {
    if !util::gnu_available("everyday::recursive_matches_gnu_sha256sum_over_find_sorted") {
        return;
    }
    let d = tree();
    for name in [
        "sp ace",
        "b\\slash",
        "new\nline",
        "Z",
        "_",
        "~",
        "a b/c",
        "t-/x",
        "t.z",
    ] {
        write(&d.path().join("t"), name, name);
    }
    let mut roots = vec![d.path().join("t")];
    if Path::new("/usr/share/zoneinfo").is_dir() {
        roots.push("/usr/share/zoneinfo".into());
    }
    for root in roots {
        let gnu = util::command("sh")
            .arg("-c")
            .arg("find \"$1\" -type f -print0 | LC_ALL=C sort -z | xargs -0 /usr/bin/sha256sum")
            .arg("sh")
            .arg(&root)
            .output()
            .unwrap();
        assert!(gnu.status.success());
        let ours = mhash(d.path()).arg("-r").arg(&root).output().unwrap();
        assert!(ours.status.success(), "{}", String::from_utf8_lossy(&ours.stderr));
        assert!(gnu.stdout.len() > 500);
        assert_bytes_eq!(
            ours.stdout,
            gnu.stdout,
            "{}: mhash -r differs from find | sort | sha256sum",
            root.display()
        );
    }
}

#[test]
fn dash_h_is_a_summary_in_the_native_face_only() {
    let d = TempDir::new().unwrap();
    let help = mhash(d.path()).arg("--help").output().unwrap();
    let h = mhash(d.path()).arg("-h").output().unwrap();
    assert!(h.status.success() && h.stderr.is_empty(), "{h:?}");
    assert!(h.stdout.len() < help.stdout.len(), "-h is the shorter text");
    // GNU's names refuse -h, as GNU 9.1 does (compared after the name).
    if !util::gnu_available("sha256sum -h") {
        return;
    }
    let ours = util::named(d.path(), "sha256sum").arg("-h").output().unwrap();
    let gbin = d.path().join(".gnu");
    util::gnu_link(&gbin, "sha256sum");
    let theirs = util::command("sha256sum")
        .env("PATH", &gbin)
        .arg("-h")
        .output()
        .unwrap();
    assert_eq!(ours.status.code(), theirs.status.code());
    assert_eq!(ours.stdout, theirs.stdout);
    assert_eq!(ours.stderr, theirs.stderr);
}

#[test]
fn b3sum_version_says_it_is_mhash() {
    let d = TempDir::new().unwrap();
    let out = util::named(d.path(), "b3sum").arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("b3sum (mhash) {}\n", env!("CARGO_PKG_VERSION"))
    );
}
