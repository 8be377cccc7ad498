//! Known-answer tests of the multi-buffer (lane) kernels against the
//! single-stream implementation of the same algorithm: every message
//! length 0..=1,100 bytes, and lane mixes where messages end in different
//! blocks, lanes are refilled mid-run, and one lane runs on alone (the
//! single-stream hand-over).
//!
//! A kernel this CPU cannot run prints a loud SKIP line and passes.

use mhash::algo::lanes::{LaneKernelInfo, MAX_LANES, lane_kernels};
use mhash::algo::{AlgoKind, Algorithm};

use crate::util;

/// Deterministic message bytes: lane-dependent, so that lanes mixed up
/// would show.
fn message(seed: usize, len: usize) -> Vec<u8> {
    let mut x = (seed as u32).wrapping_mul(0x9E37_79B9) ^ 0x1234_5678;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

/// The algorithms each kernel serves.
fn algos(k: &LaneKernelInfo) -> Vec<Algorithm> {
    match k.kind {
        AlgoKind::Sha256 => vec![Algorithm::new(AlgoKind::Sha256), Algorithm::new(AlgoKind::Sha224)],
        kind => vec![Algorithm::new(kind)],
    }
}

/// The kernels this CPU can run (printing SKIP for the others).
fn runnable() -> Vec<&'static LaneKernelInfo> {
    let mut v = Vec::new();
    for k in lane_kernels() {
        if k.start(Algorithm::new(k.kind)).is_some() {
            v.push(k);
        } else {
            util::skip(
                &format!("lanes: lane kernel {} x{}", k.name, k.lanes),
                "this CPU cannot run it",
            );
        }
    }
    v
}

fn check(k: &'static LaneKernelInfo, algo: Algorithm, msgs: &[Vec<u8>], what: &str) {
    let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
    let got = k.digest_all(algo, &refs).expect("kernel runs here");
    assert_eq!(got.len(), msgs.len());
    for (i, m) in msgs.iter().enumerate() {
        assert_eq!(
            hex::encode(&got[i]),
            hex::encode(algo.digest(m)),
            "{} x{} {:?}: {what}: message {i} of {} bytes",
            k.name,
            k.lanes,
            algo.kind,
            m.len()
        );
    }
}

#[test]
fn every_length_up_to_1100_in_every_lane() {
    for k in runnable() {
        for algo in algos(k) {
            // The same length in every lane (lanes in lock step).
            for len in 0..=1100 {
                let msgs: Vec<Vec<u8>> = (0..k.lanes).map(|j| message(len * 16 + j, len)).collect();
                check(k, algo, &msgs, "equal lengths");
            }
            // Every length once, in order: neighbours end in different
            // blocks, and every lane is refilled many times.
            let msgs: Vec<Vec<u8>> = (0..=1100).map(|len| message(len, len)).collect();
            check(k, algo, &msgs, "lengths 0..=1100 in turn");
            // The same, longest first.
            let rev: Vec<Vec<u8>> = msgs.into_iter().rev().collect();
            check(k, algo, &rev, "lengths 1100..=0 in turn");
        }
    }
}

#[test]
fn lane_mixes_end_in_different_blocks() {
    // Lengths around the padding boundaries (55/56 bytes left in a block),
    // empty messages, and large ones that outlive many small ones.
    let mixes: [&[usize]; 6] = [
        &[0, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129],
        &[200_000, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17],
        &[0, 0, 0, 0, 0, 0, 0, 0, 0, 100_000],
        &[
            70_000, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, 333, 70_001,
        ],
        &[1_000_003],
        &[
            64 * 1024,
            64 * 1024 + 1,
            64 * 1024 - 1,
            3,
            64 * 1024 + 55,
            64 * 1024 + 56,
        ],
    ];
    for k in runnable() {
        for algo in algos(k) {
            for (m, lens) in mixes.iter().enumerate() {
                let msgs: Vec<Vec<u8>> = lens
                    .iter()
                    .enumerate()
                    .map(|(i, &l)| message(m * 100 + i, l))
                    .collect();
                check(k, algo, &msgs, &format!("mix {m} {lens:?}"));
            }
            // A pseudo-random mix of many sizes.
            let mut x = 12345u64;
            let msgs: Vec<Vec<u8>> = (0..300)
                .map(|i| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let len = match (x >> 60) % 4 {
                        0 => (x >> 20) as usize % 64,
                        1 => (x >> 20) as usize % 1024,
                        2 => (x >> 20) as usize % 20_000,
                        _ => (x >> 20) as usize % 200,
                    };
                    message(i, len)
                })
                .collect();
            check(k, algo, &msgs, "random mix");
        }
    }
}

#[test]
fn kernels_are_listed_and_measurable() {
    for k in lane_kernels() {
        assert!(k.lanes >= 2 && k.lanes <= MAX_LANES, "{k:?}");
        if k.start(Algorithm::new(k.kind)).is_some() {
            let bps = k.throughput(4096, 0.01).expect("runs here");
            assert!(bps > 0.0);
        }
    }
}

/// Per-core throughput of each lane kernel in memory, against the
/// single-stream backend (`cargo test --release --test tests -- --ignored
/// lanes::print_kernel_throughput --nocapture`).
#[test]
#[ignore]
fn print_kernel_throughput() {
    for k in runnable() {
        for len in [4096usize, 64 * 1024, 1 << 20] {
            let bps = k.throughput(len, 1.0).expect("runs here");
            let algo = Algorithm::new(k.kind);
            let data = message(1, len);
            let start = std::time::Instant::now();
            let mut n = 0u64;
            while start.elapsed().as_secs_f64() < 1.0 {
                std::hint::black_box(algo.digest(std::hint::black_box(&data)));
                n += len as u64;
            }
            let single = n as f64 / start.elapsed().as_secs_f64();
            println!(
                "{:<6} {:<10} x{} {:>8} B messages: {:>7.0} MB/s ({:.2}x the single-stream {} at {:.0} MB/s)",
                k.kind.name(),
                k.name,
                k.lanes,
                len,
                bps / 1e6,
                bps / single,
                algo.backend().name(),
                single / 1e6
            );
        }
    }
}
