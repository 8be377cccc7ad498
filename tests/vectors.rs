//! Known-answer tests for every algorithm in `mhash::algo`.
//!
//! Expected values come only from published vector files carried in
//! `tests/data/vectors` (NIST CAVP, RFC 1321, the official BLAKE2 KAT, the
//! official BLAKE3 vectors, the CRC catalogue, recorded GNU coreutils
//! output; each directory's `SOURCES.md` gives origin and licence), so every
//! one of these tests runs in any clone; from the published GB/T 32905
//! SM3 examples, or from running GNU coreutils / OpenSSL on this machine.
//! Nothing here is ever compared against mhash's own output.
//!
//! Each vector is checked twice: as a one-shot [`Algorithm::digest`] and
//! streamed through [`Algorithm::hasher`] in uneven chunks (1, 7, 64, 1000
//! bytes, cycling, with empty updates at both ends).
//!
//! Tests that need an external tool (GNU coreutils' `/usr/bin/b2sum` and
//! `/usr/bin/cksum`, `openssl`) print a loud `SKIP` line to stderr and pass
//! when the tool is absent or too old to have the needed option.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use mhash::algo::{AlgoKind, Algorithm, Backend};

use crate::util::{self, noise};

/// The published vector files, carried in the repository.
const VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/vectors");

/// Chunk sizes for the streaming check, used in turn.
const CHUNKS: [usize; 4] = [1, 7, 64, 1000];

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn vpath(rel: &str) -> PathBuf {
    Path::new(VECTORS).join(rel)
}

fn read_vec_file(rel: &str) -> Vec<u8> {
    let p = vpath(rel);
    fs::read(&p).unwrap_or_else(|e| panic!("cannot read vector file {}: {e}", p.display()))
}

fn read_vec_text(rel: &str) -> String {
    String::from_utf8(read_vec_file(rel)).unwrap_or_else(|e| panic!("{rel}: not UTF-8: {e}"))
}

fn to_hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        write!(s, "{x:02x}").unwrap();
    }
    s
}

fn from_hex(s: &str) -> Vec<u8> {
    let s = s.trim();
    assert!(s.len().is_multiple_of(2), "odd-length hex string {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or_else(|e| panic!("bad hex {s:?}: {e}")))
        .collect()
}

/// The backends of `alg` that can run here: every known-answer check runs
/// once on each (SHA-NI, AVX2, PCLMULQDQ, tuned, portable, ...), so a
/// fallback is tested on a machine that has the fast path. Under
/// `MHASH_BACKEND=portable` only the portable ones are available.
fn backends(alg: Algorithm) -> impl Iterator<Item = &'static Backend> {
    alg.backends().iter().filter(|b| b.is_available())
}

/// Computes `msg`'s digest in one `update` call on backend `b`.
fn one_shot(b: &Backend, alg: Algorithm, msg: &[u8]) -> Vec<u8> {
    let mut h = b.hasher(alg);
    h.update(msg);
    h.finalize()
}

/// Streams `msg` through a fresh hasher of backend `b` in uneven chunks.
fn streamed(b: &Backend, alg: Algorithm, msg: &[u8]) -> Vec<u8> {
    let mut h = b.hasher(alg);
    h.update(&[]);
    let mut off = 0;
    let mut i = 0;
    while off < msg.len() {
        let n = CHUNKS[i % CHUNKS.len()].min(msg.len() - off);
        h.update(&msg[off..off + n]);
        off += n;
        i += 1;
    }
    h.update(&[]);
    h.finalize()
}

/// Collects mismatches so one run reports all of them, not just the first.
#[derive(Default)]
struct Failures(Vec<String>);

impl Failures {
    /// Checks `alg` on `msg` one-shot and streamed against `want`, on
    /// every backend available here.
    fn check(&mut self, alg: Algorithm, msg: &[u8], want: &[u8], ctx: &str) {
        for b in backends(alg) {
            for (how, got) in [
                ("one-shot", one_shot(b, alg, msg)),
                ("streamed", streamed(b, alg, msg)),
            ] {
                if got != want {
                    self.0.push(format!(
                        "{ctx}: {} (bits {}) on {:?} {how}, len {}: got {} want {}",
                        alg.kind.name(),
                        alg.bits,
                        b,
                        msg.len(),
                        to_hex(&got),
                        to_hex(want)
                    ));
                }
            }
        }
    }

    fn assert_none(self, what: &str) {
        if !self.0.is_empty() {
            let n = self.0.len();
            let shown: Vec<_> = self.0.into_iter().take(40).collect();
            panic!("{what}: {n} mismatch(es):\n{}", shown.join("\n"));
        }
    }
}

/// One `Len`/`Msg`/`MD` record of a CAVP-style file.
struct Cavp {
    line: usize,
    msg: Vec<u8>,
    md: Vec<u8>,
}

/// Parses a NIST CAVP `.rsp` (or CAVP-style) file: CRLF or LF, `#` comments,
/// `[L = n]` section headers (digest length: bytes in the SHA-1/SHA-2
/// files, bits in the SHA-3 files; checked against every `MD`), and `Len`/`Msg`/`MD` records. `Len` is in bits; the message is the
/// first `Len/8` bytes of `Msg` (so `Len = 0`, `Msg = 00` is empty).
fn parse_cavp(rel: &str) -> Vec<Cavp> {
    let text = read_vec_text(rel);
    let mut out = Vec::new();
    let mut section_len: Option<usize> = None;
    let mut len_bits: Option<(usize, usize)> = None; // (line, bits)
    let mut msg: Option<Vec<u8>> = None;
    for (i, raw) in text.split('\n').enumerate() {
        let lineno = i + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw).trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(h) = line.strip_prefix('[') {
            let h = h
                .strip_suffix(']')
                .unwrap_or_else(|| panic!("{rel}:{lineno}: bad header"));
            let (k, v) = h
                .split_once('=')
                .unwrap_or_else(|| panic!("{rel}:{lineno}: bad header"));
            assert_eq!(k.trim(), "L", "{rel}:{lineno}: unknown section header");
            section_len = Some(v.trim().parse().unwrap());
            continue;
        }
        let (k, v) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("{rel}:{lineno}: unparsed line {line:?}"));
        match k.trim() {
            "Len" => {
                assert!(
                    len_bits.is_none() && msg.is_none(),
                    "{rel}:{lineno}: Len without MD"
                );
                let bits: usize = v.trim().parse().unwrap();
                assert_eq!(bits % 8, 0, "{rel}:{lineno}: bit-oriented length");
                len_bits = Some((lineno, bits));
            }
            "Msg" => {
                let (_, bits) = len_bits.unwrap_or_else(|| panic!("{rel}:{lineno}: Msg before Len"));
                assert!(msg.is_none(), "{rel}:{lineno}: two Msg lines");
                let m = from_hex(v);
                let n = bits / 8;
                if n == 0 {
                    assert!(m.len() <= 1, "{rel}:{lineno}: Len = 0 with a long Msg");
                } else {
                    assert_eq!(m.len(), n, "{rel}:{lineno}: Msg length disagrees with Len");
                }
                msg = Some(m[..n].to_vec());
            }
            "MD" => {
                let (line, _) = len_bits
                    .take()
                    .unwrap_or_else(|| panic!("{rel}:{lineno}: MD before Len"));
                let m = msg
                    .take()
                    .unwrap_or_else(|| panic!("{rel}:{lineno}: MD before Msg"));
                let md = from_hex(v);
                if let Some(l) = section_len {
                    // The SHA-2 files give [L] in bytes, the SHA-3 files in bits.
                    assert!(
                        md.len() == l || md.len() * 8 == l,
                        "{rel}:{lineno}: MD length {} disagrees with [L = {l}]",
                        md.len()
                    );
                }
                out.push(Cavp { line, msg: m, md });
            }
            other => panic!("{rel}:{lineno}: unknown key {other:?}"),
        }
    }
    assert!(
        len_bits.is_none() && msg.is_none(),
        "{rel}: trailing record without MD"
    );
    // Independent count, so a parser slip cannot silently drop records.
    let lens = text
        .lines()
        .filter(|l| l.trim_start().starts_with("Len ="))
        .count();
    assert_eq!(out.len(), lens, "{rel}: parsed records != `Len =` lines");
    out
}

/// Runs every vector of one CAVP file through `alg`, asserting the count.
fn run_cavp(rel: &str, alg: Algorithm, expected_count: usize) {
    let vs = parse_cavp(rel);
    assert_eq!(vs.len(), expected_count, "{rel}: vector count (README table)");
    for v in &vs {
        assert_eq!(v.md.len(), alg.digest_len(), "{rel}:{}: digest length", v.line);
    }
    let mut f = Failures::default();
    for v in &vs {
        f.check(alg, &v.msg, &v.md, &format!("{rel}:{}", v.line));
    }
    f.assert_none(rel);
}

/// Writes each input to `dir/in<i>.bin`; returns the paths in order.
fn write_inputs(dir: &Path, inputs: &[Vec<u8>]) -> Vec<PathBuf> {
    inputs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let p = dir.join(format!("in{i}.bin"));
            fs::write(&p, d).unwrap();
            p
        })
        .collect()
}

/// Runs `prog args... files...`, returning stdout lines, or `None` if it
/// exits non-zero (e.g. an older tool lacking the option). The tool runs
/// in the harness's hermetic environment (C locale).
fn run_tool(prog: &str, args: &[&str], files: &[PathBuf]) -> Option<Vec<String>> {
    let out = util::command(prog).args(args).args(files).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).expect("tool output is not UTF-8");
    Some(s.lines().map(str::to_owned).collect())
}

fn skip(test: &str, why: &str) {
    util::skip(
        test,
        &format!("{why}: *** this known-answer test did NOT run ***"),
    );
}

fn find_openssl() -> Option<PathBuf> {
    for p in ["/usr/bin/openssl", "/usr/local/bin/openssl", "/bin/openssl"] {
        if Path::new(p).exists() {
            return Some(PathBuf::from(p));
        }
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("openssl"))
        .find(|p| p.is_file())
}

// ---------------------------------------------------------------------------
// 1. NIST CAVP SHA-1 / SHA-2 / SHA-3 (byte-oriented Short and Long messages)
// ---------------------------------------------------------------------------
//
// Counts are those in the README table. NIST's SHA-512/224 and SHA-512/256
// files are not committed: mhash does not offer those algorithms.
// There is no NIST SHA3-224 file; SHA3-224 is checked against OpenSSL below.

macro_rules! cavp_test {
    ($name:ident, $file:literal, $kind:ident, $count:literal) => {
        #[test]
        fn $name() {
            run_cavp($file, Algorithm::new(AlgoKind::$kind), $count);
        }
    };
}

cavp_test!(nist_sha1_short, "nist-cavp/sha2/SHA1ShortMsg.rsp", Sha1, 65);
cavp_test!(nist_sha1_long, "nist-cavp/sha2/SHA1LongMsg.rsp", Sha1, 64);
cavp_test!(nist_sha224_short, "nist-cavp/sha2/SHA224ShortMsg.rsp", Sha224, 65);
cavp_test!(nist_sha224_long, "nist-cavp/sha2/SHA224LongMsg.rsp", Sha224, 64);
cavp_test!(nist_sha256_short, "nist-cavp/sha2/SHA256ShortMsg.rsp", Sha256, 65);
cavp_test!(nist_sha256_long, "nist-cavp/sha2/SHA256LongMsg.rsp", Sha256, 64);
cavp_test!(
    nist_sha384_short,
    "nist-cavp/sha2/SHA384ShortMsg.rsp",
    Sha384,
    129
);
cavp_test!(nist_sha384_long, "nist-cavp/sha2/SHA384LongMsg.rsp", Sha384, 128);
cavp_test!(
    nist_sha512_short,
    "nist-cavp/sha2/SHA512ShortMsg.rsp",
    Sha512,
    129
);
cavp_test!(nist_sha512_long, "nist-cavp/sha2/SHA512LongMsg.rsp", Sha512, 128);
cavp_test!(
    nist_sha3_256_short,
    "nist-cavp/sha3/SHA3_256ShortMsg.rsp",
    Sha3_256,
    137
);
cavp_test!(
    nist_sha3_256_long,
    "nist-cavp/sha3/SHA3_256LongMsg.rsp",
    Sha3_256,
    100
);
cavp_test!(
    nist_sha3_384_short,
    "nist-cavp/sha3/SHA3_384ShortMsg.rsp",
    Sha3_384,
    105
);
cavp_test!(
    nist_sha3_384_long,
    "nist-cavp/sha3/SHA3_384LongMsg.rsp",
    Sha3_384,
    100
);
cavp_test!(
    nist_sha3_512_short,
    "nist-cavp/sha3/SHA3_512ShortMsg.rsp",
    Sha3_512,
    73
);
cavp_test!(
    nist_sha3_512_long,
    "nist-cavp/sha3/SHA3_512LongMsg.rsp",
    Sha3_512,
    100
);

/// The `Len = 0` / `Msg = 00` placeholder must parse as the empty message.
#[test]
fn cavp_parser_len0_is_empty() {
    let vs = parse_cavp("nist-cavp/sha2/SHA256ShortMsg.rsp");
    assert!(vs[0].msg.is_empty());
    assert_eq!(
        to_hex(&vs[0].md),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

// ---------------------------------------------------------------------------
// 2. MD5, RFC 1321 Appendix A.5
// ---------------------------------------------------------------------------

cavp_test!(rfc1321_md5, "md5/rfc-1321.txt", Md5, 7);

// ---------------------------------------------------------------------------
// 3. BLAKE2b-512: official KAT (unkeyed) and pyca's CAVP-style file
// ---------------------------------------------------------------------------

#[test]
fn blake2b_official_kat_unkeyed() {
    let text = read_vec_text("blake2/blake2-kat.json");
    let all: Vec<serde_json::Value> = serde_json::from_str(&text).expect("blake2-kat.json");
    let field = |e: &serde_json::Value, k: &str| -> String {
        e[k].as_str()
            .unwrap_or_else(|| panic!("entry without {k}: {e}"))
            .to_owned()
    };
    let entries: Vec<_> = all
        .iter()
        .filter(|e| field(e, "hash") == "blake2b" && field(e, "key").is_empty())
        .collect();
    assert_eq!(entries.len(), 256, "unkeyed blake2b entries");
    let mut f = Failures::default();
    for (n, e) in entries.iter().enumerate() {
        let input = from_hex(&field(e, "in"));
        // Sanity: entry n is the bytes 00 01 .. n-1 (README).
        assert_eq!(
            input,
            (0..n).map(|i| i as u8).collect::<Vec<_>>(),
            "entry {n} input"
        );
        let want = from_hex(&field(e, "out"));
        assert_eq!(want.len(), 64);
        f.check(
            Algorithm::new(AlgoKind::Blake2b),
            &input,
            &want,
            &format!("kat #{n}"),
        );
        f.check(
            Algorithm::blake2b(512),
            &input,
            &want,
            &format!("kat #{n} blake2b(512)"),
        );
    }
    f.assert_none("blake2-kat.json");
}

cavp_test!(pyca_blake2b, "blake2/pyca-blake2b.txt", Blake2b, 7);

// ---------------------------------------------------------------------------
// 4. CRCs: catalogue check value, GNU cksum 9.1 output, zlib CRC-32
// ---------------------------------------------------------------------------

/// The `check=` value of the named CRC in the catalogue file.
fn catalogue_check(name: &str) -> u32 {
    let text = read_vec_text("crc/allcrcs.txt");
    let tag = format!("name=\"{name}\"");
    let line = text
        .lines()
        .find(|l| l.split_whitespace().any(|w| w == tag))
        .unwrap_or_else(|| panic!("{name} not in allcrcs.txt"));
    let v = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("check=0x"))
        .unwrap_or_else(|| panic!("no check= in {line:?}"));
    u32::from_str_radix(v, 16).unwrap()
}

#[test]
fn crc32b_catalogue_check() {
    let check = catalogue_check("CRC-32/ISO-HDLC");
    assert_eq!(check, 0xcbf4_3926);
    let mut f = Failures::default();
    f.check(
        Algorithm::new(AlgoKind::Crc32b),
        b"123456789",
        &check.to_be_bytes(),
        "ISO-HDLC check",
    );
    f.assert_none("CRC-32/ISO-HDLC check value");
}

/// Checks `kind` on every file in `crc/cksum-inputs` against an expected
/// file of `<decimal crc> <len> <name>` lines.
fn run_cksum_expected(rel: &str, kind: AlgoKind) {
    let text = read_vec_text(rel);
    let mut f = Failures::default();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut it = line.split_whitespace();
        let (crc, len, name) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
        assert!(it.next().is_none(), "{rel}: bad line {line:?}");
        let crc: u32 = crc.parse().unwrap();
        let len: usize = len.parse().unwrap();
        let data = read_vec_file(&format!("crc/cksum-inputs/{name}"));
        assert_eq!(data.len(), len, "{rel}: {name} size");
        f.check(
            Algorithm::new(kind),
            &data,
            &crc.to_be_bytes(),
            &format!("{rel}: {name}"),
        );
        count += 1;
    }
    assert_eq!(count, 10, "{rel}: line count");
    f.assert_none(rel);
}

#[test]
fn crc_gnu_cksum_9_1_expected() {
    run_cksum_expected("crc/cksum-gnu-coreutils-9.1.expected", AlgoKind::Crc);
}

#[test]
fn crc32b_zlib_expected() {
    run_cksum_expected("crc/crc32b-zlib.expected", AlgoKind::Crc32b);
}

// ---------------------------------------------------------------------------
// 5. BLAKE2b at every length, and sysv/bsd/crc, against GNU coreutils
// ---------------------------------------------------------------------------

#[test]
fn blake2b_all_lengths_vs_gnu_b2sum() {
    const B2SUM: &str = "/usr/bin/b2sum";
    if !util::gnu_available("vectors::blake2b_all_lengths_vs_gnu_b2sum") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Empty, "abc", and the block boundaries (128-byte blocks) and beyond.
    let inputs = vec![
        Vec::new(),
        b"abc".to_vec(),
        noise(127, 1),
        noise(128, 2),
        noise(129, 3),
        noise(1000, 4),
    ];
    let files = write_inputs(dir.path(), &inputs);
    let mut f = Failures::default();
    let mut checked = 0;
    for bits in (8..=512).step_by(8) {
        let l = bits.to_string();
        let Some(lines) = run_tool(B2SUM, &["-l", &l], &files) else {
            panic!("{B2SUM} -l {bits} failed");
        };
        assert_eq!(lines.len(), inputs.len(), "b2sum -l {bits} output lines");
        for (input, line) in inputs.iter().zip(&lines) {
            let hex = line.split_whitespace().next().unwrap();
            let want = from_hex(hex);
            assert_eq!(want.len() * 8, bits as usize, "b2sum -l {bits}: {line:?}");
            let ctx = format!("b2sum -l {bits}");
            f.check(Algorithm::blake2b(bits), input, &want, &ctx);
            checked += 1;
        }
    }
    assert_eq!(checked, 64 * inputs.len());
    f.assert_none("BLAKE2b vs GNU b2sum");
}

/// Compares `kind` with `/usr/bin/cksum -a <name>` on the inputs, parsing the
/// first number of each output line. Returns false if cksum is unusable.
fn legacy_vs_gnu_cksum(kind: AlgoKind, test: &str) -> bool {
    const CKSUM: &str = "/usr/bin/cksum";
    if !util::gnu_available(test) {
        return false;
    }
    let dir = tempfile::tempdir().unwrap();
    let sizes = [0usize, 1, 511, 512, 513, 4096, 100_000];
    let mut inputs: Vec<Vec<u8>> = sizes.iter().map(|&n| noise(n, n as u64 + 7)).collect();
    // All-0xff input pushes the sysv sum through its carry folding.
    inputs.push(vec![0xff; 70_000]);
    let files = write_inputs(dir.path(), &inputs);
    let Some(lines) = run_tool(CKSUM, &["-a", kind.name()], &files) else {
        skip(
            test,
            &format!("{CKSUM} -a {} failed (not GNU coreutils >= 9.0?)", kind.name()),
        );
        return false;
    };
    assert_eq!(lines.len(), inputs.len(), "cksum -a {} output lines", kind.name());
    let mut f = Failures::default();
    for (input, line) in inputs.iter().zip(&lines) {
        let first = line.split_whitespace().next().unwrap();
        let v: u64 = first.parse().unwrap_or_else(|e| panic!("{line:?}: {e}"));
        let want = match kind {
            AlgoKind::Sysv | AlgoKind::Bsd => u16::try_from(v).unwrap().to_be_bytes().to_vec(),
            _ => u32::try_from(v).unwrap().to_be_bytes().to_vec(),
        };
        let ctx = format!("cksum -a {}: {line:?}", kind.name());
        f.check(Algorithm::new(kind), input, &want, &ctx);
    }
    f.assert_none(test);
    true
}

#[test]
fn sysv_vs_gnu_cksum() {
    legacy_vs_gnu_cksum(AlgoKind::Sysv, "vectors::sysv_vs_gnu_cksum");
}

#[test]
fn bsd_vs_gnu_cksum() {
    legacy_vs_gnu_cksum(AlgoKind::Bsd, "vectors::bsd_vs_gnu_cksum");
}

#[test]
fn crc_vs_gnu_cksum() {
    legacy_vs_gnu_cksum(AlgoKind::Crc, "vectors::crc_vs_gnu_cksum");
}

// ---------------------------------------------------------------------------
// 6. SM3: GB/T 32905-2016 examples, and GNU cksum -a sm3
// ---------------------------------------------------------------------------

#[test]
fn sm3_gbt32905_examples() {
    let alg = Algorithm::new(AlgoKind::Sm3);
    let mut f = Failures::default();
    f.check(
        alg,
        b"abc",
        &from_hex("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"),
        "GB/T 32905 example 1",
    );
    f.check(
        alg,
        "abcd".repeat(16).as_bytes(),
        &from_hex("debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732"),
        "GB/T 32905 example 2",
    );
    f.assert_none("SM3 GB/T 32905");
}

#[test]
fn sm3_vs_gnu_cksum() {
    const CKSUM: &str = "/usr/bin/cksum";
    let test = "vectors::sm3_vs_gnu_cksum";
    if !util::gnu_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let inputs = vec![
        Vec::new(),
        b"abc".to_vec(),
        noise(55, 1),
        noise(56, 2),
        noise(64, 3),
        noise(10_000, 4),
    ];
    let files = write_inputs(dir.path(), &inputs);
    let Some(lines) = run_tool(CKSUM, &["-a", "sm3", "--untagged"], &files) else {
        skip(
            test,
            "/usr/bin/cksum -a sm3 --untagged failed (not GNU coreutils >= 9.0?)",
        );
        return;
    };
    assert_eq!(lines.len(), inputs.len());
    let mut f = Failures::default();
    for (input, line) in inputs.iter().zip(&lines) {
        let want = from_hex(line.split_whitespace().next().unwrap());
        f.check(
            Algorithm::new(AlgoKind::Sm3),
            input,
            &want,
            &format!("cksum -a sm3: {line:?}"),
        );
    }
    f.assert_none(test);
}

// ---------------------------------------------------------------------------
// 7. SHA3-224 (no NIST file here) against OpenSSL
// ---------------------------------------------------------------------------

#[test]
fn sha3_224_vs_openssl() {
    let test = "vectors::sha3_224_vs_openssl";
    let Some(openssl) = find_openssl() else {
        skip(test, "openssl binary not found");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // 144 bytes is the SHA3-224 rate: test around the block boundary.
    let inputs = vec![
        Vec::new(),
        b"abc".to_vec(),
        noise(143, 1),
        noise(144, 2),
        noise(145, 3),
        noise(100_000, 4),
    ];
    let files = write_inputs(dir.path(), &inputs);
    let prog = openssl.to_str().unwrap();
    let Some(lines) = run_tool(prog, &["dgst", "-sha3-224", "-r"], &files) else {
        skip(test, &format!("{prog} dgst -sha3-224 failed (OpenSSL < 1.1.1?)"));
        return;
    };
    assert_eq!(lines.len(), inputs.len());
    let mut by_name: HashMap<String, Vec<u8>> = HashMap::new();
    for line in &lines {
        // `-r` prints `<hex> *<file>`.
        let (hex, name) = line.split_once(' ').unwrap_or_else(|| panic!("{line:?}"));
        by_name.insert(name.trim_start_matches('*').to_owned(), from_hex(hex));
    }
    let mut f = Failures::default();
    for (input, file) in inputs.iter().zip(&files) {
        let want = &by_name[file.to_str().unwrap()];
        assert_eq!(want.len(), 28);
        f.check(
            Algorithm::new(AlgoKind::Sha3_224),
            input,
            want,
            &format!("openssl sha3-224 len {}", input.len()),
        );
    }
    f.assert_none(test);
}

/// Every available backend of every algorithm agrees with the portable one
/// on every message length 0..=1,100 bytes (each block boundary and the
/// padding cases around it), one-shot and streamed; the portable backends
/// are themselves checked against the published vectors above.
#[test]
fn backends_agree_on_every_length() {
    let data = noise(1100, 7);
    let mut algos: Vec<Algorithm> = AlgoKind::ALL.into_iter().map(Algorithm::new).collect();
    algos.push(Algorithm::blake2b(256));
    let mut f = Failures::default();
    for alg in algos {
        let portable = alg.backends().last().unwrap();
        assert!(
            portable.is_portable(),
            "{}: last backend is {:?}",
            alg.kind.name(),
            portable
        );
        for len in 0..=data.len() {
            let msg = &data[..len];
            let want = one_shot(portable, alg, msg);
            f.check(alg, msg, &want, "cross-backend");
        }
    }
    f.assert_none("backends disagree");
}

// ---------------------------------------------------------------------------
// 7. BLAKE3 (official test vectors) and xxHash (xxHash's sanity values)
// ---------------------------------------------------------------------------

/// `tests/data/vectors/blake3/test_vectors.json`: every case's input is
/// `input_len` bytes of `i % 251`; `hash` is 131 bytes of extended output,
/// whose first 32 bytes are the default digest. Checked on every backend,
/// at 32 bytes and at the full 131-byte XOF length.
#[test]
fn blake3_official_test_vectors() {
    let text = read_vec_text("blake3/test_vectors.json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("test_vectors.json");
    let cases = v["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 35, "BLAKE3 cases");
    let mut f = Failures::default();
    for c in cases {
        let len = c["input_len"].as_u64().expect("input_len") as usize;
        let input: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let xof = from_hex(c["hash"].as_str().expect("hash"));
        assert_eq!(xof.len(), 131);
        f.check(Algorithm::new(AlgoKind::Blake3), &input, &xof[..32], "blake3 32");
        f.check(Algorithm::blake3(131), &input, &xof, "blake3 xof 131");
        f.check(Algorithm::blake3(1), &input, &xof[..1], "blake3 xof 1");
    }
    f.assert_none("blake3 test_vectors.json");
}

/// xxHash's sanity buffer (xxHash 0.8 `cli/xsum_sanity_check.c`):
/// byte i is the top byte of PRIME32 * PRIME64^i (mod 2^64).
fn xxh_sanity_buffer(len: usize) -> Vec<u8> {
    const PRIME32: u64 = 2_654_435_761;
    const PRIME64: u64 = 0x9E37_79B1_85EB_CA8D;
    let mut byte_gen = PRIME32;
    (0..len)
        .map(|_| {
            let b = (byte_gen >> 56) as u8;
            byte_gen = byte_gen.wrapping_mul(PRIME64);
            b
        })
        .collect()
}

/// XXH3_64bits and XXH3_128bits, seed 0, on xxHash's sanity buffer (its
/// `XSUM_XXH3_testdata` / `XSUM_XXH128_testdata`, 0.8.3), as xxhsum
/// prints them: big-endian (for XXH128 the high 64 bits first).
#[test]
fn xxh3_and_xxh128_sanity_values() {
    let xxh3: [(usize, &str); 8] = [
        (0, "2d06800538d394c2"),
        (1, "c44bdff4074eecdb"),
        (6, "27b56a84cd2d7325"),
        (12, "a713daf0dfbb77e7"),
        (24, "a3fe70bf9d3510eb"),
        (48, "397da259ecba1f11"),
        (80, "bcdefbbb2c47c90a"),
        (195, "cd94217ee362ec3a"),
    ];
    let xxh128: [(usize, &str); 7] = [
        (0, "99aa06d3014798d86001c324468d497f"),
        (1, "a6cd5e9392000f6ac44bdff4074eecdb"),
        (6, "082afe0b8162d12a3e7039bdda43cfc6"),
        (12, "6e3efd8fc7802b18061a192713f69ad9"),
        (24, "0ce966e4678d37611e7044d28b1b901d"),
        (48, "a002ac4e5478227ef942219aed80f67b"),
        (81, "4952f58181ab00425e8bafb9f95fb803"),
    ];
    let mut f = Failures::default();
    for (len, want) in xxh3 {
        f.check(
            Algorithm::new(AlgoKind::Xxh3),
            &xxh_sanity_buffer(len),
            &from_hex(want),
            "xxh3 sanity",
        );
    }
    for (len, want) in xxh128 {
        f.check(
            Algorithm::new(AlgoKind::Xxh128),
            &xxh_sanity_buffer(len),
            &from_hex(want),
            "xxh128 sanity",
        );
    }
    // "abc": XXH3 78af5f94892f3950 (xxhsum -H3), BLAKE3 from its paper's
    // reference implementation.
    f.check(
        Algorithm::new(AlgoKind::Xxh3),
        b"abc",
        &from_hex("78af5f94892f3950"),
        "xxh3 abc",
    );
    f.assert_none("xxHash sanity values");
}

/// The long-input paths (xxHash's 1,024-byte blocks, BLAKE3's chunk tree
/// with several levels, BLAKE3's XOF past one 64-byte block): every
/// backend agrees with the portable one on lengths the 0..=1,100 sweep
/// above does not reach, and at several output lengths.
#[test]
fn long_inputs_and_xof_lengths_agree_across_backends() {
    let data = noise(300_000, 11);
    let mut f = Failures::default();
    for alg in [
        Algorithm::new(AlgoKind::Xxh3),
        Algorithm::new(AlgoKind::Xxh128),
        Algorithm::new(AlgoKind::Blake3),
        Algorithm::blake3(64),
        Algorithm::blake3(200),
    ] {
        let portable = alg.backends().last().unwrap();
        for len in [
            1023,
            1024,
            1025,
            2048,
            4095,
            4096,
            4097,
            8192 + 17,
            65_536,
            299_999,
        ] {
            let msg = &data[..len];
            f.check(alg, msg, &one_shot(portable, alg, msg), "long input");
        }
    }
    f.assert_none("long inputs");
}

// ---------------------------------------------------------------------------
// 8. CRC-32C and CRC-64/NVME (the CRC catalogue; RFC 3720 B.4)
// ---------------------------------------------------------------------------

/// The CRC catalogue's check values (the CRC of ASCII "123456789":
/// CRC-32/ISCSI 0xe3069283, CRC-64/NVME 0xae8b14860a799888) and RFC 3720
/// B.4's CRC-32C of 32 zero bytes (0x8a9136aa), on every backend here
/// (the portable one alone under `MHASH_BACKEND=portable`). Every length
/// against a bit-at-a-time reference: `stores::crcs_agree_...`.
#[test]
fn crc32c_and_crc64nvme_check_values() {
    for (alg, msg, want) in [
        (AlgoKind::Crc32c, &b"123456789"[..], "e3069283"),
        (AlgoKind::Crc32c, &[0u8; 32][..], "8a9136aa"),
        (AlgoKind::Crc64Nvme, &b"123456789"[..], "ae8b14860a799888"),
    ] {
        let alg = Algorithm::new(alg);
        for b in backends(alg) {
            assert_eq!(
                to_hex(&one_shot(b, alg, msg)),
                want,
                "{} on {}",
                alg.name(),
                b.name()
            );
            assert_eq!(
                to_hex(&streamed(b, alg, msg)),
                want,
                "{} on {} streamed",
                alg.name(),
                b.name()
            );
        }
    }
}

// ---------------------------------------------------------------------------
// 9. Adler-32 (RFC 1950 8.2; zlib's adler32)
// ---------------------------------------------------------------------------

/// zlib's `adler32` of short strings, one million `a`s and runs of 0xff
/// around zlib's `NMAX` (`adler32/zlib-adler32.expected`, computed with
/// Python's zlib), on every backend here, in one call and streamed.
#[test]
fn adler32_matches_zlib() {
    let text = std::fs::read_to_string(format!("{VECTORS}/adler32/zlib-adler32.expected")).unwrap();
    let alg = Algorithm::new(AlgoKind::Adler32);
    let mut n = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut cols = line.splitn(3, '\t');
        let (want, kind, arg) = (cols.next().unwrap(), cols.next().unwrap(), cols.next().unwrap());
        let msg = match kind {
            "text" => arg.as_bytes().to_vec(),
            "repeat" => {
                let (count, byte) = arg.split_once("*0x").unwrap();
                vec![u8::from_str_radix(byte, 16).unwrap(); count.parse().unwrap()]
            }
            k => panic!("unknown input kind {k}"),
        };
        for b in backends(alg) {
            assert_eq!(
                to_hex(&one_shot(b, alg, &msg)),
                want,
                "{line:.40} on {}",
                b.name()
            );
            assert_eq!(
                to_hex(&streamed(b, alg, &msg)),
                want,
                "{line:.40} on {} streamed",
                b.name()
            );
        }
        n += 1;
    }
    assert_eq!(n, 14, "every vector read");
}
