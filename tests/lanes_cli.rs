//! Multi-buffer hashing is invisible except for speed: many files hashed
//! side by side in lane kernels print, under GNU names, what GNU coreutils
//! 9.1 prints (stdout and stderr interleaved, exit status), for every job
//! count, in hash and check mode; `--debug` names the lane kernel, and
//! `MHASH_BACKEND=portable` turns the lanes off.
#![cfg(unix)]

use std::fs;
use std::path::Path;
use tempfile::TempDir;

use crate::util::{self, assert_same, noise, sh_in};

const TOOLS: [&str; 3] = ["md5sum", "sha256sum", "sha224sum"];

/// Files around every padding boundary, empty files, a large file among
/// small ones, missing files and a directory; returns the operands.
fn corpus(dir: &Path) -> String {
    let bin = dir.join(".bin");
    let gnu = dir.join(".gnu");
    util::mhash_link(&bin, "mmhash");
    for n in TOOLS {
        util::mhash_link(&bin, n);
        util::gnu_link(&gnu, n);
    }
    fs::create_dir(dir.join("sub")).unwrap();
    let mut ops = Vec::new();
    let sizes = [
        0, 55, 56, 63, 64, 65, 0, 1, 119, 120, 127, 128, 129, 4096, 4095, 4097,
    ];
    for round in 0..6usize {
        for (i, &len) in sizes.iter().enumerate() {
            let name = format!("f{round}_{i}");
            fs::write(dir.join(&name), noise(len + round, (round * 100 + i) as u64)).unwrap();
            ops.push(name);
        }
        ops.push(format!("missing{round}"));
        if round % 2 == 0 {
            ops.push("sub".into());
        }
        // A large file mixed in: it outlives many small ones in its lane.
        let big = format!("big{round}");
        fs::write(dir.join(&big), noise(600_000 + round * 4099, round as u64)).unwrap();
        ops.push(big);
    }
    ops.join(" ")
}

#[test]
fn many_files_in_lanes_print_what_gnu_prints() {
    let d = TempDir::new().unwrap();
    let ops = corpus(d.path());
    for tool in TOOLS {
        let want = if util::gnu_available(&format!(
            "lanes_cli::many_files_in_lanes_print_what_gnu_prints ({tool}; compared with mhash's portable backend instead)"
        )) {
            sh_in(d.path(), ".gnu", &format!("{tool} {ops}"), &[])
        } else {
            sh_in(
                d.path(),
                ".bin",
                &format!("{tool} {ops}"),
                &[("MHASH_BACKEND", "portable")],
            )
        };
        assert_eq!(want.code, Some(1));
        for jobs in ["1", "2", "3"] {
            for backend in ["", "portable"] {
                let env = [
                    ("MHASH_GNU_COMPAT", "9.1"),
                    ("MHASH_JOBS", jobs),
                    ("MHASH_BACKEND", backend),
                ];
                let ours = sh_in(d.path(), ".bin", &format!("{tool} {ops}"), &env);
                assert_same(
                    &ours,
                    &want,
                    &format!("{tool} MHASH_JOBS={jobs} MHASH_BACKEND={backend}"),
                );
            }
        }
    }
}

/// `MHASH_CALIBRATE=always` times the lane kernels even for a few files
/// (by default only for 4,096 operands or more): the output is still
/// GNU's, and `--debug` names every candidate's speed (where there are
/// two or more kernels to choose from).
#[test]
fn lane_kernels_chosen_by_measurement_print_what_gnu_prints() {
    let d = TempDir::new().unwrap();
    let ops = corpus(d.path());
    for tool in TOOLS {
        if !util::gnu_available(&format!(
            "lanes_cli::lane_kernels_chosen_by_measurement_print_what_gnu_prints ({tool})"
        )) {
            continue;
        }
        let want = sh_in(d.path(), ".gnu", &format!("{tool} {ops}"), &[]);
        let env = [("MHASH_GNU_COMPAT", "9.1"), ("MHASH_CALIBRATE", "always")];
        let ours = sh_in(d.path(), ".bin", &format!("{tool} {ops}"), &env);
        assert_same(&ours, &want, &format!("{tool} MHASH_CALIBRATE=always"));
    }
    let kernels = |algo: &str| {
        mhash::algo::lanes::lane_kernels()
            .iter()
            .filter(|k| {
                k.serves(mhash::algo::Algorithm::new(
                    mhash::algo::AlgoKind::from_name(algo).unwrap(),
                ))
            })
            .filter(|k| k.is_available())
            .count()
    };
    for algo in ["md5", "sha256"] {
        let o = sh_in(
            d.path(),
            ".bin",
            &format!("mmhash -a {algo} --debug f0_1 f0_2 f0_3"),
            &[("MHASH_CALIBRATE", "always")],
        );
        let out = o.text();
        assert_eq!(o.code, Some(0));
        if kernels(algo) >= 2 && util::emulator().is_none() {
            assert!(
                out.contains("lanes hardware support (mhash; chosen by measurement: ")
                    && out.contains(" MB/s"),
                "{algo}: {out}"
            );
        }
    }
}

#[test]
fn check_mode_in_lanes_prints_what_gnu_prints() {
    let d = TempDir::new().unwrap();
    let ops = corpus(d.path());
    for tool in TOOLS {
        let sums = sh_in(d.path(), ".bin", &format!("{tool} {ops} 2>/dev/null"), &[]).text();
        // Damage every fifth line's digest and name a missing file.
        let mut lines: Vec<String> = sums.lines().map(str::to_string).collect();
        for l in lines.iter_mut().step_by(5) {
            let c = if l.starts_with('0') { "1" } else { "0" };
            l.replace_range(0..1, c);
        }
        lines.push(format!("{}  gone", "0".repeat(sums.find(' ').unwrap())));
        fs::write(d.path().join("SUMS"), lines.join("\n") + "\n").unwrap();
        if !util::gnu_available(&format!(
            "lanes_cli::check_mode_in_lanes_prints_what_gnu_prints ({tool})"
        )) {
            continue;
        }
        let want = sh_in(d.path(), ".gnu", &format!("{tool} -c SUMS"), &[]);
        assert_eq!(want.code, Some(1));
        for jobs in ["1", "2", "3"] {
            let env = [("MHASH_GNU_COMPAT", "9.1"), ("MHASH_JOBS", jobs)];
            let ours = sh_in(d.path(), ".bin", &format!("{tool} -c SUMS"), &env);
            assert_same(&ours, &want, &format!("{tool} -c with MHASH_JOBS={jobs}"));
        }
    }
}

#[test]
#[cfg(target_arch = "x86_64")]
fn debug_names_the_lane_kernel_and_portable_turns_it_off() {
    let d = TempDir::new().unwrap();
    corpus(d.path());
    let avx2 = std::arch::is_x86_feature_detected!("avx2");
    let avx512 = avx2
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl");
    let o = sh_in(d.path(), ".bin", "mmhash -a md5 --debug f0_1 f0_2 f0_3", &[]);
    let (out, code) = (o.text(), o.code);
    assert_eq!(code, Some(0));
    let kernel = if avx512 { "avx512-x16" } else { "avx2-x8" };
    let line = format!("f0_1: md5: using {kernel} lanes hardware support (mhash), read");
    assert_eq!(out.contains(&line), avx2, "{out}");
    // GLIBC_TUNABLES turns AVX-512 off: the AVX2 kernel runs instead.
    if avx512 {
        let out = sh_in(
            d.path(),
            ".bin",
            "mmhash -a md5 --debug f0_1 f0_2 f0_3",
            &[("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX512VL")],
        )
        .text();
        assert!(out.contains("using avx2-x8 lanes hardware support"), "{out}");
    }
    // Without AVX2, the SSE2 kernel (four lanes, part of x86-64).
    if cfg!(target_arch = "x86_64") {
        let out = sh_in(
            d.path(),
            ".bin",
            "mmhash -a md5 --debug f0_1 f0_2 f0_3",
            &[("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX2")],
        )
        .text();
        assert!(out.contains("using sse2-x4 lanes hardware support"), "{out}");
    }
    // SHA-256 without SHA-NI: sixteen lanes of AVX-512, or without that
    // too, eight lanes of AVX2.
    if avx2 {
        for (tunables, kernel) in [
            (
                "glibc.cpu.hwcaps=-SHA_NI",
                if avx512 { "avx512-x16" } else { "avx2-x8" },
            ),
            ("glibc.cpu.hwcaps=-SHA_NI,-AVX512VL", "avx2-x8"),
        ] {
            let o = sh_in(
                d.path(),
                ".bin",
                "mmhash -a sha256 --debug f0_1 f0_2 f0_3",
                &[("GLIBC_TUNABLES", tunables)],
            );
            let (out, code) = (o.text(), o.code);
            assert_eq!(code, Some(0));
            assert!(
                out.contains(&format!("sha256: using {kernel} lanes hardware support")),
                "{tunables}: {out}"
            );
        }
    }
    let out = sh_in(
        d.path(),
        ".bin",
        "mmhash -a md5 --debug f0_1 f0_2 f0_3",
        &[("MHASH_BACKEND", "portable")],
    )
    .text();
    assert!(!out.contains("lanes"), "{out}");
    assert!(out.contains("using portable software"), "{out}");
    // One file alone takes the single-stream backend.
    let out = sh_in(d.path(), ".bin", "mmhash -a md5 --debug f0_1", &[]).text();
    assert!(!out.contains("lanes"), "{out}");
    let report = sh_in(d.path(), ".bin", "mmhash --backends", &[]).text();
    assert!(report.contains("avx2-x8"), "{report}");
    assert!(report.contains("sha-ni-x4"), "{report}");
    assert!(report.contains("sse2-x4"), "{report}");
}

/// A FIFO among files that share lanes: it is read alone, after the lines
/// before it are out, whether its writer comes before or after mhash
/// reaches it; the digests are GNU's.
#[test]
fn fifos_among_lane_files_are_read_whole() {
    let d = TempDir::new().unwrap();
    corpus(d.path());
    let fifo = d.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let ops = "f0_1 f0_2 f0_3 fifo f0_4 big0 f0_5 sub f0_6";
    for writer in [
        "printf 'hello fifo' > fifo &",
        "(sleep 0.3; printf 'late writer' > fifo) &",
    ] {
        for tool in ["md5sum", "sha256sum"] {
            let cmd = format!("{writer} {tool} {ops}");
            let ours = sh_in(
                d.path(),
                ".bin",
                &cmd,
                &[("MHASH_GNU_COMPAT", "9.1"), ("MHASH_JOBS", "1")],
            );
            let theirs = if util::gnu_available(&format!(
                "lanes_cli::fifos_among_lane_files_are_read_whole ({tool}; compared with mhash's portable backend instead)"
            )) {
                sh_in(d.path(), ".gnu", &cmd, &[])
            } else {
                sh_in(d.path(), ".bin", &cmd, &[("MHASH_BACKEND", "portable")])
            };
            assert_same(&ours, &theirs, &cmd);
            assert!(ours.text().contains("  fifo\n"), "{}", ours.text());
        }
    }
}

/// Files that `fstat` calls empty but that have content (procfs, sysfs),
/// and `/dev/null`, among lane files: the lanes read each at offsets until
/// a read returns 0 (`io::lanes::read_at`), so every byte is hashed, as
/// GNU's reads to end of file hash them (Linux only: procfs).
#[test]
#[cfg(target_os = "linux")]
fn files_with_no_size_among_lane_files_are_read_to_their_end() {
    let d = TempDir::new().unwrap();
    corpus(d.path());
    let mut ops = vec![
        "f0_1",
        "/proc/version",
        "f0_2",
        "/proc/filesystems",
        "/dev/null",
        "f0_3",
    ];
    // Large (several reads; fstat says 0 once a read fills the buffer)
    // where readable.
    if fs::read("/proc/kallsyms").is_ok_and(|b| b.len() > 1 << 16) {
        ops.push("/proc/kallsyms");
    }
    ops.extend([
        "f0_4",
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "f0_5",
        "f0_6",
    ]);
    let ops: Vec<&str> = ops
        .into_iter()
        .filter(|o| !o.starts_with('/') || Path::new(o).exists())
        .collect();
    let ops = ops.join(" ");
    for tool in ["md5sum", "sha256sum"] {
        let cmd = format!("{tool} {ops}");
        let ours = sh_in(d.path(), ".bin", &cmd, &[("MHASH_GNU_COMPAT", "9.1")]);
        let theirs = if util::gnu_available(&format!(
            "lanes_cli::files_with_no_size_among_lane_files_are_read_to_their_end ({tool}; compared with mhash's portable backend, files one at a time, instead)"
        )) {
            sh_in(d.path(), ".gnu", &cmd, &[])
        } else {
            sh_in(d.path(), ".bin", &cmd, &[("MHASH_BACKEND", "portable")])
        };
        assert_same(&ours, &theirs, &cmd);
        assert_eq!(ours.code, Some(0), "{cmd}");
        assert!(ours.text().contains("  /proc/version\n"), "{}", ours.text());
    }
}

/// 1,000 files with missing names, a directory and an empty file among
/// them, many more than one io_uring batch (16 opens) and than a thread
/// hashes before it sets up a ring (256): what GNU prints, with every job
/// count, and the same with `MHASH_IO=read` (each file opened and closed
/// by its own system call). Where io_uring works here (`strace` sees
/// `io_uring_setup` succeed), most files are not opened by openat(2):
/// fewer openat calls than half the files.
#[test]
fn files_opened_in_io_uring_batches_print_what_gnu_prints() {
    let d = TempDir::new().unwrap();
    corpus(d.path());
    let mut ops = Vec::new();
    for i in 0..1000usize {
        let name = format!("r{i:04}");
        match i % 37 {
            5 => ops.push(format!("gone{i}")),
            11 => ops.push("sub".to_string()),
            _ => {
                fs::write(d.path().join(&name), noise((i * 61) % 5000, i as u64)).unwrap();
                ops.push(name);
            }
        }
    }
    let ops = ops.join(" ");
    for tool in ["md5sum", "sha256sum"] {
        let cmd = format!("{tool} {ops}");
        let want = if util::gnu_available(&format!(
            "lanes_cli::files_opened_in_io_uring_batches_print_what_gnu_prints ({tool}; compared with MHASH_IO=read instead)"
        )) {
            sh_in(d.path(), ".gnu", &cmd, &[])
        } else {
            sh_in(
                d.path(),
                ".bin",
                &cmd,
                &[("MHASH_IO", "read"), ("MHASH_GNU_COMPAT", "9.1")],
            )
        };
        assert_eq!(want.code, Some(1));
        for jobs in ["1", "2", "4"] {
            for io in ["auto", "read"] {
                let env = [
                    ("MHASH_GNU_COMPAT", "9.1"),
                    ("MHASH_JOBS", jobs),
                    ("MHASH_IO", io),
                ];
                let ours = sh_in(d.path(), ".bin", &cmd, &env);
                assert_same(&ours, &want, &format!("{tool} MHASH_JOBS={jobs} MHASH_IO={io}"));
            }
        }
    }
    let traced = util::command("strace")
        .current_dir(d.path())
        .args([
            "-f",
            "-qq",
            "-c",
            "-o",
            "trace",
            "-e",
            "trace=openat,io_uring_setup",
        ])
        .env("MHASH_JOBS", "1")
        .arg(d.path().join(".bin/md5sum"))
        .args(ops.split(' '))
        .output();
    let Ok(t) = traced else {
        util::skip(
            "lanes_cli::files_opened_in_io_uring_batches_print_what_gnu_prints",
            "strace is not installed: the openat count was NOT checked",
        );
        return;
    };
    let summary = fs::read_to_string(d.path().join("trace")).unwrap_or_default();
    let calls = |name: &str| -> Option<(u64, u64)> {
        summary.lines().find(|l| l.trim_end().ends_with(name)).map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            // % time, seconds, usecs/call, calls, [errors,] syscall
            let n = f[3].parse().unwrap_or(0);
            let errors = if f.len() == 6 {
                f[4].parse().unwrap_or(0)
            } else {
                0
            };
            (n, errors)
        })
    };
    match calls("io_uring_setup") {
        Some((n, errors)) if n > errors && t.status.code() == Some(1) => {
            let (opens, _) = calls("openat").unwrap_or((0, 0));
            assert!(opens < 500, "{opens} openat calls for 1,000 operands:\n{summary}");
        }
        _ => util::skip(
            "lanes_cli::files_opened_in_io_uring_batches_print_what_gnu_prints",
            &format!("io_uring is not available here: the batched opens were NOT checked\n{summary}"),
        ),
    }
}
