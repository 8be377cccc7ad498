//! Errors and their GNU wording: typed errors for the CLI layer, and
//! `strerror`-style text for I/O errors ("No such file or directory", as
//! GNU's `error (0, errno, ...)` prints it, without Rust's "(os error 2)").

use std::io;

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
}

impl From<crate::cli::getopt::GetoptError> for Error {
    fn from(e: crate::cli::getopt::GetoptError) -> Error {
        Error::usage(e.0)
    }
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

/// The C library's message for an I/O error (GNU's `strerror (errno)`),
/// e.g. "No such file or directory"; for errors without an errno, Rust's
/// own text.
pub fn strerror(e: &io::Error) -> String {
    if let Some(code) = e.raw_os_error() {
        let text = io::Error::from_raw_os_error(code).to_string();
        // Rust formats "MSG (os error N)"; GNU prints MSG alone.
        if let Some(pos) = text.rfind(" (os error ") {
            return text[..pos].to_string();
        }
        return text;
    }
    match e.kind() {
        io::ErrorKind::UnexpectedEof => "Unexpected end of file".to_string(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strerror_matches_libc_wording() {
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(strerror(&e), "No such file or directory");
        let e = io::Error::from_raw_os_error(libc::EISDIR);
        assert_eq!(strerror(&e), "Is a directory");
    }
}
