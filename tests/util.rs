//! The harness every integration test shares (one test binary,
//! `tests/tests.rs`; the shape of ripgrep's `tests/util.rs` and fd's
//! `testenv`).
//!
//! - Builders: mhash itself ([`mhash`], [`command`]), mhash under another
//!   name through a symlink ([`named`], [`gnu_named`], [`named_by_path`]),
//!   GNU's tools as the oracle ([`gnu`]), shell lines ([`sh`], [`sh_in`],
//!   [`bash`]) and programs run with an `argv[0]` of their own ([`bare`]).
//!   Each starts from a hermetic environment: [`hermetic`] removes every
//!   `MHASH_*`, `GLIBC_TUNABLES`, `POSIXLY_CORRECT`, `LANG`, `LANGUAGE` and
//!   `LC_*` the calling shell exported and sets `LC_ALL=C`; [`empty_env`]
//!   (the differential tests' sides) starts from nothing but `LC_ALL=C`.
//!   A test that needs a variable sets it on the builder afterwards.
//! - [`gnu_available`]: the one check that GNU coreutils, the oracle, is
//!   installed; where it is not, a loud `SKIP` line ([`skip`]) says what
//!   did not run.
//! - [`noise`]: the deterministic test data.
//! - [`assert_bytes_eq!`]: byte strings compared, both sides printed
//!   escaped on a mismatch.
//!
//! On Windows the builders that name mhash otherwise ([`named`],
//! [`named_by_path`], [`mhash_link`]) make `NAME.exe`, a hard link or a
//! copy; those around GNU's tools, shells and `argv[0]` are Unix only.

// On Windows the Unix-only test modules, the main users, are left out.
#![cfg_attr(not(unix), allow(dead_code))]

use std::ffi::OsStr;
use std::fmt;
#[cfg(unix)]
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Asserts that two byte strings (anything that is `AsRef<[u8]>`:
/// `Vec<u8>`, `&[u8]`, `&str`, `String`) are equal; on a mismatch prints
/// both, escaped (`escape_ascii`), from a little before their first
/// difference. An optional message follows, as for `assert_eq!`.
macro_rules! assert_bytes_eq {
    ($left:expr, $right:expr $(,)?) => {
        assert_bytes_eq!($left, $right, "bytes differ")
    };
    ($left:expr, $right:expr, $($arg:tt)+) => {{
        // Matched, not bound with `let`, so that temporaries (a
        // `format!` on either side) live to the end of the comparison.
        match (&$left, &$right) {
            (left, right) => {
                let left: &[u8] = ::core::convert::AsRef::<[u8]>::as_ref(left);
                let right: &[u8] = ::core::convert::AsRef::<[u8]>::as_ref(right);
                if left != right {
                    panic!("{}", $crate::util::bytes_diff(left, right, format_args!($($arg)+)));
                }
            }
        }
    }};
}

/// The mhash binary under test.
pub const MHASH: &str = env!("CARGO_BIN_EXE_mhash");

/// The prefix mhash gives its diagnostics when started as [`MHASH`]:
/// `argv[0]` as invoked on Unix (GNU's `program_name`), the base name
/// without `.exe` on Windows.
pub fn prog() -> &'static str {
    if cfg!(windows) { "mhash" } else { MHASH }
}

/// Every GNU name mhash answers to: the checksum tools, then `sum`.
pub const GNU_NAMES: [&str; 9] = [
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
];

/// GNU coreutils' checksum tools, the oracle: all of them under `/usr/bin`
/// or none is used ([`gnu_available`]).
pub const GNU_TOOLS: &[&str] = GNU_NAMES.split_at(8).0;

// ---------------------------------------------------------------------------
// The environment
// ---------------------------------------------------------------------------

/// True for a variable of the calling shell that changes what mhash or a
/// GNU tool does: mhash's own settings, the glibc CPU-feature mask, GNU's
/// option order, the locale.
fn is_ambient(name: &OsStr) -> bool {
    let Some(n) = name.to_str() else {
        return false;
    };
    n.starts_with("MHASH_")
        || n.starts_with("LC_")
        || matches!(
            n,
            "GLIBC_TUNABLES" | "POSIXLY_CORRECT" | "LANG" | "LANGUAGE" | "TERM"
        )
}

/// Removes from `c`'s environment every `MHASH_*`, `GLIBC_TUNABLES`,
/// `POSIXLY_CORRECT`, `LANG`, `LANGUAGE`, `LC_*` and `TERM` (GNU 9.11's
/// `--help` marks options up under a terminal's `TERM`) variable this
/// process has, and sets `LC_ALL=C`. Everything else (`PATH`, `HOME`, `TMPDIR`) is
/// inherited. One deliberate exception: `MHASH_TEST_BACKEND=portable` (set
/// by `scripts/aarch64-test.sh`'s second run) becomes the child's
/// `MHASH_BACKEND`, so that the whole suite runs on the portable backends
/// through the command line too; a test that sets `MHASH_BACKEND` itself
/// still wins. Under an emulator ([`emulator`]) the child gets
/// `MHASH_CALIBRATE=never`.
pub fn hermetic(c: &mut Command) -> &mut Command {
    for (name, _) in std::env::vars_os() {
        if is_ambient(&name) {
            c.env_remove(name);
        }
    }
    if let Some(b) = std::env::var_os("MHASH_TEST_BACKEND") {
        c.env("MHASH_BACKEND", b);
    }
    // Under an emulator timings mean nothing (qemu ran the PMULL CRC at
    // 49 MB/s, the portable one at 200): no backend is chosen by
    // measurement there, unless a test asks for it itself.
    if emulator().is_some() {
        c.env("MHASH_CALIBRATE", "never");
    }
    c.env("LC_ALL", "C")
}

/// Clears `c`'s environment entirely, then sets `LC_ALL=C`.
pub fn empty_env(c: &mut Command) -> &mut Command {
    c.env_clear().env("LC_ALL", "C")
}

/// True when the caller of the test suite forces the portable backends
/// (`MHASH_BACKEND=portable cargo test`): the in-process tests then run on
/// those alone, and a test that reads this passes the choice on to the
/// processes it starts explicitly ([`hermetic`] removes it).
pub fn caller_forces_portable() -> bool {
    std::env::var_os("MHASH_BACKEND").is_some_and(|v| v == "portable")
}

/// The name of the user-mode emulator the tests run under
/// (`MHASH_TEST_EMULATOR`, set by `scripts/aarch64-test.sh`): there a
/// process's address space and resident memory are the emulator's (its
/// 128 MiB code buffer, its own heap) as much as mhash's, so memory
/// bounds are not checked.
pub fn emulator() -> Option<String> {
    std::env::var("MHASH_TEST_EMULATOR")
        .ok()
        .filter(|v| !v.is_empty())
}

// ---------------------------------------------------------------------------
// Builders
// ---------------------------------------------------------------------------

/// `program` with a [`hermetic`] environment.
pub fn command(program: impl AsRef<OsStr>) -> Command {
    let mut c = Command::new(program);
    hermetic(&mut c);
    c
}

/// mhash itself (`argv[0]` its full path), in `dir`.
pub fn mhash(dir: &Path) -> assert_cmd::Command {
    let mut c = command(MHASH);
    c.current_dir(dir);
    assert_cmd::Command::from_std(c)
}

/// Makes `bindir/name` a symlink to `target` (creating `bindir`) unless
/// something is there already; returns its path. On Windows, where a
/// symlink needs a privilege, it is `bindir/NAME.exe` (`.exe` added unless
/// `name` has it), a hard link to `target`, or a copy where the file
/// system has no hard links.
pub fn link_into(bindir: &Path, name: &str, target: &Path) -> PathBuf {
    let link = bindir.join(exe_name(name));
    if link.symlink_metadata().is_err() {
        std::fs::create_dir_all(bindir).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(target, &link)
            .unwrap_or_else(|e| panic!("symlink {} -> {}: {e}", link.display(), target.display()));
        #[cfg(not(unix))]
        if std::fs::hard_link(target, &link).is_err() {
            std::fs::copy(target, &link)
                .unwrap_or_else(|e| panic!("copy {} -> {}: {e}", target.display(), link.display()));
        }
    }
    link
}

/// The file name of the program `name`: `name` itself on Unix, `NAME.exe`
/// on Windows (`name` as it is where it already ends in `.exe`, in any
/// case).
pub fn exe_name(name: &str) -> String {
    if cfg!(windows) && !name.to_ascii_lowercase().ends_with(".exe") {
        format!("{name}.exe")
    } else {
        name.to_string()
    }
}

/// `bindir/name`, a symlink to mhash (on Windows `bindir/NAME.exe`, a
/// hard link or copy: [`link_into`]).
pub fn mhash_link(bindir: &Path, name: &str) -> PathBuf {
    link_into(bindir, name, Path::new(MHASH))
}

/// `bindir/name`, a symlink to GNU's `/usr/bin/name` (dangling where
/// that is not installed).
#[cfg(unix)]
pub fn gnu_link(bindir: &Path, name: &str) -> PathBuf {
    link_into(bindir, name, &gnu_path(name))
}

/// `dir` first, then this platform's usual program directories: a `PATH`
/// in which `dir`'s programs are found by their bare names.
fn path_with(dir: &Path) -> std::ffi::OsString {
    #[cfg(unix)]
    let rest: Vec<PathBuf> = vec!["/usr/bin".into(), "/bin".into()];
    #[cfg(not(unix))]
    let rest: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    std::env::join_paths(std::iter::once(dir.to_path_buf()).chain(rest)).unwrap()
}

/// mhash under `name` (a symlink in `dir/.bin`, found through `PATH` so
/// that `argv[0]` is the bare name), in `dir`. On Windows `dir/.bin/NAME.exe`
/// is a hard link or copy ([`link_into`]) and `argv[0]` is `name` as given.
pub fn named(dir: &Path, name: &str) -> assert_cmd::Command {
    let bindir = dir.join(".bin");
    mhash_link(&bindir, name);
    let mut c = command(name);
    c.current_dir(dir).env("PATH", path_with(&bindir));
    assert_cmd::Command::from_std(c)
}

/// [`named`] as GNU 9.1 behaves (`MHASH_GNU_COMPAT=9.1`).
pub fn gnu_named(dir: &Path, name: &str) -> assert_cmd::Command {
    let mut c = named(dir, name);
    c.env("MHASH_GNU_COMPAT", "9.1");
    c
}

/// mhash under `name` run through its symlink `dir/.bin/name` by path
/// (`argv[0]`, and so the program name in messages, is that path), in `dir`.
/// On Windows the program is `dir/.bin/NAME.exe` ([`link_into`]); GNU's
/// tools built for Windows name themselves by the base name there.
pub fn named_by_path(dir: &Path, name: &str) -> assert_cmd::Command {
    let link = mhash_link(&dir.join(".bin"), name);
    let mut c = command(link);
    c.current_dir(dir);
    assert_cmd::Command::from_std(c)
}

/// Where GNU's `name` is installed.
pub fn gnu_path(name: &str) -> PathBuf {
    Path::new("/usr/bin").join(name)
}

/// GNU's `name` (`/usr/bin/NAME`, `argv[0]` the bare name), hermetic.
/// Ask [`gnu_available`] first.
#[cfg(unix)]
pub fn gnu(name: &str) -> Command {
    let mut c = command(gnu_path(name));
    c.arg0(name);
    c
}

/// `program` run directly with `argv[0]` set to `argv0`, in `dir`, in an
/// [`empty_env`] (the property tests' and fault tests' sides).
#[cfg(unix)]
pub fn bare(program: impl AsRef<OsStr>, argv0: &str, dir: &Path) -> Command {
    let mut c = Command::new(program);
    empty_env(&mut c).arg0(argv0).current_dir(dir);
    c
}

/// `/bin/bash -c SCRIPT` in `dir`, in an [`empty_env`] but for `PATH`
/// (`bindir` first where given, then `/usr/bin:/bin`); stdin is /dev/null.
pub fn bash(dir: &Path, bindir: Option<&Path>, script: &str) -> Command {
    let path = match bindir {
        Some(b) => format!("{}:/usr/bin:/bin", b.display()),
        None => "/usr/bin:/bin".to_string(),
    };
    let mut c = Command::new("/bin/bash");
    empty_env(&mut c)
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .stdin(Stdio::null());
    c
}

/// The outcome of a shell line run with stderr joined to stdout (so the
/// relative order of output lines and error messages is part of it).
#[derive(PartialEq, Eq)]
pub struct Outcome {
    pub merged: Vec<u8>,
    pub code: Option<i32>,
}

impl Outcome {
    /// The output as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.merged).into_owned()
    }
}

/// Asserts that `ours` is `theirs` (GNU's, or a reference run of mhash):
/// the same output byte for byte ([`assert_bytes_eq!`]) and exit status.
#[track_caller]
pub fn assert_same(ours: &Outcome, theirs: &Outcome, what: &str) {
    assert_bytes_eq!(
        ours.merged,
        theirs.merged,
        "{what}: output (ours exit {:?}, theirs exit {:?})",
        ours.code,
        theirs.code
    );
    assert_eq!(ours.code, theirs.code, "{what}: exit status");
}

impl fmt::Debug for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "exit {:?}, output \"{}\"", self.code, escaped(&self.merged))
    }
}

/// Runs `sh -c 'CMD 2>&1'` in `dir`, [`hermetic`], with `dir/BIN` first in
/// `PATH` (by convention `.bin` holds mhash under every name, `.gnu` GNU's
/// tools, so that both run under the same program name, which their
/// messages print), then `env` set.
pub fn sh_in(dir: &Path, bin: &str, cmd: &str, env: &[(&str, &str)]) -> Outcome {
    let mut c = command("sh");
    c.arg("-c")
        .arg(format!("{cmd} 2>&1"))
        .current_dir(dir)
        .env("PATH", format!("{}:/usr/bin:/bin", dir.join(bin).display()));
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    Outcome {
        merged: o.stdout,
        code: o.status.code(),
    }
}

/// [`sh_in`] with `dir/.bin` (mhash under every name) first in `PATH`.
pub fn sh(dir: &Path, cmd: &str, env: &[(&str, &str)]) -> Outcome {
    sh_in(dir, ".bin", cmd, env)
}

// ---------------------------------------------------------------------------
// Skips and the GNU oracle
// ---------------------------------------------------------------------------

/// Prints the loud line that says a test (or part of one) did not run.
pub fn skip(test: &str, why: &str) {
    eprintln!("SKIP {test}: {why}");
}

/// True when GNU coreutils, the oracle, is installed: every one of
/// [`GNU_TOOLS`] under `/usr/bin` (never on Windows). Where it is not, prints `SKIP {what}:`
/// and the tools missing, and returns false; the caller skips the GNU
/// comparison (and whatever needs it).
pub fn gnu_available(what: &str) -> bool {
    if cfg!(not(unix)) {
        // Under Wine `/usr/bin/sha256sum` exists (drive Z: is Linux's
        // root), but a Windows process cannot start a Linux program.
        skip(
            what,
            "GNU coreutils, the oracle, is a Linux program that a Windows process cannot start: the comparison with GNU did NOT run",
        );
        return false;
    }
    let missing: Vec<String> = GNU_TOOLS
        .iter()
        .map(|t| gnu_path(t))
        .filter(|p| !p.exists())
        .map(|p| p.display().to_string())
        .collect();
    if missing.is_empty() {
        return true;
    }
    skip(
        what,
        &format!(
            "GNU coreutils 9.1, the oracle, is not installed ({} not found): the comparison with GNU did NOT run",
            missing.join(", ")
        ),
    );
    false
}

// ---------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------

/// `len` deterministic pseudo-random bytes (xorshift64*), seeded by `seed`.
pub fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Comparing bytes
// ---------------------------------------------------------------------------

/// How much of each side a mismatch prints.
const SHOWN: usize = 2000;

/// `b` as printable ASCII (`escape_ascii`), cut to [`SHOWN`] bytes.
pub fn escaped(b: &[u8]) -> String {
    escaped_from(b, 0)
}

/// Up to [`SHOWN`] bytes of `b` from about `at` (a little before it, so
/// that a difference shows with its context), escaped, saying where the
/// cut is.
fn escaped_from(b: &[u8], at: usize) -> String {
    let start = at.saturating_sub(SHOWN / 4).min(b.len());
    let end = (start + SHOWN).min(b.len());
    let mut s = String::new();
    if start > 0 {
        s.push_str(&format!("[{start} bytes]..."));
    }
    s.push_str(&b[start..end].escape_ascii().to_string());
    if end < b.len() {
        s.push_str(&format!("...[{} bytes total]", b.len()));
    }
    s
}

/// The failure text of [`assert_bytes_eq!`]: where the two sides first
/// differ and both of them, escaped, around that place.
pub fn bytes_diff(left: &[u8], right: &[u8], what: fmt::Arguments<'_>) -> String {
    let at = left
        .iter()
        .zip(right)
        .position(|(l, r)| l != r)
        .unwrap_or(left.len().min(right.len()));
    format!(
        "assertion `left == right` failed: {what}\n\
         (first difference at byte {at}; left {} bytes, right {} bytes)\n\
         \x20 left: \"{}\"\n\
         \x20right: \"{}\"",
        left.len(),
        right.len(),
        escaped_from(left, at),
        escaped_from(right, at),
    )
}

#[cfg(unix)]
/// A scratch directory for comparing mhash with GNU 9.1: `gnu/` and `mh/`
/// hold `tools` under their names (GNU's where installed, mhash's
/// symlinks), `work` (`w/`) is the working directory.
pub struct Scratch {
    _td: tempfile::TempDir,
    pub gnu: PathBuf,
    pub mh: PathBuf,
    pub work: PathBuf,
}

#[cfg(unix)]
impl Scratch {
    /// The three directories, with `tools` linked into `gnu/` and `mh/`.
    pub fn new(tools: &[&str]) -> Scratch {
        let td = tempfile::tempdir().expect("tempdir");
        let gnu = td.path().join("gnu");
        let mh = td.path().join("mh");
        let work = td.path().join("w");
        for d in [&gnu, &mh, &work] {
            std::fs::create_dir(d).unwrap();
        }
        for t in tools {
            mhash_link(&mh, t);
            if gnu_path(t).exists() {
                gnu_link(&gnu, t);
            }
        }
        Scratch {
            _td: td,
            gnu,
            mh,
            work,
        }
    }

    /// Writes `data` to `name` under the working directory (and the
    /// directories it names).
    pub fn w(&self, name: &str, data: &[u8]) -> PathBuf {
        let p = self.work.join(name);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(&p, data).unwrap();
        p
    }

    /// `bash -c CMD` in the working directory with `bindir` first on PATH
    /// (9.1 mode).
    pub fn sh(&self, bindir: &Path, cmd: &str) -> std::process::Output {
        bash(&self.work, Some(bindir), cmd)
            .env("MHASH_GNU_COMPAT", "9.1")
            .output()
            .expect("run bash")
    }
}
