//! Turning what the user named into the inputs to hash: the operands as
//! given, names read from `--files-from` lists, and, with `-r`, every
//! regular file under each directory among them.
//!
//! [`Inputs`] is a lazy iterator: a list or a tree is read as the run
//! consumes it, so memory does not grow with the number of files (walkdir
//! holds one sorted directory listing per level of the path being walked).
//! Problems along the way (an unreadable directory, a symlink loop, a list
//! that cannot be opened) come out in their place as errors carrying a name,
//! for the caller to report in order and go on.
//!
//! Walk order is deterministic: byte-wise order of the whole path, as
//! `LC_ALL=C sort` orders `find`'s output. Within one directory, entries are
//! compared by name, a directory as if its name ended in `/`, which gives
//! exactly that order (`a-b` sorts before `a/x` because `-` < `/`).

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use std::cmp::Ordering;
use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

/// What `-r` does: which files a walk yields and how it treats links and
/// mount points.
#[derive(Clone, Debug, Default)]
pub struct Walk {
    /// `--follow`: follow symbolic links inside the tree (loops are
    /// detected and reported). Without it, symlinks found while walking are
    /// skipped; an operand that is a symlink to a directory is still walked.
    pub follow: bool,
    /// `--one-file-system`: do not descend into directories on another
    /// file system than their operand's.
    pub one_file_system: bool,
    /// `--include GLOB`: when any is given, only files that match one are
    /// hashed (directories are still entered).
    pub include: Globs,
    /// `--exclude GLOB`: files that match are skipped, directories that
    /// match are not entered. Exclusion wins over inclusion.
    pub exclude: Globs,
}

/// A set of `--include`/`--exclude` patterns. A pattern without `/` is
/// matched against an entry's file name (`*.o`); one with `/` against its
/// path relative to the operand being walked (`build/**`, `src/*.rs`),
/// where `*` does not cross `/` but `**` does.
#[derive(Clone, Debug, Default)]
pub struct Globs {
    names: Option<GlobSet>,
    paths: Option<GlobSet>,
    count: usize,
}

impl Globs {
    /// Compiles `patterns`.
    ///
    /// # Errors
    /// The pattern that failed to parse and globset's reason.
    pub fn new(patterns: &[String]) -> Result<Globs, String> {
        let mut names = GlobSetBuilder::new();
        let mut paths = GlobSetBuilder::new();
        let (mut n, mut p) = (0, 0);
        for pat in patterns {
            let glob: Glob = GlobBuilder::new(pat)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map_err(|e| format!("invalid glob '{pat}': {}", e.kind()))?;
            if pat.contains('/') {
                paths.add(glob);
                p += 1;
            } else {
                names.add(glob);
                n += 1;
            }
        }
        let build = |b: GlobSetBuilder, k: usize| -> Result<Option<GlobSet>, String> {
            if k == 0 {
                return Ok(None);
            }
            b.build().map(Some).map_err(|e| e.to_string())
        };
        Ok(Globs {
            names: build(names, n)?,
            paths: build(paths, p)?,
            count: patterns.len(),
        })
    }

    /// No patterns at all.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Whether `rel` (a path relative to the walked operand) matches.
    pub fn matches(&self, rel: &Path) -> bool {
        if let (Some(set), Some(name)) = (&self.names, rel.file_name())
            && set.is_match(name)
        {
            return true;
        }
        self.paths.as_ref().is_some_and(|set| set.is_match(rel))
    }
}

/// The order of two entries of one directory: their names, with `/`
/// appended for a directory, so that per-directory order is whole-path
/// byte order. Without an allocation or `Path::file_name`'s component
/// parsing per comparison (a directory of n entries takes n log n of
/// them): an entry's path is its directory's joined with its name, so
/// the name is what follows the last separator.
fn entry_order(a: &walkdir::DirEntry, b: &walkdir::DirEntry) -> Ordering {
    fn leaf(e: &walkdir::DirEntry) -> &[u8] {
        let p = e.path().as_os_str().as_encoded_bytes();
        match p.iter().rposition(|&c| std::path::is_separator(char::from(c))) {
            Some(i) if i + 1 < p.len() && e.depth() > 0 => &p[i + 1..],
            _ => e.file_name().as_encoded_bytes(),
        }
    }
    fn key(e: &walkdir::DirEntry) -> (&[u8], &'static [u8]) {
        let slash: &[u8] = if e.file_type().is_dir() { b"/" } else { b"" };
        (leaf(e), slash)
    }
    let ((na, sa), (nb, sb)) = (key(a), key(b));
    let n = na.len().min(nb.len());
    match na[..n].cmp(&nb[..n]) {
        Ordering::Equal => na[n..].iter().chain(sa).cmp(nb[n..].iter().chain(sb)),
        o => o,
    }
}

/// Where names come from, in order: the operands, then each list.
enum Source {
    /// Names given on the command line.
    Operands(std::vec::IntoIter<OsString>),
    /// A `--files-from` list: its name, and its reader once opened.
    List {
        name: OsString,
        reader: Option<Box<dyn BufRead + Send>>,
        sep: u8,
    },
}

/// `--shard I/N`: this run takes the inputs whose key falls in shard `I`
/// of `N` (`I` from 0 to N-1, as Kubernetes' `JOB_COMPLETION_INDEX` and AWS
/// Batch's `AWS_BATCH_JOB_ARRAY_INDEX` count). The key of an input is its
/// path relative to the `-r` operand it was found under (else its name as
/// given or listed); its shard is a fixed function of the key alone
/// (64-bit FNV-1a, mixed, scaled to N), so adding or removing a file moves
/// no other file from its shard, and every machine computes the same
/// assignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This run's shard, 0 to `count - 1`.
    pub index: u64,
    /// The number of shards, 1 or more.
    pub count: u64,
}

impl Shard {
    /// Parses `I/N` (decimal, `0 <= I < N`); the error says what is wrong.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad = || format!("--shard needs I/N with 0 <= I < N (0/4 is the first of 4 shards), not '{s}'");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u64 = i.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The shard (0 to `count - 1`) of the input keyed `key`.
    pub fn of(count: u64, key: &[u8]) -> u64 {
        // FNV-1a, then a 64-bit finalizer (MurmurHash3's fmix64) so that
        // the top bits, which the scaling below reads, depend on every byte.
        let mut h = fnv1a64(key);
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^= h >> 33;
        ((u128::from(h) * u128::from(count)) >> 64) as u64
    }

    /// True when the input keyed `key` belongs to this shard.
    pub fn owns(&self, key: &[u8]) -> bool {
        Shard::of(self.count, key) == self.index
    }
}

/// 64-bit FNV-1a (Fowler, Noll, Vo; draft-eastlake-fnv) of `bytes`.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

type Tree = Box<dyn Iterator<Item = walkdir::Result<walkdir::DirEntry>> + Send>;

/// One input, or a problem found while looking for inputs: the name to
/// report it under and the error.
pub type Input = Result<OsString, (OsString, io::Error)>;

/// The inputs of a run, in order (see the module documentation).
pub struct Inputs {
    sources: VecDeque<Source>,
    walk: Option<Walk>,
    tree: Option<Tree>,
    /// The directories the walk is in, by depth (the last one yielded at
    /// each): a directory that fails while its entries are read (walkdir
    /// gives that error no path) is named from here.
    dirs: std::sync::Arc<std::sync::Mutex<Vec<PathBuf>>>,
    /// The operand being walked, while a walk is on.
    root: Option<PathBuf>,
}

impl Inputs {
    /// Inputs from `operands`, then the names in each of `lists` (`-` is
    /// standard input; entries end with NUL when `null`, else newline;
    /// empty entries are skipped), each directory among them walked when
    /// `walk` is given.
    pub fn new(operands: Vec<OsString>, lists: &[OsString], null: bool, walk: Option<Walk>) -> Inputs {
        let mut sources = VecDeque::new();
        sources.push_back(Source::Operands(operands.into_iter()));
        for l in lists {
            sources.push_back(Source::List {
                name: l.clone(),
                reader: None,
                sep: if null { b'\0' } else { b'\n' },
            });
        }
        Inputs {
            sources,
            walk,
            tree: None,
            dirs: Default::default(),
            root: None,
        }
    }

    /// The key [`Shard`] assigns an input by: for a name the walk of the
    /// current `-r` operand yielded, its path relative to that operand;
    /// else the name itself.
    pub fn shard_key<'a>(&self, name: &'a OsStr) -> std::borrow::Cow<'a, [u8]> {
        match &self.root {
            Some(root) if self.tree.is_some() => match Path::new(name).strip_prefix(root) {
                Ok(rel) => std::borrow::Cow::Owned(crate::os::os_bytes(rel.as_os_str()).into_owned()),
                Err(_) => crate::os::os_bytes(name),
            },
            _ => crate::os::os_bytes(name),
        }
    }

    /// The next name from the operands and lists, before any walking.
    fn next_name(&mut self) -> Option<Input> {
        loop {
            match self.sources.front_mut()? {
                Source::Operands(it) => match it.next() {
                    Some(n) => return Some(Ok(n)),
                    None => {
                        self.sources.pop_front();
                    }
                },
                Source::List { name, reader, sep } => {
                    if reader.is_none() {
                        match open_list(name) {
                            Ok(r) => *reader = Some(r),
                            Err(e) => {
                                let n = name.clone();
                                self.sources.pop_front();
                                return Some(Err((n, e)));
                            }
                        }
                    }
                    let r = reader.as_mut().expect("opened above");
                    let mut entry = Vec::new();
                    match r.read_until(*sep, &mut entry) {
                        Ok(0) => {
                            self.sources.pop_front();
                        }
                        Ok(_) => {
                            if entry.last() == Some(sep) {
                                entry.pop();
                            }
                            if !entry.is_empty() {
                                return Some(Ok(crate::os::bytes_os(&entry)));
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => {
                            let n = list_display(name);
                            self.sources.pop_front();
                            return Some(Err((n, e)));
                        }
                    }
                }
            }
        }
    }

    /// Starts walking `root` when `-r` is on and it is a directory.
    fn start_tree(&mut self, root: &OsStr) -> bool {
        let Some(w) = &self.walk else {
            return false;
        };
        if root == "-" || !std::fs::metadata(root).is_ok_and(|m| m.is_dir()) {
            return false;
        }
        let root = PathBuf::from(root);
        self.root = Some(root.clone());
        let walker = walkdir::WalkDir::new(&root)
            .follow_links(w.follow)
            .follow_root_links(true)
            .same_file_system(w.one_file_system)
            .sort_by(entry_order);
        let exclude = w.exclude.clone();
        let include = w.include.clone();
        let prune_root = root.clone();
        let dirs = self.dirs.clone();
        let tree = walker
            .into_iter()
            .filter_entry(move |e| {
                e.depth() == 0 || exclude.is_empty() || !exclude.matches(relative(e.path(), &prune_root))
            })
            .filter(move |r| match r {
                Ok(e) if e.file_type().is_dir() => {
                    let mut d = dirs.lock().unwrap_or_else(|e| e.into_inner());
                    d.truncate(e.depth());
                    d.push(e.path().to_path_buf());
                    false
                }
                Ok(e) => {
                    e.file_type().is_file()
                        && (include.is_empty() || include.matches(relative(e.path(), &root)))
                }
                Err(_) => true,
            });
        self.tree = Some(Box::new(tree));
        true
    }
}

/// `path` relative to the walked operand `root`.
fn relative<'a>(path: &'a Path, root: &Path) -> &'a Path {
    path.strip_prefix(root).unwrap_or(path)
}

/// How a list is named in messages: `-` is "standard input", as GNU says.
fn list_display(name: &OsStr) -> OsString {
    if name == "-" {
        OsString::from("standard input")
    } else {
        name.to_os_string()
    }
}

fn open_list(name: &OsStr) -> io::Result<Box<dyn BufRead + Send>> {
    let reader: Box<dyn io::Read + Send> = if name == "-" {
        crate::os::stdin_reader()
    } else {
        Box::new(crate::os::open_read(std::path::Path::new(name))?)
    };
    // read_until retries EINTR for ever; the reader under it, a bounded
    // number of times.
    Ok(Box::new(io::BufReader::with_capacity(
        64 * 1024,
        crate::os::BoundedEintr(reader),
    )))
}

/// A walk error as an I/O error with the path it concerns: the entry's,
/// or (an error reading a directory's entries, which walkdir gives no
/// path) the directory's, from `dirs` (see [`Inputs`]).
fn walk_error(e: walkdir::Error, dirs: &[PathBuf]) -> (OsString, io::Error) {
    let path = match e.path() {
        Some(p) => p.as_os_str().to_os_string(),
        None => e
            .depth()
            .checked_sub(1)
            .and_then(|d| dirs.get(d))
            .or(dirs.last())
            .map(|p| p.as_os_str().to_os_string())
            .unwrap_or_default(),
    };
    if let Some(ancestor) = e.loop_ancestor() {
        // The directory's name quoted as every name in a diagnostic is
        // (GNU's quotef: a name with a newline or an escape sequence
        // cannot forge another line).
        let quoted = crate::text::quote::quotef(&crate::os::os_bytes(ancestor.as_os_str()));
        let msg = format!(
            "file system loop: it leads back to {}",
            String::from_utf8_lossy(&quoted)
        );
        return (path, io::Error::other(msg));
    }
    match e.into_io_error() {
        Some(io) => (path, io),
        None => (path, io::Error::other("walk error")),
    }
}

impl Iterator for Inputs {
    type Item = Input;

    fn next(&mut self) -> Option<Input> {
        loop {
            if let Some(tree) = &mut self.tree {
                match tree.next() {
                    Some(Ok(e)) => return Some(Ok(e.into_path().into_os_string())),
                    Some(Err(e)) => {
                        let dirs = self.dirs.lock().unwrap_or_else(|e| e.into_inner()).clone();
                        return Some(Err(walk_error(e, &dirs)));
                    }
                    None => self.tree = None,
                }
            }
            match self.next_name()? {
                Ok(name) => {
                    if self.start_tree(&name) {
                        continue;
                    }
                    return Some(Ok(name));
                }
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_values_parse_and_bad_ones_say_why() {
        assert_eq!(Shard::parse("0/1"), Ok(Shard { index: 0, count: 1 }));
        assert_eq!(Shard::parse("6/7"), Ok(Shard { index: 6, count: 7 }));
        for bad in ["7/7", "0/0", "1", "/", "a/2", "1/b", "-1/2", ""] {
            let e = Shard::parse(bad).unwrap_err();
            assert!(e.starts_with("--shard needs I/N with 0 <= I < N"), "{bad}: {e}");
        }
    }

    #[test]
    fn each_key_has_exactly_one_shard_and_keeps_it() {
        // One shard owns each key, for every N; the shard depends on the
        // key alone (adding keys moves none), and the counts are even.
        for n in [1u64, 2, 4, 7] {
            let mut counts = vec![0u64; n as usize];
            for i in 0..7000 {
                let key = format!("dir{}/file{i}", i % 13);
                let owners: Vec<u64> = (0..n)
                    .filter(|&s| Shard { index: s, count: n }.owns(key.as_bytes()))
                    .collect();
                assert_eq!(owners.len(), 1, "{key} in {n} shards");
                assert_eq!(owners[0], Shard::of(n, key.as_bytes()));
                counts[owners[0] as usize] += 1;
            }
            let mean = 7000 / n;
            assert!(
                counts.iter().all(|&c| c.abs_diff(mean) < mean / 10 + 20),
                "{n}: {counts:?}"
            );
        }
        assert_eq!(Shard::of(1, b"anything"), 0);
        // FNV-1a's own test vectors (the FNV reference code's test suite,
        // as draft-eastlake-fnv lists them).
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn the_shard_key_of_a_walked_file_is_relative_to_its_operand() {
        let td = tempfile::tempdir().unwrap();
        let root = td.path().join("top");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/f"), b"x").unwrap();
        let mut inputs = Inputs::new(
            vec![root.clone().into_os_string()],
            &[],
            false,
            Some(Walk::default()),
        );
        let name = inputs.next().unwrap().unwrap();
        assert_eq!(
            &*inputs.shard_key(&name),
            Path::new("sub").join("f").as_os_str().as_encoded_bytes()
        );
        let plain = Inputs::new(vec![OsString::from("x/y")], &[], false, None);
        assert_eq!(&*plain.shard_key(OsStr::new("x/y")), b"x/y");
    }

    #[test]
    fn globs_match_names_without_slash_and_paths_with_one() {
        let g = Globs::new(&["*.o".into(), "build/**".into(), "src/*.rs".into()]).unwrap();
        assert!(g.matches(Path::new("a/b/x.o")));
        assert!(g.matches(Path::new("build/deep/x")));
        assert!(g.matches(Path::new("src/main.rs")));
        assert!(!g.matches(Path::new("src/cli/mod.rs")));
        assert!(!g.matches(Path::new("x.c")));
        assert!(Globs::new(&["a[".into()]).is_err());
        assert!(Globs::new(&[]).unwrap().is_empty());
    }
}
