//! `--help` and `--version` text for the GNU-named personalities, written
//! by hand in GNU coreutils' layout (GNU's own tests read it: e.g. the
//! `cksum --help` DIGEST list). The native `mhash` face uses clap's help.

use crate::config::{GnuCompat, Personality};

/// What `--help` prints under a GNU name; `prog` is `argv[0]` as invoked
/// (GNU prints `program_name` in the Usage line); `markup`: `TERM` names a
/// terminal, where GNU 9.11 marks the options up (bold, in OSC 8 links).
pub fn gnu_help(p: Personality, prog: &str, compat: GnuCompat, markup: bool) -> String {
    if compat.is_8_32() {
        return help_8_32(p, prog);
    }
    let text = if p == Personality::Sum {
        sum_help(prog)
    } else {
        help_9_1_layout(p, prog, compat)
    };
    if compat >= GnuCompat::V9_11 {
        let text = layout_9_11(p, &text);
        if markup { mark_options(p, &text) } else { text }
    } else {
        text
    }
}

/// GNU 9.11's `--help` as it prints it where `TERM` names a terminal
/// (system.h `oputs_`, for every option of `--help`): each option line's
/// text in bold (`ESC[1m` .. `ESC[0m`) inside an OSC 8 hyperlink to the
/// option's entry in the manual, `manual/coreutils.html#PROG-OPT` (`PROG`
/// is `cksum` for the `*sum` tools, whose options it documents; `--help`
/// and `--version` link to the program's page, `coreutils/PROG#PROG--help`).
/// `text` is [`layout_9_11`]'s, each option on a line of its own.
fn mark_options(p: Personality, text: &str) -> String {
    let prog = if p == Personality::Sum { "sum" } else { "cksum" };
    let mut out = String::with_capacity(text.len() + 2048);
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let option = body.trim_start();
        let indent = body.len() - option.len();
        if !(option.starts_with('-') && (2..=6).contains(&indent)) || option.contains("  ") {
            out.push_str(line);
            continue;
        }
        let anchor = &option[..option.find([',', '=', '[', ' ']).unwrap_or(option.len())];
        let url = if option.starts_with("--help") || option.starts_with("--version") {
            format!("https://www.gnu.org/software/coreutils/{prog}#{prog}{anchor}")
        } else {
            format!("https://www.gnu.org/software/coreutils/manual/coreutils.html#{prog}{anchor}")
        };
        out.push_str(&body[..indent]);
        out.push_str(&format!(
            "\x1b]8;;{url}\x1b\\\x1b[1m{option}\x1b[0m\x1b]8;;\x1b\\"
        ));
        out.push_str(&line[body.len()..]);
    }
    out
}

/// GNU 9.11's `--help` from the earlier layout (captured from a GNU 9.11
/// built from its sources): the single-algorithm tools and `sum` say they
/// are a "Legacy interface to the cksum utility"; each option is on a line
/// of its own with its description below, indented nine columns; no blank
/// line before `--help` (or `--debug`); `sum` has no blank line before its
/// options; b2sum's `-l` reads as cksum's; "Note: " and the final period of
/// `-a` go; the footer is gnulib's bug-reporting block.
fn layout_9_11(p: Personality, text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut in_options = false;
    for line in text.lines() {
        if line.starts_with("Usage: ") {
            out.push(line.to_string());
            continue;
        }
        if line.starts_with("Print or check ") && p != Personality::Cksum {
            out.push(line.to_string());
            out.push("Legacy interface to the cksum utility.".to_string());
            continue;
        }
        if line == "GNU coreutils online help: <https://www.gnu.org/software/coreutils/>" {
            out.push("Report bugs to: bug-coreutils@gnu.org".to_string());
            out.push("GNU coreutils home page: <https://www.gnu.org/software/coreutils/>".to_string());
            out.push("General help using GNU software: <https://www.gnu.org/gethelp/>".to_string());
            continue;
        }
        if let Some(rest) = line.strip_prefix("Note: ") {
            out.push(rest.to_string());
            continue;
        }
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let is_option = trimmed.starts_with('-') && (2..=6).contains(&indent);
        if is_option {
            in_options = true;
            // `--help` and `--debug` follow a blank line in the old layout.
            if out.last().is_some_and(|l| l.is_empty())
                && (trimmed.starts_with("--help") || trimmed.starts_with("--debug"))
            {
                out.pop();
            }
            // `sum`: no blank line between "With no FILE" and `-r`.
            if p == Personality::Sum && trimmed.starts_with("-r") && out.last().is_some_and(|l| l.is_empty())
            {
                out.pop();
            }
            match trimmed.find("  ") {
                Some(gap) => {
                    let head = &line[..indent + gap];
                    let desc = trimmed[gap..].trim_start();
                    let desc = desc
                        .strip_suffix("See DIGEST below.")
                        .map_or(desc.to_string(), |d| format!("{d}See DIGEST below"));
                    out.push(head.to_string());
                    out.push(format!("         {desc}"));
                }
                None => out.push(line.to_string()),
            }
            continue;
        }
        if in_options && indent >= 20 && !trimmed.is_empty() {
            out.push(format!("         {trimmed}"));
            continue;
        }
        in_options = false;
        out.push(line.to_string());
    }
    let mut s = out.join("\n");
    s.push('\n');
    if p == Personality::B2sum {
        s = s.replace(
            "         digest length in bits; must not exceed the max for\n         the blake2 algorithm and must be a multiple of 8\n",
            "         digest length in bits; must not exceed the max size\n         and must be a multiple of 8 for blake2b;\n         must be 224, 256, 384, or 512 for sha2 or sha3\n",
        );
    }
    s
}

/// `--help` in GNU 9.1's layout (9.4's where `compat` says so).
fn help_9_1_layout(p: Personality, prog: &str, compat: GnuCompat) -> String {
    let mut s = String::new();
    s.push_str(&format!("Usage: {prog} [OPTION]... [FILE]...\n"));
    if p == Personality::Cksum {
        s.push_str("Print or verify checksums.\nBy default use the 32 bit CRC algorithm.\n");
    } else {
        let (tag, bits) = match p {
            Personality::Md5sum => ("MD5", 128),
            Personality::Sha1sum => ("SHA1", 160),
            Personality::Sha224sum => ("SHA224", 224),
            Personality::Sha256sum => ("SHA256", 256),
            Personality::Sha384sum => ("SHA384", 384),
            Personality::Sha512sum => ("SHA512", 512),
            _ => ("BLAKE2b", 512),
        };
        s.push_str(&format!("Print or check {tag} ({bits}-bit) checksums.\n"));
    }
    s.push_str("\nWith no FILE, or when FILE is -, read standard input.\n");
    let new = compat >= GnuCompat::V9_11;
    if p == Personality::Cksum {
        s.push_str("\nMandatory arguments to long options are mandatory for short options too.\n");
        s.push_str("  -a, --algorithm=TYPE  select the digest type to use.  See DIGEST below.\n");
        if new {
            s.push_str("      --base64          emit base64-encoded digests, not hexadecimal\n");
        }
        s.push_str("  -c, --check           read checksums from the FILEs and check them\n");
        if new {
            s.push_str(
                "  -l, --length=BITS     digest length in bits; must not exceed the max size\n\
                 \x20                         and must be a multiple of 8 for blake2b;\n\
                 \x20                         must be 224, 256, 384, or 512 for sha2 or sha3\n",
            );
            s.push_str("      --raw             emit a raw binary digest, not hexadecimal\n");
        } else {
            s.push_str(
                "  -l, --length=BITS     digest length in bits; must not exceed the max for\n\
                 \x20                         the blake2 algorithm and must be a multiple of 8\n",
            );
        }
        s.push_str("      --tag             create a BSD-style checksum (the default)\n");
        s.push_str("      --untagged        create a reversed style checksum, without digest type\n");
    } else {
        if p == Personality::B2sum {
            s.push_str("\nMandatory arguments to long options are mandatory for short options too.\n");
        }
        s.push_str("  -b, --binary          read in binary mode\n");
        s.push_str("  -c, --check           read checksums from the FILEs and check them\n");
        if p == Personality::B2sum {
            s.push_str(
                "  -l, --length=BITS     digest length in bits; must not exceed the max for\n\
                 \x20                         the blake2 algorithm and must be a multiple of 8\n",
            );
        }
        s.push_str("      --tag             create a BSD-style checksum\n");
        s.push_str("  -t, --text            read in text mode (default)\n");
    }
    s.push_str(
        "  -z, --zero            end each output line with NUL, not newline,\n\
         \x20                         and disable file name escaping\n\
         \n\
         The following five options are useful only when verifying checksums:\n\
         \x20     --ignore-missing  don't fail or report status for missing files\n\
         \x20     --quiet           don't print OK for each successfully verified file\n\
         \x20     --status          don't output anything, status code shows success\n\
         \x20     --strict          exit non-zero for improperly formatted checksum lines\n\
         \x20 -w, --warn            warn about improperly formatted checksum lines\n\
         \n",
    );
    if p == Personality::Cksum {
        s.push_str("      --debug           indicate which implementation used\n");
    }
    s.push_str(
        "      --help        display this help and exit\n\
         \x20     --version     output version information and exit\n",
    );
    s.push_str(&about_digests(p, new));
    let name = p.name();
    let info = match p {
        Personality::Sha224sum | Personality::Sha256sum | Personality::Sha384sum | Personality::Sha512sum => {
            "sha2 utilities".to_string()
        }
        _ => format!("{name} invocation"),
    };
    s.push_str(&format!(
        "\nGNU coreutils online help: <https://www.gnu.org/software/coreutils/>\n\
         Report any translation bugs to <https://translationproject.org/team/>\n\
         Full documentation <https://www.gnu.org/software/coreutils/{name}>\n\
         or available locally via: info '(coreutils) {info}'\n"
    ));
    s
}

/// GNU 8.32's `--help`: `md5sum.c`'s usage for the single-algorithm tools
/// (b2sum as "BLAKE2"), `cksum.c`'s (CRC only, no options) and `sum.c`'s.
fn help_8_32(p: Personality, prog: &str) -> String {
    let name = p.name();
    let info = match p {
        Personality::Sha224sum | Personality::Sha256sum | Personality::Sha384sum | Personality::Sha512sum => {
            "sha2 utilities".to_string()
        }
        _ => format!("{name} invocation"),
    };
    let footer = format!(
        "\nGNU coreutils online help: <https://www.gnu.org/software/coreutils/>\n\
         Report any translation bugs to <https://translationproject.org/team/>\n\
         Full documentation <https://www.gnu.org/software/coreutils/{name}>\n\
         or available locally via: info '(coreutils) {info}'\n"
    );
    let help_version = "      --help     display this help and exit\n\
                        \x20     --version  output version information and exit\n";
    let mut s = String::new();
    match p {
        Personality::Cksum => {
            s.push_str(&format!(
                "Usage: {prog} [FILE]...\n  or:  {prog} [OPTION]\n\
                 Print CRC checksum and byte counts of each FILE.\n\n"
            ));
            s.push_str(help_version);
        }
        Personality::Sum => {
            s.push_str(&format!(
                "Usage: {prog} [OPTION]... [FILE]...\n\
                 Print checksum and block counts for each FILE.\n\
                 \n\
                 With no FILE, or when FILE is -, read standard input.\n\
                 \n\
                 \x20 -r              use BSD sum algorithm, use 1K blocks\n\
                 \x20 -s, --sysv      use System V sum algorithm, use 512 bytes blocks\n"
            ));
            s.push_str(help_version);
        }
        _ => {
            let (tag, bits, rfc) = match p {
                Personality::Md5sum => ("MD5", 128, "RFC 1321"),
                Personality::Sha1sum => ("SHA1", 160, "FIPS-180-1"),
                Personality::Sha224sum => ("SHA224", 224, "RFC 3874"),
                Personality::Sha256sum => ("SHA256", 256, "FIPS-180-2"),
                Personality::Sha384sum => ("SHA384", 384, "FIPS-180-2"),
                Personality::Sha512sum => ("SHA512", 512, "FIPS-180-2"),
                _ => ("BLAKE2", 512, "RFC 7693"),
            };
            s.push_str(&format!(
                "Usage: {prog} [OPTION]... [FILE]...\n\
                 Print or check {tag} ({bits}-bit) checksums.\n\
                 \n\
                 With no FILE, or when FILE is -, read standard input.\n\
                 \n\
                 \x20 -b, --binary         read in binary mode\n\
                 \x20 -c, --check          read {tag} sums from the FILEs and check them\n"
            ));
            if p == Personality::B2sum {
                s.push_str(
                    "  -l, --length         digest length in bits; must not exceed the maximum for\n\
                     \x20                      the blake2 algorithm and must be a multiple of 8\n",
                );
            }
            s.push_str(
                "      --tag            create a BSD-style checksum\n\
                 \x20 -t, --text           read in text mode (default)\n\
                 \x20 -z, --zero           end each output line with NUL, not newline,\n\
                 \x20                      and disable file name escaping\n\
                 \n\
                 The following five options are useful only when verifying checksums:\n\
                 \x20     --ignore-missing  don't fail or report status for missing files\n\
                 \x20     --quiet          don't print OK for each successfully verified file\n\
                 \x20     --status         don't output anything, status code shows success\n\
                 \x20     --strict         exit non-zero for improperly formatted checksum lines\n\
                 \x20 -w, --warn           warn about improperly formatted checksum lines\n\
                 \n",
            );
            s.push_str(help_version);
            s.push_str(&format!(
                "\nThe sums are computed as described in {rfc}.  When checking, the input\n\
                 should be a former output of this program.  The default mode is to print a\n\
                 line with checksum, a space, a character indicating input mode ('*' for binary,\n\
                 ' ' for text or where binary is insignificant), and name for each FILE.\n\
                 \n\
                 Note: There is no difference between binary mode and text mode on GNU systems.\n"
            ));
        }
    }
    s.push_str(&footer);
    s
}

/// GNU `sum --help` (the same text in 9.1 and 9.11).
fn sum_help(prog: &str) -> String {
    format!(
        "Usage: {prog} [OPTION]... [FILE]...\n\
         Print or check BSD (16-bit) checksums.\n\
         \n\
         With no FILE, or when FILE is -, read standard input.\n\
         \n\
         \x20 -r              use BSD sum algorithm (the default), use 1K blocks\n\
         \x20 -s, --sysv      use System V sum algorithm, use 512 bytes blocks\n\
         \x20     --help        display this help and exit\n\
         \x20     --version     output version information and exit\n\
         \n\
         GNU coreutils online help: <https://www.gnu.org/software/coreutils/>\n\
         Report any translation bugs to <https://translationproject.org/team/>\n\
         Full documentation <https://www.gnu.org/software/coreutils/sum>\n\
         or available locally via: info '(coreutils) sum invocation'\n"
    )
}

/// The part of `--help` after the options: cksum's DIGEST list, or the
/// single-algorithm tools' note on the standard and the line format.
fn about_digests(p: Personality, new: bool) -> String {
    let mut s = String::new();
    if p == Personality::Cksum {
        s.push_str("\nDIGEST determines the digest algorithm and default output format:\n");
        s.push_str(
            "  sysv      (equivalent to sum -s)\n\
             \x20 bsd       (equivalent to sum -r)\n\
             \x20 crc       (equivalent to cksum)\n",
        );
        if new {
            s.push_str(
                "  crc32b    (only available through cksum)\n\
                 \x20 md5       (equivalent to md5sum)\n\
                 \x20 sha1      (equivalent to sha1sum)\n\
                 \x20 sha2      (equivalent to sha{224,256,384,512}sum)\n\
                 \x20 sha3      (only available through cksum)\n",
            );
        } else {
            s.push_str(
                "  md5       (equivalent to md5sum)\n\
                 \x20 sha1      (equivalent to sha1sum)\n\
                 \x20 sha224    (equivalent to sha224sum)\n\
                 \x20 sha256    (equivalent to sha256sum)\n\
                 \x20 sha384    (equivalent to sha384sum)\n\
                 \x20 sha512    (equivalent to sha512sum)\n",
            );
        }
        s.push_str(
            "  blake2b   (equivalent to b2sum)\n\
             \x20 sm3       (only available through cksum)\n\
             \n\
             When checking, the input should be a former output of this program,\n\
             or equivalent standalone program.\n",
        );
    } else {
        let rfc = match p {
            Personality::Md5sum => "RFC 1321",
            Personality::Sha1sum => "FIPS-180-1",
            Personality::Sha224sum => "RFC 3874",
            Personality::B2sum => "RFC 7693",
            _ => "FIPS-180-2",
        };
        s.push_str(&format!(
            "\nThe sums are computed as described in {rfc}.\n\
             When checking, the input should be a former output of this program.\n\
             The default mode is to print a line with: checksum, a space,\n\
             a character indicating input mode ('*' for binary, ' ' for text\n\
             or where binary is insignificant), and name for each FILE.\n\
             \n\
             Note: There is no difference between binary mode and text mode on GNU systems.\n"
        ));
    }
    s
}

/// What `--version` prints under a GNU name. mhash does not claim to be GNU:
/// the first line names mhash and its version, the second the GNU release
/// whose behaviour it reproduces.
pub fn gnu_version(p: Personality, compat: GnuCompat) -> String {
    if p == Personality::Mhash {
        return format!(
            "mhash {}\n\
             GNU-compatible personalities follow coreutils {} (MHASH_GNU_COMPAT).\n\
             License MIT OR Apache-2.0.\n",
            env!("CARGO_PKG_VERSION"),
            compat.release()
        );
    }
    format!(
        "{} (mhash) {}\n\
         Reproduces GNU coreutils {} {}.\n\
         License MIT OR Apache-2.0: <https://opensource.org/licenses/MIT>.\n\
         This is free software: you are free to change and redistribute it.\n\
         There is NO WARRANTY, to the extent permitted by law.\n",
        p.name(),
        env!("CARGO_PKG_VERSION"),
        p.name(),
        compat.release(),
    )
}

/// What `mhash -h` prints: a summary, one line per option or per pair of
/// options that go together, under 40 lines and 80 columns; `--help`
/// prints every option in full (clap's long help, as ripgrep's `-h` and
/// `--help` split them). Every option named here is one `--help` lists
/// (a test checks).
pub fn native_short_help() -> String {
    "\
Usage: mhash [-a ALGO] [OPTION]... [FILE]...
Compute and check checksums with the fastest implementation for this CPU.
With no FILE, or when FILE is -, read standard input.

  -a, --algorithm ALGO   sha256 (default), md5, blake3, ...; md5,sha256: both
                         in one read; -a help lists every algorithm
  -l, --length BITS      digest length (blake2b; sha2, sha3: 224 to 512)
  -c, --check            read checksums from the FILEs and check them
      --ignore-missing   with -c: skip the listed files that are not here
      --quiet, --status  with -c: no OK lines; no output, only the status
  -w, --warn, --strict   with -c: warn of, or fail on, improper lines
      --key KEYFILE      with -c: verify the checksum file's signature first
      --audit DIR        with -c: also list the files of DIR not as listed
  -r, --recursive        hash every regular file under each DIR
      --files-from LIST  also hash the files named in LIST (- : stdin)
  -j, --jobs N           files hashed at once (default: one per core)
      --tag, --untagged  BSD-style tagged lines; GNU's untagged lines
      --base64, --raw    digests in base64, or raw bytes, not hexadecimal
  -z, --zero             end lines with NUL, not newline
      --json             one JSON object per file
      --s3-etag, --gcs   an object store's checksum (also --hdfs, ...)
      --go-h1, --nar     one digest for a whole tree (Go's h1:, Nix's NAR)
      --state FILE       read only files changed since FILE recorded them
      --s3-report CSV    verify an S3 Batch Operations checksum report
      --no-progress      never show the progress bar (--progress: always)
      --install-links DIR  md5sum, sha256sum, ... in DIR as links to mhash
      --backends         list the implementation each algorithm uses here
  -h                     this summary
      --help             every option in full, the environment, exit status
      --version          print the version and exit
"
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GNU's test suite reads the DIGEST list from `cksum --help`: the lines
    /// indented by exactly two spaces and starting with a letter.
    #[test]
    fn cksum_help_lists_exactly_the_gnu_algorithms() {
        let help = gnu_help(Personality::Cksum, "cksum", GnuCompat::V9_11, false);
        let names: Vec<&str> = help
            .lines()
            .filter(|l| l.starts_with("  ") && l.as_bytes().get(2).is_some_and(u8::is_ascii_alphabetic))
            .map(|l| l.split_whitespace().next().unwrap_or(""))
            .collect();
        assert_eq!(
            names,
            [
                "sysv", "bsd", "crc", "crc32b", "md5", "sha1", "sha2", "sha3", "blake2b", "sm3"
            ]
        );
    }

    /// Under MHASH_GNU_COMPAT=9.1 the help is GNU 9.1's, byte for byte
    /// (captured from /usr/bin/sha256sum 9.1).
    #[test]
    fn sha256sum_help_is_gnu_9_1() {
        let want = "Usage: sha256sum [OPTION]... [FILE]...\n\
Print or check SHA256 (256-bit) checksums.\n\
\n\
With no FILE, or when FILE is -, read standard input.\n\
\x20 -b, --binary          read in binary mode\n\
\x20 -c, --check           read checksums from the FILEs and check them\n\
\x20     --tag             create a BSD-style checksum\n\
\x20 -t, --text            read in text mode (default)\n\
\x20 -z, --zero            end each output line with NUL, not newline,\n\
\x20                         and disable file name escaping\n\
\n\
The following five options are useful only when verifying checksums:\n\
\x20     --ignore-missing  don't fail or report status for missing files\n\
\x20     --quiet           don't print OK for each successfully verified file\n\
\x20     --status          don't output anything, status code shows success\n\
\x20     --strict          exit non-zero for improperly formatted checksum lines\n\
\x20 -w, --warn            warn about improperly formatted checksum lines\n\
\n\
\x20     --help        display this help and exit\n\
\x20     --version     output version information and exit\n\
\n\
The sums are computed as described in FIPS-180-2.\n\
When checking, the input should be a former output of this program.\n\
The default mode is to print a line with: checksum, a space,\n\
a character indicating input mode ('*' for binary, ' ' for text\n\
or where binary is insignificant), and name for each FILE.\n\
\n\
Note: There is no difference between binary mode and text mode on GNU systems.\n\
\n\
GNU coreutils online help: <https://www.gnu.org/software/coreutils/>\n\
Report any translation bugs to <https://translationproject.org/team/>\n\
Full documentation <https://www.gnu.org/software/coreutils/sha256sum>\n\
or available locally via: info '(coreutils) sha2 utilities'\n";
        assert_eq!(
            gnu_help(Personality::Sha256sum, "sha256sum", GnuCompat::V9_1, false),
            want
        );
    }

    /// Every option GNU's table gives a personality at a release, long and
    /// short, is one its (GNU's recorded) `--help` text names, but for the
    /// options GNU's cksum reads without listing them: `-b`/`-t` (GNU 9.1
    /// reads them only to refuse them; 9.4 and later accept them, and
    /// GNU 9.11's `cksum --help` names neither). `KNOWN_GAPS`: options
    /// GNU's text lists and mhash's does not (under `MHASH_GNU_COMPAT=9.4`
    /// cksum prints 9.1's text; GNU 9.4's digest.c usage lists `--base64`
    /// and `--raw`).
    #[test]
    fn gnu_help_names_every_option_of_the_table() {
        use crate::cli::flags::Flag;
        use crate::cli::getopt::{long_options, short_option};
        const KNOWN_GAPS: [(Personality, GnuCompat, Flag); 2] = [
            (Personality::Cksum, GnuCompat::V9_4, Flag::Base64),
            (Personality::Cksum, GnuCompat::V9_4, Flag::Raw),
        ];
        for (p, name) in Personality::GNU {
            for compat in [
                GnuCompat::V8_32,
                GnuCompat::V9_1,
                GnuCompat::V9_4,
                GnuCompat::V9_11,
            ] {
                let help = gnu_help(p, name, compat, false);
                let unlisted = |f: Flag| {
                    p == Personality::Cksum && matches!(f, Flag::Binary | Flag::Text)
                        || KNOWN_GAPS.contains(&(p, compat, f))
                };
                for f in long_options(p, compat) {
                    let long = format!("--{}", f.long());
                    assert_eq!(help.contains(&long), !unlisted(f), "{name} {compat:?}: {long}");
                }
                for c in 'a'..='z' {
                    if let Some(f) = short_option(p, compat, c) {
                        let short = format!("  -{c}");
                        assert_eq!(help.contains(&short), !unlisted(f), "{name} {compat:?}: -{c}");
                    }
                }
            }
        }
    }
}
