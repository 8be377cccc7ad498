//! `mhash -c SUMS --key KEYFILE`: signed checksum files (issue 15 part 3).
//!
//! The keys and signatures in tests/data/signatures/ were made by GnuPG,
//! minisign, signify-openbsd and ssh-keygen (make.sh there; SOURCES.md
//! says which command made which file), and each directory's
//! `expected.txt` holds what those tools said of them (gpg's VALIDSIG
//! fingerprint, minisign's key ID, `ssh-keygen -l`): the key IDs asserted
//! here come from there, never from mhash. Where the four tools are
//! installed, `fresh_keys_from_the_real_tools` makes a new set in a
//! temporary directory (GNUPGHOME there too) and runs every case on it.
//!
//! Every bad case asserts: exit 1, one line on stderr naming the checksum
//! file, the format and the verdict, and nothing on stdout (no `OK`).

use std::path::{Path, PathBuf};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/signatures");

/// A copy of the fixture directory `set/fmt` in a temporary directory.
fn copy_of(set: &Path, fmt: &str) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(set.join(fmt)).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), t.path().join(e.file_name())).unwrap();
    }
    t
}

/// What a tool said of a key or signature (`expected.txt`: `NAME VALUE`).
fn expected(set: &Path, fmt: &str, name: &str) -> String {
    let text = std::fs::read_to_string(set.join(fmt).join("expected.txt")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .unwrap_or_else(|| panic!("{fmt}/expected.txt has no {name}"))
        .to_string()
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

/// A good signature: exit 0, `Good signature (FORMAT, key ID` on stderr,
/// then the usual check output.
fn good(r: &Run, file: &str, format: &str, key_id: &str) {
    assert_eq!(r.code, 0, "stderr: {}", r.err);
    let first = r.err.lines().next().unwrap_or_default();
    assert!(
        first.contains(&format!(": {file}: Good signature ({format}, key {key_id}")),
        "stderr: {}",
        r.err
    );
    assert_eq!(r.out, "a.txt: OK\nb.txt: OK\n");
}

/// A refused signature: exit 1, one stderr line `mhash: FILE: WORDS (FORMAT...`,
/// nothing checked.
fn refused(r: &Run, file: &str, words: &str, format: Option<&str>) {
    assert_eq!(r.code, 1, "stdout: {} stderr: {}", r.out, r.err);
    assert_eq!(r.out, "", "nothing may be checked");
    assert_eq!(r.err.lines().count(), 1, "one line: {}", r.err);
    assert!(r.err.contains(&format!(": {file}: {words}")), "stderr: {}", r.err);
    if let Some(f) = format {
        assert!(r.err.contains(&format!("({f}")), "stderr names {f}: {}", r.err);
    }
}

/// Cases every format shares: the checksum file tampered (a digest's
/// first hex digit changed: the signature no longer matches), the
/// signature truncated, garbage as the signature, the signature missing.
fn shared_bad_cases(dir: &Path, key: &str, sig: &str, format: &str) {
    let sums = dir.join("SHA256SUMS");
    let orig = std::fs::read(&sums).unwrap();
    let mut tampered = orig.clone();
    tampered[0] = if tampered[0] == b'0' { b'1' } else { b'0' };
    std::fs::write(&sums, &tampered).unwrap();
    refused(
        &run(dir, &["-c", "SHA256SUMS", "--key", key, "--signature", sig]),
        "SHA256SUMS",
        "BAD signature",
        Some(format),
    );
    std::fs::write(&sums, &orig).unwrap();

    let s = std::fs::read(dir.join(sig)).unwrap();
    std::fs::write(dir.join("trunc.sig"), &s[..s.len() / 2]).unwrap();
    let r = run(
        dir,
        &["-c", "SHA256SUMS", "--key", key, "--signature", "trunc.sig"],
    );
    assert_eq!(r.code, 1);
    assert_eq!(r.out, "");
    assert_eq!(r.err.lines().count(), 1, "{}", r.err);
    assert!(
        r.err.contains(": SHA256SUMS: ") && r.err.contains("signature"),
        "{}",
        r.err
    );

    std::fs::write(dir.join("garbage.sig"), b"this is not a signature\n\x00\x01\x02").unwrap();
    refused(
        &run(
            dir,
            &["-c", "SHA256SUMS", "--key", key, "--signature", "garbage.sig"],
        ),
        "SHA256SUMS",
        "unsupported signature",
        None,
    );
    std::fs::write(dir.join("empty.sig"), b"").unwrap();
    refused(
        &run(
            dir,
            &["-c", "SHA256SUMS", "--key", key, "--signature", "empty.sig"],
        ),
        "SHA256SUMS",
        "unsupported signature",
        None,
    );
    refused(
        &run(
            dir,
            &["-c", "SHA256SUMS", "--key", key, "--signature", "gone.sig"],
        ),
        "SHA256SUMS",
        "no signature",
        None,
    );
}

fn openpgp(set: &Path) {
    let d = copy_of(set, "openpgp");
    let dir = d.path();
    let fpr = expected(set, "openpgp", "SHA256SUMS.asc");
    // Armored key, armored detached signature found beside (SHA256SUMS.asc).
    let r = run(dir, &["-c", "SHA256SUMS", "--key", "release.asc"]);
    good(&r, "SHA256SUMS", "OpenPGP", &fpr);
    assert!(
        r.err.contains("Release Signing <release@example.org>"),
        "{}",
        r.err
    );
    // Binary key, binary signature by an RSA signing subkey.
    let sub = expected(set, "openpgp", "SHA256SUMS.rsa.sig");
    good(
        &run(
            dir,
            &[
                "-c",
                "SHA256SUMS",
                "--key",
                "rsa.gpg",
                "--signature",
                "SHA256SUMS.rsa.sig",
            ],
        ),
        "SHA256SUMS",
        "OpenPGP",
        &sub,
    );
    // ECDSA (NIST P-256).
    good(
        &run(
            dir,
            &[
                "-c",
                "SHA256SUMS",
                "--key",
                "ecdsa.asc",
                "--signature",
                "SHA256SUMS.ecdsa.asc",
            ],
        ),
        "SHA256SUMS",
        "OpenPGP",
        &expected(set, "openpgp", "SHA256SUMS.ecdsa.asc"),
    );
    // A keyring of two keys (binary export).
    good(
        &run(dir, &["-c", "SHA256SUMS", "--key", "keyring.gpg"]),
        "SHA256SUMS",
        "OpenPGP",
        &fpr,
    );
    // Wrong key.
    refused(
        &run(dir, &["-c", "SHA256SUMS", "--key", "else.asc"]),
        "SHA256SUMS",
        "signature by a key not in the key file",
        Some("OpenPGP"),
    );
    // Expired and revoked keys (gpg --verify says "Good signature" with a
    // warning for both; mhash refuses).
    refused(
        &run(
            dir,
            &[
                "-c",
                "SHA256SUMS",
                "--key",
                "expired.asc",
                "--signature",
                "SHA256SUMS.expired.asc",
            ],
        ),
        "SHA256SUMS",
        "signature by an EXPIRED key",
        Some("OpenPGP"),
    );
    refused(
        &run(
            dir,
            &[
                "-c",
                "SHA256SUMS",
                "--key",
                "revoked.asc",
                "--signature",
                "SHA256SUMS.revoked.asc",
            ],
        ),
        "SHA256SUMS",
        "signature by a REVOKED key",
        Some("OpenPGP"),
    );
    // A signature over a different file.
    refused(
        &run(
            dir,
            &[
                "-c",
                "SHA256SUMS",
                "--key",
                "release.asc",
                "--signature",
                "other.txt.asc",
            ],
        ),
        "SHA256SUMS",
        "BAD signature",
        Some("OpenPGP"),
    );
    // Tampered signature: a byte inside the armored base64 changed.
    let s = std::fs::read_to_string(dir.join("SHA256SUMS.asc")).unwrap();
    let body = s.find("\n\n").unwrap() + 2 + 40;
    let mut t = s.into_bytes();
    t[body] = if t[body] == b'A' { b'B' } else { b'A' };
    std::fs::write(dir.join("tampered.asc"), &t).unwrap();
    let r = run(
        dir,
        &[
            "-c",
            "SHA256SUMS",
            "--key",
            "release.asc",
            "--signature",
            "tampered.asc",
        ],
    );
    assert_eq!(
        (r.code, r.out.as_str(), r.err.lines().count()),
        (1, "", 1),
        "{}",
        r.err
    );
    assert!(
        r.err.contains(": SHA256SUMS: BAD signature (OpenPGP"),
        "{}",
        r.err
    );
    shared_bad_cases(dir, "release.asc", "SHA256SUMS.asc", "OpenPGP");

    // Clearsigned: only the signed block is read.
    good(
        &run(dir, &["-c", "SHA256SUMS.clear", "--key", "release.asc"]),
        "SHA256SUMS.clear",
        "OpenPGP",
        &expected(set, "openpgp", "SHA256SUMS.clear"),
    );
    // Lines added outside the block are not checked, and said so.
    let clear = std::fs::read_to_string(dir.join("SHA256SUMS.clear")).unwrap();
    let evil = "0000000000000000000000000000000000000000000000000000000000000000  a.txt\n";
    std::fs::write(dir.join("added.clear"), format!("{evil}{clear}{evil}")).unwrap();
    let r = run(dir, &["-c", "added.clear", "--key", "release.asc"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(r.out, "a.txt: OK\nb.txt: OK\n");
    assert!(
        r.err
            .contains(": added.clear: 2 lines outside the signed block ignored, not checked"),
        "{}",
        r.err
    );
    // A changed line inside the block breaks the signature.
    std::fs::write(dir.join("inside.clear"), clear.replacen("  a.txt", "  b.txt", 1)).unwrap();
    refused(
        &run(dir, &["-c", "inside.clear", "--key", "release.asc"]),
        "inside.clear",
        "BAD signature",
        Some("OpenPGP"),
    );
    // Without --key, the clearsigned file is read as before (armor skipped).
    let r = run(dir, &["-c", "SHA256SUMS.clear"]);
    assert_eq!(
        (r.code, r.out.as_str()),
        (0, "a.txt: OK\nb.txt: OK\n"),
        "{}",
        r.err
    );
    // Standard input: needs --signature, or clearsigned.
    let r = crate::util::mhash(dir)
        .args(["-c", "--key", "release.asc", "--signature", "SHA256SUMS.asc", "-"])
        .pipe_stdin(dir.join("SHA256SUMS"))
        .unwrap()
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&r.stdout), "a.txt: OK\nb.txt: OK\n");
    let r = crate::util::mhash(dir)
        .args(["-c", "--key", "release.asc"])
        .pipe_stdin(dir.join("SHA256SUMS"))
        .unwrap()
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(1));
    assert_eq!(r.stdout, b"");
    let e = String::from_utf8_lossy(&r.stderr);
    assert!(
        e.contains(": standard input: no signature") && e.contains("--signature"),
        "{e}"
    );
    let r = crate::util::mhash(dir)
        .args(["-c", "--key", "release.asc"])
        .pipe_stdin(dir.join("SHA256SUMS.clear"))
        .unwrap()
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(0), "{}", String::from_utf8_lossy(&r.stderr));
}

fn minisign(set: &Path) {
    let d = copy_of(set, "minisign");
    let dir = d.path();
    let id = expected(set, "minisign", "minisign.pub");
    let r = run(dir, &["-c", "SHA256SUMS", "--key", "minisign.pub"]);
    good(&r, "SHA256SUMS", "minisign", &id);
    assert!(r.err.contains("release 1.0"), "the trusted comment: {}", r.err);
    refused(
        &run(dir, &["-c", "SHA256SUMS", "--key", "else.pub"]),
        "SHA256SUMS",
        "signature by a key not in the key file",
        Some("minisign"),
    );
    refused(
        &run(
            dir,
            &[
                "-c",
                "SHA256SUMS",
                "--key",
                "minisign.pub",
                "--signature",
                "other.txt.minisig",
            ],
        ),
        "SHA256SUMS",
        "BAD signature",
        Some("minisign"),
    );
    // Tampered signature: a byte of the signature line (past "Ed" and the
    // key number) changed.
    let s = std::fs::read_to_string(dir.join("SHA256SUMS.minisig")).unwrap();
    let at = s.find('\n').unwrap() + 1 + 30;
    let mut t = s.into_bytes();
    t[at] = if t[at] == b'A' { b'B' } else { b'A' };
    std::fs::write(dir.join("tampered.minisig"), &t).unwrap();
    refused(
        &run(
            dir,
            &[
                "-c",
                "SHA256SUMS",
                "--key",
                "minisign.pub",
                "--signature",
                "tampered.minisig",
            ],
        ),
        "SHA256SUMS",
        "BAD signature",
        Some("minisign"),
    );
    // The trusted comment is signed too.
    let s = std::fs::read_to_string(dir.join("SHA256SUMS.minisig")).unwrap();
    std::fs::write(
        dir.join("comment.minisig"),
        s.replace("release 1.0", "release 2.0"),
    )
    .unwrap();
    refused(
        &run(
            dir,
            &[
                "-c",
                "SHA256SUMS",
                "--key",
                "minisign.pub",
                "--signature",
                "comment.minisig",
            ],
        ),
        "SHA256SUMS",
        "BAD signature",
        Some("minisign"),
    );
    shared_bad_cases(dir, "minisign.pub", "SHA256SUMS.minisig", "minisign");
    // An OpenPGP key for a minisign signature: refused, one line.
    std::fs::copy(set.join("openpgp/release.asc"), dir.join("pgp.asc")).unwrap();
    refused(
        &run(dir, &["-c", "SHA256SUMS", "--key", "pgp.asc"]),
        "SHA256SUMS",
        "unsupported signature",
        Some("minisign"),
    );
}

/// signify's key number, read from the public key signify wrote: bytes
/// 2..10 of its base64 line, shown as minisign shows key IDs.
fn signify_keynum(pubfile: &Path) -> String {
    use base64::Engine;
    let text = std::fs::read_to_string(pubfile).unwrap();
    let b = base64::engine::general_purpose::STANDARD
        .decode(text.lines().nth(1).unwrap())
        .unwrap();
    format!("{:016X}", u64::from_le_bytes(b[2..10].try_into().unwrap()))
}

fn signify(set: &Path) {
    let d = copy_of(set, "signify");
    let dir = d.path();
    let id = signify_keynum(&dir.join("signify.pub"));
    good(
        &run(dir, &["-c", "SHA256SUMS", "--key", "signify.pub"]),
        "SHA256SUMS",
        "signify",
        &id,
    );
    // An embedded signature (signify -S -e, as OpenBSD's SHA256.sig).
    good(
        &run(dir, &["-c", "SHA256.sig", "--key", "signify.pub"]),
        "SHA256.sig",
        "signify",
        &id,
    );
    let emb = std::fs::read_to_string(dir.join("SHA256.sig")).unwrap();
    std::fs::write(dir.join("SHA256.sig"), emb.replacen("  a.txt", "  b.txt", 1)).unwrap();
    refused(
        &run(dir, &["-c", "SHA256.sig", "--key", "signify.pub"]),
        "SHA256.sig",
        "BAD signature",
        Some("signify"),
    );
    refused(
        &run(dir, &["-c", "SHA256SUMS", "--key", "else.pub"]),
        "SHA256SUMS",
        "signature by a key not in the key file",
        Some("signify"),
    );
    refused(
        &run(
            dir,
            &[
                "-c",
                "SHA256SUMS",
                "--key",
                "signify.pub",
                "--signature",
                "other.txt.sig",
            ],
        ),
        "SHA256SUMS",
        "BAD signature",
        Some("signify"),
    );
    let s = std::fs::read_to_string(dir.join("SHA256SUMS.sig")).unwrap();
    let at = s.find('\n').unwrap() + 1 + 40;
    let mut t = s.into_bytes();
    t[at] = if t[at] == b'A' { b'B' } else { b'A' };
    std::fs::write(dir.join("tampered.sig"), &t).unwrap();
    refused(
        &run(
            dir,
            &[
                "-c",
                "SHA256SUMS",
                "--key",
                "signify.pub",
                "--signature",
                "tampered.sig",
            ],
        ),
        "SHA256SUMS",
        "BAD signature",
        Some("signify"),
    );
    shared_bad_cases(dir, "signify.pub", "SHA256SUMS.sig", "signify");
}

fn ssh(set: &Path) {
    let d = copy_of(set, "ssh");
    let dir = d.path();
    let ed = expected(set, "ssh", "ed25519");
    let r = run(dir, &["-c", "SHA256SUMS", "--key", "allowed_signers"]);
    good(&r, "SHA256SUMS", "SSH", &ed);
    assert!(r.err.contains("\"release@example.org\""), "{}", r.err);
    good(
        &run(dir, &["-c", "SHA256SUMS", "--key", "release.pub"]),
        "SHA256SUMS",
        "SSH",
        &ed,
    );
    for k in ["ecdsa", "rsa"] {
        let sig = format!("SHA256SUMS.{k}.sig");
        good(
            &run(
                dir,
                &[
                    "-c",
                    "SHA256SUMS",
                    "--key",
                    "allowed_signers",
                    "--signature",
                    &sig,
                ],
            ),
            "SHA256SUMS",
            "SSH",
            &expected(set, "ssh", k),
        );
    }
    // Signed for another namespace: refused unless --namespace says it;
    // then the allowed-signers line (namespaces="file") refuses it.
    let ns = [
        "-c",
        "SHA256SUMS",
        "--key",
        "allowed_signers",
        "--signature",
        "SHA256SUMS.git-namespace.sig",
    ];
    refused(&run(dir, &ns), "SHA256SUMS", "BAD signature", Some("SSH"));
    let r = run(dir, &[&ns[..], &["--namespace", "git"]].concat());
    refused(
        &r,
        "SHA256SUMS",
        "signature by a key not in the key file",
        Some("SSH"),
    );
    good(
        &run(
            dir,
            &[
                "-c",
                "SHA256SUMS",
                "--key",
                "release.pub",
                "--signature",
                "SHA256SUMS.git-namespace.sig",
                "--namespace",
                "git",
            ],
        ),
        "SHA256SUMS",
        "SSH",
        &ed,
    );
    refused(
        &run(dir, &["-c", "SHA256SUMS", "--key", "else.pub"]),
        "SHA256SUMS",
        "signature by a key not in the key file",
        Some("SSH"),
    );
    refused(
        &run(
            dir,
            &[
                "-c",
                "SHA256SUMS",
                "--key",
                "allowed_signers",
                "--signature",
                "other.txt.sig",
            ],
        ),
        "SHA256SUMS",
        "BAD signature",
        Some("SSH"),
    );
    // Tampered signature: the last byte of the signature blob, inside
    // the base64 before the END line.
    let s = std::fs::read_to_string(dir.join("SHA256SUMS.sig")).unwrap();
    let at = s.find("-----END").unwrap() - 6;
    let mut t = s.into_bytes();
    t[at] = if t[at] == b'A' { b'B' } else { b'A' };
    std::fs::write(dir.join("tampered.sig"), &t).unwrap();
    let r = run(
        dir,
        &[
            "-c",
            "SHA256SUMS",
            "--key",
            "allowed_signers",
            "--signature",
            "tampered.sig",
        ],
    );
    assert_eq!(
        (r.code, r.out.as_str(), r.err.lines().count()),
        (1, "", 1),
        "{}",
        r.err
    );
    assert!(
        r.err.contains(": SHA256SUMS: ") && r.err.contains("signature"),
        "{}",
        r.err
    );
    shared_bad_cases(dir, "allowed_signers", "SHA256SUMS.sig", "SSH");
}

#[test]
fn openpgp_with_committed_fixtures() {
    openpgp(Path::new(FIXTURES));
}

#[test]
fn minisign_with_committed_fixtures() {
    minisign(Path::new(FIXTURES));
}

#[test]
fn signify_with_committed_fixtures() {
    signify(Path::new(FIXTURES));
}

#[test]
fn ssh_with_committed_fixtures() {
    ssh(Path::new(FIXTURES));
}

#[test]
fn several_checksum_files_each_with_its_signature() {
    let set = Path::new(FIXTURES);
    let d = copy_of(set, "minisign");
    let dir = d.path();
    for (sub, from) in [("s", "minisign"), ("t", "signify")] {
        std::fs::create_dir(dir.join(sub)).unwrap();
        for f in std::fs::read_dir(set.join(from)).unwrap() {
            let f = f.unwrap();
            std::fs::copy(f.path(), dir.join(sub).join(f.file_name())).unwrap();
        }
    }
    // The lists name a.txt and b.txt relative to the working directory.
    let r = run(
        dir,
        &["-c", "SHA256SUMS", "s/SHA256SUMS", "--key", "minisign.pub"],
    );
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(r.out, "a.txt: OK\nb.txt: OK\na.txt: OK\nb.txt: OK\n");
    assert_eq!(r.err.matches("Good signature (minisign").count(), 2, "{}", r.err);
    // The second one's signature (signify, another key) is refused: only
    // the first is checked, and the run fails.
    let r = run(
        dir,
        &["-c", "SHA256SUMS", "t/SHA256SUMS", "--key", "minisign.pub"],
    );
    assert_eq!(r.code, 1, "{}", r.err);
    assert_eq!(r.out, "a.txt: OK\nb.txt: OK\n");
    assert!(
        r.err.contains(": SHA256SUMS: Good signature (minisign"),
        "{}",
        r.err
    );
    assert!(
        r.err
            .contains(": t/SHA256SUMS: signature by a key not in the key file (signify"),
        "{}",
        r.err
    );
}

#[test]
fn json_records_the_verdict() {
    let set = Path::new(FIXTURES);
    let d = copy_of(set, "signify");
    let dir = d.path();
    let r = run(dir, &["-c", "SHA256SUMS", "--key", "signify.pub", "--json"]);
    assert_eq!(r.code, 0, "{}", r.err);
    let first: serde_json::Value = serde_json::from_str(r.out.lines().next().unwrap()).unwrap();
    assert_eq!(first["checksum_file"], "SHA256SUMS");
    assert_eq!(first["signature"]["verdict"], "good");
    assert_eq!(first["signature"]["format"], "signify");
    assert_eq!(
        first["signature"]["key_id"],
        signify_keynum(&dir.join("signify.pub"))
    );
    assert_eq!(first["signature"]["file"], "SHA256SUMS.sig");
    assert_eq!(r.out.lines().count(), 3, "{}", r.out);
    let r = run(dir, &["-c", "SHA256SUMS", "--key", "else.pub", "--json"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.out.lines().count(), 1, "{}", r.out);
    let rec: serde_json::Value = serde_json::from_str(&r.out).unwrap();
    assert_eq!(rec["signature"]["verdict"], "unknown key");
    assert!(rec["signature"]["error"].as_str().unwrap().contains("key"));
}

#[test]
fn options_need_check_mode_and_key() {
    let d = tempfile::tempdir().unwrap();
    for (args, msg) in [
        (
            &["--key", "k", "f"][..],
            "the --key option is meaningful only when verifying checksums",
        ),
        (
            &["-c", "--signature", "s", "f"][..],
            "the --signature option is meaningful only with --key",
        ),
        (
            &["-c", "--namespace", "n", "f"][..],
            "the --namespace option is meaningful only with --key",
        ),
        (
            &["-c", "--key", "k", "--signature", "s", "f", "g"][..],
            "--signature names one signature",
        ),
    ] {
        let r = run(d.path(), args);
        assert_eq!(r.code, 1, "{args:?}: {}", r.err);
        assert!(r.err.contains(msg), "{args:?}: {}", r.err);
    }
    // GNU names have no --key.
    let r = crate::util::named(d.path(), "sha256sum")
        .args(["-c", "--key", "k", "f"])
        .output()
        .unwrap();
    assert_ne!(r.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&r.stderr).contains("unrecognized option '--key'"));
}

/// Where every tool is installed: a fresh set of keys and signatures
/// (make.sh into a temporary directory), and every case run on it.
#[test]
fn fresh_keys_from_the_real_tools() {
    let tools = ["gpg", "minisign", "signify-openbsd", "ssh-keygen", "sha256sum"];
    let missing: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|t| {
            std::process::Command::new("sh")
                .args(["-c", &format!("command -v {t}")])
                .output()
                .map_or(true, |o| !o.status.success())
        })
        .collect();
    if !missing.is_empty() {
        crate::util::skip(
            "signatures::fresh_keys_from_the_real_tools",
            &format!(
                "not installed: {}; only the committed fixtures were checked",
                missing.join(", ")
            ),
        );
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let script: PathBuf = Path::new(FIXTURES).join("make.sh");
    let o = crate::util::command("bash")
        .arg(&script)
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "make.sh: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    openpgp(out.path());
    minisign(out.path());
    signify(out.path());
    ssh(out.path());
}
