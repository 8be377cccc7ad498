//! The `mhash` binary: personality from `argv[0]`, parse, run, exit status.
//!
//! On Unix the C `main` is ours (`no_main`): Rust's runtime would reopen a
//! closed stdin/stdout on /dev/null before `main` (GNU's tools report
//! `sha256sum a >&-` as a write error, which needs the closed descriptor),
//! and would ignore SIGPIPE (GNU inherits its parent's disposition).
#![cfg_attr(unix, no_main)]

use mhash::cli::{self, Parsed, personality::Personality};
use mhash::error::Error;
use std::ffi::OsString;
use std::io::Write;

fn real_main(args: Vec<OsString>) -> i32 {
    let argv0 = args.first().cloned().unwrap_or_default();
    let personality = Personality::from_argv0(&argv0);
    let prog = mhash::text::lossless(&argv0);
    match cli::parse(personality, args) {
        Ok(Parsed::Run(cfg)) => mhash::app::run(&cfg),
        Ok(Parsed::Print(text)) => mhash::app::print_text(&prog, &text),
        Err(Error::Usage {
            msg,
            detail,
            try_help,
        }) => {
            // Messages may hold argument bytes that are not UTF-8 (see
            // `cli::lossless`): they are written back as those bytes.
            let mut text = String::new();
            if let Some(m) = msg {
                for line in m.lines() {
                    text.push_str(&format!("{prog}: {line}\n"));
                }
            }
            if let Some(d) = detail {
                text.push_str(&format!("{d}\n"));
            }
            if try_help {
                text.push_str(&format!("Try '{prog} --help' for more information.\n"));
            }
            let _ = std::io::stderr()
                .lock()
                .write_all(&mhash::text::message_bytes(&text));
            1
        }
    }
}

#[cfg(unix)]
#[unsafe(no_mangle)]
extern "C" fn main(argc: libc::c_int, argv: *const *const libc::c_char) -> libc::c_int {
    use std::os::unix::ffi::OsStringExt;
    // SIGPIPE keeps the disposition the parent gave it, as in GNU: by
    // default a closed pipe ends the process quietly; where the parent
    // ignores SIGPIPE, the write fails and is reported ("write error").
    // (Rust's own runtime, bypassed here, would ignore it unconditionally.)
    let mut args = Vec::with_capacity(argc.max(0) as usize);
    for i in 0..argc.max(0) as usize {
        // SAFETY: the C runtime passes `argc` valid NUL-terminated strings.
        let arg = unsafe { std::ffi::CStr::from_ptr(*argv.add(i)) };
        args.push(OsString::from_vec(arg.to_bytes().to_vec()));
    }
    real_main(args)
}

#[cfg(not(unix))]
fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(real_main(std::env::args_os().collect()) as u8)
}
