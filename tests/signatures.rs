//! `mhash -c SUMS --key KEYFILE`: signed checksum files.
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

/// `mhash -c FILE --key KEY [--signature SIG] [MORE...]` in `dir`.
fn check(dir: &Path, file: &str, key: &str, sig: Option<&str>, more: &[&str]) -> Run {
    let mut args = vec!["-c", file, "--key", key];
    if let Some(s) = sig {
        args.extend(["--signature", s]);
    }
    args.extend(more);
    run(dir, &args)
}

/// `mhash -c SHA256SUMS --key KEY [--signature SIG]` in `dir`.
fn sums(dir: &Path, key: &str, sig: Option<&str>) -> Run {
    check(dir, "SHA256SUMS", key, sig, &[])
}

/// A good signature: exit 0, `Good signature (FORMAT, key ID` on stderr,
/// then the usual check output.
fn good(r: &Run, file: &str, format: &str, key_id: &str) {
    assert_eq!(r.code, 0, "stderr: {}", r.err);
    let first = r.err.lines().next().unwrap_or_default();
    let want = format!(": {file}: Good signature ({format}, key {key_id}");
    assert!(first.contains(&want), "stderr: {}", r.err);
    assert_eq!(r.out, "a.txt: OK\nb.txt: OK\n");
}

/// A refused signature: exit 1, one stderr line `mhash: FILE: WORDS`
/// (naming FORMAT where given), nothing checked.
fn refused(r: &Run, file: &str, words: &str, format: Option<&str>) {
    assert_eq!(r.code, 1, "stdout: {} stderr: {}", r.out, r.err);
    assert_eq!(r.out, "", "nothing may be checked");
    assert_eq!(r.err.lines().count(), 1, "one line: {}", r.err);
    assert!(r.err.contains(&format!(": {file}: {words}")), "stderr: {}", r.err);
    if let Some(f) = format {
        assert!(r.err.contains(&format!("({f}")), "stderr names {f}: {}", r.err);
    }
}

/// [`refused`] for SHA256SUMS, its format named.
fn refused_sums(r: &Run, words: &str, format: &str) {
    refused(r, "SHA256SUMS", words, Some(format));
}

/// Writes `dir/to`: `dir/from` with the byte at `at(text)` changed
/// (`A` <-> `B`, else `A`), for a tampered signature.
fn tamper(dir: &Path, from: &str, to: &str, at: impl Fn(&str) -> usize) {
    let s = std::fs::read_to_string(dir.join(from)).unwrap();
    let i = at(&s);
    let mut t = s.into_bytes();
    t[i] = if t[i] == b'A' { b'B' } else { b'A' };
    std::fs::write(dir.join(to), &t).unwrap();
}

/// Cases every format shares: a wrong key (`wrong`); the signature of
/// another file (`SIG` with `other.txt` for `SHA256SUMS`); the checksum
/// file tampered (a digest's first hex digit changed); the signature
/// tampered (the byte at `at`, inside its encoded signature); the
/// signature truncated, garbage or empty; the signature missing.
fn shared_bad_cases(dir: &Path, key: &str, wrong: &str, sig: &str, format: &str, at: impl Fn(&str) -> usize) {
    let unknown = "signature by a key not in the key file";
    refused_sums(&sums(dir, wrong, Some(sig)), unknown, format);
    let other = sig.replace("SHA256SUMS", "other.txt");
    refused_sums(&sums(dir, key, Some(&other)), "BAD signature", format);

    let path = dir.join("SHA256SUMS");
    let orig = std::fs::read(&path).unwrap();
    let mut tampered = orig.clone();
    tampered[0] = if tampered[0] == b'0' { b'1' } else { b'0' };
    std::fs::write(&path, &tampered).unwrap();
    refused_sums(&sums(dir, key, Some(sig)), "BAD signature", format);
    std::fs::write(&path, &orig).unwrap();

    tamper(dir, sig, "tampered.sig", at);
    refused_sums(&sums(dir, key, Some("tampered.sig")), "BAD signature", format);

    let s = std::fs::read(dir.join(sig)).unwrap();
    std::fs::write(dir.join("trunc.sig"), &s[..s.len() / 2]).unwrap();
    let r = sums(dir, key, Some("trunc.sig"));
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

    std::fs::write(dir.join("garbage.sig"), b"this is not a signature\n\x00\x01\x02").unwrap();
    std::fs::write(dir.join("empty.sig"), b"").unwrap();
    for junk in ["garbage.sig", "empty.sig"] {
        refused(
            &sums(dir, key, Some(junk)),
            "SHA256SUMS",
            "unsupported signature",
            None,
        );
    }
    refused(
        &sums(dir, key, Some("gone.sig")),
        "SHA256SUMS",
        "no signature",
        None,
    );
}

/// Standard input as the checksum file: it needs `--signature`, or a
/// clearsigned file.
fn stdin_cases(dir: &Path) {
    let piped = |args: &[&str], file: &str| {
        let o = crate::util::mhash(dir)
            .args(args)
            .pipe_stdin(dir.join(file))
            .unwrap()
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            err,
        )
    };
    let ok = "a.txt: OK\nb.txt: OK\n";
    let with_sig = ["-c", "--key", "release.asc", "--signature", "SHA256SUMS.asc", "-"];
    let (code, out, err) = piped(&with_sig, "SHA256SUMS");
    assert_eq!((code, out.as_str()), (Some(0), ok), "{err}");
    let (code, out, err) = piped(&["-c", "--key", "release.asc"], "SHA256SUMS");
    assert_eq!((code, out.as_str()), (Some(1), ""), "{err}");
    assert!(
        err.contains(": standard input: no signature") && err.contains("--signature"),
        "{err}"
    );
    let (code, out, err) = piped(&["-c", "--key", "release.asc"], "SHA256SUMS.clear");
    assert_eq!((code, out.as_str()), (Some(0), ok), "{err}");
}

fn openpgp(set: &Path) {
    let d = copy_of(set, "openpgp");
    let dir = d.path();
    let fpr = expected(set, "openpgp", "SHA256SUMS.asc");
    let pgp = "OpenPGP";
    // Armored key, armored detached signature found beside (SHA256SUMS.asc).
    let r = sums(dir, "release.asc", None);
    good(&r, "SHA256SUMS", pgp, &fpr);
    assert!(
        r.err.contains("Release Signing <release@example.org>"),
        "{}",
        r.err
    );
    // Binary key, binary signature by an RSA signing subkey.
    let sub = expected(set, "openpgp", "SHA256SUMS.rsa.sig");
    good(
        &sums(dir, "rsa.gpg", Some("SHA256SUMS.rsa.sig")),
        "SHA256SUMS",
        pgp,
        &sub,
    );
    // ECDSA (NIST P-256).
    let ecdsa = expected(set, "openpgp", "SHA256SUMS.ecdsa.asc");
    good(
        &sums(dir, "ecdsa.asc", Some("SHA256SUMS.ecdsa.asc")),
        "SHA256SUMS",
        pgp,
        &ecdsa,
    );
    // A keyring of two keys (binary export).
    good(&sums(dir, "keyring.gpg", None), "SHA256SUMS", pgp, &fpr);
    // Wrong key.
    refused_sums(
        &sums(dir, "else.asc", None),
        "signature by a key not in the key file",
        pgp,
    );
    // Expired and revoked keys (gpg --verify says "Good signature" with a
    // warning for both; mhash refuses).
    let r = sums(dir, "expired.asc", Some("SHA256SUMS.expired.asc"));
    refused_sums(&r, "signature by an EXPIRED key", pgp);
    // When, in UTC: made with `--faked-system-time 20200101T000000` and an
    // expiry of `1d` (make.sh); gpg --with-colons gives the committed
    // key's expiry as 1577923200, `date -u -d @1577923200 +%FT%TZ` is
    // 2020-01-02T00:00:00Z (a fresh key may be made a second later).
    assert!(r.err.contains(" expired 2020-01-02T00:00:0"), "{}", r.err);
    assert!(!r.err.contains("seconds since"), "{}", r.err);
    let r = sums(dir, "revoked.asc", Some("SHA256SUMS.revoked.asc"));
    refused_sums(&r, "signature by a REVOKED key", pgp);
    // --status: nothing printed for a good one; the refusal still is.
    let r = check(dir, "SHA256SUMS", "release.asc", None, &["--status"]);
    assert_eq!((r.code, r.out.as_str(), r.err.as_str()), (0, "", ""));
    let r = check(dir, "SHA256SUMS", "else.asc", None, &["--status"]);
    refused_sums(&r, "signature by a key not in the key file", pgp);
    // (A byte inside the armored base64.)
    let at = |s: &str| s.find("\n\n").unwrap() + 42;
    shared_bad_cases(dir, "release.asc", "else.asc", "SHA256SUMS.asc", pgp, at);

    // Clearsigned: only the signed block is read.
    let clear_fpr = expected(set, "openpgp", "SHA256SUMS.clear");
    let r = check(dir, "SHA256SUMS.clear", "release.asc", None, &[]);
    good(&r, "SHA256SUMS.clear", pgp, &clear_fpr);
    // Lines added outside the block are not checked, and said so.
    let clear = std::fs::read_to_string(dir.join("SHA256SUMS.clear")).unwrap();
    let evil = "0000000000000000000000000000000000000000000000000000000000000000  a.txt\n";
    std::fs::write(dir.join("added.clear"), format!("{evil}{clear}{evil}")).unwrap();
    let r = check(dir, "added.clear", "release.asc", None, &[]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(r.out, "a.txt: OK\nb.txt: OK\n");
    let note = ": added.clear: 2 lines outside the signed block ignored, not checked";
    assert!(r.err.contains(note), "{}", r.err);
    // A changed line inside the block breaks the signature.
    std::fs::write(dir.join("inside.clear"), clear.replacen("  a.txt", "  b.txt", 1)).unwrap();
    let r = check(dir, "inside.clear", "release.asc", None, &[]);
    refused(&r, "inside.clear", "BAD signature", Some(pgp));
    // Without --key, the clearsigned file is read as before (armor skipped).
    let r = run(dir, &["-c", "SHA256SUMS.clear"]);
    assert_eq!(
        (r.code, r.out.as_str()),
        (0, "a.txt: OK\nb.txt: OK\n"),
        "{}",
        r.err
    );
    stdin_cases(dir);
}

fn minisign(set: &Path) {
    let d = copy_of(set, "minisign");
    let dir = d.path();
    let id = expected(set, "minisign", "minisign.pub");
    let ms = "minisign";
    let r = sums(dir, "minisign.pub", None);
    good(&r, "SHA256SUMS", ms, &id);
    assert!(r.err.contains("release 1.0"), "the trusted comment: {}", r.err);
    // The trusted comment is signed too.
    let s = std::fs::read_to_string(dir.join("SHA256SUMS.minisig")).unwrap();
    std::fs::write(
        dir.join("comment.minisig"),
        s.replace("release 1.0", "release 2.0"),
    )
    .unwrap();
    refused_sums(
        &sums(dir, "minisign.pub", Some("comment.minisig")),
        "BAD signature",
        ms,
    );
    // (A byte of the signature line past "Ed" and the key number.)
    let at = |s: &str| s.find('\n').unwrap() + 31;
    shared_bad_cases(dir, "minisign.pub", "else.pub", "SHA256SUMS.minisig", ms, at);
    // An OpenPGP key for a minisign signature: refused, one line, naming
    // the signature passed over and its format.
    std::fs::copy(set.join("openpgp/release.asc"), dir.join("pgp.asc")).unwrap();
    let r = sums(dir, "pgp.asc", None);
    refused(&r, "SHA256SUMS", "unsupported signature", None);
    assert!(r.err.contains("SHA256SUMS.minisig is minisign"), "{}", r.err);
    refused_sums(
        &sums(dir, "pgp.asc", Some("SHA256SUMS.minisig")),
        "unsupported signature",
        ms,
    );
}

/// signify's key number, read from the public key signify wrote: bytes
/// 2..10 of its base64 line, shown as minisign shows key IDs.
fn signify_keynum(pubfile: &Path) -> String {
    use base64::Engine;
    let text = std::fs::read_to_string(pubfile).unwrap();
    let line = text.lines().nth(1).unwrap();
    let b = base64::engine::general_purpose::STANDARD.decode(line).unwrap();
    format!("{:X}", u64::from_le_bytes(b[2..10].try_into().unwrap()))
}

fn signify(set: &Path) {
    let d = copy_of(set, "signify");
    let dir = d.path();
    let id = signify_keynum(&dir.join("signify.pub"));
    let sf = "signify";
    good(&sums(dir, "signify.pub", None), "SHA256SUMS", sf, &id);
    // An embedded signature (signify -S -e, as OpenBSD's SHA256.sig).
    good(
        &check(dir, "SHA256.sig", "signify.pub", None, &[]),
        "SHA256.sig",
        sf,
        &id,
    );
    let emb = std::fs::read_to_string(dir.join("SHA256.sig")).unwrap();
    std::fs::write(dir.join("SHA256.sig"), emb.replacen("  a.txt", "  b.txt", 1)).unwrap();
    let r = check(dir, "SHA256.sig", "signify.pub", None, &[]);
    refused(&r, "SHA256.sig", "BAD signature", Some(sf));
    // The key file not there: named, with the OS's cause.
    let r = sums(dir, "nokey.pub", None);
    refused(&r, "SHA256SUMS", "signature not checked", None);
    assert!(
        r.err.contains("key file nokey.pub: No such file or directory"),
        "{}",
        r.err
    );
    let at = |s: &str| s.find('\n').unwrap() + 41;
    shared_bad_cases(dir, "signify.pub", "else.pub", "SHA256SUMS.sig", sf, at);
}

fn ssh(set: &Path) {
    let d = copy_of(set, "ssh");
    let dir = d.path();
    let ed = expected(set, "ssh", "ed25519");
    let r = sums(dir, "allowed_signers", None);
    good(&r, "SHA256SUMS", "SSH", &ed);
    // The principal, quoted as GNU quotes names (plain: as is).
    assert!(r.err.contains("signer release@example.org,"), "{}", r.err);
    good(&sums(dir, "release.pub", None), "SHA256SUMS", "SSH", &ed);
    for k in ["ecdsa", "rsa"] {
        let sig = format!("SHA256SUMS.{k}.sig");
        good(
            &sums(dir, "allowed_signers", Some(&sig)),
            "SHA256SUMS",
            "SSH",
            &expected(set, "ssh", k),
        );
    }
    // Signed for another namespace: refused unless --namespace says it;
    // then the allowed-signers line (namespaces="file") refuses it.
    let git = Some("SHA256SUMS.git-namespace.sig");
    refused_sums(&sums(dir, "allowed_signers", git), "BAD signature", "SSH");
    let r = check(dir, "SHA256SUMS", "allowed_signers", git, &["--namespace", "git"]);
    refused_sums(&r, "signature by a key not in the key file", "SSH");
    let r = check(dir, "SHA256SUMS", "release.pub", git, &["--namespace", "git"]);
    good(&r, "SHA256SUMS", "SSH", &ed);
    refused_sums(
        &sums(dir, "else.pub", None),
        "signature by a key not in the key file",
        "SSH",
    );
    // (A byte of the signature blob, in the base64 before the END line.)
    let at = |s: &str| s.find("-----END").unwrap() - 6;
    shared_bad_cases(dir, "allowed_signers", "else.pub", "SHA256SUMS.sig", "SSH", at);
}

/// What gpg said of signature file `sig` verified with key file `key`
/// (`bitcoin/expected.txt`): `good:FPR`, `nokey:KEYID`, `bad:KEYID` words.
fn gpg_said(set: &Path, key: &str, sig: &str) -> Vec<String> {
    expected(set, "bitcoin", &format!("{key}:{sig}"))
        .split(' ')
        .map(str::to_string)
        .collect()
}

/// Bitcoin Core's layout: `SHA256SUMS.asc` is each builder's armored
/// signature, one block after another. Every block is checked; the list
/// in the verdict says, in order, what gpg said of each (VALIDSIG,
/// NO_PUBKEY, BADSIG).
fn bitcoin(set: &Path) {
    let d = copy_of(set, "bitcoin");
    let dir = d.path();
    let pgp = "OpenPGP";
    let fpr = |n: u32| expected(set, "bitcoin", &format!("builder{n}"));
    // Each item of the list against gpg's word for the same signature.
    let listed = |r: &Run, said: &[String]| {
        let line = r.err.lines().next().unwrap_or_default();
        let list = line
            .split_once(&format!("{} signatures: ", said.len()))
            .unwrap_or_else(|| panic!("no list of {}: {line}", said.len()))
            .1;
        let items: Vec<&str> = list.split(", ").collect();
        assert_eq!(items.len(), said.len(), "{line}");
        for (item, word) in items.iter().zip(said) {
            let (what, id) = word.split_once(':').unwrap();
            let ok = match what {
                "good" => *item == format!("good by {id}"),
                "nokey" => item.ends_with(&format!("{id} not in the key file")),
                "bad" => item.starts_with("BAD by ") && item.ends_with(id),
                _ => false,
            };
            assert!(ok, "{item:?} is not gpg's {word:?}: {line}");
        }
    };
    // The second builder's key alone: good (gpg: Good signature for it,
    // No public key for the others).
    let r = sums(dir, "builder2.asc", None);
    good(&r, "SHA256SUMS", pgp, &fpr(2));
    assert!(
        r.err.contains("signer 'Builder 2 <builder2@example.org>'"),
        "{}",
        r.err
    );
    listed(&r, &gpg_said(set, "builder2", "SHA256SUMS.asc"));
    // Two keys, two needed: met (both signed).
    let r = check(
        dir,
        "SHA256SUMS",
        "builders12.asc",
        None,
        &["--min-signatures", "2"],
    );
    good(&r, "SHA256SUMS", pgp, &fpr(1));
    listed(&r, &gpg_said(set, "builders12", "SHA256SUMS.asc"));
    // Two keys, two needed, one of them did not sign: not met.
    let r = check(
        dir,
        "SHA256SUMS",
        "builders15.asc",
        None,
        &["--min-signatures", "2"],
    );
    refused_sums(&r, "too few good signatures", pgp);
    assert!(
        r.err
            .contains("1 good signature by distinct keys of the key file, 2 needed"),
        "{}",
        r.err
    );
    assert!(r.err.contains(&format!("good by {}", fpr(1))), "{}", r.err);
    // Three needed of two keys: not met.
    let r = check(
        dir,
        "SHA256SUMS",
        "builders12.asc",
        None,
        &["--min-signatures", "3"],
    );
    refused_sums(&r, "too few good signatures", pgp);
    // A key that signed nothing: no good signature, each one listed.
    let r = sums(dir, "builder5.asc", None);
    refused_sums(&r, "signature by a key not in the key file", pgp);
    assert!(r.err.contains("4 signatures: "), "{}", r.err);
    // One armored block holding two signature packets.
    let r = check(
        dir,
        "SHA256SUMS",
        "builders12.asc",
        Some("SHA256SUMS.two.asc"),
        &["--min-signatures", "2"],
    );
    good(&r, "SHA256SUMS", pgp, &fpr(1));
    listed(&r, &gpg_said(set, "builders12", "SHA256SUMS.two.asc"));
    let r = sums(dir, "builder2.asc", Some("SHA256SUMS.two.asc"));
    good(&r, "SHA256SUMS", pgp, &fpr(2));
    // Builder 3's signature is of another file: BAD when builder 3's key
    // is given (gpg: BADSIG), however many others are good ...
    let r = sums(dir, "builders23.asc", Some("SHA256SUMS.bad3.asc"));
    refused_sums(&r, "BAD signature", pgp);
    assert!(r.err.contains(&format!("key {}", fpr(3))), "{}", r.err);
    assert!(r.err.contains(&format!("BAD by {}", fpr(3))), "{}", r.err);
    assert!(r.err.contains(&format!("good by {}", fpr(2))), "{}", r.err);
    // ... and passed over when it is not (gpg: No public key).
    let r = sums(dir, "builders12.asc", Some("SHA256SUMS.bad3.asc"));
    good(&r, "SHA256SUMS", pgp, &fpr(1));
    listed(&r, &gpg_said(set, "builders12", "SHA256SUMS.bad3.asc"));
    // --json: each signature in the record.
    let r = check(dir, "SHA256SUMS", "builder2.asc", None, &["--json"]);
    assert_eq!(r.code, 0, "{}", r.err);
    let first: serde_json::Value = serde_json::from_str(r.out.lines().next().unwrap()).unwrap();
    let sigs = first["signature"]["signatures"].as_array().unwrap();
    assert_eq!(sigs.len(), 4, "{}", r.out);
    assert_eq!(sigs[1]["key_id"], fpr(2).as_str());
    assert_eq!(sigs[1]["verdict"], "good");
    assert_eq!(sigs[0]["verdict"], "unknown key");
    // A clearsigned file's one signature, two needed: too few.
    let clear = set.join("openpgp");
    let r = check(
        &clear,
        "SHA256SUMS.clear",
        "release.asc",
        None,
        &["--min-signatures", "2"],
    );
    refused(&r, "SHA256SUMS.clear", "too few good signatures", Some(pgp));
}

/// OpenWrt's layout: a usign (signify) `.sig` and an OpenPGP `.asc`
/// beside the list, and here a minisign `.minisig` too: the key's format
/// picks the signature, those of another format are passed over.
fn openwrt(set: &Path) {
    let d = copy_of(set, "openwrt");
    let dir = d.path();
    let mini = expected(set, "openwrt", "minisign.pub");
    let r = sums(dir, "minisign.pub", None);
    good(&r, "SHA256SUMS", "minisign", &mini);
    assert!(r.err.contains("SHA256SUMS.minisig)"), "{}", r.err);
    let r = sums(dir, "build.asc", None);
    good(
        &r,
        "SHA256SUMS",
        "OpenPGP",
        &expected(set, "openwrt", "build.asc"),
    );
    let r = sums(dir, "usign.pub", None);
    let usign = signify_keynum(&dir.join("usign.pub"));
    good(&r, "SHA256SUMS", "signify", &usign);
    // The .asc alone beside the list, and a minisign key: each candidate
    // named with its format, no parser's text.
    std::fs::remove_file(dir.join("SHA256SUMS.minisig")).unwrap();
    std::fs::remove_file(dir.join("SHA256SUMS.sig")).unwrap();
    let r = sums(dir, "minisign.pub", None);
    refused(&r, "SHA256SUMS", "unsupported signature", None);
    assert!(
        r.err.contains("(a minisign key): SHA256SUMS.asc is OpenPGP;"),
        "{}",
        r.err
    );
    assert!(r.err.contains("SHA256SUMS.minisig"), "{}", r.err);
    // --signature names it: the key file is not OpenPGP, said in words.
    let r = sums(dir, "minisign.pub", Some("SHA256SUMS.asc"));
    refused_sums(&r, "unsupported signature", "OpenPGP");
    assert!(r.err.contains("it holds a minisign key"), "{}", r.err);
    assert!(!r.err.contains("buffer"), "{}", r.err);
}

/// `--trusted-comment`: minisign's signed trusted comment must match the
/// whole pattern (`minisign -t 'repo=example/tool;tag=v1.2.3'`, as
/// minisign -V prints it).
fn trusted_comment(set: &Path) {
    let d = copy_of(set, "openwrt");
    let dir = d.path();
    let mini = expected(set, "openwrt", "minisign.pub");
    let said = expected(set, "openwrt", "trusted");
    assert_eq!(said, "repo=example/tool;tag=v1.2.3");
    let tc = |re: &str| {
        check(
            dir,
            "SHA256SUMS",
            "minisign.pub",
            None,
            &["--trusted-comment", re],
        )
    };
    good(
        &tc(r"repo=example/tool;tag=v1\.2\.3"),
        "SHA256SUMS",
        "minisign",
        &mini,
    );
    good(
        &tc(r"repo=example/tool;tag=v1\.[0-9]+\.[0-9]+"),
        "SHA256SUMS",
        "minisign",
        &mini,
    );
    // Case-insensitive: ASCII letters fold (built without Unicode case
    // tables).
    good(
        &tc(r"(?i)REPO=Example/Tool;TAG=V1\.2\.3"),
        "SHA256SUMS",
        "minisign",
        &mini,
    );
    // Anchored: a prefix or a part is not enough.
    for re in [
        "repo=example/tool;tag=v1\\.2",
        "tag=v1\\.2\\.3",
        "repo=other/tool;tag=v1\\.2\\.3",
    ] {
        let r = tc(re);
        refused_sums(&r, "BAD signature", "minisign");
        assert!(
            r.err
                .contains(&format!("its trusted comment '{said}' does not match")),
            "{}",
            r.err
        );
    }
    // Another format: refused, not passed.
    // (`.+`, not `.*`: on Windows an unquoted `*` in an argument is
    // expanded as a wildcard, as a Unix shell would.)
    let r = check(dir, "SHA256SUMS", "build.asc", None, &["--trusted-comment", ".+"]);
    refused_sums(&r, "unsupported signature", "OpenPGP");
    // Not a regular expression: a usage error, nothing read.
    let r = tc("tag=(");
    assert_eq!((r.code, r.out.as_str()), (1, ""), "{}", r.err);
    assert!(r.err.contains("--trusted-comment"), "{}", r.err);
    assert!(r.err.contains("not a regular expression"), "{}", r.err);
}

#[test]
fn bitcoin_layout_with_committed_fixtures() {
    bitcoin(Path::new(FIXTURES));
}

#[test]
fn openwrt_layout_with_committed_fixtures() {
    openwrt(Path::new(FIXTURES));
    trusted_comment(Path::new(FIXTURES));
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
        (
            &["-c", "--min-signatures", "2", "f"][..],
            "the --min-signatures option is meaningful only with --key",
        ),
        (
            &["-c", "--trusted-comment", "x", "f"][..],
            "the --trusted-comment option is meaningful only with --key",
        ),
        (
            &["-c", "--key", "k", "--min-signatures", "0", "f"][..],
            "--min-signatures needs a whole number of 1 or more",
        ),
        (
            &["-c", "--key", "k", "--min-signatures", "two", "f"][..],
            "--min-signatures needs a whole number of 1 or more",
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
    let o = crate::util::command("bash")
        .arg(Path::new(FIXTURES).join("make-layouts.sh"))
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "make-layouts.sh: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    bitcoin(out.path());
    openwrt(out.path());
    trusted_comment(out.path());
}

/// How GNU 9.1 `sha256sum` writes `name` in its messages (`quotef`, C
/// locale): read from its `NAME: No such file or directory` line, for a
/// name that does not exist. `None` where GNU is not installed.
#[cfg(unix)]
fn gnu_quotef(name: &str) -> Option<String> {
    if !crate::util::gnu_available("signatures::gnu_quotef") {
        return None;
    }
    let d = tempfile::tempdir().unwrap();
    let o = crate::util::gnu("sha256sum")
        .current_dir(d.path())
        .args(["--", name])
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    let q = err
        .strip_prefix("sha256sum: ")
        .and_then(|e| e.strip_suffix(": No such file or directory\n"))
        .unwrap_or_else(|| panic!("GNU said: {err:?}"));
    Some(q.to_string())
}

/// A name in a verdict is quoted as GNU quotes names in its messages: a
/// signature file named with `\r` and `ESC [2K` (carriage return, erase
/// line) cannot rewrite a `BAD signature` line into a `Good signature` one
/// on a terminal. The same for the signature found beside the checksum
/// file, the names tried there, and the key file.
#[cfg(unix)]
#[test]
fn names_in_verdicts_are_quoted_as_gnu_quotes_them() {
    let set = Path::new(FIXTURES);
    let d = copy_of(set, "minisign");
    let dir = d.path();
    let id = expected(set, "minisign", "minisign.pub");
    // The checksum file's name, and the signature found beside it.
    let evil = "S\r\x1b[2Kmhash: S: Good signature";
    let sig = format!("{evil}.minisig");
    // GNU's quoting of these names (shell-escape style, C locale).
    let q_evil = "'S'$'\\r\\033''[2Kmhash: S: Good signature'";
    let q_sig = "'S'$'\\r\\033''[2Kmhash: S: Good signature.minisig'";
    if let Some(g) = gnu_quotef(&sig) {
        assert_eq!(g, q_sig, "GNU quotes the signature's name so");
    }
    let clean = |r: &Run| {
        assert!(
            !r.err.contains('\r') && !r.err.contains('\x1b'),
            "a control character reached stderr: {:?}",
            r.err
        );
    };
    std::fs::copy(dir.join("SHA256SUMS"), dir.join(evil)).unwrap();
    // The signature of another file, found beside: BAD, its name quoted.
    std::fs::copy(dir.join("other.txt.minisig"), dir.join(&sig)).unwrap();
    let r = check(dir, evil, "minisign.pub", None, &[]);
    clean(&r);
    refused(&r, q_evil, "BAD signature", Some("minisign"));
    assert!(
        r.err.contains(&format!("(minisign, key {id}, {q_sig}): ")),
        "{:?}",
        r.err
    );
    // A good one given with --signature: the name in `Good signature (...)`.
    std::fs::copy(dir.join("SHA256SUMS.minisig"), dir.join(&sig)).unwrap();
    let r = check(dir, "SHA256SUMS", "minisign.pub", Some(&sig), &[]);
    clean(&r);
    good(&r, "SHA256SUMS", "minisign", &id);
    assert!(r.err.contains(&format!(", {q_sig})\n")), "{:?}", r.err);
    // No signature beside: the names tried are quoted.
    std::fs::remove_file(dir.join(&sig)).unwrap();
    let r = check(dir, evil, "minisign.pub", None, &[]);
    clean(&r);
    refused(&r, q_evil, "no signature", None);
    let q_asc = "'S'$'\\r\\033''[2Kmhash: S: Good signature.asc'";
    assert!(r.err.contains(&format!(", {q_asc}, ")), "{:?}", r.err);
    // The key file.
    let key = "k\r\x1b[2K.pub";
    let q_key = "'k'$'\\r\\033''[2K.pub'";
    if let Some(g) = gnu_quotef(key) {
        assert_eq!(g, q_key, "GNU quotes the key file's name so");
    }
    let r = sums(dir, key, None);
    clean(&r);
    refused(&r, "SHA256SUMS", "signature not checked", None);
    assert!(
        r.err
            .contains(&format!("key file {q_key}: No such file or directory")),
        "{:?}",
        r.err
    );
    // A private key given as the key file, its public key beside it: both
    // named, quoted.
    let private = "k\r\x1b[2K";
    let q_private = "'k'$'\\r\\033''[2K'";
    std::fs::write(
        dir.join(private),
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----\n",
    )
    .unwrap();
    std::fs::copy(dir.join("minisign.pub"), dir.join(key)).unwrap();
    let r = sums(dir, private, None);
    clean(&r);
    refused(&r, "SHA256SUMS", "signature not checked", None);
    let said = format!(
        "key file {q_private} is an SSH private key, not a public key: give --key the public key, {q_key}"
    );
    assert!(r.err.contains(&said), "{:?}", r.err);
}

/// [`check`] killed after 20 seconds (then its exit code is -1).
#[cfg(unix)]
fn check_within(dir: &Path, file: &str, key: &str, sig: Option<&str>) -> Run {
    let mut args = vec!["-c", file, "--key", key];
    if let Some(s) = sig {
        args.extend(["--signature", s]);
    }
    let o = crate::util::mhash(dir)
        .args(&args)
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    Run {
        code: o.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// A FIFO (no writer: opening it for reading waits for ever), a socket or
/// a device as the key file or the signature file, also as the `FILE.sig`
/// found beside the checksum file (a tarball can carry a FIFO): refused at
/// once, one line naming the file and what it is, exit 1, nothing checked.
#[cfg(unix)]
#[test]
fn a_fifo_socket_or_device_as_key_or_signature_is_refused_at_once() {
    let set = Path::new(FIXTURES);
    let d = copy_of(set, "minisign");
    let dir = d.path();
    let mkfifo = |name: &str| {
        assert!(
            crate::util::command("mkfifo")
                .arg(dir.join(name))
                .status()
                .unwrap()
                .success(),
            "mkfifo"
        );
    };
    let not_read = |r: &Run, what: &str, q: &str, kind: &str| {
        refused(r, "SHA256SUMS", "signature not checked", None);
        let cause = format!("{what} {q}: {kind}, not a regular file");
        assert!(r.err.contains(&cause), "{:?}", r.err);
    };
    // Found beside the checksum file (FILE.minisig comes first for a
    // minisign key).
    let (sig, keep) = (dir.join("SHA256SUMS.minisig"), dir.join("keep.minisig"));
    std::fs::rename(&sig, &keep).unwrap();
    mkfifo("SHA256SUMS.minisig");
    let r = check_within(dir, "SHA256SUMS", "minisign.pub", None);
    not_read(&r, "signature", "SHA256SUMS.minisig", "a FIFO");
    // Named by --signature.
    mkfifo("fifo.minisig");
    let r = check_within(dir, "SHA256SUMS", "minisign.pub", Some("fifo.minisig"));
    not_read(&r, "signature", "fifo.minisig", "a FIFO");
    std::fs::remove_file(&sig).unwrap();
    std::fs::rename(&keep, &sig).unwrap();
    // The key file: a FIFO, a socket, a character device.
    mkfifo("fifo.pub");
    let r = check_within(dir, "SHA256SUMS", "fifo.pub", None);
    not_read(&r, "key file", "fifo.pub", "a FIFO");
    let _listener = std::os::unix::net::UnixListener::bind(dir.join("socket.pub")).unwrap();
    let r = check_within(dir, "SHA256SUMS", "socket.pub", None);
    not_read(&r, "key file", "socket.pub", "a socket");
    let r = check_within(dir, "SHA256SUMS", "/dev/null", None);
    not_read(&r, "key file", "/dev/null", "a character device");
    // The regular files beside them still verify.
    let r = check_within(dir, "SHA256SUMS", "minisign.pub", None);
    good(
        &r,
        "SHA256SUMS",
        "minisign",
        &expected(set, "minisign", "minisign.pub"),
    );
}

/// An allowed-signers line's `namespaces="..."` is matched as OpenSSH's
/// `match_pattern_list` matches it (`*`, `?`, comma-separated patterns,
/// none trimmed, `!` negating), and in linear time: 400 `*`s before a
/// byte that is not there took minutes by backtracking. Where ssh-keygen
/// is installed, each verdict is first checked against `ssh-keygen -Y
/// verify` with the same line.
#[cfg(unix)]
#[test]
fn allowed_signers_namespaces_match_as_openssh_does_in_linear_time() {
    let set = Path::new(FIXTURES);
    let d = copy_of(set, "ssh");
    let dir = d.path();
    let ed = expected(set, "ssh", "ed25519");
    let line = std::fs::read_to_string(dir.join("allowed_signers")).unwrap();
    let line = line.lines().next().unwrap().to_string();
    assert!(line.contains(" namespaces=\"file\" "), "{line}");
    let keygen = std::process::Command::new("sh")
        .args(["-c", "command -v ssh-keygen"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !keygen {
        crate::util::skip(
            "signatures::allowed_signers_namespaces_match_as_openssh_does_in_linear_time",
            "ssh-keygen not installed: the verdicts were NOT compared with OpenSSH's",
        );
    }
    let stars = "*".repeat(400);
    let cases: Vec<(String, bool)> = vec![
        ("file".into(), true),
        ("fi*".into(), true),
        ("f?le".into(), true),
        ("x*".into(), false),
        ("git,file".into(), true),
        ("file,".into(), true),
        ("git, file".into(), false),
        ("!file,*".into(), false),
        ("*,!fil?".into(), false),
        ("!x*,f*".into(), true),
        ("!x*".into(), false),
        ("".into(), false),
        (format!("{stars}x"), false),
        (format!("{stars}e"), true),
        (format!("{stars}f{stars}l*e"), true),
        // OpenSSH copies each pattern into a 1,024-byte buffer: one of
        // 1,023 bytes or more allows nothing.
        (format!("{}e", "*".repeat(1021)), true),
        (format!("{}e", "*".repeat(1022)), false),
        (format!("{stars}f{stars}l*e{stars}"), false),
    ];
    for (pattern, allowed) in cases {
        let signers = line.replace("namespaces=\"file\"", &format!("namespaces=\"{pattern}\""));
        std::fs::write(dir.join("signers"), format!("{signers}\n")).unwrap();
        if keygen {
            let o = crate::util::command("ssh-keygen")
                .current_dir(dir)
                .args(["-Y", "verify", "-f", "signers", "-I", "release@example.org"])
                .args(["-n", "file", "-s", "SHA256SUMS.sig"])
                .stdin(std::fs::File::open(dir.join("SHA256SUMS")).unwrap())
                .output()
                .unwrap();
            assert_eq!(
                o.status.success(),
                allowed,
                "ssh-keygen on namespaces=\"{pattern}\": {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        let start = std::time::Instant::now();
        let r = check_within(dir, "SHA256SUMS", "signers", None);
        let took = start.elapsed();
        if allowed {
            good(&r, "SHA256SUMS", "SSH", &ed);
        } else {
            refused_sums(&r, "signature by a key not in the key file", "SSH");
        }
        assert!(
            took < std::time::Duration::from_secs(3),
            "namespaces=\"{pattern}\" took {took:?}"
        );
    }
}

/// The offsets of every length prefix in an SSHSIG blob (PROTOCOL.sshsig),
/// with what each one frames: the five strings after `SSHSIG` and the
/// version, the strings inside the public key and inside the signature,
/// and, for ECDSA, the two integers inside the signature's bytes.
fn sshsig_length_prefixes(blob: &[u8]) -> Vec<(usize, String)> {
    fn len_at(b: &[u8], at: usize) -> usize {
        u32::from_be_bytes(b[at..at + 4].try_into().unwrap()) as usize
    }
    /// The strings one after another in `b[start..end]`: (offset, length).
    fn strings(b: &[u8], start: usize, end: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut at = start;
        while at < end {
            let n = len_at(b, at);
            out.push((at, n));
            at += 4 + n;
        }
        assert_eq!(at, end, "the blob made by ssh-keygen is well formed");
        out
    }
    assert_eq!(&blob[..6], b"SSHSIG");
    let outer = strings(blob, 10, blob.len());
    let names = [
        "public key",
        "namespace",
        "reserved",
        "hash algorithm",
        "signature",
    ];
    assert_eq!(outer.len(), names.len());
    let mut out: Vec<(usize, String)> = outer
        .iter()
        .zip(names)
        .map(|(&(at, _), n)| (at, n.to_string()))
        .collect();
    let (key_at, key_len) = outer[0];
    for (i, (at, _)) in strings(blob, key_at + 4, key_at + 4 + key_len)
        .into_iter()
        .enumerate()
    {
        out.push((at, format!("public key field {i}")));
    }
    let (sig_at, sig_len) = outer[4];
    let inner = strings(blob, sig_at + 4, sig_at + 4 + sig_len);
    for (i, &(at, _)) in inner.iter().enumerate() {
        out.push((at, format!("signature field {i}")));
    }
    let (type_at, type_len) = inner[0];
    if blob[type_at + 4..type_at + 4 + type_len].starts_with(b"ecdsa-") {
        let (bytes_at, bytes_len) = inner[1];
        for (i, (at, _)) in strings(blob, bytes_at + 4, bytes_at + 4 + bytes_len)
            .into_iter()
            .enumerate()
        {
            out.push((at, format!("ECDSA integer {i}")));
        }
    }
    out
}

/// `blob` armored as ssh-keygen armors it (base64 in lines of 70).
fn sshsig_armor(blob: &[u8]) -> String {
    use base64::Engine;
    let b = base64::engine::general_purpose::STANDARD.encode(blob);
    let mut s = String::from("-----BEGIN SSH SIGNATURE-----\n");
    for line in b.as_bytes().chunks(70) {
        s.push_str(std::str::from_utf8(line).unwrap());
        s.push('\n');
    }
    s.push_str("-----END SSH SIGNATURE-----\n");
    s
}

/// Every length prefix of the signature `sig` (over `dir/SHA256SUMS`, by
/// `principal` of `dir/allowed_signers`) one more and one less, and a byte
/// after the blob: `ssh-keygen -Y verify` (where `keygen`) refuses each
/// (`incomplete message`, trailing data, invalid format), and so must
/// mhash: `BAD signature`, nothing checked. The signature as made verifies
/// with both.
fn corrupted_length_prefixes(dir: &Path, sig: &str, principal: &str, keygen: bool) {
    use base64::Engine;
    let keygen_ok = |file: &str| {
        let o = crate::util::command("ssh-keygen")
            .current_dir(dir)
            .args(["-Y", "verify", "-f", "allowed_signers", "-I", principal])
            .args(["-n", "file", "-s", file])
            .stdin(std::fs::File::open(dir.join("SHA256SUMS")).unwrap())
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    if keygen {
        assert!(keygen_ok(sig).0, "ssh-keygen verifies {sig}");
    }
    let r = sums(dir, "allowed_signers", Some(sig));
    assert_eq!(r.code, 0, "{sig}: {}", r.err);
    let text = std::fs::read_to_string(dir.join(sig)).unwrap();
    let b64: String = text.lines().filter(|l| !l.starts_with("-----")).collect();
    let blob = base64::engine::general_purpose::STANDARD.decode(b64).unwrap();
    let mut cases = Vec::new();
    for (at, what) in sshsig_length_prefixes(&blob) {
        let n = u32::from_be_bytes(blob[at..at + 4].try_into().unwrap());
        for (delta, m) in [("+1", n.wrapping_add(1)), ("-1", n.wrapping_sub(1))] {
            let mut b = blob.clone();
            b[at..at + 4].copy_from_slice(&m.to_be_bytes());
            cases.push((format!("{what} length {delta}"), b));
        }
    }
    let mut trailing = blob.clone();
    trailing.push(0);
    cases.push(("a byte after the blob".to_string(), trailing));
    for (what, b) in cases {
        std::fs::write(dir.join("corrupt.sig"), sshsig_armor(&b)).unwrap();
        if keygen {
            let (ok, err) = keygen_ok("corrupt.sig");
            assert!(!ok, "{sig}, {what}: ssh-keygen verified it: {err}");
        }
        let r = sums(dir, "allowed_signers", Some("corrupt.sig"));
        assert_eq!(r.code, 1, "{sig}, {what}: verified: {}", r.err);
        assert_eq!(r.out, "", "{sig}, {what}: nothing may be checked");
        assert!(
            r.err.contains(": SHA256SUMS: BAD signature (SSH"),
            "{sig}, {what}: {}",
            r.err
        );
        assert_eq!(r.err.lines().count(), 1, "{sig}, {what}: {}", r.err);
    }
}

/// SSH signatures whose length prefixes do not frame their fields exactly
/// (OpenSSH: `incomplete message`, or trailing data) are BAD, never good:
/// the signatures ssh-keygen made for the fixtures (Ed25519, ECDSA, RSA)
/// and, where ssh-keygen is installed, a fresh one, each corrupted at
/// every length prefix.
#[cfg(unix)]
#[test]
fn ssh_signatures_with_a_corrupted_length_prefix_are_bad() {
    let set = Path::new(FIXTURES);
    let d = copy_of(set, "ssh");
    let dir = d.path();
    let keygen = std::process::Command::new("sh")
        .args(["-c", "command -v ssh-keygen"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !keygen {
        crate::util::skip(
            "signatures::ssh_signatures_with_a_corrupted_length_prefix_are_bad",
            "ssh-keygen not installed: no fresh signature, and OpenSSH's verdicts NOT compared",
        );
    }
    for (sig, who) in [
        ("SHA256SUMS.sig", "release@example.org"),
        ("SHA256SUMS.ecdsa.sig", "ecdsa@example.org"),
        ("SHA256SUMS.rsa.sig", "rsa@example.org"),
    ] {
        corrupted_length_prefixes(dir, sig, who, keygen);
    }
    if keygen {
        let k = dir.join("fresh_key");
        // (ssh-keygen asks before it overwrites a signature.)
        std::fs::remove_file(dir.join("SHA256SUMS.sig")).unwrap();
        let made = crate::util::command("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-C", "fresh@example.org", "-f"])
            .arg(&k)
            .status()
            .unwrap()
            .success()
            && crate::util::command("ssh-keygen")
                .current_dir(dir)
                .args(["-q", "-Y", "sign", "-n", "file", "-f"])
                .arg(&k)
                .arg("SHA256SUMS")
                .output()
                .unwrap()
                .status
                .success();
        assert!(made, "ssh-keygen made a key and a signature");
        std::fs::rename(dir.join("SHA256SUMS.sig"), dir.join("fresh.sig")).unwrap();
        let public = std::fs::read_to_string(dir.join("fresh_key.pub")).unwrap();
        std::fs::write(dir.join("allowed_signers"), format!("fresh@example.org {public}")).unwrap();
        corrupted_length_prefixes(dir, "fresh.sig", "fresh@example.org", keygen);
    }
}

/// Whether `tool` is installed (`command -v`).
fn installed(tool: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Where `args[0]` is installed, runs it in `dir` (standard input from
/// `stdin` there, if given) and asserts that it refuses: the format's own
/// tool says the signature is no good too.
fn tool_refuses(dir: &Path, args: &[&str], stdin: Option<&str>) {
    if !installed(args[0]) {
        crate::util::skip(
            "signatures::malformed_signatures_are_bad_in_one_short_line",
            &format!("{} not installed: its verdict NOT compared", args[0]),
        );
        return;
    }
    let mut c = crate::util::command(args[0]);
    c.current_dir(dir).args(&args[1..]);
    c.stdin(match stdin {
        Some(f) => std::process::Stdio::from(std::fs::File::open(dir.join(f)).unwrap()),
        None => std::process::Stdio::null(),
    });
    let o = c.output().unwrap();
    assert!(!o.status.success(), "{args:?} accepted it");
}

/// One short line of stderr, with no Rust debug dump in it (rpgp's errors
/// held the input bytes as decimal arrays, `[78, 68]`, and whole
/// backtraces: 5 KB for a truncated key).
fn one_short_line(r: &Run) {
    assert_eq!(r.err.lines().count(), 1, "{}", r.err);
    assert!(r.err.len() < 300, "{} bytes: {}", r.err.len(), r.err);
    for dump in ["{", "[", "Error(", "acktrace"] {
        assert!(!r.err.contains(dump), "{dump:?} in {}", r.err);
    }
}

/// A signature told minisign, signify or SSH by its contents but not
/// readable as that format is a `BAD signature`, as docs/signatures.md
/// says (and the format's own tool refuses it); a key file that cannot be
/// read as a key is an `unsupported signature`. Each is one short line,
/// without the crates' debug dumps.
#[cfg(unix)]
#[test]
fn malformed_signatures_are_bad_in_one_short_line() {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD;
    let set = Path::new(FIXTURES);
    let bad = |r: &Run, format: &str| {
        refused_sums(r, "BAD signature", format);
        one_short_line(r);
    };

    // minisign: the signature line not base64; its algorithm neither Ed
    // nor ED.
    let d = copy_of(set, "minisign");
    let dir = d.path();
    let sig = std::fs::read_to_string(dir.join("SHA256SUMS.minisig")).unwrap();
    let lines: Vec<&str> = sig.lines().collect();
    let mut not_b64 = lines.clone();
    let broken = format!("!{}", &lines[1][1..]);
    not_b64[1] = &broken;
    let mut raw = b64.decode(lines[1]).unwrap();
    raw[..2].copy_from_slice(b"Zz");
    let other_alg = b64.encode(&raw);
    let mut alg = lines.clone();
    alg[1] = &other_alg;
    for (name, l) in [("notb64.minisig", not_b64), ("alg.minisig", alg)] {
        std::fs::write(dir.join(name), l.join("\n") + "\n").unwrap();
        tool_refuses(
            dir,
            &[
                "minisign",
                "-V",
                "-p",
                "minisign.pub",
                "-m",
                "SHA256SUMS",
                "-x",
                name,
            ],
            None,
        );
        bad(&sums(dir, "minisign.pub", Some(name)), "minisign");
    }

    // signify: the signature line not base64; base64 of too few bytes.
    let d = copy_of(set, "signify");
    let dir = d.path();
    let sig = std::fs::read_to_string(dir.join("SHA256SUMS.sig")).unwrap();
    let lines: Vec<&str> = sig.lines().collect();
    let raw = b64.decode(lines[1]).unwrap();
    let short = b64.encode(&raw[..70]);
    for (name, line) in [
        ("notb64.sig", format!("!{}", &lines[1][1..])),
        ("short.sig", short),
    ] {
        std::fs::write(dir.join(name), format!("{}\n{line}\n", lines[0])).unwrap();
        tool_refuses(
            dir,
            &[
                "signify-openbsd",
                "-V",
                "-p",
                "signify.pub",
                "-m",
                "SHA256SUMS",
                "-x",
                name,
            ],
            None,
        );
        bad(&sums(dir, "signify.pub", Some(name)), "signify");
    }

    // SSH: the armor holds no base64.
    let d = copy_of(set, "ssh");
    let dir = d.path();
    let sig = std::fs::read_to_string(dir.join("SHA256SUMS.sig")).unwrap();
    let armor: Vec<&str> = sig.lines().collect();
    let body = armor[1..armor.len() - 1].join("\n").replace('A', "!");
    let text = format!("{}\n{body}\n{}\n", armor[0], armor[armor.len() - 1]);
    std::fs::write(dir.join("notb64.sig"), text).unwrap();
    tool_refuses(
        dir,
        &[
            "ssh-keygen",
            "-Y",
            "verify",
            "-f",
            "allowed_signers",
            "-I",
            "release@example.org",
        ]
        .into_iter()
        .chain(["-n", "file", "-s", "notb64.sig"])
        .collect::<Vec<_>>(),
        Some("SHA256SUMS"),
    );
    bad(&sums(dir, "allowed_signers", Some("notb64.sig")), "SSH");

    // OpenPGP key files cut in half (binary and armored): not readable as
    // keys, `unsupported`, in a few words.
    let d = copy_of(set, "openpgp");
    let dir = d.path();
    for (key, cut, sig) in [
        ("rsa.gpg", "cut.gpg", "SHA256SUMS.rsa.sig"),
        ("release.asc", "cut.asc", "SHA256SUMS.asc"),
    ] {
        let k = std::fs::read(dir.join(key)).unwrap();
        std::fs::write(dir.join(cut), &k[..k.len() / 2]).unwrap();
        let r = sums(dir, cut, Some(sig));
        refused_sums(&r, "unsupported signature", "OpenPGP");
        one_short_line(&r);
    }
}
