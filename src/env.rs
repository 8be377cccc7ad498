//! The environment variables mhash reads, read once ([`Env::from_process`])
//! and passed in: the CLI layer turns them into the configuration, so a
//! test can run every compatibility level in one process by building an
//! [`Env`] by hand. It imports no other module.

use std::ffi::OsString;

/// The variables, as set (`None` when unset).
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// `MHASH_GNU_COMPAT`: the GNU release to reproduce (`8.32`, `9.1`,
    /// `9.4`, `9.11`; default the newest).
    pub gnu_compat: Option<String>,
    /// `MHASH_JOBS`: the default worker count (`-j`).
    pub jobs: Option<String>,
    /// `MHASH_IO`: the default I/O method (`--io`).
    pub io: Option<String>,
    /// `MHASH_READ_SIZE`: the read size in bytes, for benchmarking.
    pub read_size: Option<String>,
    /// `MHASH_MAP_WINDOW`: bytes of a large BLAKE3 file each worker maps
    /// and hashes at a time (its piece; peak RSS against speed).
    pub map_window: Option<String>,
    /// `MHASH_BACKEND`: `portable` forces the portable backends; another
    /// backend name (`avx2`, `tuned-scalar`, ...) forces that backend
    /// wherever an algorithm has it.
    pub backend: Option<OsString>,
    /// `MHASH_CALIBRATE`: `never` keeps the table's order for every input,
    /// `always` times the backends for any input whose size is known
    /// (default: only large inputs, see `mhash::algo::calibrate`).
    pub calibrate: Option<String>,
    /// `GLIBC_TUNABLES`: `glibc.cpu.hwcaps=-AVX2,...` turns CPU features off.
    pub glibc_tunables: Option<String>,
    /// `POSIXLY_CORRECT` is set: options end at the first operand (getopt).
    pub posixly_correct: bool,
    /// `TERM` is set, not empty and not `dumb`: GNU 9.11's `--help` marks
    /// each option up (a hyperlink to its manual entry, in bold), whatever
    /// standard output is (GNU's system.h `oputs_`).
    pub help_markup: bool,
}

impl Env {
    /// Reads the variables of this process.
    pub fn from_process() -> Env {
        let text = |k: &str| std::env::var(k).ok();
        Env {
            // Not UTF-8: kept (U+FFFD in place of the bad bytes), so that
            // it is refused as any other unsupported value is.
            gnu_compat: std::env::var_os("MHASH_GNU_COMPAT").map(|v| v.to_string_lossy().into_owned()),
            jobs: text("MHASH_JOBS"),
            io: text("MHASH_IO"),
            read_size: text("MHASH_READ_SIZE"),
            map_window: text("MHASH_MAP_WINDOW"),
            backend: std::env::var_os("MHASH_BACKEND"),
            calibrate: text("MHASH_CALIBRATE"),
            glibc_tunables: text("GLIBC_TUNABLES"),
            posixly_correct: std::env::var_os("POSIXLY_CORRECT").is_some(),
            help_markup: std::env::var_os("TERM").is_some_and(|t| !t.is_empty() && t != "dumb"),
        }
    }
}
