//! `--json`: JSON Lines records, one object per line on standard output.
//!
//! Hash mode writes one object per input:
//!
//! ```text
//! {"path":"abc","size":3,"algorithm":"sha256","digest":"ba7816bf..."}
//! {"path":"gone","algorithm":"sha256","error":"No such file or directory"}
//! ```
//!
//! Check mode writes one object per checksum line, with its outcome (`ok`,
//! `mismatch`, `unreadable`, `malformed`):
//!
//! ```text
//! {"checksum_file":"SHA256SUMS","line":1,"path":"abc","algorithm":"sha256","chosen_by":"file name","outcome":"ok"}
//! ```
//!
//! A path is always a JSON string (`path`, `checksum_file`); where the name
//! is not valid UTF-8 that string has U+FFFD in place of each bad sequence
//! and a second field, `path_bytes` (`checksum_file_bytes`), holds its
//! exact bytes as an array of numbers, so no name is lost and no field
//! changes type:
//!
//! ```text
//! {"path":"a\u{fffd}b","path_bytes":[97,255,98],"size":3,"algorithm":"md5","digest":"..."}
//! ```
//!
//! `--audit` writes one object per file with its category (`matching`,
//! `changed`, `missing`, `new`, `unreadable`) and symbol, then a summary:
//!
//! ```text
//! {"path":"a b","category":"changed","symbol":"*","line":2,"algorithm":"sha256"}
//! {"path":"extra","category":"new","symbol":"+"}
//! {"summary":{"matching":1,"changed":1,"missing":0,"new":1,"unreadable":0},"differs":true}
//! ```
//!
//! With `--key`, each checksum file's signature verdict comes first (see
//! [`signature_record`]):
//!
//! ```text
//! {"checksum_file":"SHA256SUMS","signature":{"verdict":"good","format":"OpenPGP","key_id":"8F3A...","signer":"Release <r@x>","file":"SHA256SUMS.asc"}}
//! ```
//!
//! Fields that do not apply are left out rather than `null`.

use super::{Console, LineAt, Verdict};
use crate::algo::Algorithm;
use crate::config::Encoding;
use serde::Serialize;

/// A file name as its JSON string (invalid UTF-8 replaced) and, only
/// where that lost something, its bytes.
struct Name<'a> {
    text: std::borrow::Cow<'a, str>,
    bytes: Option<&'a [u8]>,
}

impl<'a> Name<'a> {
    fn new(b: &'a [u8]) -> Name<'a> {
        match std::str::from_utf8(b) {
            Ok(s) => Name {
                text: s.into(),
                bytes: None,
            },
            Err(_) => Name {
                text: String::from_utf8_lossy(b),
                bytes: Some(b),
            },
        }
    }
}

#[derive(Serialize)]
struct HashRecord<'a> {
    path: std::borrow::Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path_bytes: Option<&'a [u8]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    algorithm: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    digest: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// Appends the hash-mode record for `name` and a newline to `out`: the
/// digest (hex, or base64 with `--base64`) and size in bytes on success,
/// else the error.
pub fn hash_record(
    out: &mut Vec<u8>,
    name: &[u8],
    algo: Algorithm,
    result: Result<(&[u8], u64), &std::io::Error>,
    encoding: Encoding,
) {
    let Name { text, bytes } = Name::new(name);
    let rec = match result {
        Ok((digest, size)) => HashRecord {
            path: text,
            path_bytes: bytes,
            size: Some(size),
            algorithm: algo.name(),
            digest: Some(super::digest_text(digest, encoding)),
            error: None,
        },
        Err(e) => HashRecord {
            path: text,
            path_bytes: bytes,
            size: None,
            algorithm: algo.name(),
            digest: None,
            error: Some(crate::os::strerror(e)),
        },
    };
    write_line(out, &rec);
}

/// How one checksum line turned out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The file's digest matched.
    Ok,
    /// The file's digest differed.
    Mismatch,
    /// The file could not be opened or read.
    Unreadable,
    /// The line is not a checksum line.
    Malformed,
}

#[derive(Serialize)]
struct CheckRecord<'a> {
    checksum_file: std::borrow::Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checksum_file_bytes: Option<&'a [u8]>,
    line: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<std::borrow::Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path_bytes: Option<&'a [u8]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    algorithm: Option<String>,
    /// How the algorithm was decided: `tag`, `-a`, `file name`, `length`,
    /// `fallback`, `layout`.
    #[serde(skip_serializing_if = "Option::is_none")]
    chosen_by: Option<&'a str>,
    outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// Appends the check-mode record for the line `at` and a newline to
/// `out`; `file` is the listed file and its algorithm (with how it was
/// chosen), absent for a line that could not be parsed.
pub fn check_record(
    out: &mut Vec<u8>,
    at: LineAt<'_>,
    file: Option<(&[u8], Algorithm)>,
    outcome: Outcome,
    error: Option<String>,
) {
    let cf = Name::new(at.checksum_file);
    let (path, path_bytes) = match file.map(|(n, _)| Name::new(n)) {
        Some(Name { text, bytes }) => (Some(text), bytes),
        None => (None, None),
    };
    let rec = CheckRecord {
        checksum_file: cf.text,
        checksum_file_bytes: cf.bytes,
        line: at.line,
        path,
        path_bytes,
        algorithm: file.map(|(_, a)| a.name()),
        chosen_by: file.map(|_| at.chosen),
        outcome,
        error,
    };
    write_line(out, &rec);
}

/// The signature verdict of one checksum file (`--key`), written before
/// its line records.
#[derive(Clone, Copy, Debug)]
pub struct SignatureVerdict<'a> {
    /// `good`, or why not: `bad`, `missing`, `unreadable`, `unsupported`,
    /// `unknown key`, `expired`, `revoked`.
    pub verdict: &'a str,
    /// `OpenPGP`, `minisign`, `signify`, `SSH`, where told.
    pub format: Option<&'a str>,
    /// The signing key's ID (OpenPGP fingerprint, minisign/signify key
    /// number, SSH `SHA256:` fingerprint), where known.
    pub key_id: Option<&'a str>,
    /// Who signed (user ID, principal, trusted comment), where known.
    pub signer: Option<&'a str>,
    /// The detached signature file; `None` where inline or not found.
    pub signature_file: Option<&'a [u8]>,
    /// Lines outside a clearsigned block, not checked.
    pub ignored_lines: u64,
    /// Each signature of a file that holds several (written as
    /// `"signatures":[{"key_id":"...","verdict":"good"},...]`); empty:
    /// left out.
    /// Pairs of key ID and verdict.
    pub signatures: &'a [(&'a str, &'a str)],
    /// The message, for a verdict other than `good`.
    pub error: Option<&'a str>,
}

/// Appends the `--key --json` record of a checksum file's signature and a
/// newline to `out`:
/// `{"checksum_file":"SHA256SUMS","signature":{"verdict":"good","format":"minisign","key_id":"...","signer":"...","file":"SHA256SUMS.minisig"}}`
/// (fields that do not apply left out; `ignored_lines` only when not 0).
pub fn signature_record(out: &mut Vec<u8>, checksum_file: &[u8], v: &SignatureVerdict<'_>) {
    #[derive(Serialize)]
    struct Sig<'a> {
        verdict: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        format: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        key_id: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        signer: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        file: Option<std::borrow::Cow<'a, str>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        file_bytes: Option<&'a [u8]>,
        #[serde(skip_serializing_if = "is_zero")]
        ignored_lines: u64,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        signatures: Vec<One<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'a str>,
    }
    #[derive(Serialize)]
    struct One<'a> {
        key_id: &'a str,
        verdict: &'a str,
    }
    #[derive(Serialize)]
    struct Rec<'a> {
        checksum_file: std::borrow::Cow<'a, str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        checksum_file_bytes: Option<&'a [u8]>,
        signature: Sig<'a>,
    }
    fn is_zero(n: &u64) -> bool {
        *n == 0
    }
    let cf = Name::new(checksum_file);
    let file = v.signature_file.map(Name::new);
    let rec = Rec {
        checksum_file: cf.text,
        checksum_file_bytes: cf.bytes,
        signature: Sig {
            verdict: v.verdict,
            format: v.format,
            key_id: v.key_id,
            signer: v.signer,
            file_bytes: file.as_ref().and_then(|f| f.bytes),
            file: file.map(|f| f.text),
            ignored_lines: v.ignored_lines,
            signatures: v
                .signatures
                .iter()
                .map(|&(key_id, verdict)| One { key_id, verdict })
                .collect(),
            error: v.error,
        },
    };
    write_line(out, &rec);
}

/// `--json` in hash mode: a record per digest, and one per algorithm for
/// an input that could not be read (after GNU's diagnostic).
pub(super) struct JsonHash {
    pub(super) encoding: Encoding,
    pub(super) line: Vec<u8>,
}

impl super::HashReport for JsonHash {
    fn digest(&mut self, con: &mut Console, name: &[u8], algo: Algorithm, digest: &[u8], size: u64) {
        self.line.clear();
        hash_record(&mut self.line, name, algo, Ok((digest, size)), self.encoding);
        con.write_out(&self.line);
    }
    fn store(
        &mut self,
        con: &mut Console,
        name: &[u8],
        store: &crate::algo::stores::Store,
        d: &crate::algo::stores::StoreDigest,
        size: u64,
    ) {
        self.line.clear();
        super::stores::store_json(&mut self.line, store, d, name, size);
        con.write_out(&self.line);
    }
    fn tree(&mut self, con: &mut Console, name: &[u8], kind: &str, value: &str) {
        #[derive(Serialize)]
        struct TreeRecord<'a> {
            path: std::borrow::Cow<'a, str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            path_bytes: Option<&'a [u8]>,
            tree: &'a str,
            digest: &'a str,
        }
        let Name { text, bytes } = Name::new(name);
        self.line.clear();
        write_line(
            &mut self.line,
            &TreeRecord {
                path: text,
                path_bytes: bytes,
                tree: kind,
                digest: value,
            },
        );
        con.write_out(&self.line);
    }
    fn error(&mut self, con: &mut Console, name: &[u8], algos: &[Algorithm], e: &std::io::Error) {
        con.error_io(name, e);
        for &algo in algos {
            self.line.clear();
            hash_record(&mut self.line, name, algo, Err(e), self.encoding);
            con.write_out(&self.line);
        }
    }
}

/// `--json` in check mode: a record per checksum line (`--quiet` leaves
/// out the `ok` ones).
pub(super) struct JsonCheck {
    pub(super) quiet: bool,
}

impl super::CheckReport for JsonCheck {
    fn verified(&mut self, con: &mut Console, at: LineAt<'_>, name: &[u8], algo: Algorithm, v: Verdict<'_>) {
        let (outcome, error) = match v {
            Verdict::Ok if self.quiet => return,
            Verdict::Ok => (Outcome::Ok, None),
            Verdict::Mismatch => (Outcome::Mismatch, None),
            Verdict::Unreadable(e) => (Outcome::Unreadable, Some(crate::os::strerror(e))),
        };
        let mut out = Vec::new();
        check_record(&mut out, at, Some((name, algo)), outcome, error);
        con.write_out(&out);
    }
    fn misformatted(&mut self, con: &mut Console, at: LineAt<'_>) {
        let mut out = Vec::new();
        check_record(&mut out, at, None, Outcome::Malformed, None);
        con.write_out(&out);
    }
}

#[derive(Serialize)]
struct AuditRecord<'a> {
    path: std::borrow::Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path_bytes: Option<&'a [u8]>,
    category: &'static str,
    symbol: char,
    /// The checksum-file line of a listed file.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    algorithm: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// Appends `--audit --json`'s record for the file `name` (relative to the
/// audited directory) and a newline to `out`: its category, and for a
/// listed file its line and algorithm; `error` for an unreadable one.
pub fn audit_record(
    out: &mut Vec<u8>,
    name: &[u8],
    cat: super::Category,
    listed: Option<(u64, Algorithm)>,
    error: Option<&std::io::Error>,
) {
    let Name { text, bytes } = Name::new(name);
    let rec = AuditRecord {
        path: text,
        path_bytes: bytes,
        category: cat.name(),
        symbol: cat.symbol(),
        line: listed.map(|(l, _)| l),
        algorithm: listed.map(|(_, a)| a.name()),
        error: error.map(crate::os::strerror),
    };
    write_line(out, &rec);
}

/// Appends `--audit --json`'s last record to `out`: the count of each
/// category and whether the audit passed, as
/// `{"summary":{"matching":N,"changed":N,"missing":N,"new":N,"unreadable":N},"differs":BOOL}`.
pub fn audit_summary_record(out: &mut Vec<u8>, counts: &super::AuditCounts) {
    #[derive(Serialize)]
    struct Summary {
        matching: u64,
        changed: u64,
        missing: u64,
        new: u64,
        unreadable: u64,
    }
    #[derive(Serialize)]
    struct Rec {
        summary: Summary,
        differs: bool,
    }
    use super::Category as C;
    let rec = Rec {
        summary: Summary {
            matching: counts.get(C::Matching),
            changed: counts.get(C::Changed),
            missing: counts.get(C::Missing),
            new: counts.get(C::New),
            unreadable: counts.get(C::Unreadable),
        },
        differs: counts.differs(),
    };
    write_line(out, &rec);
}

/// `--audit --json`: a record per file (`--quiet` leaves out the
/// matching ones), then the summary record.
pub(super) struct JsonAudit {
    pub(super) quiet: bool,
}

impl super::CheckReport for JsonAudit {
    fn verified(&mut self, con: &mut Console, at: LineAt<'_>, name: &[u8], algo: Algorithm, v: Verdict<'_>) {
        let cat = super::Category::of(&v);
        if self.quiet && cat == super::Category::Matching {
            return;
        }
        let error = match v {
            Verdict::Unreadable(e) if cat == super::Category::Unreadable => Some(e),
            _ => None,
        };
        let mut out = Vec::new();
        audit_record(&mut out, name, cat, Some((at.line, algo)), error);
        con.write_out(&out);
    }
    fn misformatted(&mut self, _: &mut Console, _: LineAt<'_>) {}
    fn found(
        &mut self,
        con: &mut Console,
        name: &[u8],
        cat: super::Category,
        error: Option<&std::io::Error>,
    ) {
        let mut out = Vec::new();
        audit_record(&mut out, name, cat, None, error);
        con.write_out(&out);
    }
    fn audit_summary(&mut self, con: &mut Console, counts: &super::AuditCounts) {
        let mut out = Vec::new();
        audit_summary_record(&mut out, counts);
        con.write_out(&out);
    }
}

fn write_line<T: Serialize>(out: &mut Vec<u8>, rec: &T) {
    // Serializing these plain structs into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, rec);
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_are_not_utf8_keep_a_string_and_add_their_bytes() {
        let mut out = Vec::new();
        let algo = Algorithm::new(crate::algo::AlgoKind::Md5);
        hash_record(&mut out, b"a\xffb", algo, Ok((&[0xab, 0xcd], 7)), Encoding::Hex);
        hash_record(&mut out, b"ab", algo, Ok((&[0xab, 0xcd], 7)), Encoding::Hex);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"path\":\"a\u{fffd}b\",\"path_bytes\":[97,255,98],\"size\":7,\"algorithm\":\"md5\",\"digest\":\"abcd\"}\n\
             {\"path\":\"ab\",\"size\":7,\"algorithm\":\"md5\",\"digest\":\"abcd\"}\n"
        );
    }
}
