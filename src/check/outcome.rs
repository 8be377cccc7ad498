//! Where the outcomes go, in line order: counted in the [`Tally`],
//! reported through the [`CheckReport`], diagnosed on stderr.

use super::audit;
use super::parse::Chosen;
use super::tally::Tally;
use super::verify::{Event, Listed};
use crate::config::CheckJob;
use crate::report::{AuditCounts, Category, CheckReport, Console, LineAt, Verdict};
use crate::text::quote;
use std::sync::atomic::{AtomicBool, Ordering};

/// `--shard`'s key of the first file the audit's walk found: after every
/// line's (a line number), before a read error's (`u64::MAX`).
const FOUND: u64 = 1 << 62;

/// Where the outcomes go: counted, reported, diagnosed.
pub(super) struct Outcomes<'a> {
    pub(super) report: Box<dyn CheckReport>,
    pub(super) job: &'a CheckJob,
    pub(super) checkfile: &'a [u8],
    pub(super) display: &'a [u8],
    pub(super) tally: Tally,
    /// The checksum file could not be read to its end.
    pub(super) aborted: bool,
    /// Set once standard output has failed: the line reader stops (GNU
    /// fails at once on `... | cksum -c > /dev/full`, endless input too).
    pub(super) output_failed: &'a AtomicBool,
    /// `--audit`: files are counted by category, missing ones get no
    /// diagnostic (they are a category, not an error).
    pub(super) audit: bool,
    pub(super) counts: AuditCounts,
}

impl Outcomes<'_> {
    pub(super) fn emit(&mut self, con: &mut Console, ev: Event, more: bool) {
        let at = |line, chosen: Chosen, annotate| LineAt {
            checksum_file: self.checkfile,
            line,
            chosen: chosen.as_str(),
            annotate,
        };
        if let Some(s) = con.shard() {
            match &ev {
                Event::Misformatted { line, .. } => s.set_key(s.file(), *line),
                Event::Verified { listed, .. } => s.set_key(s.file(), listed.line),
                // Every shard reads the checksum file to the same error.
                Event::ReadError => {
                    s.set_key(s.file(), u64::MAX);
                    s.set_shared(true);
                }
                Event::Found(_, n) => s.set_key(s.file(), FOUND + n),
            }
        }
        match ev {
            Event::ReadError => {
                self.aborted = true;
                let msg = [&con.quotef(self.display)[..], b": read error"].concat();
                con.error_msg(&msg);
            }
            _ if self.aborted => {}
            Event::Found(found, _) => match found {
                audit::Found::New(name) => {
                    self.counts.add(Category::New);
                    self.report.found(con, &name, Category::New, None);
                }
                audit::Found::Error(name, path, e) => {
                    con.error_io(&path, &e);
                    self.counts.add(Category::Unreadable);
                    self.report.found(con, &name, Category::Unreadable, Some(&e));
                }
            },
            Event::Misformatted { msg, line } => {
                self.tally.misformatted += 1;
                if let Some(m) = msg {
                    con.error_msg(&m);
                }
                self.report.misformatted(con, at(line, Chosen::Given, false));
            }
            Event::Verified { listed, result } => {
                self.tally.properly_formatted = true;
                let Listed {
                    name,
                    algo,
                    line,
                    chosen,
                    annotate,
                    subject,
                    path,
                    ..
                } = listed;
                if self.job.debug
                    && !matches!(&result, Err(e) if self.job.ignore_missing && crate::os::ErrorClass::of(e) == Some(crate::os::ErrorClass::NotFound))
                {
                    let mut msg = quote::quotef(self.display);
                    msg.extend_from_slice(format!(": {line}: ").as_bytes());
                    msg.extend_from_slice(&quote::quotef(&name));
                    msg.extend_from_slice(
                        format!(": {}, chosen by {}", algo.name(), chosen.as_str()).as_bytes(),
                    );
                    if subject {
                        msg.extend_from_slice(
                            b" (a lone digest: the file the checksum file's name stands for)",
                        );
                    }
                    con.error_msg(&msg);
                }
                match result {
                    Err(e)
                        if self.job.ignore_missing
                            && crate::os::ErrorClass::of(&e) == Some(crate::os::ErrorClass::NotFound) => {}
                    Err(e) => {
                        if self.audit {
                            self.counts.add(Category::of(&Verdict::Unreadable(&e)));
                        }
                        if !(self.audit && crate::report::is_missing(&e)) {
                            con.error_io(path.as_deref().unwrap_or(&name), &e);
                        }
                        self.tally.open_failures += 1;
                        self.report.verified(
                            con,
                            at(line, chosen, annotate),
                            &name,
                            algo,
                            Verdict::Unreadable(&e),
                        );
                    }
                    Ok(ok) => {
                        if ok {
                            self.tally.matched = true;
                        } else {
                            self.tally.mismatched += 1;
                        }
                        let v = if ok { Verdict::Ok } else { Verdict::Mismatch };
                        if self.audit {
                            self.counts.add(Category::of(&v));
                        }
                        self.report
                            .verified(con, at(line, chosen, annotate), &name, algo, v);
                    }
                }
            }
        }
        // GNU writes each status line when its file is done.
        if !more {
            con.flush_now();
        }
        // mhash's own face stops reading at a failed write; GNU 9.1 and
        // 9.4 read the whole checksum file and count every line in the
        // summary (GNU 9.11 exits at the first failed write instead:
        // `Console::set_exits_on_write_error`).
        if self.job.stops_on_write_error && con.write_failed() {
            self.output_failed.store(true, Ordering::Relaxed);
        }
    }
}
