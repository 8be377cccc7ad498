//! Kernel throughput per algorithm on in-memory buffers (criterion).
//!
//! `cargo bench --bench throughput` reports MB/s (10^6 B/s) for every
//! algorithm on every backend this CPU can run (SHA-NI, AVX2, PCLMULQDQ,
//! tuned scalar, portable, ...) at 64 B, 4 KiB and 1 MiB messages; the
//! benchmark id is `ALGO/BACKEND/SIZE`. Whole-process comparisons against
//! GNU and OpenSSL live in `scripts/bench-compare` (same machine, same run,
//! median of several).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mhash::algo::{AlgoKind, Algorithm};
use std::hint::black_box;

fn kernels(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernel");
    for size in [64usize, 4 * 1024, 1024 * 1024] {
        let data: Vec<u8> = (0..size).map(|i| (i * 31 % 251) as u8).collect();
        group.throughput(Throughput::Bytes(size as u64));
        for kind in AlgoKind::ALL {
            let algo = Algorithm::new(kind);
            for backend in algo.backends().iter().filter(|b| b.is_available()) {
                let id = BenchmarkId::new(format!("{}/{}", kind.name(), backend.name()), size);
                group.bench_with_input(id, &data, |b, d| {
                    b.iter(|| {
                        let mut h = backend.hasher(algo);
                        h.update(black_box(d));
                        black_box(h.finalize())
                    })
                });
            }
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
