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
//! A path is a JSON string when it is valid UTF-8, else an array of its
//! byte values, so no name is ever altered. Fields that do not apply are
//! left out rather than `null`.

use super::{Console, LineAt, Verdict};
use crate::algo::Algorithm;
use crate::config::Encoding;
use serde::Serialize;

/// A file name: a string when it is valid UTF-8, else its bytes.
#[derive(Serialize)]
#[serde(untagged)]
enum Name<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
}

impl<'a> Name<'a> {
    fn new(b: &'a [u8]) -> Name<'a> {
        match std::str::from_utf8(b) {
            Ok(s) => Name::Text(s),
            Err(_) => Name::Bytes(b),
        }
    }
}

#[derive(Serialize)]
struct HashRecord<'a> {
    path: Name<'a>,
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
    let rec = match result {
        Ok((digest, size)) => HashRecord {
            path: Name::new(name),
            size: Some(size),
            algorithm: algo.name(),
            digest: Some(super::digest_text(digest, encoding)),
            error: None,
        },
        Err(e) => HashRecord {
            path: Name::new(name),
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
    checksum_file: Name<'a>,
    line: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<Name<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    algorithm: Option<String>,
    /// How the algorithm was decided: `tag`, `-a`, `file name`, `length`,
    /// `fallback`.
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
    let rec = CheckRecord {
        checksum_file: Name::new(at.checksum_file),
        line: at.line,
        path: file.map(|(n, _)| Name::new(n)),
        algorithm: file.map(|(_, a)| a.name()),
        chosen_by: file.map(|_| at.chosen),
        outcome,
        error,
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

fn write_line<T: Serialize>(out: &mut Vec<u8>, rec: &T) {
    // Serializing these plain structs into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, rec);
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_are_not_utf8_become_byte_arrays() {
        let mut out = Vec::new();
        let algo = Algorithm::new(crate::algo::AlgoKind::Md5);
        hash_record(&mut out, b"a\xffb", algo, Ok((&[0xab, 0xcd], 7)), Encoding::Hex);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"path\":[97,255,98],\"size\":7,\"algorithm\":\"md5\",\"digest\":\"abcd\"}\n"
        );
    }
}
