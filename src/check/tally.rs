//! The counts of one checksum file, its verdict, and GNU's summary of it
//! on standard error (coreutils digest.c `digest_check`).

use super::rules;
use crate::config::{CheckJob, Verbosity};
use crate::report::Console;

/// Counts for one checksum file, and whether anything matched.
#[derive(Debug, Default)]
pub struct Tally {
    /// Improperly formatted lines.
    pub misformatted: u64,
    /// Listed files that could not be opened or read.
    pub open_failures: u64,
    /// Listed files whose digest differed.
    pub mismatched: u64,
    /// At least one line was a checksum line.
    pub properly_formatted: bool,
    /// At least one listed file matched.
    pub matched: bool,
}

impl Tally {
    /// True when GNU counts the checksum file as passed: something was
    /// verified and matched, nothing failed, and (`--strict`) no line was
    /// improperly formatted.
    pub fn passed(&self, strict: bool) -> bool {
        self.properly_formatted
            && self.matched
            && self.mismatched == 0
            && self.open_failures == 0
            && (!strict || self.misformatted == 0)
    }

    /// GNU's summary after the checksum file shown as `display`: "no
    /// properly formatted checksum lines found", or (unless `--status`)
    /// a WARNING line per kind of failure and "no file was verified"
    /// under `--ignore-missing`.
    pub fn summarize(&self, con: &mut Console, job: &CheckJob, display: &[u8]) {
        // GNU 8.32 names the algorithm: "no properly formatted MD5
        // checksum lines found".
        let kind = if job.lines_8_32 {
            rules::type_string_8_32(job)
        } else {
            String::new()
        };
        let status = job.verbosity == Verbosity::Status;
        self.summary(con, status, job.ignore_missing, &kind, display);
    }

    /// [`Tally::summarize`] from the settings it reads: `status`
    /// (`--status`), `ignore_missing`, and `kind`, the algorithm's name
    /// and a space where GNU 8.32 names it ("" otherwise).
    pub fn summary(&self, con: &mut Console, status: bool, ignore_missing: bool, kind: &str, display: &[u8]) {
        let shown = con.quotef(display);
        let named = |what: &[u8]| [&shown[..], what].concat();
        if !self.properly_formatted {
            con.error_msg(&named(
                format!(": no properly formatted {kind}checksum lines found").as_bytes(),
            ));
            return;
        }
        if status {
            return;
        }
        for (n, one, many) in [
            (
                self.misformatted,
                "line is improperly formatted",
                "lines are improperly formatted",
            ),
            (
                self.open_failures,
                "listed file could not be read",
                "listed files could not be read",
            ),
            (
                self.mismatched,
                "computed checksum did NOT match",
                "computed checksums did NOT match",
            ),
        ] {
            if n != 0 {
                let what = if n == 1 { one } else { many };
                con.error_msg(format!("WARNING: {n} {what}").as_bytes());
            }
        }
        if ignore_missing && !self.matched {
            con.error_msg(&named(b": no file was verified"));
        }
    }
}
