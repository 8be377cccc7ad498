//! The `b3sum` personality: BLAKE3 with b3sum's flags that fit mhash
//! (b3sum 1.x: `-l/--length` in bytes, `--num-threads`, `--no-mmap`,
//! `--no-names`, `--raw`, `--tag`, `-c/--check`, `--quiet`). The keyed
//! modes (`--keyed`, `--derive-key`) are refused with a message: mhash
//! hashes files, it does not take secret keys.
//!
//! Output is b3sum's: `HEX  NAME`, `BLAKE3 (NAME) = HEX` with `--tag`,
//! names with a backslash or newline escaped and the line marked with a
//! leading `\` (as GNU does). Check mode prints `NAME: OK` / `NAME: FAILED`
//! and a WARNING summary, as b3sum and GNU do. Error messages use GNU's
//! words (b3sum's own quote the Rust error, e.g. `(os error 2)`).

use crate::algo::{Algorithm, BLAKE3_MAX_BYTES};
use crate::config::{
    CheckJob, Common, Config, Encoding, Format, GnuCompat, HashJob, InputList, IoMode, Job, Personality,
    ProgressMode, Style, Verbosity,
};
use crate::error::Error;
use clap::{Arg, ArgAction, Command};
use std::ffi::OsString;

/// The clap definition of the `b3sum` face.
pub fn command() -> Command {
    let flag =
        |id: &'static str, help: &'static str| Arg::new(id).long(id).action(ArgAction::SetTrue).help(help);
    Command::new("b3sum")
        .version(concat!("(mhash) ", env!("CARGO_PKG_VERSION")))
        .about("Print or check BLAKE3 checksums (mhash's b3sum personality)")
        .arg(
            Arg::new("file")
                .action(ArgAction::Append)
                .value_parser(clap::value_parser!(OsString))
                .help("Files to hash, or checkfiles to check; none or - means standard input"),
        )
        .arg(
            Arg::new("length")
                .long("length")
                .short('l')
                .value_name("LEN")
                .value_parser(clap::value_parser!(u64))
                .help("The number of output bytes, before hex encoding (default 32)"),
        )
        .arg(
            Arg::new("num-threads")
                .long("num-threads")
                .value_name("NUM")
                .value_parser(clap::value_parser!(u16))
                .help("The most threads to use (default: one per logical core; 0 = default)"),
        )
        .arg(
            Arg::new("keyed")
                .long("keyed")
                .action(ArgAction::SetTrue)
                .help("Keyed mode: not supported by mhash"),
        )
        .arg(
            Arg::new("derive-key")
                .long("derive-key")
                .value_name("CONTEXT")
                .help("Key derivation mode: not supported by mhash"),
        )
        .arg(flag(
            "no-mmap",
            "Read files with read(2) (mhash's default; mmap only with MHASH_IO=mmap)",
        ))
        .arg(flag("no-names", "Omit file names in the output"))
        .arg(flag(
            "raw",
            "Write raw output bytes to stdout, not hex; implies --no-names; one input only",
        ))
        .arg(flag("tag", "Write BSD-style checksum lines: BLAKE3 (NAME) = HEX"))
        .arg(
            Arg::new("check")
                .long("check")
                .short('c')
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["length", "raw", "no-names", "derive-key", "keyed"])
                .help("Read BLAKE3 sums from the FILEs and check them"),
        )
        .arg(
            Arg::new("quiet")
                .long("quiet")
                .action(ArgAction::SetTrue)
                .requires("check")
                .help("Skip printing OK for each successfully verified file; with --check"),
        )
}

/// Parses a `b3sum` command line (`args[0]` is `argv[0]`).
///
/// # Errors
/// [`Error::Usage`] for an invalid command line (clap's first line),
/// a `--length` of 0 or over [`BLAKE3_MAX_BYTES`], `--raw` with several
/// inputs, or a keyed mode.
pub fn parse(mut common: Common, args: Vec<OsString>) -> Result<Config, Error> {
    let m = match command().try_get_matches_from(&args) {
        Ok(m) => m,
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            return Ok(Config {
                common,
                job: Job::Print(e.to_string()),
            });
        }
        Err(e) => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid usage");
            return Err(Error::usage(first.trim_start_matches("error: ").to_string()));
        }
    };
    if m.get_flag("keyed") || m.get_one::<String>("derive-key").is_some() {
        return Err(Error::fatal(
            "--keyed and --derive-key are not supported by mhash (it hashes files, it takes no keys)",
        ));
    }
    let check = m.get_flag("check");
    let raw = m.get_flag("raw");
    let len = m.get_one::<u64>("length").copied().unwrap_or(32);
    if len == 0 || len > BLAKE3_MAX_BYTES {
        return Err(Error::fatal(format!(
            "--length must be 1..={BLAKE3_MAX_BYTES} bytes (mhash keeps digests in memory)"
        )));
    }
    let mut files: Vec<OsString> = m
        .get_many::<OsString>("file")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    let files_given = !files.is_empty();
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    if raw && files.len() > 1 {
        return Err(Error::fatal("Only one filename can be provided when using --raw"));
    }
    let algo = Algorithm::blake3(len);
    if let Some(&n) = m.get_one::<u16>("num-threads") {
        common.jobs = usize::from(n);
    }
    if m.get_flag("no-mmap") {
        common.io = IoMode::Read;
    }
    common.progress = ProgressMode::Never;
    let inputs = InputList {
        files,
        ..InputList::default()
    };
    let job = if check {
        Job::Check(CheckJob {
            algo: Some(algo),
            family: Vec::new(),
            family_name: None,
            length_given: false,
            dialect: super::stages::dialect(Personality::B3sum),
            stops_on_write_error: true,
            gnu_level: common.compat.algorithms(),
            lines_9_11: common.compat >= GnuCompat::V9_11,
            base64: common.compat >= GnuCompat::V9_4,
            lines_8_32: false,
            names: super::stages::status_names(common.compat),
            verbosity: if m.get_flag("quiet") {
                Verbosity::Quiet
            } else {
                Verbosity::Normal
            },
            strict: false,
            ignore_missing: false,
            json: false,
            debug: false,
            checksum_files: inputs,
            audit: None,
            signed: None,
            s3_report_root: None,
        })
    } else {
        Job::Hash(HashJob {
            algos: vec![algo],
            format: Format {
                style: if m.get_flag("tag") {
                    Style::Tagged
                } else {
                    Style::Untagged
                },
                binary: false,
                zero: false,
                escape_cr: true,
                encoding: if raw { Encoding::Raw } else { Encoding::Hex },
                legacy_name: files_given,
                no_names: raw || m.get_flag("no-names"),
                legacy_base64: false,
            },
            json: false,
            debug: false,
            store: None,
            tree: None,
            inputs,
            state: None,
        })
    };
    Ok(Config { common, job })
}
