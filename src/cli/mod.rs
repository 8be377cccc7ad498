//! The CLI layer: clap definitions for every personality, the GNU wording of
//! usage errors, and the validation that turns what the user typed into a
//! [`Config`]. No clap type leaves this module.
//!
//! GNU processes options in order (getopt), and some rules depend on that
//! order (`--tag` then `--text` is an error, `--text` then `--tag` is not;
//! `--quiet`/`--status`/`--warn`: the last one wins). So clap parses, then
//! [`parse`] replays the options in command-line order the way GNU's option
//! loop does, then applies GNU's post-parse checks in GNU's order.

pub mod b3sum;
pub mod getopt;
pub mod help;
pub mod personality;

use crate::algo::{AlgoKind, Algorithm};
use crate::error::Error;
use crate::io::IoMode;
use crate::output::{Encoding, Style};
use crate::text::{RAW_BYTE_BASE, lossless, message_bytes};
use clap::{Arg, ArgAction, Command};
use getopt::Opt;
use personality::Personality;
use std::ffi::OsString;

/// The GNU coreutils release whose behaviour is reproduced where releases
/// differ; set by `MHASH_GNU_COMPAT` (`9.1`, `9.4`), default the newest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum GnuCompat {
    /// GNU 9.1-9.3: check status lines escape a name only when it holds LF;
    /// option rules and messages of 9.1.
    V9_1,
    /// GNU 9.4-9.10: check status lines escape `\`, LF and CR.
    V9_4,
    /// GNU 9.11: check status lines shell-quote names that need it.
    V9_11,
}

impl GnuCompat {
    /// Reads `MHASH_GNU_COMPAT`: `9.1`/`9.2`/`9.3` → V9_1, `9.4`..`9.10` →
    /// V9_4, `9.11` (or unset, or empty) → V9_11. Any other value is
    /// reported once on stderr and treated as 9.11.
    pub fn from_env() -> GnuCompat {
        static COMPAT: std::sync::OnceLock<GnuCompat> = std::sync::OnceLock::new();
        *COMPAT.get_or_init(|| {
            let v = std::env::var("MHASH_GNU_COMPAT").unwrap_or_default();
            match v.as_str() {
                "9.1" | "9.2" | "9.3" => GnuCompat::V9_1,
                "9.4" | "9.5" | "9.6" | "9.7" | "9.8" | "9.9" | "9.10" => GnuCompat::V9_4,
                "" | "9.11" => GnuCompat::V9_11,
                other => {
                    eprintln!(
                        "mhash: warning: MHASH_GNU_COMPAT={other:?} names no GNU release mhash knows \
                         (9.1 to 9.11); using 9.11"
                    );
                    GnuCompat::V9_11
                }
            }
        })
    }

    /// The release this compat level names, for `--version`.
    pub fn release(self) -> &'static str {
        match self {
            GnuCompat::V9_1 => "9.1",
            GnuCompat::V9_4 => "9.4",
            GnuCompat::V9_11 => "9.11",
        }
    }
}

/// What the run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Print a checksum line per input.
    Hash,
    /// Read checksum files and verify the files they list (`-c`).
    Check,
}

/// How much check mode prints; `--status`, `--quiet` and `--warn` override
/// each other (last wins). Ordered: `Status < Quiet < Normal < Warn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// `--status`: nothing on stdout; the exit status tells.
    Status,
    /// `--quiet`: no `OK` lines.
    Quiet,
    /// The default.
    Normal,
    /// `-w`: also warn about each improperly formatted line.
    Warn,
}

/// Everything the run needs, validated.
#[derive(Clone, Debug)]
pub struct Config {
    /// Which tool mhash is being.
    pub personality: Personality,
    /// `argv[0]` as invoked: the prefix of every diagnostic (GNU's
    /// `program_name`).
    pub prog: String,
    /// The GNU release whose differences are reproduced.
    pub compat: GnuCompat,
    /// Hash or check.
    pub mode: Mode,
    /// The algorithm; in check mode `None` means "work it out per line"
    /// (cksum without `-a`, mhash without `-a`).
    pub algo: Option<Algorithm>,
    /// `-l` was given with a non-zero value (check mode: lines must match it).
    pub length_given: bool,
    /// Tagged or untagged output.
    pub style: Style,
    /// `-b`: the `*` marker in untagged lines.
    pub binary: bool,
    /// `-z`: NUL-terminated records, no name escaping.
    pub zero: bool,
    /// Hex, base64 or raw digests.
    pub encoding: Encoding,
    /// Check-mode verbosity.
    pub verbosity: Verbosity,
    /// `--strict`: improperly formatted lines make the run fail.
    pub strict: bool,
    /// `--ignore-missing`: missing files are skipped silently.
    pub ignore_missing: bool,
    /// `--debug`: report which implementation ran.
    pub debug: bool,
    /// The operands, as bytes; `-` is standard input. Never empty unless
    /// `--files-from` lists are given.
    pub files: Vec<OsString>,
    /// True when FILE operands were given (GNU cksum prints the name in CRC
    /// lines only then).
    pub files_given: bool,
    /// Check mode with `-a sha2` or `-a sha3` and no `-l`: the lines may use
    /// any member of the family (GNU 9.8+); empty otherwise.
    pub family: Vec<AlgoKind>,
    /// Digests without names (b3sum `--no-names`, implied by `--raw`).
    pub no_names: bool,
    /// `-a md5,sha256,...` (mhash): the algorithms after the first, each
    /// file read once for all of them; empty for one algorithm.
    pub also: Vec<Algorithm>,
    /// Worker threads (`-j N`, else `MHASH_JOBS`); 0 = one per core.
    pub jobs: usize,
    /// How files are read (`--io`, else `MHASH_IO`; default auto).
    pub io: IoMode,
    /// `-r`: directories among the inputs are walked (native face only).
    pub walk: Option<crate::walk::Walk>,
    /// `--files-from` lists, read after the operands (native face only).
    pub files_from: Vec<OsString>,
    /// `-0`: the lists' names end with NUL, not newline.
    pub null: bool,
    /// `--json`: JSON Lines on standard output (native face only).
    pub json: bool,
    /// When a progress bar may show; always `Never` under GNU names.
    pub progress: crate::progress::ProgressMode,
    /// `--install-links DIR` (with `--force`): make the GNU-named links
    /// and exit.
    pub install_links: Option<(std::path::PathBuf, bool)>,
}

/// The native face's own options (none exist under GNU names).
#[derive(Clone, Debug, Default)]
struct Native {
    walk: Option<crate::walk::Walk>,
    files_from: Vec<OsString>,
    null: bool,
    json: bool,
    progress: crate::progress::ProgressMode,
    install_links: Option<(std::path::PathBuf, bool)>,
}

impl Native {
    /// Reads and checks the native options clap parsed.
    fn from_matches(m: &clap::ArgMatches) -> Result<Native, Error> {
        let strings = |id: &str| -> Vec<String> {
            m.get_many::<String>(id)
                .map(|v| v.cloned().collect())
                .unwrap_or_default()
        };
        let recursive = m.get_flag("recursive");
        let include = strings("include");
        let exclude = strings("exclude");
        if !recursive {
            for (on, name) in [
                (m.get_flag("follow"), "follow"),
                (m.get_flag("one-file-system"), "one-file-system"),
                (!include.is_empty(), "include"),
                (!exclude.is_empty(), "exclude"),
            ] {
                if on {
                    return Err(Error::usage(format!(
                        "the --{name} option is meaningful only with --recursive"
                    )));
                }
            }
        }
        let walk = if recursive {
            Some(crate::walk::Walk {
                follow: m.get_flag("follow"),
                one_file_system: m.get_flag("one-file-system"),
                include: crate::walk::Globs::new(&include).map_err(Error::usage)?,
                exclude: crate::walk::Globs::new(&exclude).map_err(Error::usage)?,
            })
        } else {
            None
        };
        let files_from: Vec<OsString> = m
            .get_many::<OsString>("files-from")
            .map(|v| v.cloned().collect())
            .unwrap_or_default();
        let null = m.get_flag("null");
        if null && files_from.is_empty() {
            return Err(Error::usage(
                "the --null option is meaningful only with --files-from",
            ));
        }
        let progress = if m.get_flag("progress") {
            crate::progress::ProgressMode::Always
        } else if m.get_flag("no-progress") {
            crate::progress::ProgressMode::Never
        } else {
            crate::progress::ProgressMode::Auto
        };
        let force = m.get_flag("force");
        let install_links = m
            .get_one::<std::path::PathBuf>("install-links")
            .map(|d| (d.clone(), force));
        if force && install_links.is_none() {
            return Err(Error::usage(
                "the --force option is meaningful only with --install-links",
            ));
        }
        Ok(Native {
            walk,
            files_from,
            null,
            json: m.get_flag("json"),
            progress,
            install_links,
        })
    }
}

/// `mhash completions SHELL` and `mhash man`: the text to print, or `None`
/// when `args` is not one of them.
fn special_command(args: &[OsString]) -> Option<Result<String, Error>> {
    let what = args.get(1)?.to_str()?;
    match what {
        "completions" => {
            let shells = "bash, zsh, fish, powershell, elvish";
            let Some(name) = args.get(2).and_then(|s| s.to_str()) else {
                return Some(Err(Error::usage(format!("completions: name a shell ({shells})"))));
            };
            if args.len() > 3 {
                return Some(Err(Error::usage("completions: one SHELL only")));
            }
            let Ok(shell) = name.parse::<clap_complete::Shell>() else {
                return Some(Err(Error::usage(format!(
                    "completions: unknown shell {} ({shells})",
                    lq(name)
                ))));
            };
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut command(Personality::Mhash), "mhash", &mut out);
            Some(Ok(String::from_utf8_lossy(&out).into_owned()))
        }
        "man" => {
            if args.len() > 2 {
                return Some(Err(Error::usage("man: takes no operands")));
            }
            let cmd = command(Personality::Mhash).version(env!("CARGO_PKG_VERSION"));
            let mut out = Vec::new();
            if let Err(e) = clap_mangen::Man::new(cmd).render(&mut out) {
                return Some(Err(Error::fatal(format!("man: {e}"))));
            }
            Some(Ok(String::from_utf8_lossy(&out).into_owned()))
        }
        "bench" => Some(bench_command(args)),
        _ => None,
    }
}

/// The clap definition of `mhash bench`.
fn bench_cli() -> Command {
    Command::new("bench")
        .bin_name("mhash bench")
        .about("in-memory throughput of every algorithm's backend on this machine, fastest first")
        .arg(flag(
            "json",
            "json",
            None,
            "print one JSON object instead of the table",
        ))
        .arg(
            Arg::new("algorithms")
                .long("algorithms")
                .short('a')
                .value_name("LIST")
                .help("comma list of algorithms to measure (default: all)"),
        )
        .arg(
            Arg::new("bytes")
                .long("bytes")
                .value_name("LIST")
                .help("comma list of message sizes, bytes with optional K/M suffix (default 64,4K,1M)"),
        )
        .arg(
            Arg::new("seconds")
                .long("seconds")
                .value_name("S")
                .value_parser(clap::value_parser!(f64))
                .help("time budget for the whole run in seconds (default 10)"),
        )
}

/// `mhash bench [--json] [--algorithms LIST] [--bytes LIST] [--seconds S]`.
fn bench_command(args: &[OsString]) -> Result<String, Error> {
    let m = match bench_cli().try_get_matches_from(&args[1..]) {
        Ok(m) => m,
        Err(e) if matches!(e.kind(), clap::error::ErrorKind::DisplayHelp) => return Ok(e.to_string()),
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid usage");
            return Err(Error::usage(format!(
                "bench: {}",
                first.trim_start_matches("error: ")
            )));
        }
    };
    let mut opts = crate::bench::BenchOpts::default();
    if let Some(list) = m.get_one::<String>("algorithms") {
        opts.algorithms.clear();
        for name in list.split(',') {
            let k = AlgoKind::from_name(name.trim())
                .ok_or_else(|| Error::usage(format!("bench: unknown algorithm {}", lq(name))))?;
            opts.algorithms.push(Algorithm::new(k));
        }
    }
    if let Some(list) = m.get_one::<String>("bytes") {
        opts.sizes = list
            .split(',')
            .map(|s| {
                crate::bench::parse_size(s)
                    .ok_or_else(|| Error::usage(format!("bench: invalid size {} (1 B..256 MiB)", lq(s))))
            })
            .collect::<Result<_, _>>()?;
    }
    if let Some(&s) = m.get_one::<f64>("seconds") {
        if !(s > 0.0 && s <= 3600.0) {
            return Err(Error::usage("bench: --seconds must be in (0, 3600]"));
        }
        opts.seconds = s;
    }
    let rows = crate::bench::run(&opts);
    let lanes = crate::bench::run_lanes(&opts, &rows);
    Ok(if m.get_flag("json") {
        crate::bench::report_json(&opts, &rows, &lanes)
    } else {
        crate::bench::report_text(&opts, &rows, &lanes)
    })
}

/// The outcome of parsing: run, or print help/version and exit 0.
#[derive(Debug)]
pub enum Parsed {
    /// Run with this configuration.
    Run(Box<Config>),
    /// Print this text to stdout and exit 0.
    Print(String),
}

fn flag(id: &'static str, long: &'static str, short: Option<char>, help: &'static str) -> Arg {
    let a = Arg::new(id).long(long).action(ArgAction::SetTrue).help(help);
    match short {
        Some(c) => a.short(c),
        None => a,
    }
}

/// The clap command for a personality. GNU-named ones get no generated help.
pub fn command(p: Personality) -> Command {
    let mut cmd = Command::new(p.name())
        .disable_help_flag(true)
        .disable_version_flag(true)
        .infer_long_args(true)
        .args_override_self(true)
        .dont_delimit_trailing_values(true);
    if p.takes_algorithm() {
        cmd = cmd.arg(
            Arg::new("algorithm")
                .short('a')
                .long("algorithm")
                .value_name("TYPE")
                .action(ArgAction::Append)
                .allow_hyphen_values(true)
                .help("digest algorithm (default sha256): md5 sha1 sha224 sha256 sha384 sha512 sha2 sha3 sha3-256 blake2b sm3 blake3 xxh3 xxh128 crc crc32b sysv bsd; or a comma list, e.g. md5,sha256"),
        );
        cmd = cmd.arg(flag(
            "base64",
            "base64",
            None,
            "emit base64-encoded digests, not hexadecimal",
        ));
    }
    cmd = cmd
        .arg(flag(
            "binary",
            "binary",
            Some('b'),
            "read in binary mode (mark lines with '*')",
        ))
        .arg(flag(
            "check",
            "check",
            Some('c'),
            "read checksums from the FILEs and check them",
        ));
    if p.takes_length() {
        cmd = cmd.arg(
            Arg::new("length")
                .short('l')
                .long("length")
                .value_name("BITS")
                .action(ArgAction::Append)
                .allow_hyphen_values(true)
                .help(
                    "digest length in bits (blake2b: multiple of 8 up to 512; sha2/sha3: 224, 256, 384, 512)",
                ),
        );
    }
    cmd = cmd
        .arg(flag(
            "quiet",
            "quiet",
            None,
            "don't print OK for each successfully verified file",
        ))
        .arg(flag(
            "status",
            "status",
            None,
            "don't output anything, status code shows success",
        ))
        .arg(flag("text", "text", Some('t'), "read in text mode (default)"))
        .arg(flag(
            "warn",
            "warn",
            Some('w'),
            "warn about improperly formatted checksum lines",
        ))
        .arg(flag(
            "strict",
            "strict",
            None,
            "exit non-zero for improperly formatted checksum lines",
        ))
        .arg(flag(
            "ignore-missing",
            "ignore-missing",
            None,
            "don't fail or report status for missing files",
        ))
        .arg(flag("tag", "tag", None, "create a BSD-style checksum"))
        .arg(flag(
            "zero",
            "zero",
            Some('z'),
            "end each output line with NUL, not newline, and disable file name escaping",
        ));
    if p.takes_algorithm() {
        cmd = cmd
            .arg(flag(
                "untagged",
                "untagged",
                None,
                "create a reversed style checksum, without digest type",
            ))
            .arg(flag(
                "raw",
                "raw",
                None,
                "emit a raw binary digest, not hexadecimal",
            ))
            .arg(flag(
                "debug",
                "debug",
                None,
                "indicate which implementation is used",
            ));
    }
    cmd = cmd
        .arg(flag("help", "help", None, "display this help and exit"))
        .arg(flag(
            "version",
            "version",
            None,
            "output version information and exit",
        ))
        .arg(
            Arg::new("files")
                .value_name("FILE")
                .help("files to hash, or checksum files with -c; - is standard input")
                .num_args(0..)
                .action(ArgAction::Append)
                .allow_hyphen_values(false)
                .value_parser(clap::value_parser!(OsString)),
        );
    if p == Personality::Mhash {
        cmd = cmd
            .arg(
                Arg::new("jobs")
                    .short('j')
                    .long("jobs")
                    .value_name("N")
                    .value_parser(clap::value_parser!(u16))
                    .help("hash up to N files at once (default: one per core; -j1: one at a time)"),
            )
            .arg(
                Arg::new("io")
                    .long("io")
                    .value_name("HOW")
                    .value_parser(["auto", "read", "mmap"])
                    .help("read files with read(2), map them (mmap), or choose per file (auto, default)"),
            )
            .arg(flag(
                "backends",
                "backends",
                None,
                "list every algorithm with the implementation it uses here, and the CPU features, then exit",
            ))
            .arg(flag(
                "verbose",
                "verbose",
                Some('v'),
                "with --version: also list the backends and CPU features",
            ))
            .arg(
                flag(
                    "recursive",
                    "recursive",
                    Some('r'),
                    "hash every regular file under each DIR operand, in byte-wise path order",
                )
                .help_heading("Walking directories and lists"),
            )
            .arg(
                flag(
                    "follow",
                    "follow",
                    Some('L'),
                    "with -r: follow symbolic links (loops are detected and reported)",
                )
                .help_heading("Walking directories and lists"),
            )
            .arg(
                Arg::new("include")
                    .long("include")
                    .value_name("GLOB")
                    .action(ArgAction::Append)
                    .help("with -r: hash only files whose name (or relative path, if GLOB has '/') matches")
                    .help_heading("Walking directories and lists"),
            )
            .arg(
                Arg::new("exclude")
                    .long("exclude")
                    .value_name("GLOB")
                    .action(ArgAction::Append)
                    .help("with -r: skip files and directories whose name (or relative path) matches")
                    .help_heading("Walking directories and lists"),
            )
            .arg(
                flag(
                    "one-file-system",
                    "one-file-system",
                    None,
                    "with -r: stay on the file system of each DIR operand",
                )
                .help_heading("Walking directories and lists"),
            )
            .arg(
                Arg::new("files-from")
                    .long("files-from")
                    .value_name("LIST")
                    .action(ArgAction::Append)
                    .value_parser(clap::value_parser!(OsString))
                    .help("also hash the files named in LIST, one per line (- is standard input)")
                    .help_heading("Walking directories and lists"),
            )
            .arg(
                flag(
                    "null",
                    "null",
                    Some('0'),
                    "with --files-from: names end with NUL, as find -print0 writes them",
                )
                .help_heading("Walking directories and lists"),
            )
            .arg(
                flag(
                    "json",
                    "json",
                    None,
                    "print one JSON object per file (per line with -c) instead of text lines",
                )
                .help_heading("Output"),
            )
            .arg(
                flag(
                    "progress",
                    "progress",
                    None,
                    "show a progress bar on stderr even when it is not a terminal or the run is short",
                )
                .overrides_with("no-progress")
                .help_heading("Output"),
            )
            .arg(
                flag(
                    "no-progress",
                    "no-progress",
                    None,
                    "never show a progress bar (default: on a terminal, after 1 s or for a file over 256 MiB)",
                )
                .overrides_with("progress")
                .help_heading("Output"),
            )
            .arg(
                Arg::new("install-links")
                    .long("install-links")
                    .value_name("DIR")
                    .value_parser(clap::value_parser!(std::path::PathBuf))
                    .help("create md5sum, sha1sum, ..., b2sum, cksum in DIR as links to this binary, then exit")
                    .help_heading("Installing"),
            )
            .arg(
                flag(
                    "force",
                    "force",
                    None,
                    "with --install-links: replace files that are already there",
                )
                .help_heading("Installing"),
            )
            .about("Compute and check checksums with the fastest implementation for this CPU.")
            .override_usage("mhash [-a ALGO] [OPTION]... [FILE]...")
            .after_help(
                "With no FILE, or when FILE is -, read standard input. Output is GNU's untagged\n\
                 format, so `mhash -a sha256 * > SHA256SUMS` is readable by `sha256sum -c`.\n\
                 `mhash -c FILE` works out the algorithm per line: from a BSD tag, from -a,\n\
                 from the checksum file's name (SHA256SUMS, *.md5, ...) or from the digest length.\n\
                 \n\
                 `-a md5,sha256,...` reads each file once and prints a tagged line per algorithm.\n\
                 `mhash bench` measures every algorithm's throughput here (`mhash bench --help`).\n\
                 `mhash completions SHELL` prints a completion script (bash, zsh, fish,\n\
                 powershell, elvish); `mhash man` prints this manual as a roff man page.",
            );
    }
    cmd
}

/// The options clap parsed for the native face, in command-line order.
fn events(m: &clap::ArgMatches) -> Vec<Opt> {
    let mut ev: Vec<(usize, Opt)> = Vec::new();
    for id in getopt::long_options(Personality::Mhash, GnuCompat::V9_11) {
        if m.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
            continue;
        }
        match id {
            "algorithm" | "length" => {
                if let (Some(idx), Some(vals)) = (m.indices_of(id), m.get_many::<String>(id)) {
                    for (i, v) in idx.zip(vals) {
                        let o = if id == "algorithm" {
                            Opt::Algorithm(v.clone())
                        } else {
                            Opt::Length(v.clone())
                        };
                        ev.push((i, o));
                    }
                }
            }
            _ => {
                if let Some(idx) = m.indices_of(id) {
                    ev.extend(idx.map(|i| (i, Opt::Flag(id))));
                }
            }
        }
    }
    ev.sort_by_key(|(i, _)| *i);
    ev.into_iter().map(|(_, o)| o).collect()
}

/// The `-a` values a personality accepts, in GNU's `algorithm_args` order.
fn algorithm_args(p: Personality, compat: GnuCompat) -> Vec<&'static str> {
    if p == Personality::Mhash {
        return vec![
            "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha2", "sha3", "sha3-224", "sha3-256",
            "sha3-384", "sha3-512", "blake2b", "sm3", "blake3", "xxh3", "xxh128", "crc", "crc32b", "sysv",
            "bsd",
        ];
    }
    if compat == GnuCompat::V9_1 {
        vec![
            "bsd", "sysv", "crc", "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "sm3",
        ]
    } else {
        vec![
            "bsd", "sysv", "crc", "crc32b", "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha2",
            "sha3", "blake2b", "sm3",
        ]
    }
}

/// GNU's `quote()`: 'x' in the C locale, ‘x’ where the locale is UTF-8.
fn lq(s: &str) -> String {
    crate::text::quote::locale_quote_bytes(&message_bytes(s))
}

/// The first byte of `c` as getopt sees it: `c` itself when ASCII (or a
/// raw byte already), else its first UTF-8 byte as a raw-byte character.
fn first_byte_char(c: char) -> char {
    let bytes = message_bytes(&c.to_string());
    if bytes.len() == 1 && bytes[0].is_ascii() {
        c
    } else {
        char::from_u32(RAW_BYTE_BASE + u32::from(bytes[0].max(0x80))).unwrap_or(c)
    }
}

/// GNU's immediate check of an `-a` value (`XARGMATCH`): exact names only.
fn check_algorithm(p: Personality, compat: GnuCompat, v: &str) -> Result<(), Error> {
    let valid = algorithm_args(p, compat);
    if valid.contains(&v) {
        return Ok(());
    }
    // mhash: a comma list of algorithms, each computed in the same read.
    if p == Personality::Mhash && v.contains(',') {
        for part in v.split(',') {
            if let Some(AlgoChoice::Kind(k)) = choice_from_name(part)
                && k.is_legacy()
            {
                return Err(Error::Usage {
                    msg: Some(format!(
                        "{} has no tagged line form and cannot be in an algorithm list",
                        lq(part)
                    )),
                    detail: None,
                    try_help: true,
                });
            }
            if !matches!(choice_from_name(part), Some(AlgoChoice::Kind(_))) {
                return Err(Error::Usage {
                    msg: Some(format!(
                        "invalid algorithm {} in {} (a list names algorithms, not sha2/sha3 families)",
                        lq(part),
                        lq(v)
                    )),
                    detail: None,
                    try_help: true,
                });
            }
        }
        return Ok(());
    }
    let mut detail = String::from("Valid arguments are:");
    for n in valid {
        detail.push_str(&format!("\n  - {}", lq(n)));
    }
    Err(Error::Usage {
        msg: Some(format!("invalid argument {} for {}", lq(v), lq("--algorithm"))),
        detail: Some(detail),
        try_help: true,
    })
}

/// GNU's immediate check of a `-l` value: a decimal number (9.1 also
/// rejects a value that is not a multiple of 8 at once).
fn check_length_syntax(v: &str, old: bool) -> Result<(), Error> {
    match parse_length(v) {
        Ok(n) if old && !n.is_multiple_of(8) => Err(not_multiple_of_8(v)),
        Ok(_) => Ok(()),
        Err(overflow) => {
            let suffix = if overflow && old {
                ": Value too large for defined data type"
            } else {
                ""
            };
            Err(Error::fatal(format!("invalid length: {}{suffix}", lq(v))))
        }
    }
}

/// GNU's two-line diagnostic for a BLAKE2b length over 512 bits.
fn too_long(v: &str) -> Error {
    Error::fatal(format!(
        "invalid length: {}\nmaximum digest length for {} is 512 bits",
        lq(v),
        lq("BLAKE2b")
    ))
}

/// GNU's two-line diagnostic for a length that is not a multiple of 8.
fn not_multiple_of_8(v: &str) -> Error {
    Error::fatal(format!(
        "invalid length: {}\nlength is not a multiple of 8",
        lq(v)
    ))
}

/// An `-a` choice before the length is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AlgoChoice {
    Kind(AlgoKind),
    Sha2,
    Sha3,
}

fn choice_from_name(name: &str) -> Option<AlgoChoice> {
    match name {
        "sha2" => Some(AlgoChoice::Sha2),
        "sha3" => Some(AlgoChoice::Sha3),
        _ => AlgoKind::from_name(name).map(AlgoChoice::Kind),
    }
}

/// Parses a `-l` value as GNU's `xdectoumax`/`xnumtoumax` does (decimal,
/// no sign). `Err(true)` on overflow, `Err(false)` on any other defect.
fn parse_length(s: &str) -> Result<u64, bool> {
    let t = s.trim_start();
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(false);
    }
    t.parse::<u64>().map_err(|_| true)
}

/// Parses `args` (`args[0]` is `argv[0]`) for personality `p`.
///
/// # Errors
/// [`Error::Usage`] with GNU's wording for every invalid command line.
pub fn parse(p: Personality, args: Vec<OsString>) -> Result<Parsed, Error> {
    if p == Personality::B3sum {
        return b3sum::parse(args);
    }
    let compat = GnuCompat::from_env();
    let prog = args
        .first()
        .map(|a| lossless(a))
        .unwrap_or_else(|| p.name().to_string());
    let old = compat == GnuCompat::V9_1 && p.is_gnu();

    // GNU validates -a and -l, and acts on --help/--version, as it reads
    // them; so does the walk below, through this check.
    let mut print: Option<String> = None;
    let mut immediate = |o: &Opt| -> Result<bool, Error> {
        match o {
            Opt::Algorithm(v) => {
                check_algorithm(p, compat, v)?;
            }
            Opt::Length(v) => {
                check_length_syntax(v, old)?;
            }
            Opt::Flag("binary" | "text") if old && p == Personality::Cksum => {
                return Err(Error::Usage {
                    msg: None,
                    detail: None,
                    try_help: true,
                });
            }
            Opt::Flag("help") => {
                print = Some(if p == Personality::Mhash {
                    command(p).render_help().to_string()
                } else {
                    help::gnu_help(p, &prog, compat)
                });
                return Ok(true);
            }
            Opt::Flag("version") => {
                print = Some(help::gnu_version(p, compat));
                return Ok(true);
            }
            _ => {}
        }
        Ok(false)
    };
    if p == Personality::Mhash
        && let Some(text) = special_command(&args)
    {
        return text.map(Parsed::Print);
    }
    let mut jobs = env_jobs();
    let mut io = env_io();
    let mut report = false;
    let mut native = Native::default();
    if p.is_gnu() {
        native.progress = crate::progress::ProgressMode::Never;
    }
    let (opts, operands) = if p.is_gnu() {
        let s = getopt::scan(p, compat, &args, &mut immediate)?;
        (s.opts, s.operands)
    } else {
        let m = command(p).try_get_matches_from(&args).map_err(|e| {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid usage");
            Error::usage(first.trim_start_matches("error: ").to_string())
        })?;
        let opts = events(&m);
        for o in &opts {
            if immediate(o)? {
                break;
            }
        }
        if let Some(&j) = m.get_one::<u16>("jobs") {
            jobs = j as usize;
        }
        if let Some(v) = m.get_one::<String>("io") {
            io = IoMode::from_name(v).unwrap_or(IoMode::Auto);
        }
        if print.is_none() {
            native = Native::from_matches(&m)?;
        }
        let verbose_version = m.get_flag("verbose") && m.get_flag("version");
        report = m.get_flag("backends") || verbose_version;
        if m.get_flag("backends") && !m.get_flag("version") {
            print = None;
        }
        let operands = m
            .get_many::<OsString>("files")
            .map(|v| v.cloned().collect())
            .unwrap_or_default();
        (opts, operands)
    };
    if report {
        let report = crate::app::backend_report();
        let text = match print {
            Some(version) => version + &report,
            None => report.trim_start().to_string(),
        };
        return Ok(Parsed::Print(text));
    }
    if let Some(text) = print {
        return Ok(Parsed::Print(text));
    }

    // GNU's option loop, replayed in command-line order.
    let mut choice: Option<AlgoChoice> = None;
    // `-a md5,sha256`: every algorithm after the first (mhash only).
    let mut more_kinds: Vec<AlgoKind> = Vec::new();
    let mut untagged_explicit = false;
    let mut length: Option<(u64, String)> = None;
    let mut binary: i8 = -1;
    let mut prefix_tag: i8 = -1;
    let mut verbosity = Verbosity::Normal;
    let (mut check, mut strict, mut ignore_missing, mut zero) = (false, false, false, false);
    let (mut base64, mut raw, mut debug, mut tag_explicit) = (false, false, false, false);
    for o in opts {
        match o {
            Opt::Algorithm(v) => {
                more_kinds.clear();
                if p == Personality::Mhash && v.contains(',') {
                    let mut kinds = Vec::new();
                    for part in v.split(',') {
                        if let Some(AlgoChoice::Kind(k)) = choice_from_name(part)
                            && !kinds.contains(&k)
                        {
                            kinds.push(k);
                        }
                    }
                    choice = kinds.first().map(|&k| AlgoChoice::Kind(k));
                    more_kinds = kinds.split_off(1.min(kinds.len()));
                } else {
                    choice = choice_from_name(&v);
                }
            }
            Opt::Length(v) => {
                let n = parse_length(&v).unwrap_or(0);
                length = Some((n, v));
            }
            Opt::Flag(f) => match f {
                "binary" => binary = 1,
                "text" => binary = 0,
                "check" => check = true,
                "quiet" => verbosity = Verbosity::Quiet,
                "status" => verbosity = Verbosity::Status,
                "warn" => verbosity = Verbosity::Warn,
                "strict" => strict = true,
                "ignore-missing" => ignore_missing = true,
                "tag" => {
                    prefix_tag = 1;
                    binary = 1;
                    tag_explicit = true;
                }
                "untagged" => {
                    untagged_explicit = true;
                    if prefix_tag == 1 {
                        binary = -1;
                    }
                    prefix_tag = 0;
                }
                "zero" => zero = true,
                "base64" => base64 = true,
                "raw" => raw = true,
                "debug" => debug = true,
                _ => {}
            },
        }
    }

    // Post-parse checks, in GNU's order.
    let default_choice = match p.fixed_algorithm() {
        Some(a) => AlgoChoice::Kind(a.kind),
        None if p == Personality::Cksum => AlgoChoice::Kind(AlgoKind::Crc),
        None => AlgoChoice::Kind(AlgoKind::Sha256),
    };
    let algo_given = choice.is_some();
    let choice = choice.unwrap_or(default_choice);
    let len_bits = length.as_ref().map(|(n, _)| *n).unwrap_or(0);
    let len_str = length.as_ref().map(|(_, s)| s.clone()).unwrap_or_default();
    let algo: Algorithm = if old {
        // GNU 9.1: "--length is only supported" comes before the range check.
        if len_bits != 0 && choice != AlgoChoice::Kind(AlgoKind::Blake2b) {
            return Err(Error::fatal(
                "--length is only supported with --algorithm=blake2b",
            ));
        }
        if len_bits > 512 {
            return Err(too_long(&len_str));
        }
        match choice {
            AlgoChoice::Kind(AlgoKind::Blake2b) => {
                Algorithm::blake2b(if len_bits == 0 { 512 } else { len_bits as u32 })
            }
            AlgoChoice::Kind(k) => Algorithm::new(k),
            // 9.1 has no sha2/sha3 choice (check_algorithm rejects them).
            _ => Algorithm::new(AlgoKind::Sha256),
        }
    } else {
        match choice {
            AlgoChoice::Sha2 | AlgoChoice::Sha3 => {
                let name = if choice == AlgoChoice::Sha2 {
                    "sha2"
                } else {
                    "sha3"
                };
                let tag = if choice == AlgoChoice::Sha2 {
                    "SHA2"
                } else {
                    "SHA3"
                };
                if length.is_none() && !check {
                    return Err(Error::fatal(format!(
                        "--algorithm={name} requires specifying --length 224, 256, 384, or 512"
                    )));
                }
                let bits = if length.is_none() { 512 } else { len_bits };
                if !matches!(bits, 224 | 256 | 384 | 512) {
                    return Err(Error::fatal(format!(
                        "invalid length: {}\ndigest length for {} must be 224, 256, 384, or 512",
                        lq(&len_str),
                        lq(tag)
                    )));
                }
                let kind = match (choice, bits) {
                    (AlgoChoice::Sha2, 224) => AlgoKind::Sha224,
                    (AlgoChoice::Sha2, 256) => AlgoKind::Sha256,
                    (AlgoChoice::Sha2, 384) => AlgoKind::Sha384,
                    (AlgoChoice::Sha2, _) => AlgoKind::Sha512,
                    (_, 224) => AlgoKind::Sha3_224,
                    (_, 256) => AlgoKind::Sha3_256,
                    (_, 384) => AlgoKind::Sha3_384,
                    _ => AlgoKind::Sha3_512,
                };
                Algorithm::new(kind)
            }
            AlgoChoice::Kind(k) if !more_kinds.is_empty() => {
                if len_bits != 0 {
                    return Err(Error::fatal("--length is not supported with several algorithms"));
                }
                Algorithm::new(k)
            }
            AlgoChoice::Kind(AlgoKind::Blake3) => {
                // BLAKE3's XOF: any whole number of bytes (mhash -l is in
                // bits, as for BLAKE2b).
                if !len_bits.is_multiple_of(8) {
                    return Err(not_multiple_of_8(&len_str));
                }
                if len_bits / 8 > crate::algo::BLAKE3_MAX_BYTES {
                    return Err(Error::fatal(format!(
                        "invalid length: {}\nmaximum digest length for {} is {} bits",
                        lq(&len_str),
                        lq("BLAKE3"),
                        crate::algo::BLAKE3_MAX_BYTES * 8
                    )));
                }
                Algorithm::blake3(if len_bits == 0 { 32 } else { len_bits / 8 })
            }
            AlgoChoice::Kind(k) => {
                let natural = p == Personality::Mhash && len_bits == u64::from(k.max_bits());
                if len_bits != 0 && k != AlgoKind::Blake2b && p.takes_algorithm() && !natural {
                    return Err(Error::fatal(
                        "--length is only supported with --algorithm blake2b, sha2, or sha3",
                    ));
                }
                if len_bits > 512 {
                    return Err(too_long(&len_str));
                }
                if !len_bits.is_multiple_of(8) {
                    return Err(not_multiple_of_8(&len_str));
                }
                if k == AlgoKind::Blake2b {
                    Algorithm::blake2b(if len_bits == 0 { 512 } else { len_bits as u32 })
                } else {
                    Algorithm::new(k)
                }
            }
        }
    };
    if check && algo.kind.is_legacy() && (algo_given || p != Personality::Cksum) {
        return Err(Error::fatal(if old {
            "--check is not supported with --algorithm={bsd,sysv,crc}"
        } else {
            "--check is not supported with --algorithm={bsd,sysv,crc,crc32b}"
        }));
    }
    if base64 && raw {
        return Err(Error::usage("--base64 and --raw are mutually exclusive"));
    }
    if prefix_tag == -1 {
        prefix_tag = i8::from(p == Personality::Cksum);
    }
    if prefix_tag == 1 && binary == 0 {
        return Err(Error::usage(if p == Personality::Cksum {
            "--text mode is only supported with --untagged"
        } else {
            "--tag does not support --text mode"
        }));
    }
    if zero && check {
        return Err(Error::usage(
            "the --zero option is not supported when verifying checksums",
        ));
    }
    if check && prefix_tag == 1 && p != Personality::Cksum && tag_explicit {
        return Err(Error::usage(
            "the --tag option is meaningless when verifying checksums",
        ));
    }
    if check && binary >= 0 && !(old && p == Personality::Cksum) {
        return Err(Error::usage(
            "the --binary and --text options are meaningless when verifying checksums",
        ));
    }
    if !check {
        for (on, name) in [
            (ignore_missing, "ignore-missing"),
            (verbosity == Verbosity::Status, "status"),
            (verbosity == Verbosity::Warn, "warn"),
            (verbosity == Verbosity::Quiet, "quiet"),
            (strict, "strict"),
        ] {
            if on {
                return Err(Error::usage(format!(
                    "the --{name} option is meaningful only when verifying checksums"
                )));
            }
        }
    }
    if check && native.walk.is_some() {
        return Err(Error::usage(
            "the --recursive option is meaningful only when hashing",
        ));
    }
    if native.json && raw {
        return Err(Error::usage("--json and --raw are mutually exclusive"));
    }
    if native.install_links.is_some() && !operands.is_empty() {
        return Err(Error::usage("--install-links takes no FILE operands"));
    }
    let mut files: Vec<OsString> = operands;
    let files_given = !files.is_empty() || !native.files_from.is_empty();
    if raw && (files.len() > 1 || native.walk.is_some() || !native.files_from.is_empty()) {
        return Err(Error::fatal(
            "the --raw option is not supported with multiple files",
        ));
    }
    if files.is_empty() && native.files_from.is_empty() {
        files.push(OsString::from("-"));
    }
    let family = match choice {
        AlgoChoice::Sha2 if check && length.is_none() => {
            vec![
                AlgoKind::Sha224,
                AlgoKind::Sha256,
                AlgoKind::Sha384,
                AlgoKind::Sha512,
            ]
        }
        AlgoChoice::Sha3 if check && length.is_none() => {
            vec![
                AlgoKind::Sha3_224,
                AlgoKind::Sha3_256,
                AlgoKind::Sha3_384,
                AlgoKind::Sha3_512,
            ]
        }
        _ if check && !more_kinds.is_empty() => {
            let mut v = vec![algo.kind];
            v.extend(&more_kinds);
            v
        }
        _ => Vec::new(),
    };
    if !more_kinds.is_empty() && !check {
        if prefix_tag == 0 && untagged_explicit {
            return Err(Error::usage(
                "--untagged is not supported with several algorithms (each line names its algorithm)",
            ));
        }
        if raw {
            return Err(Error::usage("--raw is not supported with several algorithms"));
        }
        prefix_tag = 1;
    }
    let algo_opt = if check && ((!algo_given && p.takes_algorithm()) || !family.is_empty()) {
        None
    } else {
        Some(algo)
    };
    Ok(Parsed::Run(Box::new(Config {
        personality: p,
        prog,
        compat,
        mode: if check { Mode::Check } else { Mode::Hash },
        algo: algo_opt,
        length_given: len_bits != 0,
        style: if prefix_tag == 1 {
            Style::Tagged
        } else {
            Style::Untagged
        },
        binary: binary == 1,
        zero,
        encoding: if raw {
            Encoding::Raw
        } else if base64 {
            Encoding::Base64
        } else {
            Encoding::Hex
        },
        verbosity,
        strict,
        ignore_missing,
        debug,
        files,
        files_given,
        family,
        no_names: false,
        also: if check {
            Vec::new()
        } else {
            more_kinds.iter().map(|&k| Algorithm::new(k)).collect()
        },
        jobs,
        io,
        walk: native.walk,
        files_from: native.files_from,
        null: native.null,
        json: native.json,
        progress: native.progress,
        install_links: native.install_links,
    })))
}

/// `MHASH_JOBS`: the default worker count for every face (GNU-named ones
/// have no `-j`); unset, empty or invalid = 0 = one per core.
fn env_jobs() -> usize {
    std::env::var("MHASH_JOBS")
        .ok()
        .and_then(|v| v.trim().parse::<u16>().ok())
        .map_or(0, usize::from)
}

/// `MHASH_IO`: the default I/O method for every face (`auto`, `read`,
/// `mmap`); anything else = auto.
fn env_io() -> IoMode {
    std::env::var("MHASH_IO")
        .ok()
        .and_then(|v| IoMode::from_name(&v))
        .unwrap_or(IoMode::Auto)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn getopt_reports_the_first_byte_of_a_multibyte_character() {
        // getopt reports the first byte of a multibyte character, raw.
        assert_eq!(message_bytes(&first_byte_char('\u{e9}').to_string()), b"\xc3");
        assert_eq!(first_byte_char('q'), 'q');
    }

    #[test]
    fn clap_definitions_are_consistent() {
        for (p, _) in Personality::GNU {
            command(p).debug_assert();
        }
        command(Personality::Mhash).debug_assert();
    }
}
