//! `--shard I/N` and `mhash merge`: N sharded runs, their outputs
//! concatenated (in any order) and merged, give the bytes one run without
//! `--shard` gives: standard output, standard error (check mode's WARNING
//! lines from the summed tallies, `--audit`'s counts) and the exit status.
//!
//! The oracle of a merge is the single run itself (that is the contract);
//! the single run of hash mode is anchored to GNU `sha256sum` over the
//! same files (see `roundtrip` for the rest of that comparison).
//!
//! Unix only: the trees' names are written with `/` and the random ones
//! may end in `.`, which Windows drops.
#![cfg(unix)]

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Output;

use proptest::prelude::*;
use tempfile::TempDir;

use crate::util::{self, mhash};

/// mhash with `args` in `dir`, standard input empty.
fn run(dir: &Path, args: &[&str]) -> Output {
    mhash(dir)
        .args(args)
        .write_stdin(Vec::new())
        .output()
        .expect("spawn mhash")
}

/// `args` run as N shards, their outputs concatenated in reverse shard
/// order (the merge must not depend on it), then merged.
fn sharded(dir: &Path, args: &[&str], n: u64) -> Output {
    let mut all = Vec::new();
    for i in (0..n).rev() {
        let shard = format!("{i}/{n}");
        let mut a = args.to_vec();
        a.extend(["--shard", &shard]);
        let o = run(dir, &a);
        assert!(
            o.stdout
                .starts_with(format!("#mhash-shard 2 {i}/{n} ").as_bytes()),
            "shard {i}/{n} of {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        // A shard's recorded verdict is its exit status.
        let end = end_line(&o.stdout);
        assert_eq!(
            end.ends_with(b" ok=1"),
            o.status.success(),
            "shard {i}/{n} of {args:?} exited {:?} with the end line {}",
            o.status.code(),
            String::from_utf8_lossy(end)
        );
        all.extend_from_slice(&o.stdout);
    }
    mhash(dir)
        .arg("merge")
        .write_stdin(all)
        .output()
        .expect("spawn mhash merge")
}

/// The end line of one shard's output (without its terminator).
fn end_line(out: &[u8]) -> &[u8] {
    let body = &out[..out.len().saturating_sub(1)];
    let at = body
        .windows(19)
        .rposition(|w| w == b"#mhash-shard-end 2 ")
        .expect("an end line");
    &body[at..]
}

/// Asserts that `args` sharded N ways and merged equals one run of it,
/// for each N of `ns`.
fn assert_merges(dir: &Path, args: &[&str], ns: &[u64]) {
    let one = run(dir, args);
    for &n in ns {
        let merged = sharded(dir, args, n);
        let what = format!("{args:?} in {n} shards");
        assert_bytes_eq!(merged.stdout, one.stdout, "stdout of {what}");
        assert_bytes_eq!(merged.stderr, one.stderr, "stderr of {what}");
        assert_eq!(merged.status.code(), one.status.code(), "exit status of {what}");
    }
}

/// A tree of `files` files in `d/` (100 to a directory, sizes 0 to about
/// 2 KiB), a checksum file `sums` of it made by mhash (`-a sha256 -r d`)
/// with damage added (a changed file, a missing one, improperly formatted
/// lines), and a manifest `man` for `--audit d` (names relative to d,
/// plus a new file and a deleted one in the tree).
fn tree(files: usize) -> TempDir {
    let td = TempDir::new().unwrap();
    let root = td.path();
    for i in 0..files {
        let dir = root.join(format!("d/{:03}", i / 100));
        if i % 100 == 0 {
            fs::create_dir_all(&dir).unwrap();
        }
        let len = (i * 7919) % 2048;
        fs::write(dir.join(format!("f{i}")), util::noise(len, i as u64)).unwrap();
    }
    let o = run(root, &["-a", "sha256", "-r", "d"]);
    assert!(o.status.success());
    let mut sums = o.stdout;
    sums.extend_from_slice(b"not a checksum line\n");
    sums.extend_from_slice(format!("{}  d/missing\n", "0".repeat(64)).as_bytes());
    sums.extend_from_slice(b"another bad line\n");
    fs::write(root.join("sums"), &sums).unwrap();
    let o = mhash(&root.join("d"))
        .args(["-a", "sha256", "-r", "."])
        .output()
        .unwrap();
    let mut man = o.stdout;
    man.extend_from_slice(b"bad line\n");
    fs::write(root.join("man"), man).unwrap();
    // Changed after the lists were made: one file changed, one deleted,
    // one new.
    fs::write(root.join("d/000/f1"), b"changed").unwrap();
    fs::remove_file(root.join("d/000/f2")).unwrap();
    fs::write(root.join("d/000/new"), b"new").unwrap();
    td
}

/// The modes the contract names: hash, `-c`, `--json` (of each), `--audit`.
const MODES: [&[&str]; 5] = [
    &["-a", "sha256", "-r", "d"],
    &["-a", "sha256", "-r", "d", "--json"],
    &["-c", "sums"],
    &["-c", "sums", "--json"],
    &["-c", "man", "--audit", "d"],
];

/// Other ways of printing, on a smaller tree.
const MORE_MODES: [&[&str]; 5] = [
    &["-a", "md5,sha1", "-r", "d", "-z"],
    &["-a", "sha256", "-r", "d", "--tag"],
    &["-c", "sums", "--quiet", "--strict"],
    &["-c", "sums", "-w", "--status"],
    &["-c", "man", "--audit", "d", "--json"],
];

#[test]
fn twenty_thousand_files_sharded_and_merged_equal_one_run() {
    let td = tree(20_000);
    for args in MODES {
        assert_merges(td.path(), args, &[1, 2, 4, 7]);
    }
}

#[test]
fn other_formats_sharded_and_merged_equal_one_run() {
    let td = tree(500);
    for args in MORE_MODES {
        assert_merges(td.path(), args, &[1, 3, 7]);
    }
}

#[test]
#[cfg(unix)]
fn the_single_run_is_gnu_sha256sum_over_the_walk() {
    if !util::gnu_available("shard::the_single_run_is_gnu_sha256sum_over_the_walk") {
        return;
    }
    let td = tree(300);
    let ours = run(td.path(), &["-a", "sha256", "-r", "d"]);
    let gnu = util::command("sh")
        .arg("-c")
        .arg("find d -type f | LC_ALL=C sort | tr '\\n' '\\0' | xargs -0 /usr/bin/sha256sum")
        .current_dir(td.path())
        .output()
        .unwrap();
    assert_bytes_eq!(ours.stdout, gnu.stdout);
    assert_merges(td.path(), &["-a", "sha256", "-r", "d"], &[3]);
}

#[test]
fn operands_and_lists_keep_argument_order() {
    let td = tree(50);
    let dir = td.path();
    fs::write(dir.join("list"), "d/000/f9\nd/000/f3\nnope\nd/000/f40\n").unwrap();
    let args = [
        "-a",
        "blake3",
        "d/000/f7",
        "nope2",
        "d/000/f1",
        "--files-from",
        "list",
        "d/000/f5",
    ];
    assert_merges(dir, &args, &[1, 2, 3, 5]);
}

#[test]
fn merged_check_exits_as_the_single_run() {
    let td = tree(40);
    let dir = td.path();
    // Every line passes: 0, although some shards verify nothing.
    let o = run(dir, &["-a", "sha256", "-r", "d/000"]);
    fs::write(dir.join("good"), &o.stdout).unwrap();
    let merged = sharded(dir, &["-c", "good"], 7);
    assert_eq!(merged.status.code(), Some(0));
    assert_bytes_eq!(merged.stderr, b"");
    // A failed line: 1, with the single run's WARNING lines.
    let merged = sharded(dir, &["-c", "sums"], 4);
    assert_eq!(merged.status.code(), Some(1));
    let err = String::from_utf8_lossy(&merged.stderr);
    assert!(err.contains("WARNING: 2 lines are improperly formatted"), "{err}");
    assert!(err.contains("WARNING: 2 listed files could not be read"), "{err}");
    assert!(
        err.contains("WARNING: 1 computed checksum did NOT match"),
        "{err}"
    );
}

#[test]
fn a_shards_hash_output_is_still_a_checksum_file() {
    let td = tree(30);
    let dir = td.path();
    let o = run(dir, &["-a", "sha256", "-r", "d", "--shard", "1/3"]);
    fs::write(dir.join("part"), &o.stdout).unwrap();
    let c = run(dir, &["-c", "part"]);
    let out = String::from_utf8_lossy(&c.stdout);
    let lines = out.lines().count();
    assert!(lines > 0 && lines < 30, "{out}");
    assert!(out.lines().all(|l| l.ends_with(": OK")), "{out}");
}

#[test]
fn merge_says_what_is_wrong() {
    let td = tree(20);
    let dir = td.path();
    let shard = |i: u64, n: u64| {
        let s = format!("{i}/{n}");
        run(dir, &["-a", "sha256", "-r", "d", "--shard", &s]).stdout
    };
    let merge = |input: Vec<u8>| mhash(dir).arg("merge").write_stdin(input).output().unwrap();
    let p = util::prog();
    let cases: Vec<(Vec<u8>, String)> = vec![
        (
            [shard(0, 3), shard(2, 3)].concat(),
            format!("{p}: merge: shard 1/3 missing: give all 3 shards' outputs\n"),
        ),
        (
            [shard(0, 2), shard(0, 2), shard(1, 2)].concat(),
            format!("{p}: merge: shard 0/2 was given twice\n"),
        ),
        (
            [shard(0, 2), shard(1, 3)].concat(),
            format!(
                "{p}: merge: shard 1/3 (hash) does not belong with shard 0/2 (hash): merge one run's shards\n"
            ),
        ),
        (
            b"hello\n".to_vec(),
            format!(
                "{p}: 'standard input': byte 0: expected a shard's first line ('#mhash-shard 2 I/N MODE RUN'): is this the output of mhash --shard?\n"
            ),
        ),
        (
            {
                let s = shard(0, 1);
                s[..s.len() - 5].to_vec()
            },
            format!(
                "{p}: 'standard input': byte 0: shard 0/1 has no end line ('#mhash-shard-end 2 ...'): was it cut short?\n"
            ),
        ),
        (
            Vec::new(),
            format!("{p}: merge: no shard outputs were given (expected the outputs of mhash --shard I/N)\n"),
        ),
    ];
    for (input, want) in cases {
        let o = merge(input);
        assert_eq!(o.status.code(), Some(1));
        assert_bytes_eq!(o.stdout, b"");
        assert_bytes_eq!(o.stderr, want);
    }
    let o = mhash(dir).args(["merge", "no-such-file"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with(&format!("{p}: no-such-file: ")));
}

#[test]
fn shard_values_are_checked() {
    let td = TempDir::new().unwrap();
    for bad in ["4/4", "1", "a/b", "0/0", "1/-3", "2/"] {
        let o = run(td.path(), &["-a", "sha256", "--shard", bad, "x"]);
        assert_eq!(o.status.code(), Some(1), "{bad}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("--shard needs I/N with 0 <= I < N (0/4 is the first of 4 shards)"),
            "{bad}: {err}"
        );
    }
    let o = run(td.path(), &["--nar", "--shard", "0/2", "."]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--shard does not work with --go-h1 and --nar"));
    // A value that starts with '-' reaches the same message.
    for bad in ["-1/3", "--2/3"] {
        let o = run(td.path(), &["-a", "sha256", "--shard", bad, "x"]);
        assert_eq!(o.status.code(), Some(1), "{bad}");
        assert_bytes_eq!(
            o.stderr,
            format!(
                "{p}: --shard needs I/N with 0 <= I < N (0/4 is the first of 4 shards), not '{bad}'\n\
                 Try '{p} --help' for more information.\n",
                p = util::prog()
            )
        );
    }
}

#[test]
fn shard_refuses_the_options_it_cannot_split_by_their_names() {
    let td = TempDir::new().unwrap();
    let id = ["--certificate-oidc-issuer", "https://issuer"];
    let cases: [(Vec<&str>, &str); 5] = [
        (vec!["--s3-report", "r.csv", "--root", "."], "--s3-report"),
        (vec!["-c", "s", "--key", "k.pub"], "--key"),
        (
            vec![
                "-c",
                "s",
                "--attestation",
                "a.json",
                "--certificate-identity",
                "me",
            ],
            "--attestation",
        ),
        (
            vec!["-c", "s", "--bundle", "b.json", "--certificate-identity", "me"],
            "--bundle",
        ),
        (
            vec!["-c", "s", "--certificate-identity-regexp", "^me$"],
            "--certificate-identity-regexp",
        ),
    ];
    for (args, named) in cases {
        let mut a = args.clone();
        if a.iter().any(|x| x.starts_with("--certificate")) {
            a.extend(id);
        }
        a.extend(["--shard", "0/2"]);
        let o = run(td.path(), &a);
        assert_eq!(o.status.code(), Some(1), "{a:?}");
        assert_bytes_eq!(o.stdout, b"");
        assert_bytes_eq!(
            o.stderr,
            format!(
                "{p}: --shard does not work with {named} (shard the hashing or the checking of files \
                 instead)\nTry '{p} --help' for more information.\n",
                p = util::prog()
            ),
            "{a:?}"
        );
    }
}

#[test]
fn errors_every_shard_meets_merge_as_one_run() {
    let td = tree(30);
    let dir = td.path();
    // A missing or unusable --audit directory, a missing checksum file:
    // one run prints the error once and exits 1; so does the merge, and
    // every shard's verdict is false.
    let cases: [&[&str]; 5] = [
        &["-c", "man", "--audit", "nodir"],
        &["-c", "man", "--audit", "d/000/f0"],
        &["-c", "nosuch", "--audit", "d"],
        &["-c", "nosuch"],
        &["-c", "sums", "nosuch"],
    ];
    for args in cases {
        let one = run(dir, args);
        assert_eq!(one.status.code(), Some(1), "{args:?}");
        assert_merges(dir, args, &[1, 3]);
    }
}

#[test]
fn diagnostics_carry_the_merging_programs_name() {
    let td = tree(10);
    let dir = td.path();
    let mut all = Vec::new();
    for i in 0..2 {
        let shard = format!("{i}/2");
        let o = util::command(util::MHASH)
            .arg0("elsewhere/mhash")
            .current_dir(dir)
            .args(["-a", "sha256", "d/000/f1", "nope", "--shard", &shard])
            .output()
            .unwrap();
        all.extend_from_slice(&o.stdout);
    }
    let merged = mhash(dir).arg("merge").write_stdin(all).output().unwrap();
    let one = run(dir, &["-a", "sha256", "d/000/f1", "nope"]);
    assert_bytes_eq!(merged.stderr, one.stderr);
    assert_bytes_eq!(merged.stdout, one.stdout);
    assert_eq!(merged.status.code(), one.status.code());
}

#[test]
fn shards_of_different_runs_are_refused_by_name() {
    let td = tree(20);
    let dir = td.path();
    let p = util::prog();
    let part = |name: &str, args: &[&str]| {
        let o = run(dir, args);
        fs::write(dir.join(name), &o.stdout).unwrap();
    };
    part("s0", &["-a", "sha256", "-r", "d", "--shard", "0/2"]);
    part("s1", &["-a", "md5", "-r", "d", "--shard", "1/2"]);
    // Another tree, the same options otherwise.
    fs::create_dir_all(dir.join("e")).unwrap();
    part("t1", &["-a", "sha256", "-r", "e", "--shard=1/2"]);
    // The same run, --shard spelled otherwise: these merge.
    part("u1", &["-a", "sha256", "--shard=1/2", "-r", "d"]);
    let merge = |a: &str, b: &str| mhash(dir).args(["merge", a, b]).output().unwrap();
    for other in ["s1", "t1"] {
        let o = merge("s0", other);
        assert_eq!(o.status.code(), Some(1), "{other}");
        assert_bytes_eq!(o.stdout, b"");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with(&format!(
                "{p}: merge: shard 1/2 in {other} is of another run than shard 0/2 in s0 (run "
            )),
            "{err}"
        );
        assert!(err.ends_with("differ): merge one run's shards\n"), "{err}");
    }
    let o = merge("s0", "u1");
    let one = run(dir, &["-a", "sha256", "-r", "d"]);
    assert_eq!(o.status.code(), Some(0));
    assert_bytes_eq!(o.stdout, one.stdout);
    // Output of another frame version says so.
    let old = b"#mhash-shard 1 0/1 hash\n#mhash-shard-end 1 0/1 ok=1\n".to_vec();
    let o = mhash(dir).arg("merge").write_stdin(old).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_bytes_eq!(
        o.stderr,
        format!(
            "{p}: 'standard input': byte 0: a shard output of frame version 1; this mhash merges \
             version 2 (merge with the mhash that wrote the shards, or rerun them with this one)\n"
        )
    );
}

#[test]
fn an_edited_length_is_named_as_such() {
    let td = tree(10);
    let dir = td.path();
    let s = run(dir, &["-a", "sha256", "-r", "d", "--shard", "0/1"]).stdout;
    let text = String::from_utf8(s).unwrap();
    let body_start = text.find('\n').unwrap() + 1;
    let end_at = text.rfind("#mhash-shard-end 2 ").unwrap();
    // One record's length one more than written.
    let (before, after) = text[end_at..].split_once(" o=0.").unwrap();
    let (key, rest) = after.split_once(':').unwrap();
    let (len, rest) = rest.split_once(' ').unwrap();
    let len: u64 = len.parse().unwrap();
    let edited = format!("{}{before} o=0.{key}:{} {rest}", &text[..end_at], len + 1);
    let o = mhash(dir).arg("merge").write_stdin(edited).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let body = end_at - body_start;
    assert_bytes_eq!(
        o.stderr,
        format!(
            "{}: 'standard input': byte 0: shard 0/1's end line (byte {end_at}) records {} bytes of \
             output, but {body} bytes stand before it: the recorded lengths do not add up (was the \
             output edited or mixed with other output?)\n",
            util::prog(),
            body + 1
        )
    );
}

#[test]
fn state_runs_merge_to_one_summary() {
    let td = tree(30);
    let dir = td.path();
    // Files written within 2 s of a run are read whatever the state says
    // (racy: see tests/state.rs): let them settle first.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let warm = run(dir, &["-a", "sha256", "-r", "d", "--state", "st"]);
    assert!(warm.status.success());
    fs::write(dir.join("d/000/f3"), b"changed since").unwrap();
    // The state is the same for the one run and the shards: they all
    // find it as the warm run left it (the shards are run first, each on
    // a copy).
    let state = fs::read(dir.join("st")).unwrap();
    let args = ["-a", "sha256", "-r", "d", "--state", "st"];
    let mut all = Vec::new();
    for i in 0..3 {
        fs::write(dir.join("st"), &state).unwrap();
        let shard = format!("{i}/3");
        let mut a = args.to_vec();
        a.extend(["--shard", &shard]);
        all.extend_from_slice(&run(dir, &a).stdout);
    }
    let merged = mhash(dir).arg("merge").write_stdin(all).output().unwrap();
    fs::write(dir.join("st"), &state).unwrap();
    let one = run(dir, &args);
    let err = String::from_utf8_lossy(&one.stderr);
    assert!(
        err.contains(": digests of 29 files taken from the state, 1 file read; the oldest taken was read "),
        "{err}"
    );
    assert_bytes_eq!(merged.stdout, one.stdout);
    // The age in seconds may tick between the two runs: compare up to it.
    let cut = |e: &[u8]| e[..e.iter().rposition(|&b| b == b'(').unwrap()].to_vec();
    assert_bytes_eq!(cut(&merged.stderr), cut(&one.stderr));
    assert_eq!(merged.status.code(), one.status.code());
}

/// A random tree: each file a path of 1 to 3 parts from a small alphabet
/// (so that names collide into shared directories) and a content.
fn arb_tree() -> impl Strategy<Value = Vec<(Vec<String>, Vec<u8>)>> {
    let part = "[a-c][a-c.-]{0,2}";
    prop::collection::vec(
        (
            prop::collection::vec(part, 1..4),
            prop::collection::vec(any::<u8>(), 0..64),
        ),
        0..40,
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if util::emulator().is_some() { 4 } else { 24 },
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_trees_sharded_and_merged_equal_one_run(
        files in arb_tree(),
        n in 1u64..8,
        mode in 0usize..5,
        damage in any::<prop::sample::Index>(),
    ) {
        let td = TempDir::new().unwrap();
        let root = td.path().join("t");
        fs::create_dir_all(&root).unwrap();
        let mut made = Vec::new();
        for (parts, data) in &files {
            let p = parts.iter().fold(root.clone(), |p, s| p.join(s));
            // A path that runs into an existing file (or a directory) is skipped.
            if p.parent().is_some_and(|d| fs::create_dir_all(d).is_ok()) && !p.is_dir() && fs::write(&p, data).is_ok() {
                made.push(p);
            }
        }
        let dir = td.path();
        let sums = run(dir, &["-a", "sha256", "-r", "t"]).stdout;
        fs::write(dir.join("sums"), &sums).unwrap();
        let man = mhash(&root).args(["-a", "sha256", "-r", "."]).output().unwrap().stdout;
        fs::write(dir.join("man"), &man).unwrap();
        if !made.is_empty() {
            let victim = damage.get(&made);
            let _ = fs::write(victim, b"changed");
            let _ = fs::write(victim.with_extension("new"), b"new");
        }
        let args: &[&str] = match mode {
            0 => &["-a", "sha256", "-r", "t"],
            1 => &["-a", "crc32c", "-r", "t", "--json"],
            2 => &["-c", "sums"],
            3 => &["-c", "sums", "--json"],
            _ => &["-c", "man", "--audit", "t"],
        };
        let one = run(dir, args);
        let merged = sharded(dir, args, n);
        prop_assert_eq!(merged.stdout, one.stdout);
        prop_assert_eq!(merged.stderr, one.stderr);
        prop_assert_eq!(merged.status.code(), one.status.code());
    }
}
