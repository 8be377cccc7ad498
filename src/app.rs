//! The run: hash mode or check mode over the operands, one output stream,
//! and the final exit status (GNU: 0 when everything succeeded, else 1).

use crate::algo::AlgoKind;
use crate::algo::cpu::Feature;
use crate::check;
use crate::cli::{Config, GnuCompat, Mode};
use crate::io::{self, ReadBuf};
use crate::os::strerror;
use crate::output::{self, Format};
use crate::progress::Progress;
use crate::sched::{self, Item};
use crate::text::quote;
use crate::walk::Inputs;
use std::ffi::OsString;
use std::io::{IsTerminal, Write};

/// The state shared by the whole run: the program name for diagnostics, the
/// buffered standard output and its first write error, and check mode's
/// last-seen tag.
pub struct Run {
    prog: Vec<u8>,
    compat: GnuCompat,
    out: std::io::BufWriter<Box<dyn Write + Send>>,
    line_buffered: bool,
    write_error: Option<std::io::Error>,
    /// Check mode: the tag of the last tagged line read in any checksum
    /// file (GNU cksum's global `DIGEST_TYPE_STRING`).
    pub last_tag: Option<&'static str>,
    /// The progress bar, when one may show: terminal writes go around it.
    progress: Option<Progress>,
}

impl Run {
    /// A run whose diagnostics are prefixed with `prog` (GNU's
    /// `program_name`: `argv[0]` as invoked), worded as GNU `compat` does.
    pub fn new(prog: &str, compat: GnuCompat) -> Run {
        let line_buffered = std::io::stdout().is_terminal();
        let stdout = crate::os::stdout_writer();
        Run {
            prog: crate::text::message_bytes(prog),
            compat,
            out: std::io::BufWriter::with_capacity(64 * 1024, stdout),
            line_buffered,
            write_error: None,
            last_tag: None,
            progress: None,
        }
    }

    /// Writes bytes to standard output (buffered; line by line on a terminal).
    pub fn write_out(&mut self, bytes: &[u8]) {
        if self.write_error.is_some() {
            return;
        }
        let r = if self.line_buffered {
            // Standard output is a terminal, which a progress bar may share.
            let (out, progress) = (&mut self.out, &self.progress);
            let mut write = || out.write_all(bytes).and_then(|()| out.flush());
            match progress {
                Some(p) => p.suspend(write),
                None => write(),
            }
        } else {
            self.out.write_all(bytes)
        };
        if let Err(e) = r {
            self.write_error = Some(e);
        }
    }

    /// Writes out what standard output holds (GNU writes each checksum
    /// line when its file is done); a failure is kept for [`Run::finish`].
    pub fn flush_now(&mut self) {
        if self.write_error.is_none()
            && let Err(e) = self.out.flush()
        {
            self.write_error = Some(e);
        }
    }

    /// Prints `PROG: MSG` on standard error. Standard output is flushed
    /// first, as GNU's `error()` does, so that the two streams keep their
    /// order when they share a pipe.
    pub fn error_msg(&mut self, msg: &[u8]) {
        if self.write_error.is_none()
            && let Err(e) = self.out.flush()
        {
            self.write_error = Some(e);
        }
        let mut line = self.prog.clone();
        line.extend_from_slice(b": ");
        line.extend_from_slice(msg);
        line.push(b'\n');
        let write = || std::io::stderr().write_all(&line);
        let _ = match &self.progress {
            Some(p) => p.suspend(write),
            None => write(),
        };
    }

    /// Prints `PROG: NAME: STRERROR` on standard error, the name quoted as
    /// GNU's `quotef` does.
    pub fn error_io(&mut self, name: &[u8], e: &std::io::Error) {
        let mut msg = quote::quotef(name);
        msg.extend_from_slice(b": ");
        msg.extend_from_slice(strerror(e).as_bytes());
        self.error_msg(&msg);
    }

    /// Flushes standard output; GNU's `close_stdout`: a failure is
    /// "write error: REASON" and exit status 1 (GNU 9.1: "write error",
    /// its `close_stream` having lost errno).
    pub fn finish(&mut self) -> bool {
        let flushed = self.out.flush();
        let err = self.write_error.take().or(flushed.err());
        match err {
            None => true,
            Some(e) => {
                // GNU 9.1 lost errno unless the final fclose itself failed
                // with it (a closed stdout: EBADF).
                let msg = if self.compat == GnuCompat::V9_1 && e.raw_os_error() != Some(libc::EBADF) {
                    "write error".to_string()
                } else {
                    format!("write error: {}", strerror(&e))
                };
                self.error_msg(msg.as_bytes());
                false
            }
        }
    }
}

/// GNU cksum `--debug`'s report of the CRC implementation, printed once
/// before the first CRC is computed: for `crc`, each probe GNU makes
/// (avx512, avx2, pclmul; vmull on ARM); for `crc32b`, the pclmul line only.
fn crc_debug_lines(compat: GnuCompat, kind: AlgoKind) -> Vec<&'static str> {
    let pclmul = Feature::Pclmul.enabled() && Feature::Avx.enabled();
    if kind == AlgoKind::Crc32b {
        return vec![if pclmul {
            "using pclmul hardware support"
        } else {
            "pclmul support not detected"
        }];
    }
    if compat == GnuCompat::V9_1 {
        return vec![if pclmul {
            "using pclmul hardware support"
        } else {
            "using generic hardware support"
        }];
    }
    let mut v = Vec::new();
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        if Feature::Avx512Vpclmul.enabled() {
            v.push("using avx512 hardware support");
            return v;
        }
        v.push("avx512 support not detected");
        if Feature::Avx2Vpclmul.enabled() {
            v.push("using avx2 hardware support");
            return v;
        }
        v.push("avx2 support not detected");
        v.push(if pclmul {
            "using pclmul hardware support"
        } else {
            "pclmul support not detected"
        });
    }
    #[cfg(target_arch = "aarch64")]
    {
        v.push(if Feature::ArmPmull.enabled() {
            "using vmull hardware support"
        } else {
            "vmull support not detected"
        });
    }
    let _ = pclmul;
    v
}

/// The reorder window per worker thread: how many finished results may
/// wait for an earlier, slower input before a worker pauses (bounds memory
/// whatever the number of inputs).
pub const WINDOW_PER_JOB: usize = 64;

/// `mhash --debug`'s line for one input: which backend (or lane kernel,
/// `lanes`) and I/O method ran.
fn debug_line(algo: crate::algo::Algorithm, name: &[u8], method: &str, lanes: Option<&str>) -> Vec<u8> {
    let b = algo.backend();
    let how = if let Some(k) = lanes {
        format!("{k} lanes hardware support")
    } else if b.is_portable() {
        "portable software".to_string()
    } else if b.name() == "tuned-scalar" {
        "tuned scalar software".to_string()
    } else {
        format!("{} hardware support", b.name())
    };
    let mut msg = quote::quotef(name);
    msg.extend_from_slice(format!(": {}: using {how} ({}), {method}", algo.name(), b.source).as_bytes());
    msg
}

/// Hash mode: one checksum line per operand, in argument order, the files
/// hashed in parallel on `cfg.jobs` threads.
fn hash_files(run: &mut Run, cfg: &Config) -> bool {
    let algo = cfg.algo.expect("hash mode always has an algorithm");
    let fmt = Format {
        style: cfg.style,
        binary: cfg.binary,
        zero: cfg.zero,
        encoding: cfg.encoding,
        legacy_name: cfg.files_given,
        no_names: cfg.no_names,
    };
    if cfg.debug && matches!(algo.kind, AlgoKind::Crc | AlgoKind::Crc32b) {
        for l in crc_debug_lines(cfg.compat, algo.kind) {
            run.error_msg(l.as_bytes());
        }
    }
    let per_file_debug = cfg.debug && cfg.personality == crate::cli::personality::Personality::Mhash;
    let lenient_crc = cfg.compat == GnuCompat::V9_1 && algo.kind == AlgoKind::Crc;
    // -r and --files-from may yield any number of inputs.
    let expands = cfg.walk.is_some() || !cfg.files_from.is_empty();
    // No more threads than operands, where their number is known.
    let jobs = if expands {
        sched::effective_jobs(cfg.jobs)
    } else if cfg.files.len() > 1 {
        sched::effective_jobs(cfg.jobs).min(cfg.files.len())
    } else {
        1
    };
    let opts = io::InputOpts {
        mode: cfg.io,
        read_errors_end_input: lenient_crc,
        // One file alone may use every thread itself (the CRCs split it).
        threads: (cfg.files.len() == 1 && !expands).then_some(cfg.jobs),
    };
    // `-a md5,sha256`: every algorithm from the same read, one line each.
    let mut algos = vec![algo];
    algos.extend(&cfg.also);
    let algos = &algos[..];
    let hash = move |name: &std::ffi::OsString, buf: &mut ReadBuf| io::digest_inputs(name, algos, buf, &opts);
    let mut ok = true;
    let mut line = Vec::with_capacity(256);
    let mut next = Inputs::new(cfg.files.clone(), &cfg.files_from, cfg.null, cfg.walk.clone());
    let progress = run.progress.clone();
    let started = |name: &OsString| {
        if let Some(p) = &progress {
            p.file_started(name);
        }
    };
    // Standard input is read by the producer itself, in order, so that two
    // `-` operands read it one after the other as GNU does.
    let mut stdin_buf: Option<ReadBuf> = None;
    let producer = || {
        Some(match next.next()? {
            Err((name, e)) => Item::Done((name, Err(e))),
            Ok(name) if name == "-" => {
                let buf = stdin_buf.get_or_insert_with(ReadBuf::default);
                let r = hash(&name, buf);
                Item::Done((name, r))
            }
            Ok(name) => Item::Work(name),
        })
    };
    let json = cfg.json;
    // Lane kernels take one algorithm; a list reads each file once instead.
    let lanes = if algos.len() == 1 {
        io::lanes::lane_count(algo, &opts)
    } else {
        None
    };
    let work_one = |name: OsString, buf: &mut ReadBuf| {
        started(&name);
        let r = hash(&name, buf);
        (name, r)
    };
    type Res = (OsString, std::io::Result<io::Digested>);
    let work_batch = |names: Vec<OsString>, buf: &mut ReadBuf, out: &mut dyn sched::Deliver<Res>| {
        let inputs: Vec<(&std::ffi::OsStr, crate::algo::Algorithm)> =
            names.iter().map(|n| (n.as_os_str(), algo)).collect();
        let mut sink = sched::DeliverFn(|op: Option<(usize, std::io::Result<io::Digested>)>| match op {
            Some((i, r)) => out.deliver(i, (names[i].clone(), r)),
            None => out.flush(),
        });
        io::lanes::digest_batch(&inputs, buf, &opts, &mut |i| started(&names[i]), &mut sink);
    };
    let emit = |(name, r): Res, more: bool| {
        let name_bytes = crate::os::os_bytes(&name);
        match r {
            Ok(d) => {
                // One line per algorithm of the list, digests concatenated
                // in list order.
                let mut rest = &d.digest[..];
                for &algo in algos {
                    let (digest, after) = rest.split_at(algo.digest_len().min(rest.len()));
                    rest = after;
                    if per_file_debug {
                        run.error_msg(&debug_line(algo, &name_bytes, d.method, d.lane_kernel));
                    }
                    line.clear();
                    if json {
                        crate::json::hash_record(
                            &mut line,
                            &name_bytes,
                            algo,
                            Ok((digest, d.size)),
                            cfg.encoding,
                        );
                    } else {
                        output::format_record(&mut line, algo, digest, d.size, &name_bytes, &fmt);
                    }
                    run.write_out(&line);
                }
            }
            Err(e) => {
                run.error_io(&name_bytes, &e);
                if json {
                    for &algo in algos {
                        line.clear();
                        crate::json::hash_record(&mut line, &name_bytes, algo, Err(&e), cfg.encoding);
                        run.write_out(&line);
                    }
                }
                ok = false;
            }
        }
        if !more {
            run.flush_now();
        }
    };
    // Several files at once in the lanes of a multi-buffer kernel, where
    // the algorithm has one here (see `io::lanes`); else one at a time.
    let window = jobs * WINDOW_PER_JOB;
    let lost = match lanes {
        Some(l) => sched::run_ordered_batched(
            jobs,
            window,
            sched::Batching::lanes(l),
            producer,
            work_batch,
            emit,
        ),
        None => sched::run_ordered(jobs, window, producer, work_one, emit),
    };
    if lost > 0 {
        run.error_msg(format!("internal error: {lost} results were lost; rerun with -j1").as_bytes());
        ok = false;
    }
    ok
}

/// `mhash --backends` and `mhash --version --verbose`: the CPU features
/// detected, then every algorithm with the backend it uses here and the
/// others it has.
pub fn backend_report() -> String {
    use crate::algo::{Algorithm, cpu};
    use std::fmt::Write as _;
    let mut s = String::new();
    let on: Vec<&str> = Feature::ALL
        .iter()
        .filter(|f| f.detected())
        .map(|f| f.name())
        .collect();
    let off: Vec<&str> = Feature::ALL
        .iter()
        .filter(|f| f.detected() && !f.enabled())
        .map(|f| f.name())
        .collect();
    let _ = writeln!(
        s,
        "\nCPU features: {}",
        if on.is_empty() {
            "none".to_string()
        } else {
            on.join(" ")
        }
    );
    if !off.is_empty() {
        let _ = writeln!(
            s,
            "turned off (MHASH_BACKEND / GLIBC_TUNABLES): {}",
            off.join(" ")
        );
    }
    if cpu::force_portable() {
        let _ = writeln!(s, "MHASH_BACKEND=portable: portable backends forced");
    }
    let _ = writeln!(s, "jobs: {} (cores available)", sched::effective_jobs(0));
    let _ = writeln!(
        s,
        "\n{:<10} {:<20} {:<16} other backends",
        "algorithm", "backend", "source"
    );
    let mut kinds = AlgoKind::ALL;
    // Cryptographic first, then xxHash, then the legacy checksums; within
    // each, the order of the enum's declaration.
    kinds.sort_by_key(|k| (k.info().class as u8, *k as u8));
    for kind in kinds {
        let a = Algorithm::new(kind);
        let chosen = a.backend();
        let others: Vec<String> = a
            .backends()
            .iter()
            .filter(|b| b.name() != chosen.name())
            .map(|b| {
                if b.is_available() {
                    b.name().to_string()
                } else {
                    format!("{} (unavailable)", b.name())
                }
            })
            .collect();
        let _ = writeln!(
            s,
            "{:<10} {:<20} {:<16} {}",
            kind.name(),
            chosen.name(),
            chosen.source,
            if others.is_empty() {
                "-".to_string()
            } else {
                others.join(", ")
            }
        );
    }
    let _ = writeln!(s, "\nmany files at once (lane kernels):");
    for k in crate::algo::lanes::lane_kernels() {
        let _ = writeln!(
            s,
            "{:<10} {:<20} {:<16} {} lanes{}",
            k.kind.name(),
            k.name,
            k.source,
            k.lanes,
            if k.is_available() { "" } else { " (unavailable)" }
        );
    }
    s
}

/// Runs the configured job and returns the process exit status.
pub fn run(cfg: &Config) -> i32 {
    let mut run = Run::new(&cfg.prog, cfg.compat);
    if let Some((dir, force)) = &cfg.install_links {
        let ok = crate::install::install_links(&mut run, dir, *force) & run.finish();
        return if ok { 0 } else { 1 };
    }
    let mut ok = true;
    let ticker = Progress::start(cfg.progress).map(|(p, t)| {
        run.progress = Some(p);
        t
    });
    match cfg.mode {
        Mode::Hash => ok = hash_files(&mut run, cfg),
        Mode::Check => {
            for f in Inputs::new(cfg.files.clone(), &cfg.files_from, cfg.null, None) {
                match f {
                    Ok(f) => ok &= check::check_file(&mut run, cfg, &f),
                    Err((name, e)) => {
                        run.error_io(&crate::os::os_bytes(&name), &e);
                        ok = false;
                    }
                }
            }
        }
    }
    if let Some(t) = ticker {
        t.finish();
        run.progress = None;
    }
    if let Err(e) = crate::os::check_stdin_closed() {
        run.error_msg(format!("standard input: {}", strerror(&e)).as_bytes());
        ok = false;
    }
    ok &= run.finish();
    if ok { 0 } else { 1 }
}

/// Prints `--help` / `--version` text as GNU does (a closed or full stdout
/// is a write error) and returns the exit status.
pub fn print_text(prog: &str, text: &str) -> i32 {
    let mut run = Run::new(prog, GnuCompat::from_env());
    run.write_out(text.as_bytes());
    if run.finish() { 0 } else { 1 }
}
