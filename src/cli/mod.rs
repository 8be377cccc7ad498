//! The CLI layer: clap definitions for every personality, the GNU wording of
//! usage errors, and the validation that turns what the user typed into a
//! [`crate::config::Config`]. No clap type leaves this module.
//!
//! GNU processes options in order (getopt), and some rules depend on that
//! order (`--tag` then `--text` is an error, `--text` then `--tag` is not;
//! `--quiet`/`--status`/`--warn`: the last one wins). So clap parses, then
//! [`parse`] replays the options in command-line order the way GNU's option
//! loop does, then applies GNU's post-parse checks in GNU's order.

pub mod b3sum;
pub mod flags;
pub mod getopt;
pub mod help;
mod man;
pub mod shasum;

mod stages;
mod suggest;

pub use stages::parse;

use crate::algo::{AlgoKind, Family, GnuSince};
use crate::config::{GnuCompat, Job, Personality};
use crate::error::Error;
use crate::text::{RAW_BYTE_BASE, message_bytes};
use clap::{Arg, ArgAction, Command};
use flags::{Flag, clap_arg};
use getopt::Opt;
use std::ffi::OsString;

/// Prints a usage or fatal error as GNU does (`PROG: MSG` per line, the
/// argmatch detail, `Try 'PROG --help' for more information.`) and returns
/// the exit status, 1. `prog` is `argv[0]` as invoked (getopt's prefix and
/// the `Try` line's), `short` the prefix of GNU's `error()` messages (see
/// [`message_prog`]). Messages may hold argument bytes that are not UTF-8
/// (see [`crate::text::lossless`]): they are written back as those bytes.
pub fn report_error(e: &Error, prog: &str, short: &str) -> i32 {
    use std::io::Write;
    let (msg, detail, try_help, who) = match e {
        Error::Usage {
            msg,
            detail,
            try_help,
        } => (msg.as_deref(), detail.as_deref(), *try_help, short),
        Error::Getopt(m) => (Some(m.as_str()), None, true, prog),
    };
    let mut text = String::new();
    if let Some(m) = msg {
        for line in m.lines() {
            text.push_str(&format!("{who}: {line}\n"));
        }
    }
    if let Some(d) = detail {
        text.push_str(&format!("{d}\n"));
    }
    if try_help {
        text.push_str(&format!("Try '{prog} --help' for more information.\n"));
    }
    let _ = std::io::stderr().lock().write_all(&message_bytes(&text));
    1
}

/// The prefix of diagnostics other than getopt's: `argv[0]` as invoked,
/// except that GNU 9.11 (under its names) prints the bare program name
/// (`md5sum: f: No such file or directory` when run as `/bin/md5sum`).
pub fn message_prog(p: Personality, prog: &str, compat: GnuCompat) -> String {
    if p.is_gnu() && compat >= GnuCompat::V9_11 {
        return prog.rsplit('/').next().unwrap_or(prog).to_string();
    }
    prog.to_string()
}

/// The native face's own options (none exist under GNU names).
#[derive(Clone, Debug, Default)]
struct Native {
    walk: Option<crate::walk::Walk>,
    files_from: Vec<OsString>,
    null: bool,
    json: bool,
    /// `--sfv`: SFV lines (`NAME CRC32`).
    sfv: bool,
    progress: crate::config::ProgressMode,
    install_links: Option<(std::path::PathBuf, crate::config::LinkOpts)>,
    /// An object store's checksum instead of digest lines.
    store: Option<StoreOpts>,
    /// One digest per directory for the whole tree (`--go-h1`, `--nar`).
    tree: Option<crate::config::TreeHash>,
    /// `--audit DIR`, and the walk options that go with it.
    audit: Option<crate::config::AuditDir>,
    /// `--key`, `--signature`, `--namespace`: verify each checksum file's
    /// signature first.
    signed: Option<crate::config::Signed>,
    /// `--state FILE` and `--rescan`.
    state: Option<crate::config::StateFile>,
    /// `--s3-report REPORT` and `--root DIR`.
    s3_report: Option<(OsString, OsString)>,
    /// `--shard I/N`: this run's share of the inputs.
    shard: Option<crate::walk::Shard>,
    /// `--shard`: the run's fingerprint (see `Common::shard_run`).
    shard_run: String,
}

/// `pattern` compiled (anchored at both ends when `anchored`, as
/// `^(?:PATTERN)$`) to match a value's bytes, or the usage error for
/// `flag` that says why not. The regex crate is built without its Unicode
/// case and property tables (Cargo.toml), so a pattern that asks for
/// Unicode case folding (`(?i)`) is compiled with Unicode mode off: ASCII
/// letters match without regard to case, `.` matches one byte, a non-ASCII
/// literal matches its UTF-8 bytes.
///
/// # Errors
/// A usage error naming `flag` and the regex crate's reason.
fn regex_option(flag: &str, pattern: &str, anchored: bool) -> Result<regex::bytes::Regex, Error> {
    let source = if anchored {
        format!("^(?:{pattern})$")
    } else {
        pattern.to_string()
    };
    regex::bytes::Regex::new(&source)
        .or_else(|e| match &e {
            regex::Error::Syntax(s) if s.contains("unicode-case") => {
                regex::bytes::RegexBuilder::new(&source).unicode(false).build()
            }
            _ => Err(e),
        })
        .map_err(|e| {
            let why = match e {
                regex::Error::CompiledTooBig(_) => "too large once compiled".to_string(),
                regex::Error::Syntax(s) if s.contains("Unicode property not found") => {
                    "Unicode classes (\\p{...}) are not supported here: \
                     list the characters, as [αβγ]"
                        .to_string()
                }
                e => e
                    .to_string()
                    .lines()
                    .rev()
                    .find(|l| l.starts_with("error:"))
                    .map_or_else(
                        || "not a regular expression".to_string(),
                        |l| l.trim_start_matches("error: ").to_string(),
                    ),
            };
            Error::usage(format!("{flag} {}: not a regular expression: {why}", lq(pattern)))
        })
}

/// The Sigstore options' names, as `signed_from_matches` reads them.
const SIGSTORE_OPTIONS: [&str; 7] = [
    "attestation",
    "bundle",
    "certificate-identity",
    "certificate-identity-regexp",
    "certificate-oidc-issuer",
    "certificate-oidc-issuer-regexp",
    "trusted-root",
];

/// Reads a Sigstore identity or issuer rule: `--NAME` (exact) or
/// `--NAME-regexp`, not both.
fn matcher(m: &clap::ArgMatches, name: &str) -> Result<Option<crate::config::Matcher>, Error> {
    let exact = m.get_one::<String>(name);
    let re = m.get_one::<String>(&format!("{name}-regexp"));
    match (exact, re) {
        (Some(_), Some(_)) => Err(Error::usage(format!(
            "--{name} and --{name}-regexp are mutually exclusive"
        ))),
        (Some(e), None) => Ok(Some(crate::config::Matcher::Exact(e.clone()))),
        (None, Some(r)) => Ok(Some(crate::config::Matcher::Regex(regex_option(
            &format!("--{name}-regexp"),
            r,
            false,
        )?))),
        (None, None) => Ok(None),
    }
}

/// Reads `--bundle`, `--certificate-identity[-regexp]`,
/// `--certificate-oidc-issuer[-regexp]`, `--trusted-root`: `None` when
/// none is given. Identity and issuer are both required (as cosign 3
/// requires them): a bundle proves only who signed, and a signer not
/// named is anyone's.
fn sigstore_from_matches(m: &clap::ArgMatches) -> Result<Option<crate::config::SigstorePolicy>, Error> {
    if !SIGSTORE_OPTIONS
        .iter()
        .any(|o| m.contains_id(o) && m.value_source(o).is_some())
    {
        return Ok(None);
    }
    let path = |name: &str| -> Result<Option<std::path::PathBuf>, Error> {
        match m.get_one::<OsString>(name) {
            Some(p) if p.is_empty() => Err(Error::usage(format!("--{name} needs a file, not an empty name"))),
            p => Ok(p.map(std::path::PathBuf::from)),
        }
    };
    let identity = matcher(m, "certificate-identity")?;
    let issuer = matcher(m, "certificate-oidc-issuer")?;
    let (Some(identity), Some(issuer)) = (identity, issuer) else {
        return Err(Error::usage(
            "a Sigstore bundle is verified for a signer: give both --certificate-identity (or \
             --certificate-identity-regexp) and --certificate-oidc-issuer (or \
             --certificate-oidc-issuer-regexp)",
        ));
    };
    let attestation = path("attestation")?;
    if attestation.is_some() && m.get_one::<OsString>("bundle").is_some() {
        return Err(Error::usage(
            "--attestation and --bundle are mutually exclusive (an attestation is its own checksum \
             list)",
        ));
    }
    Ok(Some(crate::config::SigstorePolicy {
        bundle: path("bundle")?,
        identity,
        issuer,
        trusted_root: path("trusted-root")?,
        // The files are the operands: the build stage moves them here.
        only: attestation.into_iter().collect(),
        attestation: m.get_one::<OsString>("attestation").is_some(),
    }))
}

/// Reads `--key`, `--signature`, `--namespace`, `--min-signatures` and
/// `--trusted-comment`, or the Sigstore options.
fn signed_from_matches(m: &clap::ArgMatches) -> Result<Option<crate::config::Signed>, Error> {
    let key = m.get_one::<OsString>("key").cloned();
    let signature = m.get_one::<OsString>("signature").cloned();
    let namespace = m.get_one::<String>("namespace").cloned();
    let min = m.get_one::<String>("min-signatures").cloned();
    let comment = m.get_one::<String>("trusted-comment").cloned();
    let sigstore = sigstore_from_matches(m)?;
    if sigstore.is_some() && key.is_some() {
        return Err(Error::usage(
            "--key and the Sigstore options (--bundle, --certificate-identity, ...) are mutually \
             exclusive",
        ));
    }
    let Some(key) = key else {
        for (on, name) in [
            (signature.is_some(), "signature"),
            (namespace.is_some(), "namespace"),
            (min.is_some(), "min-signatures"),
            (comment.is_some(), "trusted-comment"),
        ] {
            if on {
                return Err(Error::usage(format!(
                    "the --{name} option is meaningful only with --key"
                )));
            }
        }
        return Ok(sigstore.map(|s| crate::config::Signed {
            key: None,
            sigstore: Some(s),
            signature: None,
            namespace: "file".to_string(),
            min_signatures: 1,
            trusted_comment: None,
        }));
    };
    if key.is_empty() || signature.as_ref().is_some_and(|s| s.is_empty()) {
        return Err(Error::usage(
            "--key and --signature need a file, not an empty name",
        ));
    }
    let min_signatures = match min {
        None => 1,
        Some(k) => match k.parse::<u32>() {
            Ok(n) if n >= 1 => n,
            _ => {
                return Err(Error::usage(format!(
                    "--min-signatures needs a whole number of 1 or more, not {}",
                    lq(&k)
                )));
            }
        },
    };
    // Anchored: the whole comment must match, so that `tag=v1` is not
    // met by `tag=v10`.
    let trusted_comment = match comment {
        None => None,
        Some(re) => Some(regex_option("--trusted-comment", &re, true)?),
    };
    Ok(Some(crate::config::Signed {
        key: Some(key),
        sigstore: None,
        signature,
        namespace: namespace.unwrap_or_else(|| "file".to_string()),
        min_signatures,
        trusted_comment,
    }))
}

/// Reads `--go-h1`/`--go-prefix` and `--nar`/`--nar-format`.
fn tree_from_matches(m: &clap::ArgMatches) -> Result<Option<crate::config::TreeHash>, Error> {
    use crate::config::{NarFormat, TreeHash};
    let prefix = m.get_one::<String>("go-prefix");
    let format = m.get_one::<String>("nar-format");
    let go = m.get_flag("go-h1");
    let nar = m.get_flag("nar");
    if prefix.is_some() && !go {
        return Err(Error::usage(
            "the --go-prefix option is meaningful only with --go-h1",
        ));
    }
    if format.is_some() && !nar {
        return Err(Error::usage(
            "the --nar-format option is meaningful only with --nar",
        ));
    }
    if go {
        return Ok(Some(TreeHash::GoH1 {
            prefix: prefix.cloned().unwrap_or_default(),
        }));
    }
    if nar {
        let f = match format {
            None => NarFormat::Sri,
            Some(v) => NarFormat::from_name(v).ok_or_else(|| {
                Error::usage(format!(
                    "invalid --nar-format {} (sri, nix32, base16 or base64)",
                    lq(v)
                ))
            })?,
        };
        return Ok(Some(TreeHash::Nar(f)));
    }
    Ok(None)
}

/// Which object store's checksum the native face prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StoreFlag {
    S3Etag,
    S3Composite,
    Gcs,
    Hdfs,
    HdfsComposite,
}

impl StoreFlag {
    fn option(self) -> &'static str {
        match self {
            StoreFlag::S3Etag => "--s3-etag",
            StoreFlag::S3Composite => "--s3-composite",
            StoreFlag::Gcs => "--gcs",
            StoreFlag::Hdfs => "--hdfs",
            StoreFlag::HdfsComposite => "--hdfs-composite",
        }
    }
}

/// The object-store options as typed (`--s3-etag`, `--part-size`, ...).
#[derive(Clone, Copy, Debug)]
struct StoreOpts {
    flag: StoreFlag,
    multipart: crate::algo::stores::Multipart,
    hdfs: crate::algo::stores::HdfsLayout,
}

/// Reads a size: decimal digits, then optionally a unit, binary whatever
/// its spelling as the AWS CLI reads `multipart_chunksize` (`K`/`KB`/`KiB`
/// = 1024, `M`/`MB`/`MiB` = 1024², `G`/`GB`/`GiB` = 1024³, `B` or none =
/// bytes); `8MiB` is 8,388,608 bytes.
///
/// # Errors
/// Anything else, 0, or a size past `u64::MAX`: the message to print.
fn parse_size(option: &str, v: &str) -> Result<u64, Error> {
    let bad = || Error::usage(format!("invalid size {} for {}", lq(v), lq(option)));
    let t = v.trim();
    let digits = t.bytes().take_while(|b| b.is_ascii_digit()).count();
    let (num, unit) = t.split_at(digits);
    let n: u64 = num.parse().map_err(|_| bad())?;
    let shift = match unit.trim_start().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(bad()),
    };
    let bytes = n.checked_mul(1u64 << shift).ok_or_else(bad)?;
    if bytes == 0 {
        return Err(bad());
    }
    Ok(bytes)
}

impl StoreOpts {
    /// Reads and checks the object-store options clap parsed.
    fn from_matches(m: &clap::ArgMatches) -> Result<Option<StoreOpts>, Error> {
        use crate::algo::stores::{
            AWS_CLI_PART_SIZE, HDFS_BLOCK_SIZE, HDFS_BYTES_PER_CRC, HdfsLayout, Multipart,
        };
        let flag = [
            ("s3-etag", StoreFlag::S3Etag),
            ("s3-composite", StoreFlag::S3Composite),
            ("gcs", StoreFlag::Gcs),
            ("hdfs", StoreFlag::Hdfs),
            ("hdfs-composite", StoreFlag::HdfsComposite),
        ]
        .into_iter()
        .find(|(id, _)| m.get_flag(id))
        .map(|(_, f)| f);
        let size = |id: &str| -> Result<Option<u64>, Error> {
            m.get_one::<String>(id)
                .map(|v| parse_size(&format!("--{id}"), v))
                .transpose()
        };
        let part = size("part-size")?;
        let threshold = size("multipart-threshold")?;
        let block = size("hdfs-block-size")?;
        let bpc = size("hdfs-bytes-per-crc")?;
        let s3 = matches!(flag, Some(StoreFlag::S3Etag | StoreFlag::S3Composite));
        let hdfs = matches!(flag, Some(StoreFlag::Hdfs | StoreFlag::HdfsComposite));
        for (given, name, ok, with) in [
            (part.is_some(), "part-size", s3, "--s3-etag or --s3-composite"),
            (
                threshold.is_some(),
                "multipart-threshold",
                s3,
                "--s3-etag or --s3-composite",
            ),
            (
                block.is_some(),
                "hdfs-block-size",
                hdfs,
                "--hdfs or --hdfs-composite",
            ),
            (
                bpc.is_some(),
                "hdfs-bytes-per-crc",
                hdfs,
                "--hdfs or --hdfs-composite",
            ),
        ] {
            if given && !ok {
                return Err(Error::usage(format!(
                    "the --{name} option is meaningful only with {with}"
                )));
            }
        }
        let Some(flag) = flag else {
            return Ok(None);
        };
        let hdfs = HdfsLayout {
            block_size: block.unwrap_or(HDFS_BLOCK_SIZE),
            bytes_per_crc: bpc.unwrap_or(HDFS_BYTES_PER_CRC),
        };
        if hdfs.bytes_per_crc > u64::from(u32::MAX) {
            return Err(Error::usage("--hdfs-bytes-per-crc: at most 4294967295 bytes"));
        }
        if !hdfs.block_size.is_multiple_of(hdfs.bytes_per_crc) {
            return Err(Error::usage(format!(
                "--hdfs-block-size {} is not a multiple of --hdfs-bytes-per-crc {} (HDFS requires it)",
                hdfs.block_size, hdfs.bytes_per_crc
            )));
        }
        Ok(Some(StoreOpts {
            flag,
            multipart: Multipart {
                part_size: part.unwrap_or(AWS_CLI_PART_SIZE),
                threshold: threshold.unwrap_or(AWS_CLI_PART_SIZE),
            },
            hdfs,
        }))
    }
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
        let audit_dir = m.get_one::<OsString>("audit").cloned();
        if !recursive && audit_dir.is_none() {
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
        let options = crate::walk::Walk {
            follow: m.get_flag("follow"),
            one_file_system: m.get_flag("one-file-system"),
            include: crate::walk::Globs::new(&include).map_err(Error::usage)?,
            exclude: crate::walk::Globs::new(&exclude).map_err(Error::usage)?,
        };
        let audit = audit_dir.map(|dir| crate::config::AuditDir {
            dir,
            walk: options.clone(),
        });
        let walk = recursive.then_some(options);
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
            crate::config::ProgressMode::Always
        } else if m.get_flag("no-progress") {
            crate::config::ProgressMode::Never
        } else {
            crate::config::ProgressMode::Auto
        };
        let opts = crate::config::LinkOpts {
            force: m.get_flag("force"),
            relative: m.get_flag("relative"),
            b3sum: m.get_flag("with-b3sum"),
        };
        let install_links = m
            .get_one::<std::path::PathBuf>("install-links")
            .map(|d| (d.clone(), opts));
        if install_links.is_none() {
            for (set, name) in [
                (opts.force, "force"),
                (opts.relative, "relative"),
                (opts.b3sum, "with-b3sum"),
            ] {
                if set {
                    return Err(Error::usage(format!(
                        "the --{name} option is meaningful only with --install-links"
                    )));
                }
            }
        }
        Ok(Native {
            walk,
            files_from,
            null,
            json: m.get_flag("json"),
            sfv: m.get_flag("sfv"),
            progress,
            install_links,
            store: StoreOpts::from_matches(m)?,
            tree: tree_from_matches(m)?,
            audit,
            signed: signed_from_matches(m)?,
            state: state_from_matches(m)?,
            s3_report: s3_report_from_matches(m)?,
            shard: m
                .get_one::<String>("shard")
                .map(|s| crate::walk::Shard::parse(s))
                .transpose()
                .map_err(Error::usage)?,
            shard_run: String::new(),
        })
    }
}

/// `mhash completions SHELL` and `mhash man`: the text to print, or `None`
/// when `args` is not one of them.
fn special_command(args: &[OsString]) -> Option<Result<Job, Error>> {
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
            clap_complete::generate(shell, &mut completion_command(), "mhash", &mut out);
            Some(Ok(Job::Print(String::from_utf8_lossy(&out).into_owned())))
        }
        "man" => {
            if args.len() > 2 {
                return Some(Err(Error::usage("man: takes no operands")));
            }
            let cmd = command(Personality::Mhash).version(env!("CARGO_PKG_VERSION"));
            Some(
                man::render(cmd)
                    .map(Job::Print)
                    .map_err(|e| Error::fatal(format!("man: {e}"))),
            )
        }
        "merge" => Some(merge_args(&args[2..])),
        "bench" => Some(crate::bench::parse_args(&args[1..]).map(|b| match b {
            crate::bench::Command::Help(text) => Job::Print(text),
            crate::bench::Command::Run(opts) => Job::Bench(opts),
        })),
        _ => None,
    }
}

/// `mhash merge [FILE]...`: the shard outputs to merge (none: standard
/// input).
fn merge_args(args: &[OsString]) -> Result<Job, Error> {
    let mut files = Vec::new();
    let mut options = true;
    for a in args {
        if options && a == "--" {
            options = false;
        } else if options && (a == "--help" || a == "-h") {
            return Ok(Job::Print(
                "Usage: mhash merge [FILE]...\n\
                 Merge the outputs of `mhash --shard I/N ...` (N runs, in any order, each FILE\n\
                 one or several of them concatenated; none or -: standard input) into the bytes\n\
                 one run without --shard prints, its standard error and its exit status.\n"
                    .to_string(),
            ));
        } else if options && a.len() > 1 && a.to_str().is_some_and(|s| s.starts_with('-')) {
            return Err(Error::usage(format!(
                "merge: unknown option {} (mhash merge takes only files)",
                lq(&a.to_string_lossy())
            )));
        } else {
            files.push(a.clone());
        }
    }
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    Ok(Job::Merge(files))
}

/// The native command as the completion scripts see it: every option
/// with a fixed set of values offers them (`-a` the algorithm table's
/// names, as `--help` lists them, so a new algorithm is offered with no
/// edit here; `--io`; `--nar-format`), and each value that names a file
/// or directory says so (the shells complete paths there, and nowhere
/// else an option takes a value). Only the scripts use these: parsing
/// keeps its own checks (case-blind, comma-separated `-a`, GNU's
/// messages).
fn completion_command() -> Command {
    use clap::ValueHint;
    use clap::builder::PossibleValuesParser;
    let files = |a: Arg| a.value_hint(ValueHint::FilePath);
    let dirs = |a: Arg| a.value_hint(ValueHint::DirPath);
    let other = |a: Arg| a.value_hint(ValueHint::Other);
    let algorithms = algorithm_args(Personality::Mhash, GnuCompat::V9_11);
    let mut cmd = command(Personality::Mhash)
        .mut_arg("algorithm", |a| {
            a.value_parser(PossibleValuesParser::new(algorithms))
        })
        .mut_arg("nar-format", |a| {
            a.value_parser(PossibleValuesParser::new(crate::config::NarFormat::NAMES))
        })
        .mut_arg("files", files)
        .mut_arg("files-from", files)
        .mut_arg("state", files)
        .mut_arg("s3-report", files)
        .mut_arg("root", dirs)
        .mut_arg("key", files)
        .mut_arg("signature", files)
        .mut_arg("audit", dirs)
        .mut_arg("install-links", dirs);
    for id in [
        "jobs",
        "length",
        "include",
        "exclude",
        "part-size",
        "multipart-threshold",
        "hdfs-block-size",
        "hdfs-bytes-per-crc",
        "go-prefix",
        "namespace",
        "rescan",
    ] {
        cmd = cmd.mut_arg(id, other);
    }
    cmd
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
            clap_arg(Flag::Algorithm)
                .value_name("TYPE")
                .help(algorithm_help()),
        );
        cmd = cmd.arg(clap_arg(Flag::Base64));
    }
    cmd = cmd.arg(clap_arg(Flag::Binary)).arg(clap_arg(Flag::Check));
    if p.takes_length() {
        cmd = cmd.arg(clap_arg(Flag::Length).value_name("BITS"));
    }
    cmd = check_options(cmd);
    if p.takes_algorithm() {
        cmd = cmd
            .arg(clap_arg(Flag::Untagged))
            .arg(clap_arg(Flag::Raw))
            .arg(clap_arg(Flag::Debug));
    }
    cmd = cmd.arg(clap_arg(Flag::Help)).arg(clap_arg(Flag::Version)).arg(
        Arg::new("files")
            .value_name("FILE")
            .help("files to hash, or checksum files with -c; - is standard input")
            .num_args(0..)
            .action(ArgAction::Append)
            .allow_hyphen_values(false)
            .value_parser(clap::value_parser!(OsString)),
    );
    if p == Personality::Mhash {
        // `-h` as b3sum and most Rust tools have it, a summary (ripgrep's
        // split); GNU's names refuse it.
        cmd = cmd.arg(
            Arg::new("short-help")
                .short('h')
                .action(ArgAction::SetTrue)
                .help("display a summary of the options, one line each, and exit"),
        );
        cmd = native_options(cmd);
    }
    cmd
}

/// The options of GNU's check mode, `--tag` and `-z`.
fn check_options(cmd: Command) -> Command {
    cmd.arg(clap_arg(Flag::Quiet))
        .arg(clap_arg(Flag::Status))
        .arg(clap_arg(Flag::Text))
        .arg(clap_arg(Flag::Warn))
        .arg(clap_arg(Flag::Strict))
        .arg(clap_arg(Flag::IgnoreMissing))
        .arg(clap_arg(Flag::Tag))
        .arg(clap_arg(Flag::Zero))
}

/// The native face's own options: jobs, I/O, reports, then the walk,
/// output and install groups, and its help text.
fn native_options(cmd: Command) -> Command {
    let cmd = cmd
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
                .help("read files with read(2), map them (mmap), or choose per file (auto, default: a large file by measurement)"),
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
        ));
    let cmd = walk_options(cmd);
    let cmd = state_options(cmd);
    let cmd = store_options(cmd);
    let cmd = tree_options(cmd);
    output_options(cmd)
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
             `mhash merge [FILE]...` merges the outputs of --shard I/N runs into one run's.\n\
             `mhash completions SHELL` prints a completion script (bash, zsh, fish,\n\
             powershell, elvish); `mhash man` prints this manual as a roff man page.\n\
             \n\
             Environment:\n\
             \x20 MHASH_GNU_COMPAT=8.32|9.1|9.4|9.11  the GNU release the GNU names reproduce\n\
             \x20                                     (default 9.11)\n\
             \x20 MHASH_JOBS=N         files hashed at once (default: one per core; -j wins)\n\
             \x20 MHASH_IO=auto|read|mmap  how regular files are read (--io wins)\n\
             \x20 MHASH_BACKEND=portable  mhash's portable code for every algorithm\n\
             \x20                         (no CPU-specific kernels); =NAME: that backend\n\
             \x20                         wherever an algorithm has it (avx2, tuned-scalar)\n\
             \x20 MHASH_CALIBRATE=never|always  when to time an input's backends: never, or\n\
             \x20                         for any size (default: 32 MiB and up); never also\n\
             \x20                         skips timing a large input's way of reading\n\
             \x20 GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,...  CPU features to leave unused\n\
             \x20 MHASH_READ_SIZE=BYTES  read size (4096 to 16 MiB; for benchmarks)\n\
             \x20 MHASH_MAP_WINDOW=BYTES  one large BLAKE3 file: bytes each worker maps at\n\
             \x20                         a time (a power of two, 64 KiB to 1 GiB; default\n\
             \x20                         2 MiB; more: higher peak RSS, not faster here)\n\
             \x20 POSIXLY_CORRECT      under GNU names: options end at the first FILE\n\
             \n\
             Exit status: 0 success; 1 a file could not be read, a checksum did not\n\
             match, a line was improper under --strict, or a usage error.",
        )
}

/// `-r` and `--files-from`, and what goes with them.
fn walk_options(cmd: Command) -> Command {
    cmd.arg(
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
            "with -r or --audit: follow symbolic links (loops are detected and reported)",
        )
        .help_heading("Walking directories and lists"),
    )
    .arg(
        Arg::new("include")
            .long("include")
            .value_name("GLOB")
            .action(ArgAction::Append)
            .help("with -r or --audit: only files whose name (or relative path, if GLOB has '/') matches")
            .help_heading("Walking directories and lists"),
    )
    .arg(
        Arg::new("exclude")
            .long("exclude")
            .value_name("GLOB")
            .action(ArgAction::Append)
            .help("with -r or --audit: skip files and directories whose name (or relative path) matches")
            .help_heading("Walking directories and lists"),
    )
    .arg(
        flag(
            "one-file-system",
            "one-file-system",
            None,
            "with -r or --audit: stay on the file system of each DIR operand",
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
}

/// `--state` and `--rescan` (the verified-state file, [`crate::state`]);
/// `--s3-report` and `--root` ([`crate::check::s3report`]).
fn state_options(cmd: Command) -> Command {
    const H: &str = "Verified state and transfer reports";
    cmd.arg(
        Arg::new("state")
            .long("state")
            .value_name("FILE")
            .value_parser(clap::value_parser!(OsString))
            .help(
                "when hashing: take the digest of a file unchanged since FILE recorded it \
                 (size, mtime, ctime, inode) from FILE instead of reading it; record what is read",
            )
            .help_heading(H),
    )
    .arg(
        Arg::new("rescan")
            .long("rescan")
            .value_name("BYTES|N%")
            .help("with --state: also read again the files read longest ago, up to BYTES (K, M, G, T) or N% of the state's bytes")
            .help_heading(H),
    )
    .arg(
        Arg::new("s3-report")
            .long("s3-report")
            .value_name("REPORT")
            .value_parser(clap::value_parser!(OsString))
            .help("verify the checksums of an S3 Batch Operations \"Compute checksum\" completion report (CSV) against DIR/KEY")
            .help_heading(H),
    )
    .arg(
        Arg::new("root")
            .long("root")
            .value_name("DIR")
            .value_parser(clap::value_parser!(OsString))
            .help("with --s3-report: the directory that holds the local copies of the report's keys")
            .help_heading(H),
    )
}

/// `--s3-report REPORT` and `--root DIR`.
fn s3_report_from_matches(m: &clap::ArgMatches) -> Result<Option<(OsString, OsString)>, Error> {
    let report = m.get_one::<OsString>("s3-report").cloned();
    let root = m.get_one::<OsString>("root").cloned();
    match (report, root) {
        (None, None) => Ok(None),
        (None, Some(_)) => Err(Error::usage(
            "the --root option is meaningful only with --s3-report",
        )),
        (Some(_), None) => Err(Error::usage(
            "--s3-report needs --root DIR: the directory that holds the local copies of the report's keys",
        )),
        (Some(r), Some(d)) if r.is_empty() || d.is_empty() => Err(Error::usage(
            "--s3-report and --root need a name, not an empty one",
        )),
        (Some(r), Some(d)) => Ok(Some((r, d))),
    }
}

/// `--state FILE` and `--rescan`.
fn state_from_matches(m: &clap::ArgMatches) -> Result<Option<crate::config::StateFile>, Error> {
    let rescan = m.get_one::<String>("rescan");
    let Some(path) = m.get_one::<OsString>("state") else {
        if rescan.is_some() {
            return Err(Error::usage(
                "the --rescan option is meaningful only with --state",
            ));
        }
        return Ok(None);
    };
    if path.is_empty() {
        return Err(Error::usage("--state needs a file, not an empty name"));
    }
    let rescan = match rescan {
        Some(r) => crate::state::Rescan::parse(r).map_err(Error::usage)?,
        None => crate::state::Rescan::None,
    };
    Ok(Some(crate::config::StateFile {
        path: std::path::PathBuf::from(path),
        rescan,
    }))
}

/// The object stores' checksums: S3, GCS, HDFS.
fn store_options(cmd: Command) -> Command {
    const H: &str = "Object stores (S3, GCS, HDFS)";
    let stores = ["s3-etag", "s3-composite", "gcs", "hdfs", "hdfs-composite"];
    let one = |id: &'static str, help: &'static str| {
        let others: Vec<&str> = stores.iter().copied().filter(|o| *o != id).collect();
        flag(id, id, None, help)
            .conflicts_with_all(others)
            .help_heading(H)
    };
    let size = |id: &'static str, name: &'static str, help: &'static str| {
        Arg::new(id).long(id).value_name(name).help(help).help_heading(H)
    };
    cmd.arg(one(
        "s3-etag",
        "print the S3 ETag: hex MD5, or hex(MD5(MD5(part1)||...))-N for a multipart upload",
    ))
    .arg(one(
        "s3-composite",
        "print the S3 composite checksum of -a crc32b|crc32c|sha1|sha256: base64(H(H(part1)||...))-N",
    ))
    .arg(size(
        "part-size",
        "SIZE",
        "with --s3-*: the upload's part size (default 8MiB, the AWS CLI's; S3 takes 5MiB to 5GiB)",
    ))
    .arg(size(
        "multipart-threshold",
        "SIZE",
        "with --s3-*: smaller inputs are one PutObject, no parts (default 8MiB, the AWS CLI's)",
    ))
    .arg(one(
        "gcs",
        "print what `gcloud storage hash` prints: CRC-32C and MD5 in base64",
    ))
    .arg(one(
        "hdfs",
        "print what `hadoop fs -checksum` prints: MD5-of-MD5-of-CRC32C",
    ))
    .arg(one(
        "hdfs-composite",
        "print `hadoop fs -checksum` with dfs.checksum.combine.mode=COMPOSITE_CRC: COMPOSITE-CRC32C",
    ))
    .arg(size(
        "hdfs-block-size",
        "SIZE",
        "with --hdfs: dfs.blocksize (default 128MiB)",
    ))
    .arg(size(
        "hdfs-bytes-per-crc",
        "N",
        "with --hdfs: dfs.bytes-per-checksum (default 512)",
    ))
}

/// One digest for a whole tree: Go's h1 dirhash, Nix's NAR hash.
fn tree_options(cmd: Command) -> Command {
    const H: &str = "One digest for a whole tree";
    let exclusive = [
        "s3-etag",
        "s3-composite",
        "gcs",
        "hdfs",
        "hdfs-composite",
        "recursive",
        "check",
    ];
    cmd.arg(
        flag(
            "go-h1",
            "go-h1",
            None,
            "print Go's h1: dirhash of each DIR (go.sum's; with --go-prefix MODULE@VERSION)",
        )
        .conflicts_with("nar")
        .conflicts_with_all(exclusive)
        .help_heading(H),
    )
    .arg(
        Arg::new("go-prefix")
            .long("go-prefix")
            .value_name("PREFIX")
            .help("with --go-h1: the prefix of every name (MODULE@VERSION for go.sum)")
            .help_heading(H),
    )
    .arg(
        flag(
            "nar",
            "nar",
            None,
            "print the NAR hash of each PATH, as `nix hash path` does (sha256-<base64>)",
        )
        .conflicts_with_all(exclusive)
        .help_heading(H),
    )
    .arg(
        Arg::new("nar-format")
            .long("nar-format")
            .value_name("FORMAT")
            .help("with --nar: sri (default), nix32, base16 or base64")
            .help_heading(H),
    )
}

/// `--audit`, `--key`/`--signature`/`--namespace`, `--json`, the progress
/// bar, and `--install-links`.
fn output_options(cmd: Command) -> Command {
    const SIGNED: &str = "Verifying signed checksum files";
    const SIGSTORE: &str = "Verifying Sigstore bundles (offline; the cargo feature `sigstore`)";
    cmd.arg(
        Arg::new("key")
            .long("key")
            .value_name("KEYFILE")
            .value_parser(clap::value_parser!(OsString))
            .help(
                "with -c: first verify each checksum file's signature with KEYFILE (an OpenPGP key \
                 or keyring, a minisign or signify public key, an SSH public key or allowed-signers \
                 file); a bad or missing signature checks nothing and exits 1",
            )
            .help_heading(SIGNED),
    )
    .arg(
        Arg::new("signature")
            .long("signature")
            .value_name("SIGFILE")
            .value_parser(clap::value_parser!(OsString))
            .help(
                "with --key: the detached signature (default: FILE.sig, FILE.asc, FILE.gpg or \
                 FILE.minisig beside the checksum file, in the order the key's format gives, those \
                 of another format passed over; else FILE itself if clearsigned)",
            )
            .help_heading(SIGNED),
    )
    .arg(
        Arg::new("namespace")
            .long("namespace")
            .value_name("NS")
            .help("with --key and an SSH signature: the namespace it was made for (default: file)")
            .help_heading(SIGNED),
    )
    .arg(
        Arg::new("min-signatures")
            .long("min-signatures")
            .value_name("K")
            .help(
                "with --key: K good signatures by distinct keys of KEYFILE are needed (default 1; \
                 an OpenPGP file may hold several signatures, one after another)",
            )
            .help_heading(SIGNED),
    )
    .arg(
        Arg::new("trusted-comment")
            .long("trusted-comment")
            .value_name("REGEX")
            .help(
                "with --key and a minisign signature: its whole trusted comment must match REGEX \
                 (e.g. 'repo=org/tool;tag=v1\\.2\\.3')",
            )
            .help_heading(SIGNED),
    )
    .arg(
        Arg::new("shard")
            .long("shard")
            .value_name("I/N")
            // `--shard -1/3` reaches the parser's message, not clap's
            // "unexpected argument".
            .allow_hyphen_values(true)
            .help(
                "take only shard I (0 to N-1) of the inputs (-r, --files-from, operands, -c's \
                 lines), chosen by a hash of each file's path (relative to its -r operand); \
                 'mhash merge' turns the N outputs into one run's",
            )
            .help_heading("Sharding across machines"),
    )
    .arg(
        Arg::new("bundle")
            .long("bundle")
            .value_name("BUNDLE")
            .value_parser(clap::value_parser!(OsString))
            .help(
                "with -c: first verify the checksum file with this Sigstore bundle (cosign, \
                 goreleaser; default: FILE.sigstore.json, FILE.sigstore or FILE.bundle beside it, \
                 else FILE itself when it is an attestation bundle, whose subjects are then checked); \
                 offline, against the built-in public-good trusted root",
            )
            .help_heading(SIGSTORE),
    )
    .arg(
        Arg::new("attestation")
            .long("attestation")
            .value_name("BUNDLE")
            .value_parser(clap::value_parser!(OsString))
            .help(
                "with -c: the FILE operands are checked against the subjects (name and SHA-256) of \
                 this attestation bundle (GitHub artifact attestations, any in-toto statement in a \
                 Sigstore bundle), once it verifies; no FILE: every subject",
            )
            .help_heading(SIGSTORE),
    )
    .arg(
        Arg::new("certificate-identity")
            .long("certificate-identity")
            .value_name("ID")
            .help(
                "with a Sigstore bundle: the signing certificate's identity must be ID (e.g. \
                 https://github.com/OWNER/REPO/.github/workflows/release.yml@refs/tags/v1.2.3)",
            )
            .help_heading(SIGSTORE),
    )
    .arg(
        Arg::new("certificate-identity-regexp")
            .long("certificate-identity-regexp")
            .value_name("REGEX")
            .help("with a Sigstore bundle: the certificate's identity must contain a match of REGEX")
            .help_heading(SIGSTORE),
    )
    .arg(
        Arg::new("certificate-oidc-issuer")
            .long("certificate-oidc-issuer")
            .value_name("ISSUER")
            .help(
                "with a Sigstore bundle: the certificate's OIDC issuer must be ISSUER (e.g. \
                 https://token.actions.githubusercontent.com)",
            )
            .help_heading(SIGSTORE),
    )
    .arg(
        Arg::new("certificate-oidc-issuer-regexp")
            .long("certificate-oidc-issuer-regexp")
            .value_name("REGEX")
            .help("with a Sigstore bundle: the certificate's OIDC issuer must contain a match of REGEX")
            .help_heading(SIGSTORE),
    )
    .arg(
        Arg::new("trusted-root")
            .long("trusted-root")
            .value_name("FILE")
            .value_parser(clap::value_parser!(OsString))
            .help(
                "with a Sigstore bundle: verify against this trusted root (JSON, or JSON lines as \
                 'gh attestation trusted-root' writes) instead of the built-in public-good one",
            )
            .help_heading(SIGSTORE),
    )
    .arg(
        Arg::new("audit")
            .long("audit")
            .value_name("DIR")
            .value_parser(clap::value_parser!(OsString))
            .help(
                "with -c: the checksum file's names are relative to DIR; also walk DIR and print \
                 each file as '= NAME' matching, '* NAME' changed, '- NAME' missing, '+ NAME' new \
                 (not listed), '! NAME' unreadable; a count per kind on stderr; exit 0 only when \
                 nothing differs",
            )
            .help_heading("Auditing a tree"),
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
            "sfv",
            "sfv",
            None,
            "with -a crc32b: write SFV lines, 'NAME CRC32' (as cksfv; mhash -c reads them in a *.sfv file)",
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
            .help("create md5sum, sha1sum, ..., b2sum, cksum, sum in DIR as links to this binary, then exit")
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
    .arg(
        flag(
            "relative",
            "relative",
            None,
            "with --install-links: symbolic links with a target relative to DIR (DIR and the binary can move together)",
        )
        .help_heading("Installing"),
    )
    .arg(
        flag(
            "with-b3sum",
            "with-b3sum",
            None,
            "with --install-links: also a b3sum link (BLAKE3, b3sum's options); it says which b3sum it shadows",
        )
        .help_heading("Installing"),
    )
}

/// The index in `args` (`args[0]` the program) from which every argument
/// is an operand whatever comes before it: not an option (no leading
/// `-`, or after `--`) and not the value of an option that takes one
/// (`-a md5`, `--algorithm md5`, a short cluster ending in `-j`).
/// `args.len()` when the last argument is not such an operand.
///
/// Conservative: an option that may take a value (any `num_args` above
/// zero) is taken to take the next argument, and an option clap does not
/// know is taken to take one too; whatever is not in the tail goes to
/// clap, which then decides. `-` (standard input) is an operand.
fn plain_operand_tail(cmd: &Command, args: &[OsString]) -> usize {
    // (`num_args` is unset until clap builds the command: unset, the
    // action decides.)
    let takes_value =
        |a: &Arg| a.get_action().takes_values() && a.get_num_args().is_none_or(|r| r.max_values() > 0);
    let long = |name: &[u8]| {
        cmd.get_arguments()
            .find(|a| a.get_long().is_some_and(|l| l.as_bytes() == name))
    };
    let short = |c: u8| cmd.get_arguments().find(|a| a.get_short() == Some(char::from(c)));
    let mut tail = args.len();
    let mut i = 1;
    let mut dashdash = false;
    while i < args.len() {
        let a = args[i].as_encoded_bytes();
        if dashdash || a == b"-" || !a.starts_with(b"-") {
            tail = tail.min(i);
            i += 1;
            continue;
        }
        tail = args.len();
        if a == b"--" {
            dashdash = true;
        } else if let Some(name) = a.strip_prefix(b"--") {
            let attached = name.contains(&b'=');
            if !attached && long(name).is_none_or(takes_value) {
                i += 1;
            }
        } else {
            let cluster = &a[1..];
            for (at, &c) in cluster.iter().enumerate() {
                match short(c) {
                    Some(arg) if !takes_value(arg) && c.is_ascii() => continue,
                    // The rest of the cluster is its value, or else the
                    // next argument is; an unknown letter: clap's error.
                    _ => {
                        if at + 1 == cluster.len() {
                            i += 1;
                        }
                        break;
                    }
                }
            }
        }
        i += 1;
    }
    tail
}

/// The options clap parsed for the native face, in command-line order.
fn events(m: &clap::ArgMatches) -> Vec<Opt> {
    let mut ev: Vec<(usize, Opt)> = Vec::new();
    for f in getopt::long_options(Personality::Mhash, GnuCompat::V9_11) {
        let id = f.long();
        if m.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
            continue;
        }
        match f {
            Flag::Algorithm | Flag::Length => {
                if let (Some(idx), Some(vals)) = (m.indices_of(id), m.get_many::<String>(id)) {
                    for (i, v) in idx.zip(vals) {
                        let o = if f == Flag::Algorithm {
                            Opt::Algorithm(fold_algorithm_case(v))
                        } else {
                            Opt::Length(v.clone())
                        };
                        ev.push((i, o));
                    }
                }
            }
            _ => {
                if let Some(idx) = m.indices_of(id) {
                    ev.extend(idx.map(|i| (i, Opt::Flag(f))));
                }
            }
        }
    }
    ev.sort_by_key(|(i, _)| *i);
    ev.into_iter().map(|(_, o)| o).collect()
}

/// The `-a` values a personality accepts, read from the algorithm table:
/// under GNU names, GNU cksum's `algorithm_args` list at the release
/// (declaration order; SHA-3 only as `sha3`; `sha2`/`sha3` after sha512
/// from 9.4 on); for mhash, every algorithm in `--backends` order.
fn algorithm_args(p: Personality, compat: GnuCompat) -> Vec<&'static str> {
    let native = p == Personality::Mhash;
    let level = compat.algorithms();
    let kinds = if native {
        AlgoKind::report_order()
    } else {
        AlgoKind::declared()
    };
    let families = native || level >= GnuSince::V9_4;
    let mut v = Vec::new();
    for k in kinds {
        let info = k.info();
        let listed = native || info.gnu.is_some_and(|s| s <= level) && info.family != Some(Family::Sha3);
        if listed {
            v.push(info.name);
        }
        if k == AlgoKind::Sha512 && families {
            v.extend([Family::Sha2.name(), Family::Sha3.name()]);
        }
    }
    v
}

/// The native face's `-a` value with its case folded where that names
/// algorithms (`SHA256`, `Blake3`, `MD5,SHA256`); otherwise as typed, so
/// that an error shows what was typed. GNU's names take exact names only.
fn fold_algorithm_case(v: &str) -> String {
    let lower = v.to_ascii_lowercase();
    let valid = algorithm_args(Personality::Mhash, GnuCompat::V9_11);
    let names = |s: &str| {
        valid.contains(&s)
            || s.contains(',')
                && s.split(',')
                    .all(|part| matches!(choice_from_name(part), Some(AlgoChoice::Kind(_))))
    };
    if lower != v && lower != "help" && names(&lower) {
        lower
    } else {
        v.to_string()
    }
}

/// `mhash -a help`: every algorithm the native face takes, one a line,
/// in `--backends` order (`sha2` and `sha3` are families: `-l` names the
/// member).
pub(crate) fn algorithm_list() -> String {
    let mut s = String::new();
    for n in algorithm_args(Personality::Mhash, GnuCompat::V9_11) {
        s.push_str(n);
        if [Family::Sha2.name(), Family::Sha3.name()].contains(&n) {
            s.push_str(" (a family: -l 224, 256, 384 or 512 names the member)");
        }
        s.push('\n');
    }
    s
}

/// The native face's error for an `-a` name it does not know: one line,
/// with the closest names (by edit distance) where some are close, then
/// where to find the list. `list` is the whole `-a` value when `name` is
/// one part of a comma list.
fn unknown_algorithm(name: &str, list: Option<&str>) -> Error {
    let valid = algorithm_args(Personality::Mhash, GnuCompat::V9_11);
    let kinds: Vec<&str> = valid
        .iter()
        .copied()
        .filter(|n| matches!(choice_from_name(n), Some(AlgoChoice::Kind(_))))
        .collect();
    let family = match choice_from_name(name) {
        Some(AlgoChoice::Family(f)) => Some(f),
        _ => None,
    };
    let is_family = family.is_some();
    let mut msg = match list {
        Some(v) if is_family => format!(
            "{} in {} is a family, not an algorithm: a list names its members ({})",
            lq(name),
            lq(v),
            family
                .map(|f| f
                    .members()
                    .iter()
                    .map(|k| k.name())
                    .collect::<Vec<_>>()
                    .join(", "))
                .unwrap_or_default()
        ),
        Some(v) if name.is_empty() => format!("empty algorithm name in {}", lq(v)),
        Some(v) => format!("invalid algorithm {} in {}", lq(name), lq(v)),
        None => format!("invalid algorithm {}", lq(name)),
    };
    let near = suggest::closest(name, if list.is_some() { kinds } else { valid });
    if !near.is_empty() && !is_family {
        msg.push_str(&format!("; did you mean {}?", suggest::one_of(&near, lq)));
    }
    msg.push_str(&format!("\n{} lists every algorithm", lq("-a help")));
    Error::Usage {
        msg: Some(msg),
        detail: None,
        try_help: true,
    }
}

/// The native face's usage error for what clap refused: clap's first line,
/// and for an unknown long option the closest ones (by edit distance),
/// `unexpected argument '--chek' found; did you mean '--check'?`.
fn native_usage_error(cmd: &Command, e: &clap::Error) -> Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = e.to_string();
    let first = text.lines().next().unwrap_or("invalid usage");
    let mut msg = first.trim_start_matches("error: ").to_string();
    if e.kind() == ErrorKind::UnknownArgument
        && let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg)
        && let Some(typed) = arg.strip_prefix("--")
    {
        let typed = typed.split('=').next().unwrap_or(typed);
        let longs: Vec<&str> = cmd.get_arguments().filter_map(|a| a.get_long()).collect();
        let near = suggest::closest(typed, longs);
        if !near.is_empty() {
            let dashed: Vec<String> = near.iter().map(|n| format!("--{n}")).collect();
            let names: Vec<&str> = dashed.iter().map(String::as_str).collect();
            msg.push_str(&format!(
                "; did you mean {}?",
                suggest::one_of(&names, |n| format!("'{n}'"))
            ));
        }
    }
    Error::usage(msg)
}

/// The native face's `-a` help: every value it takes.
fn algorithm_help() -> String {
    format!(
        "digest algorithm (default sha256): {}; or a comma list, e.g. md5,sha256",
        algorithm_args(Personality::Mhash, GnuCompat::V9_11).join(" ")
    )
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
                return Err(unknown_algorithm(part, Some(v)));
            }
        }
        return Ok(());
    }
    if p == Personality::Mhash {
        return Err(unknown_algorithm(v, None));
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
    if !old {
        return match parse_length_9_11(v) {
            Ok(_) => Ok(()),
            Err(too_large) => Err(Error::fatal(format!(
                "invalid length: {}{}",
                lq(v),
                if too_large {
                    ": Value too large for defined data type"
                } else {
                    ""
                }
            ))),
        };
    }
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
/// `name` is `BLAKE2b` (`blake2b` in GNU 8.32).
fn too_long(v: &str, name: &str) -> Error {
    Error::fatal(format!(
        "invalid length: {}\nmaximum digest length for {} is 512 bits",
        lq(v),
        lq(name)
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
    /// `sha2` or `sha3`: the member `-l` names.
    Family(Family),
}

fn choice_from_name(name: &str) -> Option<AlgoChoice> {
    [Family::Sha2, Family::Sha3]
        .into_iter()
        .find(|f| f.name() == name)
        .map(AlgoChoice::Family)
        .or_else(|| AlgoKind::from_name(name).map(AlgoChoice::Kind))
}

/// Parses a `-l` value as GNU 9.11 does (found against it): leading
/// white space, then decimal digits after an optional `+`; a value past
/// `u64::MAX` is kept as `u64::MAX` (too long for every algorithm, checked
/// after the options, so a later `-l` wins); `-0` is 0 and any other
/// negative number is `Err(true)` ("Value too large for defined data
/// type"); anything else `Err(false)`.
fn parse_length_9_11(s: &str) -> Result<u64, bool> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    if let Some(neg) = t.strip_prefix('-') {
        if neg.is_empty() || !neg.bytes().all(|b| b.is_ascii_digit()) {
            return Err(false);
        }
        return if neg.bytes().all(|b| b == b'0') {
            Ok(0)
        } else {
            Err(true)
        };
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(false);
    }
    Ok(t.parse::<u64>().unwrap_or(u64::MAX))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the plain operands at the end of a native command line
    /// begin, and that what clap then parses, with those appended, is
    /// what it parses from the whole line.
    #[test]
    fn plain_operand_tail_stops_at_option_values() {
        let cmd = command(Personality::Mhash);
        let argv = |s: &str| -> Vec<OsString> { s.split(' ').map(OsString::from).collect() };
        let cases = [
            ("mhash a b c", 1),
            ("mhash -a md5 a b", 3),
            ("mhash -amd5 a b", 2),
            ("mhash --algorithm md5 a b", 3),
            ("mhash --algorithm=md5 a b", 2),
            ("mhash -r -j 4 a b", 4),
            ("mhash -rj4 a b", 2),
            ("mhash -rj 4 a b", 3),
            ("mhash --io read - a", 3),
            ("mhash a -r b", 3),
            ("mhash a b -r", 4),
            ("mhash -- -r -a x", 2),
            ("mhash --no-such-option x y", 3),
            ("mhash --tag --check a", 3),
        ];
        for (line, want) in cases {
            let args = argv(line);
            let tail = plain_operand_tail(&cmd, &args);
            assert_eq!(tail, want, "{line}");
            if tail < args.len() {
                let whole = cmd.clone().try_get_matches_from(&args).ok();
                let part = cmd.clone().try_get_matches_from(&args[..=tail]).ok();
                let files = |m: &Option<clap::ArgMatches>| -> Option<Vec<OsString>> {
                    m.as_ref().map(|m| {
                        m.get_many::<OsString>("files")
                            .map(|v| v.cloned().collect())
                            .unwrap_or_default()
                    })
                };
                let mut rebuilt = files(&part);
                if let Some(v) = rebuilt.as_mut() {
                    v.extend(args[tail + 1..].iter().cloned());
                }
                assert_eq!(files(&whole), rebuilt, "{line}");
            }
        }
    }

    #[test]
    fn getopt_reports_the_first_byte_of_a_multibyte_character() {
        // getopt reports the first byte of a multibyte character, raw.
        assert_eq!(message_bytes(&first_byte_char('\u{e9}').to_string()), b"\xc3");
        assert_eq!(first_byte_char('q'), 'q');
    }

    #[test]
    fn algorithm_lists_are_gnus() {
        // GNU coreutils cksum.c `algorithm_args` at 9.1 and at 9.4-9.11.
        assert_eq!(
            algorithm_args(Personality::Cksum, GnuCompat::V9_1).join(" "),
            "bsd sysv crc md5 sha1 sha224 sha256 sha384 sha512 blake2b sm3"
        );
        for compat in [GnuCompat::V9_4, GnuCompat::V9_11] {
            assert_eq!(
                algorithm_args(Personality::Cksum, compat).join(" "),
                "bsd sysv crc crc32b md5 sha1 sha224 sha256 sha384 sha512 sha2 sha3 blake2b sm3"
            );
        }
        let native = algorithm_args(Personality::Mhash, GnuCompat::V9_1);
        for k in AlgoKind::ALL {
            assert!(native.contains(&k.name()), "mhash -a takes {}", k.name());
        }
    }

    #[test]
    fn clap_definitions_are_consistent() {
        for (p, _) in Personality::GNU {
            command(p).debug_assert();
        }
        command(Personality::Mhash).debug_assert();
    }

    /// clap's native face and the option table agree: every option of the
    /// table the native face has is a clap argument with the table's long
    /// name, short letter and value arity, and every clap argument with a
    /// table name is that row's.
    #[test]
    fn clap_arguments_match_the_option_table() {
        let cmd = command(Personality::Mhash);
        for f in Flag::ALL {
            let s = f.spec();
            let arg = cmd.get_arguments().find(|a| a.get_long() == Some(s.long));
            if !f.in_scope(Personality::Mhash) {
                assert!(arg.is_none(), "{f:?}: not the native face's, yet a clap argument");
                continue;
            }
            let arg = arg.unwrap_or_else(|| panic!("{f:?}: no clap argument"));
            assert_eq!(arg.get_id(), s.long);
            assert_eq!(arg.get_long(), Some(s.long));
            assert_eq!(arg.get_short(), s.short, "{}", s.long);
            assert_eq!(arg.get_action().takes_values(), s.takes_value, "{}", s.long);
        }
        // The native face reads every option GNU's cksum table has.
        for f in getopt::long_options(Personality::Mhash, GnuCompat::V9_11) {
            assert!(cmd.get_arguments().any(|a| a.get_id() == f.long()), "{f:?}");
        }
    }
}
