//! `--state FILE`: a verified-state file, so that a re-run over a tree
//! hashes only what changed (and a slice of the rest, oldest first, so
//! that every file is read again over time, as a ZFS scrub reads a pool).
//!
//! # The file
//!
//! JSON Lines (one JSON object a line, UTF-8), readable and greppable:
//! a header line, then one record per file and algorithm:
//!
//! ```text
//! {"mhash_state":1,"written_ns":1765000000123456789}
//! {"path":"dir/a","algo":"sha256","digest":"ba78...","size":3,"mtime_ns":...,"ctime_ns":...,"ino":1234,"dev":2049,"read_ns":...}
//! ```
//!
//! `path` is the name as it was given (an operand, a `--files-from` line,
//! a `-r` walk's name): the state is for runs from the same directory
//! with the same names. A name that is not UTF-8 is written as
//! `path_hex` (its bytes in hex) instead. Times are nanoseconds since the
//! Unix epoch: `mtime_ns` and `ctime_ns` the file's (`st_mtim`,
//! `st_ctim`; on Windows the last write and creation times, and `ino`
//! and `dev` 0), `read_ns` when mhash began to read it. A file whose
//! header or any line does not parse is reported (its line number and the
//! cause) and ignored as a whole: every file is then read.
//!
//! # Loading
//!
//! A re-run over an unchanged tree should cost little more than a `stat`
//! per file, so the state is loaded on a thread of its own while the walk
//! and the first `stat`s go on (the first lookup waits for it), read in
//! one `read`, and parsed without an allocation per record: a line in the
//! exact layout mhash writes (no escape in the name, the fields in order,
//! no space) is taken by a hand-written parser; any other line (escapes,
//! another order, spaces, an error) goes to serde_json, which parses it or
//! names the cause, so a hand-edited line still loads or is reported as
//! before. Names, algorithms and digests (as bytes) go to one arena, the
//! records sorted by name (a file mhash wrote is sorted already), each
//! name's first record in a hash table keyed by its bytes there.
//!
//! # When a digest is taken from the state
//!
//! Only when the record's algorithm, size, mtime, ctime, inode and device
//! all equal the file's now (`stat` before the read), and the record is
//! not *racy*: a file whose mtime or ctime is within [`RACY_NS`] (2 s) of
//! the moment mhash began to read it may have been written again in the
//! same timestamp granule (FAT's mtime has 2 s steps; Linux's coarse clock
//! a few ms), after the read, with no change to its metadata. Such a record
//! is kept but not trusted: the file is read again on the next run (git's
//! "racy clean" index entries, handled the same way). A file whose
//! metadata changed while it was read gets no record.
//!
//! # Writing
//!
//! The state is written to a temporary file in the same directory
//! (`FILE.tmp.PID`), synced, and renamed over `FILE` (the directory
//! synced too, on Unix): a reader sees the old state or the new one,
//! never a mix, and a kill at any moment leaves one of them. During a run
//! it is written every [`CHECKPOINT_SECS`] seconds, so that a killed run
//! keeps what it read. Writers hold an exclusive advisory lock on
//! `FILE.lock` (`flock`; `LockFileEx` on Windows) while they re-read the
//! file and merge: the records on disk (written by another shard or run
//! meanwhile) with this run's, this run's winning. So the shards of one
//! run may share one state file.

use crate::algo::Algorithm;
use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The format's version, the header's `mhash_state` value.
pub const VERSION: u64 = 1;

/// A record whose file's mtime or ctime is this close (in nanoseconds,
/// 2 s) to its read time, or later, is not trusted ("racy").
pub const RACY_NS: i64 = 2_000_000_000;

/// How often, in seconds, a run writes the state it has so far.
pub const CHECKPOINT_SECS: u64 = 5;

/// How much of the state to read again though unchanged (`--rescan`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rescan {
    /// Nothing (the default): only changed files are read.
    #[default]
    None,
    /// About this many bytes, in bytes.
    Bytes(u64),
    /// About this percentage (0 to 100) of the bytes the state records.
    Percent(u8),
}

impl Rescan {
    /// Parses `--rescan`'s value: a whole number of bytes with an optional
    /// binary suffix (`K`, `M`, `G`, `T`, also written `KiB`...), or a
    /// percentage `N%` (0 to 100).
    ///
    /// # Errors
    /// A message naming the value and what is expected.
    pub fn parse(s: &str) -> Result<Rescan, String> {
        let bad = || {
            format!(
                "invalid --rescan value '{s}': give bytes (a whole number, \
                 optionally with K, M, G or T) or a percentage such as 5%"
            )
        };
        if let Some(p) = s.strip_suffix('%') {
            return match p.parse::<u8>() {
                Ok(n) if n <= 100 => Ok(Rescan::Percent(n)),
                _ => Err(bad()),
            };
        }
        let t = s.trim_end_matches("iB").trim_end_matches('B');
        let (digits, shift) = match t.char_indices().last() {
            Some((i, c)) if c.is_ascii_alphabetic() => {
                let shift = match c.to_ascii_uppercase() {
                    'K' => 10,
                    'M' => 20,
                    'G' => 30,
                    'T' => 40,
                    _ => return Err(bad()),
                };
                (&t[..i], shift)
            }
            _ => (t, 0),
        };
        let n: u64 = digits.parse().map_err(|_| bad())?;
        n.checked_mul(1 << shift).map(Rescan::Bytes).ok_or_else(bad)
    }
}

/// The metadata a record is compared on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    /// The size in bytes.
    pub size: u64,
    /// The modification time, in nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// The inode change time (Unix) or the creation time (Windows), in
    /// nanoseconds since the Unix epoch.
    pub ctime_ns: i64,
    /// The inode number (0 on Windows).
    pub ino: u64,
    /// The device (0 on Windows).
    pub dev: u64,
}

impl Meta {
    /// `md`'s fields.
    #[cfg(unix)]
    pub fn of(md: &fs::Metadata) -> Meta {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
        Meta {
            size: md.size(),
            mtime_ns: ns(md.mtime(), md.mtime_nsec()),
            ctime_ns: ns(md.ctime(), md.ctime_nsec()),
            ino: md.ino(),
            dev: md.dev(),
        }
    }

    /// `md`'s fields: Windows' times are in 100 ns units since 1601.
    #[cfg(windows)]
    pub fn of(md: &fs::Metadata) -> Meta {
        use std::os::windows::fs::MetadataExt;
        const EPOCH_DIFF_100NS: i64 = 116_444_736_000_000_000;
        let ns = |t: u64| (t as i64).saturating_sub(EPOCH_DIFF_100NS).saturating_mul(100);
        Meta {
            size: md.file_size(),
            mtime_ns: ns(md.last_write_time()),
            ctime_ns: ns(md.creation_time()),
            ino: 0,
            dev: 0,
        }
    }

    /// `md`'s size and modification time only.
    #[cfg(not(any(unix, windows)))]
    pub fn of(md: &fs::Metadata) -> Meta {
        Meta {
            size: md.len(),
            mtime_ns: md.modified().map(ns_since_epoch).unwrap_or(0),
            ctime_ns: 0,
            ino: 0,
            dev: 0,
        }
    }
}

/// One file's digest under one algorithm, and what its file was like.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The digest, lower-case hex.
    pub digest: String,
    /// The file's metadata when it was read.
    pub meta: Meta,
    /// When the read began, in nanoseconds since the Unix epoch.
    pub read_ns: i64,
}

impl Record {
    /// Whether the file may have changed in the same timestamp granule
    /// as it was read (see [`RACY_NS`]).
    pub fn racy(&self) -> bool {
        racy(&self.meta, self.read_ns)
    }
}

/// Whether a file with metadata `meta`, read at `read_ns`, may have
/// changed in the same timestamp granule as it was read.
fn racy(meta: &Meta, read_ns: i64) -> bool {
    meta.mtime_ns.max(meta.ctime_ns) >= read_ns.saturating_sub(RACY_NS)
}

/// A record's key: the name's bytes and the algorithm's name
/// (`sha256`, `blake2b-256`).
type Key = (Vec<u8>, String);

/// Nanoseconds since the Unix epoch (negative before it).
pub fn ns_since_epoch(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_nanos()).unwrap_or(i64::MAX),
    }
}

/// The time now, in nanoseconds since the Unix epoch.
pub fn now_ns() -> i64 {
    ns_since_epoch(SystemTime::now())
}

/// What a run did with the state, for its summary line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Inputs whose digests came from the state (not read).
    pub taken: u64,
    /// Inputs read (changed, new, racy, rescanned, or not regular files).
    pub read: u64,
    /// Of those read, how many were read only because `--rescan` chose them.
    pub rescanned: u64,
    /// The oldest read time among the digests taken, in nanoseconds since
    /// the Unix epoch.
    pub oldest_ns: Option<i64>,
}

/// What a state file gave, once loaded: its records, the names chosen for
/// `--rescan`, and why it was not used, if it was not.
#[derive(Debug, Default)]
struct Loaded {
    index: Index,
    rescan: HashSet<Vec<u8>>,
    garbled: Option<Garbled>,
}

/// A state file being loaded on a thread of its own (so that the walk and
/// the first `stat`s go on meanwhile): the first look waits for it.
#[derive(Debug)]
pub struct Loading {
    done: OnceLock<Loaded>,
    thread: Mutex<Option<std::thread::JoinHandle<Loaded>>>,
}

impl Loading {
    /// Starts loading `path` (see [`State::load`]); where no thread can be
    /// started, loads it now.
    fn start(path: &Path, rescan: Rescan) -> Loading {
        let p = path.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("state".into())
            .spawn(move || load_now(&p, rescan))
            .ok();
        let done = OnceLock::new();
        if thread.is_none() {
            let _ = done.set(load_now(path, rescan));
        }
        Loading {
            done,
            thread: Mutex::new(thread),
        }
    }

    /// The loaded state, waiting for the loading thread the first time.
    fn get(&self) -> &Loaded {
        self.done.get_or_init(|| {
            let t = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
            match t.map(|t| t.join()) {
                Some(Ok(l)) => l,
                _ => Loaded {
                    garbled: Some(Garbled {
                        line: 0,
                        cause: "the thread that read it failed".into(),
                    }),
                    ..Loaded::default()
                },
            }
        })
    }

    /// Why the state file is not used, if it is not (waits for the load).
    pub fn garbled(&self) -> Option<&Garbled> {
        self.get().garbled.as_ref()
    }

    /// The digests of `name` under `algos` (their bytes, one after the
    /// other, in order) recorded with metadata `meta`, and the oldest of
    /// their read times (nanoseconds since the Unix epoch), if every
    /// algorithm has a record that may be trusted (same metadata, not
    /// racy, not chosen for `--rescan`). Waits for the load.
    pub fn lookup(&self, name: &[u8], algos: &[Algorithm], meta: &Meta) -> Option<(Vec<u8>, i64)> {
        let l = self.get();
        if !l.rescan.is_empty() && l.rescan.contains(name) {
            return None;
        }
        let recs = l.index.records_of(name);
        if recs.is_empty() {
            return None;
        }
        let mut digests = Vec::with_capacity(64);
        let mut oldest = i64::MAX;
        for a in algos {
            let want = a.name();
            let r = recs.iter().find(|s| l.index.algos[s.algo] == want)?;
            if r.meta != *meta || racy(&r.meta, r.read_ns) {
                return None;
            }
            oldest = oldest.min(r.read_ns);
            digests.extend_from_slice(l.index.digest(r));
        }
        Some((digests, oldest))
    }

    /// Whether `--rescan` chose `name` to be read again (waits for the load).
    pub fn rescanning(&self, name: &[u8]) -> bool {
        let l = self.get();
        !l.rescan.is_empty() && l.rescan.contains(name)
    }
}

/// The key under which a file named `name` (its bytes as given or
/// walked) is recorded: `name` itself, except that on Windows each `\`
/// is written `/`, so that `d\f` from a walk and `d/f` given as an
/// operand are one file (neither character can be part of a Windows file
/// name).
pub fn key_of(name: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if cfg!(windows) && name.contains(&b'\\') {
        std::borrow::Cow::Owned(name.iter().map(|&b| if b == b'\\' { b'/' } else { b }).collect())
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

/// Reads and parses `path`, and chooses the names `--rescan` reads.
fn load_now(path: &Path, rescan: Rescan) -> Loaded {
    let (index, garbled) = match fs::read(path) {
        Ok(bytes) => match parse(&bytes) {
            Ok(m) => (m, None),
            Err(g) => (Index::default(), Some(g)),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => (Index::default(), None),
        Err(e) => (
            Index::default(),
            Some(Garbled {
                line: 0,
                cause: crate::os::strerror(&e),
            }),
        ),
    };
    let rescan = choose_rescan(&index, rescan);
    Loaded {
        index,
        rescan,
        garbled,
    }
}

/// A state file (being loaded, see [`Loading`]), and this run's records.
#[derive(Debug)]
pub struct State {
    path: PathBuf,
    loading: Arc<Loading>,
    updates: HashMap<Key, Record>,
    /// Records were added since the last write: the next [`State::save`]
    /// writes.
    dirty: bool,
    /// A garbled state on disk was replaced by this run's.
    replaced: bool,
    /// What this run did so far.
    pub counts: Counts,
    last_write: Instant,
}

/// Why a state file was not used.
#[derive(Debug)]
pub struct Garbled {
    /// The line (1-based) where reading stopped; 0 for the file as a whole.
    pub line: usize,
    /// What was wrong.
    pub cause: String,
}

impl State {
    /// Starts loading `path` on a thread of its own, choosing the files
    /// to read again by `rescan`. A missing file is an empty state. A file
    /// that cannot be read or parsed gives an empty state and the
    /// [`Garbled`] reason ([`Loading::garbled`]), for the caller to report
    /// ("STATE: line N: CAUSE; ignoring the state file").
    pub fn load(path: &Path, rescan: Rescan) -> State {
        State {
            path: path.to_path_buf(),
            loading: Arc::new(Loading::start(path, rescan)),
            updates: HashMap::new(),
            dirty: false,
            replaced: false,
            counts: Counts::default(),
            last_write: Instant::now(),
        }
    }

    /// The loading state, for the lookups (which need no lock on `self`).
    pub fn loading(&self) -> Arc<Loading> {
        Arc::clone(&self.loading)
    }

    /// Records `name`'s digest under `algo`, read at `read_ns` from a file
    /// with metadata `meta`.
    pub fn record(&mut self, name: &[u8], algo: Algorithm, digest: &[u8], meta: Meta, read_ns: i64) {
        let r = Record {
            digest: hex::encode(digest),
            meta,
            read_ns,
        };
        self.updates.insert((name.to_vec(), algo.name()), r);
        self.dirty = true;
    }

    /// Writes the state if records were added and [`CHECKPOINT_SECS`]
    /// have passed since the last write (see [`State::save`]); with
    /// nothing to write, reads no clock.
    ///
    /// # Errors
    /// As [`State::save`].
    pub fn checkpoint(&mut self) -> io::Result<()> {
        if !self.dirty || self.last_write.elapsed() < Duration::from_secs(CHECKPOINT_SECS) {
            return Ok(());
        }
        self.save()
    }

    /// Writes the state: under the lock on `FILE.lock`, the records now
    /// in `FILE` (or, where it no longer parses, those loaded) merged with
    /// this run's, to a temporary file renamed over `FILE`. Nothing is
    /// written when nothing was recorded since the last write (a re-run
    /// over an unchanged tree writes nothing).
    ///
    /// # Errors
    /// Creating, locking, writing, syncing or renaming the files; the
    /// temporary file is removed on a failure after its creation.
    pub fn save(&mut self) -> io::Result<()> {
        self.last_write = Instant::now();
        if !self.dirty && (self.replaced || self.loading.garbled().is_none()) {
            return Ok(());
        }
        let lock = lock_path(&self.path);
        let lock = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(lock)?;
        lock.lock()?;
        let loaded = || self.loading.get().index.to_map();
        let mut merged = match fs::read(&self.path) {
            Ok(bytes) => parse(&bytes).map_or_else(|_| loaded(), |ix| ix.to_map()),
            Err(_) => loaded(),
        };
        for (k, r) in &self.updates {
            merged.insert(k.clone(), r.clone());
        }
        let r = write_atomically(&self.path, &render(&merged));
        drop(lock);
        self.dirty &= r.is_err();
        self.replaced |= r.is_ok();
        r
    }
}

/// `FILE.lock`, beside `FILE`.
fn lock_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_os_string();
    p.push(".lock");
    PathBuf::from(p)
}

/// The names `--rescan` reads again: the records read longest ago, their
/// sizes summed until the budget is reached (the record that reaches it
/// included, so that a budget smaller than one file still reads it).
fn choose_rescan(loaded: &Index, rescan: Rescan) -> HashSet<Vec<u8>> {
    if rescan == Rescan::None {
        return HashSet::new();
    }
    // One entry per name: its oldest read and its size.
    let mut by_name: HashMap<&[u8], (i64, u64)> = HashMap::new();
    for s in &loaded.slots {
        let e = by_name.entry(loaded.name(s)).or_insert((s.read_ns, s.meta.size));
        e.0 = e.0.min(s.read_ns);
    }
    let total: u64 = by_name.values().map(|v| v.1).sum();
    let budget = match rescan {
        Rescan::None => return HashSet::new(),
        Rescan::Bytes(b) => b,
        Rescan::Percent(p) => (u128::from(total) * u128::from(p) / 100) as u64,
    };
    if budget == 0 {
        return HashSet::new();
    }
    let mut names: Vec<(&[u8], i64, u64)> = by_name.into_iter().map(|(n, (t, s))| (n, t, s)).collect();
    names.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)));
    let mut chosen = HashSet::new();
    let mut sum = 0u64;
    for (name, _, size) in names {
        if sum >= budget {
            break;
        }
        sum = sum.saturating_add(size.max(1));
        chosen.insert(name.to_vec());
    }
    chosen
}

/// Parses a state file.
fn parse(bytes: &[u8]) -> Result<Index, Garbled> {
    let garbled = |line: usize, cause: String| Garbled { line, cause };
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        garbled(line, "not UTF-8".into())
    })?;
    if !text.is_empty() && !text.ends_with('\n') {
        let line = text.lines().count();
        return Err(garbled(line, "the last line is cut short (no newline)".into()));
    }
    let Some(head_end) = memchr::memchr(b'\n', bytes) else {
        return Err(garbled(1, "empty file, no header".into()));
    };
    let head = text[..head_end].strip_suffix('\r').unwrap_or(&text[..head_end]);
    let head: serde_json::Value = serde_json::from_str(head)
        .map_err(|e| garbled(1, format!("not a state header: {}", json_cause(&e))))?;
    match head.get("mhash_state").and_then(|v| v.as_u64()) {
        Some(VERSION) => {}
        Some(v) => {
            return Err(garbled(
                1,
                format!("state format version {v}; this mhash reads version {VERSION}"),
            ));
        }
        None => return Err(garbled(1, "not a state header (no \"mhash_state\")".into())),
    }
    let body = &bytes[head_end + 1..];
    // Two halves, split at a newline, parsed on two threads: the other
    // core is idle while the state loads (the workers wait for it).
    let mid = match body.len() {
        0..PARALLEL_PARSE_BYTES => None,
        len => memchr::memchr(b'\n', &body[len / 2..]).map(|i| len / 2 + i + 1),
    };
    let mut ix = match mid {
        None => parse_body(body).map_err(|(l, c)| garbled(l + 1, c))?,
        Some(mid) => {
            let (a, b) = body.split_at(mid);
            let (ra, rb) = std::thread::scope(|s| {
                let t = std::thread::Builder::new()
                    .name("state".into())
                    .spawn_scoped(s, || parse_body(b));
                let ra = parse_body(a);
                let rb = match t {
                    Ok(t) => t
                        .join()
                        .unwrap_or_else(|_| Err((1, "the thread that read it failed".into()))),
                    Err(_) => parse_body(b),
                };
                (ra, rb)
            });
            let mut ix = ra.map_err(|(l, c)| garbled(l + 1, c))?;
            let more = rb.map_err(|(l, c)| {
                let before = memchr::memchr_iter(b'\n', a).count();
                garbled(before + l + 1, c)
            })?;
            ix.append(more);
            ix
        }
    };
    ix.finish();
    Ok(ix)
}

/// A state file's body this long or longer, in bytes, is parsed in two
/// halves on two threads.
const PARALLEL_PARSE_BYTES: usize = 1 << 20;

/// Parses record lines (each ended by a newline) into an index, not yet
/// [`Index::finish`]ed; an error's line is 1-based within `body`.
fn parse_body(body: &[u8]) -> Result<Index, (usize, String)> {
    let mut ix = Index {
        arena: Vec::with_capacity(body.len() / 4),
        algos: Vec::new(),
        slots: Vec::with_capacity(body.len() / 200),
        table: hashbrown::HashTable::new(),
    };
    let mut n = 0;
    let mut at = 0;
    while at < body.len() {
        n += 1;
        let end = memchr::memchr(b'\n', &body[at..]).map_or(body.len(), |e| at + e);
        let line = &body[at..end];
        at = end + 1;
        if fast_line(line, &mut ix) {
            continue;
        }
        // Anything else (escapes, another field order, spaces, an error):
        // serde_json, which parses it or names the cause.
        let line = std::str::from_utf8(line).map_err(|_| (n, "not UTF-8".to_string()))?;
        let line = line.strip_suffix('\r').unwrap_or(line);
        let l: RecordLine<'_> = serde_json::from_str(line).map_err(|e| (n, json_cause(&e)))?;
        let (key, rec) = l.record().map_err(|c| (n, c))?;
        let digest = hex::decode(&rec.digest).map_err(|e| (n, format!("\"digest\": {e}")))?;
        let algo = ix.algo_id(&key.1);
        ix.push(&key.0, algo, &digest, rec.meta, rec.read_ns);
    }
    Ok(ix)
}

/// A cursor over one line, for [`fast_line`].
struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    /// Skips `lit`, if the line goes on with it.
    fn lit(&mut self, lit: &[u8]) -> Option<()> {
        let rest = self.s.get(self.i..)?;
        rest.starts_with(lit).then(|| self.i += lit.len())
    }

    /// The rest of a JSON string without escapes or control characters,
    /// and its closing quote.
    fn plain_str(&mut self) -> Option<&'a [u8]> {
        let rest = self.s.get(self.i..)?;
        let len = memchr::memchr(b'"', rest)?;
        let s = &rest[..len];
        if s.iter().any(|&b| b < 0x20 || b == b'\\') {
            return None;
        }
        self.i += len + 1;
        Some(s)
    }

    /// A JSON integer's magnitude (no leading zero) and whether it had a
    /// minus sign.
    fn number(&mut self) -> Option<(u64, bool)> {
        let neg = self.lit(b"-").is_some();
        let rest = self.s.get(self.i..)?;
        let len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if len == 0 || (len > 1 && rest[0] == b'0') {
            return None;
        }
        let mut v: u64 = 0;
        for &b in &rest[..len] {
            v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
        }
        self.i += len;
        Some((v, neg))
    }

    fn u64(&mut self) -> Option<u64> {
        match self.number()? {
            (v, false) => Some(v),
            (0, true) => Some(0),
            _ => None,
        }
    }

    fn i64(&mut self) -> Option<i64> {
        match self.number()? {
            (v, false) => i64::try_from(v).ok(),
            (v, true) => 0i64.checked_sub_unsigned(v),
        }
    }
}

/// Each byte's value as a lower-case hex digit; 0xff for any other byte.
const HEX: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// Lower-case hex to bytes, appended to `out`; false (and `out` as it
/// was) for anything else or an empty or odd-length string.
fn lower_hex(s: &[u8], out: &mut Vec<u8>) -> bool {
    if s.is_empty() || !s.len().is_multiple_of(2) {
        return false;
    }
    let at = out.len();
    out.reserve(s.len() / 2);
    let mut bad = 0u8;
    for p in s.chunks_exact(2) {
        let (h, l) = (HEX[usize::from(p[0])], HEX[usize::from(p[1])]);
        bad |= h | l;
        out.push(h << 4 | (l & 0x0f));
    }
    if bad & 0xf0 != 0 {
        out.truncate(at);
        return false;
    }
    true
}

/// Parses a record line in the exact layout [`render`] writes (no
/// escape in the name, the fields in order, no space) into `ix`; false,
/// with `ix` unchanged, for any other line (serde_json then parses it or
/// names the cause). A line it takes is one serde_json takes the same.
fn fast_line(line: &[u8], ix: &mut Index) -> bool {
    let mut c = Cursor { s: line, i: 0 };
    let arena = ix.arena.len();
    let slot = (|| {
        let name = if c.lit(b"{\"path\":\"").is_some() {
            let p = c.plain_str()?;
            ix.arena.extend_from_slice(p);
            p.len()
        } else {
            c.lit(b"{\"path_hex\":\"")?;
            let h = c.plain_str()?;
            let n = h.len() / 2;
            let at = ix.arena.len();
            ix.arena.resize(at + n, 0);
            hex::decode_to_slice(h, &mut ix.arena[at..]).ok()?;
            n
        };
        if name == 0 {
            return None;
        }
        c.lit(b",\"algo\":\"")?;
        let algo = c.plain_str()?;
        let algo = match ix.algos.iter().position(|a| a.as_bytes() == algo) {
            Some(i) => i,
            None => {
                let a = std::str::from_utf8(algo).ok()?;
                known_algo(a).ok()?;
                ix.algo_id(a)
            }
        };
        c.lit(b",\"digest\":\"")?;
        let d = c.plain_str()?;
        let d0 = ix.arena.len();
        if !lower_hex(d, &mut ix.arena) {
            return None;
        }
        c.lit(b",\"size\":")?;
        let size = c.u64()?;
        c.lit(b",\"mtime_ns\":")?;
        let mtime_ns = c.i64()?;
        c.lit(b",\"ctime_ns\":")?;
        let ctime_ns = c.i64()?;
        c.lit(b",\"ino\":")?;
        let ino = c.u64()?;
        c.lit(b",\"dev\":")?;
        let dev = c.u64()?;
        c.lit(b",\"read_ns\":")?;
        let read_ns = c.i64()?;
        c.lit(b"}")?;
        (c.i == line.len()).then_some(Slot {
            name: (arena, arena + name),
            algo,
            digest: (d0, ix.arena.len()),
            meta: Meta {
                size,
                mtime_ns,
                ctime_ns,
                ino,
                dev,
            },
            read_ns,
        })
    })();
    match slot {
        Some(s) => {
            ix.slots.push(s);
            true
        }
        None => {
            ix.arena.truncate(arena);
            false
        }
    }
}

/// Whether `algo` names an algorithm (`sha256`, `blake2b-256`).
fn known_algo(algo: &str) -> Result<(), String> {
    if crate::algo::AlgoKind::from_name(algo.split('-').next().unwrap_or(algo)).is_none()
        && crate::algo::AlgoKind::from_name(algo).is_none()
    {
        return Err(format!("unknown algorithm \"{algo}\""));
    }
    Ok(())
}

/// The records loaded from a state file, without an allocation per
/// record: names, algorithm names and digests (as bytes) in one arena,
/// the records sorted by name then algorithm, each name's first record
/// in a hash table.
#[derive(Clone, Debug, Default)]
pub struct Index {
    arena: Vec<u8>,
    algos: Vec<String>,
    slots: Vec<Slot>,
    /// Each name's first slot, by the name's hash ([`name_hash`]).
    table: hashbrown::HashTable<usize>,
}

/// The hash of a name in [`Index`]'s table (XXH3: the names are the
/// user's own, and the table's worst case is a slow run, not a wrong one).
fn name_hash(name: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(name)
}

/// One record of an [`Index`]: spans of its arena, and the metadata.
#[derive(Clone, Copy, Debug)]
struct Slot {
    name: (usize, usize),
    algo: usize,
    digest: (usize, usize),
    meta: Meta,
    read_ns: i64,
}

impl Index {
    fn name(&self, s: &Slot) -> &[u8] {
        &self.arena[s.name.0..s.name.1]
    }

    fn digest(&self, s: &Slot) -> &[u8] {
        &self.arena[s.digest.0..s.digest.1]
    }

    /// The index of algorithm `algo` in `algos`, added if new.
    fn algo_id(&mut self, algo: &str) -> usize {
        match self.algos.iter().position(|a| a == algo) {
            Some(i) => i,
            None => {
                self.algos.push(algo.to_string());
                self.algos.len() - 1
            }
        }
    }

    /// Adds a record (`digest` in bytes): kept in file order until
    /// [`Index::finish`].
    fn push(&mut self, name: &[u8], algo: usize, digest: &[u8], meta: Meta, read_ns: i64) {
        let n0 = self.arena.len();
        self.arena.extend_from_slice(name);
        let d0 = self.arena.len();
        self.arena.extend_from_slice(digest);
        self.slots.push(Slot {
            name: (n0, d0),
            algo,
            digest: (d0, self.arena.len()),
            meta,
            read_ns,
        });
    }

    /// Adds `other`'s records after this index's own (not yet
    /// [`Index::finish`]ed).
    fn append(&mut self, other: Index) {
        let shift = self.arena.len();
        self.arena.extend_from_slice(&other.arena);
        let algos: Vec<usize> = other.algos.iter().map(|a| self.algo_id(a)).collect();
        self.slots.extend(other.slots.into_iter().map(|s| Slot {
            name: (s.name.0 + shift, s.name.1 + shift),
            algo: algos[s.algo],
            digest: (s.digest.0 + shift, s.digest.1 + shift),
            ..s
        }));
    }

    /// Sorts the records by name and algorithm (a file mhash wrote is
    /// sorted already: checked in one pass), a later record of the same
    /// name and algorithm replacing an earlier one.
    fn finish(&mut self) {
        let ordered = |ix: &Index, a: &Slot, b: &Slot| {
            (ix.name(a), ix.algos[a.algo].as_str()) < (ix.name(b), ix.algos[b.algo].as_str())
        };
        if !self.slots.windows(2).all(|w| ordered(self, &w[0], &w[1])) {
            self.sort();
        }
        let mut table = hashbrown::HashTable::with_capacity(self.slots.len());
        let mut prev: Option<&[u8]> = None;
        for (i, s) in self.slots.iter().enumerate() {
            let name = self.name(s);
            if prev != Some(name) {
                table.insert_unique(name_hash(name), i, |&j| name_hash(self.name(&self.slots[j])));
            }
            prev = Some(name);
        }
        self.table = table;
    }

    /// Sorts the records (see [`Index::finish`]).
    fn sort(&mut self) {
        let key = |ix: &Index, s: &Slot| (ix.name(s).to_owned(), ix.algos[s.algo].clone());
        let mut slots = std::mem::take(&mut self.slots);
        // Stable: of equal keys, the file's last comes last.
        slots.sort_by_cached_key(|s| key(self, s));
        let mut out: Vec<Slot> = Vec::with_capacity(slots.len());
        for s in slots {
            match out.last_mut() {
                Some(l) if self.name(l) == self.name(&s) && l.algo == s.algo => *l = s,
                _ => out.push(s),
            }
        }
        self.slots = out;
    }

    /// The number of records.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether there is no record.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// `name`'s records (one per algorithm).
    fn records_of(&self, name: &[u8]) -> &[Slot] {
        let Some(&from) = self
            .table
            .find(name_hash(name), |&i| self.name(&self.slots[i]) == name)
        else {
            return &[];
        };
        let len = self.slots[from..]
            .iter()
            .take_while(|s| self.name(s) == name)
            .count();
        &self.slots[from..from + len]
    }

    /// The records as a map (for the merge before a write).
    fn to_map(&self) -> HashMap<Key, Record> {
        self.slots
            .iter()
            .map(|s| {
                let key = (self.name(s).to_vec(), self.algos[s.algo].clone());
                let rec = Record {
                    digest: hex::encode(self.digest(s)),
                    meta: s.meta,
                    read_ns: s.read_ns,
                };
                (key, rec)
            })
            .collect()
    }
}

/// serde_json's message without its own "at line 1 column C" (the line
/// is the file's, given before it), the column kept: `invalid value:
/// integer `-2`, expected u64 (column 118)`.
fn json_cause(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    let tail = format!(" at line {} column {}", e.line(), e.column());
    match msg.strip_suffix(&tail) {
        Some(m) => format!("{m} (column {})", e.column()),
        None => msg,
    }
}

/// One record line as written (see the module's doc), its strings
/// borrowed from the file where they hold no escape.
#[derive(serde::Deserialize)]
struct RecordLine<'a> {
    #[serde(borrow, default)]
    path: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    path_hex: Option<&'a str>,
    #[serde(borrow)]
    algo: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    digest: std::borrow::Cow<'a, str>,
    size: u64,
    mtime_ns: i64,
    ctime_ns: i64,
    ino: u64,
    dev: u64,
    read_ns: i64,
}

impl RecordLine<'_> {
    /// The key and record, checked: one name, a known algorithm, a
    /// lower-case hex digest.
    fn record(self) -> Result<(Key, Record), String> {
        let name = match (self.path, self.path_hex) {
            (Some(p), None) => p.as_bytes().to_vec(),
            (None, Some(h)) => hex::decode(h).map_err(|e| format!("\"path_hex\": {e}"))?,
            _ => return Err("no \"path\" or \"path_hex\" string (one of them)".into()),
        };
        if name.is_empty() {
            return Err("an empty path".into());
        }
        let algo = &*self.algo;
        known_algo(algo)?;
        let digest = &*self.digest;
        if digest.is_empty()
            || !digest.len().is_multiple_of(2)
            || !digest
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err("\"digest\" is not lower-case hex".into());
        }
        let rec = Record {
            digest: digest.to_string(),
            meta: Meta {
                size: self.size,
                mtime_ns: self.mtime_ns,
                ctime_ns: self.ctime_ns,
                ino: self.ino,
                dev: self.dev,
            },
            read_ns: self.read_ns,
        };
        Ok(((name, algo.to_string()), rec))
    }
}

/// The file's text: the header, then the records sorted by name and
/// algorithm (a stable order: two runs that record the same write the
/// same file).
fn render(map: &HashMap<Key, Record>) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + map.len() * 200);
    out.extend_from_slice(
        serde_json::json!({"mhash_state": VERSION, "written_ns": now_ns()})
            .to_string()
            .as_bytes(),
    );
    out.push(b'\n');
    let mut keys: Vec<&Key> = map.keys().collect();
    keys.sort();
    for k in keys {
        let r = &map[k];
        // By hand, for a fixed field order: the name first.
        let name = match std::str::from_utf8(&k.0) {
            Ok(p) => format!("\"path\":{}", serde_json::Value::from(p)),
            Err(_) => format!("\"path_hex\":\"{}\"", hex::encode(&k.0)),
        };
        let m = &r.meta;
        out.extend_from_slice(
            format!(
                "{{{name},\"algo\":{},\"digest\":\"{}\",\"size\":{},\"mtime_ns\":{},\"ctime_ns\":{},\"ino\":{},\"dev\":{},\"read_ns\":{}}}\n",
                serde_json::Value::from(k.1.as_str()),
                r.digest,
                m.size,
                m.mtime_ns,
                m.ctime_ns,
                m.ino,
                m.dev,
                r.read_ns
            )
            .as_bytes(),
        );
    }
    out
}

/// Writes `data` to `path` through a temporary file in the same
/// directory: written, synced, renamed over `path`; the directory synced
/// after (Unix).
fn write_atomically(path: &Path, data: &[u8]) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_os_string();
    tmp.push(format!(".tmp.{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let r = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(data)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if r.is_err() {
        let _ = fs::remove_file(&tmp);
        return r;
    }
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// `ns` (since the Unix epoch) as an ISO 8601 UTC time to the second,
/// `2026-12-06T15:10:11Z` ([`crate::text::utc`]).
pub fn iso_utc(ns: i64) -> String {
    crate::text::utc(ns.div_euclid(1_000_000_000))
}

/// A duration in nanoseconds in words, to the largest whole unit:
/// `45 s`, `12 min`, `3 h`, `2 days`.
pub fn age(ns: i64) -> String {
    let s = ns.max(0) / 1_000_000_000;
    match s {
        0..120 => format!("{s} s"),
        120..7200 => format!("{} min", s / 60),
        7200..172_800 => format!("{} h", s / 3600),
        _ => format!("{} days", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> Meta {
        Meta {
            size: 3,
            mtime_ns: 1_000_000_000_000,
            ctime_ns: 1_000_000_000_000,
            ino: 7,
            dev: 9,
        }
    }

    #[test]
    fn a_rendered_state_parses_back() {
        let mut m = HashMap::new();
        let r = Record {
            digest: "0a1b".into(),
            meta: meta(),
            read_ns: 2_000_000_000_000,
        };
        m.insert((b"a b\"c".to_vec(), "sha256".to_string()), r.clone());
        m.insert((vec![0xff, b'x'], "md5".to_string()), r.clone());
        let back = parse(&render(&m)).unwrap().to_map();
        assert_eq!(back, m);
    }

    /// An index of `m`'s records, as a loaded file gives.
    fn index(m: &HashMap<Key, Record>) -> Index {
        let mut ix = Index::default();
        for ((name, algo), r) in m {
            let a = ix.algo_id(algo);
            ix.push(name, a, &hex::decode(&r.digest).unwrap(), r.meta, r.read_ns);
        }
        ix.finish();
        ix
    }

    #[test]
    fn the_fast_parser_and_serde_json_agree() {
        let head = "{\"mhash_state\":1,\"written_ns\":0}\n";
        let line = |path: &str, tail: &str| {
            format!(
                "{{{path},\"algo\":\"sha256\",\"digest\":\"0a\",\"size\":1,\"mtime_ns\":{tail},\"ctime_ns\":-2,\"ino\":0,\"dev\":18446744073709551615,\"read_ns\":9}}"
            )
        };
        let fast = line("\"path\":\"x\"", "-9223372036854775808");
        let mut ix = Index::default();
        assert!(fast_line(fast.as_bytes(), &mut ix));
        assert!(fast_line(line("\"path_hex\":\"ff\"", "0").as_bytes(), &mut ix));
        // Lines the fast parser leaves to serde_json, which takes them.
        for slow in [
            line("\"path\":\"a\\u0078\"", "1"),
            line("\"path\":\"a\\\"b\"", "1"),
            line("\"path\":\"x\"", "1").replace(",\"size\"", ", \"size\""),
            format!("{}\r", line("\"path\":\"x\"", "1")),
            line("\"path\":\"x\"", "1").replace("\"0a\"", "\"0A\""),
        ] {
            let mut ix = Index::default();
            assert!(!fast_line(slow.as_bytes(), &mut ix), "{slow}");
            assert!(ix.arena.is_empty() && ix.slots.is_empty());
            let text = format!("{head}{slow}\n");
            let r = parse(text.as_bytes());
            let upper = slow.contains("0A");
            assert_eq!(r.is_err(), upper, "{slow}: {:?}", r.err());
        }
        // Numbers JSON or the field's type refuses: serde_json's message.
        for (bad, cause) in [
            ("01", "invalid number"),
            ("9223372036854775808", "invalid value"),
            ("-9223372036854775809", "invalid type"),
            ("1.5", "invalid type"),
        ] {
            let text = format!("{head}{}\n", line("\"path\":\"x\"", bad));
            let g = parse(text.as_bytes()).unwrap_err();
            assert_eq!(g.line, 2);
            assert!(g.cause.contains(cause), "{bad}: {}", g.cause);
        }
        let both = format!("{head}{fast}\n");
        let ix = parse(both.as_bytes()).unwrap();
        let r = &ix.slots[0];
        assert_eq!((ix.name(r), ix.digest(r)), (&b"x"[..], &[0x0a][..]));
        assert_eq!(
            (r.meta.mtime_ns, r.meta.ctime_ns, r.meta.dev),
            (i64::MIN, -2, u64::MAX)
        );
    }

    #[test]
    fn a_large_state_parses_in_two_halves_and_errors_keep_their_line() {
        let head = "{\"mhash_state\":1,\"written_ns\":0}\n";
        let rec = |i: usize| {
            format!(
                "{{\"path\":\"dir/file{i:06}\",\"algo\":\"sha256\",\"digest\":\"{:064x}\",\"size\":{i},\"mtime_ns\":1,\"ctime_ns\":1,\"ino\":1,\"dev\":1,\"read_ns\":1}}\n",
                i
            )
        };
        let lines: Vec<String> = (0..8000).map(rec).collect();
        let body: String = lines.concat();
        assert!(body.len() > PARALLEL_PARSE_BYTES);
        let ix = parse(format!("{head}{body}").as_bytes()).unwrap();
        assert_eq!(ix.len(), 8000);
        let r = ix.records_of(b"dir/file007999");
        assert_eq!((r.len(), r[0].meta.size), (1, 7999));
        assert_eq!(ix.digest(&r[0])[31], 0x3f);
        // The same error, in the first half and in the second: the line
        // (1-based, the header line 1) is the file's.
        for bad in [10, 7000] {
            let mut l = lines.clone();
            l[bad] = l[bad].replace("\"size\":", "\"size\":-");
            let g = parse(format!("{head}{}", l.concat()).as_bytes()).unwrap_err();
            assert_eq!(g.line, bad + 2, "{}", g.cause);
            assert!(g.cause.contains("expected u64"), "{}", g.cause);
        }
        // Errors in both halves: the first is reported, as a reader from
        // the top finds it.
        let mut l = lines.clone();
        l[6000] = "x\n".into();
        l[3] = "y\n".into();
        assert_eq!(
            parse(format!("{head}{}", l.concat()).as_bytes())
                .unwrap_err()
                .line,
            5
        );
    }

    #[test]
    fn unsorted_files_are_sorted_and_the_last_record_wins() {
        let head = "{\"mhash_state\":1,\"written_ns\":0}\n";
        let rec = |p: &str, d: &str| {
            format!(
                "{{\"path\":\"{p}\",\"algo\":\"md5\",\"digest\":\"{d}\",\"size\":1,\"mtime_ns\":1,\"ctime_ns\":1,\"ino\":1,\"dev\":1,\"read_ns\":10000000000}}\n"
            )
        };
        let text = format!("{head}{}{}{}", rec("b", "01"), rec("a", "02"), rec("b", "03"));
        let ix = parse(text.as_bytes()).unwrap();
        let names: Vec<_> = ix.slots.iter().map(|s| (ix.name(s), ix.digest(s))).collect();
        assert_eq!(names, [(&b"a"[..], &[2][..]), (&b"b"[..], &[3][..])]);
        let md5 = [Algorithm::new(crate::algo::AlgoKind::Md5)];
        let m = Meta {
            size: 1,
            mtime_ns: 1,
            ctime_ns: 1,
            ino: 1,
            dev: 1,
        };
        let l = Loaded {
            index: ix,
            ..Loaded::default()
        };
        let loading = Loading {
            done: OnceLock::from(l),
            thread: Mutex::new(None),
        };
        assert_eq!(loading.lookup(b"b", &md5, &m), Some((vec![3], 10_000_000_000)));
        assert_eq!(loading.lookup(b"c", &md5, &m), None);
        assert_eq!(loading.lookup(b"a", &md5, &Meta { ino: 2, ..m }), None);
    }

    #[test]
    fn garbled_states_name_the_line() {
        let head = "{\"mhash_state\":1,\"written_ns\":0}\n";
        let good = "{\"path\":\"a\",\"algo\":\"sha256\",\"digest\":\"00\",\"size\":1,\"mtime_ns\":1,\"ctime_ns\":1,\"ino\":1,\"dev\":1,\"read_ns\":1}\n";
        for (text, line, cause) in [
            (String::new(), 1, "empty file"),
            ("garbage\n".to_string(), 1, "not a state header"),
            ("{\"mhash_state\":2}\n".to_string(), 1, "version 2"),
            (format!("{head}{good}{}", &good[..40]), 3, "cut short"),
            (
                format!("{head}{good}{{\"path\":\"a\"}}\n"),
                3,
                "missing field `algo`",
            ),
            (format!("{head}{}", good.replace("\"00\"", "\"0G\"")), 2, "hex"),
            (
                format!("{head}{}", good.replace("sha256", "nope")),
                2,
                "unknown algorithm",
            ),
        ] {
            let g = parse(text.as_bytes()).unwrap_err();
            assert_eq!(g.line, line, "{text:?}: {}", g.cause);
            assert!(g.cause.contains(cause), "{text:?}: {}", g.cause);
        }
        assert_eq!(parse(format!("{head}{good}").as_bytes()).unwrap().len(), 1);
    }

    #[test]
    fn racy_records_are_not_trusted() {
        let r = |read_ns| Record {
            digest: "00".into(),
            meta: meta(),
            read_ns,
        };
        assert!(r(meta().mtime_ns).racy());
        assert!(r(meta().mtime_ns + RACY_NS).racy());
        assert!(!r(meta().mtime_ns + RACY_NS + 1).racy());
    }

    #[test]
    fn rescan_values() {
        assert_eq!(Rescan::parse("0"), Ok(Rescan::Bytes(0)));
        assert_eq!(Rescan::parse("10M"), Ok(Rescan::Bytes(10 << 20)));
        assert_eq!(Rescan::parse("2GiB"), Ok(Rescan::Bytes(2 << 30)));
        assert_eq!(Rescan::parse("5%"), Ok(Rescan::Percent(5)));
        for bad in ["", "x", "101%", "-1", "5Q", "99999999999999T"] {
            assert!(Rescan::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rescan_takes_the_oldest_first() {
        let mut m = HashMap::new();
        for (name, read_ns, size) in [("a", 30, 100), ("b", 10, 100), ("c", 20, 100)] {
            let mut r = Record {
                digest: "00".into(),
                meta: meta(),
                read_ns,
            };
            r.meta.size = size;
            m.insert((name.as_bytes().to_vec(), "md5".to_string()), r);
        }
        let names = |r| {
            let mut v: Vec<Vec<u8>> = choose_rescan(&index(&m), r).into_iter().collect();
            v.sort();
            v
        };
        assert_eq!(names(Rescan::Bytes(1)), [b"b".to_vec()]);
        assert_eq!(names(Rescan::Bytes(150)), [b"b".to_vec(), b"c".to_vec()]);
        assert_eq!(names(Rescan::Percent(100)).len(), 3);
        assert!(names(Rescan::Percent(0)).is_empty());
        assert!(names(Rescan::None).is_empty());
    }

    #[test]
    fn utc_times() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00Z");
        // date -u -d @1765033811 +%FT%TZ
        assert_eq!(iso_utc(1_765_033_811_000_000_000), "2025-12-06T15:10:11Z");
        assert_eq!(age(90_000_000_000), "90 s");
        assert_eq!(age(3 * 86_400_000_000_000), "3 days");
    }
}
