//! How long a calibration takes here (issue 17 part 1's threshold): for
//! every algorithm with more than one usable backend, the wall time of
//! `Algorithm::prepare_for(1 GiB)` (the first, measuring call) in µs,
//! and what it chose. `cargo run --release --example calibration_cost`.

use mhash::algo::{AlgoKind, Algorithm};
use std::time::Instant;

fn main() {
    println!("{:<10} {:>10} {:>12}  choice", "algorithm", "cost µs", "1% at MB");
    for kind in AlgoKind::report_order() {
        let a = Algorithm::new(kind);
        if a.backends().iter().filter(|b| b.is_available()).count() < 2 {
            continue;
        }
        let t = Instant::now();
        a.prepare_for(1 << 30);
        let cost = t.elapsed().as_secs_f64();
        let c = a.choice();
        // The first candidate's measured speed, MB/s, if measured.
        let first = match &c.by {
            mhash::algo::ChosenBy::Measured(v) => v.first().map_or(0.0, |x| x.1),
            _ => 0.0,
        };
        // The input for which this cost is 1% of hashing at that speed.
        let at = cost * 100.0 * first;
        println!(
            "{:<10} {:>10.0} {:>12.0}  {} by {}",
            kind.name(),
            cost * 1e6,
            at,
            c.backend.name(),
            c.by.describe()
        );
    }
}
