//! From `argv` to a [`Config`], in the stages GNU's `main` has (as
//! ripgrep's `LowArgs` -> `HiArgs`):
//!
//! 1. [`lower`]: the getopt walk (GNU names) or clap's matches (the native
//!    face) into [`LowArgs`], the options in command-line order, with
//!    GNU's immediate checks (`-a`, `-l`, `--help`, `--version`) made as
//!    they are read;
//! 2. [`replay`]: GNU's option loop over them, into [`Typed`] (what was
//!    typed, `Option`s where GNU keeps `-1` sentinels);
//! 3. [`resolve_algorithm`] and [`post_checks`]: GNU's post-parse checks,
//!    in GNU's order;
//! 4. [`build`]: the [`Config`] with its one [`Job`].

use super::flags::Flag;
use super::{
    AlgoChoice, Native, check_algorithm, check_length_syntax, choice_from_name, command, events, help,
    not_multiple_of_8, parse_length, too_long,
};
use crate::algo::stores::Store;
use crate::algo::{AlgoKind, Algorithm, Family};
use crate::config::{
    CheckJob, Common, Config, Dialect, Encoding, Format, GnuCompat, HashJob, InputList, IoMode, Job,
    Personality, ProgressMode, StatusNames, Style, Tuning, Verbosity,
};
use crate::env::Env;
use crate::error::Error;
use crate::text::lossless;
use getopt::Opt;
use std::ffi::OsString;

use super::getopt;

/// Parses `args` (`args[0]` is `argv[0]`) for personality `p`, with the
/// environment `env`.
///
/// # Errors
/// [`Error::Usage`] with GNU's wording for every invalid command line.
pub fn parse(p: Personality, args: Vec<OsString>, env: &Env) -> Result<Config, Error> {
    let compat = GnuCompat::from_value(env.gnu_compat.as_deref()).map_err(|m| Error::Usage {
        msg: None,
        detail: Some(m),
        try_help: false,
    })?;
    let prog = args
        .first()
        .map(|a| lossless(a))
        .unwrap_or_else(|| p.name().to_string());
    let common = Common {
        personality: p,
        msg_prog: super::message_prog(p, &prog, compat),
        prog,
        compat,
        jobs: env
            .jobs
            .as_deref()
            .and_then(|v| v.trim().parse::<u16>().ok())
            .map_or(0, usize::from),
        io: env.io.as_deref().and_then(IoMode::from_name).unwrap_or_default(),
        tuning: Tuning {
            read_size: env
                .read_size
                .as_deref()
                .and_then(|v| v.trim().parse::<usize>().ok()),
            map_window: env
                .map_window
                .as_deref()
                .and_then(|v| v.trim().parse::<u64>().ok()),
            backend: env.backend.clone(),
            glibc_tunables: env.glibc_tunables.clone(),
            calibrate: env.calibrate.clone(),
        },
        progress: if p.is_gnu() {
            ProgressMode::Never
        } else {
            ProgressMode::Auto
        },
        shard: None,
        shard_run: String::new(),
    };
    if p == Personality::B3sum {
        return super::b3sum::parse(common, args);
    }
    if p == Personality::Shasum {
        return Ok(super::shasum::parse(common, args, env.posixly_correct));
    }
    if p == Personality::Mhash
        && let Some(job) = super::special_command(&args)
    {
        return Ok(Config { common, job: job? });
    }
    let low = lower(&common, env, args)?;
    if low.report {
        let job = Job::Backends(low.print.unwrap_or_default());
        return Ok(Config { common, job });
    }
    if let Some(text) = low.print {
        return Ok(Config {
            common,
            job: Job::Print(text),
        });
    }
    let old = compat <= GnuCompat::V9_1 && p.is_gnu();
    let mut typed = replay(p, &low.opts, p.is_gnu() && !old);
    // `--s3-report` is a check: -c's options (--quiet, --status, --strict,
    // --ignore-missing) apply.
    typed.check |= low.native.s3_report.is_some();
    // GNU 8.32's b2sum names the algorithm by its `-a` spelling.
    let b2_name = if compat.is_8_32() { "blake2b" } else { "BLAKE2b" };
    let algo = resolve_algorithm(p, old, b2_name, &typed)?;
    post_checks(p, old, &typed, algo, &low)?;
    let store = resolve_store(&typed, algo, &low)?;
    Ok(build(common, low, typed, algo, store))
}

/// Stage 1: what was typed, in command-line order.
struct LowArgs {
    /// The options, in order (values not yet applied).
    opts: Vec<Opt>,
    operands: Vec<OsString>,
    native: Native,
    /// `-j N` (mhash).
    jobs: Option<usize>,
    /// `--io HOW` (mhash).
    io: Option<IoMode>,
    /// `--help` / `--version`: the text to print.
    print: Option<String>,
    /// `--backends`, or `--version --verbose` (mhash).
    report: bool,
}

/// Plain operands at the end of a native command line beyond which clap
/// is not given them (see [`super::plain_operand_tail`]).
const PLAIN_TAIL_MIN: usize = 64;

/// Stage 1: the getopt walk (GNU names) or clap (native face), with the
/// checks GNU makes as it reads each option.
fn lower(common: &Common, env: &Env, mut args: Vec<OsString>) -> Result<LowArgs, Error> {
    let (p, compat) = (common.personality, common.compat);
    let old = compat <= GnuCompat::V9_1 && p.is_gnu();
    let mut print: Option<String> = None;
    let mut immediate = |o: &Opt| -> Result<bool, Error> {
        match o {
            Opt::Algorithm(v) if p == Personality::Mhash && v == "help" => {
                print = Some(super::algorithm_list());
                return Ok(true);
            }
            Opt::Algorithm(v) => check_algorithm(p, compat, v)?,
            Opt::Length(v) => check_length_syntax(v, old)?,
            Opt::Flag(Flag::Binary | Flag::Text) if old && p == Personality::Cksum => {
                return Err(Error::Usage {
                    msg: None,
                    detail: None,
                    try_help: true,
                });
            }
            Opt::Flag(Flag::Help) => {
                print = Some(if p == Personality::Mhash {
                    command(p).render_help().to_string()
                } else {
                    help::gnu_help(p, &common.prog, compat, env.help_markup)
                });
                return Ok(true);
            }
            Opt::Flag(Flag::Version) => {
                print = Some(help::gnu_version(p, compat));
                return Ok(true);
            }
            _ => {}
        }
        Ok(false)
    };
    if p.is_gnu() {
        let s = getopt::scan(p, compat, env.posixly_correct, args, &mut immediate)?;
        let native = Native {
            progress: ProgressMode::Never,
            ..Native::default()
        };
        return Ok(LowArgs {
            opts: s.opts,
            operands: s.operands,
            native,
            jobs: None,
            io: None,
            print,
            report: false,
        });
    }
    let cmd = command(p);
    // A long run of plain operands at the end (`mhash -a md5 *` on
    // thousands of files) bypasses clap, whose per-value work cost 3.5 ms
    // on 5,000 names (0.7 µs each, about a sixth of hashing them); clap
    // still sees the options and the first of those operands.
    // The tail is moved out, not copied (one allocation per name saved).
    let tail = super::plain_operand_tail(&cmd, &args);
    let rest = if args.len() - tail > PLAIN_TAIL_MIN {
        args.split_off(tail + 1)
    } else {
        Vec::new()
    };
    let mut cmd = cmd;
    let m = cmd
        .try_get_matches_from_mut(&args)
        .map_err(|e| super::native_usage_error(&cmd, &e))?;
    let opts = events(&m);
    for o in &opts {
        if immediate(o)? {
            break;
        }
    }
    if print.is_none() && m.get_flag("short-help") {
        print = Some(help::native_short_help());
    }
    let mut native = if print.is_none() {
        Native::from_matches(&m)?
    } else {
        Native::default()
    };
    if native.shard.is_some() {
        let value = m.get_one::<String>("shard").map_or("", String::as_str);
        native.shard_run = shard_fingerprint(args.iter().skip(1).chain(&rest), value);
    }
    let backends = m.get_flag("backends");
    let report = backends || (m.get_flag("verbose") && m.get_flag("version"));
    if backends && !m.get_flag("version") {
        print = None;
    }
    Ok(LowArgs {
        opts,
        operands: m
            .get_many::<OsString>("files")
            .map(|v| v.cloned().chain(rest).collect())
            .unwrap_or_default(),
        native,
        jobs: m.get_one::<u16>("jobs").map(|&j| usize::from(j)),
        io: m
            .get_one::<String>("io")
            .map(|v| IoMode::from_name(v).unwrap_or_default()),
        print,
        report,
    })
}

/// Stage 2: GNU's option loop, replayed in command-line order.
#[derive(Debug)]
struct Typed {
    /// `-a`, the last one.
    choice: Option<AlgoChoice>,
    /// `-a md5,sha256`: every algorithm after the first (mhash only).
    more_kinds: Vec<AlgoKind>,
    untagged_explicit: bool,
    /// `-l`: the value and how it was spelled.
    length: Option<(u64, String)>,
    /// `-b` (true) / `-t` (false); `--untagged` after `--tag` unsets it.
    binary: Option<bool>,
    /// `--tag` (true) / `--untagged` (false).
    tag: Option<bool>,
    tag_explicit: bool,
    verbosity: Verbosity,
    check: bool,
    strict: bool,
    ignore_missing: bool,
    zero: bool,
    base64: bool,
    raw: bool,
    debug: bool,
}

/// Stage 2: applies the options in order, as GNU's `while (getopt_long
/// ...)` loop does (later ones override earlier ones). `gnu_9_11`: GNU
/// 9.11's loop, where `--tag`/`--untagged` leave `-b`/`-t` alone (GNU 9.1
/// and the native face: `--tag` implies `-b`, `--untagged` after it undoes
/// that).
fn replay(p: Personality, opts: &[Opt], gnu_9_11: bool) -> Typed {
    let mut t = Typed {
        choice: None,
        more_kinds: Vec::new(),
        untagged_explicit: false,
        length: None,
        binary: None,
        tag: None,
        tag_explicit: false,
        verbosity: Verbosity::Normal,
        check: false,
        strict: false,
        ignore_missing: false,
        zero: false,
        base64: false,
        raw: false,
        debug: false,
    };
    for o in opts {
        match o {
            Opt::Algorithm(v) => {
                t.more_kinds.clear();
                if p == Personality::Mhash && v.contains(',') {
                    let mut kinds = Vec::new();
                    for part in v.split(',') {
                        if let Some(AlgoChoice::Kind(k)) = choice_from_name(part)
                            && !kinds.contains(&k)
                        {
                            kinds.push(k);
                        }
                    }
                    t.choice = kinds.first().map(|&k| AlgoChoice::Kind(k));
                    t.more_kinds = kinds.split_off(1.min(kinds.len()));
                } else {
                    t.choice = choice_from_name(v);
                }
            }
            Opt::Length(v) => {
                let n = if gnu_9_11 {
                    super::parse_length_9_11(v).unwrap_or(0)
                } else {
                    // Past u64::MAX: too long for every algorithm (a value
                    // that wrapped to 0 meant the full length, silently).
                    parse_length(v).unwrap_or_else(|overflow| if overflow { u64::MAX } else { 0 })
                };
                t.length = Some((n, v.clone()));
            }
            Opt::Flag(f) => match f {
                Flag::Binary => t.binary = Some(true),
                Flag::Text => t.binary = Some(false),
                Flag::Check => t.check = true,
                Flag::Quiet => t.verbosity = Verbosity::Quiet,
                Flag::Status => t.verbosity = Verbosity::Status,
                Flag::Warn => t.verbosity = Verbosity::Warn,
                Flag::Strict => t.strict = true,
                Flag::IgnoreMissing => t.ignore_missing = true,
                Flag::Tag => {
                    t.tag = Some(true);
                    if !gnu_9_11 {
                        t.binary = Some(true);
                    }
                    t.tag_explicit = true;
                }
                Flag::Untagged => {
                    t.untagged_explicit = true;
                    if t.tag == Some(true) && !gnu_9_11 {
                        t.binary = None;
                    }
                    t.tag = Some(false);
                }
                Flag::Zero => t.zero = true,
                Flag::Base64 => t.base64 = true,
                Flag::Raw => t.raw = true,
                Flag::Debug => t.debug = true,
                // sum: `-r` / `-s`, the last one wins.
                Flag::Bsd => t.choice = Some(AlgoChoice::Kind(AlgoKind::Bsd)),
                Flag::Sysv => t.choice = Some(AlgoChoice::Kind(AlgoKind::Sysv)),
                // Acted on as read (stage 1); the walk stops there. -a and
                // -l arrive as Opt::Algorithm / Opt::Length, never here.
                Flag::Help | Flag::Version | Flag::Algorithm | Flag::Length => {}
            },
        }
    }
    t
}

/// The algorithm a personality uses without `-a`.
fn default_choice(p: Personality) -> AlgoChoice {
    match p.fixed_algorithm() {
        Some(a) => AlgoChoice::Kind(a.kind),
        None if p == Personality::Cksum => AlgoChoice::Kind(AlgoKind::Crc),
        None => AlgoChoice::Kind(AlgoKind::Sha256),
    }
}

/// Stage 3: the algorithm and its length, with GNU's checks of `-l`
/// (`old`: GNU 9.1's order and messages).
fn resolve_algorithm(p: Personality, old: bool, b2_name: &str, t: &Typed) -> Result<Algorithm, Error> {
    let choice = t.choice.unwrap_or_else(|| default_choice(p));
    let len_bits = t.length.as_ref().map_or(0, |(n, _)| *n);
    let len_str = t.length.as_ref().map(|(_, s)| s.as_str()).unwrap_or_default();
    if old {
        // GNU 9.1: "--length is only supported" comes before the range check.
        if len_bits != 0 && choice != AlgoChoice::Kind(AlgoKind::Blake2b) {
            return Err(Error::fatal(
                "--length is only supported with --algorithm=blake2b",
            ));
        }
        if len_bits > 512 {
            return Err(too_long(len_str, b2_name));
        }
        return Ok(match choice {
            AlgoChoice::Kind(AlgoKind::Blake2b) => {
                Algorithm::blake2b(if len_bits == 0 { 512 } else { len_bits as u32 })
            }
            AlgoChoice::Kind(k) => Algorithm::new(k),
            // 9.1 has no sha2/sha3 choice (check_algorithm rejects them).
            _ => Algorithm::new(AlgoKind::Sha256),
        });
    }
    match choice {
        AlgoChoice::Family(f) => family_member(f, t, len_bits, len_str),
        AlgoChoice::Kind(k) if !t.more_kinds.is_empty() => {
            if len_bits != 0 {
                return Err(Error::fatal("--length is not supported with several algorithms"));
            }
            Ok(Algorithm::new(k))
        }
        AlgoChoice::Kind(AlgoKind::Blake3) => {
            // BLAKE3's XOF: any whole number of bytes (mhash -l is in bits,
            // as for BLAKE2b).
            if !len_bits.is_multiple_of(8) {
                return Err(not_multiple_of_8(len_str));
            }
            if len_bits / 8 > crate::algo::BLAKE3_MAX_BYTES {
                return Err(Error::fatal(format!(
                    "invalid length: {}\nmaximum digest length for {} is {} bits",
                    super::lq(len_str),
                    super::lq("BLAKE3"),
                    crate::algo::BLAKE3_MAX_BYTES * 8
                )));
            }
            Ok(Algorithm::blake3(if len_bits == 0 { 32 } else { len_bits / 8 }))
        }
        AlgoChoice::Kind(k) => {
            let natural = p == Personality::Mhash && len_bits == u64::from(k.max_bits());
            if len_bits != 0 && k != AlgoKind::Blake2b && p.takes_algorithm() && !natural {
                return Err(Error::fatal(
                    "--length is only supported with --algorithm blake2b, sha2, or sha3",
                ));
            }
            if len_bits > 512 {
                return Err(too_long(len_str, b2_name));
            }
            if !len_bits.is_multiple_of(8) {
                return Err(not_multiple_of_8(len_str));
            }
            Ok(if k == AlgoKind::Blake2b {
                Algorithm::blake2b(if len_bits == 0 { 512 } else { len_bits as u32 })
            } else {
                Algorithm::new(k)
            })
        }
    }
}

/// `-a sha2` / `-a sha3` with `-l` (GNU 9.8+): the member of that length;
/// without `-l`, 512 bits (check mode only: hash mode requires `-l`).
fn family_member(f: Family, t: &Typed, len_bits: u64, len_str: &str) -> Result<Algorithm, Error> {
    if t.length.is_none() && !t.check {
        return Err(Error::fatal(format!(
            "--algorithm={} requires specifying --length 224, 256, 384, or 512",
            f.name()
        )));
    }
    let bits = if t.length.is_none() { 512 } else { len_bits };
    match f.member(bits) {
        Some(kind) => Ok(Algorithm::new(kind)),
        None => Err(Error::fatal(format!(
            "invalid length: {}\ndigest length for {} must be 224, 256, 384, or 512",
            super::lq(len_str),
            super::lq(&f.name().to_ascii_uppercase())
        ))),
    }
}

/// Stage 3: GNU's post-parse checks of option combinations, in GNU's
/// order (coreutils cksum.c `main`), then the native face's own.
fn post_checks(p: Personality, old: bool, t: &Typed, algo: Algorithm, low: &LowArgs) -> Result<(), Error> {
    if low.native.sfv {
        if t.check {
            return Err(Error::usage(
                "the --sfv option is meaningful only when hashing (-c reads SFV files as they are)",
            ));
        }
        if algo.kind != AlgoKind::Crc32b || !t.more_kinds.is_empty() {
            return Err(Error::usage(
                "--sfv writes CRC-32 lines: it takes -a crc32b alone",
            ));
        }
        if t.base64 || t.raw || t.tag.is_some() || t.zero || low.native.json {
            return Err(Error::usage(
                "--sfv writes its own lines: not with --tag, --untagged, --base64, --raw, --zero or --json",
            ));
        }
    }
    if t.check && algo.kind.is_legacy() && (t.choice.is_some() || p != Personality::Cksum) {
        return Err(Error::fatal(if old {
            "--check is not supported with --algorithm={bsd,sysv,crc}"
        } else {
            "--check is not supported with --algorithm={bsd,sysv,crc,crc32b}"
        }));
    }
    if t.base64 && t.raw {
        return Err(Error::usage("--base64 and --raw are mutually exclusive"));
    }
    let tagged = t.tag.unwrap_or(p == Personality::Cksum);
    if p.is_gnu() && !old {
        gnu_9_11_checks(p, t, tagged)?;
        return native_checks(t, low);
    }
    if tagged && t.binary == Some(false) {
        return Err(Error::usage(if p == Personality::Cksum {
            "--text mode is only supported with --untagged"
        } else {
            "--tag does not support --text mode"
        }));
    }
    if t.zero && t.check {
        return Err(Error::usage(
            "the --zero option is not supported when verifying checksums",
        ));
    }
    if t.check && tagged && p != Personality::Cksum && t.tag_explicit {
        return Err(Error::usage(
            "the --tag option is meaningless when verifying checksums",
        ));
    }
    if t.check && t.binary.is_some() && !(old && p == Personality::Cksum) {
        return Err(Error::usage(
            "the --binary and --text options are meaningless when verifying checksums",
        ));
    }
    check_only_options(t)?;
    native_checks(t, low)
}

/// GNU's refusal of the check-only options without `-c`, in its order.
fn check_only_options(t: &Typed) -> Result<(), Error> {
    if t.check {
        return Ok(());
    }
    for (on, name) in [
        (t.ignore_missing, "ignore-missing"),
        (t.verbosity == Verbosity::Status, "status"),
        (t.verbosity == Verbosity::Warn, "warn"),
        (t.verbosity == Verbosity::Quiet, "quiet"),
        (t.strict, "strict"),
    ] {
        if on {
            return Err(Error::usage(format!(
                "the --{name} option is meaningful only when verifying checksums"
            )));
        }
    }
    Ok(())
}

/// GNU 9.11's checks of option combinations, in its order: `-z` with
/// `-c`, `--tag` with `-c`, `-b`/`-t` with `-c`, the check-only options
/// without `-c`, then `--text` with tagged output (in either order).
fn gnu_9_11_checks(p: Personality, t: &Typed, tagged: bool) -> Result<(), Error> {
    if t.zero && t.check {
        return Err(Error::usage(
            "the --zero option is not supported when verifying checksums",
        ));
    }
    if t.check && t.tag == Some(true) {
        return Err(Error::usage(
            "the --tag option is meaningless when verifying checksums",
        ));
    }
    if t.check && t.binary.is_some() {
        return Err(Error::usage(
            "the --binary and --text options are meaningless when verifying checksums",
        ));
    }
    check_only_options(t)?;
    if tagged && t.binary == Some(false) {
        return Err(Error::usage(if p == Personality::Cksum {
            "--text mode is only supported with --untagged"
        } else {
            "--tag does not support --text mode"
        }));
    }
    Ok(())
}

/// The native face's own checks, after GNU's.
fn native_checks(t: &Typed, low: &LowArgs) -> Result<(), Error> {
    let native = &low.native;
    if t.check && native.walk.is_some() {
        return Err(Error::usage(
            "the --recursive option is meaningful only when hashing",
        ));
    }
    if let Some(crate::config::AuditDir { dir, .. }) = &native.audit {
        if !t.check {
            return Err(Error::usage(
                "the --audit option is meaningful only when verifying checksums",
            ));
        }
        if low.operands.len() != 1 || !native.files_from.is_empty() {
            return Err(Error::usage(
                "--audit takes exactly one checksum file (its names are relative to DIR)",
            ));
        }
        if t.ignore_missing {
            return Err(Error::usage(
                "--ignore-missing and --audit are mutually exclusive (--audit reports missing files)",
            ));
        }
        if dir.is_empty() {
            return Err(Error::usage("--audit needs a directory, not an empty name"));
        }
    }
    if let Some(signed) = &native.signed {
        let flag = if signed.key.is_some() { "--key" } else { "--bundle" };
        if !t.check {
            return Err(Error::usage(if signed.key.is_some() {
                "the --key option is meaningful only when verifying checksums"
            } else {
                "the Sigstore options (--bundle, --certificate-identity, ...) are meaningful only \
                 when verifying checksums"
            }));
        }
        if native.audit.is_some() {
            return Err(Error::usage(format!("{flag} and --audit are mutually exclusive")));
        }
        let files = low.operands.len().max(1) + native.files_from.len();
        if signed.signature.is_some() && files > 1 {
            return Err(Error::usage(
                "--signature names one signature: it takes exactly one checksum file",
            ));
        }
        if !native.files_from.is_empty() && signed.sigstore.as_ref().is_some_and(|s| s.attestation) {
            return Err(Error::usage(
                "--attestation takes FILE operands, not --files-from",
            ));
        }
        if signed.sigstore.as_ref().is_some_and(|s| s.bundle.is_some()) && files > 1 {
            return Err(Error::usage(
                "--bundle names one bundle: it takes exactly one checksum file",
            ));
        }
    }
    if native.json && t.raw {
        return Err(Error::usage("--json and --raw are mutually exclusive"));
    }
    if native.s3_report.is_some() {
        if !low.operands.is_empty() || !native.files_from.is_empty() {
            return Err(Error::usage(
                "--s3-report reads one report and takes no FILE operands (the files are DIR/KEY, under --root)",
            ));
        }
        if native.audit.is_some() || native.signed.is_some() || native.walk.is_some() {
            return Err(Error::usage(
                "--s3-report does not go with --audit, --key or --recursive",
            ));
        }
    }
    if native.state.is_some() {
        if t.check {
            return Err(Error::usage(
                "the --state option is meaningful only when hashing (a check always reads every file)",
            ));
        }
        if native.store.is_some() || native.tree.is_some() {
            return Err(Error::usage(
                "--state records digests of files; it does not go with the object stores' or tree checksums",
            ));
        }
    }
    if native.shard.is_some() {
        let other = if let Some(signed) = &native.signed {
            Some(match &signed.sigstore {
                None => "--key".to_string(),
                Some(s) if s.attestation => "--attestation".to_string(),
                Some(s) if s.bundle.is_some() => "--bundle".to_string(),
                Some(s) => s.identity.flag("--certificate-identity"),
            })
        } else if native.s3_report.is_some() {
            Some("--s3-report".to_string())
        } else if native.store.is_some() {
            Some("the object stores' checksums".to_string())
        } else if native.tree.is_some() {
            Some("--go-h1 and --nar".to_string())
        } else if native.install_links.is_some() {
            Some("--install-links".to_string())
        } else {
            None
        };
        if let Some(o) = other {
            return Err(Error::usage(format!(
                "--shard does not work with {o} (shard the hashing or the checking of files instead)"
            )));
        }
    }
    if native.install_links.is_some() && !low.operands.is_empty() {
        return Err(Error::usage("--install-links takes no FILE operands"));
    }
    let many = low.operands.len() > 1 || native.walk.is_some() || !native.files_from.is_empty();
    if t.raw && many {
        return Err(Error::fatal(
            "the --raw option is not supported with multiple files",
        ));
    }
    if !t.more_kinds.is_empty() && !t.check {
        if t.tag == Some(false) && t.untagged_explicit {
            return Err(Error::usage(
                "--untagged is not supported with several algorithms (each line names its algorithm)",
            ));
        }
        if t.raw {
            return Err(Error::usage("--raw is not supported with several algorithms"));
        }
    }
    Ok(())
}

/// Stage 3 (native face): the object store's checksum the options ask
/// for, checked against the algorithm and the other options.
fn resolve_store(t: &Typed, algo: Algorithm, low: &LowArgs) -> Result<Option<Store>, Error> {
    use super::StoreFlag;
    let Some(o) = low.native.store else {
        return Ok(None);
    };
    let opt = o.flag.option();
    if t.check {
        return Err(Error::usage(format!(
            "the {opt} option is meaningful only when hashing"
        )));
    }
    if t.raw {
        return Err(Error::usage(format!("--raw is not supported with {opt}")));
    }
    if !t.more_kinds.is_empty() {
        return Err(Error::usage(format!("{opt} takes one algorithm, not a list")));
    }
    let fixed = match o.flag {
        StoreFlag::S3Etag => Some(("MD5", AlgoKind::Md5)),
        StoreFlag::Gcs => Some(("CRC-32C and MD5", AlgoKind::Md5)),
        StoreFlag::Hdfs | StoreFlag::HdfsComposite => Some(("CRC-32C", AlgoKind::Crc32c)),
        StoreFlag::S3Composite => None,
    };
    if let Some((what, kind)) = fixed
        && t.choice.is_some()
        && algo.kind != kind
    {
        return Err(Error::usage(format!(
            "{opt} computes {what}; it takes no -a {}",
            algo.name()
        )));
    }
    Ok(Some(match o.flag {
        StoreFlag::S3Etag => Store::S3Etag(o.multipart),
        StoreFlag::Gcs => Store::Gcs,
        StoreFlag::Hdfs => Store::HdfsMd5(o.hdfs),
        StoreFlag::HdfsComposite => Store::HdfsComposite(o.hdfs),
        StoreFlag::S3Composite => {
            if algo.kind == AlgoKind::Crc64Nvme {
                return Err(Error::usage(
                    "S3 has no composite CRC-64/NVME checksum (it is full-object only): \
                     'mhash -a crc64nvme --base64 FILE' prints it",
                ));
            }
            if !Store::s3_composite_algorithms().contains(&algo.kind) {
                return Err(Error::usage(format!(
                    "--s3-composite takes -a crc32b (S3's CRC32), crc32c, sha1 or sha256, not {}",
                    algo.name()
                )));
            }
            Store::S3Composite {
                algo: algo.kind,
                multipart: o.multipart,
            }
        }
    }))
}

/// Stage 4: the configuration, with the one job the options ask for.
fn build(mut common: Common, low: LowArgs, t: Typed, algo: Algorithm, store: Option<Store>) -> Config {
    let p = common.personality;
    common.jobs = low.jobs.unwrap_or(common.jobs);
    common.io = low.io.unwrap_or(common.io);
    common.progress = low.native.progress;
    common.shard = low.native.shard;
    common.shard_run = low.native.shard_run.clone();
    let native = low.native;
    if let Some((dir, opts)) = native.install_links {
        return Config {
            common,
            job: Job::InstallLinks { dir, opts },
        };
    }
    let files_given = !low.operands.is_empty() || !native.files_from.is_empty();
    let several = low.operands.len() > 1;
    let mut files = low.operands;
    let s3_report_root = native.s3_report.as_ref().map(|(_, root)| root.clone());
    if let Some((report, _)) = &native.s3_report {
        files = vec![report.clone()];
    }
    let mut native = native;
    // `--attestation BUNDLE FILE...`: BUNDLE is the checksum file, the
    // operands the files checked against its subjects.
    if let Some(policy) = native.signed.as_mut().and_then(|s| s.sigstore.as_mut())
        && policy.attestation
    {
        let bundle = std::mem::take(&mut policy.only);
        policy.only = files.into_iter().map(std::path::PathBuf::from).collect();
        files = bundle
            .into_iter()
            .map(std::path::PathBuf::into_os_string)
            .collect();
    }
    if files.is_empty() && native.files_from.is_empty() {
        files.push(OsString::from("-"));
    }
    let inputs = InputList {
        files,
        files_from: native.files_from,
        null: native.null,
        walk: native.walk,
    };
    let encoding = if t.raw {
        Encoding::Raw
    } else if t.base64 {
        Encoding::Base64
    } else {
        Encoding::Hex
    };
    if t.check {
        let job = check_job(
            &common,
            &t,
            algo,
            (native.json, native.audit, native.signed, s3_report_root),
            inputs,
        );
        return Config {
            common,
            job: Job::Check(job),
        };
    }
    // Several algorithms: each line names its algorithm. So does a
    // non-cryptographic one (mhash) whose bare digest `mhash -c` could not
    // tell (never inferred from a length): XXH128, and XXH3 in base64 (in
    // hex, xxhsum's `XXH3_` prefix names it); xxhsum -c reads the tagged
    // lines too. And so does a digest of a length `mhash -c` infers
    // nothing at (`-l 8`: a word is not a digest). `--untagged` still
    // writes them bare.
    let untellable = p == Personality::Mhash
        && ((algo.kind.info().class == crate::algo::Class::NonCryptographic
            && !(algo.kind.info().hex_prefix.is_some() && encoding == Encoding::Hex))
            || (algo.kind.info().class == crate::algo::Class::Cryptographic
                && !crate::algo::STANDARD_DIGEST_LENGTHS.contains(&algo.digest_len())));
    let tagged = !t.more_kinds.is_empty() || t.tag.unwrap_or(p == Personality::Cksum || untellable);
    let mut algos = vec![algo];
    algos.extend(t.more_kinds.iter().map(|&k| Algorithm::new(k)));
    let job = HashJob {
        algos,
        format: Format {
            style: if native.sfv {
                Style::Sfv
            } else if tagged {
                Style::Tagged
            } else {
                Style::Untagged
            },
            // GNU built with O_BINARY (MSYS2, Git for Windows) marks
            // every line `*` unless told `-t`.
            binary: t.binary.unwrap_or(p.is_gnu() && crate::os::BINARY_BY_DEFAULT),
            zero: t.zero,
            escape_cr: !(common.compat.is_8_32() && p.is_gnu()),
            encoding,
            // GNU 8.32's BSD `sum` names a file only when there are several.
            legacy_name: if common.compat.is_8_32() && p == Personality::Sum && algo.kind == AlgoKind::Bsd {
                several
            } else {
                files_given
            },
            no_names: false,
            legacy_base64: p == Personality::Mhash,
        },
        json: native.json,
        debug: t.debug,
        store,
        tree: native.tree,
        inputs,
        state: native.state,
    };
    Config {
        common,
        job: Job::Hash(job),
    }
}

/// The check job: the algorithm (or family) the lines may use, and what
/// the personality and GNU release make of them.
fn check_job(
    common: &Common,
    t: &Typed,
    algo: Algorithm,
    (json, audit, signed, s3_report_root): (
        bool,
        Option<crate::config::AuditDir>,
        Option<crate::config::Signed>,
        Option<OsString>,
    ),
    files: InputList,
) -> CheckJob {
    let p = common.personality;
    let family = match t.choice {
        Some(AlgoChoice::Family(f)) if t.length.is_none() => f.members(),
        _ if !t.more_kinds.is_empty() => {
            let mut v = vec![algo.kind];
            v.extend(&t.more_kinds);
            v
        }
        _ => Vec::new(),
    };
    let algo = if (t.choice.is_none() && p.takes_algorithm()) || !family.is_empty() {
        None
    } else {
        Some(algo)
    };
    CheckJob {
        algo,
        family,
        family_name: match t.choice {
            Some(AlgoChoice::Family(Family::Sha2)) => Some("SHA2"),
            Some(AlgoChoice::Family(Family::Sha3)) => Some("SHA3"),
            _ => None,
        },
        length_given: t.length.as_ref().is_some_and(|(n, _)| *n != 0),
        dialect: dialect(p),
        stops_on_write_error: p == Personality::Mhash,
        gnu_level: common.compat.algorithms(),
        lines_9_11: common.compat >= GnuCompat::V9_11,
        // GNU 9.11's md5sum, sha*sum and b2sum read hex digests only.
        base64: (common.compat >= GnuCompat::V9_4
            && !(dialect(p) == Dialect::Single && common.compat >= GnuCompat::V9_11))
            || p == Personality::Mhash,
        lines_8_32: common.compat.is_8_32() && p.is_gnu(),
        names: status_names(common.compat),
        verbosity: t.verbosity,
        strict: t.strict,
        ignore_missing: t.ignore_missing,
        json,
        debug: t.debug && p == Personality::Mhash,
        checksum_files: files,
        audit: audit.map(Box::new),
        signed: signed.map(Box::new),
        s3_report_root,
    }
}

/// The checksum-line dialect of a personality.
pub(super) fn dialect(p: Personality) -> Dialect {
    match p {
        Personality::Mhash => Dialect::Native,
        Personality::Cksum => Dialect::Cksum,
        _ => Dialect::Single,
    }
}

/// How a GNU release shows names in check-mode status lines.
pub(super) fn status_names(compat: GnuCompat) -> StatusNames {
    match compat {
        GnuCompat::V8_32 => StatusNames::EscapeNewlineOnly,
        GnuCompat::V9_1 => StatusNames::EscapeNewline,
        GnuCompat::V9_4 => StatusNames::Escape,
        GnuCompat::V9_11 => StatusNames::ShellQuote,
    }
}

/// `--shard`'s run fingerprint ([`Common::shard_run`]): the first 8 bytes
/// of SHA-256 over mhash's version and the arguments `args` (without
/// `argv[0]`, which differs between machines), each length-prefixed, with
/// `--shard VALUE` taken out (`--shard=VALUE` and clap's unambiguous
/// prefixes such as `--sha VALUE` too: an option that is a prefix of
/// `shard` whose value is `value`).
fn shard_fingerprint<'a>(args: impl Iterator<Item = &'a OsString>, value: &str) -> String {
    use sha2::Digest as _;
    let mut h = sha2::Sha256::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    let mut args = args.peekable();
    let mut operands = false;
    while let Some(a) = args.next() {
        let s = a.to_string_lossy();
        if !operands && s == "--" {
            operands = true;
        } else if !operands && let Some(opt) = s.strip_prefix("--") {
            let (name, inline) = match opt.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (opt, None),
            };
            if name.len() >= 2 && "shard".starts_with(name) {
                match inline {
                    Some(v) if v == value => continue,
                    None if args.peek().is_some_and(|v| v.to_string_lossy() == value) => {
                        args.next();
                        continue;
                    }
                    _ => {}
                }
            }
        }
        let bytes = crate::os::os_bytes(a);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    hex::encode(&h.finalize()[..8])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::flags::Flag;

    const COMPATS: [GnuCompat; 4] = [
        GnuCompat::V8_32,
        GnuCompat::V9_1,
        GnuCompat::V9_4,
        GnuCompat::V9_11,
    ];

    /// Stages 1 and 2 for a GNU name: the getopt walk, then the replay.
    fn gnu_typed(p: Personality, compat: GnuCompat, argv: &[String]) -> Typed {
        let mut v = vec![OsString::from(p.name())];
        v.extend(argv.iter().map(OsString::from));
        let s = getopt::scan::<getopt::GetoptError>(p, compat, false, v, |_| Ok(false))
            .unwrap_or_else(|e| panic!("{p:?} {compat:?} {argv:?}: {}", e.0));
        let old = compat <= GnuCompat::V9_1;
        replay(p, &s.opts, !old)
    }

    /// Stages 1 and 2 for the native face: clap, then the replay.
    fn native_typed(argv: &[String]) -> Typed {
        let mut v = vec![OsString::from("mhash")];
        v.extend(argv.iter().map(OsString::from));
        let m = command(Personality::Mhash)
            .try_get_matches_from(v)
            .unwrap_or_else(|e| panic!("{argv:?}: {e}"));
        replay(Personality::Mhash, &events(&m), false)
    }

    /// The spellings of an option: `--long`, `--long=V`, `--long V`,
    /// `-x`, `-xV`, `-x V`, where the personality at the release has them.
    fn spellings(f: Flag, long: bool, short: bool, value: Option<&str>) -> Vec<Vec<String>> {
        let s = f.spec();
        let mut out = Vec::new();
        if long {
            match value {
                Some(v) => {
                    out.push(vec![format!("--{}={v}", s.long)]);
                    out.push(vec![format!("--{}", s.long), v.to_string()]);
                }
                None => out.push(vec![format!("--{}", s.long)]),
            }
        }
        if let (true, Some(c)) = (short, s.short) {
            match value {
                Some(v) => {
                    out.push(vec![format!("-{c}{v}")]);
                    out.push(vec![format!("-{c}"), v.to_string()]);
                }
                None => out.push(vec![format!("-{c}")]),
            }
        }
        out
    }

    /// One row per option of the table: the personality that shows it,
    /// the options typed before it, its value, and what it must set. Each
    /// spelling is checked at each GNU release that has it, and under the
    /// native face when the option is the native face's too. (`--help` and
    /// `--version` act as they are read: `help_and_version_print_at_once`.)
    #[test]
    fn each_option_sets_what_gnu_sets() {
        type Want = fn(&Typed) -> bool;
        for f in Flag::ALL {
            let spec = f.spec();
            let (p, before, value, want): (Personality, &[&str], Option<&str>, Want) = match f {
                Flag::Algorithm => (Personality::Cksum, &[], Some("md5"), |t| {
                    t.choice == Some(AlgoChoice::Kind(AlgoKind::Md5))
                }),
                Flag::Length => (Personality::B2sum, &[], Some("256"), |t| {
                    t.length == Some((256, "256".to_string()))
                }),
                Flag::Binary => (Personality::Md5sum, &["-t"], None, |t| t.binary == Some(true)),
                Flag::Text => (Personality::Md5sum, &["-b"], None, |t| t.binary == Some(false)),
                Flag::Check => (Personality::Sha256sum, &[], None, |t| t.check),
                Flag::IgnoreMissing => (Personality::Sha1sum, &[], None, |t| t.ignore_missing),
                Flag::Quiet => (Personality::Md5sum, &["--warn"], None, |t| {
                    t.verbosity == Verbosity::Quiet
                }),
                Flag::Status => (Personality::Md5sum, &["--quiet"], None, |t| {
                    t.verbosity == Verbosity::Status
                }),
                Flag::Warn => (Personality::Md5sum, &["--status"], None, |t| {
                    t.verbosity == Verbosity::Warn
                }),
                Flag::Strict => (Personality::Sha512sum, &[], None, |t| t.strict),
                Flag::Tag => (Personality::Sha224sum, &[], None, |t| {
                    t.tag == Some(true) && t.tag_explicit
                }),
                Flag::Zero => (Personality::Sha384sum, &[], None, |t| t.zero),
                Flag::Untagged => (Personality::Cksum, &["--tag"], None, |t| {
                    t.tag == Some(false) && t.untagged_explicit
                }),
                Flag::Base64 => (Personality::Cksum, &[], None, |t| t.base64),
                Flag::Raw => (Personality::Cksum, &[], None, |t| t.raw),
                Flag::Debug => (Personality::Cksum, &[], None, |t| t.debug),
                Flag::Bsd => (Personality::Sum, &["-s"], None, |t| {
                    t.choice == Some(AlgoChoice::Kind(AlgoKind::Bsd))
                }),
                Flag::Sysv => (Personality::Sum, &["-r"], None, |t| {
                    t.choice == Some(AlgoChoice::Kind(AlgoKind::Sysv))
                }),
                Flag::Help | Flag::Version => continue,
            };
            let mut checked = 0;
            for compat in COMPATS {
                let long = getopt::long_options(p, compat).contains(&f);
                let short = spec
                    .short
                    .is_some_and(|c| getopt::short_option(p, compat, c) == Some(f));
                for argv in spellings(f, long, short, value) {
                    let mut line: Vec<String> = before.iter().map(|s| s.to_string()).collect();
                    line.extend(argv);
                    let before_only: Vec<String> = before.iter().map(|s| s.to_string()).collect();
                    assert!(
                        !want(&gnu_typed(p, compat, &before_only)),
                        "{f:?}: set without it"
                    );
                    assert!(want(&gnu_typed(p, compat, &line)), "{p:?} {compat:?} {line:?}");
                    checked += 1;
                }
            }
            assert!(checked > 0, "{f:?}: no GNU release of {p:?} reads it");
            if f.in_scope(Personality::Mhash) {
                for argv in spellings(f, true, true, value) {
                    let mut line: Vec<String> = before.iter().map(|s| s.to_string()).collect();
                    line.extend(argv);
                    assert!(want(&native_typed(&line)), "mhash {line:?}");
                }
            }
        }
    }

    /// `--help` and `--version` print GNU's texts at once, ignoring what
    /// follows (`--help --bogus` is help), under every GNU name.
    #[test]
    fn help_and_version_print_at_once() {
        for (p, name) in Personality::GNU {
            let env = Env::default();
            let args = |a: &[&str]| -> Vec<OsString> {
                std::iter::once(name)
                    .chain(a.iter().copied())
                    .map(OsString::from)
                    .collect()
            };
            let print = |a: &[&str]| match parse(p, args(a), &env).map(|c| c.job) {
                Ok(Job::Print(text)) => text,
                other => panic!("{name} {a:?}: {other:?}"),
            };
            let help = help::gnu_help(p, name, GnuCompat::V9_11, false);
            let version = help::gnu_version(p, GnuCompat::V9_11);
            assert_eq!(print(&["--help", "--bogus"]), help, "{name}");
            assert_eq!(print(&["--he"]), help, "{name}");
            assert_eq!(print(&["--version", "-x"]), version, "{name}");
            assert_eq!(print(&["--vers"]), version, "{name}");
        }
    }
}
