//! `mhash -c FILE` on the checksum files real projects publish, with no
//! preprocessing: each test writes a file in the project's
//! layout (the source of the layout in its comment) over locally made
//! artifacts, with digests from GNU's tools or OpenSSL where they are
//! installed (else FIPS 180-2's digest of "abc"), and checks it.

use crate::util::{self, mhash};
use std::fs;
use std::path::Path;
use std::process::Command;

/// FIPS 180-2, Appendix B.1: SHA-256("abc").
const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
/// FIPS 180-2, Appendix C.1: SHA-512("abc").
const SHA512_ABC: &str = "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a\
                          2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f";
/// RFC 7693, Appendix A: BLAKE2b-512("abc").
const B2_ABC: &str = "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1\
                      7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923";

/// A directory with the release artifacts (each holding "abc").
fn release(names: &[&str]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for n in names {
        if let Some(parent) = Path::new(n).parent() {
            fs::create_dir_all(d.path().join(parent)).unwrap();
        }
        fs::write(d.path().join(n), b"abc").unwrap();
    }
    d
}

/// `mhash -c NAME` in `d` passes and prints `want` on stdout.
fn checks(d: &Path, name: &str, contents: &[u8], want: &str) {
    fs::write(d.join(name), contents).unwrap();
    let out = mhash(d).args(["-c", name]).output().unwrap();
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout) == want,
        "mhash -c {name}:\n{}\n--- stdout:\n{}\n--- stderr:\n{}",
        util::escaped(contents),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn goreleaser_checksums_txt() {
    // goreleaser's default `checksums.txt`: `<sha256>  <artifact>` per line
    // (goreleaser.com/customization/checksum: name_template default).
    let d = release(&["app_1.0.0_linux_amd64.tar.gz", "app_1.0.0_darwin_arm64.tar.gz"]);
    let text =
        format!("{SHA256_ABC}  app_1.0.0_darwin_arm64.tar.gz\n{SHA256_ABC}  app_1.0.0_linux_amd64.tar.gz\n");
    checks(
        d.path(),
        "checksums.txt",
        text.as_bytes(),
        "app_1.0.0_darwin_arm64.tar.gz: OK\napp_1.0.0_linux_amd64.tar.gz: OK\n",
    );
    // The same content under names that say nothing, or say it.
    for name in ["CHECKSUMS", "sha256sums.txt", "SHA256SUMS.txt", "sha256.txt"] {
        checks(
            d.path(),
            name,
            text.as_bytes(),
            "app_1.0.0_darwin_arm64.tar.gz: OK\napp_1.0.0_linux_amd64.tar.gz: OK\n",
        );
    }
}

/// An OpenPGP cleartext signature's layout (RFC 4880 §7) around `text`:
/// made by gpg with a throwaway key where gpg is installed, else written
/// out by hand (the signature itself is not checked here).
fn clearsigned(dir: &Path, text: &str) -> Vec<u8> {
    let home = dir.join(".gnupg");
    fs::create_dir_all(&home).unwrap();
    let gpg = |args: &[&str], input: Option<&str>| -> Option<Vec<u8>> {
        let mut c = Command::new("gpg");
        c.env("GNUPGHOME", &home).args([
            "--batch",
            "--quiet",
            "--pinentry-mode",
            "loopback",
            "--passphrase",
            "",
        ]);
        c.args(args);
        c.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        c.stderr(std::process::Stdio::null());
        let mut child = c.spawn().ok()?;
        use std::io::Write;
        child
            .stdin
            .take()?
            .write_all(input.unwrap_or_default().as_bytes())
            .ok()?;
        let out = child.wait_with_output().ok()?;
        out.status.success().then_some(out.stdout)
    };
    let made = gpg(
        &[
            "--quick-gen-key",
            "release@example.org",
            "ed25519",
            "sign",
            "never",
        ],
        None,
    )
    .and_then(|_| gpg(&["--clearsign", "--digest-algo", "SHA256"], Some(text)));
    match made {
        Some(signed) => signed,
        None => {
            util::skip(
                "published::clearsigned",
                "gpg is missing or failed: a hand-made layout instead",
            );
            format!(
                "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n{text}\
                 -----BEGIN PGP SIGNATURE-----\n\niHUEARYIAB0WIQQ=\n=AbCd\n-----END PGP SIGNATURE-----\n"
            )
            .into_bytes()
        }
    }
}

#[test]
fn nodejs_shasums256_and_its_clearsigned_copy() {
    // nodejs.org/dist/vX/SHASUMS256.txt: `<sha256>  <file>`; its
    // SHASUMS256.txt.asc is the same text clearsigned.
    let d = release(&["node-v20.0.0.tar.gz", "win-x64/node.exe"]);
    let text = format!("{SHA256_ABC}  node-v20.0.0.tar.gz\n{SHA256_ABC}  win-x64/node.exe\n");
    let want = "node-v20.0.0.tar.gz: OK\nwin-x64/node.exe: OK\n";
    checks(d.path(), "SHASUMS256.txt", text.as_bytes(), want);
    let asc = clearsigned(d.path(), &text);
    checks(d.path(), "SHASUMS256.txt.asc", &asc, want);
    // The armor is skipped, not counted: --strict passes, no WARNING.
    let out = mhash(d.path())
        .args(["-c", "--strict", "SHASUMS256.txt.asc"])
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
}

#[test]
fn debian_and_ubuntu_sha256sums() {
    // cdimage.debian.org `SHA256SUMS`: two spaces; releases.ubuntu.com
    // `SHA256SUMS`: the binary marker `*`.
    let d = release(&[
        "debian-12.5.0-amd64-netinst.iso",
        "ubuntu-24.04-desktop-amd64.iso",
    ]);
    let text = format!(
        "{SHA256_ABC}  debian-12.5.0-amd64-netinst.iso\n{SHA256_ABC} *ubuntu-24.04-desktop-amd64.iso\n"
    );
    checks(
        d.path(),
        "SHA256SUMS",
        text.as_bytes(),
        "debian-12.5.0-amd64-netinst.iso: OK\nubuntu-24.04-desktop-amd64.iso: OK\n",
    );
}

#[test]
fn fedora_checksum_with_comments_and_armor() {
    // Fedora's `Fedora-Workstation-40-1.14-x86_64-CHECKSUM`: clearsigned,
    // a `# NAME: N bytes` comment, BSD-tagged lines.
    let d = release(&["Fedora-Workstation-Live-x86_64-40-1.14.iso"]);
    let text = format!(
        "# Fedora-Workstation-Live-x86_64-40-1.14.iso: 3 bytes\n\
         SHA256 (Fedora-Workstation-Live-x86_64-40-1.14.iso) = {SHA256_ABC}\n"
    );
    let signed = clearsigned(d.path(), &text);
    checks(
        d.path(),
        "Fedora-Workstation-40-1.14-x86_64-CHECKSUM",
        &signed,
        "Fedora-Workstation-Live-x86_64-40-1.14.iso: OK\n",
    );
}

#[test]
fn freebsd_and_openbsd_tagged_lists() {
    // download.freebsd.org `CHECKSUM.SHA256-FreeBSD-14.1-RELEASE-amd64` and
    // OpenBSD's `SHA256`: `SHA256 (file) = hex`.
    let d = release(&["FreeBSD-14.1-RELEASE-amd64-bootonly.iso", "bsd.rd"]);
    checks(
        d.path(),
        "CHECKSUM.SHA256-FreeBSD-14.1-RELEASE-amd64",
        format!("SHA256 (FreeBSD-14.1-RELEASE-amd64-bootonly.iso) = {SHA256_ABC}\n").as_bytes(),
        "FreeBSD-14.1-RELEASE-amd64-bootonly.iso: OK\n",
    );
    checks(
        d.path(),
        "SHA256",
        format!("SHA256 (bsd.rd) = {SHA256_ABC}\n").as_bytes(),
        "bsd.rd: OK\n",
    );
}

#[test]
fn arch_sha256sums_and_b2sums() {
    // archlinux.org/download: `sha256sums.txt`, `b2sums.txt`.
    let d = release(&["archlinux-2024.06.01-x86_64.iso"]);
    checks(
        d.path(),
        "sha256sums.txt",
        format!("{SHA256_ABC}  archlinux-2024.06.01-x86_64.iso\n").as_bytes(),
        "archlinux-2024.06.01-x86_64.iso: OK\n",
    );
    checks(
        d.path(),
        "b2sums.txt",
        format!("{B2_ABC}  archlinux-2024.06.01-x86_64.iso\n").as_bytes(),
        "archlinux-2024.06.01-x86_64.iso: OK\n",
    );
}

#[test]
fn gentoo_digests_with_hash_headers() {
    // distfiles.gentoo.org releases/.../stage3-*.tar.xz.DIGESTS: a
    // `# BLAKE2B HASH` / `# SHA512 HASH` comment before each line.
    let d = release(&["stage3-amd64-openrc-20240601T164916Z.tar.xz"]);
    let f = "stage3-amd64-openrc-20240601T164916Z.tar.xz";
    let text = format!("# BLAKE2B HASH\n{B2_ABC}  {f}\n# SHA512 HASH\n{SHA512_ABC}  {f}\n");
    checks(
        d.path(),
        &format!("{f}.DIGESTS"),
        text.as_bytes(),
        &format!("{f}: OK (BLAKE2b)\n{f}: OK (SHA512)\n"),
    );
}

#[test]
fn windows_crlf_bom_and_utf16_lists() {
    let d = release(&["setup.exe", "app.msi"]);
    let lines = format!("{SHA256_ABC}  setup.exe\r\n{SHA256_ABC}  app.msi\r\n");
    let want = "setup.exe: OK\napp.msi: OK\n";
    checks(d.path(), "sums.txt", lines.as_bytes(), want);
    // A UTF-8 byte-order mark (Notepad).
    checks(
        d.path(),
        "bom.txt",
        &[b"\xEF\xBB\xBF", lines.as_bytes()].concat(),
        want,
    );
    // UTF-16 with a byte-order mark: PowerShell 5's `>` writes UTF-16LE.
    for (name, be) in [("utf16le.txt", false), ("utf16be.txt", true)] {
        let mut raw = if be { vec![0xFE, 0xFF] } else { vec![0xFF, 0xFE] };
        for u in lines.encode_utf16() {
            raw.extend_from_slice(&if be { u.to_be_bytes() } else { u.to_le_bytes() });
        }
        checks(d.path(), name, &raw, want);
    }
}

#[test]
fn openssl_dgst_outputs() {
    let d = release(&["f"]);
    // OpenSSL 3's own output where it is installed, else its layout.
    let openssl = |args: &[&str]| -> Option<Vec<u8>> {
        let out = Command::new("openssl")
            .args(args)
            .arg("f")
            .current_dir(d.path())
            .output()
            .ok()?;
        out.status.success().then_some(out.stdout)
    };
    let r = openssl(&["dgst", "-r", "-sha256"]).unwrap_or_else(|| format!("{SHA256_ABC} *f\n").into_bytes());
    checks(d.path(), "r.txt", &r, "f: OK\n");
    let tagged =
        openssl(&["dgst", "-sha256"]).unwrap_or_else(|| format!("SHA2-256(f)= {SHA256_ABC}\n").into_bytes());
    checks(d.path(), "tagged.txt", &tagged, "f: OK\n");
    let b2 = openssl(&["dgst", "-blake2b512"])
        .unwrap_or_else(|| format!("BLAKE2B-512(f)= {B2_ABC}\n").into_bytes());
    checks(d.path(), "b2.txt", &b2, "f: OK\n");
    checks(
        d.path(),
        "fixed.txt",
        format!("SHA2-256(f)= {SHA256_ABC}\n").as_bytes(),
        "f: OK\n",
    );
}

#[test]
fn upper_case_hex_b3sum_and_xxhsum_lines() {
    let d = release(&["f"]);
    checks(
        d.path(),
        "up.txt",
        format!("{}  f\n", SHA256_ABC.to_uppercase()).as_bytes(),
        "f: OK\n",
    );
    // b3sum's layout: `<blake3>  <name>` (BLAKE3 spec test vector for
    // "abc" as b3sum prints it; the fallback finds BLAKE3 by length).
    let b3 = "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85";
    checks(d.path(), "b3.txt", format!("{b3}  f\n").as_bytes(), "f: OK\n");
    // xxhsum -H3: `XXH3_<16 hex>  <name>` (xxhsum 0.8.2: XXH3_64bits("abc")).
    checks(d.path(), "x.txt", b"XXH3_78af5f94892f3950  f\n", "f: OK\n");
}

#[test]
fn digest_only_files_check_the_file_beside_them() {
    // dl.k8s.io `kubectl.sha256` and Maven Central `x.jar.sha1`: the
    // digest alone; Docker Compose's `docker-compose-linux-x86_64.sha256`:
    // `<hex> *<name>`.
    let d = release(&["kubectl", "lib/x-1.0.jar", "docker-compose-linux-x86_64"]);
    checks(
        d.path(),
        "kubectl.sha256",
        format!("{SHA256_ABC}\n").as_bytes(),
        "kubectl: OK\n",
    );
    // SHA-1("abc"), FIPS 180-2 Appendix A.1.
    checks(
        d.path(),
        "lib/x-1.0.jar.sha1",
        b"a9993e364706816aba3e25717850c26c9cd0d89d",
        "lib/x-1.0.jar: OK\n",
    );
    checks(
        d.path(),
        "docker-compose-linux-x86_64.sha256",
        format!("{SHA256_ABC} *docker-compose-linux-x86_64\n").as_bytes(),
        "docker-compose-linux-x86_64: OK\n",
    );
    let out = mhash(d.path())
        .args(["-c", "--debug", "kubectl.sha256"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("a lone digest"),
        "{out:?}"
    );
}

#[test]
fn files_that_cannot_be_verified_fail_loudly() {
    let d = release(&["f"]);
    // PowerShell's `Get-FileHash f | Format-Table` output.
    let table = format!(
        "\r\nAlgorithm       Hash                                                                   Path\r\n\
         ---------       ----                                                                   ----\r\n\
         SHA256          {}       C:\\Users\\me\\f\r\n",
        SHA256_ABC.to_uppercase()
    );
    fs::write(d.path().join("hash.txt"), table).unwrap();
    let out = mhash(d.path()).args(["-c", "hash.txt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("OK"), "{out:?}");
    // A Windows path names nothing here.
    fs::write(d.path().join("win.txt"), format!("{SHA256_ABC}  dist\\f\n")).unwrap();
    let out = mhash(d.path()).args(["-c", "win.txt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&out.stdout).contains(": OK"), "{out:?}");
}

/// Copies the Perl shasum fixtures (tests/data/shasum, see its
/// SOURCES.md; files only: `replay/` is tests/shasum.rs's) into a scratch
/// directory.
fn shasum_fixtures() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/shasum");
    for e in fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            fs::copy(e.path(), d.path().join(e.file_name())).unwrap();
        }
    }
    d
}

#[test]
fn perl_shasum_universal_and_bits_lines() {
    // Perl shasum's `HEX UNAME` (-U, universal newlines) and `HEX ^NAME`
    // (-0, BITS) lines (shasum 6.02's verify regex `[ \t]([ *^U])(.+)`),
    // recorded by shasum itself (tests/data/shasum/SOURCES.md).
    let d = shasum_fixtures();
    let out = mhash(d.path()).args(["-c", "SHASUMS"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        stdout.lines().filter(|l| l.ends_with(": OK")).count(),
        40,
        "{stdout}"
    );
    // Where shasum is installed: fresh lines over a new file, and a
    // tampered digest fails.
    if Command::new("shasum").arg("--version").output().is_err() {
        eprintln!("SKIP: no shasum: the recorded lines only");
        return;
    }
    fs::write(d.path().join("new"), b"1\r\n0\r1\n\r").unwrap();
    let mut lines = Vec::new();
    for (a, mode) in [("256", "-U"), ("512", "-0"), ("1", "-0"), ("384", "-U")] {
        let o = Command::new("shasum")
            .args(["-a", a, mode, "new"])
            .current_dir(d.path())
            .output()
            .unwrap();
        assert!(o.status.success());
        lines.extend_from_slice(&o.stdout);
    }
    checks(
        d.path(),
        "fresh.txt",
        &lines,
        "new: OK (SHA256)\nnew: OK (SHA512)\nnew: OK (SHA1)\nnew: OK (SHA384)\n",
    );
    let mut bad = lines.clone();
    bad[0] = if bad[0] == b'0' { b'1' } else { b'0' };
    fs::write(d.path().join("bad.txt"), &bad).unwrap();
    let out = mhash(d.path()).args(["-c", "bad.txt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("new: FAILED"),
        "{out:?}"
    );
}

/// Perl shasum's `U` mode converts line ends only in a file Perl's `-T`
/// calls text (Digest::SHA `addfile`); a binary file, or one with many
/// high-bit bytes that are not UTF-8, is hashed as it is. `USUMS` was
/// written by shasum 6.02 (tests/data/shasum/SOURCES.md): `mhash -c` and
/// mhash as `shasum` (writing and checking) agree with it on a CRLF text
/// file, a binary with CRs and NULs, an empty file, UTF-8 text and
/// Latin-1 bytes, many and few.
#[test]
fn perl_shasum_universal_only_for_text_files() {
    let d = shasum_fixtures();
    let p = d.path();
    let out = mhash(p).args(["-c", "USUMS"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        stdout.lines().filter(|l| l.ends_with(": OK")).count(),
        12,
        "{stdout}"
    );
    let recorded = fs::read_to_string(p.join("USUMS")).unwrap();
    let files = [
        "u-text",
        "u-binary",
        "u-empty",
        "u-utf8",
        "u-latin1",
        "u-latin1-few",
    ];
    let mut written = String::new();
    for a in ["1", "256"] {
        let o = util::named(p, "shasum")
            .args(["-a", a, "-U"])
            .args(files)
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        written.push_str(&String::from_utf8_lossy(&o.stdout));
    }
    assert_eq!(written, recorded);
    util::named(p, "shasum")
        .args(["-c", "USUMS"])
        .assert()
        .success()
        .stdout(predicates::prelude::PredicateBooleanExt::not(
            predicates::str::contains("FAILED"),
        ));
    // Where shasum is installed: a fresh binary file (NUL, CRs) listed
    // with `U` by shasum itself.
    if Command::new("shasum").arg("--version").output().is_err() {
        util::skip(
            "perl_shasum_universal_only_for_text_files",
            "no shasum: the recorded lines only",
        );
        return;
    }
    fs::write(p.join("fresh.bin"), b"\x7fELF\0\0\r\n\r\x01\x02\r").unwrap();
    let o = Command::new("shasum")
        .args(["-a", "256", "-U", "fresh.bin"])
        .current_dir(p)
        .output()
        .unwrap();
    assert!(o.status.success());
    checks(p, "fresh.txt", &o.stdout, "fresh.bin: OK\n");
}

#[test]
fn a_name_beginning_with_u_keeps_gnus_reading() {
    // `HEX Uf` is GNU's one-space form naming `Uf` when `Uf` exists.
    let d = release(&["Uf", "f"]);
    checks(
        d.path(),
        "l.txt",
        format!("{SHA256_ABC} Uf\n").as_bytes(),
        "Uf: OK\n",
    );
}

#[test]
fn gpg_print_md_records() {
    // GnuPG's `gpg --print-md ALGO FILE...` (g10/gpg.c print_hex/print_mds;
    // Apache projects publish it as `x.tar.gz.sha512`): upper-case groups
    // of 8 hex digits (4 for SHA-1, 2 for MD5), wrapped with indentation; a
    // long name puts the groups on the next lines. gpg's own output where
    // it is installed, else the layout gpg 2.2.40 wrote for "abc".
    let long = "apache-thing-1.2.3-source-release.tar.gz";
    let d = release(&["abc", long]);
    let gpg = |algo: &str| -> Option<Vec<u8>> {
        let home = tempfile::tempdir().ok()?;
        let o = Command::new("gpg")
            .arg("--homedir")
            .arg(home.path())
            .args(["--print-md", algo, "abc", long])
            .current_dir(d.path())
            .output()
            .ok()?;
        o.status.success().then_some(o.stdout)
    };
    let recorded_512 = format!(
        "abc: DDAF35A1 93617ABA CC417349 AE204131 12E6FA4E 89A97EA2 0A9EEEE6 4B55D39A\n     \
         2192992A 274FC1A8 36BA3C23 A3FEEBBD 454D4423 643CE80E 2A9AC94F A54CA49F\n\
         {long}: \nDDAF35A1 93617ABA CC417349 AE204131 12E6FA4E 89A97EA2 0A9EEEE6 4B55D39A 2192992A\n \
         274FC1A8 36BA3C23 A3FEEBBD 454D4423 643CE80E 2A9AC94F A54CA49F\n"
    );
    let want = format!("abc: OK\n{long}: OK\n");
    checks(
        d.path(),
        &format!("{long}.sha512"),
        &gpg("SHA512").unwrap_or(recorded_512.into_bytes()),
        &want,
    );
    let recorded_md5 = format!(
        "abc: 90 01 50 98 3C D2 4F B0  D6 96 3F 7D 28 E1 7F 72\n{long}: 90 01 50 98 3C D2 4F B0  D6 96 3F 7D 28 E1 7F 72\n"
    );
    checks(
        d.path(),
        "sums.md5",
        &gpg("MD5").unwrap_or(recorded_md5.into_bytes()),
        &want,
    );
    let recorded_256 = format!(
        "abc: BA7816BF 8F01CFEA 414140DE 5DAE2223 B00361A3 96177A9C B410FF61 F20015AD\n\
         {long}: \nBA7816BF 8F01CFEA 414140DE 5DAE2223 B00361A3 96177A9C B410FF61 F20015AD\n"
    );
    checks(
        d.path(),
        "digests.txt",
        &gpg("SHA256").unwrap_or(recorded_256.into_bytes()),
        &want,
    );
    // `gpg --print-md '*'`: every algorithm, each named (RMD160, which
    // mhash has not, is an improperly formatted line).
    let star = "abc:    MD5 = 90 01 50 98 3C D2 4F B0  D6 96 3F 7D 28 E1 7F 72\n\
                abc:   SHA1 = A999 3E36 4706 816A BA3E  2571 7850 C26C 9CD0 D89D\n\
                abc: RMD160 = 8EB2 08F7 E05D 987A 9B04  4A8E 98C6 B087 F15A 0BFC\n\
                abc: SHA256 = BA7816BF 8F01CFEA 414140DE 5DAE2223 B00361A3 96177A9C B410FF61\n              \
                F20015AD\n";
    fs::write(d.path().join("star.txt"), star).unwrap();
    let out = mhash(d.path()).args(["-c", "star.txt"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "abc: OK (MD5)\nabc: OK (SHA1)\nabc: OK (SHA256)\n"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("WARNING: 1 line is improperly formatted"),
        "{out:?}"
    );
    // A tampered group fails.
    let bad = "abc: BA7816BF 8F01CFEA 414140DE 5DAE2223 B00361A3 96177A9C B410FF61 F20015AE\n";
    fs::write(d.path().join("bad.txt"), bad).unwrap();
    let out = mhash(d.path()).args(["-c", "bad.txt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "abc: FAILED\n");
}
