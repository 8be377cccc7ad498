//! mhash: a drop-in, multi-algorithm checksum tool.
//!
//! Under the names `md5sum`, `sha1sum`, `sha224sum`, `sha256sum`,
//! `sha384sum`, `sha512sum`, `b2sum` and `cksum` it reproduces GNU coreutils
//! byte for byte (stdout, stderr, exit status); as `mhash` it is one tool for
//! every algorithm. The binary is a thin shell over this library:
//! [`cli`] parses `argv` into a [`cli::Config`], [`app::run`] does the work.

#![warn(missing_docs)]

pub mod algo;
pub mod app;
pub mod check;
pub mod cli;
pub mod error;
pub mod io;
pub mod output;
