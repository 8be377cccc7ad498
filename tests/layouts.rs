//! `mhash -c` on other tools' checksum-file layouts, carried as fixtures
//! in tests/data/layouts (each one's source in its SOURCES.md): each
//! verifies as written, and a copy with one artifact changed fails.

use crate::util::mhash;
use std::fs;
use std::path::Path;

/// A scratch copy of tests/data/layouts/`dir`, subdirectories included.
fn fixture(dir: &str) -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        fs::create_dir_all(to).unwrap();
        for e in fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }
    let d = tempfile::tempdir().unwrap();
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/layouts")
            .join(dir),
        d.path(),
    );
    d
}

/// `mhash -c list` in `d`: its exit status, stdout and stderr.
fn check(d: &Path, list: &str) -> (Option<i32>, String, String) {
    let out = mhash(d).args(["-c", list]).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Appends a byte to `path` (a tampered artifact, one byte longer).
fn tamper(path: &Path) {
    let mut b = fs::read(path).unwrap();
    b.push(b'!');
    fs::write(path, b).unwrap();
}

#[test]
fn slackware_checksums_md5_with_its_prose_header() {
    let d = fixture("slackware");
    let (code, out, err) = check(d.path(), "CHECKSUMS.md5");
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "./ANNOUNCE.15_0: OK\n./extra/pkg.txz: OK\n"),
        "{err}"
    );
    // The header's ten prose lines (blank ones are skipped) are
    // improperly formatted lines, counted, nothing more.
    assert!(err.contains("WARNING: 8 lines are improperly formatted"), "{err}");
    tamper(&d.path().join("extra/pkg.txz"));
    let (code, out, _) = check(d.path(), "CHECKSUMS.md5");
    assert_eq!(
        (code, out.as_str()),
        (Some(1), "./ANNOUNCE.15_0: OK\n./extra/pkg.txz: FAILED\n")
    );
}

#[test]
fn freebsd_distinfo_checks_digests_and_sizes() {
    let d = fixture("freebsd");
    let (code, out, err) = check(d.path(), "distinfo");
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (Some(0), "curl-8.7.1.tar.xz: OK\nKDE/kio-6.1.0.tar.xz: OK\n", "")
    );
    tamper(&d.path().join("KDE/kio-6.1.0.tar.xz"));
    let (code, out, err) = check(d.path(), "distinfo");
    assert_eq!(
        (code, out.as_str()),
        (
            Some(1),
            "curl-8.7.1.tar.xz: OK\nKDE/kio-6.1.0.tar.xz: FAILED\nKDE/kio-6.1.0.tar.xz: FAILED\n"
        ),
        "{err}"
    );
    assert!(
        err.contains("WARNING: 2 computed checksums did NOT match"),
        "{err}"
    );
    // A SIZE line alone tells a file of another size, whatever its digest.
    fs::write(d.path().join("sizes"), "SIZE (curl-8.7.1.tar.xz) = 14\n").unwrap();
    let (code, out, _) = check(d.path(), "sizes");
    assert_eq!((code, out.as_str()), (Some(1), "curl-8.7.1.tar.xz: FAILED\n"));
    // A missing file is reported once, by its digest line.
    fs::remove_file(d.path().join("curl-8.7.1.tar.xz")).unwrap();
    let (code, out, _) = check(d.path(), "distinfo");
    assert_eq!(
        (code, out.as_str()),
        (
            Some(1),
            "curl-8.7.1.tar.xz: FAILED open or read\nKDE/kio-6.1.0.tar.xz: FAILED\nKDE/kio-6.1.0.tar.xz: FAILED\n"
        )
    );
}

#[test]
fn saved_certutil_output_old_and_new() {
    let d = fixture("certutil");
    for list in ["certutil-win10.txt", "certutil-win7.txt"] {
        let (code, out, err) = check(d.path(), list);
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (Some(0), "release.zip: OK\ntool.exe: OK\n", ""),
            "{list}"
        );
    }
    tamper(&d.path().join("tool.exe"));
    for list in ["certutil-win10.txt", "certutil-win7.txt"] {
        let (code, out, _) = check(d.path(), list);
        assert_eq!(
            (code, out.as_str()),
            (Some(1), "release.zip: OK\ntool.exe: FAILED\n"),
            "{list}"
        );
    }
}

#[test]
fn sfv_files_written_by_cksfv() {
    let d = fixture("sfv");
    let want = "release.r00: OK\n'release part2.r01': OK\nCD1/track01.flac: OK\n";
    let (code, out, err) = check(d.path(), "release.sfv");
    assert_eq!((code, out.as_str(), err.as_str()), (Some(0), want, ""));
    // Under a name that says nothing, cksfv's `;` header says SFV.
    fs::copy(d.path().join("release.sfv"), d.path().join("checksums.txt")).unwrap();
    let (code, out, err) = check(d.path(), "checksums.txt");
    assert_eq!((code, out.as_str(), err.as_str()), (Some(0), want, ""));
    // Without either, `NAME CRC32` is no checksum line.
    let bare: String = fs::read_to_string(d.path().join("release.sfv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with(';'))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(d.path().join("bare.txt"), &bare).unwrap();
    fs::write(d.path().join("bare.SFV"), &bare).unwrap();
    assert_eq!(check(d.path(), "bare.txt").0, Some(1));
    assert_eq!(
        check(d.path(), "bare.SFV"),
        (Some(0), want.to_string(), String::new())
    );
    tamper(&d.path().join("release part2.r01"));
    let (code, out, _) = check(d.path(), "release.sfv");
    assert_eq!(
        (code, out.as_str()),
        (
            Some(1),
            "release.r00: OK\n'release part2.r01': FAILED\nCD1/track01.flac: OK\n"
        )
    );
    // cksfv, the oracle, agrees where it is installed.
    match std::process::Command::new("cksfv")
        .current_dir(d.path())
        .args(["-q", "-f", "release.sfv"])
        .output()
    {
        Ok(o) => assert_eq!(o.status.code(), Some(1), "{o:?}"),
        Err(_) => crate::util::skip("layouts::sfv_files_written_by_cksfv", "cksfv is not installed"),
    }
}

#[test]
fn sfv_lines_written_as_cksfv_writes_them() {
    // The fixture's lines were written by cksfv 1.3.15: mhash writes the
    // same, and reads its own back.
    let d = fixture("sfv");
    let cksfv: String = fs::read_to_string(d.path().join("release.sfv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with(';'))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = mhash(d.path())
        .args([
            "-a",
            "crc32b",
            "--sfv",
            "release.r00",
            "release part2.r01",
            "CD1/track01.flac",
        ])
        .output()
        .unwrap();
    assert_eq!(
        (out.status.code(), String::from_utf8_lossy(&out.stdout)),
        (Some(0), cksfv.clone().into())
    );
    fs::write(d.path().join("mine.sfv"), &out.stdout).unwrap();
    assert_eq!(check(d.path(), "mine.sfv").0, Some(0));
    // Only CRC-32, only when hashing, no other layout flag.
    for args in [
        &["-a", "md5", "--sfv", "release.r00"][..],
        &["-a", "crc32b,md5", "--sfv", "release.r00"],
        &["-a", "crc32b", "--sfv", "--tag", "release.r00"],
        &["-a", "crc32b", "--sfv", "--json", "release.r00"],
        &["-c", "--sfv", "mine.sfv"],
    ] {
        let out = mhash(d.path()).args(args).output().unwrap();
        assert_eq!((out.status.code(), out.stdout.len()), (Some(1), 0), "{args:?}");
    }
}

/// The status lines `mhash -c` gives `rhash --bsd` output over the
/// fixture's three files, with the eleven algorithms RHASH.bsd lists.
fn rhash_ok() -> String {
    let algos = [
        "crc32b", "MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512", "SHA3-256", "SHA3-512", "CRC32C",
        "BLAKE2b",
    ];
    let mut want = String::new();
    for f in ["abc", "'two words.txt'", "sub/x"] {
        for a in algos {
            want.push_str(&format!("{f}: OK ({a})\n"));
        }
    }
    want
}

#[test]
fn rhash_bsd_lines_with_padded_tags() {
    // RHash 1.4.3's `--bsd` pads a short tag to 5 columns (`MD5   (f)`)
    // and writes zlib's CRC-32 as `CRC32 (f) = hex`.
    let d = fixture("rhash");
    let (code, out, err) = check(d.path(), "RHASH.bsd");
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (Some(0), rhash_ok().as_str(), "")
    );
    tamper(&d.path().join("sub/x"));
    let (code, out, err) = check(d.path(), "RHASH.bsd");
    assert_eq!(code, Some(1), "{out}{err}");
    assert_eq!(out.matches("sub/x: FAILED").count(), 11, "{out}");
    assert!(
        err.contains("WARNING: 11 computed checksums did NOT match"),
        "{err}"
    );
    // rhash, the oracle, agrees where it is installed, and its fresh
    // output reads the same.
    let d = fixture("rhash");
    match std::process::Command::new("rhash")
        .current_dir(d.path())
        .args(["-c", "RHASH.bsd"])
        .output()
    {
        Ok(o) => assert!(o.status.success(), "rhash -c: {o:?}"),
        Err(_) => {
            crate::util::skip(
                "layouts::rhash_bsd_lines_with_padded_tags",
                "rhash is not installed",
            );
            return;
        }
    }
    let o = std::process::Command::new("rhash")
        .current_dir(d.path())
        .args([
            "--bsd",
            "--md5",
            "--sha1",
            "--crc32",
            "--sha224",
            "--sha256",
            "--sha384",
            "--sha512",
            "--sha3-256",
            "--sha3-512",
            "--blake2b",
            "--crc32c",
            "abc",
            "two words.txt",
            "sub/x",
        ])
        .output()
        .unwrap();
    assert!(o.status.success());
    fs::write(d.path().join("fresh.bsd"), &o.stdout).unwrap();
    let (code, out, err) = check(d.path(), "fresh.bsd");
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (Some(0), rhash_ok().as_str(), "")
    );
}

#[test]
fn hashdeep_files_every_digest_and_the_size() {
    // hashdeep 4.4's `hashdeep -c md5,sha1,sha256 -l -r art`: every
    // digest is checked, then the size (by stat).
    let d = fixture("hashdeep");
    let want: String = ["art/a,b", "'art/two words.txt'", "art/sub/x", "art/abc"]
        .iter()
        .flat_map(|f| ["MD5", "SHA1", "SHA256"].map(|a| format!("{f}: OK ({a})\n")))
        .collect();
    let (code, out, err) = check(d.path(), "known.txt");
    assert_eq!((code, out.as_str(), err.as_str()), (Some(0), want.as_str(), ""));
    // md5deep's lines are GNU's.
    let (code, out, err) = check(d.path(), "md5deep.txt");
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            Some(0),
            "'art/two words.txt': OK\nart/sub/x: OK\nart/abc: OK\nart/a,b: OK\n",
            ""
        )
    );
    let hashdeep = |d: &Path| {
        std::process::Command::new("hashdeep")
            .current_dir(d)
            .args(["-a", "-k", "known.txt", "-l", "-r", "art"])
            .output()
    };
    let oracle = hashdeep(d.path()).ok();
    if let Some(o) = &oracle {
        assert!(o.status.success(), "hashdeep -a: {o:?}");
    }
    tamper(&d.path().join("art/abc"));
    let (code, out, err) = check(d.path(), "known.txt");
    assert_eq!(code, Some(1), "{err}");
    assert!(
        out.ends_with(
            "art/abc: FAILED (MD5)\nart/abc: FAILED (SHA1)\nart/abc: FAILED (SHA256)\nart/abc: FAILED\n"
        ),
        "{out}"
    );
    assert!(
        err.contains("WARNING: 4 computed checksums did NOT match"),
        "{err}"
    );
    match oracle {
        Some(_) => assert_eq!(hashdeep(d.path()).unwrap().status.code(), Some(1)),
        None => crate::util::skip(
            "layouts::hashdeep_files_every_digest_and_the_size",
            "hashdeep is not installed",
        ),
    }
}

/// hashdeep's audit verdicts (`hashdeep -a -vvv`) in mhash's `--audit`
/// words: `Ok` is `=`; `No match` with `Known file not used` for the same
/// name is `*` (changed); `Known file not used` alone `-`; `No match`
/// alone `+`; `Moved from OLD` is `- OLD` and `+ NEW` (mhash keeps no
/// digest of a missing file to find it under another name).
fn hashdeep_verdicts(recorded: &str) -> Vec<String> {
    let mut v = Vec::new();
    let (mut unused, mut unmatched) = (Vec::new(), Vec::new());
    for l in recorded.lines() {
        let Some((name, what)) = l.strip_prefix("./").and_then(|l| l.split_once(": ")) else {
            continue;
        };
        match what {
            "Ok" => v.push(format!("= {name}")),
            "Known file not used" => unused.push(name.to_string()),
            "No match" => unmatched.push(name.to_string()),
            moved => {
                let old = moved.strip_prefix("Moved from ./").expect(moved);
                v.push(format!("- {old}"));
                v.push(format!("+ {name}"));
            }
        }
    }
    for n in &unused {
        v.push(format!("{} {n}", if unmatched.contains(n) { "*" } else { "-" }));
    }
    for n in unmatched.iter().filter(|n| !unused.contains(n)) {
        v.push(format!("+ {n}"));
    }
    v.sort();
    v
}

#[test]
fn hashdeep_audit_verdicts_agree_with_hashdeep() {
    // The tree of audit.txt (`cd art && hashdeep -l -r .`), then one file
    // changed, one removed, one added and one moved; audit-changed.out is
    // hashdeep 4.4's `hashdeep -a -vvv -k ../audit.txt -l -r .` on it
    // (sorted, its exit status last).
    let d = fixture("hashdeep");
    let art = d.path().join("art");
    tamper(&art.join("abc"));
    fs::remove_file(art.join("sub/x")).unwrap();
    fs::write(art.join("new"), "new").unwrap();
    fs::rename(art.join("a,b"), art.join("sub/moved")).unwrap();
    let out = mhash(d.path())
        .args(["-c", "audit.txt", "--audit", "art"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    // A new file's name is the walk's, with the OS's separator (`\` on
    // Windows); hashdeep's record has `/`.
    let mut ours: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.replace('\'', "").replace('\\', "/"))
        .collect();
    ours.sort();
    let recorded = fs::read_to_string(d.path().join("audit-changed.out")).unwrap();
    assert!(recorded.contains("exit status: 1\n"));
    assert_eq!(ours, hashdeep_verdicts(&recorded));
    match std::process::Command::new("hashdeep")
        .current_dir(&art)
        .args(["-a", "-vvv", "-k", "../audit.txt", "-l", "-r", "."])
        .output()
    {
        Ok(o) => {
            assert_eq!(o.status.code(), Some(1));
            let mut live: Vec<String> = String::from_utf8_lossy(&o.stdout)
                .lines()
                .chain(String::from_utf8_lossy(&o.stderr).lines())
                .map(str::to_string)
                .chain(["exit status: 1".to_string()])
                .collect();
            live.sort();
            let mut rec: Vec<&str> = recorded.lines().collect();
            rec.sort();
            assert_eq!(live, rec);
        }
        Err(_) => crate::util::skip(
            "layouts::hashdeep_audit_verdicts_agree_with_hashdeep",
            "hashdeep is not installed",
        ),
    }
}
