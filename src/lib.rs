//! mhash: a drop-in, multi-algorithm checksum tool.
//!
//! Under the names `md5sum`, `sha1sum`, `sha224sum`, `sha256sum`,
//! `sha384sum`, `sha512sum`, `b2sum` and `cksum` it reproduces GNU coreutils
//! byte for byte (stdout, stderr, exit status); as `mhash` it is one tool for
//! every algorithm. The binary is a thin shell over this library:
//! [`cli`] parses `argv` and the [`env::Env`] into a [`config::Config`],
//! [`app::run`] does the work, printing through a [`report::Console`].
//!
//! The algorithms are usable on their own:
//!
//! ```
//! use mhash::algo::{AlgoKind, Algorithm};
//!
//! let sha256 = Algorithm::new(AlgoKind::Sha256);
//! // FIPS 180-2, Appendix B.1: SHA-256("abc").
//! assert_eq!(
//!     hex::encode(sha256.digest(b"abc")),
//!     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
//! );
//! println!("SHA-256 runs on the {} backend here", sha256.backend().name());
//! ```
//!
//! ## Import rule
//!
//! Each line: a module, then the modules it may import (`use crate::...`).
//! `scripts/check-layers` fails CI on any other edge, and on a cycle.
//! Lower modules never reach up: `algo` sees bytes only, `sched` knows no
//! files, `io` no formats, `report` no scheduling.
//!
//! Platform crates: only `os` names `libc`, `windows_sys` and `io_uring`
//! (the shape of std's `sys`: every other module asks `os`, which words
//! errors as GNU does on every OS); `scripts/check-layers` fails CI on a
//! use anywhere else.
//!
//! ```text
//! main     -> cli, app, config, env, report, text, algo, os
//! cli      -> config, env, algo, bench, error, text, walk, os, state
//! app      -> hash, check, install, report, config, algo, bench, sched, io, os, progress, merge
//! merge    -> check, report, os, state
//! hash     -> io, sched, report, algo, config, walk, text, os, tree, state
//! check    -> io, sched, report, algo, config, walk, text, os, sig, progress
//! install  -> report, config, os, text
//! report   -> config, algo, progress, text, os
//! bench    -> algo, error, text
//! config   -> algo, walk, bench, os, state, sig
//! progress -> config, os
//! io       -> algo, sched, config, progress, os
//! walk     -> text, os
//! tree     -> algo, config, os
//! state    -> algo, os, text
//! sched    -> os
//! sig      -> os, text
//! text     -> os
//! algo     -> os
//! env      ->
//! error    ->
//! os       ->
//! ```

#![warn(missing_docs)]

pub mod algo;
pub mod app;
pub mod bench;
pub mod check;
pub mod cli;
pub mod config;
pub mod env;
pub mod error;
pub mod hash;
pub mod install;
pub mod io;
pub mod merge;
pub mod os;
pub mod progress;
pub mod report;
pub mod sched;
pub mod sig;
pub mod state;
pub mod text;
pub mod tree;
pub mod walk;
