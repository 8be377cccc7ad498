//! Fuzzes the checksum-line parser (`mhash::check::parse::Parser`) under
//! every personality's expectations, line by line, as check mode feeds it.
//!
//! Input: byte 0 chooses the expectations, the rest is a checksum file.
//! Invariants: no panic; an accepted line's digest has the length of its
//! algorithm; an escaped name survives escape-then-unescape.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mhash::algo::{AlgoKind, Algorithm};
use mhash::check::parse::{Expect, Parser, TagRule};
use mhash::text::escape;

fn expect(sel: u8) -> Expect {
    let tagged: Vec<AlgoKind> = AlgoKind::ALL.into_iter().filter(|k| k.tag().is_some()).collect();
    let base64 = sel & 0x80 != 0;
    match sel % 6 {
        // sha256sum
        0 => Expect {
            tag_kinds: vec![AlgoKind::Sha256],
            tag_rule: TagRule::Strict,
            untagged: Some(Algorithm::new(AlgoKind::Sha256)),
            blake2b_auto_length: false,
            infer_by_length: false,
            base64,
            short_lines: false,
        },
        // md5sum
        1 => Expect {
            tag_kinds: vec![AlgoKind::Md5],
            tag_rule: TagRule::Strict,
            untagged: Some(Algorithm::new(AlgoKind::Md5)),
            blake2b_auto_length: false,
            infer_by_length: false,
            base64,
            short_lines: false,
        },
        // b2sum
        2 => Expect {
            tag_kinds: vec![AlgoKind::Blake2b],
            tag_rule: TagRule::AnyChar,
            untagged: Some(Algorithm::new(AlgoKind::Blake2b)),
            blake2b_auto_length: true,
            infer_by_length: false,
            base64,
            short_lines: true,
        },
        // cksum without -a
        3 => Expect {
            tag_kinds: tagged,
            tag_rule: TagRule::Blank,
            untagged: None,
            blake2b_auto_length: true,
            infer_by_length: false,
            base64,
            short_lines: true,
        },
        // mhash without -a: infer by length
        4 => Expect {
            tag_kinds: tagged,
            tag_rule: TagRule::Blank,
            untagged: None,
            blake2b_auto_length: true,
            infer_by_length: true,
            base64,
            short_lines: true,
        },
        // cksum -a blake2b -l 128
        _ => Expect {
            tag_kinds: vec![AlgoKind::Blake2b],
            tag_rule: TagRule::AnyChar,
            untagged: Some(Algorithm::blake2b(128)),
            blake2b_auto_length: true,
            infer_by_length: false,
            base64,
            short_lines: true,
        },
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let mut parser = Parser::new(expect(sel), sel & 0x40 != 0);
    for raw in body.split(|&b| b == b'\n') {
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        if let Ok(parsed) = parser.parse(line) {
            assert_eq!(parsed.digest.len(), parsed.algo.digest_len(), "{line:?}");
            let mut e = Vec::new();
            escape::escape_into(&mut e, &parsed.name);
            assert_eq!(escape::unescape(&e).as_deref(), Some(&parsed.name[..]));
        }
    }
});
