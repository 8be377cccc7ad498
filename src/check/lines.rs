//! Reading a checksum file: streamed line by line in bounded memory,
//! each line prepared (published formats), parsed, and turned into an
//! item for the scheduler: a listed file to verify, or an outcome already
//! known (an improperly formatted line, a read error, `--audit`'s finds).

use super::audit;
use super::formats;
use super::parse::{self, Chosen, LineError, Parser};
use super::rules;
use super::verify::{Event, Listed, verify};
use crate::algo::Algorithm;
use crate::config::{CheckJob, IoMode, Verbosity};
use crate::io;
use crate::sched::Item;
use crate::text::quote;
use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The checksum file as read, shared with the handle kept to close it.
pub(super) struct Source(pub(super) std::sync::Arc<std::fs::File>);

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        (&*self.0).read(buf)
    }
}

/// The longest checksum line kept, in bytes: 32 MiB. A line longer than
/// that holds no digest and name that could be checked (a name that long
/// cannot be opened: ENAMETOOLONG past 4,096 bytes), so it is read past
/// without being kept and counted improperly formatted (a comment line
/// stays a comment). GNU's `getline` keeps it whole: the same outcome.
pub(super) const MAX_LINE: usize = 32 << 20;

/// The length in bytes past which a line without a newline ends the
/// checksum file, uncounted, as GNU's `getline` ends it when it cannot
/// grow its buffer: under an address-space limit (`ulimit -v`), half of
/// what was left when the first checksum file was read (getline doubles
/// its buffer, and the old one is held while the new one is had), so
/// `yes a | tr -d '\n' | md5sum -c` ends with `no properly formatted
/// checksum lines found` as GNU's does. Without a limit there is none: a
/// line of any length is one improperly formatted line and the lines
/// after it are read (mhash keeps at most [`MAX_LINE`] bytes of it, so
/// memory stays bounded where GNU's grows).
pub(super) fn end_line() -> usize {
    static END: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *END.get_or_init(|| crate::os::address_space_left().map_or(usize::MAX, |left| (left / 2).max(MAX_LINE)))
}

/// Reads one line (to `\n` or the end of input) into `buf`, keeping at
/// most `cap` bytes of it (and fewer where memory cannot be had); returns
/// the bytes consumed and whether the line was cut; `(0, true)` past
/// [`end_line`] bytes without a newline.
///
/// # Errors
/// A read error (EINTR retried a bounded number of times).
pub(super) fn read_line_capped(
    r: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<(usize, bool)> {
    let (mut consumed, mut cut, mut interrupted) = (0, false, 0);
    loop {
        let avail = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted && interrupted < 1000 => {
                interrupted += 1;
                continue;
            }
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok((consumed, cut));
        }
        let (n, ends) = match memchr::memchr(b'\n', avail) {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        if !cut {
            if buf.len() + n > cap || buf.try_reserve(n).is_err() {
                cut = true;
            } else {
                buf.extend_from_slice(&avail[..n]);
            }
        }
        r.consume(n);
        consumed += n;
        if consumed > end_line() {
            return Ok((0, true));
        }
        if ends {
            return Ok((consumed, cut));
        }
    }
}

/// The checksum file's lines, parsed into work for the scheduler.
pub(super) struct Lines<'a> {
    pub(super) reader: BufReader<Box<dyn Read + Send>>,
    pub(super) parser: Parser,
    pub(super) job: &'a CheckJob,
    pub(super) display: &'a [u8],
    pub(super) io: IoMode,
    pub(super) buf: Vec<u8>,
    pub(super) line_no: u64,
    pub(super) done: bool,
    /// Standard input named in a checksum file is read here, in order,
    /// never by two threads at once.
    pub(super) stdin_buf: Option<io::ReadBuf>,
    /// mhash: one line is read ahead, to tell a file listed with several
    /// algorithms (`Listed::annotate`); GNU's dialects read none ahead.
    pub(super) lookahead: bool,
    pub(super) ahead: Option<Item<Listed, Event>>,
    /// The previous listed file and its algorithm.
    pub(super) prev: Option<(Vec<u8>, Algorithm)>,
    /// mhash: the published formats' preparation of each line.
    pub(super) prep: Option<formats::Prepare>,
    /// mhash: `gpg --print-md` records being gathered.
    pub(super) print_md: Option<formats::PrintMd>,
    /// A line (and its number) held back while the record it ended goes
    /// first.
    pub(super) held: Option<(u64, Vec<u8>)>,
    /// Items made from one line that go after the first (a hashdeep
    /// line's second digest, its size).
    pub(super) queued: std::collections::VecDeque<Item<Listed, Event>>,
    /// The line just read was Perl shasum's `U` or `^` form.
    pub(super) shasum: Option<crate::algo::bits::ShasumMode>,
    /// The checksum file's name as given (a digest-only file's subject).
    pub(super) checkfile: &'a [u8],
    /// `--shard`: the lines this run takes (see [`Lines::owns`]).
    pub(super) shard: Option<crate::walk::Shard>,
    /// Lines of other shards skipped so far.
    pub(super) skipped: u64,
    /// `--audit`: the files (and errors) the walk has found so far.
    pub(super) found: u64,
    /// The line just read was a lone digest, for the file the checksum
    /// file's name stands for.
    pub(super) subject: bool,
    /// GNU 9.1's quoting of names in messages.
    pub(super) old_quotes: bool,
    /// Standard output has failed: read no more lines.
    pub(super) output_failed: &'a AtomicBool,
    /// The checksum file could not be read to its end.
    pub(super) failed: bool,
    /// `--audit`: the listed names, and the walk after the last line.
    pub(super) audit: Option<audit::Audit>,
    /// Improperly formatted lines counted here rather than passed on (no
    /// message or record is written for them).
    pub(super) uncounted: u64,
    /// mhash: whether the checksum file may be a binary file
    /// ([`SNIFF`]).
    pub(super) sniff: Sniff,
    /// The progress bar, if one may show: each listed file's size joins
    /// its total as its line is read.
    pub(super) progress: Option<crate::progress::Progress>,
}

/// The native face's look for a binary file given as a checksum file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sniff {
    /// Nothing read yet.
    Unread,
    /// Within the first [`SNIFF`] bytes, no properly formatted line read
    /// yet: the bytes of the window left, and whether a NUL byte was read.
    Window {
        /// Bytes of the window not read yet.
        left: u64,
        /// A NUL byte was read.
        nul: bool,
    },
    /// Every line is read (a text file, a properly formatted line seen,
    /// GNU's dialects).
    Off,
}

/// How far into a checksum file the native face looks for a sign that it
/// is not one, in bytes: 64 KiB (one buffer). A file with a NUL byte in
/// its first 64 KiB and no properly formatted line in them (a disk image,
/// an archive, a binary given by mistake) is read no further: `mhash -c`
/// says `no properly formatted checksum lines found` at once, where GNU
/// reads the whole file for the same verdict (2 GB: about 1 s). A
/// checksum file holds text (names cannot hold a NUL); GNU's
/// personalities still read every line, as GNU does.
pub(super) const SNIFF: u64 = 64 * 1024;

/// The key `--shard` assigns an improperly formatted line by (it names
/// no file): its line number, in a form no file name takes.
fn misformatted_key(line: u64) -> Vec<u8> {
    format!("\0line {line}").into_bytes()
}

/// The listed file an item is about, if any.
pub(super) fn listed_in(item: &mut Item<Listed, Event>) -> Option<&mut Listed> {
    match item {
        Item::Work(l) | Item::Done(Event::Verified { listed: l, .. }) => Some(l),
        Item::Done(_) => None,
    }
}

impl Lines<'_> {
    /// The next item: the checksum file's, then (`--audit`) the walk's;
    /// runs under the scheduler's lock.
    pub(super) fn next_item(&mut self) -> Option<Item<Listed, Event>> {
        if let Some(item) = self.next_line_item() {
            return Some(item);
        }
        if self.failed || self.output_failed.load(Ordering::Relaxed) {
            return None;
        }
        loop {
            let found = self.audit.as_mut()?.next_found()?;
            let n = self.found;
            self.found += 1;
            // --shard: a file the walk found goes to the shard of its
            // name relative to DIR.
            let name = match &found {
                audit::Found::New(name) | audit::Found::Error(name, ..) => name,
            };
            if self.shard.is_none_or(|s| s.owns(name)) {
                return Some(Item::Done(Event::Found(found, n)));
            }
        }
    }

    /// The next item of the checksum file, one line read ahead in mhash's
    /// dialect so that a status line can name its algorithm when one file
    /// is listed with several (`f: OK (SHA256)`).
    pub(super) fn next_line_item(&mut self) -> Option<Item<Listed, Event>> {
        if !self.lookahead {
            return self.read_item();
        }
        let mut cur = match self.ahead.take() {
            Some(item) => item,
            None => self.read_item()?,
        };
        let counted = self.uncounted + self.skipped;
        self.ahead = self.read_item();
        let mut ahead = self.ahead.take();
        // Lines only counted in between: the next line is not adjacent.
        let next = ahead
            .as_mut()
            .and_then(listed_in)
            .filter(|_| self.uncounted + self.skipped == counted)
            .map(|l| (l.name.clone(), l.algo));
        self.ahead = ahead;
        if let Some(l) = listed_in(&mut cur) {
            let other = |o: &(Vec<u8>, Algorithm)| o.0 == l.name && o.1 != l.algo;
            l.annotate = next.as_ref().is_some_and(other) || self.prev.as_ref().is_some_and(other);
            self.prev = Some((l.name.clone(), l.algo));
        }
        Some(cur)
    }

    /// The native face's look at the start of a checksum file: the window
    /// of its first [`SNIFF`] bytes, where a NUL byte with no properly
    /// formatted line ends the reading. Only where improperly formatted
    /// lines are counted silently (no `--warn` message, no JSON record, no
    /// `--audit` count): there the verdict cannot change.
    fn sniff_start(&mut self) {
        let silent = self.job.verbosity != Verbosity::Warn && !self.job.json && self.audit.is_none();
        self.sniff = if self.prep.is_some() && silent && self.line_no == 0 {
            Sniff::Window {
                left: SNIFF,
                nul: false,
            }
        } else {
            Sniff::Off
        };
    }

    /// Whether more of the checksum file is there to read.
    fn more(&mut self) -> bool {
        matches!(self.reader.fill_buf(), Ok(b) if !b.is_empty())
    }

    /// Reads the next line ([`read_line_capped`]), the native face's
    /// window ([`SNIFF`]) watched. `Ok(None)`: the checksum file was found
    /// to be binary and is read no further.
    fn next_line(&mut self) -> std::io::Result<Option<(usize, bool)>> {
        let Sniff::Window { left, nul } = self.sniff else {
            return read_line_capped(&mut self.reader, &mut self.buf, MAX_LINE).map(Some);
        };
        if left == 0 {
            // The window ended at a line break.
            if nul && self.more() {
                return Ok(None);
            }
            self.sniff = Sniff::Off;
            return read_line_capped(&mut self.reader, &mut self.buf, MAX_LINE).map(Some);
        }
        let (n, cut) = read_line_capped(&mut (&mut self.reader).take(left), &mut self.buf, MAX_LINE)?;
        let (left, nul) = (left - n as u64, nul || memchr::memchr(0, &self.buf).is_some());
        self.sniff = Sniff::Window { left, nul };
        if left > 0 || self.buf.last() == Some(&b'\n') || !self.more() {
            return Ok(Some((n, cut)));
        }
        // The window ends inside a line.
        if nul {
            return Ok(None);
        }
        self.sniff = Sniff::Off;
        let (rest, cut_rest) = read_line_capped(&mut self.reader, &mut self.buf, MAX_LINE)?;
        Ok(Some((
            if rest == 0 && cut_rest { 0 } else { n + rest },
            cut || cut_rest,
        )))
    }

    /// Whether this run (`--shard`) takes `item`: a listed file by its
    /// name as listed, an improperly formatted line by its line number;
    /// what ends the file (a read error) every shard takes.
    fn owns(&self, item: &Item<Listed, Event>) -> bool {
        let Some(s) = self.shard else { return true };
        match item {
            Item::Work(l) | Item::Done(Event::Verified { listed: l, .. }) => s.owns(&l.name),
            Item::Done(Event::Misformatted { line, .. }) => s.owns(&misformatted_key(*line)),
            Item::Done(_) => true,
        }
    }

    /// The next item this run takes ([`Lines::owns`]).
    pub(super) fn read_item(&mut self) -> Option<Item<Listed, Event>> {
        loop {
            let item = self.read_any_item()?;
            if self.owns(&item) {
                return Some(item);
            }
            self.skipped += 1;
        }
    }

    /// Reads and parses lines until one names a file to verify (or the
    /// checksum file ends).
    fn read_any_item(&mut self) -> Option<Item<Listed, Event>> {
        if self.sniff == Sniff::Unread {
            self.sniff_start();
        }
        loop {
            if self.output_failed.load(Ordering::Relaxed) {
                return None;
            }
            if let Some(item) = self.queued.pop_front() {
                return Some(item);
            }
            // A line read after a `gpg --print-md` record, held back
            // while the record went first.
            if let Some((at, l)) = self.held.take() {
                match self.prepared_line_at(at, &l) {
                    Some(item) => return Some(item),
                    None => continue,
                }
            }
            if self.done {
                return None;
            }
            self.buf.clear();
            if self.buf.capacity() > 1 << 20 {
                // After a long line: give the memory back.
                self.buf.shrink_to(64 * 1024);
            }
            let read = match self.next_line() {
                Ok(Some(r)) => Ok(r),
                Ok(None) => return self.binary_end(),
                Err(e) => Err(e),
            };
            let cut = match read {
                Ok((0, _)) => {
                    self.done = true;
                    // The checksum file's last record.
                    let rec = self.print_md.as_mut().and_then(formats::PrintMd::finish);
                    return rec.and_then(|(at, rec)| self.prepared_line_at(at, &rec));
                }
                Ok((_, cut)) => cut,
                Err(_) => {
                    self.done = true;
                    self.failed = true;
                    return Some(Item::Done(Event::ReadError));
                }
            };
            self.line_no += 1;
            if self.prep.is_none() && self.buf.first() == Some(&b'#') {
                continue;
            }
            if cut {
                return Some(self.item(Err(LineError::Malformed)));
            }
            let buf = std::mem::take(&mut self.buf);
            let r = self.raw_line(&buf);
            self.buf = buf;
            // An improperly formatted line nothing is printed for is only
            // counted, here: a disk image given as a checksum file is
            // millions of them.
            if let Some(Item::Done(Event::Misformatted { msg: None, .. })) = &r
                && !self.job.json
            {
                if self.shard.is_none_or(|s| s.owns(&misformatted_key(self.line_no))) {
                    self.uncounted += 1;
                } else {
                    self.skipped += 1;
                }
                continue;
            }
            if let Some(item) = r {
                if !matches!(item, Item::Done(Event::Misformatted { .. })) {
                    // A properly formatted line: the file is read to its end.
                    self.sniff = Sniff::Off;
                }
                return Some(item);
            }
        }
    }

    /// The end of a checksum file found to be binary ([`SNIFF`]): read no
    /// further, as at its end.
    fn binary_end(&mut self) -> Option<Item<Listed, Event>> {
        self.done = true;
        let rec = self.print_md.as_mut().and_then(formats::PrintMd::finish);
        rec.and_then(|(at, rec)| self.prepared_line_at(at, &rec))
    }

    /// One line as read (its LF still there): the native face's
    /// preparation ([`formats::Prepare`], `gpg --print-md` records), then
    /// [`Self::prepared_line`]. `None`: nothing to verify on it.
    pub(super) fn raw_line(&mut self, buf: &[u8]) -> Option<Item<Listed, Event>> {
        let mut l: &[u8] = buf;
        if l.last() == Some(&b'\n') {
            l = &l[..l.len() - 1];
        }
        // GNU 8.32 keeps a CR before the LF (part of the name).
        if l.last() == Some(&b'\r') && !self.job.lines_8_32 {
            l = &l[..l.len() - 1];
        }
        let owned;
        if let Some(prep) = &mut self.prep {
            match prep.line(l) {
                formats::Prep::Skip => return None,
                formats::Prep::Hint(kind) => {
                    if self.job.algo.is_none() && self.job.family.is_empty() {
                        self.parser.expect.untagged = Some(Algorithm::new(kind));
                        self.parser.untagged_by = Chosen::Header;
                    }
                    return None;
                }
                formats::Prep::Line(p) => l = p,
                formats::Prep::Owned(v) => {
                    owned = v;
                    l = &owned;
                }
                formats::Prep::Size(name, size) => return self.size_line(name, size),
                formats::Prep::Hashdeep(row) => return self.hashdeep_row(row),
                formats::Prep::Sfv(name, digest) => {
                    let line = parse::CheckLine {
                        algo: Algorithm::new(crate::algo::AlgoKind::Crc32b),
                        digest,
                        name,
                        chosen: Chosen::Layout,
                        alternatives: Vec::new(),
                    };
                    return Some(self.item(Ok(line)));
                }
            }
            if let Some(md) = &mut self.print_md {
                let (finished, taken) = md.line(l, self.line_no);
                if let Some((at, rec)) = finished {
                    // The record first (at its own line), this line next.
                    if !taken {
                        self.held = Some((self.line_no, l.to_vec()));
                    }
                    return self.prepared_line_at(at, &rec);
                }
                if taken {
                    return None;
                }
            }
        }
        self.prepared_line(l)
    }

    /// A hashdeep file's line: one listed file per digest mhash computes,
    /// in column order, then its size checked as a `distinfo` `SIZE` line
    /// (by `stat`, without reading: a size that differs is one more
    /// `FAILED`); the items after the first are queued. Under `--audit`,
    /// the longest digest only.
    pub(super) fn hashdeep_row(
        &mut self,
        mut row: super::layouts::HashdeepRow,
    ) -> Option<Item<Listed, Event>> {
        if self.audit.is_some() {
            // `--audit` gives one verdict per file, as hashdeep's audit
            // does: its longest digest alone decides (a size that differs
            // changes it too).
            let longest = row.digests.iter().max_by_key(|(k, _)| k.info().bits).cloned();
            row.digests = longest.into_iter().collect();
            row.size = None;
        }
        let mut items = Vec::new();
        for (kind, digest) in row.digests {
            let line = parse::CheckLine {
                algo: Algorithm::new(kind),
                digest,
                name: row.name.clone(),
                chosen: Chosen::Layout,
                alternatives: Vec::new(),
            };
            items.push(self.item(Ok(line)));
        }
        if let Some(size) = row.size {
            let last = items.iter_mut().rev().find_map(listed_in).map(|l| l.algo.kind);
            if let Some(item) = self.size_check(row.name, size, last) {
                items.push(item);
            }
        }
        let mut items = items.into_iter();
        let first = items.next();
        self.queued.extend(items);
        first
    }

    /// A `distinfo` `SIZE` line: nothing to report when the file has that
    /// size or is not there (its digest line says so); a mismatch under
    /// the last tag's algorithm when its size differs (an empty expected
    /// digest, which [`Listed::judge`] never matches).
    pub(super) fn size_line(&mut self, name: Vec<u8>, size: u64) -> Option<Item<Listed, Event>> {
        let last = crate::algo::AlgoKind::ALL
            .into_iter()
            .find(|k| k.tag().is_some() && k.tag() == self.parser.last_tag);
        self.size_check(name, size, last)
    }

    /// [`Self::size_line`]'s check, its mismatch reported under `kind`
    /// (SHA-256 when none).
    fn size_check(
        &mut self,
        name: Vec<u8>,
        size: u64,
        kind: Option<crate::algo::AlgoKind>,
    ) -> Option<Item<Listed, Event>> {
        let path = match &self.audit {
            Some(a) => a.path_of(&audit::normalize(&name)),
            None => name.clone(),
        };
        if !super::layouts::size_differs(&path, size) {
            return None;
        }
        let kind = kind.unwrap_or(crate::algo::AlgoKind::Sha256);
        let line = parse::CheckLine {
            algo: Algorithm::new(kind),
            digest: Vec::new(),
            name,
            chosen: Chosen::Tag,
            alternatives: Vec::new(),
        };
        Some(self.item(Ok(line)))
    }

    /// [`Self::prepared_line`] for line number `at` (a `gpg --print-md`
    /// record's first line, or a line held back behind one).
    pub(super) fn prepared_line_at(&mut self, at: u64, l: &[u8]) -> Option<Item<Listed, Event>> {
        let now = std::mem::replace(&mut self.line_no, at);
        let r = self.prepared_line(l);
        self.line_no = now;
        r
    }

    /// A line after the native face's preparation (or any line in GNU's
    /// dialects), parsed into an item. `None`: nothing to verify on it.
    pub(super) fn prepared_line(&mut self, l: &[u8]) -> Option<Item<Listed, Event>> {
        let mut subject_line = None;
        self.subject = false;
        self.shasum = None;
        if self.prep.is_some() {
            if l.first() == Some(&b'#') {
                return None;
            }
            // A digest-only file (`kubectl.sha256`): the lone digest is
            // for the file the checksum file's name stands for.
            if formats::lone_digest(l)
                && let Some(subject) = formats::subject_of(self.checkfile)
            {
                subject_line = Some(formats::untagged_line(l, &subject));
                self.subject = true;
            } else if let Some((line, mode)) = formats::shasum_mode(l, |name| {
                let path = match &self.audit {
                    Some(a) => a.path_of(&audit::normalize(name)),
                    None => name.to_vec(),
                };
                std::fs::symlink_metadata(crate::os::bytes_os(&path)).is_ok()
            }) {
                subject_line = Some(line);
                self.shasum = Some(mode);
            }
        }
        let l = subject_line.as_deref().unwrap_or(l);
        // GNU 8.32 counts an empty line improperly formatted.
        if l.is_empty() && !self.job.lines_8_32 {
            return None;
        }
        let b2_832;
        let parsed = if l.is_empty() {
            Err(LineError::Malformed)
        } else if self.job.lines_8_32
            && self.job.dialect == crate::config::Dialect::Single
            && self
                .job
                .algo
                .is_some_and(|a| a.kind == crate::algo::AlgoKind::Blake2b)
        {
            match rules::b2sum_tag_8_32(l) {
                Ok(Some(v)) => {
                    b2_832 = v;
                    self.parser.parse(&b2_832)
                }
                Ok(None) => self.parser.parse(l),
                Err(e) => Err(e),
            }
        } else {
            self.parser.parse(l)
        };
        Some(self.item(parsed))
    }

    /// The scheduler's item for a parsed line.
    pub(super) fn item(&mut self, parsed: Result<parse::CheckLine, LineError>) -> Item<Listed, Event> {
        let line = self.line_no;
        // Quoted only for a message that is printed (a line at a time).
        let (display, old_quotes) = (self.display, self.old_quotes);
        let at = |msg: String| [&quote::quotef_compat(display, old_quotes)[..], msg.as_bytes()].concat();
        match parsed {
            Ok(p) => {
                // --audit: read under DIR, shown as the walk spells it.
                let (mut name, mut path, mut outside) = (p.name, None, false);
                if let Some(a) = self.audit.as_mut() {
                    let shown = audit::normalize(&name);
                    a.list(&shown);
                    if !shown.is_empty() {
                        name = shown;
                    }
                    outside = a.outside(&name);
                    path = Some(a.path_of(&name));
                }
                let (mut algo, mut alternatives) = (p.algo, p.alternatives);
                if self.shasum.is_some() && p.chosen != Chosen::Given {
                    // shasum computes SHA-1 and SHA-2 only (its %len2alg).
                    let kind = match p.digest.len() {
                        20 => crate::algo::AlgoKind::Sha1,
                        28 => crate::algo::AlgoKind::Sha224,
                        32 => crate::algo::AlgoKind::Sha256,
                        48 => crate::algo::AlgoKind::Sha384,
                        _ => crate::algo::AlgoKind::Sha512,
                    };
                    algo = Algorithm::new(kind);
                    alternatives.clear();
                }
                let listed = Listed {
                    path,
                    name,
                    algo,
                    expected: p.digest,
                    line,
                    chosen: p.chosen,
                    alternatives,
                    shasum: self.shasum,
                    preferred: Arc::clone(&self.parser.preferred),
                    annotate: false,
                    subject: self.subject,
                };
                // --audit: a name that leads out of DIR is never opened (a
                // manifest from elsewhere must not read any file the user
                // can read): unreadable, with the reason.
                if outside {
                    return Item::Done(Event::Verified {
                        listed,
                        result: Err(audit::outside_error()),
                    });
                }
                // Standard input, by any of its names, is read here, in
                // line order (`/dev/stdin` then `-`: the first gets the
                // data, as in GNU).
                if crate::os::reads_stdin(listed.source()) {
                    let buf = self.stdin_buf.get_or_insert_with(io::ReadBuf::default);
                    return Item::Done(verify(listed, buf, self.io));
                }
                if let Some(p) = &self.progress {
                    p.file_listed(&crate::os::bytes_os(listed.source()));
                }
                Item::Work(listed)
            }
            Err(LineError::Malformed) => Item::Done(Event::Misformatted {
                msg: (self.job.verbosity == Verbosity::Warn).then(|| {
                    at(format!(
                        ": {line}: improperly formatted {}checksum line",
                        if self.job.lines_8_32 {
                            rules::type_string_8_32(self.job)
                        } else {
                            rules::digest_type_string(self.job, self.parser.last_tag)
                        }
                    ))
                }),
                line,
            }),
        }
    }
}
