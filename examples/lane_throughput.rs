//! Per-core throughput of each lane kernel in memory, against the
//! single-stream backend of the same algorithm, on one thread:
//! `cargo run --release --example lane_throughput [SECONDS]`.
//!
//! For each kernel and message size, L messages (L = its lane count) are
//! hashed side by side, over and over, for SECONDS (default 1) each.

use mhash::algo::Algorithm;
use mhash::algo::lanes::lane_kernels;

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    println!("| kernel | lanes | message | lanes MB/s | single-stream MB/s | gain |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for k in lane_kernels() {
        let algo = Algorithm::new(k.kind);
        for len in [4096usize, 64 * 1024, 1 << 20] {
            let Some(bps) = k.throughput(len, secs) else {
                println!(
                    "| {} {} | {} | {len} | (not on this CPU) | | |",
                    k.kind.name(),
                    k.name,
                    k.lanes
                );
                continue;
            };
            let data: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
            let start = std::time::Instant::now();
            let mut n = 0u64;
            while start.elapsed().as_secs_f64() < secs {
                std::hint::black_box(algo.digest(std::hint::black_box(&data)));
                n += len as u64;
            }
            let single = n as f64 / start.elapsed().as_secs_f64();
            println!(
                "| {} {} | {} | {} | {:.0} | {:.0} ({}) | {:.2}x |",
                k.kind.name(),
                k.name,
                k.lanes,
                len,
                bps / 1e6,
                single / 1e6,
                algo.backend().name(),
                bps / single
            );
        }
    }
}
