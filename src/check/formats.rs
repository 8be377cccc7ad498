//! The checksum files real projects publish, read by `mhash -c` (the
//! native face only; GNU's personalities read lines as GNU does): what
//! surrounds or encodes the checksum lines, turned into plain lines for
//! [`super::parse`].
//!
//! - a UTF-8 byte-order mark at the start (Windows editors);
//! - UTF-16LE/BE with a byte-order mark (what PowerShell's `>` writes),
//!   decoded to UTF-8 as it is read ([`Utf16`]);
//! - OpenPGP cleartext signatures (`SHA256SUMS.asc`, Fedora's
//!   `*-CHECKSUM`, Node.js's `SHASUMS256.txt.asc`; RFC 4880 §7): the armor
//!   header, its `Hash:` lines and the signature block are skipped, and
//!   dash-escaped lines (`- ...`) unescaped;
//! - Gentoo's `DIGESTS` (`# BLAKE2B HASH` / `# SHA512 HASH` before each
//!   group of lines): the header names the algorithm of the lines below it;
//! - OpenSSL 3's `openssl dgst` lines, `SHA2-256(f)= hex` and
//!   `BLAKE2B-512(f)= hex`: the OpenSSL names become the tags GNU writes;
//! - digest-only files (`kubectl.sha256`, Maven's `x.jar.sha1`): a line of
//!   a lone digest names the file the checksum file's name stands for
//!   (`kubectl.sha256` -> `kubectl`, beside it);
//! - FreeBSD `distinfo`, saved `certutil -hashfile` output, SFV,
//!   `rhash --bsd` lines and hashdeep files ([`super::layouts`]).

use crate::algo::AlgoKind;
use crate::algo::bits::ShasumMode;
use std::io::{self, Read};

/// Where a reader is in an OpenPGP cleartext-signed file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Armor {
    /// Outside any armor (or a plain file).
    #[default]
    Text,
    /// After `-----BEGIN PGP SIGNED MESSAGE-----`: `Hash:` header lines
    /// until the blank line that ends them.
    Headers,
    /// The signed text (dash-escaped).
    Signed,
    /// Inside `-----BEGIN PGP SIGNATURE-----` ... `-----END ...-----`.
    Signature,
}

/// What a raw line of a checksum file is, for the native face.
#[derive(Debug, PartialEq, Eq)]
pub enum Prep<'a> {
    /// Not a checksum line and not to be counted as a malformed one
    /// (armor, a header comment already taken).
    Skip,
    /// A header naming the algorithm of the lines that follow (Gentoo).
    Hint(AlgoKind),
    /// A line for the parser.
    Line(&'a [u8]),
    /// A line for the parser, rewritten (an OpenSSL 3 tag, a certutil
    /// record).
    Owned(Vec<u8>),
    /// A FreeBSD `distinfo` `SIZE (NAME) = BYTES` line: the size the file
    /// must have ([`super::layouts::distinfo`]).
    Size(Vec<u8>, u64),
    /// An SFV line, `NAME CRC32`, or RHash's `CRC32 (NAME) = hex`: the
    /// name and the CRC-32 (zlib's, `-a crc32b`) as 4 bytes
    /// ([`super::layouts::sfv_line`], [`super::layouts::rhash_bsd`]).
    Sfv(Vec<u8>, Vec<u8>),
    /// A hashdeep file's line: its digests, name and size
    /// ([`super::layouts::Hashdeep`]).
    Hashdeep(super::layouts::HashdeepRow),
}

/// The native face's line preparation for one checksum file.
#[derive(Debug, Default)]
pub struct Prepare {
    armor: Armor,
    first: bool,
    certutil: super::layouts::Certutil,
    /// SFV lines are read: the file is named `*.sfv`, or a `;` comment
    /// (SFV's) was seen.
    sfv: bool,
    hashdeep: super::layouts::Hashdeep,
}

impl Prepare {
    /// A preparer at the start of a checksum file.
    pub fn new() -> Prepare {
        Prepare {
            armor: Armor::Text,
            first: true,
            certutil: Default::default(),
            sfv: false,
            hashdeep: Default::default(),
        }
    }

    /// A preparer at the start of the checksum file named `checkfile`
    /// (`*.sfv`, case-blind, holds SFV lines).
    pub fn for_file(checkfile: &[u8]) -> Prepare {
        let mut p = Prepare::new();
        p.sfv = checkfile.len() >= 4 && checkfile[checkfile.len() - 4..].eq_ignore_ascii_case(b".sfv");
        p
    }

    /// Prepares one line (its LF/CRLF ending removed).
    pub fn line<'a>(&mut self, mut l: &'a [u8]) -> Prep<'a> {
        if std::mem::take(&mut self.first)
            && let Some(rest) = l.strip_prefix(b"\xEF\xBB\xBF")
        {
            l = rest;
        }
        let trimmed = trim_end(l);
        match self.armor {
            Armor::Text | Armor::Signed if trimmed == b"-----BEGIN PGP SIGNED MESSAGE-----" => {
                self.armor = Armor::Headers;
                return Prep::Skip;
            }
            Armor::Headers => {
                if trimmed.is_empty() {
                    self.armor = Armor::Signed;
                }
                return Prep::Skip;
            }
            Armor::Text | Armor::Signed if trimmed == b"-----BEGIN PGP SIGNATURE-----" => {
                self.armor = Armor::Signature;
                return Prep::Skip;
            }
            Armor::Signature => {
                if trimmed == b"-----END PGP SIGNATURE-----" {
                    self.armor = Armor::Text;
                }
                return Prep::Skip;
            }
            Armor::Signed => {
                // RFC 4880 §7.1: a line of the signed text that starts with
                // `-` is written as `- -...`.
                if let Some(rest) = l.strip_prefix(b"- ") {
                    l = rest;
                }
            }
            Armor::Text => {}
        }
        // SFV's comments (cksfv, RapidCRC, QuickSFV and TeraCopy headers).
        if l.first() == Some(&b';') {
            self.sfv = true;
            return Prep::Skip;
        }
        if self.sfv
            && let Some((name, crc)) = super::layouts::sfv_line(trimmed)
        {
            return Prep::Sfv(name, crc);
        }
        match self.hashdeep.line(trimmed) {
            Some(super::layouts::HashdeepLine::Skip) => return Prep::Skip,
            Some(super::layouts::HashdeepLine::Row(row)) => return Prep::Hashdeep(row),
            None => {}
        }
        if let Some(taken) = self.certutil.line(trimmed) {
            return taken.map_or(Prep::Skip, Prep::Owned);
        }
        match super::layouts::distinfo(trimmed) {
            Some(super::layouts::Distinfo::Timestamp) => return Prep::Skip,
            Some(super::layouts::Distinfo::Size { name, size }) => return Prep::Size(name, size),
            None => {}
        }
        match super::layouts::rhash_bsd(trimmed) {
            Some(super::layouts::Rhash::Tagged(line)) => return Prep::Owned(line),
            Some(super::layouts::Rhash::Crc32(name, crc)) => return Prep::Sfv(name, crc),
            None => {}
        }
        if let Some(kind) = header_hint(trimmed) {
            return Prep::Hint(kind);
        }
        if let Some(rewritten) = openssl_tag(l) {
            return Prep::Owned(rewritten);
        }
        Prep::Line(l)
    }
}

/// OpenSSL 3 names digests `SHA2-256`, `SHA2-512/256`, `BLAKE2B-512`,
/// `SHA3-256` (`openssl dgst -sha256 f` prints `SHA2-256(f)= hex`): the
/// line with GNU's tag instead (`SHA256(f)= hex`, `BLAKE2b(f)= hex`), or
/// `None` when it does not start with one of those names and `(`.
fn openssl_tag(l: &[u8]) -> Option<Vec<u8>> {
    if !matches!(l.first(), Some(b'S' | b'B')) {
        return None;
    }
    AlgoKind::ALL.into_iter().find_map(|k| {
        let info = k.info();
        let rest = l.strip_prefix(info.openssl_name?.as_bytes())?;
        let tag = info.tag?;
        rest.starts_with(b"(").then(|| [tag.as_bytes(), rest].concat())
    })
}

fn trim_end(l: &[u8]) -> &[u8] {
    let end = l
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |p| p + 1);
    &l[..end]
}

/// Gentoo `DIGESTS`' `# SHA512 HASH` / `# BLAKE2B HASH` line: the
/// algorithm of the lines after it (by its `-a` name, case-blind).
fn header_hint(l: &[u8]) -> Option<AlgoKind> {
    let s = std::str::from_utf8(l.strip_prefix(b"#")?).ok()?;
    let mut words = s.split_whitespace();
    let (name, hash, end) = (words.next()?, words.next()?, words.next());
    if !hash.eq_ignore_ascii_case("hash") || end.is_some() {
        return None;
    }
    AlgoKind::from_name(&name.to_ascii_lowercase())
}

/// The file a digest-only checksum file stands for: its name minus an
/// algorithm suffix (`dl/kubectl.sha256` -> `dl/kubectl`, `x.jar.sha1` ->
/// `x.jar`), where the suffix is one of the algorithm table's stems.
pub fn subject_of(checkfile: &[u8]) -> Option<Vec<u8>> {
    let dot = checkfile.iter().rposition(|&b| b == b'.')?;
    let slash = checkfile.iter().rposition(|&b| b == b'/').map_or(0, |p| p + 1);
    if dot <= slash {
        return None;
    }
    let ext = String::from_utf8_lossy(&checkfile[dot + 1..]).to_ascii_lowercase();
    let ext = ext.strip_suffix("sum").unwrap_or(&ext);
    AlgoKind::ALL
        .into_iter()
        .any(|k| k.info().file_stems.contains(&ext))
        .then(|| checkfile[..dot].to_vec())
}

/// True for a line that is a lone digest: hex or base64, no blank, no name.
pub fn lone_digest(l: &[u8]) -> bool {
    let t = trim_end(l);
    t.len() >= 8
        && t.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
}

/// Perl `shasum`'s line for a universal-newline or BITS reading
/// (`shasum -U f` writes `HEX Uf`, `shasum -0 f` writes `HEX ^f`; its
/// `verify` reads `^[ \t]*(\\?)([\da-fA-F]+)[ \t]([ *^U])(.+)`): the line
/// in GNU's form (`HEX  f`) and the mode. GNU reads the same line as the
/// one-space form naming `Uf`, so it is taken as shasum's only when
/// `exists` says `f` is there and `Uf` is not (a name beginning with `U`,
/// as `md5 -r` writes `Uninstall.exe`, keeps GNU's reading).
pub fn shasum_mode(l: &[u8], exists: impl Fn(&[u8]) -> bool) -> Option<(Vec<u8>, ShasumMode)> {
    let (escaped, body) = match l.strip_prefix(b"\\") {
        Some(rest) => (true, rest),
        None => (false, l),
    };
    let hex = body.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    if ![40, 56, 64, 96, 128].contains(&hex) {
        return None;
    }
    let rest = &body[hex..];
    let mode = match rest.get(..2)? {
        b" U" | b"\tU" => ShasumMode::Universal,
        b" ^" | b"\t^" => ShasumMode::Bits,
        _ => return None,
    };
    let name = &rest[2..];
    if name.is_empty() {
        return None;
    }
    let unescape = |n: &[u8]| {
        if escaped {
            crate::text::escape::unescape(n)
        } else {
            Some(n.to_vec())
        }
    };
    let (plain, marked) = (unescape(name)?, unescape(&rest[1..])?);
    if !exists(&plain) || exists(&marked) {
        return None;
    }
    let mut line = Vec::with_capacity(l.len() + 1);
    if escaped {
        line.push(b'\\');
    }
    line.extend_from_slice(&body[..hex]);
    line.extend_from_slice(b"  ");
    line.extend_from_slice(name);
    Some((line, mode))
}

/// GnuPG's `gpg --print-md ALGO FILE...` records (Apache projects publish
/// them as `x.tar.gz.sha512`): `NAME: ` and the digest in upper-case
/// groups of 2, 4 or 8 hex digits, wrapped onto indented lines (a long
/// name puts all the groups on the lines after it); `gpg --print-md '*'`
/// writes `NAME: ALGO = GROUPS`. Lines are gathered with [`PrintMd::line`]
/// and each finished record comes back as a GNU line (`HEX  NAME`, or
/// `ALGO (NAME) = HEX` when it names its algorithm).
#[derive(Debug, Default)]
pub struct PrintMd {
    /// The record being gathered.
    open: Option<MdRecord>,
}

/// One `gpg --print-md` record, as far as it has been read.
#[derive(Debug)]
struct MdRecord {
    /// Its first line's number.
    at: u64,
    /// The file's name.
    name: Vec<u8>,
    /// The algorithm's name, when the record gives it (`--print-md '*'`).
    algo: Option<Vec<u8>>,
    /// The digest's hex digits so far.
    hex: Vec<u8>,
}

impl PrintMd {
    /// Takes line `l` (number `at`) into the open record, or starts a
    /// record with it. Returns the record it ended, if any (its first
    /// line's number and the GNU line), and whether `l` was taken (if
    /// not, it is to be read as it is, after that record).
    pub fn line(&mut self, l: &[u8], at: u64) -> (Option<(u64, Vec<u8>)>, bool) {
        if let Some(MdRecord { hex, .. }) = &mut self.open
            && hex.len() < 128
            && let Some(more) = md_groups(l)
        {
            hex.extend_from_slice(&more);
            return (None, true);
        }
        let finished = self.finish();
        if let Some(record) = md_start(l, at) {
            self.open = Some(record);
            return (finished, true);
        }
        (finished, false)
    }

    /// The open record, ended, as a GNU checksum line with its first
    /// line's number (at the end of the checksum file, or before a line
    /// that is not part of it).
    pub fn finish(&mut self) -> Option<(u64, Vec<u8>)> {
        let MdRecord { at, name, algo, hex } = self.open.take()?;
        let Some(tag) = algo else {
            return Some((at, untagged_line(&hex, &name)));
        };
        let escape = crate::text::escape::needs_escape(&name);
        let mut out = Vec::with_capacity(name.len() + hex.len() + 16);
        if escape {
            out.push(b'\\');
        }
        out.extend_from_slice(&tag);
        out.extend_from_slice(b" (");
        if escape {
            crate::text::escape::escape_into(&mut out, &name);
        } else {
            out.extend_from_slice(&name);
        }
        out.extend_from_slice(b") = ");
        out.extend_from_slice(&hex);
        Some((at, out))
    }
}

/// GNU's untagged checksum line `DIGEST  NAME` for `name` (escaped, with
/// the leading `\`, where it needs it: GNU digest.c `output_file`).
pub fn untagged_line(digest: &[u8], name: &[u8]) -> Vec<u8> {
    let escape = crate::text::escape::needs_escape(name);
    let mut line = Vec::with_capacity(digest.len() + name.len() + 3);
    if escape {
        line.push(b'\\');
    }
    line.extend_from_slice(digest);
    line.extend_from_slice(b"  ");
    if escape {
        crate::text::escape::escape_into(&mut line, name);
    } else {
        line.extend_from_slice(name);
    }
    line
}

/// The hex of a line made only of print-md groups (upper-case hex, even
/// lengths 2 to 8, separated by blanks), or `None`.
fn md_groups(l: &[u8]) -> Option<Vec<u8>> {
    let mut hex = Vec::new();
    for g in l.split(|&b| b == b' ' || b == b'\t').filter(|g| !g.is_empty()) {
        if !matches!(g.len(), 2 | 4 | 8) || !g.iter().all(|b| matches!(b, b'0'..=b'9' | b'A'..=b'F')) {
            return None;
        }
        hex.extend_from_slice(g);
    }
    (!hex.is_empty()).then_some(hex)
}

/// A record's first line: `NAME: GROUPS`, `NAME: ` (the groups follow),
/// or `NAME: ALGO = GROUPS`; the last `: ` after which the rest fits
/// ends the name.
fn md_start(l: &[u8], at: u64) -> Option<MdRecord> {
    let record = |name: &[u8], algo: Option<&[u8]>, hex| MdRecord {
        at,
        name: name.to_vec(),
        algo: algo.map(<[u8]>::to_vec),
        hex,
    };
    let mut at = l.len();
    loop {
        // The last `: ` wholly before `at` (memrchr: every line of a
        // checksum file comes here).
        let mut end = at.saturating_sub(1);
        let p = loop {
            let q = memchr::memrchr(b':', &l[..end])?;
            if l[q + 1] == b' ' {
                break q;
            }
            end = q;
        };
        at = p;
        if p == 0 {
            return None;
        }
        let (name, rest) = (&l[..p], &l[p + 2..]);
        if rest.iter().all(|&b| b == b' ') {
            return Some(record(name, None, Vec::new()));
        }
        if let Some(hex) = md_groups(rest) {
            return Some(record(name, None, hex));
        }
        let trimmed = rest.trim_ascii_start();
        if let Some(eq) = trimmed.windows(3).position(|w| w == b" = ")
            && trimmed[..eq].iter().all(|b| b.is_ascii_alphanumeric())
            && let Some(hex) = md_groups(&trimmed[eq + 3..])
        {
            return Some(record(name, Some(&trimmed[..eq]), hex));
        }
    }
}

/// Decodes UTF-16 (little- or big-endian, as the byte-order mark said) to
/// UTF-8 as it is read; an unpaired surrogate becomes U+FFFD.
pub struct Utf16<R> {
    inner: R,
    big_endian: bool,
    out: Vec<u8>,
    at: usize,
    pending: Vec<u8>,
    eof: bool,
}

impl<R: Read> Utf16<R> {
    /// Wraps `inner`, positioned just after the byte-order mark.
    pub fn new(inner: R, big_endian: bool) -> Utf16<R> {
        Utf16 {
            inner,
            big_endian,
            out: Vec::new(),
            at: 0,
            pending: Vec::new(),
            eof: false,
        }
    }

    fn refill(&mut self) -> io::Result<()> {
        let mut raw = [0u8; 8192];
        let n = crate::os::read_retrying(&mut self.inner, &mut raw)?;
        if n == 0 {
            self.eof = true;
        }
        self.pending.extend_from_slice(&raw[..n]);
        // Whole code units only; keep a trailing high surrogate for the
        // next read unless the input has ended.
        let mut units: Vec<u16> = self
            .pending
            .chunks_exact(2)
            .map(|c| {
                if self.big_endian {
                    u16::from_be_bytes([c[0], c[1]])
                } else {
                    u16::from_le_bytes([c[0], c[1]])
                }
            })
            .collect();
        let mut keep = self.pending.len() % 2;
        if !self.eof && units.last().is_some_and(|u| (0xD800..0xDC00).contains(u)) {
            units.pop();
            keep += 2;
        }
        let tail = self.pending.split_off(self.pending.len() - keep);
        self.pending = tail;
        self.out.clear();
        self.at = 0;
        for c in char::decode_utf16(units) {
            let mut b = [0u8; 4];
            self.out.extend_from_slice(
                c.unwrap_or(char::REPLACEMENT_CHARACTER)
                    .encode_utf8(&mut b)
                    .as_bytes(),
            );
        }
        Ok(())
    }
}

impl<R: Read> Read for Utf16<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.out.len() {
            if self.eof {
                return Ok(0);
            }
            self.refill()?;
        }
        let n = buf.len().min(self.out.len() - self.at);
        buf[..n].copy_from_slice(&self.out[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Standard input or a checksum file, with UTF-16 decoded when it starts
/// with a UTF-16 byte-order mark (the native face only).
pub fn decode_utf16(mut r: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
    let mut head = [0u8; 2];
    let mut got = 0;
    while got < 2 {
        match crate::os::read_retrying(&mut r, &mut head[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(match &head[..got] {
        [0xFF, 0xFE] => Box::new(Utf16::new(r, false)),
        [0xFE, 0xFF] => Box::new(Utf16::new(r, true)),
        _ => Box::new(io::Cursor::new(head[..got].to_vec()).chain(r)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clearsigned_files_leave_only_the_signed_lines() {
        // RFC 4880 §7 layout, as `gpg --clearsign` writes it.
        let file: &[&[u8]] = &[
            b"-----BEGIN PGP SIGNED MESSAGE-----",
            b"Hash: SHA256",
            b"",
            b"abcd  x",
            b"- -dash",
            b"-----BEGIN PGP SIGNATURE-----",
            b"",
            b"iQEzBAEBCAAdFiEE",
            b"=AbCd",
            b"-----END PGP SIGNATURE-----",
        ];
        let mut p = Prepare::new();
        let kept: Vec<Prep> = file
            .iter()
            .map(|l| p.line(l))
            .filter(|x| *x != Prep::Skip)
            .collect();
        assert_eq!(kept, [Prep::Line(b"abcd  x"), Prep::Line(b"-dash")]);
    }

    #[test]
    fn a_bom_and_gentoo_headers() {
        let mut p = Prepare::new();
        assert_eq!(p.line(b"\xEF\xBB\xBFabcd  x"), Prep::Line(b"abcd  x"));
        assert_eq!(p.line(b"# BLAKE2B HASH"), Prep::Hint(AlgoKind::Blake2b));
        assert_eq!(p.line(b"# SHA512 HASH"), Prep::Hint(AlgoKind::Sha512));
        assert_eq!(p.line(b"# a comment"), Prep::Line(b"# a comment"));
        // OpenSSL 3.0 `openssl dgst -sha256 f` / `-blake2b512`.
        assert_eq!(p.line(b"SHA2-256(f)= ab"), Prep::Owned(b"SHA256(f)= ab".to_vec()));
        assert_eq!(
            p.line(b"BLAKE2B-512(f)= ab"),
            Prep::Owned(b"BLAKE2b(f)= ab".to_vec())
        );
        assert_eq!(
            p.line(b"SHA2-256 is not a tag"),
            Prep::Line(b"SHA2-256 is not a tag")
        );
    }

    #[test]
    fn utf16_is_decoded_across_reads() {
        let text = "e3b0  f\u{e9}\n\u{1F600}  x\n";
        for be in [false, true] {
            let mut raw = if be { vec![0xFE, 0xFF] } else { vec![0xFF, 0xFE] };
            for u in text.encode_utf16() {
                raw.extend_from_slice(&if be { u.to_be_bytes() } else { u.to_le_bytes() });
            }
            // One byte per read: every split of a code unit and a pair.
            struct Trickle(Vec<u8>, usize);
            impl Read for Trickle {
                fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                    if self.1 == self.0.len() || buf.is_empty() {
                        return Ok(0);
                    }
                    buf[0] = self.0[self.1];
                    self.1 += 1;
                    Ok(1)
                }
            }
            let mut r = decode_utf16(Box::new(Trickle(raw, 0))).unwrap();
            let mut out = String::new();
            r.read_to_string(&mut out).unwrap();
            assert_eq!(out, text);
        }
    }

    #[test]
    fn digest_only_files_stand_for_the_file_beside_them() {
        assert_eq!(
            subject_of(b"dl/kubectl.sha256").as_deref(),
            Some(&b"dl/kubectl"[..])
        );
        assert_eq!(subject_of(b"x.jar.sha1").as_deref(), Some(&b"x.jar"[..]));
        assert_eq!(subject_of(b"x.jar.sha512sum").as_deref(), Some(&b"x.jar"[..]));
        assert_eq!(subject_of(b"SHA256SUMS"), None);
        assert_eq!(subject_of(b"a.d/sums"), None);
        assert!(lone_digest(b"e3b0c44298fc1c149afbf4c8996fb924"));
        assert!(!lone_digest(b"e3b0c44298fc1c149afbf4c8996fb924  x"));
    }

    #[test]
    fn print_md_records_become_gnu_lines() {
        let mut md = PrintMd::default();
        // A name with ": " in it; the last `: ` before the groups ends it.
        assert_eq!(
            md.line(b"a: b: 90 01 50 98 3C D2 4F B0  D6 96 3F 7D 28 E1 7F 72", 1),
            (None, true)
        );
        assert_eq!(
            md.line(b"x  y", 2),
            (
                Some((
                    1,
                    b"90015098"
                        .iter()
                        .chain(b"3CD24FB0D6963F7D28E17F72  a: b")
                        .copied()
                        .collect()
                )),
                false
            )
        );
        // Lower-case hex and odd groups are not print-md.
        assert_eq!(md.line(b"f: abcd abcd", 3), (None, false));
        assert_eq!(md.line(b"f: ABC", 4), (None, false));
        // A name needing escapes is written escaped.
        assert_eq!(
            md.line(b"a\\b: 90015098 3CD24FB0 D6963F7D 28E17F72", 5),
            (None, true)
        );
        assert_eq!(
            md.finish(),
            Some((
                5,
                b"\\90015098"
                    .iter()
                    .chain(b"3CD24FB0D6963F7D28E17F72  a\\\\b")
                    .copied()
                    .collect()
            ))
        );
        assert_eq!(md.finish(), None);
    }

    #[test]
    fn shasum_mode_lines() {
        let sha1 = "a9993e364706816aba3e25717850c26c9cd0d89d";
        let exists = |n: &[u8]| n == b"f";
        assert_eq!(
            shasum_mode(format!("{sha1} Uf").as_bytes(), exists),
            Some((format!("{sha1}  f").into_bytes(), ShasumMode::Universal))
        );
        assert_eq!(
            shasum_mode(format!("{sha1} ^f").as_bytes(), exists),
            Some((format!("{sha1}  f").into_bytes(), ShasumMode::Bits))
        );
        // `Uf` itself exists, or `f` does not: GNU's reading.
        assert_eq!(
            shasum_mode(format!("{sha1} Uf").as_bytes(), |n: &[u8]| n == b"Uf"
                || n == b"f"),
            None
        );
        assert_eq!(shasum_mode(format!("{sha1} Ug").as_bytes(), exists), None);
        // An MD5-length digest: shasum writes none.
        assert_eq!(shasum_mode(b"900150983cd24fb0d6963f7d28e17f72 Uf", exists), None);
    }
}
