//! mhash: a drop-in, multi-algorithm checksum tool.
//!
//! Under the names `md5sum`, `sha1sum`, `sha224sum`, `sha256sum`,
//! `sha384sum`, `sha512sum`, `b2sum` and `cksum` it reproduces GNU coreutils
//! byte for byte (stdout, stderr, exit status); as `mhash` it is one tool for
//! every algorithm. The binary is a thin shell over this library:
//! [`cli`] parses `argv` into a [`cli::Config`], [`app::run`] does the work.
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

#![warn(missing_docs)]

pub mod algo;
pub mod app;
pub mod bench;
pub mod check;
pub mod cli;
pub mod error;
pub mod install;
pub mod io;
pub mod json;
pub mod os;
pub mod output;
pub mod progress;
pub mod sched;
pub mod text;
pub mod walk;
