//! The checksums object stores report: CRC-32C and
//! CRC-64/NVME as algorithms, `--base64` of the CRCs, and `--s3-etag`,
//! `--s3-composite`, `--gcs`, `--hdfs`, `--hdfs-composite`.
//!
//! Oracles, never mhash's own output:
//! - the CRC catalogue's check values (reveng.sourceforge.io, "123456789")
//!   and RFC 3720 B.4's CRC-32C examples;
//! - a bit-at-a-time CRC written here from the catalogue's parameters
//!   (width, polynomial, reflected, init, xorout), for every length up to
//!   a few KiB and on every backend this CPU has;
//! - a Python program (below, [`ORACLE`]) that computes each store's value
//!   from the stores' documented definitions with `hashlib`, `zlib.crc32`
//!   and its own bit-at-a-time CRC-32C, independently of mhash's code;
//! - Hadoop's published checksum of an empty file
//!   (`MD5-of-0MD5-of-0CRC32 00000000000000000000000070bc8f4b72a86921468bf8e8441dce51`).

use std::fs;
use std::path::Path;
use std::process::Command;
use tempfile::TempDir;

use crate::util::{self, mhash, noise};
use mhash::algo::{AlgoKind, Algorithm};

/// A reflected CRC of `width` bits, one bit at a time, from the catalogue
/// parameters (`refin = refout = true`, `init = xorout = all ones` for
/// both CRC-32/ISCSI and CRC-64/NVME).
fn bitwise_crc(width: u32, poly: u64, data: &[u8]) -> u64 {
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    // Reflect the polynomial (it is given MSB-first in the catalogue).
    let mut rpoly = 0u64;
    for i in 0..width {
        if poly >> i & 1 == 1 {
            rpoly |= 1 << (width - 1 - i);
        }
    }
    let mut crc = mask;
    for &b in data {
        crc ^= u64::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ rpoly
            } else {
                crc >> 1
            };
        }
    }
    (crc ^ mask) & mask
}

fn crc32c_ref(data: &[u8]) -> u32 {
    bitwise_crc(32, 0x1EDC_6F41, data) as u32
}

fn crc64nvme_ref(data: &[u8]) -> u64 {
    bitwise_crc(64, 0xAD93_D235_94C9_3659, data)
}

#[test]
fn crc_catalogue_check_values() {
    // CRC catalogue: CRC-32/ISCSI check=0xe3069283, CRC-64/NVME
    // check=0xae8b14860a799888 (the CRC of the ASCII "123456789").
    assert_eq!(crc32c_ref(b"123456789"), 0xE306_9283);
    assert_eq!(crc64nvme_ref(b"123456789"), 0xAE8B_1486_0A79_9888);
    for (kind, want) in [
        (AlgoKind::Crc32c, "e3069283"),
        (AlgoKind::Crc64Nvme, "ae8b14860a799888"),
    ] {
        let a = Algorithm::new(kind);
        for b in a.backends().iter().filter(|b| b.is_available()) {
            let mut h = b.hasher(a);
            h.update(b"123456789");
            assert_eq!(hex::encode(h.finalize()), want, "{} on {}", a.name(), b.name());
        }
    }
}

#[test]
fn crc32c_rfc3720_examples() {
    // RFC 3720 B.4 (the CRC bytes there are as sent, least significant
    // first: "aa 36 91 8a" is 0x8a9136aa).
    let ascending: Vec<u8> = (0..32).collect();
    let descending: Vec<u8> = (0..32).rev().collect();
    for (data, want) in [
        (vec![0u8; 32], 0x8a91_36aa_u32),
        (vec![0xffu8; 32], 0x62a8_ab43),
        (ascending, 0x46dd_794e),
        (descending, 0x113f_db5c),
    ] {
        assert_eq!(crc32c_ref(&data), want, "reference");
        let a = Algorithm::new(AlgoKind::Crc32c);
        for b in a.backends().iter().filter(|b| b.is_available()) {
            let mut h = b.hasher(a);
            h.update(&data);
            assert_eq!(h.finalize(), want.to_be_bytes(), "{}", b.name());
        }
    }
}

#[test]
fn crcs_agree_with_the_bitwise_reference_at_every_length_on_every_backend() {
    let data = noise(5000, 18);
    let lengths: Vec<usize> = (0..=600)
        .chain([1023, 1024, 1025, 4095, 4096, 4097, 5000])
        .collect();
    for kind in [AlgoKind::Crc32c, AlgoKind::Crc64Nvme] {
        let a = Algorithm::new(kind);
        for b in a.backends().iter().filter(|b| b.is_available()) {
            for &n in &lengths {
                let want = match kind {
                    AlgoKind::Crc32c => crc32c_ref(&data[..n]).to_be_bytes().to_vec(),
                    _ => crc64nvme_ref(&data[..n]).to_be_bytes().to_vec(),
                };
                // Whole, and fed in uneven pieces (streaming state).
                let mut h = b.hasher(a);
                h.update(&data[..n]);
                assert_eq!(h.finalize(), want, "{} on {}, {n} bytes", a.name(), b.name());
                let mut h = b.hasher(a);
                for piece in data[..n].chunks(7) {
                    h.update(piece);
                }
                assert_eq!(
                    h.finalize(),
                    want,
                    "{} on {}, {n} bytes in 7s",
                    a.name(),
                    b.name()
                );
            }
        }
    }
}

#[test]
fn crc_lines_base64_and_portable_backend() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(d.join("c"), b"123456789").unwrap();
    let out = |args: &[&str], portable: bool| {
        let mut c = mhash(d);
        if portable {
            c.env("MHASH_BACKEND", "portable");
        }
        let o = c.args(args).output().unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    };
    for portable in [false, true] {
        assert_eq!(out(&["-a", "crc32c", "c"], portable), "CRC32C (c) = e3069283\n");
        assert_eq!(
            out(&["-a", "crc64nvme", "c"], portable),
            "CRC64NVME (c) = ae8b14860a799888\n"
        );
        // base64 of the big-endian bytes: S3's x-amz-checksum-crc64nvme,
        // -crc32c, -crc32; GCS's crc32c.
        assert_eq!(
            out(&["-a", "crc64nvme", "--base64", "--untagged", "c"], portable),
            "rosUhgp5mIg=  c\n"
        );
        assert_eq!(
            out(&["-a", "crc32c", "--base64", "c"], portable),
            "CRC32C (c) = 4waSgw==\n"
        );
        // zlib's CRC-32 of "123456789" is 0xcbf43926 (catalogue: CRC-32/ISO-HDLC).
        assert_eq!(out(&["-a", "crc32b", "--base64", "c"], portable), "y/Q5Jg==  c\n");
        assert_eq!(out(&["-a", "crc32b", "c"], portable), "3421780262 9 c\n");
    }
    // A tagged crc32c line checks.
    fs::write(
        d.join("SUMS"),
        "CRC32C (c) = e3069283\nCRC64NVME (c) = rosUhgp5mIg=\n",
    )
    .unwrap();
    // (A file listed under two algorithms: each status line names its own.)
    assert_eq!(out(&["-c", "SUMS"], false), "c: OK (CRC32C)\nc: OK (CRC64NVME)\n");
}

#[test]
fn gnu_personalities_do_not_gain_the_new_crcs() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(d.join("c"), b"123456789").unwrap();
    let o = util::named(d, "cksum")
        .args(["-a", "crc32c", "c"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("invalid argument 'crc32c' for '--algorithm'"),
        "{err}"
    );
    assert!(!err.contains("crc64nvme"), "{err}");
    // GNU cksum ignores --base64 for its CRCs: still the decimal line.
    let o = util::named(d, "cksum")
        .args(["-a", "crc32b", "--base64", "c"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "3421780262 9 c\n");
    let o = util::named(d, "sha256sum")
        .args(["--s3-etag", "c"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
}

/// The oracle: each store's value from its published definition, in
/// Python (hashlib, zlib; CRC-32C bit by bit). argv: MODE PART THRESHOLD
/// BLOCK BPC FILE...; prints what the store's tool prints.
const ORACLE: &str = r#"
import base64, hashlib, sys, zlib

def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF

def digest(algo, data):
    if algo == "crc32b":
        return (zlib.crc32(data) & 0xFFFFFFFF).to_bytes(4, "big")
    if algo == "crc32c":
        return crc32c(data).to_bytes(4, "big")
    return hashlib.new(algo, data).digest()

mode, part, threshold, block, bpc = sys.argv[1], *map(int, sys.argv[2:6])
for name in sys.argv[6:]:
    data = open(name, "rb").read()
    if mode.startswith("s3"):
        algo = "md5" if mode == "s3-etag" else mode.split(":")[1]
        if len(data) < threshold:
            value, suffix = digest(algo, data), ""
        else:
            parts = [data[i:i + part] for i in range(0, len(data), part)]
            value = digest(algo, b"".join(digest(algo, p) for p in parts))
            suffix = "-%d" % len(parts)
        text = value.hex() if mode == "s3-etag" else base64.b64encode(value).decode()
        print("%s%s  %s" % (text, suffix, name))
    elif mode == "gcs":
        print("---")
        print("crc32c_hash: " + base64.b64encode(crc32c(data).to_bytes(4, "big")).decode())
        print("digest_format: base64")
        print("md5_hash: " + base64.b64encode(hashlib.md5(data).digest()).decode())
        print("url: " + name)
    elif not data:
        # FileChecksumHelper.compute: no blocks.
        print("%s\tMD5-of-0MD5-of-0CRC32\t%s" % (name, "00" * 12 + hashlib.md5(bytes(32)).hexdigest()))
    elif mode == "hdfs-composite":
        print("%s\tCOMPOSITE-CRC32C\t%08x" % (name, crc32c(data)))
    else:
        blocks = [data[i:i + block] for i in range(0, len(data), block)]
        # The datanode: MD5 of the block's chunk CRCs (its meta file).
        md5s = [hashlib.md5(b"".join(crc32c(b[i:i + bpc]).to_bytes(4, "big")
                                     for i in range(0, len(b), bpc))).digest() for b in blocks]
        # The client: MD5Hash.digest(DataOutputBuffer.getData()), the
        # whole backing array of a java.io.ByteArrayOutputStream (32
        # bytes, grown on each 16-byte write to max(2 * capacity, needed)).
        buf, cap = b"", 32
        for m in md5s:
            if len(buf) + len(m) > cap:
                cap = max(2 * cap, len(buf) + len(m))
            buf += m
        buf += bytes(cap - len(buf))
        cpb = block // bpc if len(blocks) > 1 else 0
        value = bpc.to_bytes(4, "big") + cpb.to_bytes(8, "big") + hashlib.md5(buf).digest()
        print("%s\tMD5-of-%dMD5-of-%dCRC32C\t%s" % (name, cpb, bpc, value.hex()))
"#;

/// The oracle's output, or `None` (with a SKIP line) without python3.
fn oracle(dir: &Path, mode: &str, nums: [u64; 4], files: &[String]) -> Option<String> {
    let o = Command::new("python3")
        .current_dir(dir)
        .arg("-c")
        .arg(ORACLE)
        .arg(mode)
        .args(nums.iter().map(|n| n.to_string()))
        .args(files)
        .output();
    match o {
        Ok(o) if o.status.success() => Some(String::from_utf8(o.stdout).unwrap()),
        Ok(o) => panic!("the oracle failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => {
            util::skip("stores: the Python oracle", &format!("python3 cannot run: {e}"));
            None
        }
    }
}

/// Files of `sizes` bytes in `dir`, named by their size.
fn files(dir: &Path, sizes: &[u64]) -> Vec<String> {
    sizes
        .iter()
        .map(|&n| {
            let name = format!("f{n}");
            fs::write(dir.join(&name), noise(n as usize, n ^ 0x18)).unwrap();
            name
        })
        .collect()
}

fn ours(dir: &Path, args: &[&str], files: &[String]) -> String {
    let o = mhash(dir).args(args).args(files).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

const PART: u64 = 1024;

/// 0, 1, part - 1, part, part + 1, several parts, several parts and a bit.
fn part_sizes(part: u64) -> Vec<u64> {
    vec![
        0,
        1,
        part - 1,
        part,
        part + 1,
        2 * part,
        3 * part,
        3 * part + 17,
        7 * part + 1,
    ]
}

#[test]
fn s3_etag_matches_the_oracle_around_part_boundaries() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let names = files(d, &part_sizes(PART));
    // Threshold = part size (every input of a part or more is multipart),
    // and a threshold of three parts (shorter inputs are one PutObject).
    for threshold in [PART, 3 * PART] {
        let Some(want) = oracle(d, "s3-etag", [PART, threshold, 0, 1], &names) else {
            return;
        };
        let got = ours(
            d,
            &[
                "--s3-etag",
                "--part-size",
                "1KiB",
                "--multipart-threshold",
                &threshold.to_string(),
            ],
            &names,
        );
        assert_bytes_eq!(got, want, "--s3-etag, threshold {threshold}");
    }
}

#[test]
fn s3_composite_matches_the_oracle_for_each_algorithm() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let names = files(d, &part_sizes(PART));
    for algo in ["crc32b", "crc32c", "sha1", "sha256"] {
        let Some(want) = oracle(d, &format!("s3:{algo}"), [PART, PART, 0, 1], &names) else {
            return;
        };
        let got = ours(
            d,
            &[
                "--s3-composite",
                "-a",
                algo,
                "--part-size",
                "1024",
                "--multipart-threshold",
                "1K",
            ],
            &names,
        );
        assert_bytes_eq!(got, want, "--s3-composite -a {algo}");
    }
}

#[test]
fn s3_defaults_are_the_aws_clis_8_mib() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let mib = 1u64 << 20;
    let names = files(d, &[0, 3, 8 * mib - 1, 8 * mib, 8 * mib + 1, 17 * mib]);
    let Some(want) = oracle(d, "s3-etag", [8 * mib, 8 * mib, 0, 1], &names) else {
        return;
    };
    let got = ours(d, &["--s3-etag"], &names);
    assert_bytes_eq!(got, want, "--s3-etag at 8 MiB");
    // A single-part upload's ETag is the plain MD5 (GNU md5sum's digest).
    let md5 = ours(d, &["-a", "md5"], &names[..2]);
    let got = ours(d, &["--s3-etag"], &names[..2]);
    assert_bytes_eq!(got, md5, "plain MD5");
}

#[test]
fn gcs_matches_the_oracle() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let names = files(d, &[0, 1, 9, 4096, 100_000]);
    let Some(want) = oracle(d, "gcs", [1, 1, 1, 1], &names) else {
        return;
    };
    let got = ours(d, &["--gcs"], &names);
    assert_bytes_eq!(got, want, "--gcs");
}

#[test]
fn hdfs_matches_the_oracle_around_chunk_and_block_boundaries() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let (bpc, block) = (512u64, 2048u64);
    let sizes = [
        0,
        1,
        511,
        512,
        513,
        2047,
        2048,
        2049,
        2 * 2048,
        3 * 2048 + 100,
        5 * 2048,
        9 * 2048 + 1,
    ];
    let names = files(d, &sizes);
    for mode in ["hdfs", "hdfs-composite"] {
        let Some(want) = oracle(d, mode, [1, 1, block, bpc], &names) else {
            return;
        };
        let got = ours(
            d,
            &[
                &format!("--{mode}"),
                "--hdfs-block-size",
                "2KiB",
                "--hdfs-bytes-per-crc",
                "512",
            ],
            &names,
        );
        assert_bytes_eq!(got, want, "--{mode}");
    }
    // Defaults: 128 MiB blocks, 512 bytes per CRC (one block here).
    let Some(want) = oracle(d, "hdfs", [1, 1, 128 << 20, 512], &names) else {
        return;
    };
    let got = ours(d, &["--hdfs"], &names);
    assert_bytes_eq!(got, want, "--hdfs defaults");
    // Hadoop's published entry for an empty file.
    assert_eq!(
        ours(d, &["--hdfs"], &names[..1]),
        "f0\tMD5-of-0MD5-of-0CRC32\t00000000000000000000000070bc8f4b72a86921468bf8e8441dce51\n"
    );
}

#[test]
fn store_records_in_json_and_from_standard_input() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let names = files(d, &[3000]);
    let o = mhash(d)
        .args([
            "--s3-etag",
            "--part-size",
            "1KiB",
            "--multipart-threshold",
            "1KiB",
            "--json",
        ])
        .args(&names)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["store"], "s3-etag");
    assert_eq!(v["parts"], 3);
    assert_eq!(v["part_size"], 1024);
    assert_eq!(v["size"], 3000);
    assert!(v["checksum"].as_str().unwrap().ends_with("-3"), "{v}");
    // Standard input streams: the same value as the file.
    let file = ours(
        d,
        &[
            "--s3-composite",
            "-a",
            "sha256",
            "--part-size",
            "1K",
            "--multipart-threshold",
            "1K",
        ],
        &names,
    );
    let o = mhash(d)
        .args([
            "--s3-composite",
            "-a",
            "sha256",
            "--part-size",
            "1K",
            "--multipart-threshold",
            "1K",
            "-",
        ])
        .pipe_stdin(d.join(&names[0]))
        .unwrap()
        .output()
        .unwrap();
    let stdin = String::from_utf8(o.stdout).unwrap();
    assert_eq!(stdin.split_whitespace().next(), file.split_whitespace().next());
}

#[test]
fn store_options_are_checked() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::write(d.join("f"), b"x").unwrap();
    for (args, msg) in [
        (
            &["--s3-composite", "-a", "crc64nvme", "f"][..],
            "full-object only",
        ),
        (
            &["--s3-composite", "-a", "md5", "f"][..],
            "--s3-composite takes -a crc32b",
        ),
        (
            &["--part-size", "8MiB", "f"][..],
            "meaningful only with --s3-etag or --s3-composite",
        ),
        (
            &["--hdfs-block-size", "1MiB", "--s3-etag", "f"][..],
            "meaningful only with --hdfs",
        ),
        (
            &["--s3-etag", "--part-size", "8 parsecs", "f"][..],
            "invalid size",
        ),
        (&["--s3-etag", "--part-size", "0", "f"][..], "invalid size"),
        (&["--s3-etag", "-a", "sha1", "f"][..], "--s3-etag computes MD5"),
        (&["--s3-etag", "--gcs", "f"][..], "cannot be used with"),
        (
            &["--hdfs", "--hdfs-block-size", "1000", "f"][..],
            "not a multiple",
        ),
        (&["--s3-etag", "-c", "f"][..], "meaningful only when hashing"),
    ] {
        let o = mhash(d).args(args).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    // A part size S3 refuses warns, and computes anyway.
    let o = mhash(d)
        .args(["--s3-etag", "--part-size", "1KiB", "f"])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("warning: --part-size 1024"));
    // A missing file: its name and the cause; the others still print.
    let o = mhash(d).args(["--gcs", "gone", "f"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("gone: No such file or directory"));
    assert!(String::from_utf8_lossy(&o.stdout).contains("url: f\n"));
}
