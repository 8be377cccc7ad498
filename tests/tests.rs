//! mhash's integration tests: one test binary (`cargo test --test tests`),
//! one module per concern, all built on the shared harness in `util`.
//!
//! Filter by module, e.g. `cargo test --test tests -- reliability::`;
//! the `#[ignore]`d slow cases: `cargo test --test tests -- --ignored
//! reliability::slow_`.
//!
//! On Windows (under Wine, `scripts/windows-test.sh`) the tests that need
//! GNU's tools, a shell, symlinks or FIFOs are `#[cfg(unix)]`, which leaves
//! some of their helpers unused there.
#![cfg_attr(windows, allow(dead_code, unused_imports))]

#[macro_use]
mod util;

mod audit;
mod beyond_gnu;
mod calibration;
mod docs_text;
mod everyday;
mod faults;
mod gnu_compat;
mod gnu_fixtures;
mod guidance;
mod inprocess;
mod lanes;
mod lanes_cli;
mod layouts;
mod link_release;
mod native;
mod packaging;
mod parallel;
mod plain_clone;
mod proptest_escape;
mod proptest_gnu;
mod published;
mod reliability;
mod roundtrip;
mod s3_report;
mod shard;
mod shasum;
// `--key` needs the `signatures` feature (on by default).
#[cfg(feature = "signatures")]
mod signatures;
mod state;
// Sigstore bundles: most cases need the `sigstore` feature (off by default).
mod sigstore;
mod stores;
mod trees;
mod vectors;
mod words;
// Windows only (run under Wine by scripts/windows-test.sh).
mod windows;
