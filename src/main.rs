//! The `mhash` binary: personality from `argv[0]`, parse, run, exit status.
//!
//! On Unix the C `main` is ours (`no_main`): Rust's runtime would reopen a
//! closed stdin/stdout on /dev/null before `main` (GNU's tools report
//! `sha256sum a >&-` as a write error, which needs the closed descriptor),
//! and would ignore SIGPIPE (GNU inherits its parent's disposition).
#![cfg_attr(unix, no_main)]

use mhash::{cli, config::Personality, env::Env};

// GCC's unwinder linked in statically (what `-static-libgcc` does for C):
// without it the binary needs libgcc_s.so.1, one more library for the
// dynamic loader to find, map and relocate on every start, and whose
// constructor runs CPUID (a trap to the hypervisor in a VM) several times.
// Nothing here unwinds (panic = "abort"); std keeps the symbols for
// backtraces. Listed in the binary, this library comes on the link line
// before std's `-lgcc_s`, which `--as-needed` then drops
// (`ldd target/release/mhash` lists libc and the loader only).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[link(name = "gcc_eh", kind = "static", modifiers = "-bundle")]
unsafe extern "C" {}

/// C's `pow(x, y)` (x to the power y, IEEE 754 doubles), from the `libm`
/// crate (a port of musl's, itself from FreeBSD's msun). The one libm
/// function the binary calls (indicatif's rate decay, `0.1f64.powf(t)`):
/// defined here, it is resolved at link time and libm.so.6 is not loaded
/// at all, one library fewer for every start (about 5% of `sha256sum
/// /dev/null`'s time in one interleaved run).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[unsafe(no_mangle)]
pub extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}
use std::ffi::OsString;

fn real_main(mut args: Vec<OsString>) -> i32 {
    let argv0 = args.first().cloned().unwrap_or_default();
    // Windows: messages name `sha256sum`, not `C:\tools\sha256sum.exe`.
    if let Some(first) = args.first_mut() {
        *first = mhash::os::program_name(first);
    }
    let shown = args.first().cloned().unwrap_or_default();
    let mut env = Env::from_process();
    let p = Personality::from_argv0(&argv0);
    // A GNU name reproduces the release `--install-links` found it
    // shadowing, unless MHASH_GNU_COMPAT says otherwise.
    if p.is_gnu() && env.gnu_compat.is_none() {
        env.gnu_compat = mhash::os::installed_release(&argv0, p.name());
    }
    match cli::parse(p, args, &env) {
        Ok(cfg) => {
            let mut con = mhash::report::Console::stdio(&cfg.common.msg_prog, cfg.common.compat);
            mhash::app::run(cfg, &mut con)
        }
        Err(e) => {
            let prog = mhash::text::lossless(&shown);
            let compat = mhash::config::GnuCompat::from_value(env.gnu_compat.as_deref())
                .unwrap_or(mhash::config::GnuCompat::V9_11);
            cli::report_error(&e, &prog, &cli::message_prog(p, &prog, compat))
        }
    }
}

#[cfg(unix)]
#[unsafe(no_mangle)]
extern "C" fn main(argc: std::ffi::c_int, argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    use std::os::unix::ffi::OsStringExt;
    // SIGPIPE keeps the parent's disposition, as in GNU (see the top).
    let args = (0..argc.max(0) as usize)
        // SAFETY: the C runtime passes `argc` valid NUL-terminated strings.
        .map(|i| {
            OsString::from_vec(
                unsafe { std::ffi::CStr::from_ptr(*argv.add(i)) }
                    .to_bytes()
                    .to_vec(),
            )
        })
        .collect();
    real_main(args)
}

#[cfg(not(unix))]
fn main() -> std::process::ExitCode {
    // Wildcards expanded here (cmd.exe and PowerShell leave them to us).
    std::process::ExitCode::from(real_main(mhash::os::args()) as u8)
}
