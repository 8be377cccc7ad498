//! `mhash -a ALGO [FLAGS] FILES > NAME; mhash -c NAME` verifies, for every
//! algorithm that has a checkable line (all but the legacy CRC and `sum`
//! checksums, whose `CHECKSUM SIZE NAME` lines GNU cannot check either),
//! every output flag, and whatever the checksum file is called (a
//! verifier must read its own output). A name that names another
//! algorithm over untagged lines is the one exception: the name decides,
//! and the list fails, never verifies by the digests' length.

use crate::util::{self, mhash};
use mhash::algo::AlgoKind;
use proptest::prelude::*;
use std::fs;

/// Checksum-file names: none, a misleading one, ones naming an algorithm.
const NAMES: [&str; 6] = [
    "sums",
    "checksums.txt",
    "CHECKSUMS",
    "MD5SUMS",
    "x.sha256",
    "B2SUMS",
];

fn checkable() -> Vec<AlgoKind> {
    AlgoKind::ALL.into_iter().filter(|k| !k.is_legacy()).collect()
}

proptest! {
    // A quarter of the draws under an emulator (scripts/aarch64-test.sh).
    #![proptest_config(ProptestConfig {
        cases: if util::emulator().is_some() { 16 } else { 64 },
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_algorithm_and_flag_reads_back(
        algo in any::<prop::sample::Index>(),
        second in proptest::option::of(any::<prop::sample::Index>()),
        tag in any::<bool>(),
        base64 in any::<bool>(),
        length in proptest::option::of(1u32..64),
        name in 0usize..NAMES.len(),
        sizes in proptest::collection::vec(0usize..5000, 1..4),
        seed in any::<u64>(),
    ) {
        let kinds = checkable();
        let kind = *algo.get(&kinds);
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut args: Vec<String> = Vec::new();
        let mut list = kind.name().to_string();
        if let Some(s) = second.map(|s| *s.get(&kinds)).filter(|&s| s != kind) {
            list = format!("{list},{}", s.name());
        } else if let Some(bytes) = length.filter(|_| kind.variable_length()) {
            args.extend(["-l".to_string(), (bytes * 8).to_string()]);
        }
        args.extend(["-a".to_string(), list.clone()]);
        if tag {
            args.push("--tag".into());
        }
        if base64 {
            args.push("--base64".into());
        }
        for (i, &n) in sizes.iter().enumerate() {
            let f = format!("f{i}");
            fs::write(d.join(&f), util::noise(n, seed ^ i as u64)).unwrap();
            args.push(f);
        }
        let out = mhash(d).args(&args).output().unwrap();
        prop_assert!(out.status.success(), "mhash {args:?}: {out:?}");
        fs::write(d.join(NAMES[name]), &out.stdout).unwrap();
        let check = mhash(d).args(["-c", NAMES[name]]).output().unwrap();
        let text = String::from_utf8_lossy(&check.stdout);
        // A tagged line: the tag, then ` (` or a length (`BLAKE2b-8 (`).
        let tagged = kind.tag().is_some_and(|t| {
            out.stdout.starts_with(t.as_bytes()) && matches!(out.stdout.get(t.len()), Some(b' ' | b'-'))
        }) || kind.info().hex_prefix.is_some_and(|p| out.stdout.starts_with(p.as_bytes()));
        let named = mhash::check::algorithm_from_file_name(NAMES[name].as_bytes());
        if !tagged && named.is_some_and(|a| a.kind != kind) {
            prop_assert!(
                !check.status.success() && !text.contains(": OK"),
                "mhash {args:?} > {}; mhash -c {} verified:\n{text}",
                NAMES[name],
                NAMES[name],
            );
            return Ok(());
        }
        prop_assert!(
            check.status.success() && !text.contains("FAILED"),
            "mhash {args:?} > {}; mhash -c {}:\n{}\n{text}{}",
            NAMES[name],
            NAMES[name],
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&check.stderr)
        );
    }
}
