//! Perl `shasum` 6.02's two loops (Debian's and macOS's `/usr/bin/shasum`,
//! over Digest::SHA 6.02): a line per file, and `verify` for `-c`. They
//! are not GNU's: check lines name their own algorithm (by tag or by the
//! digest's length) and reading mode (`*`, ` `, `U`, `^`), the messages
//! have their own words, and a checksum file that cannot be opened ends
//! the run with its errno as the exit status (Perl's `die`). Each rule
//! below is the script's (quoted where it helps) or Digest::SHA's.

use crate::algo::bits::{BitHasher, universal};
use crate::algo::{AlgoKind, Algorithm, Hasher};
use crate::config::{ShasumCheck, ShasumJob, ShasumRead};
use crate::report::Console;
use std::ffi::OsString;
use std::io::Read;

/// Runs `job` on `con`; returns the exit status.
pub fn run(con: &mut Console, job: &ShasumJob) -> i32 {
    match job {
        ShasumJob::Exit {
            stdout,
            stderr,
            status,
        } => {
            con.write_out(stdout);
            con.write_err(stderr);
            *status
        }
        ShasumJob::Hash {
            alg,
            mode,
            tag,
            files,
        } => {
            let mut status = 0;
            for f in files {
                let name = crate::os::os_bytes(f).into_owned();
                match sumfile(con, &name, *alg, *mode, None) {
                    Some(hex) => {
                        let line = hash_line(&name, *alg, *mode, *tag, &hex);
                        con.write_out(&line);
                        con.flush_now();
                    }
                    None => status = 1,
                }
            }
            status
        }
        ShasumJob::Check { alg, opts, files } => {
            let mut status = 0;
            for f in files {
                match verify(con, f, *alg, opts) {
                    Ok(true) => {}
                    Ok(false) => status = 1,
                    Err(code) => return code,
                }
            }
            status
        }
    }
}

/// The BSD tag of algorithm number `alg` (`%Tag`: `SHA256`, `SHA512/224`).
pub fn tag_name(alg: u32) -> String {
    match alg {
        512224 => "SHA512/224".to_string(),
        512256 => "SHA512/256".to_string(),
        n => format!("SHA{n}"),
    }
}

/// One output line: `HEX MNAME` or `SHAn (NAME) = HEX`, the line marked
/// with a leading `\` and the name's `\` and LF escaped when it holds
/// either (only those two: a CR stays as it is, unlike GNU 9.x).
pub fn hash_line(name: &[u8], alg: u32, mode: ShasumRead, tag: bool, hex: &str) -> Vec<u8> {
    let mut line = Vec::with_capacity(name.len() + hex.len() + 16);
    let mut shown = Vec::with_capacity(name.len());
    if name.iter().any(|&c| c == b'\n' || c == b'\\') {
        line.push(b'\\');
        for &c in name {
            match c {
                b'\\' => shown.extend_from_slice(b"\\\\"),
                b'\n' => shown.extend_from_slice(b"\\n"),
                c => shown.push(c),
            }
        }
    } else {
        shown.extend_from_slice(name);
    }
    if tag {
        line.extend_from_slice(tag_name(alg).as_bytes());
        line.extend_from_slice(b" (");
        line.extend_from_slice(&shown);
        line.extend_from_slice(b") = ");
        line.extend_from_slice(hex.as_bytes());
    } else {
        line.extend_from_slice(hex.as_bytes());
        line.push(b' ');
        line.push(mode.symbol());
        line.extend_from_slice(&shown);
    }
    line.push(b'\n');
    line
}

/// SHA-512/224 and SHA-512/256 (not in [`AlgoKind`]), RustCrypto's.
struct Sha512T<D>(D);

impl<D: sha2::Digest + Send> Hasher for Sha512T<D> {
    fn update(&mut self, data: &[u8]) {
        sha2::Digest::update(&mut self.0, data);
    }
    fn finalize(self: Box<Self>) -> Vec<u8> {
        self.0.finalize().to_vec()
    }
}

/// A hasher for shasum's algorithm number `alg` reading as `mode` says;
/// `None` for a number shasum does not know.
fn hasher(alg: u32, mode: ShasumRead) -> Option<Box<dyn Hasher>> {
    let kind = match alg {
        1 => Some(AlgoKind::Sha1),
        224 => Some(AlgoKind::Sha224),
        256 => Some(AlgoKind::Sha256),
        384 => Some(AlgoKind::Sha384),
        512 => Some(AlgoKind::Sha512),
        512224 | 512256 => None,
        _ => return None,
    };
    if mode == ShasumRead::Bits {
        let b = match kind {
            Some(k) => BitHasher::new(k)?,
            None => BitHasher::sha512_t(if alg == 512224 { 224 } else { 256 })?,
        };
        return Some(Box::new(b));
    }
    Some(match kind {
        Some(k) => Algorithm::new(k).hasher(),
        None if alg == 512224 => Box::new(Sha512T(<sha2::Sha512_224 as sha2::Digest>::new())),
        None => Box::new(Sha512T(<sha2::Sha512_256 as sha2::Digest>::new())),
    })
}

/// Perl's `-T` test on the first bytes read from a handle (perl 5.36
/// `pp_fttext`, at most 512 bytes): empty is text; valid UTF-8 (Perl's
/// lax form, a character cut at the end allowed) is text; a NUL is
/// binary; else binary when more than a third are "odd" (not printable
/// ASCII, nor a space other than VT, nor BS or ESC).
pub fn perl_is_text(first: &[u8]) -> bool {
    let buf = &first[..first.len().min(512)];
    if buf.is_empty() {
        return true;
    }
    if !buf.is_ascii() && lax_utf8(buf) {
        return true;
    }
    let mut odd = 0usize;
    for &c in buf {
        if c == 0 {
            odd += buf.len();
            break;
        }
        if (0x20..=0x7e).contains(&c) || matches!(c, b'\t' | b'\n' | 0x0c | b'\r' | 0x08 | 0x1b) {
            continue;
        }
        odd += 1;
    }
    odd * 3 <= buf.len()
}

/// Perl's `is_utf8_fixed_width_buf_flags(s, len, 0)`: well-formed UTF-8
/// as Perl extends it (surrogates, code points above U+10FFFF, up to
/// 6-byte sequences), no overlongs; the last character may be cut short.
fn lax_utf8(b: &[u8]) -> bool {
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let (n, min_second) = match c {
            0x00..=0x7f => {
                i += 1;
                continue;
            }
            0xc2..=0xdf => (2, 0x80),
            0xe0 => (3, 0xa0),
            0xe1..=0xef => (3, 0x80),
            0xf0 => (4, 0x90),
            0xf1..=0xf7 => (4, 0x80),
            0xf8 => (5, 0x88),
            0xf9..=0xfb => (5, 0x80),
            0xfc => (6, 0x84),
            0xfd => (6, 0x80),
            _ => return false,
        };
        for k in 1..n {
            let Some(&d) = b.get(i + k) else {
                return true; // cut at the end of the buffer
            };
            if !(0x80..=0xbf).contains(&d) || (k == 1 && d < min_second) {
                return false;
            }
        }
        i += n;
    }
    true
}

/// Opens `name` as Digest::SHA's `addfile` does: `-` is standard input;
/// a directory is opened read-write, to fail with EISDIR.
fn open_input(name: &[u8]) -> std::io::Result<Box<dyn Read>> {
    if name == b"-" {
        return Ok(Box::new(std::io::stdin()));
    }
    let path = path_of(c_string(name));
    let is_dir = std::fs::metadata(&path).is_ok_and(|m| m.is_dir());
    let f = std::fs::OpenOptions::new().read(true).write(is_dir).open(&path)?;
    Ok(Box::new(f))
}

/// Perl's test before a path reaches a system call (perl 5.36
/// `S_is_safe_syscall`): no NUL before the last byte.
fn perl_safe(name: &[u8]) -> bool {
    name.len() <= 1 || !name[..name.len() - 1].contains(&0)
}

/// The path the system call sees: Perl passes the string as a C string,
/// so a final NUL (which [`perl_safe`] lets through) ends it.
fn c_string(name: &[u8]) -> &[u8] {
    name.strip_suffix(b"\0").unwrap_or(name)
}

/// A path from a name's bytes (exact on Unix).
fn path_of(name: &[u8]) -> std::path::PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::path::PathBuf::from(std::ffi::OsStr::from_bytes(name))
    }
    #[cfg(not(unix))]
    {
        std::path::PathBuf::from(String::from_utf8_lossy(name).into_owned())
    }
}

/// One `read`, retried on EINTR a bounded number of times.
fn read_some(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    crate::os::read_retrying(r, buf)
}

/// Perl's warning for a path holding a NUL byte (perl 5.36
/// `S_is_safe_syscall`: the name up to the first NUL, `\0`, the rest up
/// to the next NUL), `at WHERE, <FH> line N.` in check mode.
fn nul_warning(con: &mut Console, name: &[u8], op: &str, at: &str, line: Option<usize>) {
    let cut = |b: &[u8]| b.split(|&c| c == 0).next().unwrap_or_default().to_vec();
    let first = name.iter().position(|&c| c == 0).unwrap_or(name.len());
    let mut w = format!("Invalid \\0 character in pathname for {op}: ").into_bytes();
    w.extend_from_slice(&name[..first]);
    w.extend_from_slice(b"\\0");
    w.extend_from_slice(&cut(name.get(first + 1..).unwrap_or_default()));
    w.extend_from_slice(format!(" at {at}").as_bytes());
    if let Some(n) = line {
        w.extend_from_slice(format!(", <FH> line {n}").as_bytes());
    }
    w.extend_from_slice(b".\n");
    con.write_err(&w);
}

/// Where Digest::SHA's `addfile` opens files (Debian's perl 5.36), for
/// Perl's NUL-in-pathname warnings.
const ADDFILE_AT: &str = "/usr/lib/x86_64-linux-gnu/perl/5.36/Digest/SHA.pm line 123";

/// The lower-case hex digest of `name` (shasum's `sumfile`), or `None`
/// after printing `shasum: NAME: STRERROR` when it cannot be opened or read.
/// `line`: the checksum file's line being verified, for Perl's warnings.
fn sumfile(
    con: &mut Console,
    name: &[u8],
    alg: u32,
    mode: ShasumRead,
    line: Option<usize>,
) -> Option<String> {
    if name != b"-" && !perl_safe(name) {
        // Perl refuses the path before any system call (`-d`, then
        // `sysopen`), with ENOENT.
        nul_warning(con, name, "ftdir", ADDFILE_AT, line);
        nul_warning(con, name, "open", ADDFILE_AT, line);
        let mut msg = name.to_vec();
        msg.extend_from_slice(b": No such file or directory");
        con.error_msg(&msg);
        return None;
    }
    let digest = open_input(name).and_then(|mut r| {
        let mut buf = vec![0u8; 64 * 1024];
        let first = read_some(&mut *r, &mut buf)?;
        let mut h = hasher(alg, mode).ok_or_else(|| std::io::Error::other("Unrecognized algorithm"))?;
        if mode == ShasumRead::Universal && perl_is_text(&buf[..first]) {
            h = universal(h);
        }
        h.update(&buf[..first]);
        if first > 0 {
            loop {
                let n = read_some(&mut *r, &mut buf)?;
                if n == 0 {
                    break;
                }
                h.update(&buf[..n]);
            }
        }
        Ok(h.finalize())
    });
    match digest {
        Ok(d) => Some(hex::encode(d)),
        Err(e) => {
            let mut msg = name.to_vec();
            msg.extend_from_slice(b": ");
            msg.extend_from_slice(crate::os::strerror(&e).as_bytes());
            con.error_msg(&msg);
            None
        }
    }
}

/// A parsed check line: (backslash-escaped, algorithm text, mode, name, sum).
type Line<'a> = (bool, Vec<u8>, u8, &'a [u8], &'a [u8]);

fn is_hex(c: &u8) -> bool {
    c.is_ascii_hexdigit()
}

/// Skips `^[ \t]*(\\?)`: the offset after it and whether `\` was there.
fn lead(l: &[u8]) -> (usize, bool) {
    let mut i = l.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
    let bslash = l.get(i) == Some(&b'\\');
    if bslash {
        i += 1;
    }
    (i, bslash)
}

/// `/^[ \t]*\\?SHA/`: the line is read as a BSD tag line.
fn is_tag_line(l: &[u8]) -> bool {
    let (i, _) = lead(l);
    l[i..].starts_with(b"SHA")
}

/// `/^[ \t]*(\\?)SHA(\S+) \((.+)\) = ([\da-fA-F]+)/` (no end anchor: what
/// follows the hex digits is ignored); the algorithm with `/` removed.
fn parse_tag(l: &[u8]) -> Option<Line<'_>> {
    let (i, bslash) = lead(l);
    let rest = l[i..].strip_prefix(b"SHA")?;
    let alg_len = rest.iter().take_while(|c| !c.is_ascii_whitespace()).count();
    if alg_len == 0 {
        return None;
    }
    let alg: Vec<u8> = rest[..alg_len].iter().copied().filter(|&c| c != b'/').collect();
    let body = rest[alg_len..].strip_prefix(b" (")?;
    // `(.+)` is greedy: the last `) = HEX` after at least one character.
    let end = (1..body.len())
        .rev()
        .find(|&k| body[k..].starts_with(b") = ") && body.get(k + 4).is_some_and(is_hex))?;
    let hex_len = body[end + 4..].iter().take_while(|c| is_hex(c)).count();
    Some((bslash, alg, b'*', &body[..end], &body[end + 4..end + 4 + hex_len]))
}

/// `/^[ \t]*(\\?)([\da-fA-F]+)[ \t]([ *^U])(.+)/`; the algorithm from the
/// digest's length (`%len2alg`; 56 and 64 are SHA-512/224 and SHA-512/256
/// when `-a` said so).
fn parse_gnu(l: &[u8], given: u32) -> Option<Line<'_>> {
    let (i, bslash) = lead(l);
    let hex_len = l[i..].iter().take_while(|c| is_hex(c)).count();
    if hex_len == 0 {
        return None;
    }
    let j = i + hex_len;
    if !matches!(l.get(j), Some(b' ' | b'\t')) {
        return None;
    }
    let mode = *l.get(j + 1).filter(|c| matches!(c, b' ' | b'*' | b'^' | b'U'))?;
    let name = &l[j + 2..];
    if name.is_empty() {
        return None;
    }
    let alg = match hex_len {
        40 => 1,
        56 if given == 512224 => 512224,
        56 => 224,
        64 if given == 512256 => 512256,
        64 => 256,
        96 => 384,
        128 => 512,
        _ => 0,
    };
    Some((bslash, alg.to_string().into_bytes(), mode, name, &l[i..j]))
}

/// shasum's `unescape`: `\\` is `\`, `\n` is LF, and (as its NUL
/// placeholder makes it) a NUL byte is `\` too; other `\x` stay.
fn unescape(name: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len());
    let mut i = 0;
    while i < name.len() {
        match (name[i], name.get(i + 1)) {
            (b'\\', Some(b'\\')) => {
                out.push(b'\\');
                i += 2;
            }
            (b'\\', Some(b'n')) => {
                out.push(b'\n');
                i += 2;
            }
            (0, _) => {
                out.push(b'\\');
                i += 1;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The algorithm number a check line's text names, if shasum knows it
/// (`%isAlg`, looked up as a string: `SHA0256` is not SHA-256).
fn known_alg(alg: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(alg).ok()?;
    crate::config::SHASUM_ALGORITHMS
        .iter()
        .copied()
        .find(|a| a.to_string() == s)
}

/// shasum's `verify` over one checksum file: `Ok(true)` when it passes,
/// `Err(status)` when it cannot be opened (the message printed; shasum
/// `die`s, with errno as the status).
fn verify(con: &mut Console, file: &OsString, given: u32, o: &ShasumCheck) -> Result<bool, i32> {
    let raw = crate::os::os_bytes(file).into_owned();
    let (shown, mut reader): (Vec<u8>, Box<dyn Read>) = if raw == b"-" {
        (b"standard input".to_vec(), Box::new(std::io::stdin()))
    } else {
        match std::fs::File::open(path_of(&raw)) {
            Ok(f) => (raw.clone(), Box::new(f)),
            Err(e) => {
                let mut msg = raw.clone();
                msg.extend_from_slice(b": ");
                msg.extend_from_slice(crate::os::strerror(&e).as_bytes());
                con.error_msg(&msg);
                return Err(e.raw_os_error().map_or(255, |c| c & 0xff));
            }
        }
    };
    // A read error (EISDIR for a directory) ends the file as Perl's
    // readline does: the lines read so far count.
    let mut text = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    while let Ok(n) = read_some(&mut *reader, &mut buf) {
        if n == 0 {
            break;
        }
        text.extend_from_slice(&buf[..n]);
    }
    let (mut err, mut fmt_errs, mut read_errs, mut match_errs) = (false, 0u64, 0u64, 0u64);
    let (mut num_fmt_ok, mut num_ok) = (0u64, 0u64);
    let lines = text.split_inclusive(|&c| c == b'\n');
    for (idx, line) in lines.enumerate() {
        let l = line.strip_suffix(b"\n").unwrap_or(line);
        if l.starts_with(b"#") {
            continue;
        }
        let parsed = if is_tag_line(l) {
            parse_tag(l)
        } else {
            parse_gnu(l, given)
        };
        let Some((bslash, alg, modesym, fname, sum)) = parsed else {
            improper(con, o, &shown, idx + 1, &mut fmt_errs, &mut err);
            continue;
        };
        let Some(alg) = known_alg(&alg) else {
            improper(con, o, &shown, idx + 1, &mut fmt_errs, &mut err);
            continue;
        };
        num_fmt_ok += 1;
        let fname = if bslash { unescape(fname) } else { fname.to_vec() };
        if o.ignore_missing {
            // `next if $ignore_missing && ! -e $fname` (a NUL: Perl warns,
            // and the file does not exist).
            if !perl_safe(&fname) {
                nul_warning(con, &fname, "ftis", "/usr/bin/shasum line 284", Some(idx + 1));
                continue;
            }
            if std::fs::metadata(path_of(c_string(&fname))).is_err() {
                continue;
            }
        }
        let mode = match modesym {
            b'*' => ShasumRead::Binary,
            b'U' => ShasumRead::Universal,
            b'^' => ShasumRead::Bits,
            _ => ShasumRead::Text,
        };
        let mut rsp = fname.clone();
        rsp.extend_from_slice(b": ");
        let mut is_ok = false;
        match sumfile(con, &fname, alg, mode, Some(idx + 1)) {
            None => {
                rsp.extend_from_slice(b"FAILED open or read\n");
                err = true;
                read_errs += 1;
            }
            Some(d) if sum.to_ascii_lowercase() == d.as_bytes() => {
                rsp.extend_from_slice(b"OK\n");
                is_ok = true;
                num_ok += 1;
            }
            Some(_) => {
                rsp.extend_from_slice(b"FAILED\n");
                err = true;
                match_errs += 1;
            }
        }
        if !(o.status || (o.quiet && is_ok)) {
            con.write_out(&rsp);
            con.flush_now();
        }
    }
    let plural = |n: u64, many: &str, one: &str| if n > 1 { many.to_string() } else { one.to_string() };
    if num_fmt_ok == 0 {
        let mut msg = shown.clone();
        msg.extend_from_slice(b": no properly formatted SHA checksum lines found");
        con.error_msg(&msg);
        err = true;
    } else if !o.status {
        if fmt_errs > 0 {
            let m = format!(
                "WARNING: {fmt_errs} line{} improperly formatted",
                plural(fmt_errs, "s are", " is")
            );
            con.error_msg(m.as_bytes());
        }
        if read_errs > 0 {
            let m = format!(
                "WARNING: {read_errs} listed file{} could not be read",
                plural(read_errs, "s", "")
            );
            con.error_msg(m.as_bytes());
        }
        if match_errs > 0 {
            let m = format!(
                "WARNING: {match_errs} computed checksum{} did NOT match",
                plural(match_errs, "s", "")
            );
            con.error_msg(m.as_bytes());
        }
    }
    if o.ignore_missing && num_ok == 0 && num_fmt_ok > 0 {
        if !o.status {
            let mut msg = shown.clone();
            msg.extend_from_slice(b": no file was verified");
            con.error_msg(&msg);
        }
        err = true;
    }
    Ok(!err)
}

/// An improperly formatted line: warned about with `-w`, counted, and a
/// failure with `--strict`.
fn improper(con: &mut Console, o: &ShasumCheck, shown: &[u8], lineno: usize, n: &mut u64, err: &mut bool) {
    if o.warn {
        let mut msg = shown.to_vec();
        msg.extend_from_slice(format!(": {lineno}: improperly formatted SHA checksum line").as_bytes());
        con.error_msg(&msg);
    }
    *n += 1;
    if o.strict {
        *err = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_lines() {
        let sha1 = "a9993e364706816aba3e25717850c26c9cd0d89d";
        let l = format!(" \\{sha1} Ua\\\\b");
        let (b, alg, m, name, sum) = parse_gnu(l.as_bytes(), 1).unwrap();
        assert!(b);
        assert_eq!(
            (alg.as_slice(), m, name, sum),
            (&b"1"[..], b'U', &b"a\\\\b"[..], sha1.as_bytes())
        );
        assert!(parse_gnu(format!("{sha1} xa").as_bytes(), 1).is_none());
        assert!(parse_gnu(format!("{sha1}  ").as_bytes(), 1).is_none());
        let l = b"SHA512/224 (a) = b) = ffzz";
        let (_, alg, m, name, sum) = parse_tag(l).unwrap();
        assert_eq!(
            (alg.as_slice(), m, name, sum),
            (&b"512224"[..], b'*', &b"a) = b"[..], &b"ff"[..])
        );
        assert!(parse_tag(b"SHA1(a) = ff").is_none());
        assert_eq!(unescape(b"a\\\\n\\n\\t\0"), b"a\\n\n\\t\\");
    }

    #[test]
    fn text_test() {
        assert!(perl_is_text(b""));
        assert!(perl_is_text(b"abc\r\n"));
        assert!(!perl_is_text(b"a\0b"));
        assert!(perl_is_text("héllo".as_bytes()));
        let mut b = vec![b'a'; 342];
        b.extend(std::iter::repeat_n(0x80, 1000));
        assert!(perl_is_text(&b));
        assert!(!perl_is_text(&b[1..]));
    }

    #[test]
    fn lines_out() {
        let l = hash_line(b"a\\b\nc\r", 512256, ShasumRead::Text, true, "ff");
        assert_eq!(l, b"\\SHA512/256 (a\\\\b\\nc\r) = ff\n");
        assert_eq!(hash_line(b"f", 1, ShasumRead::Bits, false, "ff"), b"ff ^f\n");
    }
}
