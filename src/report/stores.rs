//! The object stores' checksums ([`crate::algo::stores`]) as each store's
//! own tool prints them, or as JSON records:
//!
//! - S3 (`--s3-etag`, `--s3-composite`): `VALUE  NAME`, GNU's untagged
//!   layout (names escaped as GNU does, `-z` ends lines with NUL). The
//!   ETag is hex, as `aws s3api head-object` shows it without its quotes
//!   (`"d41d8cd98f00b204e9800998ecf8427e"`, `"...-3"`); a composite
//!   checksum is base64 with `-N`, as its `ChecksumSHA256` (and so on)
//!   field shows it.
//! - GCS (`--gcs`): `gcloud storage hash FILE`'s YAML record, one per
//!   file: `---`, then `crc32c_hash`, `digest_format: base64`,
//!   `md5_hash` and `url` (the path as given), keys in sorted order (the
//!   keys and values: the Cloud SDK's `surface/storage/hash.py`; the
//!   layout is its YAML printer's, not checked against a gcloud binary).
//! - HDFS (`--hdfs`, `--hdfs-composite`): `hadoop fs -checksum`'s line,
//!   `NAME<TAB>ALGORITHM<TAB>HEX` (Hadoop's `Display.Checksum`:
//!   `printf("%s\t%s\t%s%n", path, getAlgorithmName(), hex(getBytes()))`).
//!
//! JSON (`--json`): `{"path":..,"size":..,"store":"s3-etag","algorithm":"md5","checksum":"...-3","parts":3,"part_size":8388608}`;
//! `gcs` records hold `crc32c` and `md5` (base64) instead of `checksum`;
//! `hdfs` records hold `hadoop_algorithm` and `checksum` (hex).

use crate::algo::stores::{Store, StoreDigest};
use crate::config::Format;
use crate::text::escape;
use base64::Engine as _;
use serde::Serialize;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The value an S3 line or record shows: the ETag in hex, a checksum in
/// base64; `-N` after either for a multipart upload.
fn s3_value(store: &Store, digest: &[u8], parts: Option<u64>) -> String {
    let mut v = match store {
        Store::S3Etag(_) => hex::encode(digest),
        _ => b64(digest),
    };
    if let Some(n) = parts {
        v.push_str(&format!("-{n}"));
    }
    v
}

/// Appends the text record of `name`'s store checksum `d` to `out`.
pub fn store_record(out: &mut Vec<u8>, store: &Store, d: &StoreDigest, name: &[u8], fmt: &Format) {
    match d {
        StoreDigest::S3 { digest, parts, .. } => {
            let escape = !fmt.zero && escape::needs_escape(name);
            if escape {
                out.push(b'\\');
            }
            out.extend_from_slice(s3_value(store, digest, *parts).as_bytes());
            out.extend_from_slice(b"  ");
            if escape {
                escape::escape_into(out, name);
            } else {
                out.extend_from_slice(name);
            }
            out.push(if fmt.zero { b'\0' } else { b'\n' });
        }
        StoreDigest::Gcs { crc32c, md5 } => {
            out.extend_from_slice(
                format!(
                    "---\ncrc32c_hash: {}\ndigest_format: base64\nmd5_hash: {}\nurl: ",
                    b64(crc32c),
                    b64(md5)
                )
                .as_bytes(),
            );
            out.extend_from_slice(name);
            out.push(b'\n');
        }
        StoreDigest::Hdfs { algorithm, bytes } => {
            out.extend_from_slice(name);
            out.extend_from_slice(format!("\t{algorithm}\t{}\n", hex::encode(bytes)).as_bytes());
        }
    }
}

#[derive(Serialize)]
struct StoreRecord<'a> {
    path: std::borrow::Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path_bytes: Option<&'a [u8]>,
    size: u64,
    store: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    algorithm: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hadoop_algorithm: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checksum: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    crc32c: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    md5: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parts: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    part_size: Option<u64>,
}

/// Appends the JSON record of `name`'s store checksum `d` (`size` bytes
/// read) and a newline to `out`.
pub fn store_json(out: &mut Vec<u8>, store: &Store, d: &StoreDigest, name: &[u8], size: u64) {
    let (text, bytes) = match std::str::from_utf8(name) {
        Ok(s) => (std::borrow::Cow::Borrowed(s), None),
        Err(_) => (String::from_utf8_lossy(name), Some(name)),
    };
    let mut rec = StoreRecord {
        path: text,
        path_bytes: bytes,
        size,
        store: store.name(),
        algorithm: None,
        hadoop_algorithm: None,
        checksum: None,
        crc32c: None,
        md5: None,
        parts: None,
        part_size: None,
    };
    match d {
        StoreDigest::S3 {
            algo,
            digest,
            parts,
            part_size,
        } => {
            rec.algorithm = Some(algo.name());
            rec.checksum = Some(s3_value(store, digest, *parts));
            rec.parts = *parts;
            rec.part_size = parts.map(|_| *part_size);
        }
        StoreDigest::Gcs { crc32c, md5 } => {
            rec.crc32c = Some(b64(crc32c));
            rec.md5 = Some(b64(md5));
        }
        StoreDigest::Hdfs { algorithm, bytes } => {
            rec.hadoop_algorithm = Some(algorithm);
            rec.checksum = Some(hex::encode(bytes));
        }
    }
    let _ = serde_json::to_writer(&mut *out, &rec);
    out.push(b'\n');
}
