//! The `shasum` personality's command line: Perl `shasum` 6.02's
//! `GetOptions` under `Getopt::Long::Configure("bundling")` (Getopt::Long
//! 2.52, perl 5.36), then the script's own checks in its order.
//!
//! What Getopt::Long does there, and this reproduces:
//! - `-xyz` is a bundle of one-letter options, case-sensitive; `-a` takes
//!   the rest of its bundle as its value (`-ba256`), else the next argument
//!   whatever it is (`-a --`);
//! - `--name` and `+name` are long options, ASCII-case-insensitive and
//!   abbreviable to any unambiguous prefix; an exact name wins over longer
//!   ones (`--s` is `-s`, `--st` is ambiguous); `--name=value` only after `--`;
//! - options and operands mix (permute); `--` ends the options; `-` and
//!   the empty string are operands;
//! - with `POSIXLY_CORRECT` in the environment (read when Getopt::Long is
//!   loaded): no abbreviations, no `+` options, and the first operand
//!   ends the options;
//! - every error is a warning on standard error, parsing goes on, and the
//!   script then prints "Type shasum -h for help" and exits 1;
//! - `-a`'s value is Perl's integer `[-+]?_*[0-9][0-9_]*` (underscores
//!   dropped); a value at the head of a bundle's rest (`-a2_56`) is
//!   numified as Perl does, with Perl's "isn't numeric" warning when it
//!   holds `_`, and what follows it is a new bundle (`-a256b` is `-a256 -b`).
//!
//! The program name in every message is `shasum`, whatever `argv[0]` is
//! (the script writes it literally).

use crate::config::{Common, Config, Job, ShasumCheck, ShasumJob, ShasumRead};
use std::collections::VecDeque;
use std::ffi::OsString;

/// shasum's `-h` text: the POD's SYNOPSIS as `usage(0)` prints it.
pub const USAGE: &str = r"Usage: shasum [OPTION]... [FILE]...
Print or check SHA checksums.
With no FILE, or when FILE is -, read standard input.

  -a, --algorithm   1 (default), 224, 256, 384, 512, 512224, 512256
  -b, --binary      read in binary mode
  -c, --check       read SHA sums from the FILEs and check them
      --tag         create a BSD-style checksum
  -t, --text        read in text mode (default)
  -U, --UNIVERSAL   read in Universal Newlines mode
                        produces same digest on Windows/Unix/Mac
  -0, --01          read in BITS mode
                        ASCII '0' interpreted as 0-bit,
                        ASCII '1' interpreted as 1-bit,
                        all other characters ignored

The following five options are useful only when verifying checksums:
      --ignore-missing  don't fail or report status for missing files
  -q, --quiet           don't print OK for each successfully verified file
  -s, --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted checksum lines
  -w, --warn            warn about improperly formatted checksum lines

  -h, --help        display this help and exit
  -v, --version     output version information and exit

When verifying SHA-512/224 or SHA-512/256 checksums, indicate the
algorithm explicitly using the -a option, e.g.

  shasum -a 512224 -c checksumfile

The sums are computed as described in FIPS PUB 180-4.  When checking,
the input should be a former output of this program.  The default
mode is to print a line with checksum, a character indicating type
(`*' for binary, ` ' for text, `U' for UNIVERSAL, `^' for BITS),
and name for each FILE.  The line starts with a `\' character if the
FILE name contains either newlines or backslashes, which are then
replaced by the two-character sequences `\n' and `\\' respectively.

Report shasum bugs to mshelor@cpan.org
";

/// shasum's `-v` output.
pub const VERSION: &str = "6.02\n";

use crate::config::SHASUM_ALGORITHMS as ALGORITHMS;

/// Perl's warning when Getopt::Long numifies a bundled `-a` value holding
/// `_` (`0+$arg`, Getopt/Long.pm line 1221 in Debian's perl-base 5.36).
const NUMERIC_WARNING_AT: &str = "at /usr/lib/x86_64-linux-gnu/perl-base/Getopt/Long.pm line 1221.";

/// The options, as `GetOptions` names them: (canonical name, the other
/// name, takes an integer).
const SPECS: [(&str, Option<&str>, bool); 14] = [
    ("b", Some("binary"), false),
    ("c", Some("check"), false),
    ("t", Some("text"), false),
    ("a", Some("algorithm"), true),
    ("s", Some("status"), false),
    ("w", Some("warn"), false),
    ("q", Some("quiet"), false),
    ("h", Some("help"), false),
    ("v", Some("version"), false),
    ("0", Some("01"), false),
    ("U", Some("UNIVERSAL"), false),
    ("tag", None, false),
    ("strict", None, false),
    ("ignore-missing", None, false),
];

/// The `%opctl` keys: one-letter names as they are, longer ones lowered
/// (`ignore_case` under `bundling`), sorted; each with its canonical name.
fn option_table() -> Vec<(String, &'static str)> {
    let mut keys = Vec::new();
    for (cname, other, _) in SPECS {
        for n in std::iter::once(cname).chain(other) {
            let key = if n.len() == 1 {
                n.to_string()
            } else {
                n.to_ascii_lowercase()
            };
            keys.push((key, cname));
        }
    }
    keys.sort();
    keys
}

fn takes_int(cname: &str) -> bool {
    SPECS.iter().any(|(c, _, i)| *c == cname && *i)
}

/// What `GetOptions` stored.
#[derive(Default)]
struct Parsed {
    flags: Vec<&'static str>,
    /// `-a`'s value: `Some(None)` when given but not a number shasum knows.
    alg: Option<Option<u32>>,
    operands: Vec<OsString>,
    /// Getopt::Long's warnings, in order.
    stderr: Vec<u8>,
    errors: bool,
}

impl Parsed {
    fn has(&self, cname: &str) -> bool {
        self.flags.contains(&cname)
    }
    fn warn(&mut self, parts: &[&[u8]]) {
        for p in parts {
            self.stderr.extend_from_slice(p);
        }
        self.stderr.push(b'\n');
    }
}

/// An argument's bytes (exact on Unix; UTF-8, lossy, elsewhere).
fn os_to_bytes(s: OsString) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        s.into_vec()
    }
    #[cfg(not(unix))]
    {
        s.to_string_lossy().into_owned().into_bytes()
    }
}

/// The inverse of [`os_to_bytes`].
fn bytes_to_os(b: Vec<u8>) -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        OsString::from_vec(b)
    }
    #[cfg(not(unix))]
    {
        OsString::from(String::from_utf8_lossy(&b).into_owned())
    }
}

/// The value Perl's `0+$s` gives for `s` =~ `[-+]?_*[0-9][0-9_]*`, as an
/// algorithm number, and whether Perl warns that it is not numeric.
fn numify(s: &[u8]) -> (Option<u32>, bool) {
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let run: Vec<u8> = digits.iter().copied().take_while(u8::is_ascii_digit).collect();
    let warns = run.len() != digits.len();
    let mut v: u64 = 0;
    for d in &run {
        v = v.saturating_mul(10).saturating_add(u64::from(d - b'0'));
    }
    let alg = u32::try_from(v).ok().filter(|a| !neg && ALGORITHMS.contains(a));
    (alg, warns)
}

/// Perl's `PAT_INT` matched against a whole value (`/^PAT_INT$/`, so a
/// final newline may follow): the value with `_` removed, numified.
fn whole_int(v: &[u8]) -> Option<Option<u32>> {
    let body = v.strip_suffix(b"\n").unwrap_or(v);
    let digits = body
        .strip_prefix(b"-")
        .or(body.strip_prefix(b"+"))
        .unwrap_or(body);
    let first = digits.iter().position(|&c| c != b'_')?;
    if !digits[first].is_ascii_digit() || !digits[first..].iter().all(|c| c.is_ascii_digit() || *c == b'_') {
        return None;
    }
    let clean: Vec<u8> = body.iter().copied().filter(|&c| c != b'_').collect();
    Some(numify(&clean).0)
}

/// The head of a bundle's rest that `-a` takes (`^([-+]?_*[0-9][0-9_]*)(.*)$`):
/// its length, if it matches.
fn int_prefix(rest: &[u8]) -> Option<usize> {
    let mut i = usize::from(matches!(rest.first(), Some(b'-' | b'+')));
    while rest.get(i) == Some(&b'_') {
        i += 1;
    }
    if !rest.get(i).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    while rest.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
        i += 1;
    }
    Some(i)
}

/// Getopt::Long's loop over `args` (after `argv[0]`).
fn getoptions(args: Vec<OsString>, posixly_correct: bool) -> Parsed {
    let table = option_table();
    let lookup = |k: &[u8]| table.iter().find(|(n, _)| n.as_bytes() == k).map(|(_, c)| *c);
    let mut p = Parsed::default();
    let mut argv: VecDeque<Vec<u8>> = args.into_iter().map(os_to_bytes).collect();
    let starters: &[&[u8]] = if posixly_correct {
        &[b"--", b"-"]
    } else {
        &[b"--", b"-", b"+"]
    };
    while let Some(arg) = argv.pop_front() {
        if arg == b"--" {
            break;
        }
        let starter = starters.iter().find(|s| arg.starts_with(s)).copied();
        let Some(starter) = starter.filter(|_| arg != b"-") else {
            if posixly_correct {
                argv.push_front(arg);
                break;
            }
            p.operands.push(bytes_to_os(arg));
            continue;
        };
        let mut opt = arg[starter.len()..].to_vec();
        let mut optarg: Option<Vec<u8>> = None;
        let mut rest: Option<Vec<u8>> = None;
        if starter == b"--"
            && let Some(pos) = opt.iter().skip(1).position(|&c| c == b'=').map(|i| i + 1)
        {
            optarg = Some(opt[pos + 1..].to_vec());
            opt.truncate(pos);
        }
        let tryopt: Vec<u8>;
        if starter == b"-" {
            tryopt = opt[..1].to_vec();
            rest = Some(opt[1..].to_vec()).filter(|r| !r.is_empty());
        } else if !posixly_correct && !opt.is_empty() {
            opt = opt.to_ascii_lowercase();
            let mut hits: Vec<&str> = table
                .iter()
                .filter(|(n, _)| n.as_bytes().starts_with(&opt))
                .map(|(n, _)| n.as_str())
                .collect();
            if hits.len() > 1 && !hits.iter().any(|h| h.as_bytes() == opt) {
                let mut cnames: Vec<&str> = hits.iter().filter_map(|h| lookup(h.as_bytes())).collect();
                cnames.sort();
                cnames.dedup();
                if cnames.len() != 1 {
                    let list = hits.join(", ");
                    p.warn(&[b"Option ", &opt, b" is ambiguous (", list.as_bytes(), b")"]);
                    p.errors = true;
                    continue;
                }
                hits = cnames;
            }
            tryopt = match hits.as_slice() {
                [one] if one.as_bytes() != opt => one.as_bytes().to_vec(),
                _ => opt.clone(),
            };
        } else {
            tryopt = opt.to_ascii_lowercase();
        }
        let Some(cname) = lookup(&tryopt) else {
            if starter.len() == 1 {
                opt.truncate(1);
                if let Some(r) = rest {
                    argv.push_front([starter, &r].concat());
                }
            }
            if opt.is_empty() {
                p.warn(&[b"Missing option after ", starter]);
            } else {
                p.warn(&[b"Unknown option: ", &opt]);
            }
            p.errors = true;
            continue;
        };
        let name = tryopt;
        if !takes_int(cname) {
            if optarg.is_some() {
                p.warn(&[b"Option ", &name, b" does not take an argument"]);
                p.errors = true;
            } else {
                p.flags.push(cname);
            }
            if let Some(r) = rest {
                argv.push_front([starter, &r].concat());
            }
            continue;
        }
        let missing = match &optarg {
            Some(v) => v.is_empty(),
            None => rest.is_none() && argv.is_empty(),
        };
        if missing {
            p.warn(&[b"Option ", &name, b" requires an argument"]);
            p.errors = true;
            continue;
        }
        let value = match (rest, optarg) {
            (Some(r), _) => {
                // The rest of a bundle: its numeric head is the value, the
                // remainder a new bundle.
                let Some(n) = int_prefix(&r) else {
                    p.warn(&[
                        b"Value \"",
                        &r,
                        b"\" invalid for option ",
                        &name,
                        b" (number expected)",
                    ]);
                    p.errors = true;
                    argv.push_front([starter, &r].concat());
                    continue;
                };
                let (alg, warns) = numify(&r[..n]);
                if warns {
                    p.warn(&[
                        b"Argument \"",
                        &r[..n],
                        b"\" isn't numeric in addition (+) ",
                        NUMERIC_WARNING_AT.as_bytes(),
                    ]);
                }
                p.alg = Some(alg);
                if n < r.len() {
                    argv.push_front([starter, &r[n..]].concat());
                }
                continue;
            }
            (None, Some(v)) => v,
            (None, None) => argv.pop_front().unwrap_or_default(),
        };
        match whole_int(&value) {
            Some(alg) => p.alg = Some(alg),
            None => {
                p.warn(&[
                    b"Value \"",
                    &value,
                    b"\" invalid for option ",
                    &name,
                    b" (number expected)",
                ]);
                p.errors = true;
            }
        }
    }
    p.operands.extend(argv.into_iter().map(bytes_to_os));
    p
}

/// Parses a `shasum` command line (`args[0]` is `argv[0]`, ignored: the
/// script names itself `shasum`) into a [`Job::Shasum`]. Never fails:
/// usage errors are a [`ShasumJob::Exit`] with shasum's words and status 1.
pub fn parse(mut common: Common, args: Vec<OsString>, posixly_correct: bool) -> Config {
    common.msg_prog = "shasum".to_string();
    let p = getoptions(args.into_iter().skip(1).collect(), posixly_correct);
    Config {
        common,
        job: Job::Shasum(decide(p)),
    }
}

fn usage_error(mut stderr: Vec<u8>, msg: &str) -> ShasumJob {
    stderr.extend_from_slice(msg.as_bytes());
    stderr.extend_from_slice(b"Type shasum -h for help\n");
    ShasumJob::Exit {
        stdout: Vec::new(),
        stderr,
        status: 1,
    }
}

/// The script's checks after `GetOptions`, in its order.
fn decide(p: Parsed) -> ShasumJob {
    if p.errors {
        return usage_error(p.stderr, "");
    }
    let stderr = p.stderr.clone();
    if p.has("h") {
        return ShasumJob::Exit {
            stdout: USAGE.as_bytes().to_vec(),
            stderr,
            status: 0,
        };
    }
    let modes = ["b", "t", "0", "U"];
    if modes.iter().filter(|m| p.has(m)).count() > 1 {
        return usage_error(stderr, "shasum: Ambiguous file mode\n");
    }
    let check = p.has("c");
    for (flag, long) in [
        ("w", "warn"),
        ("s", "status"),
        ("q", "quiet"),
        ("ignore-missing", "ignore-missing"),
        ("strict", "strict"),
    ] {
        if p.has(flag) && !check {
            let msg = format!("shasum: --{long} option used only when verifying checksums\n");
            return usage_error(stderr, &msg);
        }
    }
    if p.has("tag") {
        for (flag, what) in [("t", "--text"), ("U", "Universal Newlines"), ("0", "BITS")] {
            if p.has(flag) {
                return usage_error(stderr, &format!("shasum: --tag does not support {what} mode\n"));
            }
        }
    }
    let alg = match p.alg {
        None => 1,
        Some(Some(a)) => a,
        Some(None) => return usage_error(stderr, "shasum: Unrecognized algorithm\n"),
    };
    if p.has("v") {
        return ShasumJob::Exit {
            stdout: VERSION.as_bytes().to_vec(),
            stderr,
            status: 0,
        };
    }
    let mut files = p.operands.clone();
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    if check {
        return ShasumJob::Check {
            alg,
            opts: ShasumCheck {
                warn: p.has("w"),
                status: p.has("s"),
                quiet: p.has("q"),
                strict: p.has("strict"),
                ignore_missing: p.has("ignore-missing"),
            },
            files,
        };
    }
    // `$modesym`: binary, then UNIVERSAL, then BITS, else text.
    let mode = if p.has("b") {
        ShasumRead::Binary
    } else if p.has("U") {
        ShasumRead::Universal
    } else if p.has("0") {
        ShasumRead::Bits
    } else {
        ShasumRead::Text
    };
    ShasumJob::Hash {
        alg,
        mode,
        tag: p.has("tag"),
        files,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(args: &[&str]) -> ShasumJob {
        let args = args.iter().map(OsString::from).collect();
        decide(getoptions(args, false))
    }

    fn stderr_of(args: &[&str]) -> String {
        match job(args) {
            ShasumJob::Exit { stderr, .. } => String::from_utf8_lossy(&stderr).into_owned(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bundles_and_abbreviations() {
        let ShasumJob::Hash { alg, mode, .. } = job(&["-ba256", "f"]) else {
            panic!()
        };
        assert_eq!((alg, mode), (256, ShasumRead::Binary));
        let ShasumJob::Hash { alg, mode, .. } = job(&["--algo", "224", "--univ", "f"]) else {
            panic!()
        };
        assert_eq!((alg, mode), (224, ShasumRead::Universal));
        assert_eq!(
            stderr_of(&["--st"]),
            "Option st is ambiguous (status, strict)\nType shasum -h for help\n"
        );
        assert_eq!(
            stderr_of(&["-s"]),
            "shasum: --status option used only when verifying checksums\nType shasum -h for help\n"
        );
    }

    #[test]
    fn algorithm_values() {
        assert_eq!(
            stderr_of(&["-a=256"]),
            "Value \"=256\" invalid for option a (number expected)\nUnknown option: =\n\
             Unknown option: 2\nUnknown option: 5\nUnknown option: 6\nType shasum -h for help\n"
        );
        assert!(matches!(job(&["-a", "2_56"]), ShasumJob::Hash { alg: 256, .. }));
        assert!(stderr_of(&["-a2_56"]).starts_with("Argument \"2_56\" isn't numeric"));
        assert_eq!(
            stderr_of(&["-a", "3"]),
            "shasum: Unrecognized algorithm\nType shasum -h for help\n"
        );
        assert_eq!(
            stderr_of(&["-a"]),
            "Option a requires an argument\nType shasum -h for help\n"
        );
    }
}
