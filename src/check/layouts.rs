//! Record layouts of other tools' checksum files that `mhash -c` reads
//! (the native face only), each turned into what [`super::formats`]
//! hands on:
//!
//! - FreeBSD ports' `distinfo` (`make makesum` in the ports tree,
//!   Mk/Scripts/checksum.sh; porters-handbook, "distinfo"): a
//!   `TIMESTAMP = SECONDS` line, then per distfile `SHA256 (NAME) = HEX`
//!   (a GNU tagged line already) and `SIZE (NAME) = BYTES`, which is
//!   checked against the file's size ([`distinfo`]);
//! - `certutil -hashfile NAME ALGO` output saved to a file (Windows'
//!   certutil): `ALGO hash of NAME:`, the digest in hex on the next line
//!   (Windows 7 and older: `ALGO hash of file NAME:` and the bytes as hex
//!   pairs with a space between them), then `CertUtil: -hashfile command
//!   completed successfully.` ([`Certutil`]);
//! - SFV (Simple File Verification; what cksfv, RapidCRC, QuickSFV and
//!   TeraCopy write): `NAME CRC32` lines, the CRC-32 of zlib (`-a crc32b`)
//!   in 8 hex digits after the name's last space, `;` comment lines
//!   ([`sfv_line`]);
//! - RHash's `rhash --bsd` lines: GNU's tagged layout with the tag
//!   left-aligned in 5 columns (`MD5   (NAME) = HEX`, `SHA1  (NAME) =
//!   HEX`; longer tags as GNU writes them), and its `CRC32 (NAME) = hex`,
//!   zlib's CRC-32 (`-a crc32b`), which GNU gives no tag ([`rhash_bsd`]);
//! - hashdeep's files (`hashdeep -r DIR > known.txt`; hashdeep 4.4's
//!   "DFXML-less" text format): `%%%% HASHDEEP-1.0`, a column line
//!   `%%%% size,md5,sha256,filename`, `##` comment lines, then per file
//!   `SIZE,HEX,HEX,NAME` (the name last, commas in it kept); every listed
//!   digest mhash computes (MD5, SHA-1, SHA-256) is checked, and the
//!   size as a `distinfo` `SIZE` line is ([`Hashdeep`]).

/// What a `distinfo` line that is not a checksum line says.
#[derive(Debug, PartialEq, Eq)]
pub enum Distinfo {
    /// `TIMESTAMP = SECONDS`: when the file was made; nothing to check.
    Timestamp,
    /// `SIZE (NAME) = BYTES`: the size the file `name` must have.
    Size {
        /// The distfile's name as the line gives it.
        name: Vec<u8>,
        /// Its size in bytes.
        size: u64,
    },
}

/// A `distinfo` `TIMESTAMP` or `SIZE` line (FreeBSD ports'
/// Mk/Scripts/makesum.sh writes `TIMESTAMP = %s`, `SIZE (%s) = %d`); `None`
/// for any other line.
pub fn distinfo(l: &[u8]) -> Option<Distinfo> {
    let number = |s: &[u8]| -> Option<u64> {
        if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(s).ok()?.parse().ok()
    };
    if !matches!(l.first(), Some(b'T' | b'S')) {
        return None;
    }
    if let Some(rest) = l.strip_prefix(b"TIMESTAMP = ") {
        return number(rest).map(|_| Distinfo::Timestamp);
    }
    let rest = l.strip_prefix(b"SIZE (")?;
    let close = rest.iter().rposition(|&b| b == b')')?;
    let size = number(rest[close + 1..].strip_prefix(b" = ")?)?;
    Some(Distinfo::Size {
        name: rest[..close].to_vec(),
        size,
    })
}

/// True when the file at `path` exists and its size is not `size`. A file
/// that cannot be looked at is left to its digest line, which reports it.
pub fn size_differs(path: &[u8], size: u64) -> bool {
    std::fs::metadata(crate::os::bytes_os(path)).is_ok_and(|m| m.len() != size)
}

/// An SFV line (cksfv's `NAME CRC32`, the hex in upper case): the name
/// (everything before the last space, spaces kept) and the 4 bytes of the
/// CRC; `None` for another line.
pub fn sfv_line(l: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let space = memchr::memrchr(b' ', l)?;
    let (name, crc) = (&l[..space], &l[space + 1..]);
    if name.is_empty() || crc.len() != 8 || !crc.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    Some((name.to_vec(), hex::decode(crc).ok()?))
}

/// What an `rhash --bsd` line becomes.
#[derive(Debug, PartialEq, Eq)]
pub enum Rhash {
    /// A tag padded to 5 columns: the line as GNU writes it (`MD5 (NAME)
    /// = HEX`).
    Tagged(Vec<u8>),
    /// `CRC32 (NAME) = HEX`: the name and the 4 bytes of zlib's CRC-32.
    Crc32(Vec<u8>, Vec<u8>),
}

/// An `rhash --bsd` line RHash 1.4 writes differently from GNU: a tag
/// shorter than 5 characters padded with spaces to 5 (`MD5   (f) = ...`:
/// `MD5`, two spaces, then ` (`), or its `CRC32` line; `None` for
/// another line (a 5-character or longer tag is GNU's layout already).
pub fn rhash_bsd(l: &[u8]) -> Option<Rhash> {
    if let Some(rest) = l.strip_prefix(b"CRC32 (") {
        let sep = memchr::memmem::rfind(rest, b") = ")?;
        let (name, crc) = (&rest[..sep], &rest[sep + 4..]);
        if name.is_empty() || crc.len() != 8 || !crc.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        return Some(Rhash::Crc32(name.to_vec(), hex::decode(crc).ok()?));
    }
    let tag_len = l.iter().position(|&b| b == b' ')?;
    let tag = &l[..tag_len];
    if tag.is_empty()
        || tag_len >= 5
        || !tag.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        || l.len() < 7
        || !l[tag_len..6].iter().all(|&b| b == b' ')
        || l[6] != b'('
    {
        return None;
    }
    Some(Rhash::Tagged([tag, b" ", &l[6..]].concat()))
}

/// A column of a hashdeep file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    /// The file's size in bytes.
    Size,
    /// A digest mhash computes.
    Digest(crate::algo::AlgoKind),
    /// A digest mhash does not compute (hashdeep's `tiger`, `whirlpool`):
    /// not checked.
    Other,
    /// The file's name (hashdeep writes it last).
    Name,
}

/// One file of a hashdeep file: the digests to check (those mhash
/// computes), its name, and its size.
#[derive(Debug, PartialEq, Eq)]
pub struct HashdeepRow {
    /// Each checkable column's algorithm and digest bytes, in column
    /// order (a digest that is not hex of the algorithm's length is an
    /// empty one, which never matches).
    pub digests: Vec<(crate::algo::AlgoKind, Vec<u8>)>,
    /// The name as listed.
    pub name: Vec<u8>,
    /// The size listed, if the file has a `size` column.
    pub size: Option<u64>,
}

/// A hashdeep file being read: its columns, from the `%%%% size,...`
/// line (hashdeep 4.4, `hashdeep -r`, `md5deep`'s `-c`-less sibling).
#[derive(Debug, Default)]
pub struct Hashdeep {
    /// `%%%% HASHDEEP-1.0` was read: the column line comes next.
    started: bool,
    columns: Vec<Column>,
}

/// What a line of a hashdeep file is.
#[derive(Debug, PartialEq, Eq)]
pub enum HashdeepLine {
    /// A header or `##` comment line: nothing to check.
    Skip,
    /// A file's line.
    Row(HashdeepRow),
}

impl Hashdeep {
    /// Takes line `l` (its ending removed) when it is hashdeep's:
    /// `None` before `%%%% HASHDEEP-1.0`, and for a line that is not a
    /// hashdeep line (it is then read as any other line).
    pub fn line(&mut self, l: &[u8]) -> Option<HashdeepLine> {
        if l == b"%%%% HASHDEEP-1.0" {
            *self = Hashdeep {
                started: true,
                columns: Vec::new(),
            };
            return Some(HashdeepLine::Skip);
        }
        if !self.started {
            return None;
        }
        if let Some(cols) = l.strip_prefix(b"%%%% ") {
            self.columns = cols
                .split(|&b| b == b',')
                .map(|c| match c {
                    b"size" => Column::Size,
                    b"filename" => Column::Name,
                    b"md5" => Column::Digest(crate::algo::AlgoKind::Md5),
                    b"sha1" => Column::Digest(crate::algo::AlgoKind::Sha1),
                    b"sha256" => Column::Digest(crate::algo::AlgoKind::Sha256),
                    _ => Column::Other,
                })
                .collect();
            return Some(HashdeepLine::Skip);
        }
        if l.starts_with(b"##") {
            return Some(HashdeepLine::Skip);
        }
        // The name is the last column and may hold commas.
        if self.columns.last() != Some(&Column::Name) {
            return None;
        }
        let fields: Vec<&[u8]> = l.splitn(self.columns.len(), |&b| b == b',').collect();
        if fields.len() != self.columns.len() {
            return None;
        }
        let mut row = HashdeepRow {
            digests: Vec::new(),
            name: Vec::new(),
            size: None,
        };
        for (col, field) in self.columns.iter().zip(fields) {
            match col {
                Column::Size => {
                    let size = std::str::from_utf8(field).ok()?.parse().ok()?;
                    row.size = Some(size);
                }
                Column::Digest(kind) => {
                    let d = hex::decode(field)
                        .ok()
                        .filter(|d| d.len() * 8 == kind.info().bits as usize)
                        .unwrap_or_default();
                    row.digests.push((*kind, d));
                }
                Column::Other => {}
                Column::Name => row.name = field.to_vec(),
            }
        }
        (!row.name.is_empty()).then_some(HashdeepLine::Row(row))
    }
}

/// The algorithms `certutil -hashfile` names that mhash computes, as it
/// spells them (certutil also knows MD2 and MD4): GNU's tags.
const CERTUTIL_ALGOS: [&str; 5] = ["MD5", "SHA1", "SHA256", "SHA384", "SHA512"];

/// Gathers saved `certutil -hashfile` records, line by line.
#[derive(Debug, Default)]
pub struct Certutil {
    /// After an `ALGO hash of NAME:` line: its tag and name.
    open: Option<(&'static str, Vec<u8>)>,
}

impl Certutil {
    /// Takes line `l` (its ending and trailing blanks removed) when it
    /// belongs to a record: `Some(None)` for a line that checks nothing
    /// (the record's first line, certutil's closing status line),
    /// `Some(Some(line))` for the digest line, given back as GNU's tagged
    /// line (`SHA256 (NAME) = HEX`); `None` for a line that is not
    /// certutil's (an open record is then dropped).
    pub fn line(&mut self, l: &[u8]) -> Option<Option<Vec<u8>>> {
        if self.open.is_none() && !l.first().is_some_and(u8::is_ascii_uppercase) {
            return None;
        }
        if l == b"CertUtil: -hashfile command completed successfully." {
            self.open = None;
            return Some(None);
        }
        if let Some((tag, name)) = self.open.take()
            && let Some((hex, spaced)) = certutil_hex(l)
        {
            // Windows 7's `hash of file NAME:` goes with its spaced pairs.
            let name = match name.strip_prefix(b"file ") {
                Some(rest) if spaced => rest,
                _ => &name[..],
            };
            return Some(Some([tag.as_bytes(), b" (", name, b") = ", &hex].concat()));
        }
        let (tag, rest) = CERTUTIL_ALGOS.iter().find_map(|t| {
            let rest = l.strip_prefix(t.as_bytes())?.strip_prefix(b" hash of ")?;
            Some((*t, rest))
        })?;
        let name = rest.strip_suffix(b":").filter(|n| !n.is_empty())?;
        self.open = Some((tag, name.to_vec()));
        Some(None)
    }
}

/// certutil's digest line: hex digits (either case), or hex pairs with one
/// space between them; the digits, and whether they were spaced.
fn certutil_hex(l: &[u8]) -> Option<(Vec<u8>, bool)> {
    if l.len() >= 2 && l.iter().all(u8::is_ascii_hexdigit) {
        return Some((l.to_vec(), false));
    }
    let pairs: Vec<&[u8]> = l.split(|&b| b == b' ').collect();
    if pairs.len() < 2
        || !pairs
            .iter()
            .all(|p| p.len() == 2 && p.iter().all(u8::is_ascii_hexdigit))
    {
        return None;
    }
    Some((pairs.concat(), true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashdeep_lines() {
        // hashdeep 4.4 `hashdeep -r d`.
        let mut h = Hashdeep::default();
        assert_eq!(h.line(b"6,aa,bb,d/x"), None);
        assert_eq!(h.line(b"%%%% HASHDEEP-1.0"), Some(HashdeepLine::Skip));
        assert_eq!(
            h.line(b"%%%% size,md5,tiger,sha256,filename"),
            Some(HashdeepLine::Skip)
        );
        assert_eq!(h.line(b"## Invoked from: /tmp"), Some(HashdeepLine::Skip));
        let md5 = "900150983cd24fb0d6963f7d28e17f72";
        let sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(
            h.line(format!("3,{md5},00,{sha},d/a,b c").as_bytes()),
            Some(HashdeepLine::Row(HashdeepRow {
                digests: vec![
                    (crate::algo::AlgoKind::Md5, hex::decode(md5).unwrap()),
                    (crate::algo::AlgoKind::Sha256, hex::decode(sha).unwrap()),
                ],
                name: b"d/a,b c".to_vec(),
                size: Some(3),
            }))
        );
        // A bad digest never matches; a bad size is not hashdeep's line.
        let Some(HashdeepLine::Row(r)) = h.line(b"3,zz,00,11,d/a") else {
            panic!()
        };
        assert!(r.digests.iter().all(|(_, d)| d.is_empty()));
        assert_eq!(h.line(b"x,aa,00,bb,d/a"), None);
        assert_eq!(h.line(b"3,aa"), None);
    }

    #[test]
    fn rhash_bsd_lines() {
        // RHash 1.4.3 `rhash --bsd --md5 --sha1 --crc32 --sha256 f`.
        let h = "900150983cd24fb0d6963f7d28e17f72";
        assert_eq!(
            rhash_bsd(format!("MD5   (a b) = {h}").as_bytes()),
            Some(Rhash::Tagged(format!("MD5 (a b) = {h}").into_bytes()))
        );
        assert_eq!(
            rhash_bsd(b"SHA1  (x) = a9"),
            Some(Rhash::Tagged(b"SHA1 (x) = a9".to_vec()))
        );
        assert_eq!(
            rhash_bsd(b"CRC32 (two words.txt) = 363a3020"),
            Some(Rhash::Crc32(
                b"two words.txt".to_vec(),
                vec![0x36, 0x3a, 0x30, 0x20]
            ))
        );
        // GNU's own layouts, and near misses, are left alone.
        assert_eq!(rhash_bsd(format!("MD5 (a) = {h}").as_bytes()), None);
        assert_eq!(rhash_bsd(b"SHA256 (a) = 00"), None);
        assert_eq!(rhash_bsd(b"MD5    (a) = 00"), None);
        assert_eq!(rhash_bsd(b"CRC32 (a) = 363a302"), None);
        assert_eq!(rhash_bsd(b"MD5  "), None);
    }

    #[test]
    fn distinfo_lines() {
        assert_eq!(distinfo(b"TIMESTAMP = 1712345678"), Some(Distinfo::Timestamp));
        assert_eq!(
            distinfo(b"SIZE (curl-8.7.1.tar.xz) = 2707016"),
            Some(Distinfo::Size {
                name: b"curl-8.7.1.tar.xz".to_vec(),
                size: 2707016
            })
        );
        assert_eq!(
            distinfo(b"SIZE (dir/a (1).tgz) = 3"),
            Some(Distinfo::Size {
                name: b"dir/a (1).tgz".to_vec(),
                size: 3
            })
        );
        for other in [
            &b"TIMESTAMP = soon"[..],
            b"SIZE (f) = -1",
            b"SIZE (f) = ",
            b"SIZE f = 3",
            b"SHA256 (f) = 00",
        ] {
            assert_eq!(distinfo(other), None, "{}", other.escape_ascii());
        }
    }

    #[test]
    fn sfv_lines() {
        assert_eq!(
            sfv_line(b"b c.bin AF083B2D"),
            Some((b"b c.bin".to_vec(), vec![0xaf, 0x08, 0x3b, 0x2d]))
        );
        for other in [
            &b"a.txt 352441C"[..],
            b" 352441C2",
            b"a.txt 352441CX",
            b"352441C2",
        ] {
            assert_eq!(sfv_line(other), None, "{}", other.escape_ascii());
        }
    }

    #[test]
    fn certutil_records_become_tagged_lines() {
        let mut c = Certutil::default();
        assert_eq!(c.line(b"SHA256 hash of f.iso:"), Some(None));
        assert_eq!(c.line(b"00ff"), Some(Some(b"SHA256 (f.iso) = 00ff".to_vec())));
        assert_eq!(
            c.line(b"CertUtil: -hashfile command completed successfully."),
            Some(None)
        );
        // Windows 7: `hash of file NAME:`, spaced pairs.
        assert_eq!(c.line(b"SHA1 hash of file a b:"), Some(None));
        assert_eq!(c.line(b"a9 99 3e"), Some(Some(b"SHA1 (a b) = a9993e".to_vec())));
        // A record not followed by a digest line is dropped.
        assert_eq!(c.line(b"MD5 hash of f:"), Some(None));
        assert_eq!(c.line(b"d41d8cd98f00b204e9800998ecf8427e  f"), None);
        assert_eq!(c.line(b"00ff"), None);
        assert_eq!(c.line(b"MD2 hash of f:"), None);
        assert_eq!(c.line(b"SHA1 hash of :"), None);
    }
}
