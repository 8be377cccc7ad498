//! `--s3-report REPORT --root DIR`: an S3 Batch Operations "Compute
//! checksum" completion report read as a checksum list, each object's
//! checksum verified against the local copy `DIR/KEY`, so that a transfer
//! is checked with the checksums S3 computed at rest (no second download).
//!
//! # The report
//!
//! A CSV file (RFC 4180: fields in double quotes where they hold a comma,
//! a quote or a line break, a quote doubled inside them), no header line.
//! The job's `manifest.json` names the columns (`ReportSchema`: `Bucket,
//! Key, VersionId, TaskStatus, ErrorCode, HTTPStatusCode, ResultMessage`),
//! but AWS's examples put the HTTP status before the error code
//! (`bucket,key,,succeeded,200,,"{...}"`, `...,failed,200,PermanentFailure,...`):
//! of the fifth and sixth fields, the one that is a number is the status
//! (Amazon S3 User Guide, "Examples: S3 Batch Operations completion
//! reports", "Compute checksum task report"). A succeeded task's
//! `ResultMessage` is JSON:
//!
//! ```text
//! {"checksum_base64":"bS9TOQ==","etag":"3c3c...","checksumAlgorithm":"CRC32",
//!  "checksumType":"FULL_OBJECT","checksum_hex":"6D2F5339"}
//! ```
//!
//! The algorithms (S3 Control API, `S3ComputeObjectChecksumOperation`):
//! `CRC32` (mhash's crc32b), `CRC32C`, `CRC64NVME`, `MD5`, `SHA1`,
//! `SHA256`, `SHA512`, `XXHASH3` (xxh3), `XXHASH128` (xxh128);
//! `XXHASH64` is not one of mhash's algorithms and such lines are
//! reported. Only `FULL_OBJECT` checksums are a digest of the bytes: a
//! `COMPOSITE` one is a checksum of the upload's part checksums, which
//! the report cannot be checked against without the part size (`mhash
//! --s3-composite --part-size` computes it); such lines are reported, not
//! verified. The digest is `checksum_hex` (either case) or, without it,
//! `checksum_base64`; where both are given they must agree.
//!
//! Keys are URL-encoded in the report, as in Batch Operations' CSV
//! manifests (`%2F`, `+` for a space): they are decoded, and a key that
//! would lead outside DIR (`..`, an absolute path) is refused.
//!
//! # Output
//!
//! As `-c`: `DIR/KEY: OK` or `FAILED` per object (or JSON records), read
//! errors as `-c` reports them, GNU's WARNING summary; then a WARNING for
//! the report's lines that named no checksum to verify (a failed task, a
//! composite checksum, an unknown algorithm, a line that does not parse),
//! each of which is also reported where it is read: `REPORT: LINE: CAUSE`.
//! Those make the run fail, as unread files do.

use super::tally::Tally;
use crate::algo::{AlgoKind, Algorithm};
use crate::config::{CheckJob, Common, Verbosity};
use crate::io::{self, InputOpts, ReadBuf};
use crate::report::{Console, LineAt, Verdict};
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read};
use std::path::{Component, Path, PathBuf};

/// The columns of a report line, in the order AWS's examples write them.
pub const COLUMNS: &str = "Bucket, Key, VersionId, TaskStatus, HTTPStatusCode, ErrorCode, ResultMessage";

/// The longest record read, in bytes (a report line is a few hundred).
const MAX_RECORD: usize = 1 << 20;

/// One object's checksum to verify.
#[derive(Debug, PartialEq, Eq)]
pub struct Entry {
    /// The object's key, URL-decoded.
    pub key: Vec<u8>,
    /// The algorithm S3 used.
    pub algo: Algorithm,
    /// The checksum's bytes (big-endian for the CRCs and xxHash, as S3
    /// encodes them).
    pub digest: Vec<u8>,
}

/// What one report line holds.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A checksum to verify.
    Entry(Entry),
    /// Nothing to verify, and why (the message after `REPORT: LINE: `).
    Unverifiable(String),
}

/// A CSV record and the line it starts on, or the line and what is wrong.
pub type Record = Result<(u64, Vec<String>), (u64, String)>;

/// Reads CSV records (RFC 4180) from `r`, one at a time.
pub struct Records<R> {
    r: R,
    line: u64,
}

impl<R: BufRead> Records<R> {
    /// Records from `r`.
    pub fn new(r: R) -> Records<R> {
        Records { r, line: 0 }
    }

    /// The next record and the line it starts on; `None` at the end.
    ///
    /// # Errors
    /// A read error, a record longer than 1 MiB, or a quote left open at
    /// the end of the file (with the line the record began on).
    pub fn next_record(&mut self) -> Option<Record> {
        let mut raw = Vec::new();
        let start = self.line + 1;
        loop {
            match self.r.read_until(b'\n', &mut raw) {
                Ok(0) if raw.is_empty() => return None,
                Ok(0) => {
                    return Some(Err((
                        start,
                        "a quoted field is not closed at the end of the report".into(),
                    )));
                }
                Ok(_) => {}
                Err(e) => return Some(Err((start, crate::os::strerror(&e)))),
            }
            self.line += 1;
            if raw.len() > MAX_RECORD {
                return Some(Err((start, "a record longer than 1 MiB".into())));
            }
            // Balanced quotes: the record ends with this line.
            if raw.iter().filter(|&&b| b == b'"').count() % 2 == 0 {
                break;
            }
        }
        while matches!(raw.last(), Some(b'\n' | b'\r')) {
            raw.pop();
        }
        Some(match split_csv(&raw) {
            Ok(f) => Ok((start, f)),
            Err(e) => lenient_failed(&raw).map(|f| (start, f)).ok_or((start, e)),
        })
    }
}

/// A record whose quoting is broken but that reports a task that did not
/// succeed (AWS's own examples of failed Compute checksum tasks have a
/// stray quote in their message): its first six fields split at commas,
/// the rest the message, so that the failure can be named. `None` for any
/// other record.
fn lenient_failed(raw: &[u8]) -> Option<Vec<String>> {
    let text = std::str::from_utf8(raw).ok()?;
    let mut f: Vec<String> = text.splitn(7, ',').map(str::to_string).collect();
    if f.len() != 7 || f[..6].iter().any(|x| x.contains('"')) || f[3] == "succeeded" {
        return None;
    }
    let m = &f[6];
    f[6] = m
        .strip_prefix('"')
        .and_then(|m| m.strip_suffix('"'))
        .unwrap_or(m)
        .replace("\"\"", "\"");
    Some(f)
}

/// The fields of one CSV record (quotes balanced).
fn split_csv(raw: &[u8]) -> Result<Vec<String>, String> {
    let text = std::str::from_utf8(raw).map_err(|_| "not UTF-8".to_string())?;
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    let mut at_start = true;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    cur.push('"');
                } else {
                    quoted = false;
                    if !matches!(chars.peek(), None | Some(',')) {
                        return Err("a quoted field goes on after its closing quote".into());
                    }
                }
            } else {
                cur.push(c);
            }
            continue;
        }
        match c {
            '"' if at_start => {
                quoted = true;
                at_start = false;
            }
            '"' => return Err("a quote inside an unquoted field".into()),
            ',' => {
                fields.push(std::mem::take(&mut cur));
                at_start = true;
            }
            _ => {
                cur.push(c);
                at_start = false;
            }
        }
    }
    fields.push(cur);
    Ok(fields)
}

/// The algorithm S3 names `name` (`checksumAlgorithm`).
pub fn algorithm(name: &str) -> Option<AlgoKind> {
    Some(match name {
        "CRC32" => AlgoKind::Crc32b,
        "CRC32C" => AlgoKind::Crc32c,
        "CRC64NVME" => AlgoKind::Crc64Nvme,
        "MD5" => AlgoKind::Md5,
        "SHA1" => AlgoKind::Sha1,
        "SHA256" => AlgoKind::Sha256,
        "SHA512" => AlgoKind::Sha512,
        "XXHASH3" => AlgoKind::Xxh3,
        "XXHASH128" => AlgoKind::Xxh128,
        _ => return None,
    })
}

/// Decodes a URL-encoded key (`%XX`, and `+` for a space).
///
/// # Errors
/// A `%` not followed by two hex digits.
pub fn url_decode(s: &str) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = b.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
                let v = hex.and_then(|h| u8::from_str_radix(h, 16).ok());
                match v {
                    Some(v) => out.push(v),
                    None => return Err(format!("the key '{s}' has a '%' not followed by two hex digits")),
                }
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Reads one report record: the checksum to verify, or why there is none.
pub fn parse_record(fields: &[String]) -> Line {
    let bad = |m: String| Line::Unverifiable(m);
    if fields.len() != 7 {
        return bad(format!(
            "{} fields, not the 7 of a Batch Operations completion report ({COLUMNS})",
            fields.len()
        ));
    }
    let key = match url_decode(&fields[1]) {
        Ok(k) if !k.is_empty() => k,
        Ok(_) => return bad("an empty key".into()),
        Err(e) => return bad(e),
    };
    let shown = String::from_utf8_lossy(&key).into_owned();
    // The status is the field that is a number (see the module's doc).
    let (status, code) =
        if fields[5].trim().parse::<u16>().is_ok() && fields[4].trim().parse::<u16>().is_err() {
            (&fields[5], &fields[4])
        } else {
            (&fields[4], &fields[5])
        };
    if fields[3] != "succeeded" {
        let mut why = format!("S3 computed no checksum for '{shown}' (task {}", fields[3]);
        for part in [code, status] {
            if !part.is_empty() {
                why.push_str(", ");
                why.push_str(part);
            }
        }
        why.push(')');
        if !fields[6].is_empty() {
            why.push_str(": ");
            why.push_str(&fields[6]);
        }
        return bad(why);
    }
    let msg: serde_json::Value = match serde_json::from_str(&fields[6]) {
        Ok(v @ serde_json::Value::Object(_)) => v,
        Ok(_) => return bad("the ResultMessage is not a JSON object".into()),
        Err(e) => return bad(format!("the ResultMessage is not JSON: {e}")),
    };
    let text = |k: &str| msg.get(k).and_then(|v| v.as_str());
    let Some(alg) = text("checksumAlgorithm") else {
        return bad("the ResultMessage has no \"checksumAlgorithm\"".into());
    };
    let Some(kind) = algorithm(alg) else {
        return bad(format!("'{shown}': S3's {alg} is not an algorithm mhash has"));
    };
    match text("checksumType") {
        Some("FULL_OBJECT") => {}
        Some("COMPOSITE") => {
            return bad(format!(
                "'{shown}': a COMPOSITE {alg} checksum (of the upload's parts) cannot be checked \
                 without the part size: 'mhash --s3-composite -a {} --part-size SIZE' computes it",
                kind.name()
            ));
        }
        Some(t) => return bad(format!("'{shown}': unknown checksumType '{t}'")),
        None => return bad("the ResultMessage has no \"checksumType\"".into()),
    }
    let from_hex = text("checksum_hex").map(|h| hex::decode(h.to_ascii_lowercase()));
    let from_b64 = text("checksum_base64").map(|b| {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.decode(b)
    });
    let digest = match (from_hex, from_b64) {
        (Some(Err(_)), _) => return bad("\"checksum_hex\" is not hex".into()),
        (_, Some(Err(_))) => return bad("\"checksum_base64\" is not base64".into()),
        (Some(Ok(h)), Some(Ok(b))) if h != b => {
            return bad("\"checksum_hex\" and \"checksum_base64\" differ".into());
        }
        (Some(Ok(h)), _) => h,
        (None, Some(Ok(b))) => b,
        (None, None) => return bad("the ResultMessage has no \"checksum_hex\" or \"checksum_base64\"".into()),
    };
    let algo = Algorithm::new(kind);
    if digest.len() != algo.digest_len() {
        return bad(format!(
            "'{shown}': a {}-byte {alg} checksum; {alg} has {} bytes",
            digest.len(),
            algo.digest_len()
        ));
    }
    Line::Entry(Entry { key, algo, digest })
}

/// `root` joined with `key`, or `None` where the key would lead outside
/// `root` (an absolute path, a `..`).
fn local_path(root: &OsStr, key: &[u8]) -> Option<PathBuf> {
    let rel = crate::os::bytes_os(key);
    let rel = Path::new(&rel);
    if rel
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return None;
    }
    Some(Path::new(root).join(rel))
}

/// Verifies every object of the report `report` against `root`. Returns
/// true when every line named a checksum and every file matched.
pub fn run(con: &mut Console, common: &Common, job: &CheckJob, report: &OsStr, root: &OsStr) -> bool {
    let name = crate::os::os_bytes(report).into_owned();
    let reader: Box<dyn Read + Send> = if report == "-" {
        crate::os::stdin_reader()
    } else {
        match crate::os::open_read(Path::new(report)) {
            Ok(f) => Box::new(f),
            Err(e) => {
                con.error_io(&name, &e);
                return false;
            }
        }
    };
    let display: &[u8] = if report == "-" { b"standard input" } else { &name };
    let mut records = Records::new(BufReader::with_capacity(64 * 1024, reader));
    let mut out = crate::report::check_report(job);
    let mut tally = Tally::default();
    let mut unverifiable = 0u64;
    let mut buf = ReadBuf::default();
    let opts = InputOpts {
        mode: common.io,
        ..InputOpts::default()
    };
    let say = |con: &mut Console, line: u64, msg: &str| {
        if job.verbosity != Verbosity::Status {
            let mut m = con.quotef(display);
            m.extend_from_slice(format!(": {line}: {msg}").as_bytes());
            con.error_msg(&m);
        }
    };
    while let Some(rec) = records.next_record() {
        let (line, fields) = match rec {
            Ok(r) => r,
            Err((line, msg)) => {
                unverifiable += 1;
                say(con, line, &msg);
                continue;
            }
        };
        // S3 writes no header; one added by hand (the schema's names) is
        // passed over rather than reported as a failed task.
        if line == 1
            && fields.first().is_some_and(|f| f.eq_ignore_ascii_case("bucket"))
            && fields.get(1).is_some_and(|f| f.eq_ignore_ascii_case("key"))
        {
            continue;
        }
        let entry = match parse_record(&fields) {
            Line::Entry(e) => e,
            Line::Unverifiable(msg) => {
                unverifiable += 1;
                say(con, line, &msg);
                continue;
            }
        };
        let Some(path) = local_path(root, &entry.key) else {
            unverifiable += 1;
            say(
                con,
                line,
                &format!(
                    "the key '{}' leads outside --root",
                    String::from_utf8_lossy(&entry.key)
                ),
            );
            continue;
        };
        tally.properly_formatted = true;
        let shown = crate::os::os_bytes(path.as_os_str()).into_owned();
        let at = LineAt {
            checksum_file: &name,
            line,
            chosen: "layout",
            annotate: false,
        };
        match io::digest_inputs(path.as_os_str(), &[entry.algo], &mut buf, &opts) {
            Ok(d) if d.digest == entry.digest => {
                tally.matched = true;
                out.verified(con, at, &shown, entry.algo, Verdict::Ok);
            }
            Ok(_) => {
                tally.mismatched += 1;
                out.verified(con, at, &shown, entry.algo, Verdict::Mismatch);
            }
            Err(e) => {
                if job.ignore_missing
                    && crate::os::ErrorClass::of(&e) == Some(crate::os::ErrorClass::NotFound)
                {
                    continue;
                }
                con.error_io(&shown, &e);
                tally.open_failures += 1;
                out.verified(con, at, &shown, entry.algo, Verdict::Unreadable(&e));
            }
        }
        if con.write_failed() && job.stops_on_write_error {
            return false;
        }
    }
    tally.summarize(con, job, display);
    if unverifiable > 0 && job.verbosity != Verbosity::Status {
        let what = if unverifiable == 1 {
            "report line named no checksum that could be verified"
        } else {
            "report lines named no checksum that could be verified"
        };
        con.error_msg(format!("WARNING: {unverifiable} {what}").as_bytes());
    }
    tally.passed(job.strict) && unverifiable == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// AWS's example line (Amazon S3 User Guide, "Examples: S3 Batch
    /// Operations completion reports", "Compute checksum task report").
    const AWS_EXAMPLE: &str = r#"amzn-s3-demo-bucket1,s3-standard-1mb-test-object,,succeeded,200,,"{""checksum_base64"":""bS9TOQ\u003d\u003d"",""etag"":""3c3c1813042989094598e4b57ecbdc82"",""checksumAlgorithm"":""CRC32"",""checksumType"":""FULL_OBJECT"",""checksum_hex"":""6D2F5339""}""#;

    fn one(text: &str) -> (u64, Vec<String>) {
        Records::new(text.as_bytes()).next_record().unwrap().unwrap()
    }

    #[test]
    fn aws_example_line() {
        let (line, f) = one(&format!("{AWS_EXAMPLE}\n"));
        assert_eq!(line, 1);
        assert_eq!(f.len(), 7);
        assert_eq!(f[1], "s3-standard-1mb-test-object");
        assert_eq!(
            parse_record(&f),
            Line::Entry(Entry {
                key: b"s3-standard-1mb-test-object".to_vec(),
                algo: Algorithm::new(AlgoKind::Crc32b),
                digest: vec![0x6d, 0x2f, 0x53, 0x39],
            })
        );
    }

    #[test]
    fn failed_and_odd_lines_say_why() {
        let failed = r#"b,image_14975,,failed,200,PermanentFailure,"error details: {""failureMessage"":""Key not found"", ""errorCode"": ""404""}""#;
        let (_, f) = one(failed);
        let Line::Unverifiable(m) = parse_record(&f) else {
            panic!()
        };
        assert!(m.starts_with("S3 computed no checksum for 'image_14975' (task failed, PermanentFailure, 200): error details"), "{m}");
        for (line, want) in [
            ("a,b,c\n", "3 fields, not the 7"),
            (
                &AWS_EXAMPLE.replace("FULL_OBJECT", "COMPOSITE"),
                "a COMPOSITE CRC32 checksum",
            ),
            (
                &AWS_EXAMPLE.replace("\"\"CRC32\"\"", "\"\"XXHASH64\"\""),
                "S3's XXHASH64 is not an algorithm mhash has",
            ),
            (&AWS_EXAMPLE.replace("6D2F5339", "6D2F5338"), "differ"),
            (&AWS_EXAMPLE.replace("6D2F5339", "6D2F5G39"), "not hex"),
        ] {
            let (_, f) = one(line);
            let Line::Unverifiable(m) = parse_record(&f) else {
                panic!("{line}")
            };
            assert!(m.contains(want), "{line}: {m}");
        }
    }

    #[test]
    fn csv_quotes_and_line_breaks() {
        let mut r = Records::new(&b"a,\"x,\"\"y\"\"\nz\",c\r\nd,e\n\"open"[..]);
        assert_eq!(
            r.next_record().unwrap().unwrap(),
            (1, vec!["a".into(), "x,\"y\"\nz".into(), "c".into()])
        );
        assert_eq!(
            r.next_record().unwrap().unwrap(),
            (3, vec!["d".into(), "e".into()])
        );
        assert_eq!(r.next_record().unwrap().unwrap_err().0, 4);
        // AWS's failed-task example, a stray quote in its message.
        let aws = r#"b,image_14975,,failed,200,PermanentFailure,"error details: {""failureMessage"":"Task 28 Key not found", ""errorCode"": ""404""}""#;
        let (_, f) = one(aws);
        assert_eq!(f[3], "failed");
        assert_eq!(
            f[6],
            r#"error details: {"failureMessage":"Task 28 Key not found", "errorCode": "404"}"#
        );
        assert!(
            Records::new(&br#"b,k,,succeeded,200,,"{"x"}""#[..])
                .next_record()
                .unwrap()
                .is_err()
        );
        assert!(r.next_record().is_none());
        assert!(split_csv(b"a\"b").is_err());
        assert!(split_csv(b"\"a\"b").is_err());
    }

    #[test]
    fn keys_are_url_decoded_and_kept_inside_root() {
        assert_eq!(url_decode("dir%2Fa+b%25.txt").unwrap(), b"dir/a b%.txt");
        assert!(url_decode("bad%2").is_err());
        assert!(local_path(OsStr::new("r"), b"a/b").is_some());
        assert!(local_path(OsStr::new("r"), b"../x").is_none());
        assert!(local_path(OsStr::new("r"), b"/etc/passwd").is_none());
    }
}
