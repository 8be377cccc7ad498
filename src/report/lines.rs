//! Checksum lines: the only place that formats them. Pure functions that
//! append one record's bytes to a buffer: GNU untagged (`HEX  NAME`, `*` for
//! binary), BSD tagged (`TAG (NAME) = HEX`), GNU cksum's legacy
//! `CHECKSUM SIZE NAME` for the CRC and sum algorithms, NUL-terminated
//! (`-z`), base64 and raw digests, with GNU's file-name escaping.

use crate::algo::{AlgoKind, Algorithm};
use crate::config::{Encoding, Format, Style};
use crate::text::escape;
use base64::Engine as _;

/// Each byte's two lowercase hex digits.
static HEX_PAIRS: [[u8; 2]; 256] = {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [DIGITS[i >> 4], DIGITS[i & 15]];
        i += 1;
    }
    t
};

/// Appends the text form of `digest` (hex or base64) to `out`.
pub fn encode_digest(out: &mut Vec<u8>, digest: &[u8], encoding: Encoding) {
    match encoding {
        Encoding::Hex => {
            // Straight into `out`, lowercase as GNU prints: `hex::encode`
            // builds a String a char at a time (about 950 instructions and
            // three allocations for an MD5 digest, a tenth of the per-file
            // work on many small files, on the thread that writes the
            // output in order; `encode_to_slice` still took 310, and a
            // `push` per digit 386, its capacity checked each time; into
            // the grown slice 221; a byte's two digits from one table
            // entry into a stack buffer, 64 digest bytes at a time, 136).
            let mut text = [0u8; 128];
            for chunk in digest.chunks(64) {
                for (pair, &b) in text.chunks_exact_mut(2).zip(chunk) {
                    pair.copy_from_slice(&HEX_PAIRS[usize::from(b)]);
                }
                out.extend_from_slice(&text[..chunk.len() * 2]);
            }
        }
        Encoding::Base64 => out.extend_from_slice(
            base64::engine::general_purpose::STANDARD
                .encode(digest)
                .as_bytes(),
        ),
        Encoding::Raw => out.extend_from_slice(digest),
    }
}

/// Appends one record for `name` to `out`.
///
/// `digest` is what [`crate::algo::Hasher::finalize`] returned; `size` is
/// the input length in bytes (used by the legacy CRC/sum lines only).
pub fn format_record(
    out: &mut Vec<u8>,
    algo: Algorithm,
    digest: &[u8],
    size: u64,
    name: &[u8],
    fmt: &Format,
) {
    if fmt.encoding == Encoding::Raw {
        out.extend_from_slice(digest);
        return;
    }
    // `/` between directories on every OS, so the line verifies anywhere.
    let name = &*crate::os::portable_name(name);
    let delim = if fmt.zero { b'\0' } else { b'\n' };
    // SFV (cksfv's `fprintf (fp, "%s %08X\n", name, crc)`): the name as
    // it is, a space, the CRC-32 in upper case.
    if fmt.style == Style::Sfv {
        out.extend_from_slice(name);
        out.push(b' ');
        out.extend_from_slice(hex::encode_upper(digest).as_bytes());
        out.push(delim);
        return;
    }
    if algo.kind.is_legacy() && !(fmt.legacy_base64 && fmt.encoding == Encoding::Base64) {
        let line = match algo.kind {
            AlgoKind::Sysv => {
                let v = u16::from_be_bytes([digest[0], digest[1]]);
                format!("{} {}", v, size.div_ceil(512))
            }
            AlgoKind::Bsd => {
                let v = u16::from_be_bytes([digest[0], digest[1]]);
                format!("{:05} {:>5}", v, size.div_ceil(1024))
            }
            _ => {
                let v = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
                format!("{v} {size}")
            }
        };
        out.extend_from_slice(line.as_bytes());
        if fmt.legacy_name {
            out.push(b' ');
            out.extend_from_slice(name);
        }
        out.push(delim);
        return;
    }
    if fmt.no_names {
        encode_digest(out, digest, fmt.encoding);
        out.push(delim);
        return;
    }
    let escape = !fmt.zero && escape::needs_escape_cr(name, fmt.escape_cr);
    if escape {
        out.push(b'\\');
    }
    let push_name = |out: &mut Vec<u8>| {
        if escape {
            escape::escape_into_cr(out, name, fmt.escape_cr);
        } else {
            out.extend_from_slice(name);
        }
    };
    // A legacy checksum in base64 (mhash's face) has no tag: untagged.
    let style = if algo.kind.is_legacy() {
        Style::Untagged
    } else {
        fmt.style
    };
    match style {
        Style::Tagged | Style::Sfv => {
            out.extend_from_slice(algo.tag().unwrap_or_default().as_bytes());
            out.extend_from_slice(b" (");
            push_name(out);
            out.extend_from_slice(b") = ");
            encode_digest(out, digest, fmt.encoding);
        }
        Style::Untagged => {
            // xxhsum -H3 writes `XXH3_` before the digest; its -c needs it.
            if let Some(prefix) = algo
                .kind
                .info()
                .hex_prefix
                .filter(|_| fmt.encoding == Encoding::Hex)
            {
                out.extend_from_slice(prefix.as_bytes());
            }
            encode_digest(out, digest, fmt.encoding);
            out.extend_from_slice(if fmt.binary { b" *" } else { b"  " });
            push_name(out);
        }
    }
    out.push(delim);
}

/// Checksum lines as [`Format`] says (GNU untagged, BSD tagged, legacy
/// CRC/sum, b3sum's `--no-names`), and GNU's diagnostic for an input that
/// could not be read.
pub(super) struct Lines {
    pub(super) format: Format,
    pub(super) line: Vec<u8>,
}

impl super::HashReport for Lines {
    fn digest(&mut self, con: &mut super::Console, name: &[u8], algo: Algorithm, digest: &[u8], size: u64) {
        self.line.clear();
        format_record(&mut self.line, algo, digest, size, name, &self.format);
        con.write_out(&self.line);
    }
    fn store(
        &mut self,
        con: &mut super::Console,
        name: &[u8],
        store: &crate::algo::stores::Store,
        d: &crate::algo::stores::StoreDigest,
        _: u64,
    ) {
        self.line.clear();
        super::stores::store_record(&mut self.line, store, d, name, &self.format);
        con.write_out(&self.line);
    }
    fn tree(&mut self, con: &mut super::Console, name: &[u8], _: &str, value: &str) {
        // `VALUE  NAME`, GNU's untagged layout (names escaped as GNU does).
        self.line.clear();
        let escape = !self.format.zero && escape::needs_escape(name);
        if escape {
            self.line.push(b'\\');
        }
        self.line.extend_from_slice(value.as_bytes());
        self.line.extend_from_slice(b"  ");
        if escape {
            escape::escape_into(&mut self.line, name);
        } else {
            self.line.extend_from_slice(name);
        }
        self.line.push(if self.format.zero { b'\0' } else { b'\n' });
        con.write_out(&self.line);
    }
    fn error(&mut self, con: &mut super::Console, name: &[u8], _: &[Algorithm], e: &std::io::Error) {
        con.error_input(name, e);
    }
}

/// `--audit`'s lines, as rclone `check --combined` prints them: the
/// category's symbol, a space, the name (relative to the audited
/// directory, shown as check mode's status lines show names), one file a
/// line on standard output; the counts on standard error at the end.
pub(super) struct AuditLines {
    /// `--quiet`: no `=` lines.
    pub(super) quiet: bool,
    pub(super) names: crate::config::StatusNames,
}

impl AuditLines {
    fn line(&self, con: &mut super::Console, cat: super::Category, name: &[u8]) {
        if self.quiet && cat == super::Category::Matching {
            return;
        }
        let mut out = Vec::with_capacity(name.len() + 3);
        out.push(cat.symbol() as u8);
        out.push(b' ');
        out.extend_from_slice(&super::status_name(self.names, name));
        out.push(b'\n');
        con.write_out(&out);
    }
}

impl super::CheckReport for AuditLines {
    fn verified(
        &mut self,
        con: &mut super::Console,
        _: super::LineAt<'_>,
        name: &[u8],
        _: Algorithm,
        v: super::Verdict<'_>,
    ) {
        self.line(con, super::Category::of(&v), name);
    }
    fn misformatted(&mut self, _: &mut super::Console, _: super::LineAt<'_>) {}
    fn found(
        &mut self,
        con: &mut super::Console,
        name: &[u8],
        cat: super::Category,
        _: Option<&std::io::Error>,
    ) {
        self.line(con, cat, name);
    }
    fn audit_summary(&mut self, con: &mut super::Console, counts: &super::AuditCounts) {
        AuditLines::summary(con, counts);
    }
}

impl AuditLines {
    /// The counts, a line per category on standard error.
    pub(super) fn summary(con: &mut super::Console, counts: &super::AuditCounts) {
        for cat in super::Category::ALL {
            let msg = format!("audit: {} {} ({})", counts.get(cat), cat.name(), cat.symbol());
            con.error_msg(msg.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(style: Style) -> Format {
        Format {
            style,
            binary: false,
            zero: false,
            escape_cr: true,
            encoding: Encoding::Hex,
            legacy_name: true,
            no_names: false,
            legacy_base64: false,
        }
    }

    // Expected lines are GNU coreutils 9.1 output for the same input.
    #[test]
    fn untagged_and_tagged_lines_match_gnu() {
        let algo = Algorithm::new(AlgoKind::Md5);
        let d = algo.digest(b"hello\n");
        let mut out = Vec::new();
        format_record(&mut out, algo, &d, 6, b"a\\b", &fmt(Style::Untagged));
        if cfg!(windows) {
            // A `\` is a separator there, written `/` (os::portable_name).
            assert_eq!(out, b"b1946ac92492d2347c6235b4d2611184  a/b\n");
        } else {
            assert_eq!(out, b"\\b1946ac92492d2347c6235b4d2611184  a\\\\b\n");
        }
        out.clear();
        format_record(&mut out, algo, &d, 6, b"top\nbottom", &fmt(Style::Tagged));
        assert_eq!(out, b"\\MD5 (top\\nbottom) = b1946ac92492d2347c6235b4d2611184\n");
    }

    #[test]
    fn legacy_lines_match_gnu() {
        let mut out = Vec::new();
        for (kind, want) in [
            (AlgoKind::Crc, "3015617425 6 a.txt\n"),
            (AlgoKind::Bsd, "36979     1 a.txt\n"),
            (AlgoKind::Sysv, "542 1 a.txt\n"),
        ] {
            out.clear();
            let algo = Algorithm::new(kind);
            format_record(
                &mut out,
                algo,
                &algo.digest(b"hello\n"),
                6,
                b"a.txt",
                &fmt(Style::Tagged),
            );
            assert_eq!(String::from_utf8_lossy(&out), want);
        }
    }
}
