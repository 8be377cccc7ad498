//! `--s3-report REPORT --root DIR`: an S3 Batch Operations "Compute
//! checksum" completion report verified against local copies.
//!
//! Oracles: AWS's documented example lines
//! (`tests/data/s3-batch/aws-example-compute-checksum.csv`) and a report
//! whose checksums Python's zlib and hashlib computed
//! (`tests/data/s3-batch/report.csv`, `make-report.py`); see
//! `tests/data/s3-batch/SOURCES.md`.

use std::path::{Path, PathBuf};
use tempfile::TempDir;

use crate::util::{self, mhash};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/s3-batch")
}

/// Runs mhash ARGS in the fixture directory: (stdout, stderr, exit code).
fn run(args: &[&str]) -> (String, String, Option<i32>) {
    let o = mhash(&data()).args(args).output().unwrap();
    (
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
        o.status.code(),
    )
}

/// Unix: the names are DIR/KEY joined with '/' (Windows joins with '\\').
#[cfg(unix)]
#[test]
fn a_report_is_verified_against_the_local_copies() {
    let (out, err, code) = run(&["--s3-report", "report.csv", "--root", "root"]);
    assert_eq!(
        out,
        "'root/data/a b.txt': OK\n\
         root/data/hello.txt: OK\n\
         root/big.bin: OK\n\
         root/big.bin: OK\n\
         root/empty: OK\n\
         root/changed.txt: FAILED\n\
         root/not-here.txt: FAILED open or read\n"
    );
    let p = util::prog();
    assert_eq!(
        err,
        format!(
            "{p}: root/not-here.txt: No such file or directory\n\
             {p}: WARNING: 1 listed file could not be read\n\
             {p}: WARNING: 1 computed checksum did NOT match\n"
        )
    );
    assert_eq!(code, Some(1));
    // --quiet: only the failures; --status: nothing but the read error.
    let (out, _, code) = run(&["--s3-report", "report.csv", "--root", "root", "--quiet"]);
    assert_eq!(
        out,
        "root/changed.txt: FAILED\nroot/not-here.txt: FAILED open or read\n"
    );
    assert_eq!(code, Some(1));
    let (out, err, code) = run(&["--s3-report", "report.csv", "--root", "root", "--status"]);
    assert_eq!((out.as_str(), code), ("", Some(1)));
    assert_eq!(
        err,
        format!("{p}: root/not-here.txt: No such file or directory\n")
    );
}

#[test]
fn a_report_of_matching_copies_passes() {
    let t = TempDir::new().unwrap();
    let text = std::fs::read_to_string(data().join("report.csv")).unwrap();
    // A header line of the schema's names, added by hand, is passed over.
    let good: String =
        std::iter::once("Bucket,Key,VersionId,TaskStatus,ErrorCode,HTTPStatusCode,ResultMessage")
            .chain(text.lines().take(5))
            .map(|l| format!("{l}\n"))
            .collect();
    std::fs::write(t.path().join("r.csv"), good).unwrap();
    let root = data().join("root");
    let o = mhash(t.path())
        .args(["--s3-report", "r.csv", "--root"])
        .arg(&root)
        .args(["--quiet"])
        .output()
        .unwrap();
    assert_eq!(
        (o.stdout.as_slice(), o.stderr.as_slice(), o.status.code()),
        (&b""[..], &b""[..], Some(0))
    );
}

/// Unix: the missing object's name is DIR/KEY with a '/' (see above).
#[cfg(unix)]
#[test]
fn aws_example_lines_are_read_and_failed_tasks_named() {
    let t = TempDir::new().unwrap();
    let (out, err, code) = run(&[
        "--s3-report",
        "aws-example-compute-checksum.csv",
        "--root",
        t.path().to_str().unwrap(),
    ]);
    let p = util::prog();
    assert_eq!(code, Some(1));
    assert!(
        out.ends_with("s3-standard-1mb-test-object: FAILED open or read\n"),
        "{out}"
    );
    let f = "aws-example-compute-checksum.csv";
    for (line, why) in [
        (
            2,
            "SSE-C encryption type is not supported for this operation\", \"errorCode\": \"400\"}",
        ),
        (3, "Key not found\", \"errorCode\": \"404\"}"),
        (
            4,
            "Internal server error, please retry\", \"errorCode\": \"500\"}",
        ),
    ] {
        let want = format!(
            "{p}: {f}: {line}: S3 computed no checksum for 'image_14975' (task failed, PermanentFailure, 200): \
             error details: {{\"failureMessage\":\"Task 2845ca0d-38d9-4c4b-abcf-379dc749c452 {why}\n"
        );
        assert!(err.contains(&want), "{err}\nwanted: {want}");
    }
    assert!(
        err.ends_with(&format!(
            "{p}: WARNING: 3 report lines named no checksum that could be verified\n"
        )),
        "{err}"
    );
}

#[test]
fn unverifiable_lines_are_named_with_their_line_number() {
    let t = TempDir::new().unwrap();
    let aws = std::fs::read_to_string(data().join("aws-example-compute-checksum.csv")).unwrap();
    let ok = aws.lines().next().unwrap();
    let report = [
        ok.replace("FULL_OBJECT", "COMPOSITE"),
        ok.replace("\"\"CRC32\"\"", "\"\"XXHASH64\"\""),
        "just,three,fields".to_string(),
        ok.replace("s3-standard-1mb-test-object", "..%2Fescape"),
        ok.replace("6D2F5339", "6D2F533A"),
    ]
    .join("\n");
    std::fs::write(t.path().join("r.csv"), format!("{report}\n")).unwrap();
    let o = mhash(t.path())
        .args(["--s3-report", "r.csv", "--root", "."])
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    let p = util::prog();
    for want in [
        format!(
            "{p}: r.csv: 1: 's3-standard-1mb-test-object': a COMPOSITE CRC32 checksum (of the upload's parts) cannot be checked without the part size: 'mhash --s3-composite -a crc32b --part-size SIZE' computes it"
        ),
        format!("{p}: r.csv: 2: 's3-standard-1mb-test-object': S3's XXHASH64 is not an algorithm mhash has"),
        format!(
            "{p}: r.csv: 3: 3 fields, not the 7 of a Batch Operations completion report (Bucket, Key, VersionId, TaskStatus, HTTPStatusCode, ErrorCode, ResultMessage)"
        ),
        format!("{p}: r.csv: 4: the key '../escape' leads outside --root"),
        format!("{p}: r.csv: 5: \"checksum_hex\" and \"checksum_base64\" differ"),
        format!("{p}: r.csv: no properly formatted checksum lines found"),
        format!("{p}: WARNING: 5 report lines named no checksum that could be verified"),
    ] {
        assert!(err.lines().any(|l| l == want), "{err}\nwanted: {want}");
    }
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
}

#[test]
fn s3_report_usage_errors() {
    let p = util::prog();
    for (args, msg) in [
        (
            &["--s3-report", "report.csv"][..],
            "--s3-report needs --root DIR: the directory that holds the local copies of the report's keys",
        ),
        (
            &["--root", "root", "f"][..],
            "the --root option is meaningful only with --s3-report",
        ),
        (
            &["--s3-report", "report.csv", "--root", "root", "f"][..],
            "--s3-report reads one report and takes no FILE operands (the files are DIR/KEY, under --root)",
        ),
        (
            &["--s3-report", "report.csv", "--root", "root", "--state", "s"][..],
            "the --state option is meaningful only when hashing (a check always reads every file)",
        ),
    ] {
        let (out, err, code) = run(args);
        assert_eq!((out.as_str(), code), ("", Some(1)), "{args:?}");
        assert_eq!(
            err.lines().next(),
            Some(format!("{p}: {msg}").as_str()),
            "{args:?}"
        );
    }
    let (_, err, code) = run(&["--s3-report", "no-such.csv", "--root", "root"]);
    assert_eq!(code, Some(1));
    assert_eq!(err, format!("{p}: no-such.csv: No such file or directory\n"));
}
