//! The options GNU's checksum tools and the native face share, as one
//! typed table (as ripgrep's `FLAGS`, in a simpler shape: an enum and one
//! row per variant instead of one trait object per option).
//!
//! [`Flag`] names each option; its row, [`Flag::spec`], gives its long
//! name, short letter, whether it takes a value, which personalities ever
//! accept it, and the native face's help line. From it:
//!
//! - the getopt walk ([`super::getopt`]) maps a matched `--name` or `-x` to
//!   a [`Flag`] (GNU's per-release `long_options` order stays in
//!   [`super::getopt::long_options`], as a list of [`Flag`]s: the order is
//!   what GNU prints for an ambiguous prefix);
//! - clap's arguments for these options ([`super::command`]) are built by
//!   [`clap_arg`] (id and long name = [`Flag::long`]);
//! - the replay step (`cli::stages::replay`) matches [`Flag`] exhaustively;
//! - help: GNU's `--help` texts stay GNU's recorded bytes (a test checks
//!   that each option a personality's table gives it appears in them); the
//!   native `--help` lines come from [`Spec::help`].
//!
//! The native face's own options (`--recursive`, `--json`, `--s3-etag`,
//! ...) are clap's alone: GNU never reads them and no replay applies them.

use crate::config::Personality;
use clap::{Arg, ArgAction};

/// One option GNU's checksum tools (md5sum, sha*sum, b2sum, cksum, sum)
/// and the native `mhash` face share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flag {
    /// `-a TYPE`, `--algorithm=TYPE` (cksum, mhash).
    Algorithm,
    /// `-l BITS`, `--length=BITS` (b2sum, cksum, mhash).
    Length,
    /// `-b`, `--binary`.
    Binary,
    /// `-c`, `--check`.
    Check,
    /// `--ignore-missing`.
    IgnoreMissing,
    /// `--quiet`.
    Quiet,
    /// `--status`.
    Status,
    /// `-t`, `--text`.
    Text,
    /// `-w`, `--warn`.
    Warn,
    /// `--strict`.
    Strict,
    /// `--tag`.
    Tag,
    /// `-z`, `--zero`.
    Zero,
    /// `--untagged` (cksum, mhash).
    Untagged,
    /// `--base64` (cksum 9.4 and later, mhash).
    Base64,
    /// `--raw` (cksum 9.4 and later, mhash).
    Raw,
    /// `--debug` (cksum, mhash).
    Debug,
    /// sum's `-r`: the BSD checksum (no long name in GNU's table).
    Bsd,
    /// sum's `-s`, `--sysv`.
    Sysv,
    /// `--help`.
    Help,
    /// `--version`.
    Version,
}

/// Which personalities ever accept an option (GNU's release gates are in
/// [`super::getopt::long_options`], which a test checks against this).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every personality that reads GNU's options.
    All,
    /// The hashing tools: every one but `sum`.
    Hashing,
    /// Those with `-a`: cksum and mhash.
    Algorithm,
    /// Those with `-l`: b2sum, cksum and mhash.
    Length,
    /// `sum` alone.
    Sum,
}

/// One row of the option table ([`Flag::spec`]).
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// Its long name, without `--` (also its clap id); `bsd` has none in
    /// GNU's table (sum's `-r` only), the name is mhash's.
    pub long: &'static str,
    /// Its short letter, if any.
    pub short: Option<char>,
    /// Whether it takes a value (`-a TYPE`, `-l BITS`).
    pub takes_value: bool,
    /// Which personalities accept it.
    pub scope: Scope,
    /// The native face's `--help` line (GNU's texts are GNU's own); `-a`'s
    /// is longer there, with the list of names from the algorithm table.
    pub help: &'static str,
}

/// The rows' long names end to end, and where each begins and ends:
/// built at compile time from [`Flag::spec`], so that [`Flag::long`] with a
/// run-time `Flag` reads an integer table, where a `match` returning the
/// `&str`s compiles to a table of pointers, 20 more load-time relocations
/// (about 250 instructions of the dynamic loader's on every run).
static LONG_NAMES: (&str, [(u16, u16); Flag::ALL.len()]) = {
    const LEN: usize = {
        let mut n = 0;
        let mut i = 0;
        while i < Flag::ALL.len() {
            n += Flag::ALL[i].spec().long.len();
            i += 1;
        }
        n
    };
    const BYTES: [u8; LEN] = {
        let mut b = [0u8; LEN];
        let (mut i, mut at) = (0, 0);
        while i < Flag::ALL.len() {
            let name = Flag::ALL[i].spec().long.as_bytes();
            let mut k = 0;
            while k < name.len() {
                b[at] = name[k];
                at += 1;
                k += 1;
            }
            i += 1;
        }
        b
    };
    let mut ends = [(0u16, 0u16); Flag::ALL.len()];
    let (mut i, mut at) = (0, 0);
    while i < Flag::ALL.len() {
        let n = Flag::ALL[i].spec().long.len();
        ends[i] = (at as u16, (at + n) as u16);
        at += n;
        i += 1;
    }
    match core::str::from_utf8(&BYTES) {
        Ok(s) => (s, ends),
        // Evaluated by the compiler: a name that is not UTF-8 stops the
        // build, never a run.
        Err(_) => panic!("the long names are ASCII"),
    }
};

const fn row(
    long: &'static str,
    short: Option<char>,
    takes_value: bool,
    scope: Scope,
    help: &'static str,
) -> Spec {
    Spec {
        long,
        short,
        takes_value,
        scope,
        help,
    }
}

impl Flag {
    /// Every option, in declaration order.
    pub const ALL: [Flag; 20] = [
        Flag::Algorithm,
        Flag::Length,
        Flag::Binary,
        Flag::Check,
        Flag::IgnoreMissing,
        Flag::Quiet,
        Flag::Status,
        Flag::Text,
        Flag::Warn,
        Flag::Strict,
        Flag::Tag,
        Flag::Zero,
        Flag::Untagged,
        Flag::Base64,
        Flag::Raw,
        Flag::Debug,
        Flag::Bsd,
        Flag::Sysv,
        Flag::Help,
        Flag::Version,
    ];

    /// This option's row of the table: an exhaustive `match`, not a
    /// static array, so that the table costs no load-time relocations (a
    /// static of `&str`s needs one per pointer: 40, about 380 instructions
    /// of the dynamic loader's on every run) and a new variant does not
    /// compile without its row.
    pub const fn spec(self) -> Spec {
        match self {
            Flag::Algorithm => row(
                "algorithm",
                Some('a'),
                true,
                Scope::Algorithm,
                "digest algorithm (default sha256); the native line lists the names (algorithm_help)",
            ),
            Flag::Length => row(
                "length",
                Some('l'),
                true,
                Scope::Length,
                "digest length in bits (blake2b: multiple of 8 up to 512; sha2/sha3: 224, 256, 384, 512)",
            ),
            Flag::Binary => row(
                "binary",
                Some('b'),
                false,
                Scope::Hashing,
                "read in binary mode (mark lines with '*')",
            ),
            Flag::Check => row(
                "check",
                Some('c'),
                false,
                Scope::Hashing,
                "read checksums from the FILEs and check them",
            ),
            Flag::IgnoreMissing => row(
                "ignore-missing",
                None,
                false,
                Scope::Hashing,
                "don't fail or report status for missing files",
            ),
            Flag::Quiet => row(
                "quiet",
                None,
                false,
                Scope::Hashing,
                "don't print OK for each successfully verified file",
            ),
            Flag::Status => row(
                "status",
                None,
                false,
                Scope::Hashing,
                "don't output anything, status code shows success",
            ),
            Flag::Text => row(
                "text",
                Some('t'),
                false,
                Scope::Hashing,
                "read in text mode (default)",
            ),
            Flag::Warn => row(
                "warn",
                Some('w'),
                false,
                Scope::Hashing,
                "warn about improperly formatted checksum lines",
            ),
            Flag::Strict => row(
                "strict",
                None,
                false,
                Scope::Hashing,
                "exit non-zero for improperly formatted checksum lines",
            ),
            Flag::Tag => row("tag", None, false, Scope::Hashing, "create a BSD-style checksum"),
            Flag::Zero => row(
                "zero",
                Some('z'),
                false,
                Scope::Hashing,
                "end each output line with NUL, not newline, and disable file name escaping",
            ),
            Flag::Untagged => row(
                "untagged",
                None,
                false,
                Scope::Algorithm,
                "create a reversed style checksum, without digest type",
            ),
            Flag::Base64 => row(
                "base64",
                None,
                false,
                Scope::Algorithm,
                "emit base64-encoded digests, not hexadecimal",
            ),
            Flag::Raw => row(
                "raw",
                None,
                false,
                Scope::Algorithm,
                "emit a raw binary digest, not hexadecimal",
            ),
            Flag::Debug => row(
                "debug",
                None,
                false,
                Scope::Algorithm,
                "indicate which implementation is used",
            ),
            Flag::Bsd => row(
                "bsd",
                Some('r'),
                false,
                Scope::Sum,
                "use BSD sum algorithm (the default), use 1K blocks",
            ),
            Flag::Sysv => row(
                "sysv",
                Some('s'),
                false,
                Scope::Sum,
                "use System V sum algorithm, use 512 bytes blocks",
            ),
            Flag::Help => row("help", None, false, Scope::All, "display this help and exit"),
            Flag::Version => row(
                "version",
                None,
                false,
                Scope::All,
                "output version information and exit",
            ),
        }
    }

    /// The long name, without `--` (the row's, read from `LONG_NAMES`).
    pub fn long(self) -> &'static str {
        let (start, end) = LONG_NAMES.1[self as usize];
        // LONG_NAMES.0 is the rows' names end to end, so every range is
        // in bounds and on a character boundary; "" is unreachable.
        LONG_NAMES.0.get(start as usize..end as usize).unwrap_or("")
    }

    /// Whether the option takes a value.
    pub fn takes_value(self) -> bool {
        self.spec().takes_value
    }

    /// Whether personality `p` accepts the option at some GNU release
    /// (shasum and b3sum have option tables of their own: none).
    pub fn in_scope(self, p: Personality) -> bool {
        if matches!(p, Personality::Shasum | Personality::B3sum) {
            return false;
        }
        match self.spec().scope {
            Scope::All => true,
            Scope::Hashing => p != Personality::Sum,
            Scope::Algorithm => p.takes_algorithm(),
            Scope::Length => p.takes_length(),
            Scope::Sum => p == Personality::Sum,
        }
    }

    /// The option whose short letter is `c` for personality `p` (any GNU
    /// release: [`super::getopt`] applies the release gates).
    pub fn from_short(p: Personality, c: char) -> Option<Flag> {
        Flag::ALL
            .into_iter()
            .find(|f| f.spec().short == Some(c) && f.in_scope(p))
    }
}

/// clap's argument for a switch of the table (a flag, `SetTrue`, with the
/// table's long name as id, short letter and help line). The two value
/// options (`-a`, `-l`) take their value settings from the caller.
pub fn clap_arg(f: Flag) -> Arg {
    let s = f.spec();
    let a = Arg::new(s.long).long(s.long).help(s.help);
    let a = if s.takes_value {
        a.action(ArgAction::Append).allow_hyphen_values(true)
    } else {
        a.action(ArgAction::SetTrue)
    };
    match s.short {
        Some(c) => a.short(c),
        None => a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Flag::ALL` lists every variant once (the `match` stops the build
    /// when a variant is missing from it), the long names are unique, and
    /// a short letter is shared only between sum and the others (GNU sum
    /// has no -c, the others no -r or -s).
    #[test]
    fn all_lists_every_variant_once_and_names_are_unique() {
        for (i, f) in Flag::ALL.into_iter().enumerate() {
            assert_eq!(f as usize, i, "{f:?} is not at its index");
            match f {
                Flag::Algorithm
                | Flag::Length
                | Flag::Binary
                | Flag::Check
                | Flag::IgnoreMissing
                | Flag::Quiet
                | Flag::Status
                | Flag::Text
                | Flag::Warn
                | Flag::Strict
                | Flag::Tag
                | Flag::Zero
                | Flag::Untagged
                | Flag::Base64
                | Flag::Raw
                | Flag::Debug
                | Flag::Bsd
                | Flag::Sysv
                | Flag::Help
                | Flag::Version => {}
            }
        }
        for f in Flag::ALL {
            assert_eq!(f.long(), f.spec().long);
        }
        for (i, a) in Flag::ALL.into_iter().enumerate() {
            for b in &Flag::ALL[i + 1..] {
                let (a, b) = (a.spec(), b.spec());
                assert_ne!(a.long, b.long);
                if a.short.is_some() && a.short == b.short {
                    assert!((a.scope == Scope::Sum) != (b.scope == Scope::Sum));
                }
            }
        }
    }

    #[test]
    fn short_letters_resolve_per_personality() {
        assert_eq!(Flag::from_short(Personality::Sum, 'r'), Some(Flag::Bsd));
        assert_eq!(Flag::from_short(Personality::Sum, 's'), Some(Flag::Sysv));
        assert_eq!(Flag::from_short(Personality::Sum, 'c'), None);
        assert_eq!(Flag::from_short(Personality::Md5sum, 'r'), None);
        assert_eq!(Flag::from_short(Personality::Md5sum, 'a'), None);
        assert_eq!(Flag::from_short(Personality::Md5sum, 'l'), None);
        assert_eq!(Flag::from_short(Personality::B2sum, 'l'), Some(Flag::Length));
        assert_eq!(Flag::from_short(Personality::Cksum, 'a'), Some(Flag::Algorithm));
        assert_eq!(Flag::from_short(Personality::Shasum, 'a'), None);
    }

    /// GNU's per-release tables give each personality only options the
    /// table scopes to it, and every option in scope is in some release's
    /// table (sum's `-r` aside: it has no long name).
    #[test]
    fn release_tables_stay_within_scope() {
        use crate::cli::getopt::long_options;
        use crate::config::GnuCompat;
        let compats = [
            GnuCompat::V8_32,
            GnuCompat::V9_1,
            GnuCompat::V9_4,
            GnuCompat::V9_11,
        ];
        let faces = Personality::GNU
            .iter()
            .map(|(p, _)| *p)
            .chain([Personality::Mhash]);
        for p in faces {
            let mut seen = Vec::new();
            for c in compats {
                for f in long_options(p, c) {
                    assert!(f.in_scope(p), "{p:?} {c:?}: {f:?} out of scope");
                    seen.push(f);
                }
            }
            for f in Flag::ALL {
                if f.in_scope(p) && f != Flag::Bsd {
                    assert!(seen.contains(&f), "{p:?}: {f:?} in scope, in no table");
                }
            }
        }
    }
}
