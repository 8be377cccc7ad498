//! `--shard I/N`'s output: the run's own bytes on standard output, framed
//! so that `mhash merge` can put N shards' outputs back into the single
//! run's bytes.
//!
//! A shard's standard output is one *unit*:
//!
//! ```text
//! #mhash-shard 1 I/N MODE<T>
//! BODY
//! #mhash-shard-end 1 I/N TOKEN TOKEN ...<T>
//! ```
//!
//! `T` is the body's line terminator (`\0` under `-z`, else `\n`), so that
//! the two frame lines are comment lines to a checksum-file reader (GNU's
//! `-c` and mhash's skip lines that start with `#`): a shard's output of
//! hash mode is still a checksum file. BODY is exactly what the single run
//! would print for this shard's inputs, in their order. MODE is `hash` or
//! `check`. The end line's tokens, in the order things were written:
//!
//! - `o=F.K:LEN`: LEN bytes of BODY (from where the last `o` ended) that
//!   the record keyed `F.K` wrote on standard output;
//! - `e=F.K:HEX`: bytes the record keyed `F.K` wrote on standard error
//!   (lowercase hex);
//! - `t=F:MIS:OPEN:MISMATCH:FORMATTED:MATCHED:HEX`: check mode's tally of
//!   checksum file F (its counts, two 0/1 flags, its display name in hex);
//! - `a=F:MATCHING:CHANGED:MISSING:NEW:UNREADABLE:STYLE:HEX`: `--audit`'s
//!   counts for checksum file F, how they are printed (0 not, 1 lines on
//!   standard error, 2 a JSON record) and the audited directory in hex;
//! - `x=F`: checksum file F failed before its summary (unreadable);
//! - `s=STATUS:IGNORE_MISSING:STRICT`: check mode's settings that shape
//!   the summary (0/1 each);
//! - `ok=0|1`: whether the shard's inputs all went well (hash mode; in
//!   check mode, whether anything outside the tallies failed).
//!
//! A record's key `F.K` is its place in the single run: F the checksum
//! file's index (0 in hash mode), K the input's index among all inputs
//! (hash mode) or the line number (check mode). What every shard meets
//! alike (a checksum file that cannot be opened) is kept by shard 0 alone.

use std::fmt::Write as _;

/// What a shard has written so far, by record (see the module
/// documentation).
#[derive(Debug)]
pub struct Sink {
    /// This run's shard.
    pub index: u64,
    /// The number of shards.
    pub count: u64,
    /// The current record's key.
    key: (u64, u64),
    /// Output now is what every shard writes alike: only shard 0 keeps it.
    shared: bool,
    /// Nothing is recorded (see [`Sink::mute`]).
    mute: bool,
    /// The end line's tokens so far.
    tokens: String,
    /// The `o` run being written: its key and length.
    run: Option<((u64, u64), u64)>,
    /// Something outside the tallies failed.
    failed: bool,
    /// A tally was recorded since [`Sink::take_tallied`] last asked.
    tallied: bool,
}

/// The first line of a shard's unit, without its terminator.
pub const HEAD: &str = "#mhash-shard 1 ";
/// The start of the last line of a shard's unit.
pub const END: &str = "#mhash-shard-end 1 ";

impl Sink {
    /// A sink for shard `index` of `count`.
    pub fn new(index: u64, count: u64) -> Sink {
        Sink {
            index,
            count,
            key: (0, 0),
            shared: false,
            mute: false,
            tokens: String::new(),
            run: None,
            failed: false,
            tallied: false,
        }
    }

    /// The head line (without its terminator) for a run of `mode`
    /// (`hash` or `check`).
    pub fn head(&self, mode: &str) -> String {
        format!("{HEAD}{}/{} {mode}", self.index, self.count)
    }

    /// Starts the record keyed `(file, k)`.
    pub fn set_key(&mut self, file: u64, k: u64) {
        self.key = (file, k);
        self.shared = false;
    }

    /// The current record's checksum file (0 in hash mode).
    pub fn file(&self) -> u64 {
        self.key.0
    }

    /// Whether a tally was recorded since the last call.
    pub fn take_tallied(&mut self) -> bool {
        std::mem::take(&mut self.tallied)
    }

    /// Says whether what follows is met alike by every shard (only shard
    /// 0 keeps it).
    pub fn set_shared(&mut self, shared: bool) {
        self.shared = shared;
    }

    /// Stops (`true`) or resumes recording: while muted, standard error is
    /// not recorded and standard output not written (a shard's own
    /// summary, which the merge prints from the sums).
    pub fn mute(&mut self, mute: bool) {
        self.mute = mute;
    }

    fn keeps(&self) -> bool {
        !self.mute && (!self.shared || self.index == 0)
    }

    fn close_run(&mut self) {
        if let Some(((f, k), len)) = self.run.take() {
            let _ = write!(self.tokens, " o={f}.{k}:{len}");
        }
    }

    /// Notes `len` bytes written on standard output; returns whether they
    /// belong in this shard's output.
    pub fn out(&mut self, len: usize) -> bool {
        if !self.keeps() {
            return false;
        }
        match &mut self.run {
            Some((k, n)) if *k == self.key => *n += len as u64,
            _ => {
                self.close_run();
                self.run = Some((self.key, len as u64));
            }
        }
        true
    }

    /// Records `bytes` written on standard error.
    pub fn err(&mut self, bytes: &[u8]) {
        if !self.keeps() {
            return;
        }
        self.close_run();
        let (f, k) = self.key;
        let _ = write!(self.tokens, " e={f}.{k}:{}", hex::encode(bytes));
    }

    /// Records check mode's tally of the current checksum file, shown as
    /// `display`: `[misformatted, open failures, mismatched]` and
    /// `[properly formatted, matched]`.
    pub fn tally(&mut self, counts: [u64; 3], flags: [bool; 2], display: &[u8]) {
        self.close_run();
        self.tallied = true;
        let file = self.key.0;
        let [a, b, c] = counts;
        let [d, e] = flags.map(u8::from);
        let _ = write!(
            self.tokens,
            " t={file}:{a}:{b}:{c}:{d}:{e}:{}",
            hex::encode(display)
        );
    }

    /// Records `--audit`'s counts of the current checksum file
    /// ([`crate::report::AuditCounts::all`]), how they are printed
    /// (`style`: see [`crate::report::AuditCounts::print`]) and the
    /// audited directory.
    pub fn audit(&mut self, counts: [u64; 5], style: u8, dir: &[u8]) {
        self.close_run();
        let file = self.key.0;
        let c = counts.map(|n| n.to_string()).join(":");
        let _ = write!(self.tokens, " a={file}:{c}:{style}:{}", hex::encode(dir));
    }

    /// Records that checksum file `file` failed before its summary (what
    /// every shard meets: kept by shard 0).
    pub fn file_failed(&mut self, file: u64) {
        if self.index == 0 {
            self.close_run();
            let _ = write!(self.tokens, " x={file}");
        }
    }

    /// Records check mode's settings that shape the summary.
    pub fn settings(&mut self, status: bool, ignore_missing: bool, strict: bool) {
        let _ = write!(
            self.tokens,
            " s={}:{}:{}",
            u8::from(status),
            u8::from(ignore_missing),
            u8::from(strict)
        );
    }

    /// Notes a failure outside the tallies (kept by shard 0 alone where
    /// it is shared).
    pub fn fail(&mut self) {
        if self.keeps() {
            self.failed = true;
        }
    }

    /// The end line (without its terminator); `ok`: the run's own verdict
    /// (hash mode), `None` for check mode (the failures noted by
    /// [`Sink::fail`] count).
    pub fn end(&mut self, ok: Option<bool>) -> String {
        self.close_run();
        let ok = ok.unwrap_or(!self.failed);
        format!(
            "{END}{}/{}{} ok={}",
            self.index,
            self.count,
            self.tokens,
            u8::from(ok)
        )
    }
}

/// One parsed shard unit (see the module documentation).
#[derive(Debug, Default)]
pub struct Unit {
    /// Its shard.
    pub index: u64,
    /// The number of shards.
    pub count: u64,
    /// `hash` or `check`.
    pub mode: String,
    /// The body's terminator.
    pub terminator: u8,
    /// Its records in order: key, and the output (stdout bytes, or
    /// stderr bytes).
    pub chunks: Vec<((u64, u64), Chunk)>,
    /// Check mode's tallies by checksum file.
    pub tallies: Vec<FileTally>,
    /// `--audit`'s counts by checksum file, their style and directory.
    pub audits: Vec<(u64, [u64; 5], u8, Vec<u8>)>,
    /// Checksum files that failed before their summary.
    pub failed_files: Vec<u64>,
    /// Check mode's settings (`--status`, `--ignore-missing`, `--strict`).
    pub settings: [bool; 3],
    /// The unit's own verdict.
    pub ok: bool,
}

/// Check mode's tally of one checksum file: its index, `[misformatted,
/// open failures, mismatched]`, `[properly formatted, matched]`, its
/// display name.
pub type FileTally = (u64, [u64; 3], [bool; 2], Vec<u8>);

/// A piece of a record's output.
#[derive(Debug)]
pub enum Chunk {
    /// A byte range of the input (standard output).
    Out(std::ops::Range<usize>),
    /// Bytes for standard error.
    Err(Vec<u8>),
}

/// Parses the units of `data` (shard outputs concatenated, in any order).
/// Errors say what is wrong and where (a byte offset).
pub fn parse_units(data: &[u8]) -> Result<Vec<Unit>, String> {
    let mut units = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let (unit, next) = parse_unit(data, at)?;
        units.push(unit);
        at = next;
    }
    Ok(units)
}

/// Parses the unit starting at `at`; returns it and where the next starts.
fn parse_unit(data: &[u8], at: usize) -> Result<(Unit, usize), String> {
    let rest = &data[at..];
    if !rest.starts_with(HEAD.as_bytes()) {
        return Err(format!(
            "byte {at}: expected a shard's first line ('{HEAD}I/N MODE'): is this the output of mhash --shard?"
        ));
    }
    let head_len = rest
        .iter()
        .position(|&b| b == b'\n' || b == 0)
        .ok_or_else(|| format!("byte {at}: a shard's first line has no end"))?;
    let terminator = rest[head_len];
    let head =
        std::str::from_utf8(&rest[HEAD.len()..head_len]).map_err(|_| format!("byte {at}: bad first line"))?;
    let (shard, mode) = head
        .split_once(' ')
        .ok_or_else(|| format!("byte {at}: bad first line '{head}'"))?;
    let (index, count) = parse_shard(shard).ok_or_else(|| format!("byte {at}: bad shard '{shard}'"))?;
    let body = at + head_len + 1;
    // The end line: the first candidate whose recorded lengths add up to
    // the bytes before it and that the input's end or another unit
    // follows (a name may hold the marker; it does not pass both).
    let finder = memchr::memmem::Finder::new(END.as_bytes());
    let mut from = body;
    loop {
        let Some(p) = finder.find(&data[from..]).map(|p| p + from) else {
            return Err(format!(
                "byte {at}: shard {index}/{count} has no end line ('{END}...'): was it cut short?"
            ));
        };
        from = p + 1;
        if p != body && data[p - 1] != terminator {
            continue;
        }
        let end = data[p..].iter().position(|&b| b == terminator).map(|e| p + e);
        let Some(end) = end else { continue };
        let Ok(line) = std::str::from_utf8(&data[p + END.len()..end]) else {
            continue;
        };
        // What follows must be the end of the input or another unit.
        let next = &data[end + 1..];
        if !(next.is_empty() || next.starts_with(HEAD.as_bytes())) {
            continue;
        }
        if let Some(mut unit) = parse_end(line, body, p) {
            if (unit.index, unit.count) != (index, count) {
                return Err(format!(
                    "byte {at}: shard {index}/{count}'s end line says {}/{}",
                    unit.index, unit.count
                ));
            }
            unit.mode = mode.to_string();
            unit.terminator = terminator;
            return Ok((unit, end + 1));
        }
    }
}

fn parse_shard(s: &str) -> Option<(u64, u64)> {
    let (i, n) = s.split_once('/')?;
    Some((i.parse().ok()?, n.parse().ok()?))
}

fn parse_key(s: &str) -> Option<(u64, u64)> {
    let (f, k) = s.split_once('.')?;
    Some((f.parse().ok()?, k.parse().ok()?))
}

/// Parses an end line's text (after [`END`]) for a body from `body` to
/// `stop`; `None` unless it is well formed and its lengths add up.
fn parse_end(line: &str, body: usize, stop: usize) -> Option<Unit> {
    let mut words = line.split(' ');
    let (index, count) = parse_shard(words.next()?)?;
    let mut unit = Unit {
        index,
        count,
        ..Unit::default()
    };
    let mut pos = body;
    let mut ok = None;
    for w in words {
        let (tag, v) = w.split_once('=')?;
        match tag {
            "o" => {
                let (k, len) = v.split_once(':')?;
                let len: usize = len.parse().ok()?;
                let end = pos.checked_add(len).filter(|&e| e <= stop)?;
                unit.chunks.push((parse_key(k)?, Chunk::Out(pos..end)));
                pos = end;
            }
            "e" => {
                let (k, h) = v.split_once(':')?;
                unit.chunks
                    .push((parse_key(k)?, Chunk::Err(hex::decode(h).ok()?)));
            }
            "t" => {
                let f: Vec<&str> = v.split(':').collect();
                if f.len() != 7 {
                    return None;
                }
                let n = |i: usize| f[i].parse::<u64>().ok();
                let b = |i: usize| match f[i] {
                    "0" => Some(false),
                    "1" => Some(true),
                    _ => None,
                };
                unit.tallies.push((
                    n(0)?,
                    [n(1)?, n(2)?, n(3)?],
                    [b(4)?, b(5)?],
                    hex::decode(f[6]).ok()?,
                ));
            }
            "a" => {
                let f: Vec<&str> = v.split(':').collect();
                if f.len() != 8 {
                    return None;
                }
                let n = |i: usize| f[i].parse::<u64>().ok();
                unit.audits.push((
                    n(0)?,
                    [n(1)?, n(2)?, n(3)?, n(4)?, n(5)?],
                    f[6].parse().ok()?,
                    hex::decode(f[7]).ok()?,
                ));
            }
            "x" => unit.failed_files.push(v.parse().ok()?),
            "s" => {
                let f: Vec<bool> = v.split(':').map(|x| x == "1").collect();
                unit.settings = f.try_into().ok()?;
            }
            "ok" => ok = Some(v == "1"),
            _ => return None,
        }
    }
    unit.ok = ok?;
    (pos == stop).then_some(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit as a shard writes it: the head, `records` (key, stdout
    /// bytes) and a stderr line for the first, the end line.
    fn unit(index: u64, count: u64, records: &[((u64, u64), &[u8])]) -> Vec<u8> {
        let mut sink = Sink::new(index, count);
        let mut out = sink.head("hash").into_bytes();
        out.push(b'\n');
        for (i, (k, bytes)) in records.iter().enumerate() {
            sink.set_key(k.0, k.1);
            if i == 0 {
                sink.err(b"prog: a message\n");
            }
            assert!(sink.out(bytes.len()));
            out.extend_from_slice(bytes);
        }
        out.extend_from_slice(sink.end(Some(true)).as_bytes());
        out.push(b'\n');
        out
    }

    #[test]
    fn units_read_back_what_the_sink_wrote() {
        let a = unit(
            0,
            2,
            &[((0, 1), b"x  a\n"), ((0, 1), b"y  a\n"), ((0, 4), b"z  b\n")],
        );
        let b = unit(1, 2, &[]);
        let data = [a, b].concat();
        let units = parse_units(&data).unwrap();
        assert_eq!(units.len(), 2);
        let u = &units[0];
        assert_eq!((u.index, u.count, u.mode.as_str(), u.ok), (0, 2, "hash", true));
        let got: Vec<((u64, u64), Vec<u8>)> = u
            .chunks
            .iter()
            .map(|(k, c)| match c {
                Chunk::Out(r) => (*k, data[r.clone()].to_vec()),
                Chunk::Err(e) => (*k, [b"E:", &e[..]].concat()),
            })
            .collect();
        let want: Vec<((u64, u64), Vec<u8>)> = vec![
            ((0, 1), b"E:prog: a message\n".to_vec()),
            ((0, 1), b"x  a\ny  a\n".to_vec()),
            ((0, 4), b"z  b\n".to_vec()),
        ];
        assert_eq!(got, want);
        assert!(units[1].chunks.is_empty());
    }

    #[test]
    fn an_end_marker_inside_a_record_is_not_taken_for_the_end() {
        let forged = format!("{END}0/1 ok=0\n");
        let data = unit(0, 1, &[((0, 0), forged.as_bytes()), ((0, 1), b"after\n")]);
        let units = parse_units(&data).unwrap();
        assert_eq!(units.len(), 1);
        assert!(units[0].ok);
        assert_eq!(units[0].chunks.len(), 3);
    }
}
