//! The configuration: what a run does, validated. The CLI layer
//! ([`crate::cli`]) builds it from `argv` and the environment
//! ([`crate::env::Env`]); [`crate::app`] runs it. A [`Config`] is the
//! settings every job shares ([`Common`]) and one [`Job`], each job holding
//! only what it needs.
//!
//! It imports the algorithm registry and the walk's options only.

mod personality;

pub use personality::Personality;

use crate::algo::{AlgoKind, Algorithm};
use std::ffi::OsString;

/// Everything a run needs, validated.
#[derive(Clone, Debug)]
pub struct Config {
    /// What every job shares.
    pub common: Common,
    /// What the run does.
    pub job: Job,
}

/// The settings every job shares.
#[derive(Clone, Debug)]
pub struct Common {
    /// Which tool mhash is being.
    pub personality: Personality,
    /// `argv[0]` as invoked: the prefix of every diagnostic (GNU's
    /// `program_name`), as [`crate::text::lossless`] text.
    pub prog: String,
    /// The prefix of diagnostics other than getopt's ([`crate::cli`]'s
    /// `message_prog`: GNU 9.11 prints the bare name there).
    pub msg_prog: String,
    /// The GNU release whose differences are reproduced.
    pub compat: GnuCompat,
    /// Worker threads (`-j N`, else `MHASH_JOBS`); 0 = one per core.
    pub jobs: usize,
    /// How files are read (`--io`, else `MHASH_IO`; default auto).
    pub io: IoMode,
    /// The settings for measuring and debugging the engine.
    pub tuning: Tuning,
    /// When a progress bar may show; always `Never` under GNU names.
    pub progress: ProgressMode,
    /// `--shard I/N` (native face): this run's share of the inputs, its
    /// output framed for `mhash merge` ([`crate::report::shard`]).
    pub shard: Option<crate::walk::Shard>,
    /// `--shard`: the run's fingerprint (16 hex digits), the same in every
    /// shard of one run: a hash of mhash's version and the arguments with
    /// the `--shard` value taken out. `mhash merge` refuses shards whose
    /// fingerprints differ. Empty without `--shard`.
    pub shard_run: String,
}

/// The run's settings for measuring and debugging the engine, from the
/// environment ([`crate::env::Env`]); `app::run` installs them once, before
/// any input is read or any backend chosen, and nothing changes them
/// after. Unset, each is the engine's default.
#[derive(Clone, Debug, Default)]
pub struct Tuning {
    /// The read size in bytes (`MHASH_READ_SIZE`), or `None` for the I/O
    /// layer's default (`io::READ_BUF_LEN`).
    pub read_size: Option<usize>,
    /// Bytes of a large BLAKE3 file each worker maps at a time, its piece
    /// (`MHASH_MAP_WINDOW`),
    /// or `None` for the I/O layer's default (`io::tree_piece`).
    pub map_window: Option<u64>,
    /// `MHASH_BACKEND`: `portable`, or a backend name to force wherever an
    /// algorithm has it.
    pub backend: Option<std::ffi::OsString>,
    /// `GLIBC_TUNABLES`: CPU features turned off (`glibc.cpu.hwcaps=-AVX2`).
    pub glibc_tunables: Option<String>,
    /// `MHASH_CALIBRATE`: `never`, `always`, or the default (large inputs).
    pub calibrate: Option<String>,
}

/// What the run does.
#[derive(Clone, Debug)]
pub enum Job {
    /// Print a checksum line per input.
    Hash(HashJob),
    /// Read checksum files and verify the files they list (`-c`).
    Check(CheckJob),
    /// `--install-links DIR` (with `--force`, `--relative`,
    /// `--with-b3sum`): make the GNU-named links.
    InstallLinks {
        /// Where the links go.
        dir: std::path::PathBuf,
        /// How they are made.
        opts: LinkOpts,
    },
    /// Print this text on standard output (`--help`, `--version`, `mhash
    /// man`, `mhash completions`, `mhash bench`'s help) and exit 0.
    Print(String),
    /// `mhash --backends` / `--version --verbose`: the backend report,
    /// after this text (the version lines, or nothing).
    Backends(String),
    /// `mhash bench`: measure every backend, print the report.
    Bench(crate::bench::BenchOpts),
    /// `mhash merge [FILE]...`: the outputs of `--shard` runs (`-`:
    /// standard input) merged into one run's output and exit status.
    Merge(Vec<std::ffi::OsString>),
    /// Perl `shasum` 6.02: its own hash and check loops (`crate::check::shasum`).
    Shasum(ShasumJob),
}

/// A Perl `shasum` 6.02 run (`/usr/bin/shasum`, Digest::SHA 6.02), parsed
/// by `crate::cli::shasum`. Its check lines, per-line reading modes,
/// messages and exit statuses (a checksum file that cannot be opened ends
/// the run with its errno as the status) are not GNU's, so it has a job of
/// its own rather than switches through GNU's loops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShasumJob {
    /// Write `stdout` and `stderr` as they are and exit with `status`:
    /// `-h`, `-v`, and every usage error (Getopt::Long's warnings, then
    /// "Type shasum -h for help").
    Exit {
        /// Bytes for standard output.
        stdout: Vec<u8>,
        /// Bytes for standard error.
        stderr: Vec<u8>,
        /// The exit status (0 or 1).
        status: i32,
    },
    /// Print a checksum line per file (`HEX MFILE`, or `SHAn (FILE) = HEX`
    /// with `--tag`).
    Hash {
        /// shasum's algorithm number: 1, 224, 256, 384, 512, 512224 or 512256.
        alg: u32,
        /// How each file is read (its mode character in the line).
        mode: ShasumRead,
        /// `--tag`: BSD-style lines.
        tag: bool,
        /// The operands (never empty: `-` is standard input).
        files: Vec<OsString>,
    },
    /// `-c`: verify each checksum file.
    Check {
        /// The `-a` number: only says whether 56- and 64-digit sums are
        /// SHA-512/224 and SHA-512/256 (shasum's `%len2alg`).
        alg: u32,
        /// `-w`, `-s`, `-q`, `--strict`, `--ignore-missing`.
        opts: ShasumCheck,
        /// The checksum files (never empty: `-` is standard input).
        files: Vec<OsString>,
    },
}

/// The algorithm numbers Perl `shasum` 6.02 accepts (its `%isAlg`).
pub const SHASUM_ALGORITHMS: [u32; 7] = [1, 224, 256, 384, 512, 512224, 512256];

/// How Perl `shasum` reads a file (Digest::SHA `addfile` modes), with the
/// character that marks it in a checksum line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShasumRead {
    /// `-t` (the default), ` `: the bytes as they are (on Unix).
    Text,
    /// `-b`, `*`: the bytes as they are.
    Binary,
    /// `-U`, `U`: CR LF and lone CR read as LF, when Perl's `-T` calls the
    /// file text.
    Universal,
    /// `-0`, `^`: the `0`/`1` characters are the message's bits.
    Bits,
}

impl ShasumRead {
    /// The mode character of a checksum line (`*`, ` `, `U`, `^`).
    pub fn symbol(self) -> u8 {
        match self {
            ShasumRead::Text => b' ',
            ShasumRead::Binary => b'*',
            ShasumRead::Universal => b'U',
            ShasumRead::Bits => b'^',
        }
    }
}

/// shasum's check-mode switches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShasumCheck {
    /// `-w`: warn about each improperly formatted line.
    pub warn: bool,
    /// `-s`: print nothing on standard output, nor the summary warnings.
    pub status: bool,
    /// `-q`: no `OK` lines.
    pub quiet: bool,
    /// `--strict`: an improperly formatted line fails the file.
    pub strict: bool,
    /// `--ignore-missing`: lines whose file does not exist are skipped.
    pub ignore_missing: bool,
}

/// The inputs of a run: operands, then the lists of `--files-from`.
#[derive(Clone, Debug, Default)]
pub struct InputList {
    /// The operands, as bytes; `-` is standard input. Never empty unless
    /// `--files-from` lists are given.
    pub files: Vec<OsString>,
    /// `--files-from` lists, read after the operands (native face only).
    pub files_from: Vec<OsString>,
    /// `-0`: the lists' names end with NUL, not newline.
    pub null: bool,
    /// `-r`: directories among the inputs are walked (hash mode, native
    /// face only).
    pub walk: Option<crate::walk::Walk>,
}

/// Hash mode.
#[derive(Clone, Debug)]
pub struct HashJob {
    /// The algorithms, never empty: `-a md5,sha256,...` (mhash) reads
    /// each file once for all of them, a line each, in this order.
    pub algos: Vec<Algorithm>,
    /// How each line is printed.
    pub format: Format,
    /// `--json`: JSON Lines instead of checksum lines (native face only).
    pub json: bool,
    /// `--debug`: report which implementation ran.
    pub debug: bool,
    /// `--s3-etag`, `--s3-composite`, `--gcs`, `--hdfs`, `--hdfs-composite`
    /// (native face only): print the checksum that object store reports
    /// for each input instead of `algos`' lines.
    pub store: Option<crate::algo::stores::Store>,
    /// `--go-h1`, `--nar` (native face only): one digest per directory
    /// operand for the whole tree under it ([`crate::tree`]).
    pub tree: Option<TreeHash>,
    /// What to hash.
    pub inputs: InputList,
    /// `--state FILE` (native face only): digests of unchanged files are
    /// taken from FILE, and what is read is recorded there.
    pub state: Option<StateFile>,
}

/// `--state FILE` and `--rescan` ([`crate::state`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateFile {
    /// The state file.
    pub path: std::path::PathBuf,
    /// How much unchanged data to read again, oldest first.
    pub rescan: crate::state::Rescan,
}

/// A digest of a whole tree, as another tool computes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeHash {
    /// Go's `h1:` dirhash (`--go-h1`), the names under `prefix`
    /// (`--go-prefix MODULE@VERSION`; empty: relative names).
    GoH1 {
        /// The prefix of every name (`golang.org/x/mod@v0.1.0`).
        prefix: String,
    },
    /// Nix's NAR hash (`--nar`), written as `--nar-format` says.
    Nar(NarFormat),
}

/// How `--install-links` makes its links.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkOpts {
    /// `--force`: replace files that are already there.
    pub force: bool,
    /// `--relative`: symbolic links whose target is relative to the
    /// link's directory (`../lib/mhash`), so that the two directories can
    /// move together; Unix only (Windows' links are hard links).
    pub relative: bool,
    /// `--with-b3sum`: also a `b3sum` link (mhash's b3sum face), which
    /// shadows any other `b3sum` later on `PATH`.
    pub b3sum: bool,
}

/// How a NAR hash is written (`nix hash path`'s `--sri`, `--base32`,
/// `--base16`, `--base64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NarFormat {
    /// `sha256-<base64>`, Nix's default (SRI, W3C Subresource Integrity).
    Sri,
    /// Nix's own base-32 (`nix32`: digits and lower-case letters without
    /// `e o u t`, the bytes read from the end).
    Nix32,
    /// Lower-case hex.
    Base16,
    /// Plain base64, no `sha256-`.
    Base64,
}

impl NarFormat {
    /// The names `--nar-format` takes, one per format (the completion
    /// scripts offer these; [`NarFormat::from_name`] also takes `base32`
    /// and `hex`).
    pub const NAMES: [&'static str; 4] = ["sri", "nix32", "base16", "base64"];

    /// Parses `sri`, `nix32` (or `base32`), `base16` (or `hex`), `base64`.
    pub fn from_name(s: &str) -> Option<NarFormat> {
        Some(match s {
            "sri" => NarFormat::Sri,
            "nix32" | "base32" => NarFormat::Nix32,
            "base16" | "hex" => NarFormat::Base16,
            "base64" => NarFormat::Base64,
            _ => return None,
        })
    }
}

/// Which checksum-line dialect check mode reads, and how it infers an
/// algorithm: fixed by the personality when the configuration is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `md5sum -c`, ..., `b2sum -c`: that one algorithm.
    Single,
    /// `cksum -c`: any GNU tag; untagged lines need `-a`.
    Cksum,
    /// `mhash -c`: any tag; untagged lines by `-a`, the checksum file's
    /// name, or the digest's length.
    Native,
}

/// How check mode shows a listed file's name in its status lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusNames {
    /// GNU 9.1-9.3: escaped (`\` prefix) only when it holds LF.
    EscapeNewline,
    /// GNU 9.4-9.10: escaped when it holds `\`, LF or CR.
    Escape,
    /// GNU 8.32: escaped (`\\` and `\n` only) when it holds LF.
    EscapeNewlineOnly,
    /// GNU 9.11: shell-quoted where needed (`quotef`).
    ShellQuote,
}

/// Check mode.
#[derive(Clone, Debug)]
pub struct CheckJob {
    /// The algorithm `-a`/`-l` (or the personality) fixes; `None`: work
    /// it out per line (cksum without `-a`, mhash without `-a`).
    pub algo: Option<Algorithm>,
    /// The algorithms any line may use, when `-a sha2`/`-a sha3` without
    /// `-l` (GNU 9.8+) or a list `-a md5,sha256` names several; empty
    /// otherwise.
    pub family: Vec<AlgoKind>,
    /// The type name of `-a sha2`/`-a sha3` (`SHA2`, `SHA3`), with `-l` or
    /// not: GNU 9.11 names it in "improperly formatted" warnings.
    pub family_name: Option<&'static str>,
    /// `-l` was given with a non-zero value.
    pub length_given: bool,
    /// The dialect of the checksum lines.
    pub dialect: Dialect,
    /// A failed write to standard output ends the run at once: no more
    /// lines are read (mhash's face, and b3sum, whose `println!` fails on
    /// the first failed write). GNU 9.1 and 9.4 read every line and
    /// count it in the summary; 9.11 exits at the first failed write
    /// (`Console::set_exits_on_write_error`).
    pub stops_on_write_error: bool,
    /// The GNU release line whose algorithms' tags are read (GNU 9.1's
    /// cksum has no SHA-3).
    pub gnu_level: crate::algo::GnuSince,
    /// GNU 9.11's reading of checksum lines: in cksum and b2sum a BSD tag
    /// is followed by `(`, ` (` or `-LENGTH`, nothing else (9.1-9.10
    /// overwrote the character after the tag, whatever it was, and allowed
    /// a space after it: `MD5\t(f)`, `MD5x (f)`); a NUL after a tagged
    /// line's digest makes the line improperly formatted (9.1 ended the
    /// digest there); a NUL after an untagged digest separates it from
    /// the name as a blank does (9.1: improperly formatted).
    pub lines_9_11: bool,
    /// Base64 digests are read (GNU 9.4+, and mhash).
    pub base64: bool,
    /// GNU 8.32's `md5sum.c` check loop: an empty line is improperly
    /// formatted (9.1+ skip it), a CR before the LF stays part of the name,
    /// `\r` is no escape, and "no properly formatted MD5 checksum lines
    /// found" names the algorithm.
    pub lines_8_32: bool,
    /// How names are shown in status lines.
    pub names: StatusNames,
    /// How much is printed.
    pub verbosity: Verbosity,
    /// `--strict`: improperly formatted lines make the run fail.
    pub strict: bool,
    /// `--ignore-missing`: missing files are skipped silently.
    pub ignore_missing: bool,
    /// `--json`: a JSON record per line instead of status lines.
    pub json: bool,
    /// `--debug` (mhash): for each line, which algorithm was used and how
    /// it was chosen, on standard error.
    pub debug: bool,
    /// The checksum files (`-` is standard input), no walk.
    pub checksum_files: InputList,
    /// `--s3-report` (native face only): the checksum files are S3 Batch
    /// Operations completion reports, their keys relative to this
    /// directory (`--root`; [`crate::check::s3report`]).
    pub s3_report_root: Option<std::ffi::OsString>,
    /// `--audit DIR` (native face): the one checksum file's names are
    /// relative to DIR, and DIR is walked for files it does not list; each
    /// file is reported as matching, changed, missing, new or unreadable
    /// (see [`crate::check::audit`]).
    pub audit: Option<Box<AuditDir>>,
    /// `--key` (native face): each checksum file's signature is verified
    /// before any of its lines (see `crate::sig`).
    pub signed: Option<Box<Signed>>,
}

/// How a Sigstore bundle is verified, and the identity rules it holds
/// (defined by `sig`, which reads them; named here with the other
/// settings, for `cli` to fill).
pub use crate::sig::{Matcher, SigstorePolicy};

/// `--key KEYFILE [--signature SIGFILE] [--namespace NS]`, or a Sigstore
/// bundle's options: how a checksum file's signature is verified.
#[derive(Clone, Debug)]
pub struct Signed {
    /// The public key, keyring or allowed-signers file; `None` for a
    /// Sigstore bundle (`sigstore`).
    pub key: Option<OsString>,
    /// `--bundle`, `--certificate-identity`, `--certificate-oidc-issuer`,
    /// `--trusted-root`: a Sigstore bundle instead of a key.
    pub sigstore: Option<SigstorePolicy>,
    /// The detached signature; `None`: looked for beside the checksum file
    /// (`FILE.sig`, `FILE.asc`, `FILE.gpg`, `FILE.minisig`, in the order
    /// the key's format gives), else the file itself is clearsigned.
    pub signature: Option<OsString>,
    /// The SSH signature namespace (`ssh-keygen -Y sign -n`); `file` by
    /// default.
    pub namespace: String,
    /// `--min-signatures K`: good signatures by distinct keys of the key
    /// file needed (1 by default).
    pub min_signatures: u32,
    /// `--trusted-comment REGEX`, anchored at both ends (`^(?:REGEX)$`):
    /// the whole trusted comment of a minisign signature must match it.
    pub trusted_comment: Option<regex::bytes::Regex>,
}

/// `--audit DIR`: the tree to audit and how it is walked.
#[derive(Clone, Debug)]
pub struct AuditDir {
    /// The directory the checksum file's names are relative to.
    pub dir: OsString,
    /// `--follow`, `--one-file-system`, `--include`, `--exclude`: which
    /// unlisted files the walk reports (listed ones are always checked).
    pub walk: crate::walk::Walk,
}

/// The GNU coreutils release whose behaviour is reproduced where releases
/// differ; set by `MHASH_GNU_COMPAT` (`8.32`, `9.1`, `9.4`), default the
/// newest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum GnuCompat {
    /// GNU 8.32 (Ubuntu 22.04, Debian 11, RHEL 9): `cksum` is the POSIX CRC
    /// only (no `-a`), the check loop and messages of `md5sum.c` (the
    /// algorithm named in "no properly formatted MD5 checksum lines found",
    /// an empty line improperly formatted), single-file `sum` without the
    /// name; otherwise as 9.1.
    V8_32,
    /// GNU 9.1-9.3: check status lines escape a name only when it holds LF;
    /// option rules and messages of 9.1.
    V9_1,
    /// GNU 9.4-9.10: check status lines escape `\`, LF and CR.
    V9_4,
    /// GNU 9.11: check status lines shell-quote names that need it.
    V9_11,
}

/// The `MHASH_GNU_COMPAT` values mhash knows, for the error naming them.
pub const GNU_COMPAT_SUPPORTED: &str = "8.32, 9.1 to 9.11";

impl GnuCompat {
    /// Reads a `MHASH_GNU_COMPAT` value: `8.32` → V8_32, `9.1`/`9.2`/`9.3`
    /// → V9_1, `9.4`..`9.10` → V9_4, `9.11` (or unset, or empty) → V9_11.
    ///
    /// # Errors
    /// Any other value: `Err` with the one-line message to print (the run
    /// then fails with exit status 1: a release mhash does not know is not
    /// silently replaced by another).
    pub fn from_value(v: Option<&str>) -> Result<GnuCompat, String> {
        match v.unwrap_or_default() {
            "8.32" => Ok(GnuCompat::V8_32),
            "9.1" | "9.2" | "9.3" => Ok(GnuCompat::V9_1),
            "9.4" | "9.5" | "9.6" | "9.7" | "9.8" | "9.9" | "9.10" => Ok(GnuCompat::V9_4),
            "" | "9.11" => Ok(GnuCompat::V9_11),
            other => Err(format!(
                "mhash: MHASH_GNU_COMPAT={other:?} is not supported (supported: {GNU_COMPAT_SUPPORTED})"
            )),
        }
    }

    /// True for the releases before 9.1's rework (8.32): `md5sum.c`,
    /// `cksum.c` and `sum.c` as separate programs.
    pub fn is_8_32(self) -> bool {
        self == GnuCompat::V8_32
    }

    /// The GNU release line whose algorithms this level has (9.1's cksum
    /// has neither crc32b nor SHA-3).
    pub fn algorithms(self) -> crate::algo::GnuSince {
        if self <= GnuCompat::V9_1 {
            crate::algo::GnuSince::V9_1
        } else {
            crate::algo::GnuSince::V9_4
        }
    }

    /// The release this compat level names, for `--version`.
    pub fn release(self) -> &'static str {
        match self {
            GnuCompat::V8_32 => "8.32",
            GnuCompat::V9_1 => "9.1",
            GnuCompat::V9_4 => "9.4",
            GnuCompat::V9_11 => "9.11",
        }
    }
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

/// Which line layout to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `DIGEST  NAME` (GNU sha*sum default; `cksum --untagged`).
    Untagged,
    /// `TAG (NAME) = DIGEST` (`--tag`; GNU cksum default).
    Tagged,
    /// `NAME CRC32`, the CRC-32 in 8 upper-case hex digits (mhash's
    /// `-a crc32b --sfv`: SFV, as cksfv writes its lines).
    Sfv,
}

/// How the digest itself is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Lower-case hexadecimal (the default).
    Hex,
    /// Standard base64 with padding (`cksum --base64`, GNU 9.2+).
    Base64,
    /// The digest bytes alone, no name, no newline (`cksum --raw`).
    Raw,
}

/// Everything that decides how one record is printed.
#[derive(Clone, Copy, Debug)]
pub struct Format {
    /// Untagged or tagged (ignored by the legacy CRC/sum algorithms).
    pub style: Style,
    /// Print the `*` binary-mode marker in untagged lines.
    pub binary: bool,
    /// End records with NUL instead of LF and do not escape names (`-z`).
    pub zero: bool,
    /// A CR in a name is escaped (`\r`); GNU 8.32 escapes only `\` and LF.
    pub escape_cr: bool,
    /// Digest encoding.
    pub encoding: Encoding,
    /// Legacy (CRC/sum) lines carry the name only when files were named on
    /// the command line (GNU cksum prints `CRC SIZE` for bare stdin).
    pub legacy_name: bool,
    /// Digest only, no name (b3sum `--no-names`).
    pub no_names: bool,
    /// mhash's face with `--base64`: a legacy checksum (crc32b, crc, sum)
    /// is written as `BASE64  NAME`, the base64 of its big-endian bytes
    /// (S3's `x-amz-checksum-crc32` for crc32b), not as GNU's decimal
    /// `CHECKSUM SIZE NAME` line (GNU cksum ignores `--base64` there).
    pub legacy_base64: bool,
}

/// How regular files are read (`--io`, `MHASH_IO`). Standard input, pipes,
/// FIFOs and devices are always streamed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IoMode {
    /// Map a file where the benchmark showed mapping wins for that
    /// algorithm and size (`io::mapped::should_map_tree`: BLAKE3 files of
    /// 16 MiB or more hashed on several threads), or where it measures
    /// faster on the file itself (one digest of a file of 64 MiB or more
    /// hashed without threads of its own: `io::trial`, against reading);
    /// else read (XXH3 and XXH128 files of 16 MiB or more by two threads
    /// at once where a second thread is allowed: `io::readers`).
    #[default]
    Auto,
    /// Always `read(2)` into the reused buffer.
    Read,
    /// Map every regular file that can be mapped (a bounded window at a time).
    Mmap,
}

impl IoMode {
    /// Parses `auto`, `read` or `mmap`.
    pub fn from_name(s: &str) -> Option<IoMode> {
        match s {
            "auto" => Some(IoMode::Auto),
            "read" => Some(IoMode::Read),
            "mmap" => Some(IoMode::Mmap),
            _ => None,
        }
    }
}

/// Whether a progress bar may show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProgressMode {
    /// Never (`--no-progress`, and every GNU-named personality).
    Never,
    /// When standard error is a terminal and the run is long or a file is
    /// big (the native face's default).
    #[default]
    Auto,
    /// Always, from the start (`--progress`).
    Always,
}
