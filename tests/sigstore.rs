//! `mhash -c FILE --bundle BUNDLE --certificate-identity ID
//! --certificate-oidc-issuer ISSUER`: Sigstore bundles, offline.
//!
//! Every bundle in tests/data/sigstore/ is a real one made by Sigstore's
//! public-good or staging instance (cosign, sigstore-python, conda's
//! attestation action, goreleaser), copied from sigstore-rust's,
//! sigstore-python's and goreleaser/example-secure's test data (SOURCES.md
//! there says where from, at which commit, under which licence). The
//! identities and issuers asserted are those in the bundles' certificates
//! as `openssl x509 -noout -ext subjectAltName` and the Fulcio issuer
//! extension show them; the subject digests, what `sha256sum` prints for
//! the files. The tampered cases are copies changed by a byte or a field
//! here, in a temporary directory: each must fail closed, exit 1, with
//! one line on stderr and nothing on stdout.

// Built without the feature, only the usage and no-support cases run.
#![cfg_attr(not(feature = "sigstore"), allow(dead_code, unused_imports))]

use std::path::{Path, PathBuf};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sigstore");

/// The identity in cosign-v3-blob.txt.sigstore.json's certificate.
const BLOB_ID: &str = "w.vollprecht@gmail.com";
/// Its issuer (Fulcio extension 1.3.6.1.4.1.57264.1.8).
const BLOB_ISSUER: &str = "https://github.com/login/oauth";
/// The identity in conda-attestation.sigstore.json's certificate.
const CONDA_ID: &str =
    "https://github.com/prefix-dev/sigstore-example/.github/workflows/action.yaml@refs/heads/main";
/// GitHub Actions' OIDC issuer.
const ACTIONS: &str = "https://token.actions.githubusercontent.com";

/// A copy of tests/data/sigstore in a temporary directory.
fn copy() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    copy_dir(Path::new(FIXTURES), t.path());
    t
}

fn copy_dir(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

struct Run {
    code: i32,
    out: String,
    err: String,
}

fn run(dir: &Path, args: &[&str]) -> Run {
    let o = crate::util::mhash(dir).args(args).output().unwrap();
    Run {
        code: o.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// `mhash -c FILE --certificate-identity ID --certificate-oidc-issuer
/// ISSUER MORE...` in `dir`.
fn check(dir: &Path, file: &str, id: &str, issuer: &str, more: &[&str]) -> Run {
    let mut args = vec![
        "-c",
        file,
        "--certificate-identity",
        id,
        "--certificate-oidc-issuer",
        issuer,
    ];
    args.extend(more);
    run(dir, args.as_slice())
}

/// Refused: exit 1, nothing on stdout, one stderr line
/// `mhash: FILE: WORDS (Sigstore...` that contains `cause`.
fn refused(r: &Run, file: &str, words: &str, cause: &str) {
    assert_eq!(r.code, 1, "stderr: {}", r.err);
    assert_eq!(r.out, "", "stderr: {}", r.err);
    assert_eq!(r.err.lines().count(), 1, "stderr: {}", r.err);
    let want = format!("{}: {file}: {words} (Sigstore", crate::util::prog());
    assert!(r.err.starts_with(&want), "want {want:?}, stderr: {}", r.err);
    assert!(r.err.contains(cause), "want {cause:?}, stderr: {}", r.err);
    assert!(
        !r.err.contains('{') && !r.err.contains("Error("),
        "a Debug dump: {}",
        r.err
    );
}

/// The Good line for a bundle beside FILE.
fn good_line(file: &str, id: &str, issuer: &str, bundle: &str) -> String {
    format!(
        "{}: {file}: Good signature (Sigstore, identity {id}, issuer '{issuer}', {bundle})",
        crate::util::prog()
    )
}

/// What `sha256sum -c` says of a file with no checksum line (GNU's
/// words, with mhash's prefix).
fn no_lines(file: &str) -> String {
    format!(
        "{}: {file}: no properly formatted checksum lines found",
        crate::util::prog()
    )
}

#[cfg(feature = "sigstore")]
#[test]
fn a_cosign_v3_bundle_beside_the_file_verifies_it() {
    let t = copy();
    let r = check(t.path(), "cosign-v3-blob.txt", BLOB_ID, BLOB_ISSUER, &[]);
    let lines: Vec<&str> = r.err.lines().collect();
    assert_eq!(
        lines,
        [
            good_line(
                "cosign-v3-blob.txt",
                BLOB_ID,
                BLOB_ISSUER,
                "cosign-v3-blob.txt.sigstore.json"
            )
            .as_str(),
            // The signed file is a line of text, not a checksum list: what
            // sha256sum -c says of it follows the verdict.
            no_lines("cosign-v3-blob.txt").as_str(),
        ],
        "stderr: {}",
        r.err
    );
    assert_eq!(r.code, 1);
    // The same with --bundle, the regexp forms, and the bundle renamed.
    std::fs::rename(
        t.path().join("cosign-v3-blob.txt.sigstore.json"),
        t.path().join("blob.bundle"),
    )
    .unwrap();
    let r = run(
        t.path(),
        &[
            "-c",
            "cosign-v3-blob.txt",
            "--bundle",
            "blob.bundle",
            "--certificate-identity-regexp",
            "@gmail\\.com$",
            "--certificate-oidc-issuer-regexp",
            "^https://github\\.com/",
        ],
    );
    assert!(
        r.err.starts_with(&good_line(
            "cosign-v3-blob.txt",
            BLOB_ID,
            BLOB_ISSUER,
            "blob.bundle"
        )),
        "stderr: {}",
        r.err
    );
}

/// Bundle media types 0.1 (staging, with --trusted-root), 0.2 (a GitHub
/// Actions release) and 0.3 with a Rekor v2 entry and an RFC 3161
/// timestamp (staging).
#[cfg(feature = "sigstore")]
#[test]
fn bundle_versions_0_1_to_0_3_verify() {
    let t = copy();
    let whl_id = "https://github.com/trailofbits/rfc8785.py/.github/workflows/release.yml@refs/tags/v0.1.2";
    let r = check(t.path(), "bundle_v3_github.whl", whl_id, ACTIONS, &[]);
    assert_eq!(
        r.err.lines().next().unwrap_or_default(),
        format!(
            "{}: bundle_v3_github.whl: Good signature (Sigstore, identity '{whl_id}', issuer '{ACTIONS}', \
             bundle_v3_github.whl.sigstore)",
            crate::util::prog()
        ),
        "stderr: {}",
        r.err
    );
    for (file, id, bundle) in [
        ("bundle.txt", "a@tny.town", "bundle.txt.sigstore"),
        (
            "staging-rekor-v2.txt",
            "jku@goto.fi",
            "staging-rekor-v2.txt.sigstore.json",
        ),
    ] {
        let r = check(
            t.path(),
            file,
            id,
            BLOB_ISSUER,
            &["--trusted-root", "staging-trusted-root.json"],
        );
        assert_eq!(
            r.err.lines().collect::<Vec<_>>(),
            [
                good_line(file, id, BLOB_ISSUER, bundle).as_str(),
                no_lines(file).as_str()
            ],
            "stderr: {}",
            r.err
        );
    }
}

/// A GitHub-style attestation given as the checksum file: its in-toto
/// statement's subjects are the lines checked (the digest is what
/// sha256sum prints for the file).
#[cfg(feature = "sigstore")]
#[test]
fn an_attestation_is_a_signed_checksum_list() {
    let t = copy();
    let conda = "signed-package-2.1.0-hb0f4dca_0.conda";
    let r = check(
        t.path(),
        "conda-attestation.sigstore.json",
        CONDA_ID,
        ACTIONS,
        &[],
    );
    assert_eq!(r.out, format!("{conda}: OK\n"), "stderr: {}", r.err);
    assert_eq!(r.code, 0, "stderr: {}", r.err);
    assert!(
        r.err.contains("Good signature (Sigstore, identity '"),
        "{}",
        r.err
    );
    // The statement's digest is sha256sum's (GNU, where installed).
    if let Ok(o) = std::process::Command::new("sha256sum")
        .arg(conda)
        .current_dir(t.path())
        .output()
    {
        let line = String::from_utf8_lossy(&o.stdout).into_owned();
        let bundle = std::fs::read_to_string(t.path().join("conda-attestation.sigstore.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&bundle).unwrap();
        use base64::Engine;
        let payload = base64::engine::general_purpose::STANDARD
            .decode(v["dsseEnvelope"]["payload"].as_str().unwrap())
            .unwrap();
        let stmt: serde_json::Value = serde_json::from_slice(&payload).unwrap();
        assert_eq!(
            line.split_whitespace().next().unwrap(),
            stmt["subject"][0]["digest"]["sha256"].as_str().unwrap()
        );
    }
    // The file changed by a byte: FAILED, as a checksum line fails.
    let mut b = std::fs::read(t.path().join(conda)).unwrap();
    b[100] ^= 1;
    std::fs::write(t.path().join(conda), b).unwrap();
    let r = check(
        t.path(),
        "conda-attestation.sigstore.json",
        CONDA_ID,
        ACTIONS,
        &[],
    );
    assert_eq!(r.out, format!("{conda}: FAILED\n"));
    assert_eq!(r.code, 1);
}

/// No network: the same attestation verified in a network namespace of
/// its own (`unshare -rn`), where that can be made.
#[cfg(all(feature = "sigstore", target_os = "linux"))]
#[test]
fn verification_needs_no_network() {
    let t = copy();
    let probe = std::process::Command::new("unshare")
        .args(["-rn", "true"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("unshare -rn is not allowed here: skipped");
        return;
    }
    let o = crate::util::command("unshare")
        .current_dir(t.path())
        .args([
            "-rn",
            env!("CARGO_BIN_EXE_mhash"),
            "-c",
            "conda-attestation.sigstore.json",
        ])
        .args([
            "--certificate-identity",
            CONDA_ID,
            "--certificate-oidc-issuer",
            ACTIONS,
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "signed-package-2.1.0-hb0f4dca_0.conda: OK\n",
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(0));
}

/// `gh attestation trusted-root`'s JSON lines: each root is tried. The
/// GitHub instance's attestation reaches its own root (the second line)
/// and is then refused only for its certificate naming no OIDC issuer.
#[cfg(feature = "sigstore")]
#[test]
fn trusted_roots_as_json_lines() {
    let t = copy();
    let mut jsonl = String::new();
    for f in ["github-trusted-root.json", "public-good-trusted-root.json"] {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(t.path().join(f)).unwrap()).unwrap();
        jsonl.push_str(&serde_json::to_string(&v).unwrap());
        jsonl.push('\n');
    }
    std::fs::write(t.path().join("roots.jsonl"), jsonl).unwrap();
    let more = ["--trusted-root", "roots.jsonl"];
    let r = check(
        t.path(),
        "conda-attestation.sigstore.json",
        CONDA_ID,
        ACTIONS,
        &more,
    );
    assert_eq!(
        r.out, "signed-package-2.1.0-hb0f4dca_0.conda: OK\n",
        "stderr: {}",
        r.err
    );
    let r = run(
        t.path(),
        &[
            "-c",
            "github-private-attestation.sigstore.json",
            "--certificate-identity",
            "https://dotcom.releases.github.com",
            "--certificate-oidc-issuer-regexp",
            ".",
            "--trusted-root",
            "roots.jsonl",
        ],
    );
    refused(
        &r,
        "github-private-attestation.sigstore.json",
        "BAD signature",
        "the certificate names no OIDC issuer",
    );
    // An empty issuer accepts a certificate with none (cosign compares an
    // absent issuer as ""): the bundle verifies, and its subjects are
    // then checked (the release archives are not in the fixtures).
    let r = run(
        t.path(),
        &[
            "-c",
            "github-private-attestation.sigstore.json",
            "--certificate-identity",
            "https://dotcom.releases.github.com",
            "--certificate-oidc-issuer",
            "",
            "--trusted-root",
            "roots.jsonl",
        ],
    );
    assert!(
        r.err.contains(
            "github-private-attestation.sigstore.json: Good signature (Sigstore, identity \
             'https://dotcom.releases.github.com'"
        ),
        "{}",
        r.err
    );
    assert!(r.out.contains(".tar.gz: FAILED open or read"), "{}", r.out);
}

/// Rewrites a JSON fixture in `dir` with `f`.
fn edit_json(dir: &Path, file: &str, f: impl FnOnce(&mut serde_json::Value)) {
    let p: PathBuf = dir.join(file);
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(&p, serde_json::to_string(&v).unwrap()).unwrap();
}

/// Flips one bit of a base64 field's decoded bytes at `at`.
fn flip_b64(v: &mut serde_json::Value, at: usize) {
    use base64::Engine;
    let e = base64::engine::general_purpose::STANDARD;
    let mut b = e.decode(v.as_str().unwrap()).unwrap();
    let i = at.min(b.len() - 1);
    b[i] ^= 1;
    *v = serde_json::Value::String(e.encode(b));
}

#[cfg(feature = "sigstore")]
#[test]
fn every_tampered_case_fails_closed_with_one_line() {
    let blob = "cosign-v3-blob.txt";
    let bundle = "cosign-v3-blob.txt.sigstore.json";
    let bad = "BAD signature";
    // The file signed, changed by a byte.
    let t = copy();
    std::fs::write(t.path().join(blob), b"test content for cosigN\n").unwrap();
    refused(&check(t.path(), blob, BLOB_ID, BLOB_ISSUER, &[]), blob, bad, "");
    // The signature, by a bit.
    let t = copy();
    edit_json(t.path(), bundle, |v| {
        flip_b64(&mut v["messageSignature"]["signature"], 20)
    });
    refused(&check(t.path(), blob, BLOB_ID, BLOB_ISSUER, &[]), blob, bad, "");
    // The certificate, by a bit of its signature (its last bytes).
    let t = copy();
    edit_json(t.path(), bundle, |v| {
        flip_b64(
            &mut v["verificationMaterial"]["certificate"]["rawBytes"],
            usize::MAX,
        )
    });
    refused(&check(t.path(), blob, BLOB_ID, BLOB_ISSUER, &[]), blob, bad, "");
    // The log entry's integrated time moved (its promise no longer holds).
    let t = copy();
    edit_json(t.path(), bundle, |v| {
        let e = &mut v["verificationMaterial"]["tlogEntries"][0]["integratedTime"];
        let n: i64 = e.as_str().unwrap().parse().unwrap();
        *e = serde_json::Value::String((n + 3600).to_string());
    });
    refused(&check(t.path(), blob, BLOB_ID, BLOB_ISSUER, &[]), blob, bad, "");
    // Another identity, another issuer.
    let t = copy();
    refused(
        &check(t.path(), blob, "someone@example.org", BLOB_ISSUER, &[]),
        blob,
        bad,
        "the certificate's identity w.vollprecht@gmail.com does not match --certificate-identity",
    );
    refused(
        &check(t.path(), blob, BLOB_ID, ACTIONS, &[]),
        blob,
        bad,
        "the certificate's OIDC issuer 'https://github.com/login/oauth' does not match \
         --certificate-oidc-issuer",
    );
    refused(
        &run(
            t.path(),
            &[
                "-c",
                blob,
                "--certificate-identity-regexp",
                "^vollprecht",
                "--certificate-oidc-issuer",
                BLOB_ISSUER,
            ],
        ),
        blob,
        bad,
        "does not match --certificate-identity-regexp",
    );
    // A trusted root whose Fulcio CAs all expired before the signing.
    let t = copy();
    edit_json(t.path(), "public-good-trusted-root.json", |v| {
        for ca in v["certificateAuthorities"].as_array_mut().unwrap() {
            ca["validFor"]["end"] = serde_json::Value::String("2022-12-31T23:59:59Z".into());
        }
    });
    refused(
        &check(
            t.path(),
            blob,
            BLOB_ID,
            BLOB_ISSUER,
            &["--trusted-root", "public-good-trusted-root.json"],
        ),
        blob,
        bad,
        "no trusted certificate authority is valid",
    );
    // A staging bundle against the built-in (production) root.
    let t = copy();
    refused(
        &check(t.path(), "staging-rekor-v2.txt", "jku@goto.fi", BLOB_ISSUER, &[]),
        "staging-rekor-v2.txt",
        bad,
        "",
    );
    // An attestation whose statement was changed (a subject's digest).
    let t = copy();
    edit_json(t.path(), "conda-attestation.sigstore.json", |v| {
        use base64::Engine;
        let e = base64::engine::general_purpose::STANDARD;
        let p = e.decode(v["dsseEnvelope"]["payload"].as_str().unwrap()).unwrap();
        let p = String::from_utf8(p).unwrap().replacen("54303491", "54303492", 1);
        v["dsseEnvelope"]["payload"] = serde_json::Value::String(e.encode(p));
    });
    refused(
        &check(
            t.path(),
            "conda-attestation.sigstore.json",
            CONDA_ID,
            ACTIONS,
            &[],
        ),
        "conda-attestation.sigstore.json",
        bad,
        "",
    );
}

/// `--attestation BUNDLE FILE...`: each FILE against the subject of its
/// name (path or last component); a FILE no subject names fails closed.
#[cfg(feature = "sigstore")]
#[test]
fn attestation_with_files_checks_those_files() {
    let t = copy();
    let conda = "signed-package-2.1.0-hb0f4dca_0.conda";
    std::fs::create_dir(t.path().join("dl")).unwrap();
    std::fs::copy(t.path().join(conda), t.path().join("dl").join(conda)).unwrap();
    let att = |files: &[&str]| {
        let mut args = vec![
            "-c",
            "--attestation",
            "conda-attestation.sigstore.json",
            "--certificate-identity-regexp",
            "^https://github\\.com/prefix-dev/",
            "--certificate-oidc-issuer",
            ACTIONS,
        ];
        args.extend(files);
        run(t.path(), &args)
    };
    let path = format!("dl/{conda}");
    let r = att(&[&path]);
    assert_eq!(r.out, format!("{path}: OK\n"), "stderr: {}", r.err);
    assert_eq!(r.code, 0);
    let r = att(&[&path, "cosign-v3-blob.txt"]);
    refused(
        &r,
        "conda-attestation.sigstore.json",
        "no signature",
        "cosign-v3-blob.txt is not a subject of the attestation",
    );
    let r = run(
        t.path(),
        &[
            "-c",
            "--attestation",
            "cosign-v3-blob.txt",
            "--certificate-identity",
            BLOB_ID,
            "--certificate-oidc-issuer",
            BLOB_ISSUER,
        ],
    );
    refused(
        &r,
        "cosign-v3-blob.txt",
        "unsupported signature",
        "not a Sigstore bundle",
    );
}

/// Malformed bundles: one line each, exit 1, never a panic or a dump.
#[cfg(feature = "sigstore")]
#[test]
fn malformed_bundles_fail_with_one_line() {
    let t = copy();
    let blob = "cosign-v3-blob.txt";
    let good = std::fs::read_to_string(t.path().join("cosign-v3-blob.txt.sigstore.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&good).unwrap();
    let mut cases: Vec<(&str, String, &str)> = vec![
        ("truncated", good[..500].to_string(), "unsupported signature"),
        (
            "media-only",
            format!("{{\"mediaType\":{}}}", v["mediaType"]),
            "BAD signature",
        ),
        ("empty", String::new(), "unsupported signature"),
    ];
    let mut w = v.clone();
    w["mediaType"] = "application/vnd.dev.sigstore.bundle.v9.9+json".into();
    cases.push(("v9.9", w.to_string(), "BAD signature"));
    let mut w = v.clone();
    w["verificationMaterial"]["certificate"]["rawBytes"] = "AAAA".into();
    cases.push(("cert-junk", w.to_string(), "BAD signature"));
    let mut w = v.clone();
    w["verificationMaterial"]["tlogEntries"] = serde_json::json!([]);
    cases.push(("no-log-entry", w.to_string(), "BAD signature"));
    for (name, text, words) in cases {
        std::fs::write(t.path().join(name), text).unwrap();
        let r = check(t.path(), blob, BLOB_ID, BLOB_ISSUER, &["--bundle", name]);
        refused(&r, blob, words, "");
    }
}

/// goreleaser's `checksums.txt.sigstore.json` before cosign's new bundle
/// format (a legacy cosign bundle): one line that names the flag that
/// makes a bundle mhash reads.
#[cfg(feature = "sigstore")]
#[test]
fn a_legacy_cosign_bundle_names_new_bundle_format() {
    let t = copy();
    let dir = t.path().join("goreleaser");
    let id = "https://github.com/goreleaser/example-secure/.github/workflows/release.yml@refs/tags/v1.0.0";
    let r = check(&dir, "checksums.txt", id, ACTIONS, &[]);
    refused(
        &r,
        "checksums.txt",
        "unsupported signature",
        "--new-bundle-format",
    );
    // A .sig and .pem pair beside, no bundle: the same words.
    std::fs::remove_file(dir.join("checksums.txt.sigstore.json")).unwrap();
    std::fs::write(dir.join("checksums.txt.sig"), "MEUCIQ==\n").unwrap();
    std::fs::write(dir.join("checksums.txt.pem"), "LS0t\n").unwrap();
    let r = check(&dir, "checksums.txt", id, ACTIONS, &[]);
    refused(
        &r,
        "checksums.txt",
        "unsupported signature",
        "--new-bundle-format",
    );
    // Nothing beside: the names tried.
    std::fs::remove_file(dir.join("checksums.txt.sig")).unwrap();
    let r = check(&dir, "checksums.txt", id, ACTIONS, &[]);
    refused(
        &r,
        "checksums.txt",
        "no signature",
        "none of checksums.txt.sigstore.json, checksums.txt.sigstore, checksums.txt.bundle exists",
    );
}

/// Identity and issuer are both required (as cosign 3 requires them):
/// either missing is a usage error naming both options.
#[test]
fn identity_and_issuer_are_required() {
    let t = copy();
    for args in [
        &["-c", "cosign-v3-blob.txt", "--certificate-identity", BLOB_ID][..],
        &[
            "-c",
            "cosign-v3-blob.txt",
            "--certificate-oidc-issuer",
            BLOB_ISSUER,
        ][..],
        &[
            "-c",
            "cosign-v3-blob.txt",
            "--bundle",
            "cosign-v3-blob.txt.sigstore.json",
        ][..],
    ] {
        let r = run(t.path(), args);
        assert_eq!(r.code, 1, "{args:?}: {}", r.err);
        let first = r.err.lines().next().unwrap_or_default();
        assert!(
            first.contains("--certificate-identity") && first.contains("--certificate-oidc-issuer"),
            "{args:?}: {}",
            r.err
        );
        assert_eq!(r.out, "");
    }
    let r = run(
        t.path(),
        &[
            "-c",
            "x",
            "--key",
            "k",
            "--certificate-identity",
            "a",
            "--certificate-oidc-issuer",
            "b",
        ],
    );
    assert!(r.err.contains("mutually exclusive"), "{}", r.err);
}

/// Built without the `sigstore` feature, the options parse and say how
/// to get a build that has it.
#[cfg(not(feature = "sigstore"))]
#[test]
fn a_build_without_sigstore_says_how_to_get_it() {
    let t = copy();
    let r = check(t.path(), "cosign-v3-blob.txt", BLOB_ID, BLOB_ISSUER, &[]);
    refused(
        &r,
        "cosign-v3-blob.txt",
        "unsupported signature",
        "--features sigstore",
    );
}
