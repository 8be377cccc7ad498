//! How one input is read, chosen as a value: [`plan`] is a pure function
//! of what is known about the input ([`Facts`]) and of the run's threads
//! ([`Threads`]), returning a [`Strategy`] that `digest_inputs` then
//! carries out; the way it was carried out is reported as a [`Method`]
//! (`--debug`, `--json`).
//!
//! The order of the rules is the order of preference: a tree hash on
//! several threads (BLAKE3 of a large file, as b3sum), two reading threads
//! for a digest faster than the copy (XXH3), a measured choice between
//! reading and mapping for one large digest, a map where `--io` or the
//! size asks for one, a split across threads for a checksum computed in
//! joined segments (the folding CRCs), and otherwise `read(2)` to the end.

use super::{SEQUENTIAL_HINT_MIN, SPLIT_MIN, mapped, readers, trial};
use crate::algo::Algorithm;
use crate::config::IoMode;

/// What a hasher can do beyond update and finalize, as far as the choice
/// of reading goes (`algo::Capability` without the borrow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Update and finalize only.
    Plain,
    /// A tree hash that uses every thread of the pool (BLAKE3).
    Tree,
    /// A checksum computed in segments and joined (the folding CRCs).
    Combine,
    /// Several digests of one input, each on a thread of its own.
    Multi,
}

/// What is known about one input before it is read.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// The first (or only) algorithm.
    pub algo: Algorithm,
    /// How many digests are taken of the input (`-a md5,sha256`: 2).
    pub digests: usize,
    /// The hasher's [`Shape`].
    pub shape: Shape,
    /// `--io` (or `MHASH_IO`).
    pub mode: IoMode,
    /// GNU `sum`/`cksum` semantics: a read error ends the input, and what
    /// was read so far is its checksum (nothing may be read twice).
    pub read_errors_end_input: bool,
    /// Whether backends and ways of reading may be chosen by measurement
    /// (`algo::calibrate::mode()` is not `Never`).
    pub calibrating: bool,
    /// Whether `-j` or a default thread count applies to this input
    /// (`InputOpts::threads` is set).
    pub threaded: bool,
    /// The size of a regular file in bytes, where it was asked for
    /// ([`Facts::wants_size`]); `None` for standard input, a pipe or a
    /// device, or when the size could change nothing.
    pub size: Option<u64>,
}

impl Facts {
    /// Whether a measured choice between reading and mapping could be
    /// made for this input (one digest, no segments, `--io auto`).
    fn may_trial(&self) -> bool {
        self.mode == IoMode::Auto
            && !self.read_errors_end_input
            && self.shape == Shape::Plain
            && self.calibrating
            && mapped::may_map(IoMode::Mmap, self.algo)
    }

    /// Whether the size could change the [`Strategy`]: where it cannot,
    /// the `fstat(2)` is skipped (one system call less per small file).
    pub fn wants_size(&self) -> bool {
        self.threaded || self.may_trial() || mapped::may_map(self.mode, self.algo)
    }
}

/// The run's threads, asked for only when a strategy could use them
/// (counting them reads cgroup files, which `sha256sum FILE` never
/// needs; the tree pool is started once, on first use).
pub trait Threads {
    /// Threads for one large input (the tree hash, one per digest, the
    /// two readers).
    fn stream(&self) -> usize;
    /// Threads to split one file across, at most the cores; `None` where
    /// the input is not hashed with threads.
    fn split(&self) -> Option<usize>;
    /// Starts (once per run) the pool of `threads` threads that the tree
    /// hash uses; false when it could not be started.
    fn tree_pool(&self, threads: usize) -> bool;
}

/// When the kernel is told that a file is read sequentially
/// (`posix_fadvise(POSIX_FADV_SEQUENTIAL)`, a larger read-ahead).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    /// Before the first read: the file is known to be large.
    Now,
    /// Once the first read fills the buffer: the size was not asked for.
    AfterFirstRead,
    /// Never: a small file, or standard input.
    Never,
}

/// How one input is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// `read(2)` to the end through one buffer.
    Stream(Advice),
    /// Read by two threads into a ring of chunks and hashed in order on
    /// this one (a digest faster than the copy: XXH3, XXH128).
    Paired {
        /// The file's size in bytes.
        size: u64,
    },
    /// The first part read and mapped in turn, timed, and the rest read
    /// the faster way (`trial::feed_file`).
    Trial {
        /// The file's size in bytes.
        size: u64,
    },
    /// Hashed from a memory map, a bounded window at a time.
    Map {
        /// The file's size in bytes.
        size: u64,
        /// Each window hashed by the tree hash on every pool thread.
        tree: bool,
    },
    /// Cut into segments hashed on `threads` threads and joined.
    Split {
        /// The file's size in bytes.
        size: u64,
        /// How many threads read and hash segments.
        threads: usize,
    },
}

/// Chooses how to read the input `facts` describes.
pub fn plan(facts: &Facts, threads: &dyn Threads) -> Strategy {
    let Some(size) = facts.size else {
        return Strategy::Stream(Advice::AfterFirstRead);
    };
    let one = facts.digests == 1;
    let (mode, algo) = (facts.mode, facts.algo);
    let tree = one
        && facts.shape == Shape::Tree
        && (mapped::should_map_tree(mode, algo, size) || mapped::should_map(mode, algo, size))
        && {
            let n = threads.stream();
            n > 1 && threads.tree_pool(n)
        };
    if tree {
        return Strategy::Map { size, tree: true };
    }
    if one && readers::should_read(mode, algo, size) && threads.stream() > 1 {
        return Strategy::Paired { size };
    }
    if facts.may_trial() && size >= trial::FILE_TRIAL_MIN {
        return Strategy::Trial { size };
    }
    if mapped::should_map(mode, algo, size) {
        return Strategy::Map { size, tree: false };
    }
    if size >= SPLIT_MIN
        && !facts.read_errors_end_input
        && facts.shape == Shape::Combine
        && let Some(n) = threads.split()
        && n > 1
    {
        return Strategy::Split { size, threads: n };
    }
    Strategy::Stream(if size >= SEQUENTIAL_HINT_MIN {
        Advice::Now
    } else {
        Advice::Never
    })
}

/// How an input was read in the end, as `--debug` and `--json` report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `read(2)` to the end (also the lanes and the rings).
    Read,
    /// Two reading threads ([`Strategy::Paired`]), then `read(2)` for
    /// any growth.
    ReadPaired,
    /// Segments on several threads ([`Strategy::Split`]).
    ReadSplit,
    /// A memory map, then `read(2)` for anything the file grew by.
    Mmap,
    /// A map abandoned because the file shrank under it (or a trial that
    /// found it changed), then the whole file read again.
    MmapThenRead,
}

impl Method {
    /// The words `--debug` prints and `--json` records: `read`,
    /// `read (2 threads)`, `read (split)`, `mmap`, `mmap+read`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Read => "read",
            Method::ReadPaired => "read (2 threads)",
            Method::ReadSplit => "read (split)",
            Method::Mmap => "mmap",
            Method::MmapThenRead => "mmap+read",
        }
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::AlgoKind;
    use std::cell::Cell;

    /// A run with `n` threads whose pool starts when `pool` says so, and
    /// that counts how often the threads were asked for.
    struct Fake {
        n: usize,
        pool: bool,
        asked: Cell<u32>,
    }

    impl Threads for Fake {
        fn stream(&self) -> usize {
            self.asked.set(self.asked.get() + 1);
            self.n
        }
        fn split(&self) -> Option<usize> {
            self.asked.set(self.asked.get() + 1);
            (self.n > 0).then_some(self.n)
        }
        fn tree_pool(&self, _: usize) -> bool {
            self.pool
        }
    }

    fn threads(n: usize) -> Fake {
        Fake {
            n,
            pool: true,
            asked: Cell::new(0),
        }
    }

    fn facts(kind: AlgoKind, shape: Shape, size: Option<u64>) -> Facts {
        Facts {
            algo: Algorithm::new(kind),
            digests: 1,
            shape,
            mode: IoMode::Auto,
            read_errors_end_input: false,
            calibrating: true,
            threaded: true,
            size,
        }
    }

    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;

    #[test]
    fn a_table_of_inputs_and_their_strategies() {
        use AlgoKind::*;
        use Shape::*;
        let map_guard = crate::os::map_guard::supported();
        // (what, facts, threads, strategy)
        let cases: Vec<(&str, Facts, usize, Strategy)> = vec![
            (
                "stdin or a pipe",
                facts(Sha256, Plain, None),
                4,
                Strategy::Stream(Advice::AfterFirstRead),
            ),
            (
                "small file",
                facts(Sha256, Plain, Some(4096)),
                4,
                Strategy::Stream(Advice::Never),
            ),
            (
                "2 MiB file",
                facts(Sha256, Plain, Some(2 * MIB)),
                4,
                Strategy::Stream(Advice::Now),
            ),
            (
                "1 GiB sha256: timed",
                facts(Sha256, Plain, Some(GIB)),
                4,
                if map_guard {
                    Strategy::Trial { size: GIB }
                } else {
                    Strategy::Stream(Advice::Now)
                },
            ),
            (
                "1 GiB blake3, 4 threads: tree from a map",
                facts(Blake3, Tree, Some(GIB)),
                4,
                if map_guard {
                    Strategy::Map {
                        size: GIB,
                        tree: true,
                    }
                } else {
                    Strategy::Stream(Advice::Now)
                },
            ),
            (
                "1 GiB xxh3, 2 threads: two readers",
                facts(Xxh3, Plain, Some(GIB)),
                2,
                Strategy::Paired { size: GIB },
            ),
            (
                "1 GiB xxh3, 1 thread: timed",
                facts(Xxh3, Plain, Some(GIB)),
                1,
                if map_guard {
                    Strategy::Trial { size: GIB }
                } else {
                    Strategy::Stream(Advice::Now)
                },
            ),
            (
                "1 GiB crc32c, 2 threads: split",
                facts(Crc32c, Combine, Some(GIB)),
                2,
                Strategy::Split {
                    size: GIB,
                    threads: 2,
                },
            ),
            (
                "1 GiB crc32c, 1 thread",
                facts(Crc32c, Combine, Some(GIB)),
                1,
                Strategy::Stream(Advice::Now),
            ),
        ];
        for (what, f, n, want) in cases {
            assert_eq!(plan(&f, &threads(n)), want, "{what}");
        }
    }

    #[test]
    fn gnu_sum_semantics_never_split_or_time() {
        let mut f = facts(AlgoKind::Crc, Shape::Combine, Some(GIB));
        f.read_errors_end_input = true;
        assert_eq!(plan(&f, &threads(4)), Strategy::Stream(Advice::Now));
        assert!(!f.may_trial());
    }

    #[test]
    fn io_read_never_maps_and_io_mmap_maps_small_files() {
        let mut f = facts(AlgoKind::Sha256, Shape::Plain, Some(GIB));
        f.mode = IoMode::Read;
        assert_eq!(plan(&f, &threads(4)), Strategy::Stream(Advice::Now));
        f.mode = IoMode::Mmap;
        f.size = Some(4096);
        let want = if crate::os::map_guard::supported() {
            Strategy::Map {
                size: 4096,
                tree: false,
            }
        } else {
            Strategy::Stream(Advice::Never)
        };
        assert_eq!(plan(&f, &threads(4)), want);
    }

    #[test]
    fn several_digests_are_never_tree_hashed_or_paired() {
        let mut f = facts(AlgoKind::Xxh3, Shape::Multi, Some(GIB));
        f.digests = 2;
        assert_eq!(plan(&f, &threads(4)), Strategy::Stream(Advice::Now));
    }

    #[test]
    fn a_tree_pool_that_cannot_start_falls_back() {
        let f = facts(AlgoKind::Blake3, Shape::Tree, Some(GIB));
        let t = Fake {
            n: 4,
            pool: false,
            asked: Cell::new(0),
        };
        assert!(!matches!(plan(&f, &t), Strategy::Map { tree: true, .. }));
    }

    #[test]
    fn small_files_never_count_threads() {
        let t = threads(4);
        for size in [None, Some(0), Some(4096), Some(2 * MIB)] {
            plan(&facts(AlgoKind::Sha256, Shape::Plain, size), &t);
        }
        assert_eq!(t.asked.get(), 0);
    }

    #[test]
    fn the_size_is_asked_for_only_where_it_matters() {
        let mut f = facts(AlgoKind::Md5, Shape::Plain, None);
        f.threaded = false;
        f.calibrating = false;
        assert!(!f.wants_size());
        f.threaded = true;
        assert!(f.wants_size());
    }

    #[test]
    fn methods_read_as_before() {
        let all = [
            Method::Read,
            Method::ReadPaired,
            Method::ReadSplit,
            Method::Mmap,
            Method::MmapThenRead,
        ];
        let words: Vec<String> = all.iter().map(ToString::to_string).collect();
        assert_eq!(
            words,
            ["read", "read (2 threads)", "read (split)", "mmap", "mmap+read"]
        );
    }
}
