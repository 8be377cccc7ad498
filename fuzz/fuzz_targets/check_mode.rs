//! Fuzzes the whole check mode (`mhash::check::check_file`): the input is
//! written to a checksum file in a scratch directory that also holds a few
//! files the lines may name, and checked under one of several command lines.
//!
//! Byte 0 chooses the command line; the rest is the checksum file. Inputs
//! holding `/` are skipped, so that a line can only name files in the
//! scratch directory (not `/dev/zero`, which would never end). Standard
//! output and error go to in-memory buffers ([`mhash::report::Captured`]).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mhash::check;
use mhash::cli;
use mhash::config::{Job, Personality};
use mhash::env::Env;
use mhash::report::{Captured, Console};
use std::ffi::OsString;
use std::sync::OnceLock;

const ARGV: &[(&str, &[&str])] = &[
    ("sha256sum", &["-c", "-w"]),
    ("md5sum", &["-c", "--strict"]),
    ("b2sum", &["-c", "-w"]),
    ("cksum", &["-c", "-w"]),
    ("cksum", &["-c", "-a", "sha256"]),
    ("cksum", &["-c", "-a", "blake2b", "-l", "128"]),
    ("mhash", &["-c", "-w"]),
    ("sha1sum", &["-c", "--quiet", "--ignore-missing"]),
    ("sha512sum", &["--check", "--status"]),
];

fn scratch() -> &'static std::path::Path {
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("mhash-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a"), b"hello\n").unwrap();
        std::fs::write(dir.join("b"), b"").unwrap();
        std::fs::write(dir.join("sp ace"), b"x").unwrap();
        std::fs::write(dir.join("l\nf"), b"y").unwrap();
        std::fs::create_dir_all(dir.join("d")).unwrap();
        std::env::set_current_dir(&dir).unwrap();
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    if body.contains(&b'/') {
        return;
    }
    let dir = scratch();
    let file = dir.join("SUMS");
    std::fs::write(&file, body).unwrap();
    let (prog, opts) = ARGV[sel as usize % ARGV.len()];
    let mut args: Vec<OsString> = vec![prog.into()];
    args.extend(opts.iter().map(OsString::from));
    args.push("SUMS".into());
    let p = Personality::from_argv0(prog.as_ref());
    let cfg = cli::parse(p, args, &Env::default()).expect("a valid fuzz command line");
    let Job::Check(job) = &cfg.job else {
        panic!("not a check command line: {prog} {opts:?}");
    };
    let (out, err) = (Captured::default(), Captured::default());
    let mut con = Console::new(prog, cfg.common.compat, Box::new(out), Box::new(err), false);
    let _ = check::check_file(&mut con, &cfg.common, job, &mut check::Session::default(), "SUMS".as_ref());
    let _ = con.finish();
});
