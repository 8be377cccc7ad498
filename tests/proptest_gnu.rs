//! Differential property tests against GNU coreutils 9.1: random file names
//! and contents through every personality, and random checksum files built
//! from valid, corrupted and malformed lines through check mode. stdout,
//! stderr and the exit status must be byte-identical.
//!
//! Both sides run the binary directly (no shell) with argv[0] set to the
//! GNU name, `LC_ALL=C` and `MHASH_GNU_COMPAT=9.1`. Without GNU coreutils
//! every test prints why and passes.
#![cfg(unix)]

use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Output, Stdio};

use mhash::algo::{AlgoKind, Algorithm};
use mhash::text::escape::{escape_into, needs_escape};
use proptest::prelude::*;

use crate::util::{self, MHASH};

/// `bin` run with `argv[0]` = `tool` (9.1 mode), in an empty environment.
fn run(bin: &str, tool: &str, args: &[OsString], dir: &Path) -> Output {
    util::bare(bin, tool, dir)
        .args(args)
        .env("MHASH_GNU_COMPAT", "9.1")
        .stdin(Stdio::null())
        .output()
        .expect("spawn")
}

fn status(o: &Output) -> String {
    match o.status.code() {
        Some(c) => format!("exit {c}"),
        None => format!("signal {:?}", o.status.signal()),
    }
}

/// Runs `tool args` with GNU and mhash and fails the case on a difference.
fn compare(tool: &str, args: &[OsString], dir: &Path) -> Result<(), TestCaseError> {
    let g = run(&format!("/usr/bin/{tool}"), tool, args, dir);
    let m = run(MHASH, tool, args, dir);
    if g.stdout != m.stdout || g.stderr != m.stderr || g.status != m.status {
        let listing: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| format!("{:?}", e.unwrap().file_name()))
            .collect();
        return Err(TestCaseError::fail(format!(
            "{tool} {args:?} in a directory holding {listing:?}\n\
             GNU ({}):\n{}\n{}\nmhash ({}):\n{}\n{}",
            status(&g),
            g.stdout.escape_ascii(),
            g.stderr.escape_ascii(),
            status(&m),
            m.stdout.escape_ascii(),
            m.stderr.escape_ascii(),
        )));
    }
    Ok(())
}

/// A file name: any bytes but NUL and `/`, not `.` or `..`; biased towards
/// the characters that need escaping or quoting.
fn file_name() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        prop_oneof![
            3 => proptest::sample::select(b"abc-_. *'\"\\\n\r\t$()=#~{}!?".to_vec()),
            1 => (1u8..=255).prop_filter("no slash", |b| *b != b'/'),
        ],
        1..12,
    )
    .prop_filter("not . or ..", |n| n != b"." && n != b"..")
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        // Under an emulator (scripts/aarch64-test.sh) each case's process
        // starts cost ~5x: a quarter of the draws there.
        cases: if util::emulator().is_some() {
            cases.div_ceil(4)
        } else {
            cases
        },
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(40))]

    /// Random names and contents, every personality, a few options each.
    #[test]
    fn hash_mode_equals_gnu(
        files in proptest::collection::vec(
            (file_name(), proptest::collection::vec(any::<u8>(), 0..3000)),
            1..4,
        ),
        missing in file_name(),
    ) {
        if !util::gnu_available("proptest_gnu::hash_mode_equals_gnu") {
            return Ok(());
        }
        let td = tempfile::tempdir().unwrap();
        let mut names: Vec<OsString> = Vec::new();
        for (n, data) in &files {
            let n = OsString::from_vec(n.clone());
            fs::write(td.path().join(&n), data).unwrap();
            names.push(n);
        }
        let mut with_missing = names.clone();
        if !td.path().join(OsString::from_vec(missing.clone())).exists() {
            with_missing.push(OsString::from_vec(missing));
        }
        let opts: &[(&str, &[&str])] = &[
            ("md5sum", &[]),
            ("sha1sum", &["--tag"]),
            ("sha224sum", &["-b"]),
            ("sha256sum", &[]),
            ("sha256sum", &["-z"]),
            ("sha384sum", &["--tag"]),
            ("sha512sum", &[]),
            ("b2sum", &["-l", "128"]),
            ("b2sum", &["--tag"]),
            ("cksum", &[]),
            ("cksum", &["-a", "sha256"]),
            ("cksum", &["-a", "blake2b", "-l", "256"]),
            ("cksum", &["-a", "sysv"]),
        ];
        for (tool, o) in opts {
            // `--`: a name like `-\xaa` is a file here, not an option (the
            // option diagnostics are tested in reliability.rs).
            let mut args: Vec<OsString> = o.iter().map(OsString::from).collect();
            args.push("--".into());
            args.extend(with_missing.iter().cloned());
            compare(tool, &args, td.path())?;
        }
        // Round trip through GNU's own output: GNU writes, mhash checks.
        for tool in ["sha256sum", "md5sum", "b2sum"] {
            let mut args: Vec<OsString> = vec!["--".into()];
            args.extend(names.iter().cloned());
            let g = run(&format!("/usr/bin/{tool}"), tool, &args, td.path());
            fs::write(td.path().join("SUMS.chk"), &g.stdout).unwrap();
            compare(tool, &["-c".into(), "SUMS.chk".into()], td.path())?;
            fs::remove_file(td.path().join("SUMS.chk")).unwrap();
        }
    }
}

/// One line of a random checksum file.
#[derive(Clone, Debug)]
enum Line {
    /// A correct line for file `i`, in one of several layouts.
    Valid {
        i: usize,
        layout: u8,
    },
    /// A correct line with one digest digit changed.
    Corrupted {
        i: usize,
        pos: usize,
    },
    /// A correct line with a mutation that (usually) breaks its format.
    Malformed {
        i: usize,
        how: u8,
        at: usize,
        byte: u8,
    },
    /// A line naming a file that does not exist.
    Missing {
        layout: u8,
    },
    /// Raw junk.
    Junk(Vec<u8>),
    Comment,
    Blank,
}

fn line() -> impl Strategy<Value = Line> {
    prop_oneof![
        4 => (0usize..3, 0u8..6).prop_map(|(i, layout)| Line::Valid { i, layout }),
        2 => (0usize..3, 0usize..64).prop_map(|(i, pos)| Line::Corrupted { i, pos }),
        3 => (0usize..3, 0u8..10, 0usize..80, any::<u8>())
            .prop_map(|(i, how, at, byte)| Line::Malformed { i, how, at, byte }),
        1 => (0u8..6).prop_map(|layout| Line::Missing { layout }),
        1 => proptest::collection::vec(any::<u8>(), 0..40).prop_map(Line::Junk),
        1 => Just(Line::Comment),
        1 => Just(Line::Blank),
    ]
}

/// The names the checked files get (escaping, quoting, BSD-reversed
/// look-alikes included).
const NAMES: [&[u8]; 3] = [b"plain", b"sp ace\\x", b"l\nf\r"];

fn render(a: Algorithm, l: &Line, contents: &[Vec<u8>]) -> Vec<u8> {
    let tag = a.tag().unwrap();
    let entry = |name: &[u8], digest: &str, layout: u8| -> Vec<u8> {
        let esc = needs_escape(name);
        let mut n = Vec::new();
        if esc {
            escape_into(&mut n, name);
        } else {
            n.extend_from_slice(name);
        }
        let pre: &[u8] = if esc { b"\\" } else { b"" };
        let body: Vec<u8> = match layout {
            0 => [pre, digest.as_bytes(), b"  ", &n].concat(),
            1 => [pre, digest.as_bytes(), b" *", &n].concat(),
            2 => [pre, tag.as_bytes(), b" (", &n, b") = ", digest.as_bytes()].concat(),
            3 => [pre, tag.as_bytes(), b"(", &n, b")= ", digest.as_bytes()].concat(),
            4 => [pre, digest.to_uppercase().as_bytes(), b"  ", &n].concat(),
            _ => [b"  \t".as_slice(), pre, digest.as_bytes(), b"  ", &n].concat(),
        };
        body
    };
    let mut out = match l {
        Line::Valid { i, layout } => entry(NAMES[*i], &hex::encode(a.digest(&contents[*i])), *layout),
        Line::Corrupted { i, pos } => {
            let mut d = hex::encode(a.digest(&contents[*i])).into_bytes();
            let p = pos % d.len();
            d[p] = if d[p] == b'0' { b'1' } else { b'0' };
            entry(NAMES[*i], &String::from_utf8(d).unwrap(), 0)
        }
        Line::Malformed { i, how, at, byte } => {
            let mut v = entry(NAMES[*i], &hex::encode(a.digest(&contents[*i])), *how % 3);
            let p = at % (v.len() + 1);
            match how {
                0 => v.truncate(p),
                1 => v.insert(p, *byte),
                2 if p < v.len() => {
                    v.remove(p);
                }
                3 if p < v.len() => v[p] = *byte,
                4 => v.insert(p, b'\\'),
                5 => v.insert(p, 0),
                6 => v.insert(p, b'\r'),
                7 => v.splice(p..p, b"  ".iter().copied()).for_each(drop),
                _ => v.insert(p, b'g'),
            }
            v.retain(|&b| b != b'\n');
            v
        }
        Line::Missing { layout } => entry(b"no-such-file", &hex::encode(a.digest(b"")), *layout),
        Line::Junk(j) => j.iter().copied().filter(|&b| b != b'\n').collect(),
        Line::Comment => b"# a comment".to_vec(),
        Line::Blank => Vec::new(),
    };
    out.push(b'\n');
    out
}

proptest! {
    #![proptest_config(config(150))]

    #[test]
    fn check_mode_equals_gnu(
        contents in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..200), 3),
        lines in proptest::collection::vec(line(), 1..10),
        crlf in proptest::collection::vec(any::<bool>(), 10),
        no_final_newline in any::<bool>(),
        which in 0usize..4,
    ) {
        if !util::gnu_available("proptest_gnu::check_mode_equals_gnu") {
            return Ok(());
        }
        let (tool, kind) = [
            ("sha256sum", AlgoKind::Sha256),
            ("md5sum", AlgoKind::Md5),
            ("b2sum", AlgoKind::Blake2b),
            ("sha1sum", AlgoKind::Sha1),
        ][which];
        let a = Algorithm::new(kind);
        let td = tempfile::tempdir().unwrap();
        for (n, c) in NAMES.iter().zip(&contents) {
            fs::write(td.path().join(std::ffi::OsStr::from_bytes(n)), c).unwrap();
        }
        let mut sums = Vec::new();
        for (k, l) in lines.iter().enumerate() {
            let mut r = render(a, l, &contents);
            if crlf[k % crlf.len()] {
                r.insert(r.len() - 1, b'\r');
            }
            sums.extend_from_slice(&r);
        }
        if no_final_newline {
            sums.pop();
        }
        fs::write(td.path().join("SUMS"), &sums).unwrap();
        for opts in [
            &["-c"][..],
            &["-c", "-w"],
            &["-c", "--strict", "--quiet"],
            &["-c", "--status"],
            &["-c", "--ignore-missing"],
        ] {
            let mut args: Vec<OsString> = opts.iter().map(OsString::from).collect();
            args.push("SUMS".into());
            compare(tool, &args, td.path())?;
        }
        // cksum reads the tagged lines of any algorithm.
        compare("cksum", &["-c".into(), "-w".into(), "SUMS".into()], td.path())?;
    }
}
