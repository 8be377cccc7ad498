//! The personality: which tool mhash is pretending to be, chosen from the
//! base name of `argv[0]` (any `.exe` stripped), as a multicall binary does.

use crate::algo::{AlgoKind, Algorithm};

/// The tool mhash behaves as. GNU-named personalities accept exactly GNU's
/// flags and print GNU's bytes; [`Personality::Mhash`] is the native face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Personality {
    /// GNU `md5sum`.
    Md5sum,
    /// GNU `sha1sum`.
    Sha1sum,
    /// GNU `sha224sum`.
    Sha224sum,
    /// GNU `sha256sum`.
    Sha256sum,
    /// GNU `sha384sum`.
    Sha384sum,
    /// GNU `sha512sum`.
    Sha512sum,
    /// GNU `b2sum` (BLAKE2b, `-l BITS`).
    B2sum,
    /// GNU `cksum` (`-a ALGO`, CRC by default, tagged output by default).
    Cksum,
    /// GNU `sum` (the BSD checksum by default, `-r`, `-s`/`--sysv`).
    Sum,
    /// The native `mhash` face: `-a ALGO` (default sha256), untagged output.
    Mhash,
    /// `b3sum` (the BLAKE3 team's tool): BLAKE3 with its flags that fit
    /// (`--length` in bytes, `--num-threads`, `--no-mmap`, `--no-names`,
    /// `--raw`, `--tag`, `-c`, `--quiet`).
    B3sum,
    /// Perl `shasum` 6.02 (Digest::SHA's script): `-a 1|224|256|384|512|
    /// 512224|512256`, its Getopt::Long command line, its `U`/`^` modes,
    /// messages and exit statuses (see `crate::cli::shasum`).
    Shasum,
}

impl Personality {
    /// Every GNU-named personality, with its fixed program name.
    pub const GNU: [(Personality, &'static str); 9] = [
        (Personality::Md5sum, "md5sum"),
        (Personality::Sha1sum, "sha1sum"),
        (Personality::Sha224sum, "sha224sum"),
        (Personality::Sha256sum, "sha256sum"),
        (Personality::Sha384sum, "sha384sum"),
        (Personality::Sha512sum, "sha512sum"),
        (Personality::B2sum, "b2sum"),
        (Personality::Cksum, "cksum"),
        (Personality::Sum, "sum"),
    ];

    /// Chooses the personality from `argv[0]`: its base name with any `.exe`
    /// stripped, matched exactly, else by the longest GNU name it ends with
    /// (`gsha256sum`, `x86_64-sha256sum`; `sum` only as `gsum` or `X-sum`);
    /// anything else is `mhash`. Where file names are case-insensitive
    /// (Windows, macOS: [`crate::os::CASE_INSENSITIVE_NAMES`]) the name is
    /// matched without regard to ASCII case, so that `MD5SUM.EXE`, or
    /// `MD5SUM` typed at cmd.exe, is `md5sum` and never the native face's
    /// SHA-256; elsewhere `MD5SUM` is another program, as on Linux.
    pub fn from_argv0(argv0: &std::ffi::OsStr) -> Personality {
        Self::from_name(argv0, crate::os::CASE_INSENSITIVE_NAMES)
    }

    /// [`Personality::from_argv0`] with the case rule given:
    /// `fold_case` matches names without regard to ASCII case.
    pub fn from_name(argv0: &std::ffi::OsStr, fold_case: bool) -> Personality {
        // Both separators: a Windows path arrives with `\`, and a name
        // given by a Unix shell on Windows (MSYS2) with `/`.
        let whole = argv0.to_string_lossy();
        let mut base = whole.rsplit(['/', '\\']).next().unwrap_or_default().to_string();
        if fold_case {
            base.make_ascii_lowercase();
        }
        if base.len() > 4 && base[base.len() - 4..].eq_ignore_ascii_case(".exe") {
            base.truncate(base.len() - 4);
        }
        let base = base.as_str();
        if let Some((p, _)) = Self::GNU.iter().find(|(_, n)| *n == base) {
            return *p;
        }
        if base == "b3sum" || base.ends_with("-b3sum") {
            return Personality::B3sum;
        }
        // Perl's script is installed as `shasum` (macOS, Debian); as the
        // other names, `SHASUM.EXE` where file names ignore case.
        if base == "shasum" {
            return Personality::Shasum;
        }
        // `sum` is a suffix of every other name (and of `xxh64sum`): only
        // `gsum` and `PREFIX-sum` mean it.
        if base == "gsum" || base.ends_with("-sum") {
            return Personality::Sum;
        }
        Self::GNU
            .iter()
            .filter(|(p, n)| *p != Personality::Sum && base.ends_with(n))
            .max_by_key(|(_, n)| n.len())
            .map(|(p, _)| *p)
            .unwrap_or(Personality::Mhash)
    }

    /// The canonical program name (`sha256sum`), as GNU's documentation
    /// links spell it, whatever `argv[0]` was.
    pub fn name(self) -> &'static str {
        match self {
            Personality::B3sum => return "b3sum",
            Personality::Shasum => return "shasum",
            _ => {}
        }
        Self::GNU
            .iter()
            .find(|(p, _)| *p == self)
            .map(|(_, n)| *n)
            .unwrap_or("mhash")
    }

    /// The fixed algorithm of a single-algorithm tool; `None` for `cksum`
    /// and `mhash`, which take `-a`.
    pub fn fixed_algorithm(self) -> Option<Algorithm> {
        let kind = match self {
            Personality::Md5sum => AlgoKind::Md5,
            Personality::Sha1sum => AlgoKind::Sha1,
            Personality::Sha224sum => AlgoKind::Sha224,
            Personality::Sha256sum => AlgoKind::Sha256,
            Personality::Sha384sum => AlgoKind::Sha384,
            Personality::Sha512sum => AlgoKind::Sha512,
            Personality::B2sum => AlgoKind::Blake2b,
            Personality::B3sum => AlgoKind::Blake3,
            Personality::Sum => AlgoKind::Bsd,
            Personality::Cksum | Personality::Mhash | Personality::Shasum => return None,
        };
        Some(Algorithm::new(kind))
    }

    /// True for the GNU-named personalities.
    pub fn is_gnu(self) -> bool {
        !matches!(
            self,
            Personality::Mhash | Personality::B3sum | Personality::Shasum
        )
    }

    /// True when `-l/--length` is accepted (b2sum, cksum, mhash).
    pub fn takes_length(self) -> bool {
        matches!(self, Personality::B2sum | Personality::Cksum | Personality::Mhash)
    }

    /// True when `-a/--algorithm` and cksum's extra flags are accepted.
    pub fn takes_algorithm(self) -> bool {
        matches!(self, Personality::Cksum | Personality::Mhash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn argv0_picks_personality() {
        assert_eq!(
            Personality::from_argv0(OsStr::new("/usr/bin/sha256sum")),
            Personality::Sha256sum
        );
        assert_eq!(
            Personality::from_argv0(OsStr::new("md5sum.exe")),
            Personality::Md5sum
        );
        assert_eq!(
            Personality::from_argv0(OsStr::new("gsha224sum")),
            Personality::Sha224sum
        );
        assert_eq!(Personality::from_argv0(OsStr::new("cksum")), Personality::Cksum);
        assert_eq!(
            Personality::from_argv0(OsStr::new("./target/release/mhash")),
            Personality::Mhash
        );
        assert_eq!(Personality::from_argv0(OsStr::new("sum")), Personality::Sum);
        assert_eq!(Personality::from_argv0(OsStr::new("/bin/sum")), Personality::Sum);
        assert_eq!(
            Personality::from_argv0(OsStr::new("xxh64sum")),
            Personality::Mhash
        );
        assert_eq!(
            Personality::from_argv0(OsStr::new("/usr/local/bin/b3sum")),
            Personality::B3sum
        );
        for name in ["shasum", "/usr/bin/shasum", "shasum.exe", "SHASUM", "ShaSum.EXE"] {
            let folded = Personality::from_name(OsStr::new(name), true);
            assert_eq!(folded, Personality::Shasum, "{name}");
        }
        assert_eq!(
            Personality::from_name(OsStr::new("SHASUM"), false),
            Personality::Mhash
        );
        assert_eq!(Personality::from_argv0(OsStr::new("xshasum")), Personality::Mhash);
        assert_eq!(Personality::name(Personality::Shasum), "shasum");
    }

    #[test]
    fn names_fold_case_where_file_names_do() {
        for (name, fold, want) in [
            ("MD5SUM.EXE", true, Personality::Md5sum),
            ("C:\\Tools\\Sha256Sum.Exe", true, Personality::Sha256sum),
            ("B2SUM", true, Personality::B2sum),
            ("MD5SUM", false, Personality::Mhash),
            ("md5sum.EXE", false, Personality::Md5sum),
            ("C:\\tools\\md5sum.exe", false, Personality::Md5sum),
        ] {
            assert_eq!(
                Personality::from_name(OsStr::new(name), fold),
                want,
                "{name} {fold}"
            );
        }
        assert_eq!(
            Personality::from_argv0(OsStr::new("MD5SUM")) == Personality::Md5sum,
            cfg!(any(windows, target_os = "macos"))
        );
    }
}
