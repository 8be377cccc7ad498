//! GNU `getopt_long` semantics for the GNU-named personalities.
//!
//! GNU's diagnostics and option order are part of what mhash reproduces:
//! `unrecognized option '--x=1'`, `invalid option -- 'q'`, `option '--t' is
//! ambiguous; possibilities: '--tag' '--text'` (candidates in the order of
//! GNU's `long_options` table), `option requires an argument -- 'l'`, and
//! GNU acting on each option as it reads it (`--help --bogus` prints help;
//! `-l abc --bogus` reports the length). clap cannot phrase these, so this
//! module walks `argv` the way glibc does and hands the options, in order, to
//! [`super::parse`] as [`Opt`]s named by [`Flag`] (the option table,
//! [`super::flags`]); the clap definitions in [`super::command`], built
//! from the same table, drive the native `mhash` face.

use super::flags::Flag;
use crate::config::{GnuCompat, Personality};
use std::ffi::OsString;

/// One option as read, in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opt {
    /// `-a TYPE` / `--algorithm=TYPE`.
    Algorithm(String),
    /// `-l BITS` / `--length=BITS`.
    Length(String),
    /// An option without a value (never [`Flag::Algorithm`] or
    /// [`Flag::Length`], which are read as the variants above).
    Flag(Flag),
}

/// What the walk found: options in order, and the operands.
#[derive(Debug, Default)]
pub struct Scanned {
    /// Options in command-line order.
    pub opts: Vec<Opt>,
    /// Operands (file names), in order.
    pub operands: Vec<OsString>,
}

/// A getopt diagnostic, without the program-name prefix; GNU follows each
/// with the "Try --help" line.
#[derive(Debug, PartialEq, Eq)]
pub struct GetoptError(pub String);

impl From<GetoptError> for crate::error::Error {
    fn from(e: GetoptError) -> crate::error::Error {
        crate::error::Error::Getopt(e.0)
    }
}

/// GNU's `long_options` table for a personality, in GNU's order (the
/// order GNU lists an ambiguous prefix's possibilities in).
pub fn long_options(p: Personality, compat: GnuCompat) -> Vec<Flag> {
    use Flag as F;
    if p == Personality::Sum {
        return vec![F::Sysv, F::Help, F::Version];
    }
    // GNU 8.32's cksum is the CRC alone: parse_gnu_standard_options_only.
    if p == Personality::Cksum && compat.is_8_32() {
        return vec![F::Help, F::Version];
    }
    let mut v = Vec::new();
    if p.takes_length() {
        v.push(F::Length);
    }
    // GNU 8.32's md5sum.c table (b2sum, md5sum, sha*sum).
    if compat.is_8_32() && p.is_gnu() {
        v.extend([
            F::Binary,
            F::Check,
            F::IgnoreMissing,
            F::Quiet,
            F::Status,
            F::Text,
            F::Warn,
            F::Strict,
            F::Tag,
            F::Zero,
            F::Help,
            F::Version,
        ]);
        return v;
    }
    v.extend([
        F::Check,
        F::IgnoreMissing,
        F::Quiet,
        F::Status,
        F::Warn,
        F::Strict,
        F::Tag,
        F::Zero,
    ]);
    match p {
        Personality::Cksum if compat == GnuCompat::V9_1 => v.extend([F::Algorithm, F::Debug, F::Untagged]),
        // GNU 9.4-9.11 cksum.c's order (an ambiguous prefix lists its
        // possibilities in table order: `--b` gives '--base64' '--binary').
        Personality::Cksum | Personality::Mhash => v.extend([
            F::Algorithm,
            F::Base64,
            F::Debug,
            F::Raw,
            F::Untagged,
            F::Binary,
            F::Text,
        ]),
        _ => v.extend([F::Binary, F::Text]),
    }
    v.extend([F::Help, F::Version]);
    v
}

/// The option a short letter names, if the personality has it at the
/// release (GNU sum's "rs": `-r`, the BSD sum, has no long name; GNU 9.1's
/// cksum reads `-b`/`-t` only to refuse them).
pub fn short_option(p: Personality, compat: GnuCompat, c: char) -> Option<Flag> {
    if p == Personality::Cksum && compat.is_8_32() {
        return None;
    }
    Flag::from_short(p, c)
}

/// Resolves a long option name as getopt_long does: an exact match, else
/// the one option it abbreviates; `Err(candidates)` when ambiguous.
pub fn resolve_long(table: &[Flag], name: &str) -> Result<Option<Flag>, Vec<Flag>> {
    if let Some(&exact) = table.iter().find(|f| f.long() == name) {
        return Ok(Some(exact));
    }
    let m: Vec<Flag> = table
        .iter()
        .copied()
        .filter(|f| f.long().starts_with(name))
        .collect();
    match m.len() {
        0 => Ok(None),
        1 => Ok(Some(m[0])),
        _ => Err(m),
    }
}

fn make(flag: Flag, value: Option<String>) -> Opt {
    match flag {
        Flag::Algorithm => Opt::Algorithm(value.unwrap_or_default()),
        Flag::Length => Opt::Length(value.unwrap_or_default()),
        f => Opt::Flag(f),
    }
}

/// Walks `args` (`args[0]` is `argv[0]`) with glibc's rules: options and
/// operands may mix unless `POSIXLY_CORRECT` is set; `--` ends options; a
/// lone `-` is an operand. The operands are moved out of `args`, not
/// copied: `md5sum *` on 5,000 names made one allocation per name here,
/// plus one more for the text of each (only options need it).
///
/// `visit` sees each option as it is read and may stop the walk (GNU acts at
/// once on `--help`, `--version` and invalid `-a`/`-l` values): returning
/// `Err` ends the walk with that error, `Ok(true)` ends it successfully.
///
/// # Errors
/// The first getopt diagnostic, or the first error `visit` returns.
pub fn scan<E: From<GetoptError>>(
    p: Personality,
    compat: GnuCompat,
    posixly_correct: bool,
    mut args: Vec<OsString>,
    mut visit: impl FnMut(&Opt) -> Result<bool, E>,
) -> Result<Scanned, E> {
    let table = long_options(p, compat);
    let mut out = Scanned::default();
    let mut i = 1;
    let mut only_operands = false;
    while i < args.len() {
        // ASCII `-` is the same byte in every platform's encoding.
        let bytes = args[i].as_encoded_bytes();
        i += 1;
        if only_operands || bytes == b"-" || !bytes.starts_with(b"-") {
            out.operands.push(std::mem::take(&mut args[i - 1]));
            if posixly_correct {
                only_operands = true;
            }
            continue;
        }
        let a = crate::text::lossless(&args[i - 1]);
        if a == "--" {
            only_operands = true;
            continue;
        }
        let mut found: Vec<Opt> = Vec::new();
        let mut cluster_error: Option<GetoptError> = None;
        if let Some(body) = a.strip_prefix("--") {
            let (name, value) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            let long = match resolve_long(&table, name) {
                Ok(Some(l)) => l,
                Ok(None) => return Err(GetoptError(format!("unrecognized option '{a}'")).into()),
                Err(cands) => {
                    let poss: Vec<String> = cands.iter().map(|f| format!("'--{}'", f.long())).collect();
                    return Err(GetoptError(format!(
                        "option '{a}' is ambiguous; possibilities: {}",
                        poss.join(" ")
                    ))
                    .into());
                }
            };
            if long.takes_value() {
                let v = match value {
                    Some(v) => v,
                    None if i < args.len() => {
                        i += 1;
                        crate::text::lossless(&args[i - 1])
                    }
                    None => {
                        return Err(
                            GetoptError(format!("option '--{}' requires an argument", long.long())).into(),
                        );
                    }
                };
                found.push(make(long, Some(v)));
            } else if value.is_some() {
                return Err(
                    GetoptError(format!("option '--{}' doesn't allow an argument", long.long())).into(),
                );
            } else {
                found.push(make(long, None));
            }
        } else {
            let chars: Vec<char> = a.chars().skip(1).collect();
            let mut k = 0;
            while k < chars.len() {
                let c = chars[k];
                k += 1;
                let Some(long) = short_option(p, compat, c) else {
                    // glibc's getopt reads bytes: it reports the first byte
                    // of a multibyte character, raw.
                    let c = super::first_byte_char(c);
                    cluster_error = Some(GetoptError(format!("invalid option -- '{c}'")));
                    break;
                };
                if !long.takes_value() {
                    found.push(make(long, None));
                } else if k < chars.len() {
                    found.push(make(long, Some(chars[k..].iter().collect())));
                    k = chars.len();
                } else if i < args.len() {
                    i += 1;
                    found.push(make(long, Some(crate::text::lossless(&args[i - 1]))));
                } else {
                    cluster_error = Some(GetoptError(format!("option requires an argument -- '{c}'")));
                }
            }
        }
        // The options before an error in a cluster were read first, as
        // getopt returns them one by one.
        for o in found {
            if visit(&o)? {
                return Ok(out);
            }
            out.opts.push(o);
        }
        if let Some(e) = cluster_error {
            return Err(e.into());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(p: Personality, args: &[&str]) -> Result<Scanned, GetoptError> {
        let mut v = vec![OsString::from("prog")];
        v.extend(args.iter().map(OsString::from));
        scan::<GetoptError>(p, GnuCompat::V9_1, false, v, |_| Ok(false))
    }

    // Expected messages are GNU coreutils 9.1's (glibc getopt_long).
    #[test]
    fn diagnostics_match_glibc() {
        let e = |p, a: &[&str]| run(p, a).unwrap_err().0;
        assert_eq!(
            e(Personality::Md5sum, &["--t"]),
            "option '--t' is ambiguous; possibilities: '--tag' '--text'"
        );
        assert_eq!(
            e(Personality::Md5sum, &["--length=8"]),
            "unrecognized option '--length=8'"
        );
        assert_eq!(e(Personality::Md5sum, &["-x"]), "invalid option -- 'x'");
        assert_eq!(
            e(Personality::B2sum, &["-l"]),
            "option requires an argument -- 'l'"
        );
        assert_eq!(
            e(Personality::B2sum, &["--len"]),
            "option '--length' requires an argument"
        );
        assert_eq!(
            e(Personality::Md5sum, &["--check=x"]),
            "option '--check' doesn't allow an argument"
        );
        assert_eq!(e(Personality::Cksum, &["--text"]), "unrecognized option '--text'");
    }

    #[test]
    fn options_and_operands_mix_until_double_dash() {
        let s = run(Personality::B2sum, &["a", "-l8", "--", "-c"]).unwrap();
        assert_eq!(s.opts, vec![Opt::Length("8".into())]);
        assert_eq!(s.operands, vec![OsString::from("a"), OsString::from("-c")]);
        let s = run(Personality::Cksum, &["--t", "-", "-abl", "x"]).unwrap();
        assert_eq!(s.opts, vec![Opt::Flag(Flag::Tag), Opt::Algorithm("bl".into())]);
        assert_eq!(s.operands, vec![OsString::from("-"), OsString::from("x")]);
    }
}
