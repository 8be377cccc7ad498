//! Differential tests: every case runs the same shell command line once with
//! GNU coreutils 9.1 (`/usr/bin/<tool>`) and once with mhash, and requires
//! byte-identical stdout, stderr and exit status.
//!
//! Both sides are invoked through a symlink carrying the GNU name, found via
//! PATH, so argv[0] (and thus the "tool: " prefix of diagnostics) is the same
//! string on both sides.  Both run with `LC_ALL=C` and `MHASH_GNU_COMPAT=9.1`
//! in a scratch directory populated with generated inputs.
//!
//! If GNU coreutils is not installed every test prints a loud SKIP line and
//! passes.
#![cfg(unix)]

use std::fmt::Write as _;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use tempfile::TempDir;

use crate::util::{self, escaped};

const SUMS: &[&str] = &[
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
];

const TOOLS: &[&str] = util::GNU_TOOLS;

/// cksum -a values accepted by coreutils 9.1, in its own order.
const CKSUM_ALGOS: &[&str] = &[
    "bsd", "sysv", "crc", "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "sm3",
];

/// Cases whose difference from GNU is (possibly) deliberate and needs a
/// decision.  They are run and reported, but do not fail the test.
/// Matching is on the exact command string.
const KNOWN_DIFF: &[&str] = &[
    // mhash prints its own name/version/licence instead of GNU's.
    "md5sum --version",
    "sha1sum --version",
    "sha224sum --version",
    "sha256sum --version",
    "sha384sum --version",
    "sha512sum --version",
    "b2sum --version",
    "cksum --version",
    "sha256sum --v",
    "md5sum --ver",
    "sha1sum --ver",
    "sha224sum --ver",
    "sha256sum --ver",
    "sha384sum --ver",
    "sha512sum --ver",
    "b2sum --ver",
    "cksum --ver",
];

/// Shell words naming the generated input files that have odd names.
const ODD_NAMES: &str =
    r#"'sp ace' 'back\slash' $'l\nf' $'c\rr' $'\xff' '*star' ' lead' ./- $'t\tab' 'p) = q' "#;

struct Env {
    _td: TempDir,
    gnu: PathBuf,
    mh: PathBuf,
    work: PathBuf,
}

fn w(path: &Path, data: &[u8]) {
    fs::write(path, data).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// Run a shell snippet with the *GNU* tools only, in `dir`, for fixtures.
fn gnu_sh(dir: &Path, script: &str) -> Vec<u8> {
    let out = util::bash(dir, None, script).output().expect("run bash");
    out.stdout
}

fn replace_all(hay: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hay.len());
    let mut i = 0;
    while i < hay.len() {
        if hay[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(hay[i]);
            i += 1;
        }
    }
    out
}

/// Flip the first hex digit of the first line (0<->1 style change).
fn corrupt_first_digest(data: &[u8], tagged: bool) -> Vec<u8> {
    let mut d = data.to_vec();
    let pos = if tagged {
        // "ALG (name) = digest": corrupt the last char before the first newline
        d.iter().position(|&b| b == b'\n').unwrap() - 1
    } else if d[0] == b'\\' {
        1
    } else {
        0
    };
    d[pos] = if d[pos] == b'0' { b'1' } else { b'0' };
    d
}

fn setup() -> Env {
    let td = tempfile::Builder::new()
        .prefix("mhash-gnu-compat")
        .tempdir()
        .unwrap();
    let root = td.path().to_path_buf();
    let gnu = root.join("gnu");
    let mh = root.join("mh");
    let work = root.join("w");
    for d in [&gnu, &mh, &work] {
        fs::create_dir(d).unwrap();
    }
    for t in TOOLS {
        util::gnu_link(&gnu, t);
        util::mhash_link(&mh, t);
    }

    // ---- input files ------------------------------------------------------
    let files: &[(&[u8], &[u8])] = &[
        (b"a", b"hello\n"),
        (b"b", b"world\n"),
        (b"empty", b""),
        (b"sp ace", b"x"),
        (b"back\\slash", b"y"),
        (b"l\nf", b"z"),
        (b"c\rr", b"c"),
        (b"\xff", b"f"),
        (b"*star", b"s"),
        (b" lead", b"q"),
        (b"-", b"d"),
        (b"t\tab", b"t"),
        (b"p) = q", b"p"),
        (b"nul", b"a\0b\0c"),
    ];
    for (name, data) in files {
        w(&work.join(std::ffi::OsStr::from_bytes(name)), data);
    }
    // a larger file to cross buffer boundaries (not a multiple of 4096)
    let big: Vec<u8> = (0..300_007u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    w(&work.join("big"), &big);
    fs::create_dir(work.join("dir")).unwrap();
    fs::create_dir(work.join("ckdir")).unwrap();

    // ---- checksum files, produced by GNU ------------------------------------
    let all_ok = format!("a empty big nul {ODD_NAMES}");
    for t in SUMS {
        let p = |ext: &str| work.join(format!("{t}.{ext}"));
        let ok = gnu_sh(&work, &format!("/usr/bin/{t} {all_ok}"));
        let tag = gnu_sh(&work, &format!("/usr/bin/{t} --tag {all_ok}"));
        let a_line = gnu_sh(&work, &format!("/usr/bin/{t} a"));
        let a_tag = gnu_sh(&work, &format!("/usr/bin/{t} --tag a"));
        let a_bin = gnu_sh(&work, &format!("/usr/bin/{t} -b a"));
        let b_line = gnu_sh(&work, &format!("/usr/bin/{t} b"));
        let lf_line = gnu_sh(&work, &format!("/usr/bin/{t} $'l\\nf'"));
        let zero = gnu_sh(&work, &format!("/usr/bin/{t} -z a $'l\\nf' b"));
        let digest_a = a_line.split(|&b| b == b' ').next().unwrap().to_vec();
        let tag_name = a_tag.split(|&b| b == b' ').next().unwrap().to_vec();

        w(&p("ok"), &ok);
        w(&p("tag"), &tag);
        w(&p("zero"), &zero);
        w(&p("bad"), &corrupt_first_digest(&ok, false));
        w(&p("tagbad"), &corrupt_first_digest(&tag, true));
        let mut missing = a_line.clone();
        missing.extend_from_slice(&replace_all(&a_line, b"  a\n", b"  nope\n"));
        missing.extend_from_slice(&b_line);
        w(&p("missing"), &missing);
        w(&p("allmissing"), &replace_all(&a_line, b"  a\n", b"  nope\n"));
        let mut mixbad = corrupt_first_digest(&a_line, false);
        mixbad.extend_from_slice(&replace_all(&a_line, b"  a\n", b"  nope\n"));
        mixbad.extend_from_slice(b"this is not a checksum line\n");
        mixbad.extend_from_slice(&b_line);
        w(&p("mixbad"), &mixbad);
        w(&p("crlf"), &replace_all(&ok, b"\n", b"\r\n"));
        w(&p("tagcrlf"), &replace_all(&tag, b"\n", b"\r\n"));
        let mut comments = b"# a comment line\n\n".to_vec();
        comments.extend_from_slice(&a_line);
        comments.extend_from_slice(b"#another\n   \n\t\n");
        comments.extend_from_slice(&b_line);
        comments.extend_from_slice(b"\n");
        w(&p("comments"), &comments);
        let mut improper = a_line.clone();
        improper.extend_from_slice(b"garbage\n");
        improper.extend_from_slice(&b_line);
        improper.extend_from_slice(b"0123 b\n");
        w(&p("improper"), &improper);
        w(&p("allimproper"), b"garbage\nmore garbage\n");
        w(&p("empty"), b"");
        // one space between digest and name
        let mut onesp = digest_a.clone();
        onesp.extend_from_slice(b" a\n");
        w(&p("onespace"), &onesp);
        // "digest *name" (binary) and "digest  *name"
        w(&p("binary"), &a_bin);
        // OpenSSL style "MD5(a)= digest"
        let mut openssl = tag_name.clone();
        openssl.extend_from_slice(b"(a)= ");
        openssl.extend_from_slice(&digest_a);
        openssl.push(b'\n');
        w(&p("openssl"), &openssl);
        let mut mixed = a_line.clone();
        mixed.extend_from_slice(&a_tag);
        mixed.extend_from_slice(&openssl);
        mixed.extend_from_slice(&a_bin);
        mixed.extend_from_slice(&lf_line);
        mixed.extend_from_slice(&onesp);
        w(&p("mixed"), &mixed);
        // escaped names
        w(&p("escaped"), &lf_line);
        let mut esc2 = b"\\".to_vec();
        esc2.extend_from_slice(&digest_a);
        esc2.extend_from_slice(b"  \\x\\y\n"); // unknown escape
        esc2.extend_from_slice(b"\\");
        esc2.extend_from_slice(&digest_a);
        esc2.extend_from_slice(b"  a\\\n"); // trailing backslash
        esc2.extend_from_slice(b"\\");
        esc2.extend_from_slice(&digest_a);
        esc2.extend_from_slice(b"  a\n"); // escaped marker, no escapes
        w(&p("escaped2"), &esc2);
        // NUL bytes in lines
        let mut nul = a_line.clone();
        nul.extend_from_slice(&replace_all(&b_line, b"  b\n", b"  b\0junk\n"));
        nul.extend_from_slice(b"\0\n");
        nul.extend_from_slice(&b_line);
        w(&p("nul"), &nul);
        // last line without trailing newline
        w(&p("nonl"), &a_line[..a_line.len() - 1]);
        // uppercase hex digest
        let upper: Vec<u8> = a_line
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                if i < digest_a.len() {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect();
        w(&p("upper"), &upper);
        // digest too short / too long
        let mut short = digest_a[..digest_a.len() - 2].to_vec();
        short.extend_from_slice(b"  a\n");
        w(&p("short"), &short);
        let mut long = digest_a.clone();
        long.extend_from_slice(b"00  a\n");
        w(&p("long"), &long);
        // a line naming a directory and one naming stdin '-'
        let mut d = replace_all(&a_line, b"  a\n", b"  dir\n");
        d.extend_from_slice(&a_line);
        w(&p("names_dir"), &d);
        w(&p("names_dash"), &replace_all(&a_line, b"  a\n", b"  -\n"));
    }

    // b2sum with -l
    gnu_sh(
        &work,
        "/usr/bin/b2sum -l 128 a empty > b2sum.128; \
         /usr/bin/b2sum -l 128 --tag a empty > b2sum.128tag; \
         /usr/bin/b2sum -l 8 --tag a > b2sum.8tag; \
         /usr/bin/b2sum --tag a > b2sum.512tag; \
         /usr/bin/b2sum -l 8 a > b2sum.8",
    );

    // cksum outputs for each algorithm (tagged default and untagged)
    for a in CKSUM_ALGOS {
        gnu_sh(
            &work,
            &format!(
                "/usr/bin/cksum -a {a} a empty $'l\\nf' > cksum.{a}; \
                 /usr/bin/cksum -a {a} --untagged a empty $'l\\nf' > cksum.{a}.untagged"
            ),
        );
    }
    gnu_sh(
        &work,
        "/usr/bin/cksum -a blake2b -l 128 a > cksum.b2_128; \
         cat cksum.md5 cksum.sha1 cksum.sha256 cksum.blake2b cksum.sm3 cksum.b2_128 > cksum.multi; \
         cat cksum.sha256 cksum.sha256.untagged > cksum.mix256",
    );

    // assorted hand-made checksum lines (digests computed by GNU)
    gnu_sh(
        &work,
        r##"D=$(/usr/bin/md5sum a | cut -c1-32); S=$(/usr/bin/sha256sum a | cut -c1-64)
B=$(/usr/bin/b2sum a | cut -c1-128); B8=$(/usr/bin/b2sum -l 8 a | cut -c1-2)
B16=$(/usr/bin/b2sum -l 16 a | cut -c1-4)
printf "  $D  a\n" > v.lead; printf "$D\ta\n" > v.tab; printf "$D *a\n" > v.bin1
printf "$D  *a\n" > v.bin2; printf "$D\n" > v.only; printf "$D  \n" > v.noname
printf "MD5 (a)=$D\n" > v.t1; printf "MD5(a) =$D\n" > v.t2; printf "MD5 (a) =  $D\n" > v.t3
printf "MD5 (a) = $D \n" > v.t4; printf "MD5  (a) = $D\n" > v.t5; printf "md5 (a) = $D\n" > v.t6
printf "${D:0:31}g  a\n" > v.nonhex; printf "$D  a \n" > v.trail; printf "$D  a\r\r\n" > v.crcr
printf "\\\\$D  a\\\\r\n" > v.escr; printf "$D  a\n\\\\\n\\\\x\n" > v.bsl; printf "#$D  a\n" > v.hash
printf " #x\n$D  a\n" > v.sphash
printf "SHA256 (a) = ${S:0:62}\n" > v.s62; printf "SHA256 (a) = ${S}00\n" > v.s66
printf "SHA256 (a) = \n" > v.s0; printf "SHA256 (a)\n" > v.snone
printf "garbage\nSHA256 (a) = $S\ngarbage\nMD5 (a) = $D\nMD5 (a\ngarbage\nSHA1 (a) = 12\ngarbage\n" > v.sticky
printf "abc  a\n" > b2.odd; printf "${B8}  a\n" > b2.u8; printf "${B}00  a\n" > b2.u520
for l in 13 0 520 512 16 8 08 +8 0x10 010 020 ' 8' 8x - 99999999999999999999; do
  case $l in 16|0x10|020) d=$B16;; 0|512|520|-|99999999999999999999) d=$B;; *) d=$B8;; esac
  printf "BLAKE2b-$l (a) = $d\n" > "b2.len$l"
done
printf "BLAKE2b-8 (a) = ${B8}0\n" > b2.len8long
"##,
    );

    Env {
        _td: td,
        gnu,
        mh,
        work,
    }
}

fn run_side(env: &Env, bindir: &Path, cmd: &str) -> Output {
    util::bash(&env.work, Some(bindir), cmd)
        .env("MHASH_GNU_COMPAT", "9.1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run bash for {cmd:?}: {e}"))
}

fn code(o: &Output) -> String {
    match o.status.code() {
        Some(c) => c.to_string(),
        None => format!("{:?}", o.status),
    }
}

/// GNU's standard error as GNU would write it on the machine mhash is
/// built for. `cksum --debug` names the CRC code the CPU runs, and the
/// oracle is the host's x86-64 GNU 9.1 even when mhash is an aarch64 build
/// run under emulation (`scripts/aarch64-test.sh`); GNU 9.1 has only its
/// generic CRC code there, so its pclmul line becomes the generic one.
fn oracle_stderr(gnu: Vec<u8>) -> Vec<u8> {
    if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
        return gnu;
    }
    replace_all(
        &gnu,
        b"using pclmul hardware support",
        b"using generic hardware support",
    )
}

/// Run every command through GNU and mhash; panic listing all differences.
fn run_cases(group: &str, cases: &[String]) {
    if !util::gnu_available(&format!("gnu_compat::{group}")) {
        return;
    }
    let env = setup();
    let mut failures = String::new();
    let mut nfail = 0;
    for cmd in cases {
        let mut g = run_side(&env, &env.gnu, cmd);
        g.stderr = oracle_stderr(g.stderr);
        let m = run_side(&env, &env.mh, cmd);
        let same = g.status.code() == m.status.code()
            && g.status.success() == m.status.success()
            && g.stdout == m.stdout
            && g.stderr == m.stderr;
        if same {
            if KNOWN_DIFF.contains(&cmd.as_str()) {
                eprintln!("NOTE [{group}] known diff now matches GNU: {cmd}");
            }
            continue;
        }
        let mut msg = String::new();
        let _ = writeln!(msg, "---- command: {cmd}");
        let _ = writeln!(msg, "  exit:   gnu={} mhash={}", code(&g), code(&m));
        if g.stdout != m.stdout {
            let _ = writeln!(msg, "  stdout gnu:   \"{}\"", escaped(&g.stdout));
            let _ = writeln!(msg, "  stdout mhash: \"{}\"", escaped(&m.stdout));
        } else {
            let _ = writeln!(msg, "  stdout (same): \"{}\"", escaped(&g.stdout));
        }
        if g.stderr != m.stderr {
            let _ = writeln!(msg, "  stderr gnu:   \"{}\"", escaped(&g.stderr));
            let _ = writeln!(msg, "  stderr mhash: \"{}\"", escaped(&m.stderr));
        } else {
            let _ = writeln!(msg, "  stderr (same): \"{}\"", escaped(&g.stderr));
        }
        if KNOWN_DIFF.contains(&cmd.as_str()) {
            eprintln!("KNOWN DIFF [{group}] (not failing):\n{msg}");
            continue;
        }
        nfail += 1;
        failures.push_str(&msg);
    }
    if nfail > 0 {
        panic!(
            "[{group}] {nfail} of {} cases differ from GNU coreutils 9.1:\n{failures}",
            cases.len()
        );
    }
    eprintln!("[{group}] {} cases identical to GNU", cases.len());
}

macro_rules! cases {
    ($v:ident; $($fmt:tt)*) => { $v.push(format!($($fmt)*)) };
}

// ---------------------------------------------------------------------------

#[test]
fn hash_mode() {
    let mut v: Vec<String> = Vec::new();
    for t in TOOLS {
        cases!(v; "{t} a");
        cases!(v; "{t} empty");
        cases!(v; "{t} big");
        cases!(v; "{t} nul");
        cases!(v; "{t} a empty big {ODD_NAMES}");
        cases!(v; "{t} a dir nope empty dir a");
        cases!(v; "{t} nope");
        cases!(v; "{t} dir");
        cases!(v; "{t} '' a");
        cases!(v; "{t} --tag a empty {ODD_NAMES} dir nope");
        cases!(v; "{t} -z a empty {ODD_NAMES} dir nope");
        cases!(v; "{t} --zero a");
        cases!(v; "{t} --tag -z a {ODD_NAMES}");
        cases!(v; "{t} -z --tag a {ODD_NAMES}");
        cases!(v; "{t} -b a {ODD_NAMES}");
        cases!(v; "{t} --binary a");
        cases!(v; "{t} -t a {ODD_NAMES}");
        cases!(v; "{t} --text a");
        cases!(v; "{t} -bt a");
        cases!(v; "{t} -tb a");
        cases!(v; "{t} -b -z a $'l\\nf'");
        cases!(v; "{t} --text --tag a");
        cases!(v; "{t} --tag --text a");
        cases!(v; "{t} --binary --tag a");
        cases!(v; "{t} --tag --binary a");
        cases!(v; "{t} -b --tag -t a");
        cases!(v; "{t} --tag --tag a");
        cases!(v; "{t} -- -");
        cases!(v; "{t} -- a -b");
        cases!(v; "{t} a -b");
        cases!(v; "{t} a --tag");
        cases!(v; "{t} ./a /dev/null");
        cases!(v; "{t} a > /dev/full");
        cases!(v; "{t} --tag a $'\\xff' > /dev/full");
    }
    run_cases("hash_mode", &v);
}

#[test]
fn stdin_input() {
    let mut v: Vec<String> = Vec::new();
    for t in TOOLS {
        cases!(v; "{t} < a");
        cases!(v; "{t} - < a");
        cases!(v; "{t} - - < a");
        cases!(v; "{t} a - b - < a");
        cases!(v; "{t} < empty");
        cases!(v; "{t} --tag < a");
        cases!(v; "{t} --tag - < a");
        cases!(v; "{t} -z < a");
        cases!(v; "{t} -b < a");
        cases!(v; "{t} -t - < a");
        cases!(v; "printf 'abc' | {t}");
        cases!(v; "printf 'abc' | {t} - -");
        cases!(v; "{t} < big");
        cases!(v; "cat big | {t}");
        cases!(v; "{t} < dir");
        cases!(v; "{t} - < dir");
        cases!(v; "{t} <&-");
        cases!(v; "{t} a - <&-");
        cases!(v; "{t} ./- -- - < a");
    }
    run_cases("stdin_input", &v);
}

#[test]
fn check_mode() {
    let mut v: Vec<String> = Vec::new();
    let flags = [
        "",
        "--quiet",
        "--status",
        "--warn",
        "-w",
        "--strict",
        "--ignore-missing",
        "--quiet --status",
        "--status --quiet",
        "--status --warn",
        "--warn --status",
        "--warn --quiet",
        "--quiet --warn",
        "--status --warn --quiet",
        "--strict --warn",
        "--strict --ignore-missing",
        "--ignore-missing --quiet",
        "--ignore-missing --status",
    ];
    let files = [
        "ok",
        "tag",
        "bad",
        "tagbad",
        "missing",
        "allmissing",
        "mixbad",
        "improper",
        "allimproper",
        "empty",
        "crlf",
        "comments",
    ];
    for t in SUMS {
        for f in files {
            for fl in flags {
                cases!(v; "{t} -c {fl} {t}.{f}");
            }
        }
        for f in [
            "tagcrlf",
            "onespace",
            "binary",
            "openssl",
            "mixed",
            "escaped",
            "escaped2",
            "nul",
            "nonl",
            "upper",
            "short",
            "long",
            "names_dir",
            "zero",
        ] {
            cases!(v; "{t} -c {t}.{f}");
            cases!(v; "{t} -c --warn {t}.{f}");
            cases!(v; "{t} -c --strict {t}.{f}");
        }
        cases!(v; "{t} -c {t}.names_dash < a");
        cases!(v; "{t} -c - < {t}.ok");
        cases!(v; "{t} -c < {t}.ok");
        cases!(v; "cat {t}.bad | {t} -c");
        cases!(v; "{t} -c - {t}.ok < {t}.tag");
        cases!(v; "{t} -c {t}.ok {t}.bad {t}.allimproper nope dir {t}.tag");
        cases!(v; "{t} -c dir");
        cases!(v; "{t} -c nope");
        cases!(v; "{t} -c --status nope");
        cases!(v; "{t} -c < dir");
        cases!(v; "{t} -c <&-");
        cases!(v; "{t} --check --quiet {t}.ok");
        cases!(v; "{t} -cw {t}.improper");
        cases!(v; "{t} -c -b {t}.ok");
        cases!(v; "{t} -c -t {t}.ok");
        cases!(v; "{t} -c {t}.ok > /dev/full");
        cases!(v; "{t} -c --quiet {t}.ok > /dev/full");
        cases!(v; "{t} -c --quiet {t}.bad > /dev/full");
    }
    // cross-algorithm checksum files
    cases!(v; "md5sum -c sha256sum.ok");
    cases!(v; "sha256sum -c md5sum.tag");
    cases!(v; "sha256sum -c --warn md5sum.tag");
    cases!(v; "sha256sum -c --strict sha512sum.ok");
    cases!(v; "sha384sum -c sha512sum.tag");
    run_cases("check_mode", &v);
}

#[test]
fn usage_errors() {
    let mut v: Vec<String> = Vec::new();
    for t in TOOLS {
        for args in [
            "--bogus a",
            "-Q a",
            "-X",
            "--s a",
            "--st a",
            "--t a",
            "--b a",
            "--c a",
            "--q a",
            "--w a",
            "--z a",
            "--i a",
            "--ignore a",
            "--check=x a",
            "--check= a",
            "--tag=x a",
            "--binary=x a",
            "--zero=1 a",
            "--quiet=x a",
            "--help=x",
            "-l",
            "--length",
            "--length=",
            "-l 8",
            "--quiet a",
            "--status a",
            "--warn a",
            "-w a",
            "--strict a",
            "--ignore-missing a",
            "--quiet --status --warn --strict --ignore-missing a",
            "-z -c md5sum.zero",
            "-c -z md5sum.ok",
            "--tag -c md5sum.tag",
            "-c --tag md5sum.tag",
            "--text -c md5sum.ok",
            "-t -c md5sum.ok",
            "-c --text md5sum.ok",
            "--binary -c md5sum.ok",
            "-bc md5sum.ok",
            "--text --tag a",
            "--tag --text a",
            "--tag -t a",
            "-t --tag a",
            "--tag -t -b a",
            "--untagged a",
            "-a md5 a",
            "--algorithm=md5 a",
            "--debug a",
            "--base64 a",
            "--raw a",
            "-",
            "--",
            "-- --",
            "---",
            "--=",
            "-bogus",
            "--bogus --help",
            "--help --bogus",
            "--help",
            "--help -c",
            "--h",
            "--he",
            "--version",
            "--ver",
        ] {
            cases!(v; "{t} {args}");
        }
    }
    cases!(v; "sha256sum --v");
    run_cases("usage_errors", &v);
}

#[test]
fn b2sum_length() {
    let mut v: Vec<String> = Vec::new();
    for l in [
        "0",
        "8",
        "12",
        "16",
        "128",
        "256",
        "384",
        "504",
        "512",
        "520",
        "1024",
        "abc",
        "-8",
        "8x",
        "' 8'",
        "'8 '",
        "+8",
        "0x10",
        "010",
        "00",
        "''",
        "99999999999999999999",
        "18446744073709551616",
        "4294967296",
        "4294967304",
        "1e3",
    ] {
        cases!(v; "b2sum -l {l} a");
        cases!(v; "b2sum --length={l} a");
    }
    cases!(v; "b2sum -l 8 -l 16 a");
    cases!(v; "b2sum -l 16 -l 8 a");
    cases!(v; "b2sum -l 12 -l 8 a");
    cases!(v; "b2sum -l 8 -l 12 a");
    cases!(v; "b2sum -l abc -l 8 a");
    cases!(v; "b2sum -l8 a");
    cases!(v; "b2sum --len 8 a");
    cases!(v; "b2sum --l 8 a");
    cases!(v; "b2sum -l 8 --tag a empty $'l\\nf'");
    cases!(v; "b2sum -l 8 -z a");
    cases!(v; "b2sum -l 512 --tag a");
    cases!(v; "b2sum -l 0 --tag a");
    cases!(v; "b2sum -l 128 < a");
    // check mode with lengths
    for f in ["128", "128tag", "8tag", "512tag", "8", "ok", "tag"] {
        cases!(v; "b2sum -c b2sum.{f}");
        cases!(v; "b2sum -c --strict b2sum.{f}");
        cases!(v; "b2sum -l 128 -c b2sum.{f}");
        cases!(v; "b2sum -l 8 -c b2sum.{f}");
        cases!(v; "b2sum -l 0 -c b2sum.{f}");
        cases!(v; "b2sum -l 512 -c --warn b2sum.{f}");
    }
    cases!(v; "b2sum -c -l 12 b2sum.128");
    cases!(v; "b2sum -c -l 520 b2sum.128");
    run_cases("b2sum_length", &v);
}

#[test]
fn cksum_mode() {
    let mut v: Vec<String> = Vec::new();
    let t = "cksum";
    cases!(v; "{t}");
    cases!(v; "{t} < a");
    cases!(v; "{t} a empty big dir nope {ODD_NAMES}");
    for a in CKSUM_ALGOS {
        cases!(v; "{t} -a {a} a empty big nul dir nope {ODD_NAMES}");
        cases!(v; "{t} --algorithm={a} a - < b");
        cases!(v; "{t} -a{a} a");
        cases!(v; "{t} -a {a} < a");
        cases!(v; "{t} -a {a} - - < a");
        cases!(v; "{t} -a {a} --untagged a $'l\\nf' 'back\\slash' $'\\xff'");
        cases!(v; "{t} -a {a} --tag a $'l\\nf'");
        cases!(v; "{t} -a {a} --untagged --tag a");
        cases!(v; "{t} -a {a} --tag --untagged a");
        cases!(v; "{t} -a {a} -z a $'l\\nf'");
        cases!(v; "{t} -a {a} -z --untagged a $'l\\nf'");
        cases!(v; "{t} -a {a} --debug a");
        cases!(v; "{t} --debug -a {a} < a");
        cases!(v; "{t} -a {a} -l 8 a");
        cases!(v; "{t} -a {a} -l 128 a");
        cases!(v; "{t} -l 128 -a {a} a");
        cases!(v; "{t} -a {a} -l 0 a");
        cases!(v; "{t} -a {a} -l abc a");
        cases!(v; "{t} -a {a} -c cksum.{a}");
        cases!(v; "{t} -a {a} -c cksum.{a}.untagged");
        cases!(v; "{t} -c cksum.{a}");
        cases!(v; "{t} -c cksum.{a}.untagged");
        cases!(v; "{t} -c --strict cksum.{a}.untagged");
        cases!(v; "{t} -a {a} -c --warn cksum.{a}.untagged");
        cases!(v; "{t} -a {a} -c - < cksum.{a}");
        cases!(v; "{t} -a {a} -c --ignore-missing --quiet cksum.{a}");
        cases!(v; "{t} -a {a} --quiet a");
        cases!(v; "{t} -a {a} -w a");
    }
    for bad in [
        "BLAKE2b", "md", "sha", "sm", "b", "sha2567", "''", "MD5", "blake2", "blake2s", "sha3", "crc32",
        "crc32b", "sm3 ",
    ] {
        cases!(v; "{t} -a {bad} a");
    }
    cases!(v; "{t} -a");
    cases!(v; "{t} -a md5 -a sha1 a");
    cases!(v; "{t} -a sha1 -a crc a");
    cases!(v; "{t} --algo sha1 a");
    cases!(v; "{t} --a sha1 a");
    cases!(v; "{t} --untagged a");
    cases!(v; "{t} --untagged -a md5 a");
    cases!(v; "{t} --un a");
    cases!(v; "{t} --tag a");
    cases!(v; "{t} --t a");
    cases!(v; "{t} --ta a");
    cases!(v; "{t} --te a");
    cases!(v; "{t} --text a");
    cases!(v; "{t} --binary a");
    cases!(v; "{t} -b a");
    cases!(v; "{t} -t a");
    cases!(v; "{t} -l 8 a");
    cases!(v; "{t} -l 128 -a blake2b a");
    cases!(v; "{t} -a blake2b -l 128 --untagged a");
    cases!(v; "{t} -a blake2b -l 520 a");
    cases!(v; "{t} -a blake2b -l 12 a");
    cases!(v; "{t} -a blake2b -l 512 a");
    cases!(v; "{t} -a blake2b -c cksum.b2_128");
    cases!(v; "{t} -c cksum.b2_128");
    cases!(v; "{t} -c cksum.multi");
    cases!(v; "{t} -c --quiet cksum.multi");
    cases!(v; "{t} -a sha256 -c cksum.mix256");
    cases!(v; "{t} -c cksum.mix256");
    cases!(v; "{t} -a md5 -c cksum.multi");
    cases!(v; "{t} -c md5sum.tag");
    cases!(v; "{t} -c md5sum.ok");
    cases!(v; "{t} -c md5sum.openssl");
    cases!(v; "{t} -c b2sum.128tag");
    cases!(v; "{t} -a md5 -c md5sum.ok");
    cases!(v; "{t} -a md5 -c md5sum.mixed");
    cases!(v; "{t} -c");
    cases!(v; "{t} -c cksum.crc");
    cases!(v; "{t} -a crc -c cksum.crc");
    cases!(v; "{t} -a crc -c cksum.md5");
    cases!(v; "{t} -a bsd -c cksum.bsd");
    cases!(v; "{t} -a sysv -c cksum.sysv");
    cases!(v; "{t} -c -z cksum.md5");
    cases!(v; "{t} -c --tag cksum.md5");
    cases!(v; "{t} -c --untagged cksum.md5");
    cases!(v; "{t} --debug a");
    cases!(v; "{t} --debug --debug a");
    cases!(v; "{t} --debug -c cksum.md5");
    cases!(v; "{t} --debug");
    cases!(v; "{t} --debug < a");
    cases!(v; "{t} --deb a");
    cases!(v; "{t} --d a");
    run_cases("cksum_mode", &v);
}

/// Things beyond the main table: odd environments, option parsing corners.
#[test]
fn odd_corners() {
    let mut v: Vec<String> = Vec::new();
    for t in TOOLS {
        cases!(v; "POSIXLY_CORRECT=1 {t} a --tag");
        cases!(v; "POSIXLY_CORRECT=1 {t} a -z");
        cases!(v; "{t} -bz a");
        cases!(v; "{t} -zb a");
        cases!(v; "{t} -czb md5sum.ok");
        cases!(v; "{t} --ta a");
        cases!(v; "{t} --tex a");
        cases!(v; "{t} --zer a");
        cases!(v; "{t} --stat a");
        cases!(v; "{t} --stri a");
        cases!(v; "{t} --ign a");
        cases!(v; "{t} --che md5sum.ok");
        cases!(v; "{t} --che=1 md5sum.ok");
        cases!(v; "{t} --wa a");
        cases!(v; "{t} -cw");
        cases!(v; "{t} -c -- -");
        cases!(v; "{t} --tag -- --tag");
        cases!(v; "{{ sleep 0.05; {t} --help; echo rc=$? >&2; }} | true");
        cases!(v; "{{ sleep 0.05; {t} a; echo rc=$? >&2; }} | true");
        cases!(v; "{t} a a a a");
        cases!(v; "{t} dir/ a");
        cases!(v; "{t} a/ a");
        cases!(v; "{t} nope/x a");
        cases!(v; "exec 3<a; {t} /dev/fd/3");
        cases!(v; "{t} -- '-' < b");
    }
    for t in TOOLS {
        cases!(v; "{t} /proc/self/mem a");
        cases!(v; "{t} a >&-");
        cases!(v; "{t} --help >&-");
        cases!(v; "{t} --bogus -x");
        cases!(v; "{t} -x --bogus");
        cases!(v; "{t} --bogus 2>&-");
    }
    cases!(v; "b2sum -l abc --bogus");
    cases!(v; "b2sum --bogus -l abc");
    cases!(v; "b2sum -l 13 --version");
    cases!(v; "b2sum -l 12 --help | head -c 10");
    cases!(v; "cksum -a bogus --help");
    cases!(v; "cksum --help -a bogus");
    cases!(v; "cksum -b a");
    cases!(v; "cksum -t a");
    cases!(v; "cksum -bogus");
    cases!(v; "cksum -x -b");
    cases!(v; "cksum -c -t md5sum.ok");
    cases!(v; "md5sum -c /proc/self/mem");
    // hand-made checksum lines
    for f in [
        "lead", "tab", "bin1", "bin2", "only", "noname", "t1", "t2", "t3", "t4", "t5", "t6", "nonhex",
        "trail", "crcr", "escr", "bsl", "hash", "sphash",
    ] {
        cases!(v; "md5sum -c -w v.{f}");
        cases!(v; "cksum -c -w v.{f}");
        cases!(v; "cksum -a md5 -c -w v.{f}");
    }
    for f in ["s62", "s66", "s0", "snone", "sticky"] {
        cases!(v; "sha256sum -c -w v.{f}");
        cases!(v; "cksum -c -w v.{f}");
        cases!(v; "cksum -a sha256 -c -w v.{f}");
    }
    cases!(v; "cksum -c -w v.sticky v.sticky");
    cases!(v; "cksum -c -w v.s62 v.sticky md5sum.improper");
    for f in ["odd", "u8", "u520"] {
        cases!(v; "b2sum -c -w b2.{f}");
        cases!(v; "cksum -a blake2b -c -w b2.{f}");
    }
    for l in [
        "13",
        "0",
        "520",
        "512",
        "16",
        "8",
        "08",
        "+8",
        "0x10",
        "010",
        "020",
        "' 8'",
        "8x",
        "-",
        "99999999999999999999",
        "8long",
    ] {
        cases!(v; "b2sum -c -w b2.len{l}");
        cases!(v; "b2sum -l 8 -c b2.len{l}");
        cases!(v; "cksum -c -w b2.len{l}");
    }
    run_cases("odd_corners", &v);
}

/// The same tools in a UTF-8 locale: GNU's `quote()` then uses ‘’ in usage
/// diagnostics, and `quotef` leaves printable UTF-8 names unquoted.
#[test]
fn utf8_locale() {
    let mut v: Vec<String> = Vec::new();
    let u = "LC_ALL=C.UTF-8";
    for cmd in [
        "b2sum -l 12 a",
        "b2sum -l 520 a",
        "b2sum -l abc a",
        "b2sum -l 99999999999999999999999 a",
        "cksum -a nope a",
        "cksum -a sha1 -l 8 a",
        "sha256sum --bogus",
        "printf x > é.txt; sha256sum é.txt 'missing é' $'\\xff'",
        "printf x > é.txt; md5sum é.txt | md5sum -c",
        "printf '%s  %s\\n' 00000000000000000000000000000000 'x é' | md5sum -c",
    ] {
        cases!(v; "{u} {cmd}");
        cases!(v; "export {u}; {cmd}");
    }
    run_cases("utf8_locale", &v);
}

/// Findings of an adversarial pass, each once a difference from GNU 9.1.
#[test]
fn adversarial_regressions() {
    let mut v: Vec<String> = Vec::new();
    let d = "$(b2sum a | cut -c1-128)";
    let s = "$(sha256sum a | cut -c1-64)";
    let m = "$(md5sum a | cut -c1-32)";
    // cksum -a blake2b -l N ignores -l for untagged lines.
    cases!(v; "{{ md5sum a; b2sum -l 256 a; }} > f; cksum -a blake2b -l 256 -c f");
    // 'DIGEST ' names the empty file and fixes the one-space form (b2sum, cksum).
    cases!(v; "{{ printf '%s \\n' {s}; sha256sum a; }} > f; cksum -a sha256 -c f");
    cases!(v; "{{ printf '%s \\n' {d}; b2sum a; }} > f; b2sum -c f");
    cases!(v; "{{ printf '%s \\n' {s}; sha256sum a; }} > f; sha256sum -c f");
    // GNU 9.1's cksum has no SHA-3 tags.
    cases!(v; "printf 'SHA3-256 (a) = %s\\n' {s} > f; cksum -c f");
    // SIGPIPE ignored by the parent: a write error, not a silent death.
    cases!(v; "env --ignore-signal=PIPE sha256sum $(yes a | head -20000) | head -c1");
    // -l checks in 9.1's order.
    cases!(v; "cksum -l 520 a");
    cases!(v; "cksum -a sha256 -l 520 a");
    // Tag terminators: b2sum and cksum -a overwrite any one character.
    for l in [
        "BLAKE2b  (a) = ",
        "BLAKE2b\\t(a) = ",
        "BLAKE2b\\t (a) = ",
        "BLAKE2b\\t(a)= ",
        "BLAKE2bx (a) = ",
    ] {
        cases!(v; "printf '{l}%s\\n' {d} | b2sum -c -w");
        cases!(v; "printf '{l}%s\\n' {d} | cksum -a blake2b -c -w");
    }
    cases!(v; "printf 'SHA256x (a) = %s\\nSHA2567 (a) = %s\\n' {s} {s} | cksum -a sha256 -c -w");
    cases!(v; "printf 'MD5x (a) = %s\\nMD5  (a) = %s\\n' {m} {m} | cksum -c -w");
    cases!(v; "printf 'MD5x (a) = %s\\n' {m} | cksum -a md5 -c -w");
    cases!(v; "printf 'MD5x (a) = %s\\n' {m} | md5sum -c -w");
    run_cases("adversarial_regressions", &v);
}
