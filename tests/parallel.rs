//! Parallel hashing and the I/O methods are invisible: `-j N` prints the
//! same bytes, in the same interleaving of stdout and stderr, with the same
//! exit status as `-j1` (and, under GNU names, as GNU coreutils 9.1 itself);
//! `--io mmap` gives the digests `--io read` gives, also when the file
//! shrinks under the map.
#![cfg(unix)]

use std::fs;
use std::path::Path;
use tempfile::TempDir;

use crate::util::{self, assert_same, emulator, noise, sh, sh_in};

/// A tree of many files of uneven sizes (so they finish out of order),
/// with a directory, unreadable names and awkward names among them;
/// returns the operand list in the order to pass it.
fn corpus(dir: &Path) -> Vec<String> {
    let bin = dir.join(".bin");
    let gnu = dir.join(".gnu");
    util::mhash_link(&bin, "mmhash");
    for n in ["sha256sum", "md5sum", "cksum", "b2sum"] {
        util::mhash_link(&bin, n);
        util::gnu_link(&gnu, n);
    }
    let mut ops = Vec::new();
    for i in 0..240usize {
        // Mostly small, every 17th large: workers finish out of order.
        let len = if i % 17 == 5 {
            700_000 + i * 31
        } else {
            (i * 977) % 9000
        };
        let name = match i % 40 {
            3 => format!("back\\slash{i}"),
            7 => format!("new\nline{i}"),
            11 => format!("sp ace{i}"),
            _ => format!("f{i:03}"),
        };
        fs::write(dir.join(&name), noise(len, i as u64)).unwrap();
        ops.push(name);
        if i % 29 == 0 {
            ops.push(format!("missing{i}"));
        }
        if i % 53 == 0 {
            ops.push("sub".into());
        }
    }
    fs::create_dir(dir.join("sub")).unwrap();
    ops
}

fn quote_all(ops: &[String]) -> String {
    ops.iter()
        .map(|o| format!("'{}'", o.replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn jobs_print_what_one_job_prints() {
    let d = TempDir::new().unwrap();
    let ops = quote_all(&corpus(d.path()));
    for algo in ["sha256", "md5", "crc", "blake2b"] {
        let one = sh(d.path(), &format!("mmhash -j1 -a {algo} {ops}"), &[]);
        assert_eq!(one.code, Some(1), "missing files make the run fail");
        assert!(String::from_utf8_lossy(&one.merged).contains("missing0: No such file or directory"));
        for j in ["2", "3", "8", "0"] {
            let many = sh(d.path(), &format!("mmhash -j{j} -a {algo} {ops}"), &[]);
            assert_eq!(many, one, "-a {algo} -j{j} differs from -j1");
        }
    }
}

#[test]
fn gnu_names_in_parallel_match_gnu_coreutils() {
    let d = TempDir::new().unwrap();
    let ops = quote_all(&corpus(d.path()));
    for tool in ["sha256sum", "md5sum", "b2sum", "cksum"] {
        for jobs in ["1", "4"] {
            let env = [("MHASH_GNU_COMPAT", "9.1"), ("MHASH_JOBS", jobs)];
            let ours = sh(d.path(), &format!("{tool} {ops}"), &env);
            if util::gnu_available(&format!(
                "parallel::gnu_names_in_parallel_match_gnu_coreutils ({tool}; compared with MHASH_JOBS=1 instead)"
            )) {
                let theirs = sh_in(d.path(), ".gnu", &format!("{tool} {ops}"), &[]);
                assert_same(
                    &ours,
                    &theirs,
                    &format!("{tool} with MHASH_JOBS={jobs} differs from GNU"),
                );
            } else {
                let one = sh(d.path(), &format!("{tool} {ops}"), &[("MHASH_JOBS", "1")]);
                assert_eq!(ours, one);
            }
        }
    }
}

#[test]
fn check_mode_in_parallel_reports_in_line_order() {
    let d = TempDir::new().unwrap();
    let ops = corpus(d.path());
    // A checksum file of every readable file, then damage some lines.
    let listed: Vec<String> = ops
        .iter()
        .filter(|o| !o.starts_with("missing") && *o != "sub")
        .cloned()
        .collect();
    let made = sh(
        d.path(),
        &format!("mmhash -j1 -a sha256 {} > SUMS", quote_all(&listed)),
        &[],
    );
    assert_eq!(made.code, Some(0), "{}", String::from_utf8_lossy(&made.merged));
    let text = fs::read(d.path().join("SUMS")).unwrap();
    let mut lines: Vec<Vec<u8>> = text.split(|&b| b == b'\n').map(|l| l.to_vec()).collect();
    lines.pop();
    for (i, l) in lines.iter_mut().enumerate() {
        match i % 23 {
            4 => l[0] = if l[0] == b'0' { b'1' } else { b'0' }, // mismatch
            9 => *l = b"not a checksum line".to_vec(),          // misformatted
            14 => l.extend_from_slice(b"-gone"),                // missing file
            _ => {}
        }
    }
    lines.push(b"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  sub".to_vec());
    fs::write(
        d.path().join("SUMS"),
        [lines.join(&b'\n'), b"\n".to_vec()].concat(),
    )
    .unwrap();
    for flags in ["", "-w", "--quiet", "--status", "--ignore-missing", "--strict -w"] {
        let one = sh(d.path(), &format!("mmhash -j1 -c {flags} SUMS"), &[]);
        assert_eq!(one.code, Some(1));
        for j in ["2", "7"] {
            let many = sh(d.path(), &format!("mmhash -j{j} -c {flags} SUMS"), &[]);
            assert_eq!(many, one, "-c {flags} -j{j} differs from -j1");
        }
        if util::gnu_available(&format!(
            "parallel::check_mode_in_parallel_reports_in_line_order (sha256sum -c {flags})"
        )) {
            let env = [("MHASH_GNU_COMPAT", "9.1"), ("MHASH_JOBS", "3")];
            let ours = sh(d.path(), &format!("sha256sum -c {flags} SUMS"), &env);
            let theirs = sh_in(d.path(), ".gnu", &format!("sha256sum -c {flags} SUMS"), &[]);
            assert_same(&ours, &theirs, &format!("sha256sum -c {flags} differs from GNU"));
        }
    }
}

#[test]
fn endless_check_input_streams() {
    // `yes LINE | mhash -c` never ends: results must come out while lines
    // still arrive, so `head` gets its lines and SIGPIPE ends the pipeline
    // (a run that waited for the end of input would be killed by timeout).
    let d = TempDir::new().unwrap();
    corpus(d.path());
    let line = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  f000";
    let o = sh(
        d.path(),
        &format!("timeout 60 sh -c \"yes '{line}' | mmhash -a sha256 -j4 -c | head -n 3\""),
        &[],
    );
    assert_eq!(String::from_utf8_lossy(&o.merged), "f000: OK\n".repeat(3));
    assert_eq!(o.code, Some(0));
}

fn hash_with(dir: &Path, io: &str, algo: &str, file: &str) -> (String, String) {
    let o = util::command(util::MHASH)
        .current_dir(dir)
        .args(["--debug", "--io", io, "-a", algo, file])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

#[test]
fn mapped_and_read_digests_agree() {
    let d = TempDir::new().unwrap();
    const W: usize = 4 << 20;
    for (i, len) in [0, 1, 4095, 4096, W - 1, W, W + 1, 2 * W + 12_345]
        .into_iter()
        .enumerate()
    {
        let name = format!("in{i}");
        fs::write(d.path().join(&name), noise(len, 99 + i as u64)).unwrap();
        for algo in ["crc", "crc32b", "md5", "sha256", "blake2b", "sysv"] {
            let (read_out, read_err) = hash_with(d.path(), "read", algo, &name);
            let (map_out, map_err) = hash_with(d.path(), "mmap", algo, &name);
            assert_eq!(map_out, read_out, "{algo} on {len} bytes");
            assert!(read_err.ends_with(", read\n"), "{read_err}");
            if len > 0 && cfg!(target_os = "linux") {
                assert!(map_err.contains(", mmap\n"), "{map_err}");
            }
        }
    }
}

/// One large BLAKE3 file is mapped a window at a time and each window hashed
/// over rayon's threads (`MHASH_MAP_WINDOW` bytes, rounded down to whole
/// MiB; by default 16 MiB per thread, 32 MiB at least). A file of several
/// windows plus a tail that is not a whole chunk gives the digest one
/// thread reading it gives, and the portable code's.
#[test]
fn blake3_mapped_in_windows_over_threads_equals_one_thread_reading() {
    let d = TempDir::new().unwrap();
    let len = (30 << 20) + 12_345;
    fs::write(d.path().join("big"), noise(len, 3)).unwrap();
    let (read_out, _) = hash_with(d.path(), "read", "blake3", "big");
    let portable = util::command(util::MHASH)
        .current_dir(d.path())
        .env("MHASH_BACKEND", "portable")
        .args(["-j1", "--io", "read", "-a", "blake3", "big"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&portable.stdout), read_out);
    // 4 MiB, 1 MiB (1,500,000 rounded down), 5 MiB, the default (one
    // window of 48 MiB), and a value that is not a number (the default).
    for (j, window) in [
        ("-j2", "4194304"),
        ("-j3", "1500000"),
        ("-j2", "6000000"),
        ("-j3", ""),
        ("-j5", "junk"),
    ] {
        let o = util::command(util::MHASH)
            .current_dir(d.path())
            .env("MHASH_MAP_WINDOW", window)
            .args(["--debug", j, "-a", "blake3", "big"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{j} {window}: {err}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), read_out, "{j} {window}");
        if cfg!(target_os = "linux") {
            assert!(err.ends_with(", mmap\n"), "{j} {window}: not mapped: {err}");
        }
    }
}

/// One digest of a large input is hashed on a second thread beside the
/// reading, or on the reading thread, whichever its first 2 x 16 MiB
/// measured faster (`MHASH_CALIBRATE=never`: always beside). Whichever
/// way, and across the switch after the trial, the digest is GNU's and
/// the plain loop's (`-j1`).
#[test]
fn one_large_digest_hashed_beside_the_reading_or_not_gives_the_same_digest() {
    let d = TempDir::new().unwrap();
    // 33 MiB + 4,097 bytes: the first read, both trials, and a rest that
    // is not a whole number of reads.
    fs::write(d.path().join("big"), noise((33 << 20) + 4097, 17)).unwrap();
    for (algo, gnu) in [
        ("sha1", "sha1sum"),
        ("sha256", "sha256sum"),
        ("md5", "md5sum"),
        ("blake2b", "b2sum"),
    ] {
        let run = |args: &[&str], calibrate| hash_big(d.path(), algo, args, calibrate).0;
        let one = run(&["-j1"], None);
        assert_eq!(run(&["-j2"], None), one, "{algo}: measured");
        assert_eq!(run(&["-j2"], Some("never")), one, "{algo}: beside the reading");
        assert_eq!(run(&["-j2"], Some("always")), one, "{algo}: measured, always");
        assert_gnu_digest(
            d.path(),
            gnu,
            &one,
            "one_large_digest_hashed_beside_the_reading_or_not",
        );
    }
}

/// `mhash --debug ARGS -a ALGO big` in `dir`, with `MHASH_CALIBRATE` set
/// to `calibrate` if given: its stdout and stderr (the run must succeed).
fn hash_big(dir: &Path, algo: &str, args: &[&str], calibrate: Option<&str>) -> (String, String) {
    let mut c = util::command(util::MHASH);
    if let Some(v) = calibrate {
        c.env("MHASH_CALIBRATE", v);
    }
    let o = c
        .current_dir(dir)
        .arg("--debug")
        .args(args)
        .args(["-a", algo, "big"])
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(o.status.success(), "{algo} {args:?}: {err}");
    (String::from_utf8(o.stdout).unwrap(), err)
}

/// Asserts that GNU's `gnu` (e.g. `sha256sum`) gives the digest of the
/// line `ours` for `dir/big`, where GNU is there (else says SKIP `what`).
fn assert_gnu_digest(dir: &Path, gnu: &str, ours: &str, what: &str) {
    if util::gnu_available(what) {
        let g = util::gnu(gnu).current_dir(dir).arg("big").output().unwrap();
        let g = String::from_utf8(g.stdout).unwrap();
        let digest = |s: &str| s.split_whitespace().next().unwrap_or("").to_string();
        assert_eq!(digest(ours), digest(&g), "{gnu} against GNU");
    }
}

/// One digest of a file of 64 MiB or more is hashed three ways in turn,
/// 16 MiB each (read on the reading thread, from a map, beside the
/// reading), and the rest the way that measured fastest
/// (`io::trial::feed_file`): whichever wins, the digest is the one plain
/// reading gives, and GNU's.
#[test]
fn one_large_file_hashed_three_ways_by_measurement_gives_the_same_digest() {
    let d = TempDir::new().unwrap();
    // 70 MiB + 4,097 bytes: the three trials and a rest that is not a
    // whole number of reads or pages.
    fs::write(d.path().join("big"), noise((70 << 20) + 4097, 23)).unwrap();
    for (algo, gnu) in [
        ("sha256", "sha256sum"),
        ("md5", "md5sum"),
        ("sha512", "sha512sum"),
    ] {
        let run = |args: &[&str], calibrate| hash_big(d.path(), algo, args, calibrate);
        let (read, read_err) = run(&["-j1", "--io", "read"], None);
        assert!(read_err.ends_with(", read\n"), "{read_err}");
        for j in ["-j1", "-j2"] {
            let (out, err) = run(&[j], None);
            assert_eq!(out, read, "{algo} {j}: measured");
            assert!(
                err.ends_with(", read\n") || err.ends_with(", mmap\n"),
                "{algo} {j}: {err}"
            );
            // The figures of the trial (`--debug`), inside the parentheses
            // (under an emulator the suite sets MHASH_CALIBRATE=never: no
            // trial there, see util::hermetic).
            if util::emulator().is_none() {
                assert!(err.contains("; I/O chosen by measurement: read "), "{err}");
                assert!(err.contains(" MB/s"), "{err}");
            }
        }
        assert_eq!(run(&["-j2"], Some("never")).0, read, "{algo}: no trial");
        assert_eq!(run(&["--io", "mmap"], None).0, read, "{algo}: mapped");
        assert_gnu_digest(
            d.path(),
            gnu,
            &read,
            "one_large_file_hashed_three_ways_by_measurement",
        );
    }
}

/// Starts `mhash --debug ARGS shrinks` on a sparse file of `len` bytes,
/// cuts the file to 1 MiB after 300 ms (far earlier than hashing it could
/// end), and returns the run's output and the file's digest as it is now
/// (`--io read`, hashed after the cut).
#[cfg(target_os = "linux")]
fn truncated_mid_hash(len: u64, args: &[&str], algo: &str) -> (std::process::Output, String) {
    use std::time::Duration;
    let d = TempDir::new().unwrap();
    let path: std::path::PathBuf = d.path().join("shrinks");
    let f = fs::File::create(&path).unwrap();
    f.set_len(len).unwrap();
    let child = util::command(util::MHASH)
        .current_dir(d.path())
        .arg("--debug")
        .args(args)
        .args(["-a", algo, "shrinks"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    f.set_len(1 << 20).unwrap();
    let o = child.wait_with_output().unwrap();
    let (now, _) = hash_with(d.path(), "read", algo, "shrinks");
    (o, now)
}

#[cfg(target_os = "linux")]
#[test]
fn file_truncated_under_the_map_is_read_again() {
    // 2 GiB, sparse: far longer to hash (debug build) than the 300 ms.
    let (o, now) = truncated_mid_hash(2 << 30, &["--io", "mmap"], "md5");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "killed or failed: {:?} {err}", o.status);
    // The digest is that of the file as it is now: 1 MiB of zeros.
    assert_eq!(String::from_utf8_lossy(&o.stdout), now);
    assert!(err.contains(", mmap+read\n"), "the guard did not fire: {err}");
}

/// A large file cut short while its way is measured or after a map won
/// (`io::trial::feed_file`): no crash; if a map saw the cut, the file is
/// read again and the digest is of the file as it is now (read to the
/// cut, the digest is of the bytes read before it, as GNU's).
#[cfg(target_os = "linux")]
#[test]
fn file_truncated_while_its_way_is_measured_is_read_again_or_ends_at_the_cut() {
    let (o, now) = truncated_mid_hash(2 << 30, &[], "md5");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "killed or failed: {:?} {err}", o.status);
    assert!(String::from_utf8_lossy(&o.stdout).ends_with("  shrinks\n"));
    if err.contains(", mmap+read\n") {
        assert_eq!(String::from_utf8_lossy(&o.stdout), now);
    } else {
        assert!(err.contains(", read\n") || err.contains(", mmap\n"), "{err}");
    }
}

/// BLAKE3 hashes a large file from a map on every thread of rayon's pool:
/// a page lost to truncation faults on whichever thread touches it, and
/// the guard (a process-wide table of windows) catches it there too.
#[cfg(target_os = "linux")]
#[test]
fn file_truncated_under_a_map_hashed_on_several_threads_is_read_again() {
    // 64 GiB, sparse.
    let (o, now) = truncated_mid_hash(64 << 30, &["-j2"], "blake3");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "killed or failed: {:?} {err}", o.status);
    assert_eq!(String::from_utf8_lossy(&o.stdout), now);
    assert!(err.contains(", mmap+read\n"), "the guard did not fire: {err}");
}

/// XXH3 and XXH128 of a large file are read by two threads at once
/// (`io::readers`): the digest is the one a single reading thread gives,
/// for a file that is not a whole number of the readers' 1 MiB chunks.
#[test]
fn one_large_file_read_by_two_threads_gives_the_same_digest() {
    use std::io::Write;
    let d = TempDir::new().unwrap();
    let path = d.path().join("big");
    let mut f = fs::File::create(&path).unwrap();
    // 24 MiB + 1,001 bytes of noise (the readers start at 16 MiB).
    for i in 0..24u64 {
        f.write_all(&noise(1 << 20, i)).unwrap();
    }
    f.write_all(&noise(1001, 99)).unwrap();
    drop(f);
    for algo in ["xxh3", "xxh128"] {
        let run = |args: &[&str]| {
            let o = util::command(util::MHASH)
                .current_dir(d.path())
                .arg("--debug")
                .args(args)
                .args(["-a", algo, "big"])
                .output()
                .unwrap();
            assert!(o.status.success(), "{algo} {args:?}: {o:?}");
            (
                String::from_utf8(o.stdout).unwrap(),
                String::from_utf8(o.stderr).unwrap(),
            )
        };
        let (one, one_err) = run(&["-j1"]);
        let (two, two_err) = run(&["-j2"]);
        let (read, _) = run(&["-j2", "--io", "read"]);
        assert_eq!(two, one, "{algo}");
        assert_eq!(read, one, "{algo}");
        assert!(one_err.ends_with(", read\n"), "{one_err}");
        assert!(two_err.ends_with(", read (2 threads)\n"), "{two_err}");
    }
}

/// A file that shrinks while two threads read it (XXH3, 64 GiB sparse cut
/// to 1 MiB after 300 ms): no error, no crash; as with `read(2)` on one
/// thread, the digest is of the bytes read before the cut.
#[cfg(target_os = "linux")]
#[test]
fn file_truncated_while_two_threads_read_it_ends_where_it_was_cut() {
    let (o, _) = truncated_mid_hash(64 << 30, &["-j2"], "xxh3");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "killed or failed: {:?} {err}", o.status);
    assert!(err.contains(", read (2 threads)\n"), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).ends_with("  shrinks\n"));
}

#[test]
fn one_large_file_split_across_threads_gives_the_same_crc() {
    use std::io::{Seek, SeekFrom, Write};
    let d = TempDir::new().unwrap();
    let path = d.path().join("big");
    let mut f = fs::File::create(&path).unwrap();
    // 80 MiB + 3 bytes, sparse, with data across the segment boundaries.
    f.set_len((80 << 20) + 3).unwrap();
    for (i, off) in [0u64, (16 << 20) - 3, 40 << 20, (64 << 20) + 1, (80 << 20) - 97]
        .into_iter()
        .enumerate()
    {
        f.seek(SeekFrom::Start(off)).unwrap();
        f.write_all(&noise(100, i as u64)).unwrap();
    }
    drop(f);
    // The portable CRC cannot be split (no combination step for it): under
    // `MHASH_BACKEND=portable cargo test` the runs here are portable too.
    let portable = util::caller_forces_portable();
    for algo in ["crc", "crc32b"] {
        let run = |j: &str| {
            let mut c = util::command(util::MHASH);
            if portable {
                c.env("MHASH_BACKEND", "portable");
            }
            // The table's backend (it can be split): a measurement may pick
            // the portable one, which cannot (as qemu's timings did).
            let o = c
                .env("MHASH_CALIBRATE", "never")
                .current_dir(d.path())
                .args(["--debug", j, "-a", algo, "big"])
                .output()
                .unwrap();
            assert!(o.status.success());
            (
                String::from_utf8(o.stdout).unwrap(),
                String::from_utf8(o.stderr).unwrap(),
            )
        };
        let (one, one_err) = run("-j1");
        let (split, split_err) = run("-j3");
        assert_eq!(split, one, "{algo}");
        assert!(one_err.ends_with(", read\n"), "{one_err}");
        let want = if portable && algo == "crc" {
            ", read\n"
        } else {
            ", read (split)\n"
        };
        assert!(split_err.ends_with(want), "{split_err}");
        if algo == "crc"
            && util::gnu_available("parallel::one_large_file_split_across_threads_gives_the_same_crc (cksum)")
        {
            let gnu = util::gnu("cksum")
                .current_dir(d.path())
                .arg("big")
                .output()
                .unwrap();
            assert_bytes_eq!(split, gnu.stdout, "mhash -j3 -a crc vs GNU cksum");
        }
    }
}

#[test]
fn many_jobs_fit_in_gnus_virtual_memory_limit() {
    if let Some(emu) = emulator() {
        util::skip(
            "parallel::many_jobs_fit_in_gnus_virtual_memory_limit",
            &format!("ulimit -v would limit {emu} too"),
        );
        return;
    }
    // (-j8 on any machine: 4x the cores here. -j64 aborted in about 1 run
    // of 60-100 under load when address space ran out inside a new thread;
    // see docs/reliability.md.)
    // GNU's tests run `cksum --check` under `ulimit -v` of the smallest
    // limit `--version` runs in, plus 12 MB: thread stacks and buffers must
    // fit (or the run goes on with fewer threads), whatever -j asks for.
    let d = TempDir::new().unwrap();
    corpus(d.path());
    let script = r#"
        vm=0
        for v in $(seq 2000 1000 200000); do
          if (ulimit -v $v && mmhash --version) >/dev/null 2>&1; then vm=$v; break; fi
        done
        [ "$vm" -gt 0 ] || { echo "no limit found"; exit 99; }
        mmhash -j1 -a sha256 f000 f001 f002 f017 > SUMS
        (ulimit -v $((vm + 12000)) && mmhash -j8 -a sha256 -c SUMS && mmhash -j8 -a sha256 f000 f001 f002 f017)
    "#;
    let o = sh(d.path(), script, &[]);
    let text = String::from_utf8_lossy(&o.merged).into_owned();
    assert_eq!(o.code, Some(0), "{text}");
    assert!(
        text.starts_with("f000: OK\nf001: OK\nf002: OK\nf017: OK\n"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 8, "{text}");
}

/// BLAKE3 of `len` zero bytes, by the `blake3` crate (the oracle).
#[cfg(target_os = "linux")]
fn blake3_of_zeros(len: u64) -> String {
    let zeros = vec![0u8; 1 << 20];
    let mut h = blake3::Hasher::new();
    let mut left = len;
    while left > 0 {
        let n = left.min(zeros.len() as u64) as usize;
        h.update_rayon(&zeros[..n]);
        left -= n as u64;
    }
    h.finalize().to_hex().to_string()
}

/// A large BLAKE3 file is hashed by this process and a forked worker
/// process: killed with SIGKILL mid-run, the worker's pieces are hashed by
/// the parent, and the digest is still the file's (the `blake3` crate's
/// digest of the same zeros), with exit status 0.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_worker_process_costs_no_piece() {
    use std::time::{Duration, Instant};
    let d = TempDir::new().unwrap();
    let len: u64 = (8 << 30) + 12345;
    fs::File::create(d.path().join("big"))
        .unwrap()
        .set_len(len)
        .unwrap();
    let child = util::command(util::MHASH)
        .current_dir(d.path())
        .args(["-j2", "-a", "blake3", "big"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // The worker: a child process of mhash (any of its threads may fork).
    let started = Instant::now();
    let mut killed = false;
    while started.elapsed() < Duration::from_secs(20) && !killed {
        if let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) {
            for t in tasks.flatten() {
                let kids = fs::read_to_string(t.path().join("children")).unwrap_or_default();
                for k in kids.split_whitespace() {
                    killed |= std::process::Command::new("kill")
                        .args(["-KILL", k])
                        .status()
                        .is_ok_and(|s| s.success());
                }
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(killed, "no worker process was seen");
    assert!(o.status.success(), "{:?} {err}", o.status);
    assert_eq!(err, "");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("{}  big\n", blake3_of_zeros(len))
    );
}

/// Where no worker process can be forked (`RLIMIT_NPROC` reached, run as
/// an unprivileged user: root is not held to it), the pool's threads hash
/// the pieces: same digest, no error.
#[cfg(target_os = "linux")]
#[test]
fn no_fork_allowed_means_threads() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 || !Path::new("/usr/bin/setpriv").exists() {
        eprintln!("SKIP no_fork_allowed_means_threads: needs root and setpriv to drop to nobody");
        return;
    }
    let d = TempDir::new().unwrap();
    let len: u64 = (256 << 20) + 7;
    fs::File::create(d.path().join("big"))
        .unwrap()
        .set_len(len)
        .unwrap();
    // A copy of mhash that the unprivileged user can run wherever the
    // checkout lies.
    let bin = d.path().join("mhash");
    fs::copy(util::MHASH, &bin).unwrap();
    for p in [d.path(), bin.as_path()] {
        let mut perms = fs::metadata(p).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        fs::set_permissions(p, perms).unwrap();
    }
    // The main thread and the pool's 2 threads fit under 3 processes; a
    // fork does not.
    let o = std::process::Command::new("prlimit")
        .current_dir(d.path())
        .args([
            "--nproc=3",
            "/usr/bin/setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ])
        .arg(&bin)
        .args(["-j2", "--debug", "-a", "blake3", "big"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{:?} {err}", o.status);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("{}  big\n", blake3_of_zeros(len))
    );
    // (Where other processes of that user leave no room for the pool's
    // threads either, the file is streamed on one thread instead.)
    assert!(err.ends_with(", mmap\n") || err.ends_with(", read\n"), "{err}");
}
