//! `mhash -c MANIFEST --audit DIR`: every file of a
//! tree reported as rclone `check --combined` does (`=` matching, `*`
//! changed, `-` missing, `+` new, `!` unreadable), in manifest order and
//! then walk order, as text and as JSON, with the counts on standard error
//! and exit status 0 only when nothing differs.
//!
//! Manifests are made by mhash itself (`cd DIR && mhash -r .`), whose
//! lines GNU's `sha256sum -c` reads (see `roundtrip`), or written by hand
//! in GNU's escaped form. Unreadable files: a directory where the manifest
//! lists a file (EISDIR, whoever runs the tests), strace's fault injection
//! (EACCES for one file and one directory), and `chmod 000` when not root.
#![cfg(unix)]

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use tempfile::TempDir;

use crate::util::{self, mhash, skip};

/// A scratch directory with the tree `d/` and room for manifests beside it.
struct Tree {
    td: TempDir,
}

impl Tree {
    fn new() -> Tree {
        let td = TempDir::new().unwrap();
        fs::create_dir(td.path().join("d")).unwrap();
        Tree { td }
    }
    fn top(&self) -> &Path {
        self.td.path()
    }
    fn d(&self) -> PathBuf {
        self.td.path().join("d")
    }
    /// Writes `d/NAME` (NAME as bytes), making its directories.
    fn w(&self, name: &[u8], data: &[u8]) {
        let p = self.d().join(OsStr::from_bytes(name));
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, data).unwrap();
    }
    /// `cd d && mhash -a sha256 -r .`, saved as `name` beside `d`.
    fn manifest(&self, name: &str) -> Vec<u8> {
        let out = mhash(&self.d())
            .args(["-a", "sha256", "-r", "."])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        fs::write(self.top().join(name), &out.stdout).unwrap();
        out.stdout
    }
    /// `mhash ARGS` in the top directory.
    fn run(&self, args: &[&str]) -> Output {
        mhash(self.top()).args(args).output().unwrap()
    }
}

/// The bytes `got` are `want` (both printed escaped where they differ).
#[track_caller]
fn same(got: impl AsRef<[u8]>, want: impl AsRef<[u8]>) {
    let (got, want) = (got, want);
    assert_bytes_eq!(got, want);
}

fn summary(m: u64, c: u64, miss: u64, new: u64, bad: u64) -> String {
    let mut s = String::new();
    for (n, what) in [
        (m, "matching (=)"),
        (c, "changed (*)"),
        (miss, "missing (-)"),
        (new, "new (+)"),
        (bad, "unreadable (!)"),
    ] {
        s.push_str(&format!("{}: audit: {n} {what}\n", util::MHASH));
    }
    s
}

/// The tree of the category tests: after the manifest is made, `gone` is
/// removed, `with space` changed, `isdir` (listed as a file) becomes a
/// directory, and two files are added.
fn every_category() -> Tree {
    let t = Tree::new();
    t.w(b"same", b"same");
    t.w(b"with space", b"old");
    t.w(b"nl\nname", b"x");
    t.w(b"bad\xff", b"y");
    t.w(b"gone", b"z");
    t.w(b"isdir", b"was a file");
    t.w(b"sub/deep", b"q");
    t.manifest("m");
    fs::remove_file(t.d().join("gone")).unwrap();
    fs::write(t.d().join("with space"), b"new").unwrap();
    fs::remove_file(t.d().join("isdir")).unwrap();
    t.w(b"isdir/inner", b"i");
    t.w(b"newfile", b"n");
    t.w(b"sub/new two", b"n2");
    t
}

#[test]
fn every_category_in_manifest_order_then_walk_order() {
    let t = every_category();
    let out = t.run(&["-c", "m", "--audit", "d"]);
    same(
        out.stdout,
        b"= 'bad'$'\\377'\n\
          - gone\n\
          ! isdir\n\
          = 'nl'$'\\n''name'\n\
          = same\n\
          = sub/deep\n\
          * 'with space'\n\
          + isdir/inner\n\
          + newfile\n\
          + 'sub/new two'\n",
    );
    let want = format!(
        "{}: d/isdir: Is a directory\n{}",
        util::MHASH,
        summary(4, 1, 1, 3, 1)
    );
    same(out.stderr, want);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn json_records_carry_each_category_and_a_summary() {
    let t = every_category();
    let out = t.run(&["-c", "m", "--audit", "d", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let recs: Vec<serde_json::Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("each line is a JSON object"))
        .collect();
    assert_eq!(recs.len(), 11);
    let cat = |i: usize| recs[i]["category"].as_str().unwrap().to_string();
    let cats: Vec<String> = (0..10).map(cat).collect();
    assert_eq!(
        cats,
        [
            "matching",
            "missing",
            "unreadable",
            "matching",
            "matching",
            "matching",
            "changed",
            "new",
            "new",
            "new"
        ]
    );
    // Not UTF-8: a string with U+FFFD, and the exact bytes.
    assert_eq!(recs[0]["path"], "bad\u{fffd}");
    assert_eq!(recs[0]["path_bytes"], serde_json::json!([98, 97, 100, 255]));
    assert_eq!(recs[0]["symbol"], "=");
    assert_eq!(recs[0]["line"], 1);
    assert_eq!(recs[0]["algorithm"], "sha256");
    assert_eq!(recs[2]["error"], "Is a directory");
    assert_eq!(recs[3]["path"], "nl\nname");
    assert_eq!(recs[6]["path"], "with space");
    assert_eq!(recs[6]["symbol"], "*");
    assert_eq!(recs[9]["path"], "sub/new two");
    assert_eq!(recs[9]["symbol"], "+");
    assert!(recs[9].get("line").is_none(), "a new file has no line");
    assert_eq!(
        recs[10],
        serde_json::json!({
            "summary": {"matching": 4, "changed": 1, "missing": 1, "new": 3, "unreadable": 1},
            "differs": true
        })
    );
    // JSON's summary is the last record; stderr has only the diagnostic.
    same(out.stderr, format!("{}: d/isdir: Is a directory\n", util::MHASH));
}

#[test]
fn exit_status_is_zero_only_when_nothing_differs() {
    let t = Tree::new();
    t.w(b"a", b"1");
    t.w(b"b c/d", b"2");
    t.manifest("m");
    let out = t.run(&["-c", "m", "--audit", "d"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    same(out.stdout, "= a\n= 'b c/d'\n");
    same(out.stderr, summary(2, 0, 0, 0, 0));
    // --quiet: no '=' lines; --status: nothing at all; both still 0.
    let out = t.run(&["-c", "m", "--audit", "d", "--quiet"]);
    assert_eq!((out.status.code(), out.stdout.len()), (Some(0), 0));
    let out = t.run(&["-c", "m", "--audit", "d", "--status"]);
    assert_eq!(
        (out.status.code(), &out.stdout[..], &out.stderr[..]),
        (Some(0), &b""[..], &b""[..])
    );
    // One new file is a difference.
    t.w(b"extra", b"3");
    let out = t.run(&["-c", "m", "--audit", "d", "--quiet"]);
    assert_eq!(out.status.code(), Some(1));
    same(out.stdout, "+ extra\n");
    let out = t.run(&["-c", "m", "--audit", "d", "--status"]);
    assert_eq!((out.status.code(), out.stdout.len()), (Some(1), 0));
    // An empty manifest over an empty tree: nothing differs.
    let e = Tree::new();
    fs::write(e.top().join("m"), b"").unwrap();
    let out = e.run(&["-c", "m", "--audit", "d"]);
    assert_eq!(out.status.code(), Some(0));
    same(out.stderr, summary(0, 0, 0, 0, 0));
}

#[test]
fn gnu_escaped_lines_and_names_normalized_as_the_walk_spells_them() {
    let t = Tree::new();
    t.w(b"nl\nx", b"abc");
    t.w(b"back\\slash", b"abc");
    t.w(b"s/t", b"abc");
    // sha256("abc"), FIPS 180-2 B.1; GNU's escaped form for \n and \\;
    // `./` and `//` as other tools write them.
    let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    let m = format!("\\{abc}  nl\\nx\n\\{abc}  ./back\\\\slash\n{abc}  s//t\n");
    fs::write(t.top().join("SHA256SUMS"), m).unwrap();
    let out = t.run(&["-c", "SHA256SUMS", "--audit", "d"]);
    same(out.stdout, "= 'nl'$'\\n''x'\n= 'back\\slash'\n= s/t\n");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn ordinary_check_lines_keep_gnus_format() {
    let t = every_category();
    let out = mhash(&t.d()).args(["-c", "../m"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("./same: OK\n"), "{text}");
    assert!(text.contains("'./with space': FAILED\n"), "{text}");
    assert!(text.contains("./gone: FAILED open or read\n"), "{text}");
    assert!(!text.contains("newfile"), "no walk without --audit: {text}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn the_manifest_inside_the_tree_is_not_reported() {
    let t = Tree::new();
    t.w(b"a", b"1");
    let sums = t.manifest("m");
    fs::write(t.d().join("SHA256SUMS"), sums).unwrap();
    let out = t.run(&["-c", "d/SHA256SUMS", "--audit", "d"]);
    same(out.stdout, "= a\n");
    assert_eq!(out.status.code(), Some(0));
    // From standard input, the tree's copy is just another file.
    let out = mhash(t.top())
        .args(["-c", "-", "--audit", "d"])
        .write_stdin(fs::read(t.top().join("m")).unwrap())
        .output()
        .unwrap();
    same(out.stdout, "= a\n+ SHA256SUMS\n");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn names_with_the_directory_in_them_get_a_hint() {
    let t = Tree::new();
    t.w(b"a", b"1");
    let out = mhash(t.top()).args(["-r", "d"]).output().unwrap();
    fs::write(t.top().join("m"), out.stdout).unwrap();
    let out = t.run(&["-c", "m", "--audit", "d"]);
    same(out.stdout, "- d/a\n+ a\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "hint: no file listed in m was found under d: its names are read relative to that directory"
        ),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn many_files_give_the_same_bytes_on_one_job_and_on_many() {
    let t = Tree::new();
    for i in 0..400 {
        t.w(
            format!("dir{}/f{i:03}", i % 7).as_bytes(),
            &util::noise(i * 37 % 5000, i as u64),
        );
    }
    t.manifest("m");
    for i in (0..400).step_by(50) {
        fs::remove_file(t.d().join(format!("dir{}/f{i:03}", i % 7))).unwrap();
        t.w(format!("dir{}/new{i:03}", i % 5).as_bytes(), b"n");
    }
    fs::write(t.d().join("dir3/f003"), b"changed").unwrap();
    let one = t.run(&["-c", "m", "--audit", "d", "-j1"]);
    let many = t.run(&["-c", "m", "--audit", "d", "-j8"]);
    same(&one.stdout, &many.stdout);
    same(&one.stderr, &many.stderr);
    same(one.stderr, summary(391, 1, 8, 8, 0));
    // Manifest order first (the walk's, as -r wrote it), then new files sorted.
    let text = String::from_utf8(one.stdout).unwrap();
    let news: Vec<&str> = text.lines().filter(|l| l.starts_with('+')).collect();
    let mut sorted = news.clone();
    sorted.sort();
    assert_eq!(news, sorted);
    assert!(text.lines().rev().take(8).all(|l| l.starts_with('+')));
}

#[test]
fn usage_errors_name_the_problem() {
    let t = every_category();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--audit", "d", "m"],
            "the --audit option is meaningful only when verifying checksums",
        ),
        (
            &["-c", "m", "m", "--audit", "d"],
            "--audit takes exactly one checksum file",
        ),
        (
            &["-c", "m", "--audit", "d", "--ignore-missing"],
            "--ignore-missing and --audit are mutually exclusive",
        ),
    ];
    for (args, msg) in cases {
        let out = t.run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
    let out = t.run(&["-c", "m", "--audit", "nowhere"]);
    assert_eq!(out.status.code(), Some(1));
    same(
        out.stderr,
        format!("{}: nowhere: No such file or directory\n", util::MHASH),
    );
    let out = t.run(&["-c", "m", "--audit", "m"]);
    same(out.stderr, format!("{}: m: Not a directory\n", util::MHASH));
    let out = t.run(&["-c", "nosuch", "--audit", "d"]);
    assert_eq!(out.status.code(), Some(1));
    same(
        out.stderr,
        format!("{}: nosuch: No such file or directory\n", util::MHASH),
    );
    // GNU names do not have the option.
    let out = util::named(t.top(), "sha256sum")
        .args(["-c", "m", "--audit", "d"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unrecognized option '--audit'"));
}

/// True when strace can inject faults here; else a `SKIP` line.
fn strace_works(what: &str) -> bool {
    let ok = util::command("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip(
            &format!("audit::{what}"),
            "strace is not installed or cannot trace here (ptrace refused): the fault injection did NOT run",
        );
    }
    ok
}

#[test]
fn unreadable_file_and_directory_by_fault_injection() {
    if !strace_works("unreadable_file_and_directory_by_fault_injection") {
        return;
    }
    let t = Tree::new();
    t.w(b"a", b"1");
    t.w(b"locked", b"2");
    t.w(b"sub/x", b"3");
    t.manifest("m");
    t.w(b"sub/y", b"4");
    // EACCES on opening d/locked (a listed file) and d/sub (a directory
    // the walk enters), whoever runs the test.
    let out = util::command("strace")
        .current_dir(t.top())
        .args(["-f", "-qq", "-o", "/dev/null", "-P", "d/locked", "-P", "d/sub"])
        .args(["-e", "trace=openat", "-e", "inject=openat:error=EACCES"])
        .arg(util::MHASH)
        .args(["-c", "m", "--audit", "d"])
        .output()
        .unwrap();
    same(out.stdout, "= a\n! locked\n= sub/x\n! sub\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("d/locked: Permission denied\n"), "{err}");
    assert!(err.contains("d/sub: Permission denied\n"), "{err}");
    assert!(err.contains("audit: 2 unreadable (!)\n"), "{err}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn permission_denied_when_not_root() {
    use std::os::unix::fs::PermissionsExt;
    let t = Tree::new();
    t.w(b"a", b"1");
    t.w(b"locked", b"2");
    t.manifest("m");
    fs::set_permissions(t.d().join("locked"), fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read(t.d().join("locked")).is_ok() {
        skip(
            "audit::permission_denied_when_not_root",
            "running as root: chmod 000 does not stop reading (see the fault-injection test)",
        );
        return;
    }
    let out = t.run(&["-c", "m", "--audit", "d"]);
    same(out.stdout, "= a\n! locked\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("d/locked: Permission denied\n"));
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn walk_options_choose_which_unlisted_files_are_reported() {
    let t = Tree::new();
    t.w(b"a", b"1");
    t.w(b"build/a.o", b"2");
    t.manifest("m");
    t.w(b".git/HEAD", b"3");
    t.w(b"build/b.o", b"4");
    let out = t.run(&["-c", "m", "--audit", "d"]);
    same(out.stdout, "= a\n= build/a.o\n+ .git/HEAD\n+ build/b.o\n");
    // Excluded: not reported as new; listed files are still checked.
    let out = t.run(&["-c", "m", "--audit", "d", "--exclude", ".git", "--exclude", "*.o"]);
    same(out.stdout, "= a\n= build/a.o\n");
    assert_eq!(out.status.code(), Some(0));
    let out = t.run(&["-c", "m", "--audit", "d", "--include", "build/**"]);
    same(out.stdout, "= a\n= build/a.o\n+ build/b.o\n");
    // Without -r or --audit they still mean nothing.
    let out = t.run(&["-c", "m", "--exclude", ".git"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("meaningful only with --recursive"));
}

#[test]
fn improperly_formatted_lines_are_counted_as_dash_c_counts_them() {
    let t = Tree::new();
    t.w(b"a", b"1");
    let mut m = t.manifest("m");
    m.extend_from_slice(b"not a checksum line\n");
    fs::write(t.top().join("m"), m).unwrap();
    let out = t.run(&["-c", "m", "--audit", "d"]);
    same(&out.stdout, "= a\n");
    let warning = format!("{}: WARNING: 1 line is improperly formatted\n", util::MHASH);
    same(&out.stderr, format!("{}{warning}", summary(1, 0, 0, 0, 0)));
    assert_eq!(out.status.code(), Some(0));
    // --strict fails on it; -w names the line.
    let out = t.run(&["-c", "m", "--audit", "d", "--strict", "-w"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("m: 2: improperly formatted checksum line\n"));
}

/// Standard output that cannot be written stops the audit part way: no
/// counts (they would look complete), one line saying so, GNU's `write
/// error` line, exit 1.
#[test]
fn a_write_error_stops_the_audit_without_counts() {
    let t = Tree::new();
    t.w(b"a", b"1");
    t.w(b"b", b"2");
    t.manifest("m");
    let full = fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    // Run by the name `mhash`, as util::mhash runs it.
    let out = std::process::Command::new(util::MHASH)
        .arg0("mhash")
        .current_dir(t.top())
        .args(["-c", "m", "--audit", "d"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    same(
        out.stderr,
        "mhash: audit: stopped before the end: standard output could not be written; nothing is counted\n\
         mhash: write error: No space left on device\n",
    );
}

/// A manifest's names that lead out of DIR (`..` above it, absolute, or
/// through a symbolic link inside it while the walk does not follow
/// links) are never opened: each is unreadable (`!`) with `outside the
/// audited tree; not read`, exit 1, even where its digest is right. With
/// `--follow` a link's target is part of the tree.
#[test]
fn names_outside_the_audited_tree_are_never_read() {
    let t = Tree::new();
    t.w(b"a", b"1");
    fs::create_dir(t.top().join("out")).unwrap();
    fs::write(t.top().join("out/secret.txt"), b"secret\n").unwrap();
    std::os::unix::fs::symlink("../out", t.d().join("link")).unwrap();
    // sha256 of "1" and of "secret\n" (coreutils sha256sum).
    let one = "6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b";
    let secret = "b37e50cedcd3e3f1ff64f4afc0422084ae694253cf399326868e07a35f4a45fb";
    let abs = t.top().join("out/secret.txt");
    let mut m = format!("{one}  a\n");
    for n in [
        "../out/secret.txt",
        "sub/../../out/secret.txt",
        abs.to_str().unwrap(),
        "link/secret.txt",
    ] {
        m.push_str(&format!("{secret}  {n}\n"));
    }
    fs::write(t.top().join("m"), &m).unwrap();
    let out = t.run(&["-c", "m", "--audit", "d"]);
    assert_eq!(out.status.code(), Some(1));
    let o = String::from_utf8_lossy(&out.stdout);
    assert_eq!(o.lines().filter(|l| l.starts_with("! ")).count(), 4, "{o}");
    assert!(o.starts_with("= a\n"), "{o}");
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        e.matches(": outside the audited tree; not read\n").count(),
        4,
        "{e}"
    );
    // --follow: the link is part of the tree; the other three stay out.
    let out = t.run(&["-c", "m", "--audit", "d", "--follow"]);
    let o = String::from_utf8_lossy(&out.stdout);
    assert!(o.contains("= link/secret.txt\n"), "{o}");
    assert_eq!(o.lines().filter(|l| l.starts_with("! ")).count(), 3, "{o}");
}
