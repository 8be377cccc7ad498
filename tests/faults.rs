//! Faults and limits: descriptors running out, processes
//! sharing one pipe, address-space limits, EAGAIN and EINTR, close(2)
//! errors, standard input named twice, hostile names in the progress bar.
//! No file may be lost, no line torn, no run abort or loop for ever.
//!
//! As in `reliability`, a case GNU coreutils 9.1 can run is run by both
//! (same `bash -c` line, the GNU name, `MHASH_GNU_COMPAT=9.1`) and must
//! give the same bytes and status; each case also asserts its outcome on
//! mhash alone. Fault injection needs strace (`.ci/run` installs it) and
//! a working ptrace; where either is missing the case says `SKIP` on
//! stderr.
#![cfg(unix)]

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Output;

use crate::util::{self, emulator, skip};

const TOOLS: &[&str] = &[
    "md5sum",
    "sha256sum",
    "sha512sum",
    "cksum",
    "b2sum",
    "sum",
    "mhash",
];

/// A scratch directory ([`util::Scratch`]) with `a` ("abc").
struct Env(util::Scratch);

impl std::ops::Deref for Env {
    type Target = util::Scratch;
    fn deref(&self) -> &util::Scratch {
        &self.0
    }
}

fn env() -> Env {
    let s = util::Scratch::new(TOOLS);
    s.w("a", b"abc");
    Env(s)
}

impl Env {
    /// `cmd` with mhash and, where installed, with GNU 9.1: the same
    /// stdout, stderr and status required. Returns mhash's.
    #[track_caller]
    fn same(&self, cmd: &str) -> Output {
        let m = self.sh(&self.mh, cmd);
        if util::gnu_available(&format!("faults: {cmd} (mhash's outcome checked alone)")) {
            let g = self.sh(&self.gnu, cmd);
            assert!(
                g.stdout == m.stdout && g.stderr == m.stderr && g.status == m.status,
                "mhash differs from GNU 9.1 for: {cmd}\n--- GNU ({:?}):\n{}\n{}\n--- mhash ({:?}):\n{}\n{}",
                g.status,
                show(&g.stdout),
                show(&g.stderr),
                m.status,
                show(&m.stdout),
                show(&m.stderr)
            );
        }
        m
    }
}

fn show(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(&b[..b.len().min(3000)]).into_owned();
    if b.len() > 3000 {
        format!("{s}... ({} bytes)", b.len())
    } else {
        s
    }
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// True when strace can trace here (installed, and ptrace allowed); else
/// a `SKIP` line naming `what`.
fn strace_works(what: &str) -> bool {
    let ok = util::command("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip(
            &format!("faults::{what}"),
            "strace is not installed or cannot trace here (ptrace refused): the fault injection did NOT run",
        );
    }
    ok
}

/// `n` small files `f000`.. in the working directory, and `SUMS`, their
/// MD5 checksum lines (as GNU writes them).
fn many_files(e: &Env, n: usize) -> String {
    let mut sums = String::new();
    for i in 0..n {
        let name = format!("d/f{i:03}");
        let data = format!("file {i}\n");
        e.w(&name, data.as_bytes());
        sums.push_str(&format!("{:x}  {name}\n", md5(data.as_bytes())));
    }
    e.w("SUMS", sums.as_bytes());
    sums
}

fn md5(data: &[u8]) -> HexBytes {
    HexBytes(mhash::algo::Algorithm::new(mhash::algo::AlgoKind::Md5).digest(data))
}

struct HexBytes(Vec<u8>);

impl std::fmt::LowerHex for HexBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&hex::encode(&self.0))
    }
}

/// Item 1: EMFILE on open never costs a file. Under `ulimit -n` 5, 8 and
/// 16 (three descriptors taken by stdio), hash mode, check mode, `-r` and
/// `--files-from`, with one worker (lanes: fewer lanes) and four (workers
/// wait for a descriptor), hash every file, in order, as GNU does.
#[test]
fn scarce_descriptors_cost_no_file() {
    let e = env();
    let sums = many_files(&e, 300);
    let names: Vec<&str> = sums.lines().map(|l| &l[34..]).collect();
    e.w("LIST", (names.join("\n") + "\n").as_bytes());
    for n in [5, 8, 16] {
        for jobs in [1, 4] {
            // The limit is set in a subshell: the shell itself then has
            // its descriptors for the redirections and `cat`.
            let hash =
                format!("(ulimit -n {n} && MHASH_JOBS={jobs} exec md5sum d/f*) >o 2>e; echo $?; cat o e");
            let m = e.same(&hash);
            assert_eq!(out(&m), format!("0\n{sums}"), "{hash}");
            let check =
                format!("(ulimit -n {n} && MHASH_JOBS={jobs} exec md5sum -c SUMS) >o 2>e; echo $?; cat o e");
            let m = e.same(&check);
            let oks: String = names.iter().map(|f| format!("{f}: OK\n")).collect();
            assert_eq!(out(&m), format!("0\n{oks}"), "{check}");
            for how in ["-r d", "--files-from LIST"] {
                let cmd = format!(
                    "(ulimit -n {n} && exec mhash -j{jobs} -a md5 {how}) >o 2>e; echo $?; sort o; cat e"
                );
                let m = e.sh(&e.mh, &cmd);
                let mut want: Vec<&str> = sums.lines().collect();
                want.sort_unstable();
                assert_eq!(out(&m), format!("0\n{}\n", want.join("\n")), "{cmd}");
            }
        }
    }
}

/// The lines 4 processes wrote into one pipe (or an `O_APPEND` file):
/// every line must be one of `expected`'s, each as often as listed.
fn assert_untorn(got: &[u8], expected: &[String], copies: usize, what: &str) {
    let mut torn = 0;
    let mut count = std::collections::HashMap::<&[u8], usize>::new();
    for l in got.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        *count.entry(l).or_default() += 1;
    }
    for (l, c) in &count {
        if !expected.iter().any(|x| x.as_bytes() == *l) {
            eprintln!("{what}: torn line: {:.300}", String::from_utf8_lossy(l));
            torn += c;
        }
    }
    assert_eq!(torn, 0, "{what}: {torn} torn lines");
    for x in expected {
        assert_eq!(
            count.get(x.as_bytes()).copied(),
            Some(copies),
            "{what}: copies of {x:.60}"
        );
    }
}

/// Item 2: writes to a pipe or an `O_APPEND` file end at line boundaries
/// and hold at most PIPE_BUF (4,096) bytes, a longer line in a write of
/// its own: four `sha512sum` processes sharing one pipe (GNU's
/// `md5sum-parallel` test, with 200-byte names and a 4 KB path) tear no
/// line. strace shows each write's size and end where it can trace.
#[test]
fn four_processes_sharing_a_pipe_tear_no_line() {
    let e = env();
    let mut names = Vec::new();
    for i in 0..40 {
        names.push(format!("n/{}{i:04}", "x".repeat(196)));
    }
    // A line longer than PIPE_BUF: a 3,985-byte path (16 directories of
    // 248 bytes), within PATH_MAX where the test creates it.
    let deep = (0..16)
        .map(|i| format!("{i:02}{}", "y".repeat(246)))
        .collect::<Vec<_>>()
        .join("/");
    names.push(format!("{deep}/z"));
    let mut expected = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let data = format!("content {i}\n");
        e.w(n, data.as_bytes());
        let d = mhash::algo::Algorithm::new(mhash::algo::AlgoKind::Sha512).digest(data.as_bytes());
        expected.push(format!("{}  {n}", hex::encode(d)));
    }
    // 50 copies of the short names, 2,000: xargs gives each process 200.
    // (A line longer than PIPE_BUF cannot be written atomically by
    // anyone: it is only checked for having a write of its own, below.)
    let copies = 50;
    let short = &names[..names.len() - 1];
    let list: String = (0..copies)
        .flat_map(|_| short.iter())
        .map(|n| format!("{n}\n"))
        .collect();
    e.w("LIST", list.as_bytes());
    let mut with_long = list.clone();
    with_long.push_str(&format!("{}\n", names[names.len() - 1]));
    e.w("LIST2", with_long.as_bytes());
    let long_line = expected.pop().unwrap().len() + 1;
    for run in 0..3 {
        let m = e.sh(&e.mh, "xargs -d '\\n' -n 200 -P 4 sha512sum <LIST | cat");
        assert!(m.status.success(), "{}", err(&m));
        assert_untorn(&m.stdout, &expected, copies, &format!("pipe, run {run}"));
    }
    let m = e.sh(
        &e.mh,
        "rm -f OUT; xargs -d '\\n' -n 200 -P 4 sha512sum <LIST >>OUT && cat OUT",
    );
    assert!(m.status.success(), "{}", err(&m));
    assert_untorn(&m.stdout, &expected, copies, "O_APPEND file");
    if !strace_works("four_processes_sharing_a_pipe_tear_no_line (write sizes)") {
        return;
    }
    let m = e.sh(
        &e.mh,
        // xargs may split the list by the command line's length (which
        // depends on the environment's size): each strace appends (-A), so
        // the trace holds every batch, not the last one alone.
        "rm -f TRACE; xargs -d '\\n' -a LIST2 -n 3000 strace -A -f -qq -s 9000 -e trace=write -o TRACE sha512sum | cat >/dev/null; cat TRACE",
    );
    let trace = out(&m);
    let mut writes = 0;
    for l in trace.lines().filter(|l| l.contains("write(1, ")) {
        let size: usize = l.rsplit(' ').next().and_then(|s| s.parse().ok()).expect(l);
        writes += 1;
        assert!(
            l.contains("\\n\", "),
            "a write to the pipe ends mid-line: {l:.200}"
        );
        assert!(
            size <= 4096 || size == long_line,
            "a write of {size} bytes to a pipe (PIPE_BUF is 4096; the long line is {long_line})"
        );
    }
    assert!(writes > 10, "too few writes traced: {trace:.500}");
    assert!(
        trace.contains(&format!(") = {long_line}\n")),
        "the long line in a write of its own"
    );
}

/// Item 3: no abort under an address-space limit. `mhash -j8` on 300
/// files (`-r`, lanes) and `md5sum -c` under `ulimit -v` 20, 30 and 40 MB
/// start fewer workers and lanes and hash everything.
#[test]
fn address_space_limits_end_in_no_abort() {
    if let Some(emu) = emulator() {
        skip(
            "faults::address_space_limits_end_in_no_abort",
            &format!("ulimit -v would limit {emu} too"),
        );
        return;
    }
    let e = env();
    let sums = many_files(&e, 300);
    let mut sorted: Vec<&str> = sums.lines().collect();
    sorted.sort_unstable();
    for mb in [20, 30, 40] {
        let kib = mb * 1000;
        for algo in ["md5", "sha256", "md5,sha1", "blake3"] {
            let cmd = format!("(ulimit -v {kib} && exec mhash -j8 -a {algo} -r d) >o 2>e; echo $?; cat e");
            let m = e.sh(&e.mh, &cmd);
            assert_eq!(out(&m), "0\n", "{cmd}");
            let lines = fs::read_to_string(e.work.join("o")).unwrap();
            assert_eq!(lines.lines().count(), 300 * algo.split(',').count(), "{cmd}");
        }
        let cmd = format!("(ulimit -v {kib} && MHASH_JOBS=8 exec md5sum -c SUMS) >o 2>e; echo $?; cat e");
        let m = e.sh(&e.mh, &cmd);
        assert_eq!(out(&m), "0\n", "{cmd}");
        let m = e.sh(
            &e.mh,
            &format!("(ulimit -v {kib} && MHASH_JOBS=8 exec md5sum d/f*) | sort"),
        );
        assert_eq!(out(&m), sorted.join("\n") + "\n");
        // Both limits at once: the size is read from /proc, which needs a
        // descriptor (unreadable, nothing more may start). The list names
        // the files 10 times: the old race showed in about 1 run in 6 of
        // 5,000 files.
        let list: Vec<&str> = sorted.iter().map(|l| &l[34..]).collect();
        e.w("LIST", (list.join("\n") + "\n").repeat(10).as_bytes());
        e.w("SUMS10", sums.repeat(10).as_bytes());
        for _ in 0..3 {
            for n in [8, 16] {
                for cmd in [
                    "MHASH_JOBS=8 exec md5sum -c SUMS",
                    "exec mhash -j8 -a md5 --files-from LIST",
                ] {
                    let cmd = format!("(ulimit -v {kib} && ulimit -n {n} && {cmd}) >o 2>e; echo $?; cat e");
                    let m = e.sh(&e.mh, &cmd);
                    assert_eq!(out(&m), "0\n", "{cmd}");
                }
            }
        }
    }
}

/// Item 3: a check line is kept to 32 MiB; a longer one is improperly
/// formatted, read past (GNU: the same outcome), and under `ulimit -v` one
/// without end ends the checksum file where GNU's `getline` ends it, when
/// its buffer can no longer grow.
#[test]
fn endless_check_line_is_improperly_formatted() {
    let e = env();
    let m = e.same("head -c 40000000 /dev/zero | tr '\\0' a | md5sum -c; echo $?");
    assert_eq!(out(&m), "1\n");
    assert_eq!(
        err(&m),
        "md5sum: 'standard input': no properly formatted checksum lines found\n"
    );
    // A long line between two good ones: they are checked.
    let m = e.same(
        "{ echo '900150983cd24fb0d6963f7d28e17f72  a'; head -c 40000000 /dev/zero | tr '\\0' b; echo; \
         echo '900150983cd24fb0d6963f7d28e17f72  a'; } | md5sum -c; echo $?",
    );
    assert_eq!(out(&m), "a: OK\na: OK\n0\n");
    assert_eq!(err(&m), "md5sum: WARNING: 1 line is improperly formatted\n");
    if emulator().is_some() {
        return;
    }
    let m = e.sh(
        &e.mh,
        "ulimit -v 3000000 && yes a | tr -d '\\n' | timeout 120 md5sum -c; echo $?",
    );
    assert_eq!(out(&m), "1\n");
    assert_eq!(
        err(&m),
        "md5sum: 'standard input': no properly formatted checksum lines found\n"
    );
}

/// A line of 300 MiB (past any fixed bound) with no address-space limit:
/// one improperly formatted line, and the lines after it are checked.
/// GNU 9.1 here: `a: OK`, `big: FAILED`, both WARNING lines, exit 1.
#[test]
fn a_line_of_300_mib_is_one_improper_line_and_reading_goes_on() {
    if emulator().is_some() {
        return;
    }
    let e = env();
    let m = e.same(
        "printf abc > a; : > big; { echo '900150983cd24fb0d6963f7d28e17f72  a'; \
         head -c 300M /dev/zero | tr '\\0' x; \
         printf '\\n00000000000000000000000000000000  big\\n'; } > long.md5; \
         md5sum -c --strict long.md5; echo $?",
    );
    assert_eq!(out(&m), "a: OK\nbig: FAILED\n1\n");
    assert_eq!(
        err(&m),
        "md5sum: WARNING: 1 line is improperly formatted\n\
         md5sum: WARNING: 1 computed checksum did NOT match\n"
    );
}

/// io_uring opens that the kernel cancels (ECANCELED: no io-wq worker can
/// start for an open that must block, the user being at `RLIMIT_NPROC`)
/// are opened again with open(2): 300 listed files not in the dentry
/// cache, checked as an unprivileged user under `prlimit --nproc=1`, are
/// all OK (was: `Operation canceled` for most of them), and hash mode
/// prints all 300 lines. Needs root (to drop the dentry cache and to run
/// as `nobody`: the limit does not bind root), setpriv and prlimit.
#[test]
fn ring_opens_cancelled_at_the_process_limit_are_opened_again() {
    let e = env();
    let script = format!(
        r#"
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && command -v prlimit >/dev/null || {{ echo SKIP not root, or no setpriv/prlimit; exit 0; }}
mkdir d; i=0; while [ $i -lt 300 ]; do echo $i > d/f$i; i=$((i+1)); done
cp '{}' ./md5sum
./md5sum d/f* > L.md5
chmod -R a+rwX .
run() {{ setpriv --reuid=65534 --regid=65534 --clear-groups prlimit --nproc=1 "$@"; }}
sync; echo 2 > /proc/sys/vm/drop_caches 2>/dev/null || {{ echo SKIP cannot drop the dentry cache; exit 0; }}
run ./md5sum -c L.md5 | grep -c ': OK$'
echo 2 > /proc/sys/vm/drop_caches
run ./md5sum d/f* | wc -l
"#,
        util::MHASH
    );
    let m = e.sh(&e.mh, &script);
    let o = out(&m);
    if o.starts_with("SKIP") {
        eprintln!("SKIP ring_opens_cancelled_at_the_process_limit_are_opened_again: {o}");
        return;
    }
    assert_eq!(o, "300\n300\n", "{}", err(&m));
}

/// Standard output is closed at the end as GNU's `close_stdout` closes it:
/// a write error that only close(2) reports (NFS, FUSE) fails the run.
/// GNU 9.1 here: `md5sum: write error: Input/output error`, exit 1.
#[test]
fn an_error_from_closing_standard_output_fails_the_run() {
    if !strace_works("an_error_from_closing_standard_output_fails_the_run") {
        return;
    }
    let e = env();
    for cmd in ["md5sum a", "md5sum -c ok.md5"] {
        let m = e.same(&format!(
            "echo '900150983cd24fb0d6963f7d28e17f72  a' > ok.md5; \
             strace -f -qq -o /dev/null -e trace=close -e inject=close:error=EIO -P \"$PWD/out\" {cmd} > out; echo $?"
        ));
        assert_eq!(out(&m), "1\n", "{cmd}");
        assert_eq!(err(&m), "md5sum: write error: Input/output error\n", "{cmd}");
    }
}

/// Check mode: lines naming standard input by any of its names are read
/// in line order (the first gets the data). GNU 9.1 here, for `abc` on
/// standard input and the lines `<md5 of abc>  /dev/stdin` then `<md5 of
/// nothing>  -`: `/dev/stdin: OK`, `-: OK`, exit 0.
#[test]
fn check_lines_naming_standard_input_read_it_in_line_order() {
    let e = env();
    for (first, second) in [
        ("/dev/stdin", "-"),
        ("-", "/dev/fd/0"),
        ("/proc/self/fd/0", "/dev/stdin"),
    ] {
        for jobs in [1, 4] {
            let m = e.same(&format!(
                "printf '900150983cd24fb0d6963f7d28e17f72  {first}\\nd41d8cd98f00b204e9800998ecf8427e  {second}\\n' > si.md5; \
                 printf abc | MHASH_JOBS={jobs} md5sum -c si.md5; echo $?"
            ));
            assert_eq!(out(&m), format!("{first}: OK\n{second}: OK\n0\n"), "-j{jobs}");
        }
    }
}

/// Item 5: EAGAIN on every read after the first (strace injection, on
/// `read` and `pread64`: the lanes read at offsets, `io::lanes::read_at`): one
/// retry after clearing O_NONBLOCK, then GNU's message, exit 1, in the
/// lanes (`a big`) and alone (`big`); EINTR without end is reported after
/// a bounded number of retries (GNU retries for ever: mhash alone).
#[test]
fn eagain_and_eintr_are_retried_a_bounded_number_of_times() {
    if !strace_works("eagain_and_eintr_are_retried_a_bounded_number_of_times") {
        return;
    }
    let e = env();
    e.w("big", &util::noise(3 << 20, 5));
    for files in ["a big", "big", "big a"] {
        let cmd = format!(
            "timeout 60 strace -f -qq -o /dev/null -P big -e inject=read,pread64:error=EAGAIN:when=2+ md5sum {files}; echo $?"
        );
        let m = e.same(&cmd);
        assert!(out(&m).ends_with("1\n"), "{cmd}: {}", out(&m));
        assert!(
            err(&m).ends_with("md5sum: big: Resource temporarily unavailable\n"),
            "{cmd}: {}",
            err(&m)
        );
    }
    for files in ["a big", "big"] {
        let cmd = format!(
            "timeout 120 strace -f -qq -o /dev/null -P big -e inject=read,pread64:error=EINTR:when=2+ md5sum {files}; echo $?"
        );
        let m = e.sh(&e.mh, &cmd);
        assert!(out(&m).ends_with("1\n"), "{cmd}: {} {}", out(&m), err(&m));
        assert!(
            err(&m).ends_with("md5sum: big: Interrupted system call\n"),
            "{cmd}: {}",
            err(&m)
        );
    }
}

/// Item 6: close(2) failing (EIO, injected) on an input fails it as GNU
/// reports it: `NAME: Input/output error`, exit 1 (`FAILED open or read`
/// in check mode); on the checksum file, its name and the error in place
/// of the summary.
#[test]
fn close_errors_fail_the_input() {
    if !strace_works("close_errors_fail_the_input") {
        return;
    }
    let e = env();
    e.w("big", &util::noise(1 << 20, 6));
    e.same("md5sum a big >SUMS");
    for cmd in [
        "strace -f -qq -o /dev/null -P a -e inject=close:error=EIO md5sum a big; echo $?",
        "strace -f -qq -o /dev/null -P a -e inject=close:error=EIO md5sum big a; echo $?",
        "strace -f -qq -o /dev/null -P a -e inject=close:error=EIO md5sum a; echo $?",
        "strace -f -qq -o /dev/null -P a -e inject=close:error=EIO md5sum -c SUMS; echo $?",
        "strace -f -qq -o /dev/null -P SUMS -e inject=close:error=EIO md5sum -c SUMS; echo $?",
    ] {
        let m = e.same(cmd);
        assert!(out(&m).ends_with("1\n"), "{cmd}: {}", out(&m));
        assert!(err(&m).contains(": Input/output error\n"), "{cmd}: {}", err(&m));
    }
}

/// With `--key` too, close(2) failing on the checksum file (read whole
/// for its signature) is that file's error: `NAME: Input/output error`,
/// exit 1, nothing checked (without `--key`: the same, as GNU above).
#[test]
fn close_error_on_a_signed_checksum_file_fails_it() {
    if !strace_works("close_error_on_a_signed_checksum_file_fails_it") {
        return;
    }
    let e = env();
    let set = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/signatures/minisign");
    for f in [
        "SHA256SUMS",
        "SHA256SUMS.minisig",
        "a.txt",
        "b.txt",
        "minisign.pub",
    ] {
        e.w(f, &std::fs::read(set.join(f)).unwrap());
    }
    let m = e.sh(
        &e.mh,
        "strace -f -qq -o /dev/null -P SHA256SUMS -e inject=close:error=EIO mhash -c SHA256SUMS --key minisign.pub; echo $?",
    );
    assert_eq!(out(&m), "1\n");
    assert!(
        err(&m).ends_with("mhash: SHA256SUMS: Input/output error\n"),
        "{}",
        err(&m)
    );
}

/// Under the `b3sum` name, as under mhash's, a failed write to standard
/// output ends the run: `yes LINE | b3sum -c > /dev/full` exits 1 at
/// once (b3sum's `println!` fails at the first write; was: read for
/// ever). The line is b3sum 1.x's for `abc`.
#[test]
fn b3sum_stops_at_a_failed_write() {
    let e = env();
    let m = e.sh(
        &e.mh,
        "ln -s \"$(command -v mhash)\" b3sum; \
         yes '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85  a' \
         | timeout 60 ./b3sum -c > /dev/full; echo $?",
    );
    assert_eq!(out(&m), "1\n", "{}", err(&m));
}

/// When the process's own descriptor limit is reached and none of its
/// inputs is open to be waited for, each file's open fails at once, as
/// GNU's does: `prlimit --nofile=4 md5sum -c` of 200 lines gives GNU's
/// bytes within `timeout 5` (the wait comes once; was about 50 ms per file, 10.6 s
/// here). GNU 9.1: `md5sum: f1: Too many open files`, `f1: FAILED open or
/// read`, ..., exit 1.
#[test]
fn descriptor_limit_with_nothing_to_wait_for_fails_each_file_at_once() {
    // An emulator needs descriptors of its own under the same limit.
    if emulator().is_some() {
        return;
    }
    let e = env();
    let m = e.same(
        "i=0; while [ $i -lt 200 ]; do echo $i > f$i; i=$((i+1)); done; \
         md5sum f* > L.md5 2>/dev/null; \
         timeout 5 prlimit --nofile=4 md5sum -c L.md5; echo $?",
    );
    assert!(out(&m).ends_with("f99: FAILED open or read\n1\n"), "{}", out(&m));
    assert!(
        err(&m).starts_with("md5sum: f0: Too many open files\n"),
        "{}",
        err(&m)
    );
}

/// EINTR without end (injected) on open and on writes to standard
/// output is reported after a bounded number of retries, in GNU's words
/// (GNU 9.1 here: `md5sum: a: Interrupted system call`, and `md5sum: write
/// error` with its errno lost); was: retried for ever (std retries EINTR
/// in open and write_all).
#[test]
fn persistent_eintr_on_open_and_write_is_reported() {
    if !strace_works("persistent_eintr_on_open_and_write_is_reported") {
        return;
    }
    let e = env();
    for cmd in [
        "strace -f -qq -o /dev/null -e inject=openat:error=EINTR -P a md5sum a",
        "strace -f -qq -o /dev/null -e inject=openat:error=EINTR -P a md5sum a a",
        "echo '900150983cd24fb0d6963f7d28e17f72  a' > S; strace -f -qq -o /dev/null -e inject=openat:error=EINTR -P a md5sum -c S",
        "strace -f -qq -o /dev/null -e inject=write:error=EINTR -P \"$PWD/out\" md5sum a > out",
    ] {
        let m = e.same(&format!(
            "{{ MHASH_GNU_COMPAT=9.1 timeout 60 {cmd}; echo $?; }} 2>&1 | grep -v '^strace: '"
        ));
        assert!(out(&m).ends_with("1\n"), "{cmd}: {}", out(&m));
        assert!(
            out(&m).contains("md5sum: a: Interrupted system call\n")
                || out(&m).contains("md5sum: write error\n"),
            "{cmd}: {}",
            out(&m)
        );
    }
}

/// A locale that is named but not installed is the C locale, as the C
/// library makes it for GNU: non-ASCII bytes in a name are escaped (GNU
/// 9.1 here: `md5sum: 'caf'$'\303\251'' m': No such file or directory`
/// under `LANG=xx_XX.UTF-8`; was: `'café m'`, the name read as UTF-8).
#[test]
fn a_locale_not_installed_is_the_c_locale() {
    let e = env();
    let m = e.same("LC_ALL= LC_CTYPE= LANG=xx_XX.UTF-8 md5sum \"$(printf 'caf\\303\\251 m')\"; echo $?");
    assert_eq!(out(&m), "1\n");
    assert_eq!(
        err(&m),
        "md5sum: 'caf'$'\\303\\251'' m': No such file or directory\n"
    );
}

/// `-z` digest lines into a full device: GNU does not write them line by
/// line, so the write error comes at the next diagnostic (which flushes
/// first, losing errno: `write error`) or at the end (keeping it: `write
/// error: No space left on device`), and a later missing file is still
/// reported. GNU 9.1 (run here) and GNU 9.11 (recorded from a build of
/// 9.11: `missing: No such file or directory` then `write error`; `write
/// error: No space left on device` for `-z a` alone).
#[test]
fn nul_ended_lines_into_a_full_device_fail_as_gnu_says() {
    let e = env();
    for args in ["-z a missing", "-z a"] {
        e.same(&format!(
            "MHASH_GNU_COMPAT=9.1 sha256sum {args} > /dev/full; echo $?"
        ));
    }
    let m = e.sh(&e.mh, "sha256sum -z a missing > /dev/full; echo $?");
    assert_eq!(out(&m), "1\n");
    assert_eq!(
        err(&m),
        "sha256sum: missing: No such file or directory\nsha256sum: write error\n"
    );
    let m = e.sh(&e.mh, "sha256sum -z a > /dev/full; echo $?");
    assert_eq!(err(&m), "sha256sum: write error: No space left on device\n");
}

/// Standard input closed when the run begins (`<&-`): the checksum file
/// opened on descriptor 0 is not read again by a `-` line. GNU 9.1 here:
/// `-: Bad file descriptor`, `-: FAILED open or read`, the WARNING, then
/// `standard input: Bad file descriptor`, exit 1 (was: `-: OK`).
#[test]
fn a_dash_line_with_standard_input_closed_is_ebadf() {
    let e = env();
    let m = e.same("printf 'd41d8cd98f00b204e9800998ecf8427e  -\\n' > l; md5sum -c l <&-; echo $?");
    assert_eq!(out(&m), "-: FAILED open or read\n1\n");
    assert!(
        err(&m).starts_with("md5sum: -: Bad file descriptor\n"),
        "{}",
        err(&m)
    );
}

/// GNU 8.32's cksum and sum, with standard input closed (`<&-`), name it
/// `-` in both of their messages (the read and `fclose (stdin)` at exit);
/// and 8.32's cksum dies at the first line it cannot write, before a
/// later operand is opened. The expected bytes are GNU coreutils 8.32's
/// (built from the v8.32 tag) for the same commands.
#[test]
fn gnu_8_32_cksum_and_sum_as_8_32_says() {
    let e = env();
    for tool in ["cksum", "sum", "sum -s"] {
        let prog = tool.split(' ').next().unwrap();
        let m = e.sh(&e.mh, &format!("MHASH_GNU_COMPAT=8.32 {tool} <&-; echo $?"));
        assert_eq!(out(&m), "1\n", "{tool}");
        assert_eq!(
            err(&m),
            format!("{prog}: -: Bad file descriptor\n{prog}: -: Bad file descriptor\n"),
            "{tool}"
        );
    }
    let m = e.sh(
        &e.mh,
        "MHASH_GNU_COMPAT=8.32 cksum a missing > /dev/full; echo $?",
    );
    assert_eq!(out(&m), "1\n");
    assert_eq!(
        err(&m),
        "cksum: -: write error: No space left on device\ncksum: write error\n"
    );
    // sum goes on to the next operand, as GNU 8.32's sum does.
    let m = e.sh(&e.mh, "MHASH_GNU_COMPAT=8.32 sum a missing > /dev/full; echo $?");
    assert_eq!(
        err(&m),
        "sum: missing: No such file or directory\nsum: write error\n"
    );
}

/// A data limit (`ulimit -d`, RLIMIT_DATA: private writable mappings since
/// Linux 4.7, which thread stacks and buffers are) is part of the memory
/// budget as `ulimit -v` is: with 8 jobs asked for under 4 MiB, the run
/// takes fewer threads and smaller buffers and ends normally, as GNU's
/// md5sum does under the same limit. Was: `memory allocation of N bytes
/// failed` and SIGABRT in about one run of six.
#[test]
fn a_data_limit_is_part_of_the_memory_budget() {
    if let Some(emu) = emulator() {
        skip(
            "faults::a_data_limit_is_part_of_the_memory_budget",
            &format!("ulimit -d would limit {emu} too"),
        );
        return;
    }
    let e = env();
    let mut list = String::new();
    for i in 0..60 {
        let name = format!("f{i}");
        e.w(&name, &vec![b'x'; 40_000 + i]);
        list.push_str(&format!("{name} "));
    }
    for _ in 0..6 {
        let o = e.sh(&e.mh, &format!("ulimit -d 4096 && exec mhash -j8 -a md5 {list}"));
        assert_eq!(o.status.signal(), None, "{}", err(&o));
        assert!(o.status.success(), "{}", err(&o));
        assert_eq!(out(&o).lines().count(), 60);
        let o = e.sh(
            &e.mh,
            &format!("md5sum {list} > l && ulimit -d 4096 && exec md5sum -c --quiet l"),
        );
        assert_eq!(o.status.signal(), None, "{}", err(&o));
        assert!(o.status.success(), "{}", err(&o));
    }
}

/// Nothing above may end in a signal (an abort is SIGABRT).
#[test]
fn no_signal_from_a_limit() {
    if let Some(emu) = emulator() {
        skip(
            "faults::no_signal_from_a_limit",
            &format!("ulimit -v would limit {emu} too"),
        );
        return;
    }
    let e = env();
    let o = e.sh(
        &e.mh,
        "ulimit -v 20000 && exec mhash -j64 -a sha256 a a a a a a a a",
    );
    assert_eq!(o.status.signal(), None, "{}", err(&o));
    assert!(o.status.success(), "{}", err(&o));
}

/// Item 7: `-` and the paths that reach standard input (`/dev/stdin`,
/// `/dev/fd/0`, `/proc/self/fd/0`) are read by one reader in argument
/// order (the first gets the data, as in GNU), with one job or several;
/// and a file's line is written before standard input is waited on.
#[test]
fn standard_input_is_read_in_argument_order() {
    let e = env();
    for files in [
        "/dev/stdin -",
        "- /dev/stdin",
        "a /dev/fd/0 a - /proc/self/fd/0 a",
    ] {
        for jobs in [1, 4] {
            let m = e.same(&format!("echo hello | MHASH_JOBS={jobs} md5sum {files}; echo $?"));
            assert!(
                out(&m).starts_with("b1946ac92492d2347c6235b4d2611184  ")
                    || out(&m).contains("\nb1946ac92492d2347c6235b4d2611184  "),
                "{files}: {}",
                out(&m)
            );
        }
    }
    for algo in ["md5", "sha256", "sha1"] {
        let m = e.sh(
            &e.mh,
            &format!("echo hello | mhash -j4 -a {algo} /dev/stdin a a - a | cut -d' ' -f3 | tr '\\n' ' '"),
        );
        assert_eq!(out(&m), "/dev/stdin a a - a ");
    }
    // a's line comes while standard input is still waited on (2 s).
    let m = e.sh(
        &e.mh,
        "s=$(date +%s%N); (sleep 2; echo x) | md5sum a - | { read l; echo \"$l $((($(date +%s%N) - s) / 1000000))\"; cat; }",
    );
    let o = out(&m);
    let first = o.lines().next().unwrap_or_default();
    let ms: u64 = first.rsplit(' ').next().and_then(|v| v.parse().ok()).expect(&o);
    assert!(first.starts_with("900150983cd24fb0d6963f7d28e17f72  a "), "{o}");
    assert!(ms < 1500, "a's line came after {ms} ms: {o}");
    assert!(o.ends_with("401b30e3b8b5d629635a5c613cdb7919  -\n"), "{o}");
}

/// The terminal-control bytes a hostile name holds (OSC title, ST, SGR
/// colour, a newline): none may reach the progress bar's stream raw.
fn assert_no_raw_name(bar: &[u8], what: &str) {
    let s = String::from_utf8_lossy(bar);
    for bad in ["\x1b]0;PWNED", "\x1b\\", "\x1b[31m", "X\nnl"] {
        assert!(
            !s.contains(bad),
            "{what}: the bar printed {bad:?} raw: {:.2000}",
            s.escape_debug()
        );
    }
    assert!(
        s.contains("'evil'$'\\033'']0;PWNED'"),
        "{what}: the name quoted as GNU 9.11's diagnostics: {:.2000}",
        s.escape_debug()
    );
}

/// Item 4: the progress bar quotes names as GNU 9.11's diagnostics do (and
/// draws any control character left as `?`): a FIFO named
/// `evil ESC]0;PWNED ESC\ ESC[31mX LF nl`, waited on for 1.5 s while the
/// bar shows, neither sets the terminal's title or colours nor breaks the
/// bar. `--progress` to a pipe, and the bar's own choice on a pty
/// (`script`).
#[test]
fn progress_bar_never_prints_a_name_raw() {
    let e = env();
    let name = "evil\x1b]0;PWNED\x1b\\\x1b[31mX\nnl";
    let fifo = e.work.join(name);
    let mk = || {
        let _ = fs::remove_file(&fifo);
        assert!(
            util::command("mkfifo").arg(&fifo).status().unwrap().success(),
            "mkfifo"
        );
    };
    mk();
    let m = e.sh(
        &e.mh,
        "n=$(printf 'evil\\033]0;PWNED\\033\\\\\\033[31mX\\nnl'); (sleep 1.5; echo x >\"$n\") & mhash --progress -a md5 \"$n\"; wait",
    );
    assert!(m.status.success(), "{}", err(&m));
    assert_no_raw_name(&m.stderr, "--progress to a pipe");
    if util::command("script").arg("--version").output().is_err() {
        skip(
            "faults::progress_bar_never_prints_a_name_raw (pty)",
            "script(1) is not installed: the bar on a terminal did NOT run",
        );
        return;
    }
    mk();
    let m = e.sh(
        &e.mh,
        "n=$(printf 'evil\\033]0;PWNED\\033\\\\\\033[31mX\\nnl'); (sleep 1.5; echo x >\"$n\") & \
         script -qec 'mhash -a md5 evil* >/dev/null' /dev/null; wait",
    );
    assert_no_raw_name(&m.stdout, "the bar on a pty");
}

/// Item 10: a directory that fails while `-r` reads its entries (EIO
/// injected into getdents64 on it) is named in the error, the rest of the
/// tree hashed.
#[test]
fn walk_error_names_the_directory() {
    if !strace_works("walk_error_names_the_directory") {
        return;
    }
    let e = env();
    e.w("t/sub/f", b"f");
    e.w("t/g", b"g");
    let m = e.sh(
        &e.mh,
        "strace -f -qq -o /dev/null -P t/sub -e inject=getdents64:error=EIO:when=1 mhash -a md5 -r t; echo $?",
    );
    // (strace says where -P resolved to first.)
    assert!(
        err(&m).ends_with("\nmhash: t/sub: Input/output error\n"),
        "{}",
        err(&m)
    );
    assert_eq!(out(&m), "b2f5ff47436671b6e533d8dc3614845d  t/g\n1\n");
}

/// Item 9: `-j` above the cores starts no more tree-hash (BLAKE3) or
/// split (CRC) threads than there are cores: threads counted with strace.
#[test]
fn jobs_above_the_cores_start_no_more_threads_than_cores() {
    if !strace_works("jobs_above_the_cores_start_no_more_threads_than_cores") {
        return;
    }
    let e = env();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    e.w("big", &vec![7u8; 70 << 20]);
    for algo in ["blake3", "crc32b"] {
        let m = e.sh(
            &e.mh,
            &format!(
                "strace -f -qq -e trace=clone,clone3 -o T mhash -j1000 -a {algo} big >/dev/null && grep -c clone T"
            ),
        );
        let threads: usize = out(&m).trim().parse().unwrap_or_else(|_| panic!("{}", err(&m)));
        // The pool (or the segments), plus the reading ring's hashing
        // thread and the progress ticker at most.
        assert!(
            threads <= cores + 2,
            "{algo}: {threads} threads started for {cores} cores"
        );
    }
}

/// Item 8: `--io mmap` never allocates a tmpfs file's holes (the map would
/// fill the file system until the file is deleted): a 64 MiB sparse file
/// on tmpfs (`/dev/shm`) still has no blocks after it is hashed.
#[test]
fn mmap_allocates_no_tmpfs_backing_store() {
    let shm = Path::new("/dev/shm");
    let is_tmpfs = util::command("stat")
        .args(["-f", "-c", "%T", "/dev/shm"])
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"tmpfs"));
    if !is_tmpfs {
        skip(
            "faults::mmap_allocates_no_tmpfs_backing_store",
            "/dev/shm is not a tmpfs here: did NOT run",
        );
        return;
    }
    let td = tempfile::tempdir_in(shm).expect("a directory in /dev/shm");
    let f = td.path().join("sparse");
    fs::File::create(&f).unwrap().set_len(64 << 20).unwrap();
    let e = env();
    for io in ["mmap", "auto", "read"] {
        let m = e.sh(
            &e.mh,
            &format!(
                "mhash --io {io} -a crc32b '{}' && stat -c %b '{}'",
                f.display(),
                f.display()
            ),
        );
        assert_eq!(
            out(&m).lines().last(),
            Some("0"),
            "--io {io}: {} {}",
            out(&m),
            err(&m)
        );
    }
}

/// Also: under a GNU name (here as GNU 9.1), output that fails does not
/// stop the run: every operand is hashed and every checksum line checked,
/// so the errors and the summary count all of them, then `write error`
/// (GNU 9.1's outcome; mhash used to stop reading at a failed write, after
/// a varying number of lines).
#[test]
fn gnu_names_go_on_after_a_failed_write() {
    let e = env();
    let mut sums = String::new();
    for _ in 0..50 {
        // "abc"'s SHA-256 (FIPS 180-2, appendix B.1), a wrong digest, a
        // missing file and a malformed line.
        sums.push_str("junk\n");
        sums.push_str("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  a\n");
        sums.push_str(&format!("{:064}  a\n", 0));
        sums.push_str(&format!("{:064}  nosuch\n", 0));
    }
    e.w("many", sums.as_bytes());
    for _ in 0..3 {
        let m = e.same("sha256sum -c many >/dev/full");
        let err = err(&m);
        assert_eq!(
            err.matches("nosuch: No such file or directory").count(),
            50,
            "{err}"
        );
        assert!(
            err.ends_with(
                "sha256sum: WARNING: 50 lines are improperly formatted\n\
                 sha256sum: WARNING: 50 listed files could not be read\n\
                 sha256sum: WARNING: 50 computed checksums did NOT match\n\
                 sha256sum: write error\n"
            ),
            "{err}"
        );
    }
    let names: Vec<String> = (0..300).map(|i| format!("f{i:03}")).collect();
    for n in &names {
        e.w(n, n.as_bytes());
    }
    let m = e.same(&format!("sha256sum {} nosuch >/dev/full", names.join(" ")));
    assert_eq!(
        err(&m),
        "sha256sum: nosuch: No such file or directory\nsha256sum: write error\n"
    );
}

/// Also: an endless `--files-from -` into /dev/full stops at the first
/// write error (`write error`, as GNU 9.1 words it; exit 1), one job or
/// several, instead of reading names for ever.
#[test]
fn endless_files_from_into_dev_full_stops() {
    let e = env();
    for jobs in [1, 4] {
        let m = e.sh(
            &e.mh,
            &format!("yes a | timeout 60 mhash -j{jobs} -a md5 --files-from - >/dev/full; echo $?"),
        );
        assert_eq!(out(&m), "1\n", "-j{jobs}: {}", err(&m));
        assert_eq!(err(&m), "mhash: write error\n");
    }
}

/// Also: SIGINT while the bar shows on a terminal (a pty, `script`)
/// clears the bar's line before the process dies of the signal: the last
/// bytes on the terminal are `CR ESC[2K`.
#[test]
fn sigint_with_the_progress_bar_leaves_the_terminal_clean() {
    if util::command("script").arg("--version").output().is_err() {
        skip(
            "faults::sigint_with_the_progress_bar_leaves_the_terminal_clean",
            "script(1) is not installed: did NOT run",
        );
        return;
    }
    let e = env();
    assert!(
        util::command("mkfifo")
            .arg(e.work.join("fifo"))
            .status()
            .unwrap()
            .success()
    );
    // python3 starts mhash with SIGINT at its default (a shell's
    // background job would have it ignored), waits while the bar shows,
    // interrupts it and prints how it ended.
    let py = "import subprocess,time,signal\n\
              p=subprocess.Popen(['mhash','--progress','-a','md5','fifo'])\n\
              time.sleep(1.5)\n\
              p.send_signal(signal.SIGINT)\n\
              try:\n    print('status', p.wait(timeout=30))\n\
              except subprocess.TimeoutExpired:\n    p.kill()\n    print('not ended by SIGINT')";
    e.w("int.py", py.as_bytes());
    let m = e.sh(&e.mh, "timeout 60 script -qec 'python3 int.py' /dev/null");
    let o = out(&m);
    assert!(
        o.contains("status -2"),
        "mhash was not killed by SIGINT: {}",
        o.escape_debug()
    );
    let before = &o[..o.find("status -2").unwrap()];
    assert!(
        before.ends_with("\r\x1b[2K"),
        "the bar's line is not cleared last: {}",
        before[before.len().saturating_sub(300)..].escape_debug()
    );
}

/// Also: `--json` keeps a name that is not UTF-8 lossless without
/// changing `path`'s type: a string (U+FFFD for the bad byte) plus
/// `path_bytes`, only where needed; likewise `checksum_file_bytes`.
#[test]
fn json_keeps_a_non_utf8_name_lossless() {
    let e = env();
    let m = e.sh(&e.mh, "printf x > $'a\\377b' && mhash --json -a md5 $'a\\377b' a");
    assert_eq!(
        out(&m),
        "{\"path\":\"a\u{fffd}b\",\"path_bytes\":[97,255,98],\"size\":1,\"algorithm\":\"md5\",\"digest\":\"9dd4e461268c8034f5c8564e155c67a6\"}\n\
         {\"path\":\"a\",\"size\":3,\"algorithm\":\"md5\",\"digest\":\"900150983cd24fb0d6963f7d28e17f72\"}\n"
    );
    let m = e.sh(
        &e.mh,
        "printf x > $'a\\377b' && mhash -a md5 $'a\\377b' > $'s\\376' && mhash --json -c $'s\\376'",
    );
    assert_eq!(
        out(&m),
        "{\"checksum_file\":\"s\u{fffd}\",\"checksum_file_bytes\":[115,254],\"line\":1,\
         \"path\":\"a\u{fffd}b\",\"path_bytes\":[97,255,98],\"algorithm\":\"md5\",\"chosen_by\":\"length\",\"outcome\":\"ok\"}\n"
    );
}
