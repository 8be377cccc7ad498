//! mhash on Windows: the personality from `NAME.exe`, messages and
//! paths the way Git for Windows' GNU tools print them, binary mode by
//! default under the GNU names, check files written by Windows tools
//! (CRLF, a UTF-8 BOM, UTF-16LE), wildcards expanded by mhash itself (the
//! shell passes them on), `--install-links`, non-ASCII and long paths.
//!
//! Run under Wine by `scripts/windows-test.sh`. Every expected digest is
//! a constant computed with Linux tools (GNU coreutils' `md5sum`,
//! `sha1sum`, `sha256sum` on the same bytes), never mhash's own output.

#![cfg(windows)]

use std::fs;
use tempfile::TempDir;

use crate::util::{self, MHASH, mhash, named, named_by_path};

/// `printf '' | md5sum`
const MD5_EMPTY: &str = "d41d8cd98f00b204e9800998ecf8427e";
/// `printf abc | md5sum`
const MD5_ABC: &str = "900150983cd24fb0d6963f7d28e17f72";
/// `printf abc | sha1sum`
const SHA1_ABC: &str = "a9993e364706816aba3e25717850c26c9cd0d89d";
/// `printf abc | sha256sum`
const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
/// `printf 'hello\n' | sha256sum`
const SHA256_HELLO: &str = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
/// `printf 'one\n' | md5sum`, then `two\n`, `three\n`.
const MD5_ONE: &str = "5bbf5a52328e7439ae6e719dfe712200";
const MD5_TWO: &str = "c193497a1a06b2c72230e6146ff47080";
const MD5_THREE: &str = "febe6995bad457991331348f7b9c85fa";

/// A scratch directory holding `f` (`abc`).
fn with_abc() -> TempDir {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("f"), b"abc").unwrap();
    d
}

/// Output as text, for messages.
fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

// ---------------------------------------------------------------------------
// The personality from argv[0]
// ---------------------------------------------------------------------------

#[test]
fn copy_named_in_capitals_is_md5sum() {
    let d = tempfile::tempdir().unwrap();
    let bin = d.path().join("bin");
    fs::create_dir(&bin).unwrap();
    let exe = bin.join("MD5SUM.EXE");
    fs::copy(MHASH, &exe).unwrap();
    let o = util::command(&exe)
        .current_dir(d.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let out = text(&o.stdout);
    assert!(out.starts_with(&format!("{MD5_EMPTY} ")), "{out:?}");
    assert_eq!(out.lines().count(), 1, "{out:?}");
}

#[test]
fn copy_named_in_capitals_found_through_path_is_md5sum() {
    let d = with_abc();
    let o = named(d.path(), "MD5SUM.EXE").arg("f").output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert!(text(&o.stdout).starts_with(&format!("{MD5_ABC} ")), "{o:?}");
}

#[test]
fn hard_linked_sha1sum() {
    let d = with_abc();
    let exe = d.path().join("sha1sum.exe");
    fs::hard_link(MHASH, &exe).unwrap();
    let o = util::command(&exe)
        .current_dir(d.path())
        .arg("f")
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert!(text(&o.stdout).starts_with(&format!("{SHA1_ABC} ")), "{o:?}");
}

// ---------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------

#[test]
fn missing_file_named_by_base_name_without_exe() {
    let d = tempfile::tempdir().unwrap();
    let o = named_by_path(d.path(), "sha256sum")
        .arg("missing")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert_bytes_eq!(o.stdout, b"");
    assert_bytes_eq!(o.stderr, "sha256sum: missing: No such file or directory\n");
}

#[test]
fn directory_operand_is_reported_and_the_run_goes_on() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("a"), b"abc").unwrap();
    fs::create_dir(d.path().join("d")).unwrap();
    fs::write(d.path().join("b"), b"hello\n").unwrap();
    let o = named(d.path(), "sha256sum")
        .args(["a", "d", "b"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert_bytes_eq!(o.stderr, "sha256sum: d: Is a directory\n");
    assert_bytes_eq!(o.stdout, format!("{SHA256_ABC} *a\n{SHA256_HELLO} *b\n"));
}

// ---------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------

/// `d/x` (`abc`) and `d/e/y` (`hello\n`).
fn tree() -> TempDir {
    let d = tempfile::tempdir().unwrap();
    fs::create_dir_all(d.path().join("d").join("e")).unwrap();
    fs::write(d.path().join("d").join("x"), b"abc").unwrap();
    fs::write(d.path().join("d").join("e").join("y"), b"hello\n").unwrap();
    d
}

#[test]
fn backslash_and_slash_operands_hash_and_print_with_slashes() {
    let d = tree();
    let o = mhash(d.path())
        .args(["-a", "sha256", r"d\e\y", "d/e/y"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_bytes_eq!(
        o.stdout,
        format!("{SHA256_HELLO}  d/e/y\n{SHA256_HELLO}  d/e/y\n")
    );
}

#[test]
fn recursive_output_has_forward_slashes_and_no_escape() {
    let d = tree();
    let o = mhash(d.path()).args(["-r", "d"]).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    let out = text(&o.stdout);
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [format!("{SHA256_HELLO}  d/e/y"), format!("{SHA256_ABC}  d/x"),],
        "{out:?}"
    );
}

// ---------------------------------------------------------------------------
// Binary mode by default under the GNU names
// ---------------------------------------------------------------------------

#[test]
fn gnu_name_defaults_to_binary_mode() {
    let d = with_abc();
    let o = named(d.path(), "sha256sum").arg("f").output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_bytes_eq!(o.stdout, format!("{SHA256_ABC} *f\n"));
}

#[test]
fn gnu_name_text_mode_with_t() {
    let d = with_abc();
    let o = named(d.path(), "sha256sum").args(["-t", "f"]).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_bytes_eq!(o.stdout, format!("{SHA256_ABC}  f\n"));
}

#[test]
fn native_face_prints_two_spaces() {
    let d = with_abc();
    let o = mhash(d.path()).args(["-a", "sha256", "f"]).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_bytes_eq!(o.stdout, format!("{SHA256_ABC}  f\n"));
}

// ---------------------------------------------------------------------------
// Check files written on Windows
// ---------------------------------------------------------------------------

/// Runs `mhash -c sums` over `f` (`abc`) with `sums` holding `content`;
/// it must say `f: OK`.
fn check_ok(content: &[u8], what: &str) {
    let d = with_abc();
    fs::write(d.path().join("sums"), content).unwrap();
    let o = mhash(d.path()).args(["-c", "sums"]).output().unwrap();
    assert!(o.status.success(), "{what}: {o:?}");
    assert_bytes_eq!(o.stdout, "f: OK\n", "{what}");
}

#[test]
fn check_file_with_crlf() {
    check_ok(format!("{SHA256_ABC}  f\r\n").as_bytes(), "CRLF");
    check_ok(format!("{SHA256_ABC} *f\r\n").as_bytes(), "CRLF, binary mark");
}

#[test]
fn check_file_with_utf8_bom() {
    let mut c = b"\xEF\xBB\xBF".to_vec();
    c.extend_from_slice(format!("{SHA256_ABC}  f\n").as_bytes());
    check_ok(&c, "UTF-8 BOM");
    let mut c = b"\xEF\xBB\xBF".to_vec();
    c.extend_from_slice(format!("{SHA256_ABC} *f\r\n").as_bytes());
    check_ok(&c, "UTF-8 BOM and CRLF");
}

#[test]
fn check_file_in_utf16le() {
    // What PowerShell 5's `Out-File` and `>` write: UTF-16LE with a BOM,
    // CRLF line ends.
    let line = format!("{SHA256_ABC}  f\r\n");
    let mut c = vec![0xFF, 0xFE];
    for u in line.encode_utf16() {
        c.extend_from_slice(&u.to_le_bytes());
    }
    check_ok(&c, "UTF-16LE with BOM");
}

#[test]
fn gnu_name_checks_crlf_file() {
    let d = with_abc();
    fs::write(
        d.path().join("sums"),
        format!("{SHA256_ABC} *f\r\n{SHA256_ABC}  f\r\n"),
    )
    .unwrap();
    let o = named(d.path(), "sha256sum")
        .args(["-c", "sums"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_bytes_eq!(o.stdout, "f: OK\nf: OK\n");
}

// ---------------------------------------------------------------------------
// Wildcards: cmd.exe passes `*.txt` on as it is
// ---------------------------------------------------------------------------

/// `a.txt`, `b.txt`, `c.txt` (`one`, `two`, `three` with a newline),
/// made out of order, and `x.dat`.
fn txt_files() -> TempDir {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("c.txt"), b"three\n").unwrap();
    fs::write(d.path().join("a.txt"), b"one\n").unwrap();
    fs::write(d.path().join("x.dat"), b"abc").unwrap();
    fs::write(d.path().join("b.txt"), b"two\n").unwrap();
    d
}

#[test]
fn native_face_expands_a_wildcard_in_sorted_order() {
    let d = txt_files();
    let o = mhash(d.path()).args(["-a", "md5", "*.txt"]).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_bytes_eq!(
        o.stdout,
        format!("{MD5_ONE}  a.txt\n{MD5_TWO}  b.txt\n{MD5_THREE}  c.txt\n")
    );
}

#[test]
fn gnu_name_expands_a_wildcard_in_sorted_order() {
    let d = txt_files();
    let o = named(d.path(), "md5sum").arg("*.txt").output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_bytes_eq!(
        o.stdout,
        format!("{MD5_ONE} *a.txt\n{MD5_TWO} *b.txt\n{MD5_THREE} *c.txt\n")
    );
}

// ---------------------------------------------------------------------------
// --install-links
// ---------------------------------------------------------------------------

#[test]
fn install_links_makes_working_exe_files() {
    let d = with_abc();
    let links = d.path().join("links");
    fs::create_dir(&links).unwrap();
    let o = mhash(d.path())
        .arg("--install-links")
        .arg(&links)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let said = format!("{}{}", text(&o.stdout), text(&o.stderr));
    assert!(!said.contains(r"\\?\"), "a verbatim path printed: {said:?}");
    for name in util::GNU_NAMES {
        let exe = links.join(format!("{name}.exe"));
        assert!(exe.is_file(), "{} not made: {said:?}", exe.display());
    }
    let run = |name: &str| {
        let o = util::command(links.join(format!("{name}.exe")))
            .current_dir(d.path())
            .arg("f")
            .output()
            .unwrap();
        assert!(o.status.success(), "{name}: {o:?}");
        text(&o.stdout)
    };
    assert!(run("md5sum").starts_with(&format!("{MD5_ABC} ")));
    assert!(run("sha1sum").starts_with(&format!("{SHA1_ABC} ")));
    assert!(run("sha256sum").starts_with(&format!("{SHA256_ABC} ")));
    // `printf abc | cksum`
    assert_eq!(run("cksum"), "1219131554 3 f\n");
    // Again: the links are there already, which is no error.
    let again = mhash(d.path())
        .arg("--install-links")
        .arg(&links)
        .output()
        .unwrap();
    assert!(again.status.success(), "{again:?}");
}

// ---------------------------------------------------------------------------
// Non-ASCII and long paths
// ---------------------------------------------------------------------------

#[test]
fn non_ascii_name_prints_as_utf8() {
    let d = tempfile::tempdir().unwrap();
    let name = "café-ü-日本.txt";
    fs::write(d.path().join(name), b"abc").unwrap();
    let o = mhash(d.path()).args(["-a", "sha256", name]).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_bytes_eq!(o.stdout, format!("{SHA256_ABC}  {name}\n"));
}

#[test]
fn path_longer_than_max_path_hashes() {
    let d = tempfile::tempdir().unwrap();
    let part = "p".repeat(60);
    let rel = [part.as_str(); 5].join("/");
    let dir = d.path().join(&rel);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("f"), b"abc").unwrap();
    let operand = format!("{rel}/f");
    assert!(operand.len() > 260, "{}", operand.len());
    let o = mhash(d.path()).args(["-a", "sha256", &operand]).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_bytes_eq!(o.stdout, format!("{SHA256_ABC}  {operand}\n"));
}

#[test]
fn long_absolute_path_hashes() {
    let d = tempfile::tempdir().unwrap();
    let mut dir = d.path().to_path_buf();
    for _ in 0..5 {
        dir.push("q".repeat(60));
    }
    fs::create_dir_all(&dir).unwrap();
    let f = dir.join("f");
    fs::write(&f, b"abc").unwrap();
    assert!(f.as_os_str().len() > 260);
    let o = mhash(d.path()).args(["-a", "sha256"]).arg(&f).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert!(text(&o.stdout).starts_with(&format!("{SHA256_ABC}  ")), "{o:?}");
}
