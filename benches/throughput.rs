//! Kernel throughput per algorithm on in-memory buffers (criterion).
//!
//! `cargo bench --bench throughput` reports MB/s (10^6 B/s) for every
//! algorithm at 4 KiB and 1 MiB messages, on the backend the registry picks
//! for this CPU. Whole-process comparisons against GNU and OpenSSL live in
//! `scripts/bench-vs-gnu.sh` (same machine, same run, median of several).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mhash::algo::{AlgoKind, Algorithm};
use std::hint::black_box;

fn kernels(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernel");
    for size in [4 * 1024usize, 1024 * 1024] {
        let data: Vec<u8> = (0..size).map(|i| (i * 31 % 251) as u8).collect();
        group.throughput(Throughput::Bytes(size as u64));
        for kind in AlgoKind::ALL {
            let algo = Algorithm::new(kind);
            let id = BenchmarkId::new(format!("{}/{}", kind.name(), algo.backend().name()), size);
            group.bench_with_input(id, &data, |b, d| b.iter(|| black_box(algo.digest(black_box(d)))));
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(1)).warm_up_time(std::time::Duration::from_millis(300));
    targets = kernels
}
criterion_main!(benches);
