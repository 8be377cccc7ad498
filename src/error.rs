//! The error that ends a run before any file is processed (a usage error
//! or a fatal one, in GNU's wording). It imports no other module; the
//! wording of I/O errors (`strerror`) is in [`crate::os`].

/// An error that ends the run before any file is processed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A usage error: GNU prints `PROG: MSG` (when there is a message), then
    /// `Try 'PROG --help' for more information.` when `try_help`, and exits 1.
    #[error("{}", msg.as_deref().unwrap_or(""))]
    Usage {
        /// The diagnostic lines, each printed after the program-name prefix.
        msg: Option<String>,
        /// Lines printed as they are, after `msg` (argmatch's
        /// "Valid arguments are:" list).
        detail: Option<String>,
        /// Whether GNU follows it with the "Try ... --help" line.
        try_help: bool,
    },
    /// A getopt diagnostic (`invalid option -- 'x'`): glibc prefixes it
    /// with `argv[0]` as invoked (a full path stays one), then the "Try
    /// ... --help" line follows.
    #[error("{0}")]
    Getopt(String),
}

impl Error {
    /// A usage error followed by the "Try --help" line.
    pub fn usage(msg: impl Into<String>) -> Error {
        Error::Usage {
            msg: Some(msg.into()),
            detail: None,
            try_help: true,
        }
    }
    /// A fatal error without the "Try --help" line (GNU `die`).
    pub fn fatal(msg: impl Into<String>) -> Error {
        Error::Usage {
            msg: Some(msg.into()),
            detail: None,
            try_help: false,
        }
    }
}
