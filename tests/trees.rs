//! One digest for a whole tree: `--go-h1` (Go's
//! `golang.org/x/mod/sumdb/dirhash` Hash1) and `--nar` (Nix's NAR hash).
//!
//! Oracles, never mhash's own output:
//! - a Python program ([`ORACLE`]) written from the definitions: Hash1's
//!   summary (`"%x  %s\n"` per sorted name, `h1:` + base64 SHA-256) and
//!   the NAR serialisation of the Nix manual ("Nix Archive (NAR) format"),
//!   with Nix's base-32 written from `printHash32`;
//! - `nix-hash --type sha256` (Nix's own tool; Debian's `nix-bin`) where it
//!   is installed, else a SKIP line;
//! - Go's own test case (`dirhash_test.go`, `TestHashDir`: files `xyz`
//!   and `abc` holding `data for xyz` / `data for abc`, prefix `prefix`).
#![cfg(unix)]

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use tempfile::TempDir;

use crate::util::{self, mhash, noise};

/// argv: MODE (go:PREFIX | nar:FORMAT) PATH...; prints `VALUE  PATH` lines.
const ORACLE: &str = r#"
import base64, hashlib, os, stat, sys

def go_h1(root, prefix):
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        # filepath.Walk's Lstat: symlinks to directories are files too.
        for d in list(dirnames):
            if os.path.islink(os.path.join(dirpath, d)):
                dirnames.remove(d)
                filenames.append(d)
        for f in filenames:
            rel = os.path.relpath(os.path.join(dirpath, f), root).encode("utf-8", "surrogateescape")
            name = (prefix.encode() + b"/" + rel) if prefix else rel
            files.append((name, os.path.join(dirpath, f)))
    files.sort()
    summary = b"".join(hashlib.sha256(open(p, "rb").read()).hexdigest().encode() + b"  " + n + b"\n"
                       for n, p in files)
    return "h1:" + base64.b64encode(hashlib.sha256(summary).digest()).decode()

def s(b):
    return len(b).to_bytes(8, "little") + b + bytes((8 - len(b) % 8) % 8)

def nar(path):
    st = os.lstat(path)
    out = s(b"(") + s(b"type")
    if stat.S_ISLNK(st.st_mode):
        out += s(b"symlink") + s(b"target") + s(os.fsencode(os.readlink(path)))
    elif stat.S_ISDIR(st.st_mode):
        out += s(b"directory")
        for name in sorted(os.listdir(os.fsencode(path))):
            out += s(b"entry") + s(b"(") + s(b"name") + s(name) + s(b"node")
            out += nar(os.path.join(os.fsencode(path), name)) + s(b")")
    else:
        out += s(b"regular")
        if st.st_mode & stat.S_IXUSR:
            out += s(b"executable") + s(b"")
        out += s(b"contents") + s(open(path, "rb").read())
    return out + s(b")")

def nix32(d):
    alphabet = "0123456789abcdfghijklmnpqrsvwxyz"
    n = (len(d) * 8 + 4) // 5
    bits = int.from_bytes(d, "little")
    return "".join(alphabet[(bits >> (5 * i)) & 31] for i in reversed(range(n)))

mode, arg = sys.argv[1].split(":", 1)
for p in sys.argv[2:]:
    if mode == "go":
        v = go_h1(p, arg)
    else:
        d = hashlib.sha256(s(b"nix-archive-1") + nar(p)).digest()
        v = {"sri": "sha256-" + base64.b64encode(d).decode(), "nix32": nix32(d),
             "base16": d.hex(), "base64": base64.b64encode(d).decode()}[arg]
    print(v + "  " + p)
"#;

fn oracle(dir: &Path, mode: &str, paths: &[&str]) -> Option<String> {
    match Command::new("python3")
        .current_dir(dir)
        .arg("-c")
        .arg(ORACLE)
        .arg(mode)
        .args(paths)
        .output()
    {
        Ok(o) if o.status.success() => Some(String::from_utf8(o.stdout).unwrap()),
        Ok(o) => panic!("the oracle failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => {
            util::skip("trees: the Python oracle", &format!("python3 cannot run: {e}"));
            None
        }
    }
}

fn ours(dir: &Path, args: &[&str]) -> String {
    let o = mhash(dir).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// A tree with what each format has a rule for: nested directories, an
/// empty one, an executable, a symlink (to a file), names with spaces and
/// one that is not UTF-8, an empty file, and a file over the read size.
fn tree(root: &Path) {
    fs::create_dir_all(root.join("sub/deeper")).unwrap();
    fs::create_dir_all(root.join("empty dir")).unwrap();
    fs::write(root.join("a"), b"hello\n").unwrap();
    fs::write(root.join("a b"), b"space\n").unwrap();
    fs::write(root.join("zero"), b"").unwrap();
    fs::write(root.join("sub/big"), noise(200_000, 3)).unwrap();
    fs::write(root.join("sub/deeper/x"), b"x").unwrap();
    fs::write(root.join("run.sh"), b"#!/bin/sh\n").unwrap();
    fs::set_permissions(root.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("a", root.join("link")).unwrap();
    fs::write(root.join(std::ffi::OsStr::from_bytes(b"caf\xe9")), b"latin-1\n").unwrap();
    // Sorting: '-' (0x2d) < '/' (0x2f): "sub-x" comes before "sub/..." in
    // Go's sorted names, after "sub" in a NAR directory.
    fs::write(root.join("sub-x"), b"dash\n").unwrap();
}

#[test]
fn go_h1_matches_gos_own_test_case() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::create_dir(d.join("m")).unwrap();
    fs::write(d.join("m/xyz"), b"data for xyz").unwrap();
    fs::write(d.join("m/abc"), b"data for abc").unwrap();
    let Some(want) = oracle(d, "go:prefix", &["m"]) else {
        return;
    };
    let got = ours(d, &["--go-h1", "--go-prefix", "prefix", "m"]);
    assert_bytes_eq!(got, want);
    // Without a prefix the names are relative to the directory.
    let Some(want) = oracle(d, "go:", &["m"]) else {
        return;
    };
    let got = ours(d, &["--go-h1", "m"]);
    assert_bytes_eq!(got, want);
}

#[test]
fn go_h1_and_nar_match_the_oracle_on_a_tree_with_every_kind_of_entry() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    tree(&d.join("t"));
    let Some(want) = oracle(d, "go:example.com/m@v1.2.3", &["t"]) else {
        return;
    };
    let got = ours(d, &["--go-h1", "--go-prefix", "example.com/m@v1.2.3", "t"]);
    assert_bytes_eq!(got, want);
    for fmt in ["sri", "nix32", "base16", "base64"] {
        let Some(want) = oracle(
            d,
            &format!("nar:{fmt}"),
            &["t", "t/a", "t/run.sh", "t/link", "t/empty dir"],
        ) else {
            return;
        };
        let got = ours(
            d,
            &[
                "--nar",
                "--nar-format",
                fmt,
                "t",
                "t/a",
                "t/run.sh",
                "t/link",
                "t/empty dir",
            ],
        );
        assert_bytes_eq!(got, want, "--nar-format {fmt}");
    }
}

#[test]
fn nar_matches_nix_hash_itself() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    tree(&d.join("t"));
    for path in ["t", "t/a", "t/run.sh", "t/link", "t/empty dir"] {
        let Ok(o) = Command::new("nix-hash")
            .current_dir(d)
            .args(["--type", "sha256", "--base32", path])
            .output()
        else {
            util::skip(
                "trees: nix-hash",
                "Nix is not installed (Debian: apt-get install nix-bin)",
            );
            return;
        };
        assert!(
            o.status.success(),
            "nix-hash {path}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let want = format!("{}  {path}\n", String::from_utf8(o.stdout).unwrap().trim());
        assert_eq!(ours(d, &["--nar", "--nar-format", "nix32", path]), want);
    }
}

#[test]
fn each_format_refuses_what_it_cannot_hold_naming_the_file() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::create_dir_all(d.join("nl")).unwrap();
    fs::write(d.join("nl/two\nlines"), b"x").unwrap();
    fs::write(d.join("file"), b"x").unwrap();
    fs::create_dir_all(d.join("fifo")).unwrap();
    let made = Command::new("mkfifo")
        .arg(d.join("fifo/p"))
        .status()
        .is_ok_and(|s| s.success());
    let fails = |args: &[&str], msg: &str| {
        let o = mhash(d).args(args).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(msg), "{args:?}: {err}");
    };
    fails(
        &["--go-h1", "nl"],
        "dirhash: filenames with newlines are not supported",
    );
    fails(&["--go-h1", "file"], "file: is not a directory");
    fails(&["--go-h1", "gone"], "gone: No such file or directory");
    fails(&["--nar", "gone"], "gone: No such file or directory");
    if made {
        fails(&["--nar", "fifo"], "fifo/p: has an unsupported type");
    }
    // The other operands are still hashed, in order.
    let o = mhash(d).args(["--nar", "gone", "file"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).ends_with("  file\n"));
    fails(&["--go-prefix", "x", "file"], "meaningful only with --go-h1");
    fails(
        &["--nar", "--nar-format", "base58", "file"],
        "invalid --nar-format",
    );
    fails(&["--nar", "--go-h1", "file"], "cannot be used with");
    fails(&["--nar", "-r", "file"], "cannot be used with");
    // Unreadable (not for root, who reads everything).
    if unsafe { libc::geteuid() } != 0 {
        fs::create_dir_all(d.join("locked")).unwrap();
        fs::write(d.join("locked/secret"), b"x").unwrap();
        fs::set_permissions(d.join("locked/secret"), fs::Permissions::from_mode(0o000)).unwrap();
        fails(&["--nar", "locked"], "locked/secret: Permission denied");
        fails(&["--go-h1", "locked"], "locked/secret: Permission denied");
    }
}

#[test]
fn tree_records_in_json() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    tree(&d.join("t"));
    let o = mhash(d).args(["--nar", "--json", "t"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["tree"], "nar");
    assert_eq!(v["path"], "t");
    assert!(v["digest"].as_str().unwrap().starts_with("sha256-"), "{v}");
}
