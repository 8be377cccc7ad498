//! Multi-buffer hashing: several independent messages of one algorithm
//! hashed side by side, one per lane of a SIMD register (MD5 x8 on
//! AVX-512VL or AVX2, x4 on SSE2 or NEON; SHA-256 x8 on AVX2) or in
//! interleaved instruction streams (SHA-256 x4 or x2 on SHA-NI or ARMv8
//! SHA2), past the speed limit of one message's dependency chain.
//!
//! A [`LaneKernel`] only compresses whole 64-byte blocks, the same number
//! in every lane. [`Lanes`] is the I/O-free scheduler on top: it keeps up
//! to L messages in flight, pads each one in its lane when its input ends
//! (RFC 1321 §3.1-3.2, FIPS 180-4 §5.1), hands back its digest, and lets
//! the caller start the next message in that lane at once. While only one
//! lane is busy it runs the single-stream kernel instead (no work wasted
//! on idle lanes). The I/O layer (`crate::io::lanes`) feeds it from files;
//! [`LaneKernelInfo::digest_all`] from memory (tests, benchmarks).

#[cfg(target_arch = "x86_64")]
use super::cpu::Feature;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use super::kernels;
use super::{AlgoKind, Algorithm};

/// Most lanes any kernel has.
pub const MAX_LANES: usize = 16;

/// The block function of an L-lane kernel over its own L states.
pub trait LaneKernel: Send {
    /// The number of lanes L.
    fn lanes(&self) -> usize;
    /// Puts lane `lane` back to the algorithm's initial state.
    fn reset(&mut self, lane: usize);
    /// Compresses `blocks[i]` into lane `i`'s state for every lane:
    /// `blocks.len()` is L, and every slice has the same length, a
    /// multiple of 64 bytes.
    ///
    /// # Panics
    /// When the slices break that rule.
    fn compress(&mut self, blocks: &[&[u8]]);
    /// Compresses `blocks` (a multiple of 64 bytes) into lane `lane`'s
    /// state with the single-stream kernel.
    fn compress_one(&mut self, lane: usize, blocks: &[u8]);
    /// The digest held in lane `lane` (after its padding was compressed).
    fn digest(&self, lane: usize) -> Vec<u8>;
}

/// One lane kernel: its name as reports print it, the algorithms it
/// serves, its lane count, when it can run, and how to start it.
pub struct LaneKernelInfo {
    /// Short name, e.g. `avx2-x8`, `sha-ni-x2`.
    pub name: &'static str,
    /// Where the code comes from (`mhash`).
    pub source: &'static str,
    /// The algorithm family it serves (MD5; SHA-256, which also serves SHA-224).
    pub kind: AlgoKind,
    /// The number of messages hashed side by side.
    pub lanes: usize,
    /// MD5 writes the message length little-endian, SHA-2 big-endian.
    len_little_endian: bool,
    available: fn() -> bool,
    make: fn(Algorithm) -> Option<Box<dyn LaneKernel>>,
}

impl std::fmt::Debug for LaneKernelInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} x{} ({})", self.name, self.lanes, self.source)
    }
}

impl LaneKernelInfo {
    /// True when this CPU has what the kernel needs and the environment
    /// (`MHASH_BACKEND=portable`, `GLIBC_TUNABLES`) has not turned it off.
    pub fn is_available(&self) -> bool {
        (self.available)()
    }

    /// True when the kernel computes `algo`.
    pub fn serves(&self, algo: Algorithm) -> bool {
        algo.kind == self.kind || (self.kind == AlgoKind::Sha256 && algo.kind == AlgoKind::Sha224)
    }

    /// A lane scheduler for `algo` on this kernel, or `None` where the CPU
    /// lacks the kernel's features or the kernel does not compute `algo`
    /// (the environment is not consulted: see [`Self::is_available`]).
    pub fn start(&'static self, algo: Algorithm) -> Option<Lanes> {
        if !self.serves(algo) {
            return None;
        }
        let kernel = (self.make)(algo)?;
        Some(Lanes::new(self, kernel))
    }

    /// Hashes every message of `messages` with `algo`, the kernel's lanes
    /// refilled with the next message as each one ends; the digests in the
    /// order of `messages` (`None` where the kernel cannot run here).
    pub fn digest_all(&'static self, algo: Algorithm, messages: &[&[u8]]) -> Option<Vec<Vec<u8>>> {
        let mut lanes = self.start(algo)?;
        let l = lanes.lanes();
        let mut out = vec![Vec::new(); messages.len()];
        // Per lane: (message index, bytes of it consumed).
        let mut busy: [Option<(usize, usize)>; MAX_LANES] = [None; MAX_LANES];
        let mut next = 0;
        let mut done = Vec::new();
        loop {
            for (lane, slot) in busy.iter_mut().enumerate().take(l) {
                if slot.is_none() && next < messages.len() {
                    lanes.start_message(lane);
                    *slot = Some((next, 0));
                    next += 1;
                }
            }
            if busy.iter().all(Option::is_none) {
                return Some(out);
            }
            let mut input = [LaneInput::IDLE; MAX_LANES];
            for lane in 0..l {
                if let Some((m, pos)) = busy[lane] {
                    input[lane] = LaneInput {
                        data: &messages[m][pos..],
                        end: true,
                    };
                }
            }
            let mut used = [0usize; MAX_LANES];
            lanes.step(&input[..l], &mut used, &mut done);
            for lane in 0..l {
                if let Some((_, pos)) = &mut busy[lane] {
                    *pos += used[lane];
                }
            }
            for (lane, digest) in done.drain(..) {
                let (m, _) = busy[lane].take().expect("a finished lane was busy");
                out[m] = digest;
            }
        }
    }

    /// Bytes per second of this kernel on this CPU: `lanes` messages of
    /// `len` bytes each hashed side by side, repeated for about `seconds`
    /// (for `mhash bench`); `None` where the kernel cannot run here.
    pub fn throughput(&'static self, len: usize, seconds: f64) -> Option<f64> {
        let data = trial_data(len * self.lanes);
        self.throughput_on(&data, len, seconds)
    }

    /// [`Self::throughput`] over messages cut from `data` (one of `len`
    /// bytes per lane; `data` holds at least `lanes * len` bytes), so
    /// that several kernels can be timed on one buffer made once.
    fn throughput_on(&'static self, data: &[u8], len: usize, seconds: f64) -> Option<f64> {
        let algo = Algorithm::new(self.kind);
        let msgs: Vec<&[u8]> = data.chunks_exact(len).take(self.lanes).collect();
        let start = std::time::Instant::now();
        let mut bytes = 0u64;
        loop {
            std::hint::black_box(self.digest_all(algo, std::hint::black_box(&msgs))?);
            bytes += (len * self.lanes) as u64;
            let t = start.elapsed().as_secs_f64();
            if t >= seconds {
                return Some(bytes as f64 / t);
            }
        }
    }
}

/// What one lane has to offer in a [`Lanes::step`].
#[derive(Clone, Copy, Debug)]
pub struct LaneInput<'a> {
    /// The message bytes available now (ignored for an idle lane).
    pub data: &'a [u8],
    /// True when `data` runs to the end of the message; if false, `data`
    /// must hold at least one 64-byte block.
    pub end: bool,
}

impl LaneInput<'_> {
    /// Nothing: the input of an idle lane.
    pub const IDLE: LaneInput<'static> = LaneInput {
        data: &[],
        end: false,
    };
}

/// One lane's message: its length so far and, once its input has ended,
/// its last (padded) one or two blocks.
#[derive(Clone, Copy)]
struct Slot {
    busy: bool,
    len: u64,
    /// The padded tail and how much of it is compressed; `tail_len` 0
    /// until the input has ended.
    tail: [u8; 128],
    tail_len: usize,
    tail_pos: usize,
}

const FREE: Slot = Slot {
    busy: false,
    len: 0,
    tail: [0; 128],
    tail_len: 0,
    tail_pos: 0,
};

/// The lane scheduler over one kernel: see the module documentation.
pub struct Lanes {
    info: &'static LaneKernelInfo,
    kernel: Box<dyn LaneKernel>,
    slots: [Slot; MAX_LANES],
}

impl Lanes {
    fn new(info: &'static LaneKernelInfo, kernel: Box<dyn LaneKernel>) -> Lanes {
        Lanes {
            info,
            kernel,
            slots: [FREE; MAX_LANES],
        }
    }

    /// The kernel this runs.
    pub fn info(&self) -> &'static LaneKernelInfo {
        self.info
    }

    /// The number of lanes.
    pub fn lanes(&self) -> usize {
        self.info.lanes
    }

    /// True while lane `lane` holds an unfinished message.
    pub fn is_busy(&self, lane: usize) -> bool {
        self.slots[lane].busy
    }

    /// Starts a new message in the idle lane `lane`.
    pub fn start_message(&mut self, lane: usize) {
        self.kernel.reset(lane);
        self.slots[lane] = Slot { busy: true, ..FREE };
    }

    /// Drops lane `lane`'s message unfinished (its input failed).
    pub fn abandon(&mut self, lane: usize) {
        self.slots[lane].busy = false;
    }

    /// Compresses as many whole blocks as every busy lane has (at least
    /// one), in all lanes at once, or in the one busy lane with the
    /// single-stream kernel. `input` has one entry per lane. `used[i]` is
    /// set to the bytes of `input[i].data` consumed; each message that
    /// ended is pushed to `done` as (lane, digest), its lane idle again.
    ///
    /// # Panics
    /// When a busy lane's input has not ended and holds less than a block.
    pub fn step(&mut self, input: &[LaneInput<'_>], used: &mut [usize], done: &mut Vec<(usize, Vec<u8>)>) {
        let l = self.lanes();
        assert_eq!(input.len(), l, "one input per lane");
        used[..l].fill(0);
        // Each busy lane's source this step: whole blocks of its data, or
        // its padded tail once the data left is under a block and ends.
        let mut from_tail = [false; MAX_LANES];
        let mut blocks = [0usize; MAX_LANES];
        for lane in 0..l {
            let s = &mut self.slots[lane];
            if !s.busy {
                continue;
            }
            if s.tail_len > 0 {
                from_tail[lane] = true;
                blocks[lane] = (s.tail_len - s.tail_pos) / 64;
                continue;
            }
            let d = input[lane];
            if d.data.len() >= 64 {
                blocks[lane] = d.data.len() / 64;
                continue;
            }
            assert!(d.end, "lane {lane}: less than a block and no end");
            pad(s, d.data, self.info.len_little_endian);
            used[lane] = d.data.len();
            from_tail[lane] = true;
            blocks[lane] = s.tail_len / 64;
        }
        let mut busy = [0usize; MAX_LANES];
        let mut nbusy = 0;
        for lane in 0..l {
            if self.slots[lane].busy {
                busy[nbusy] = lane;
                nbusy += 1;
            }
        }
        let busy = &busy[..nbusy];
        let Some(&first) = busy.first() else {
            return;
        };
        let n;
        if busy.len() == 1 {
            n = blocks[first];
            let data = source(&self.slots[first], &input[first], from_tail[first], n);
            self.kernel.compress_one(first, data);
        } else {
            n = busy.iter().map(|&i| blocks[i]).min().expect("busy lanes");
            let mut ptrs: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
            for (lane, p) in ptrs.iter_mut().enumerate().take(l) {
                // An idle lane hashes a busy lane's blocks (wasted work,
                // discarded when the lane is reset).
                let from = if self.slots[lane].busy { lane } else { first };
                *p = source(&self.slots[from], &input[from], from_tail[from], n);
            }
            self.kernel.compress(&ptrs[..l]);
        }
        for &lane in busy {
            let s = &mut self.slots[lane];
            if from_tail[lane] {
                s.tail_pos += n * 64;
                if s.tail_pos == s.tail_len {
                    s.busy = false;
                    done.push((lane, self.kernel.digest(lane)));
                }
            } else {
                used[lane] = n * 64;
                s.len += (n * 64) as u64;
            }
        }
    }
}

/// The first `n` blocks of a lane's source: its padded tail or its data.
fn source<'a>(slot: &'a Slot, input: &LaneInput<'a>, from_tail: bool, n: usize) -> &'a [u8] {
    if from_tail {
        &slot.tail[slot.tail_pos..slot.tail_pos + n * 64]
    } else {
        &input.data[..n * 64]
    }
}

/// Builds lane `s`'s padded tail from the last `rest` bytes (under a block)
/// of its message: 0x80, zeros, the length in bits in 8 bytes.
fn pad(s: &mut Slot, rest: &[u8], little_endian: bool) {
    let len = s.len + rest.len() as u64;
    s.len = len;
    s.tail = [0; 128];
    s.tail[..rest.len()].copy_from_slice(rest);
    s.tail[rest.len()] = 0x80;
    let total = if rest.len() + 1 + 8 <= 64 { 64 } else { 128 };
    let bits = len.wrapping_mul(8);
    s.tail[total - 8..total].copy_from_slice(&if little_endian {
        bits.to_le_bytes()
    } else {
        bits.to_be_bytes()
    });
    s.tail_len = total;
    s.tail_pos = 0;
}

#[cfg(target_arch = "x86_64")]
static KERNELS: [LaneKernelInfo; 8] = [
    LaneKernelInfo {
        name: "avx512-x16",
        source: "mhash",
        kind: AlgoKind::Md5,
        lanes: 16,
        len_little_endian: true,
        available: || Feature::Avx512Vl.enabled(),
        make: |_| kernels::md5_x16::Md5x16::new().map(|k| Box::new(k) as Box<dyn LaneKernel>),
    },
    LaneKernelInfo {
        name: "avx512vl-x8",
        source: "mhash",
        kind: AlgoKind::Md5,
        lanes: 8,
        len_little_endian: true,
        available: || Feature::Avx512Vl.enabled(),
        make: |_| kernels::md5_x8::Md5x8::new(true).map(|k| Box::new(k) as Box<dyn LaneKernel>),
    },
    LaneKernelInfo {
        name: "avx2-x8",
        source: "mhash",
        kind: AlgoKind::Md5,
        lanes: 8,
        len_little_endian: true,
        available: || Feature::Avx2.enabled(),
        make: |_| kernels::md5_x8::Md5x8::new(false).map(|k| Box::new(k) as Box<dyn LaneKernel>),
    },
    LaneKernelInfo {
        name: "sse2-x4",
        source: "mhash",
        kind: AlgoKind::Md5,
        lanes: 4,
        len_little_endian: true,
        // SSE2 is part of x86-64: off only with MHASH_BACKEND=portable.
        available: || !super::cpu::force_portable(),
        make: |_| Some(Box::new(kernels::md5_x4_sse2::Md5x4::new()) as Box<dyn LaneKernel>),
    },
    LaneKernelInfo {
        name: "sha-ni-x4",
        source: "mhash",
        kind: AlgoKind::Sha256,
        lanes: 4,
        len_little_endian: false,
        available: || Feature::ShaNi.enabled(),
        make: |a| {
            kernels::sha256_xn_shani::Sha256xN::<4>::new(a.kind == AlgoKind::Sha224)
                .map(|k| Box::new(k) as Box<dyn LaneKernel>)
        },
    },
    LaneKernelInfo {
        name: "sha-ni-x2",
        source: "mhash",
        kind: AlgoKind::Sha256,
        lanes: 2,
        len_little_endian: false,
        available: || Feature::ShaNi.enabled(),
        make: |a| {
            kernels::sha256_xn_shani::Sha256xN::<2>::new(a.kind == AlgoKind::Sha224)
                .map(|k| Box::new(k) as Box<dyn LaneKernel>)
        },
    },
    // After the SHA-NI kernels: on the Intel Xeon VM of 2026-12-04 it hashed
    // 16 x 4 KiB at 3,153 MB/s against sha-ni-x4's 2,004 (`mhash bench -a
    // sha256 --bytes 4K`), but on AMD Zen 4, whose AVX-512 units are half
    // width, SHA-NI x4 ran 3,197 MB/s where AVX2 x8 ran 1,581 (2026-11-30):
    // which wins is the core's: in table order it serves CPUs with AVX-512
    // and no SHA-NI (Skylake-SP to Cascade Lake), ahead of avx2-x8; a run
    // of 4,096 files or more times the kernels and takes the fastest
    // (`choose_by_measurement`).
    LaneKernelInfo {
        name: "avx512-x16",
        source: "mhash",
        kind: AlgoKind::Sha256,
        lanes: 16,
        len_little_endian: false,
        available: || Feature::Avx512Vl.enabled(),
        make: |a| {
            kernels::sha256_x16_avx512::Sha256x16::new(a.kind == AlgoKind::Sha224)
                .map(|k| Box::new(k) as Box<dyn LaneKernel>)
        },
    },
    LaneKernelInfo {
        name: "avx2-x8",
        source: "mhash",
        kind: AlgoKind::Sha256,
        lanes: 8,
        len_little_endian: false,
        available: || Feature::Avx2.enabled(),
        make: |a| {
            kernels::sha256_x8_avx2::Sha256x8::new(a.kind == AlgoKind::Sha224)
                .map(|k| Box::new(k) as Box<dyn LaneKernel>)
        },
    },
];

#[cfg(target_arch = "aarch64")]
static KERNELS: [LaneKernelInfo; 3] = [
    LaneKernelInfo {
        name: "neon-x4",
        source: "mhash",
        kind: AlgoKind::Md5,
        lanes: 4,
        len_little_endian: true,
        // NEON is part of ARMv8-A: off only with MHASH_BACKEND=portable.
        available: || !super::cpu::force_portable(),
        make: |_| Some(Box::new(kernels::md5_x4_neon::Md5x4Neon::new()) as Box<dyn LaneKernel>),
    },
    LaneKernelInfo {
        name: "armv8-sha2-x4",
        source: "mhash",
        kind: AlgoKind::Sha256,
        lanes: 4,
        len_little_endian: false,
        available: || super::cpu::Feature::ArmSha2.enabled(),
        make: |a| {
            kernels::sha256_xn_armv8::Sha256xNArm::<4>::new(a.kind == AlgoKind::Sha224)
                .map(|k| Box::new(k) as Box<dyn LaneKernel>)
        },
    },
    LaneKernelInfo {
        name: "armv8-sha2-x2",
        source: "mhash",
        kind: AlgoKind::Sha256,
        lanes: 2,
        len_little_endian: false,
        available: || super::cpu::Feature::ArmSha2.enabled(),
        make: |a| {
            kernels::sha256_xn_armv8::Sha256xNArm::<2>::new(a.kind == AlgoKind::Sha224)
                .map(|k| Box::new(k) as Box<dyn LaneKernel>)
        },
    },
];

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
static KERNELS: [LaneKernelInfo; 0] = [];

/// Every lane kernel mhash has for this architecture, whether or not this
/// CPU can run it (see [`LaneKernelInfo::is_available`]).
pub fn lane_kernels() -> &'static [LaneKernelInfo] {
    &KERNELS
}

/// The lane kernel that hashes `algo` here: the one [`choose_by_measurement`]
/// chose for it in this process, else the first available one that serves
/// it; `None` when there is none (or `MHASH_BACKEND=portable`).
pub fn lane_kernel(algo: Algorithm) -> Option<&'static LaneKernelInfo> {
    if let Some((kind, i, _)) = MEASURED.get()
        && *kind == algo.kind
    {
        return Some(&KERNELS[*i]);
    }
    KERNELS.iter().find(|k| k.serves(algo) && k.is_available())
}

/// [`lane_kernel`], once it has passed its self-test in this process (see
/// `lane_self_test`): what a run that is about to hash files in lanes
/// asks for. `None` when there is no kernel or it failed; the files are
/// then hashed one by one. Asked only where lanes are used, so that a run
/// of one file pays nothing for it (the test cost about 120,000
/// instructions, a third of `sha256sum /dev/null`'s, when every query ran
/// it).
pub fn verified_lane_kernel(algo: Algorithm) -> Option<&'static LaneKernelInfo> {
    let k = lane_kernel(algo)?;
    let i = KERNELS.iter().position(|x| std::ptr::eq(x, k))?;
    lane_self_test(i, algo).then_some(k)
}

/// Each lane kernel's self-test outcome in this process, by its index in
/// `KERNELS`.
static LANE_SELF_TESTED: [super::backends::Verdict; KERNELS.len()] =
    [const { super::backends::Verdict::untested() }; KERNELS.len()];

/// Whether `KERNELS[i]` computes, for `algo`, the digests `algo`'s
/// portable backend computes (itself checked against the official vectors
/// in tests/vectors.rs) of eight messages of 0 to 300 bytes: the lengths
/// at which padding spills into another block (55, 56, 64 and 119 bytes)
/// and more messages than most kernels have lanes, so that a lane is
/// refilled. Run once per kernel and process (a few microseconds); a
/// kernel that fails is never used and the files are hashed one by one
/// on the algorithm's backend.
fn lane_self_test(i: usize, algo: Algorithm) -> bool {
    LANE_SELF_TESTED[i].passes(|| lane_answers_match(&KERNELS[i], algo))
}

/// The comparison [`lane_self_test`] makes, for any kernel.
fn lane_answers_match(kernel: &'static LaneKernelInfo, algo: Algorithm) -> bool {
    let data = super::backends::self_test_message();
    let messages: Vec<&[u8]> = [0usize, 1, 55, 56, 64, 119, 300, 200]
        .iter()
        .enumerate()
        .map(|(n, &len)| &data[n..n + len.min(data.len() - n)])
        .collect();
    let Some(got) = kernel.digest_all(algo, &messages) else {
        return false;
    };
    let list = algo.backends();
    let portable = &list[list.len() - 1];
    got.len() == messages.len()
        && messages.iter().zip(&got).all(|(m, d)| {
            let mut h = portable.hasher(algo);
            h.update(m);
            h.finalize() == *d
        })
}

/// The lane kernel chosen by measurement in this process (one algorithm
/// per run): its algorithm, its index in the table, and every candidate's
/// speed in MB/s.
static MEASURED: std::sync::OnceLock<Measured> = std::sync::OnceLock::new();

/// A measured choice: the algorithm, the chosen kernel's index in the
/// table, each candidate's name and MB/s.
type Measured = (AlgoKind, usize, Vec<(&'static str, u64)>);

/// Where [`choose_by_measurement`] chose `algo`'s lane kernel in this
/// process: each candidate's name and speed in MB/s (10^6 B/s), the
/// table's first choice first (for `--debug`).
pub fn measured_choice(algo: Algorithm) -> Option<&'static [(&'static str, u64)]> {
    MEASURED
        .get()
        .filter(|(kind, _, _)| *kind == algo.kind)
        .map(|(_, _, figures)| figures.as_slice())
}

/// `n` bytes to hash in a timing: a fixed pattern that is not all one
/// value (what the bytes are does not change the kernels' speed).
fn trial_data(n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    for (i, chunk) in v.chunks_mut(8).enumerate() {
        let w = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes();
        chunk.copy_from_slice(&w[..chunk.len()]);
    }
    v
}

/// A challenger whose first figure is under this fraction of the fastest
/// first figure is not timed again ([`choose_by_measurement`]): 0.8. On
/// an AMD EPYC (Zen 4) the md5 kernels measured avx512-x16 6,142-7,057
/// MB/s, avx512vl-x8 4,940-5,196, avx2-x8 4,190-4,275 and sse2-x4
/// 2,306-2,330 (four runs): the last two were timed twice for nothing.
const RETIME_WITHIN: f64 = 0.8;

/// Messages of this many bytes are hashed to time a lane kernel (the
/// many-small-files case the kernels are for): 4 KiB.
const TRIAL_LEN: usize = 4096;

/// Times every available lane kernel for `algo` on messages of
/// 4 KiB (the many-small-files case), `budget` seconds in all (split between them, two
/// rounds), and
/// makes the fastest the one [`lane_kernel`] gives for the rest of the
/// process, if it beats the table's first choice by
/// [`super::calibrate::MARGIN`]. Returns each kernel's name and speed in
/// MB/s (10^6 B/s), the table's first choice first; empty where there is
/// at most one kernel to choose from, or a choice was already made.
///
/// Why measured: which kernel wins is the core's, not the instruction
/// set's. On a 2026-12-04 Intel Xeon VM, `avx512-x16` hashed 4 KiB
/// messages at 3,153 MB/s against `sha-ni-x4`'s 2,004; on a 2026-11-30
/// AMD EPYC (Zen 4, half-width AVX-512) `sha-ni-x4` ran 3,197 MB/s where
/// `avx2-x8` ran 1,581.
pub fn choose_by_measurement(algo: Algorithm, budget: f64) -> Vec<(&'static str, f64)> {
    let candidates: Vec<usize> = (0..KERNELS.len())
        .filter(|&i| KERNELS[i].serves(algo) && KERNELS[i].is_available())
        .collect();
    if candidates.len() < 2 || MEASURED.get().is_some() {
        return Vec::new();
    }
    // Two rounds, the better of each kernel's two kept: the first kernel
    // timed also pays for cold caches (sha-ni-x4 measured 1,499 MB/s as
    // the first of one round, 1,959-2,004 otherwise). The messages are
    // made once for every kernel: made per kernel and round they cost
    // about as much as the timing itself (a `mhash -a md5` run on 5,000
    // files spent 250-300 µs here for a budget of 150 µs).
    //
    // The second round times again only the table's first choice (the
    // one timed cold) and the challengers within [`RETIME_WITHIN`] of the
    // fastest: one further behind could not win on a second figure.
    let data = trial_data(TRIAL_LEN * MAX_LANES);
    let each = budget / (2 * candidates.len()) as f64;
    let mut speeds = vec![0.0f64; candidates.len()];
    for round in 0..2 {
        let best = speeds.iter().copied().fold(0.0, f64::max);
        for (k, (s, &i)) in speeds.iter_mut().zip(&candidates).enumerate() {
            if round == 1 && k > 0 && *s < best * RETIME_WITHIN {
                continue;
            }
            *s = s.max(KERNELS[i].throughput_on(&data, TRIAL_LEN, each).unwrap_or(0.0) / 1e6);
        }
    }
    let won = super::calibrate::decide(&speeds);
    let figures: Vec<(&'static str, f64)> = candidates
        .iter()
        .zip(speeds)
        .map(|(&i, s)| (KERNELS[i].name, s))
        .collect();
    let rounded = figures.iter().map(|&(n, s)| (n, s.round() as u64)).collect();
    let _ = MEASURED.set((algo.kind, candidates[won], rounded));
    figures
}

#[cfg(test)]
mod self_test_tests {
    use super::*;

    /// Every lane kernel this CPU can run gives the portable backend's
    /// digests for each algorithm it serves.
    #[test]
    fn every_available_lane_kernel_passes_its_self_test() {
        for k in KERNELS.iter().filter(|k| k.is_available()) {
            for kind in [AlgoKind::Md5, AlgoKind::Sha224, AlgoKind::Sha256] {
                let algo = Algorithm::new(kind);
                if k.serves(algo) {
                    assert!(lane_answers_match(k, algo), "{} for {kind:?}", k.name);
                }
            }
        }
    }
}
