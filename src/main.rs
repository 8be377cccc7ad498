//! The `mhash` binary: personality from `argv[0]`, parse, run, exit status.

use mhash::cli::{self, Parsed, personality::Personality};
use mhash::error::Error;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    // GNU tools die quietly on a closed pipe: restore SIGPIPE's default.
    #[cfg(unix)]
    // SAFETY: setting a signal disposition to SIG_DFL before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let argv0 = args.first().cloned().unwrap_or_default();
    let personality = Personality::from_argv0(&argv0);
    let prog = argv0.to_string_lossy().into_owned();
    match cli::parse(personality, args) {
        Ok(Parsed::Run(cfg)) => ExitCode::from(mhash::app::run(&cfg) as u8),
        Ok(Parsed::Print(text)) => {
            let mut out = std::io::stdout().lock();
            if out.write_all(text.as_bytes()).and_then(|()| out.flush()).is_err() {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(Error::Usage { msg, try_help }) => {
            let mut err = std::io::stderr().lock();
            if let Some(m) = msg {
                for line in m.lines() {
                    let _ = writeln!(err, "{prog}: {line}");
                }
            }
            if try_help {
                let _ = writeln!(err, "Try '{prog} --help' for more information.");
            }
            ExitCode::FAILURE
        }
    }
}
