//! `mhash merge`: the outputs of N `--shard I/N` runs (see
//! [`crate::report::shard`] for their frame) back into the bytes one run
//! without `--shard` prints: standard output in the single run's order,
//! each record's diagnostics on standard error in their place, check
//! mode's summary (GNU's WARNING lines) from the tallies summed over the
//! shards, and the single run's exit status.
//!
//! Each shard's records are in key order already, so the merge is an
//! N-way merge on the records' keys (a binary heap of N cursors): time
//! linear in the input's size for a given N (times log N). The input is
//! held in memory (a record's bytes are copied once, to the output).

use crate::check::Tally;
use crate::report::shard::{Chunk, Unit, parse_units};
use crate::report::{AuditCounts, Console};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::ffi::OsString;
use std::io::Read;

/// Merges the shard outputs in `files` (`-`: standard input), writing the
/// single run's output on `con`. Returns the single run's verdict (false
/// too when an input cannot be read or is not a complete set of shards;
/// the error names the file and what is wrong).
pub fn run(con: &mut Console, files: &[OsString]) -> bool {
    let mut datas = Vec::new();
    for f in files {
        let name = crate::os::os_bytes(f).into_owned();
        let read = if f == "-" {
            let mut v = Vec::new();
            crate::os::stdin_reader().read_to_end(&mut v).map(|_| v)
        } else {
            std::fs::read(f)
        };
        match read {
            Ok(d) => datas.push((name, d)),
            Err(e) => {
                let shown: &[u8] = if f == "-" { b"standard input" } else { &name };
                con.error_io(shown, &e);
                return false;
            }
        }
    }
    let mut units: Vec<(usize, Unit)> = Vec::new();
    for (i, (name, data)) in datas.iter().enumerate() {
        match parse_units(data) {
            Ok(us) => units.extend(us.into_iter().map(|u| (i, u))),
            Err(msg) => {
                let shown: &[u8] = if name == b"-" { b"standard input" } else { name };
                let mut m = con.quotef(shown);
                m.extend_from_slice(format!(": {msg}").as_bytes());
                con.error_msg(&m);
                return false;
            }
        }
    }
    let names: Vec<&[u8]> = datas
        .iter()
        .map(|(n, _)| if n == b"-" { &b"standard input"[..] } else { &n[..] })
        .collect();
    if let Err(msg) = complete(con, &units, &names) {
        con.error_msg(format!("merge: {msg}").as_bytes());
        return false;
    }
    units.sort_by_key(|(_, u)| u.index);
    let check = units[0].1.mode == "check";
    // The checksum files' summed tallies, and those that failed.
    let mut tallies: BTreeMap<u64, (Tally, Vec<u8>)> = BTreeMap::new();
    let mut failed_files = std::collections::BTreeSet::new();
    // --audit's summed counts by checksum file, their style and directory.
    let mut audits: BTreeMap<u64, ([u64; 5], u8, Vec<u8>)> = BTreeMap::new();
    for (_, u) in &units {
        for (f, [mis, open, mism], [formatted, matched], display) in &u.tallies {
            let (t, d) = tallies
                .entry(*f)
                .or_insert_with(|| (Tally::default(), display.clone()));
            t.misformatted += mis;
            t.open_failures += open;
            t.mismatched += mism;
            t.properly_formatted |= formatted;
            t.matched |= matched;
            if d.is_empty() {
                d.clone_from(display);
            }
        }
        for (f, counts, style, dir) in &u.audits {
            let (c, _, _) = audits.entry(*f).or_insert_with(|| ([0; 5], *style, dir.clone()));
            for (sum, n) in c.iter_mut().zip(counts) {
                *sum += n;
            }
        }
        failed_files.extend(u.failed_files.iter().copied());
    }
    let [status, ignore_missing, strict] = units[0].1.settings;
    let mut summarized = 0u64;
    let summarize_before = |con: &mut Console, file: u64, summarized: &mut u64| {
        for (f, (t, display)) in tallies.range(*summarized..file) {
            if failed_files.contains(f) {
                continue;
            }
            match audits.get(f) {
                Some((counts, style, dir)) => {
                    let counts = AuditCounts::from_all(*counts);
                    counts.print(con, *style);
                    let dir = crate::os::bytes_os(dir);
                    crate::check::audit_tail(con, &counts, t.misformatted, status, Some(&dir), display);
                }
                None => t.summary(con, status, ignore_missing, "", display),
            }
        }
        *summarized = (*summarized).max(file);
    };
    // The N-way merge: the cursor with the smallest key next (ties: the
    // lower shard first).
    let mut pos = vec![0usize; units.len()];
    let mut heap = BinaryHeap::new();
    for (u, (_, unit)) in units.iter().enumerate() {
        if let Some((key, _)) = unit.chunks.first() {
            heap.push(Reverse((*key, u)));
        }
    }
    while let Some(Reverse((key, u))) = heap.pop() {
        if check {
            summarize_before(con, key.0, &mut summarized);
        }
        let (data_index, unit) = &units[u];
        let data = &datas[*data_index].1;
        let chunks = &unit.chunks;
        while let Some((k, chunk)) = chunks.get(pos[u])
            && *k == key
        {
            match chunk {
                Chunk::Out(r) => con.write_out(&data[r.clone()]),
                Chunk::Err(bytes) => con.write_err(bytes),
                Chunk::Msg(msg) => con.error_msg(msg),
            }
            pos[u] += 1;
        }
        if let Some((k, _)) = chunks.get(pos[u]) {
            heap.push(Reverse((*k, u)));
        }
        con.flush_now();
    }
    if check {
        summarize_before(con, u64::MAX, &mut summarized);
    }
    // --state: one summary of the shards' counts summed, the oldest
    // digest the oldest of all.
    let states: Vec<_> = units.iter().filter_map(|(_, u)| u.state.as_ref()).collect();
    if let Some((_, _, path)) = states.first() {
        let mut counts = [0u64; 3];
        for (c, _, _) in &states {
            for (sum, n) in counts.iter_mut().zip(c) {
                *sum += n;
            }
        }
        let oldest = states.iter().filter_map(|(_, o, _)| *o).min().map(|at| {
            (
                crate::state::iso_utc(at),
                crate::state::age(crate::state::now_ns() - at),
            )
        });
        crate::report::state_summary(con, path, counts, oldest);
    }
    // Hash mode: every shard's verdict. Check mode: the summed tallies
    // and the failures outside them (a shard's own verdict may be false
    // where the run's is not: it matched none of its lines).
    if check {
        units.iter().all(|(_, u)| !u.failed)
            && failed_files.is_empty()
            && tallies.iter().all(|(f, (t, _))| match audits.get(f) {
                Some((counts, ..)) => {
                    !AuditCounts::from_all(*counts).differs() && (!strict || t.misformatted == 0)
                }
                None => t.passed(strict),
            })
    } else {
        units.iter().all(|(_, u)| u.ok)
    }
}

/// Checks that `units` are one run's shards: the same run fingerprint,
/// mode and N, each shard 0 to N-1 once. `names`: the input files'
/// names, by the units' file index, for the error.
fn complete(con: &Console, units: &[(usize, Unit)], names: &[&[u8]]) -> Result<(), String> {
    let Some((first_file, first)) = units.first() else {
        return Err("no shard outputs were given (expected the outputs of mhash --shard I/N)".into());
    };
    let n = first.count;
    let mut seen = vec![false; usize::try_from(n).unwrap_or(usize::MAX).min(1 << 24)];
    for (file, u) in units {
        if u.run != first.run {
            let shown = |f: usize| String::from_utf8_lossy(&con.quotef(names[f])).into_owned();
            return Err(format!(
                "shard {}/{} in {} is of another run than shard {}/{} in {} (run {} and {}: the \
                 arguments other than --shard, or mhash's version, differ): merge one run's shards",
                u.index,
                u.count,
                shown(*file),
                first.index,
                first.count,
                shown(*first_file),
                u.run,
                first.run
            ));
        }
        if u.count != n || u.mode != first.mode {
            return Err(format!(
                "shard {}/{} ({}) does not belong with shard {}/{} ({}): merge one run's shards",
                u.index, u.count, u.mode, first.index, n, first.mode
            ));
        }
        let Some(s) = seen.get_mut(usize::try_from(u.index).unwrap_or(usize::MAX)) else {
            return Err(format!("shard {}/{}: too many shards to merge", u.index, n));
        };
        if std::mem::replace(s, true) {
            return Err(format!("shard {}/{n} was given twice", u.index));
        }
    }
    let missing: Vec<String> = (0..n)
        .filter(|&i| !seen.get(i as usize).copied().unwrap_or(false))
        .take(10)
        .map(|i| format!("{i}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "shard {} missing: give all {n} shards' outputs",
            missing.join(", ")
        ));
    }
    Ok(())
}
