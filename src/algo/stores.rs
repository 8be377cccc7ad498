//! The checksums object stores report, computed from the bytes alone: the
//! S3 ETag and composite checksums of a multipart upload, what `gcloud
//! storage hash` prints for Google Cloud Storage, and HDFS's
//! `MD5-of-MD5-of-CRC32C` and `COMPOSITE-CRC32C` file checksums. Each is a
//! streaming computation ([`StoreHasher`]) over one input, in constant
//! memory; the formulas and their sources are on [`Store`]'s variants.
//! How each is printed is the report layer's.

use super::backends::Crc32cChunks;
use super::{AlgoKind, Algorithm, Hasher};

/// The AWS CLI's default part size and multipart threshold (its
/// `multipart_chunksize` and `multipart_threshold`: 8 MiB), in bytes.
pub const AWS_CLI_PART_SIZE: u64 = 8 << 20;

/// The smallest part S3 accepts, but for the last one (5 MiB), in bytes
/// (Amazon S3 User Guide, "Amazon S3 multipart upload limits").
pub const S3_MIN_PART: u64 = 5 << 20;

/// The largest part S3 accepts (5 GiB), in bytes (same source).
pub const S3_MAX_PART: u64 = 5 << 30;

/// The most parts one S3 upload may have (same source).
pub const S3_MAX_PARTS: u64 = 10_000;

/// HDFS's default block size, `dfs.blocksize` (128 MiB), in bytes.
pub const HDFS_BLOCK_SIZE: u64 = 128 << 20;

/// HDFS's default `dfs.bytes-per-checksum` (512), in bytes.
pub const HDFS_BYTES_PER_CRC: u64 = 512;

/// How an upload is cut into parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Multipart {
    /// The part size in bytes (`--part-size`; the last part may be
    /// shorter). Never 0.
    pub part_size: u64,
    /// Inputs shorter than this many bytes are uploaded in one piece
    /// (`PutObject`, no parts): the AWS CLI's `multipart_threshold`
    /// (`--multipart-threshold`), 8 MiB unless set.
    pub threshold: u64,
}

impl Multipart {
    /// The part size the AWS CLI uses for an input of `size` bytes (when
    /// known): doubled until the upload has at most [`S3_MAX_PARTS`] parts
    /// (s3transfer's `ChunksizeAdjuster._adjust_for_max_parts`). Streamed
    /// input of unknown size keeps the part size given.
    pub fn part_size_for(&self, size: Option<u64>) -> u64 {
        let mut part = self.part_size.max(1);
        if let Some(size) = size {
            while size.div_ceil(part) > S3_MAX_PARTS {
                part = part.saturating_mul(2);
            }
        }
        part
    }
}

/// The block layout of an HDFS file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HdfsLayout {
    /// `dfs.blocksize` in bytes (`--hdfs-block-size`, 128 MiB by default);
    /// a multiple of `bytes_per_crc`, as HDFS requires.
    pub block_size: u64,
    /// `dfs.bytes-per-checksum` in bytes (`--hdfs-bytes-per-crc`, 512 by
    /// default): one CRC-32C per chunk of this many bytes.
    pub bytes_per_crc: u64,
}

/// A checksum an object store reports for a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    /// The S3 ETag of an upload (`--s3-etag`): for an input shorter than
    /// the threshold (one `PutObject`) the hex MD5 of the bytes; else
    /// `hex(MD5(MD5(part1) || MD5(part2) || ...))-N`, the MD5 of the parts'
    /// binary MD5s, `N` the number of parts. Source: Amazon S3 API
    /// Reference, "Object" (ETag: "If an object is created by ... the
    /// Multipart Upload ... the ETag is not an MD5 digest"), and the S3
    /// User Guide's "Checking object integrity" (the part-level MD5s);
    /// the `-N` form is what every multipart upload returns. Objects
    /// encrypted with SSE-KMS or SSE-C have other ETags.
    S3Etag(Multipart),
    /// The S3 composite checksum of a multipart upload (`--s3-composite`,
    /// `ChecksumType: COMPOSITE`): `base64(H(H(part1) || H(part2) ...))-N`,
    /// `H` one of CRC32 (`crc32b`), CRC32C, SHA-1, SHA-256, each part's
    /// checksum as its binary big-endian bytes. An input shorter than the
    /// threshold is one `PutObject`: `base64(H(bytes))`, no suffix (a
    /// full-object checksum). Source: Amazon S3 User Guide, "Checking
    /// object integrity in Amazon S3", section "Using part-level
    /// checksums for multipart uploads". CRC-64/NVME has no composite
    /// form (S3 supports it as a full-object checksum only: `-a crc64nvme
    /// --base64`).
    S3Composite {
        /// `H`.
        algo: AlgoKind,
        /// The parts.
        multipart: Multipart,
    },
    /// What `gcloud storage hash FILE` prints (`--gcs`): the CRC-32C and
    /// the MD5 of the whole file, base64 of their big-endian bytes (Google
    /// Cloud Storage, "Hashes and ETags: best practices": "The Base64
    /// encoded CRC32C is in big-endian byte order"; composite objects
    /// have a CRC-32C of their whole content too, and no MD5).
    Gcs,
    /// `hadoop fs -checksum` on a replicated HDFS file with the default
    /// `dfs.checksum.combine.mode=MD5MD5CRC` and `dfs.checksum.type=CRC32C`
    /// (`--hdfs`): per block, the MD5 of its chunks' CRC-32Cs (4 bytes
    /// each, big-endian, the last chunk's CRC over its shorter length);
    /// then the MD5 of the blocks' MD5s. Hadoop digests the whole backing
    /// array of the `DataOutputBuffer` the block MD5s were written to
    /// (`MD5Hash.digest(buf.getData())`), so the concatenation is
    /// zero-padded to the buffer's capacity: 32 bytes, doubled until the
    /// MD5s fit. The bytes printed are `bytesPerCRC` (4 bytes), then
    /// `crcPerBlock` (8 bytes; 0 for a file of one block, else
    /// `block_size / bytes_per_crc`), then the MD5; the algorithm name is
    /// `MD5-of-<crcPerBlock>MD5-of-<bytesPerCRC>CRC32C`. An empty file has
    /// no block: `MD5-of-0MD5-of-0CRC32`, the MD5 of 32 zero bytes.
    /// Sources: Apache Hadoop `FileChecksumHelper.FileChecksumComputer`
    /// (`compute`, `makeMd5CrcResult`, `extractChecksumProperties`),
    /// `BlockChecksumHelper.ReplicatedBlockChecksumComputer`
    /// (`checksumWholeBlock`), `MD5MD5CRC32FileChecksum` (`write`,
    /// `getAlgorithmName`), `DataOutputBuffer`.
    HdfsMd5(HdfsLayout),
    /// `hadoop fs -checksum` with `-Ddfs.checksum.combine.mode=COMPOSITE_CRC`
    /// (`--hdfs-composite`): the chunk CRCs composed into one CRC-32C of
    /// the whole file, independent of the block and chunk sizes; printed as
    /// `COMPOSITE-CRC32C` and its 4 bytes big-endian. An empty file gets
    /// the same `MD5-of-0MD5-of-0CRC32` entry as in [`Store::HdfsMd5`].
    /// Sources: Hadoop `FileChecksumHelper` (`makeCompositeCrcResult`),
    /// `CompositeCrcFileChecksum`.
    HdfsComposite(HdfsLayout),
}

impl Store {
    /// The name `--json` records give the format: `s3-etag`,
    /// `s3-composite`, `gcs`, `hdfs`, `hdfs-composite`.
    pub fn name(&self) -> &'static str {
        match self {
            Store::S3Etag(_) => "s3-etag",
            Store::S3Composite { .. } => "s3-composite",
            Store::Gcs => "gcs",
            Store::HdfsMd5(_) => "hdfs",
            Store::HdfsComposite(_) => "hdfs-composite",
        }
    }

    /// The algorithms S3 computes composite checksums with: CRC32
    /// (mhash's `crc32b`), CRC32C, SHA-1, SHA-256.
    pub fn s3_composite_algorithms() -> [AlgoKind; 4] {
        [
            AlgoKind::Crc32b,
            AlgoKind::Crc32c,
            AlgoKind::Sha1,
            AlgoKind::Sha256,
        ]
    }

    /// The multipart layout, for the S3 formats.
    pub fn multipart(&self) -> Option<Multipart> {
        match *self {
            Store::S3Etag(m) | Store::S3Composite { multipart: m, .. } => Some(m),
            _ => None,
        }
    }

    /// A fresh computation for an input of `size` bytes where that is
    /// known before reading (a regular file), `None` for a stream.
    pub fn hasher(&self, size: Option<u64>) -> StoreHasher {
        let inner = match *self {
            Store::S3Etag(m) => Inner::Parted(Parted::new(Algorithm::new(AlgoKind::Md5), m, size)),
            Store::S3Composite { algo, multipart } => {
                Inner::Parted(Parted::new(Algorithm::new(algo), multipart, size))
            }
            Store::Gcs => Inner::Gcs {
                crc: Algorithm::new(AlgoKind::Crc32c).hasher(),
                md5: Algorithm::new(AlgoKind::Md5).hasher(),
            },
            Store::HdfsMd5(l) => Inner::Hdfs(Box::new(Hdfs::new(l))),
            Store::HdfsComposite(_) => Inner::HdfsComposite(Algorithm::new(AlgoKind::Crc32c).hasher()),
        };
        StoreHasher { inner, total: 0 }
    }
}

/// What a store reports for one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreDigest {
    /// An S3 ETag or checksum: the digest bytes (the outer `H` of a
    /// multipart upload), and the number of parts, `None` for an input
    /// uploaded in one piece.
    S3 {
        /// The algorithm (MD5 for the ETag).
        algo: AlgoKind,
        /// The digest bytes.
        digest: Vec<u8>,
        /// `N` of the `-N` suffix; `None`: a single-part upload.
        parts: Option<u64>,
        /// The part size in bytes that was used (after the AWS CLI's
        /// 10,000-part adjustment).
        part_size: u64,
    },
    /// `gcloud storage hash`: the CRC-32C (big-endian) and MD5.
    Gcs {
        /// CRC-32C, 4 bytes big-endian.
        crc32c: Vec<u8>,
        /// MD5, 16 bytes.
        md5: Vec<u8>,
    },
    /// A Hadoop `FileChecksum`: its algorithm name and its bytes
    /// (`getBytes()`, printed in hex).
    Hdfs {
        /// `MD5-of-0MD5-of-512CRC32C`, `COMPOSITE-CRC32C`, ...
        algorithm: String,
        /// The checksum's bytes.
        bytes: Vec<u8>,
    },
}

/// A store checksum being computed: feed it the input's bytes
/// ([`Hasher::update`]), then [`finish`](StoreHasher::finish).
pub struct StoreHasher {
    inner: Inner,
    total: u64,
}

enum Inner {
    Parted(Parted),
    Gcs {
        crc: Box<dyn Hasher>,
        md5: Box<dyn Hasher>,
    },
    Hdfs(Box<Hdfs>),
    HdfsComposite(Box<dyn Hasher>),
}

impl StoreHasher {
    /// The input's length so far, in bytes.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// True while nothing has been fed.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The store's checksum of everything fed.
    pub fn finish(self) -> StoreDigest {
        match self.inner {
            Inner::Parted(p) => p.finish(),
            Inner::Gcs { crc, md5 } => StoreDigest::Gcs {
                crc32c: crc.finalize(),
                md5: md5.finalize(),
            },
            Inner::Hdfs(h) => h.finish(),
            Inner::HdfsComposite(crc) => {
                if self.total == 0 {
                    hdfs_empty()
                } else {
                    StoreDigest::Hdfs {
                        algorithm: "COMPOSITE-CRC32C".to_string(),
                        bytes: crc.finalize(),
                    }
                }
            }
        }
    }
}

impl Hasher for StoreHasher {
    fn update(&mut self, data: &[u8]) {
        self.total += data.len() as u64;
        match &mut self.inner {
            Inner::Parted(p) => p.update(data),
            Inner::Gcs { crc, md5 } => {
                crc.update(data);
                md5.update(data);
            }
            Inner::Hdfs(h) => h.update(data),
            Inner::HdfsComposite(c) => c.update(data),
        }
    }
    /// The checksum's bytes: the S3 digest, GCS's CRC-32C then MD5, or the
    /// Hadoop `FileChecksum` bytes.
    fn finalize(self: Box<Self>) -> Vec<u8> {
        match self.finish() {
            StoreDigest::S3 { digest, .. } => digest,
            StoreDigest::Gcs { mut crc32c, md5 } => {
                crc32c.extend(md5);
                crc32c
            }
            StoreDigest::Hdfs { bytes, .. } => bytes,
        }
    }
}

/// An upload in parts: each part hashed on its own, the parts' digests
/// hashed in turn (no list kept), and the whole input hashed as well
/// until it proves at least as long as the threshold.
struct Parted {
    algo: Algorithm,
    part_size: u64,
    threshold: u64,
    whole: Option<Box<dyn Hasher>>,
    part: Box<dyn Hasher>,
    in_part: u64,
    outer: Box<dyn Hasher>,
    parts: u64,
    total: u64,
}

impl Parted {
    fn new(algo: Algorithm, m: Multipart, size: Option<u64>) -> Parted {
        // Known in advance to be one piece or several: hash only what counts.
        let whole = match size {
            Some(n) if n >= m.threshold => None,
            _ => Some(algo.hasher()),
        };
        Parted {
            algo,
            part_size: m.part_size_for(size),
            threshold: m.threshold,
            whole,
            part: algo.hasher(),
            in_part: 0,
            outer: algo.hasher(),
            parts: 0,
            total: 0,
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if let Some(w) = &mut self.whole {
            w.update(data);
        }
        if self.total >= self.threshold {
            self.whole = None;
        }
        while !data.is_empty() {
            let room = self.part_size - self.in_part;
            let take = (data.len() as u64).min(room) as usize;
            self.part.update(&data[..take]);
            self.in_part += take as u64;
            data = &data[take..];
            if self.in_part == self.part_size {
                self.end_part();
            }
        }
    }

    fn end_part(&mut self) {
        let done = std::mem::replace(&mut self.part, self.algo.hasher());
        self.outer.update(&done.finalize());
        self.parts += 1;
        self.in_part = 0;
    }

    fn finish(mut self) -> StoreDigest {
        if self.total < self.threshold
            && let Some(w) = self.whole.take()
        {
            return StoreDigest::S3 {
                algo: self.algo.kind,
                digest: w.finalize(),
                parts: None,
                part_size: self.part_size,
            };
        }
        if self.in_part > 0 {
            self.end_part();
        }
        StoreDigest::S3 {
            algo: self.algo.kind,
            digest: self.outer.finalize(),
            parts: Some(self.parts),
            part_size: self.part_size,
        }
    }
}

/// HDFS's MD5-of-MD5-of-CRC32C, block by block.
struct Hdfs {
    layout: HdfsLayout,
    chunk: Crc32cChunks,
    in_chunk: u64,
    block_md5: Box<dyn Hasher>,
    in_block: u64,
    file_md5: Box<dyn Hasher>,
    blocks: u64,
}

impl Hdfs {
    fn new(layout: HdfsLayout) -> Hdfs {
        Hdfs {
            layout,
            chunk: Crc32cChunks::new(),
            in_chunk: 0,
            block_md5: Algorithm::new(AlgoKind::Md5).hasher(),
            in_block: 0,
            file_md5: Algorithm::new(AlgoKind::Md5).hasher(),
            blocks: 0,
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        let (bpc, block) = (self.layout.bytes_per_crc, self.layout.block_size);
        while !data.is_empty() {
            let room = (bpc - self.in_chunk).min(block - self.in_block);
            let take = (data.len() as u64).min(room) as usize;
            self.chunk.update(&data[..take]);
            self.in_chunk += take as u64;
            self.in_block += take as u64;
            data = &data[take..];
            if self.in_chunk == bpc || self.in_block == block {
                self.end_chunk();
            }
            if self.in_block == block {
                self.end_block();
            }
        }
    }

    fn end_chunk(&mut self) {
        let crc = self.chunk.finish_reset();
        self.block_md5.update(&crc.to_be_bytes());
        self.in_chunk = 0;
    }

    fn end_block(&mut self) {
        let md5 = std::mem::replace(&mut self.block_md5, Algorithm::new(AlgoKind::Md5).hasher());
        self.file_md5.update(&md5.finalize());
        self.blocks += 1;
        self.in_block = 0;
    }

    fn finish(mut self) -> StoreDigest {
        if self.in_chunk > 0 {
            self.end_chunk();
        }
        if self.in_block > 0 {
            self.end_block();
        }
        if self.blocks == 0 {
            return hdfs_empty();
        }
        // The DataOutputBuffer's backing array: 32 bytes, doubled as the
        // 16-byte block MD5s are written (java.io.ByteArrayOutputStream).
        let used = self.blocks.saturating_mul(16);
        let mut capacity = 32u64;
        while capacity < used {
            capacity = capacity.saturating_mul(2);
        }
        let zeros = [0u8; 4096];
        let mut pad = capacity - used;
        while pad > 0 {
            let n = pad.min(zeros.len() as u64) as usize;
            self.file_md5.update(&zeros[..n]);
            pad -= n as u64;
        }
        let bpc = self.layout.bytes_per_crc;
        let crc_per_block = if self.blocks > 1 {
            self.layout.block_size.div_ceil(bpc)
        } else {
            0
        };
        let mut bytes = Vec::with_capacity(28);
        bytes.extend_from_slice(&(bpc as u32).to_be_bytes());
        bytes.extend_from_slice(&crc_per_block.to_be_bytes());
        bytes.extend(self.file_md5.finalize());
        StoreDigest::Hdfs {
            algorithm: format!("MD5-of-{crc_per_block}MD5-of-{bpc}CRC32C"),
            bytes,
        }
    }
}

/// What Hadoop reports for a file with no blocks (an empty file), in
/// either combine mode: `MD5MD5CRC32GzipFileChecksum(0, 0, MD5(32 zero
/// bytes))` ("the magic entry that matches what previous hdfs versions
/// return", `FileChecksumHelper.FileChecksumComputer.compute`).
fn hdfs_empty() -> StoreDigest {
    let mut bytes = vec![0u8; 12];
    bytes.extend(Algorithm::new(AlgoKind::Md5).digest(&[0u8; 32]));
    StoreDigest::Hdfs {
        algorithm: "MD5-of-0MD5-of-0CRC32".to_string(),
        bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(store: Store, data: &[u8], feed: usize) -> StoreDigest {
        let mut h = store.hasher(None);
        for piece in data.chunks(feed.max(1)) {
            h.update(piece);
        }
        h.finish()
    }

    #[test]
    fn the_empty_hdfs_file_is_hadoops_magic_entry() {
        let layout = HdfsLayout {
            block_size: HDFS_BLOCK_SIZE,
            bytes_per_crc: HDFS_BYTES_PER_CRC,
        };
        for s in [Store::HdfsMd5(layout), Store::HdfsComposite(layout)] {
            let StoreDigest::Hdfs { algorithm, bytes } = run(s, b"", 1) else {
                panic!("hdfs")
            };
            assert_eq!(algorithm, "MD5-of-0MD5-of-0CRC32");
            // Published: `hadoop fs -checksum` of an empty file.
            assert_eq!(
                hex::encode(bytes),
                "00000000000000000000000070bc8f4b72a86921468bf8e8441dce51"
            );
        }
    }

    #[test]
    fn feeding_in_any_pieces_gives_the_same_result() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let m = Multipart {
            part_size: 1000,
            threshold: 1000,
        };
        let layout = HdfsLayout {
            block_size: 2048,
            bytes_per_crc: 512,
        };
        for s in [
            Store::S3Etag(m),
            Store::S3Composite {
                algo: AlgoKind::Crc32c,
                multipart: m,
            },
            Store::Gcs,
            Store::HdfsMd5(layout),
            Store::HdfsComposite(layout),
        ] {
            let one = run(s, &data, data.len());
            for feed in [1, 7, 511, 512, 513, 999, 1000, 1001, 4096] {
                assert_eq!(run(s, &data, feed), one, "{} fed {feed} at a time", s.name());
            }
        }
    }

    #[test]
    fn the_aws_cli_doubles_the_part_size_past_10000_parts() {
        let m = Multipart {
            part_size: AWS_CLI_PART_SIZE,
            threshold: AWS_CLI_PART_SIZE,
        };
        assert_eq!(
            m.part_size_for(Some(10_000 * AWS_CLI_PART_SIZE)),
            AWS_CLI_PART_SIZE
        );
        assert_eq!(
            m.part_size_for(Some(10_000 * AWS_CLI_PART_SIZE + 1)),
            2 * AWS_CLI_PART_SIZE
        );
        assert_eq!(m.part_size_for(None), AWS_CLI_PART_SIZE);
    }
}
