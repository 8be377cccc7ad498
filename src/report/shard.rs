//! `--shard I/N`'s output: the run's own bytes on standard output, framed
//! so that `mhash merge` can put N shards' outputs back into the single
//! run's bytes.
//!
//! A shard's standard output is one *unit*:
//!
//! ```text
//! #mhash-shard 2 I/N MODE RUN<T>
//! BODY
//! #mhash-shard-end 2 I/N TOKEN TOKEN ...<T>
//! ```
//!
//! `2` is the frame's version (version 1 had no RUN, `m`, `st` or `f`; a
//! merge of another version's output says so). RUN is the run's
//! fingerprint (`crate::config::Common::shard_run`): the merge refuses
//! shards of different runs.
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
//! - `m=F.K:HEX`: a diagnostic the record keyed `F.K` printed, without
//!   its `PROG: ` prefix and newline (the merge prints it with its own
//!   program name, as one run would);
//! - `st=TAKEN:READ:RESCANNED:OLDEST:HEX`: `--state`'s counts, the
//!   oldest taken digest's read time (ns since the epoch, `-` for none)
//!   and the state file (hex): the merge prints one summary of the sums;
//! - `f=1`: check mode: something outside the tallies failed;
//! - `ok=0|1`: the shard's own verdict, 0 whenever its exit status is
//!   not 0 (the merge's verdict: every `ok` in hash mode; in check mode
//!   the summed tallies, `x` and `f`).
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
    /// The run's fingerprint (`crate::config::Common::shard_run`).
    fingerprint: String,
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
    /// A tally was recorded at all.
    any_tally: bool,
}

/// The start of the first line of a shard's unit (this frame version,
/// 2).
pub const HEAD: &str = "#mhash-shard 2 ";
/// The start of the last line of a shard's unit (this frame version).
pub const END: &str = "#mhash-shard-end 2 ";
/// What every version's first line starts with (the version follows).
pub const HEAD_ANY: &str = "#mhash-shard ";

impl Sink {
    /// A sink for shard `index` of `count` of the run fingerprinted `run`
    /// (hex digits; see `crate::config::Common::shard_run`).
    pub fn new(index: u64, count: u64, run: &str) -> Sink {
        Sink {
            index,
            count,
            fingerprint: run.to_string(),
            key: (0, 0),
            shared: false,
            mute: false,
            tokens: String::new(),
            run: None,
            failed: false,
            tallied: false,
            any_tally: false,
        }
    }

    /// The head line (without its terminator) for a run of `mode`
    /// (`hash` or `check`).
    pub fn head(&self, mode: &str) -> String {
        format!("{HEAD}{}/{} {mode} {}", self.index, self.count, self.fingerprint)
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

    /// Records a diagnostic `PROG: MSG` on standard error by its `msg`
    /// alone: the merge prints it with its own program name, as one run
    /// would.
    pub fn msg(&mut self, msg: &[u8]) {
        if !self.keeps() {
            return;
        }
        self.close_run();
        let (f, k) = self.key;
        let _ = write!(self.tokens, " m={f}.{k}:{}", hex::encode(msg));
    }

    /// Records `--state`'s counts (`[taken, read, rescanned]`, the oldest
    /// digest's read time in ns since the epoch) for the state file
    /// `path`: the merge prints one summary of the sums.
    pub fn state(&mut self, counts: [u64; 3], oldest_ns: Option<i64>, path: &[u8]) {
        self.close_run();
        let [a, b, c] = counts;
        let oldest = oldest_ns.map_or_else(|| "-".to_string(), |n| n.to_string());
        let _ = write!(self.tokens, " st={a}:{b}:{c}:{oldest}:{}", hex::encode(path));
    }

    /// Records check mode's tally of the current checksum file, shown as
    /// `display`: `[misformatted, open failures, mismatched]` and
    /// `[properly formatted, matched]`.
    pub fn tally(&mut self, counts: [u64; 3], flags: [bool; 2], display: &[u8]) {
        self.close_run();
        self.tallied = true;
        self.any_tally = true;
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
    /// every shard meets: its token is kept by shard 0; every shard's
    /// verdict is false).
    pub fn file_failed(&mut self, file: u64) {
        self.failed = true;
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

    /// Notes a failure outside the tallies. Every shard that meets it
    /// records it (its verdict is false whenever its exit status is not
    /// 0), shared or not; the message itself is kept by shard 0 alone
    /// where it is shared.
    pub fn fail(&mut self) {
        self.failed = true;
    }

    /// Whether a tally of a checksum file or a failure was recorded: what
    /// accounts for a check run's failure in the merge. A failed run that
    /// recorded neither failed outside them (see `app`).
    pub fn accounted(&self) -> bool {
        self.failed || self.any_tally
    }

    /// The end line (without its terminator); `ok`: the shard's own
    /// verdict (false whenever its exit status is not 0). In check mode a
    /// failure noted by [`Sink::fail`] adds `f=1`: the merge's verdict
    /// comes from the summed tallies and those.
    pub fn end(&mut self, ok: bool) -> String {
        self.close_run();
        let failed = if self.failed { " f=1" } else { "" };
        format!(
            "{END}{}/{}{}{failed} ok={}",
            self.index,
            self.count,
            self.tokens,
            u8::from(ok && !self.failed)
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
    /// The run's fingerprint.
    pub run: String,
    /// `--state`'s counts (`[taken, read, rescanned]`), the oldest
    /// digest's read time (ns since the epoch) and the state file.
    pub state: Option<([u64; 3], Option<i64>, Vec<u8>)>,
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
    /// The unit's own verdict (false whenever the shard's exit status
    /// was not 0).
    pub ok: bool,
    /// Check mode: something outside the tallies failed (`f=1`).
    pub failed: bool,
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
    /// A diagnostic for standard error, without its `PROG: ` prefix and
    /// its newline.
    Msg(Vec<u8>),
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
    if rest.starts_with(HEAD_ANY.as_bytes()) && !rest.starts_with(HEAD.as_bytes()) {
        let version: String = rest[HEAD_ANY.len()..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .map(|&b| char::from(b))
            .collect();
        return Err(format!(
            "byte {at}: a shard output of frame version {version}; this mhash merges version {} \
             (merge with the mhash that wrote the shards, or rerun them with this one)",
            &HEAD[HEAD_ANY.len()..HEAD.len() - 1]
        ));
    }
    if !rest.starts_with(HEAD.as_bytes()) {
        return Err(format!(
            "byte {at}: expected a shard's first line ('{HEAD}I/N MODE RUN'): is this the output of mhash --shard?"
        ));
    }
    let head_len = rest
        .iter()
        .position(|&b| b == b'\n' || b == 0)
        .ok_or_else(|| format!("byte {at}: a shard's first line has no end"))?;
    let terminator = rest[head_len];
    let head =
        std::str::from_utf8(&rest[HEAD.len()..head_len]).map_err(|_| format!("byte {at}: bad first line"))?;
    let mut fields = head.split(' ');
    let (Some(shard), Some(mode), Some(run), None) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(format!("byte {at}: bad first line '{head}'"));
    };
    let (index, count) = parse_shard(shard).ok_or_else(|| format!("byte {at}: bad shard '{shard}'"))?;
    let body = at + head_len + 1;
    // The end line: the first candidate whose recorded lengths add up to
    // the bytes before it and that the input's end or another unit
    // follows (a name may hold the marker; it does not pass both).
    let finder = memchr::memmem::Finder::new(END.as_bytes());
    let mut from = body;
    // A well-formed end line whose lengths do not add up: the error
    // names it when no other candidate fits.
    let mut misfit: Option<(usize, u64, usize)> = None;
    loop {
        let Some(p) = finder.find(&data[from..]).map(|p| p + from) else {
            if let Some((p, recorded, actual)) = misfit {
                return Err(format!(
                    "byte {at}: shard {index}/{count}'s end line (byte {p}) records {recorded} bytes of \
                     output, but {actual} bytes stand before it: the recorded lengths do not add up \
                     (was the output edited or mixed with other output?)"
                ));
            }
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
        let parsed = match parse_end(line, body, p) {
            Ok(unit) => Some(unit),
            Err(Some(recorded)) => {
                misfit.get_or_insert((p, recorded, p - body));
                None
            }
            Err(None) => None,
        };
        if let Some(mut unit) = parsed {
            if (unit.index, unit.count) != (index, count) {
                return Err(format!(
                    "byte {at}: shard {index}/{count}'s end line says {}/{}",
                    unit.index, unit.count
                ));
            }
            unit.mode = mode.to_string();
            unit.run = run.to_string();
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
/// `stop`. Errors: `Some(n)` when it is well formed but its lengths (`n`
/// bytes in all) do not add up to the body's, `None` when it is not well
/// formed.
fn parse_end(line: &str, body: usize, stop: usize) -> Result<Unit, Option<u64>> {
    let mut recorded = 0u64;
    let unit = parse_end_tokens(line, body, stop, &mut recorded).ok_or(None)?;
    if recorded == (stop - body) as u64 {
        Ok(unit)
    } else {
        Err(Some(recorded))
    }
}

/// [`parse_end`]'s reading of the tokens; `recorded`: the sum of the `o`
/// lengths (the chunks are clamped to `stop`).
fn parse_end_tokens(line: &str, body: usize, stop: usize, recorded: &mut u64) -> Option<Unit> {
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
                let len: u64 = len.parse().ok()?;
                *recorded = recorded.saturating_add(len);
                let end = usize::try_from(len)
                    .ok()
                    .and_then(|l| pos.checked_add(l))
                    .map_or(stop, |e| e.min(stop));
                unit.chunks.push((parse_key(k)?, Chunk::Out(pos..end)));
                pos = end;
            }
            "e" => {
                let (k, h) = v.split_once(':')?;
                unit.chunks
                    .push((parse_key(k)?, Chunk::Err(hex::decode(h).ok()?)));
            }
            "m" => {
                let (k, h) = v.split_once(':')?;
                unit.chunks
                    .push((parse_key(k)?, Chunk::Msg(hex::decode(h).ok()?)));
            }
            "st" => {
                let f: Vec<&str> = v.split(':').collect();
                if f.len() != 5 {
                    return None;
                }
                let n = |i: usize| f[i].parse::<u64>().ok();
                let oldest = match f[3] {
                    "-" => None,
                    t => Some(t.parse::<i64>().ok()?),
                };
                unit.state = Some(([n(0)?, n(1)?, n(2)?], oldest, hex::decode(f[4]).ok()?));
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
            "f" => unit.failed = v == "1",
            _ => return None,
        }
    }
    unit.ok = ok?;
    Some(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit as a shard writes it: the head, `records` (key, stdout
    /// bytes) and a stderr line for the first, the end line.
    fn unit(index: u64, count: u64, records: &[((u64, u64), &[u8])]) -> Vec<u8> {
        let mut sink = Sink::new(index, count, "0123456789abcdef");
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
        out.extend_from_slice(sink.end(true).as_bytes());
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
                Chunk::Msg(m) => (*k, [b"M:", &m[..]].concat()),
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
