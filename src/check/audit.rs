//! `mhash -c MANIFEST --audit DIR`: check mode over a tree, reporting every
//! file as rclone `check --combined` does (`= NAME` matching, `* NAME`
//! changed, `- NAME` missing, `+ NAME` new, `! NAME` unreadable).
//!
//! The manifest's names are relative to DIR (as rclone's `checksum SUMFILE
//! DST` and RHash's paths relative to the hash file's directory): `NAME` is
//! read as `DIR/NAME`, and an absolute name as it is. Its lines are checked
//! as `-c` checks them, on the same workers, in manifest order; each
//! listed name is kept, normalized (`./a//b` is `a/b`), in a set, the only
//! state that grows with the manifest (no digest is held). When the
//! manifest ends, the same producer walks DIR as `-r` does (byte-wise path
//! order; symbolic links inside not followed unless `--follow`;
//! `--include`/`--exclude`/`--one-file-system` as for `-r`) and reports
//! each regular file not in the set as new, and each place the walk
//! cannot enter as unreadable. The manifest itself, when it lies in DIR, is not reported.

use crate::report::{AuditCounts, Category};
use crate::walk::Inputs;
use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// What the walk of an audit yields after the manifest's lines.
pub(super) enum Found {
    /// A regular file the manifest does not list: its name relative to DIR.
    New(Vec<u8>),
    /// A part of the tree the walk could not read: its name relative to
    /// DIR (for the report), its path (for the diagnostic) and the error.
    Error(Vec<u8>, Vec<u8>, std::io::Error),
}

/// The state of one audit: the directory, the set of listed names, and
/// the walk once the manifest has been read.
pub(super) struct Audit {
    dir: PathBuf,
    listed: HashSet<Box<[u8]>>,
    /// The manifest's device and inode, when it is a file (not reported
    /// as new if it lies in DIR).
    manifest: Option<(u64, u64)>,
    /// How DIR is walked (`--follow`, `--exclude`, ...).
    options: crate::walk::Walk,
    /// DIR with every symbolic link resolved (`None` when DIR cannot be
    /// resolved: then only the name's own `..` and `/` are judged).
    root: Option<PathBuf>,
    walk: Option<Inputs>,
    walked: bool,
}

impl Audit {
    /// An audit of `dir` against the manifest `checkfile` (`-`: standard
    /// input).
    pub(super) fn new(dir: &OsStr, walk: &crate::walk::Walk, checkfile: &OsStr) -> Audit {
        let manifest = (checkfile != "-")
            .then(|| std::fs::metadata(checkfile).ok())
            .flatten()
            .and_then(|m| file_id(&m));
        Audit {
            dir: PathBuf::from(dir),
            listed: HashSet::new(),
            manifest,
            options: walk.clone(),
            root: std::fs::canonicalize(dir).ok(),
            walk: None,
            walked: false,
        }
    }

    /// Where the listed `name` is read: `DIR/NAME`, or an absolute name as
    /// it is.
    pub(super) fn path_of(&self, name: &[u8]) -> Vec<u8> {
        if name.first() == Some(&b'/') {
            return name.to_vec();
        }
        let mut p = crate::os::os_bytes(self.dir.as_os_str()).into_owned();
        if p.last() != Some(&b'/') {
            p.push(b'/');
        }
        p.extend_from_slice(name);
        p
    }

    /// True when the listed `name` leads out of DIR: an absolute name, one
    /// whose `..` components climb above DIR, or one that a symbolic link
    /// inside DIR takes elsewhere while the walk does not follow links
    /// (the deepest part of `DIR/NAME` that exists, with its links
    /// resolved, is not under DIR resolved; with `--follow` the walk goes
    /// where the links go, and so may the names). Such a name is never
    /// opened: an audit reads only its tree.
    pub(super) fn outside(&self, name: &[u8]) -> bool {
        if name.first() == Some(&b'/') || (cfg!(windows) && name.get(1) == Some(&b':')) {
            return true;
        }
        let mut depth = 0usize;
        for part in name.split(|&b| b == b'/' || (cfg!(windows) && b == b'\\')) {
            match part {
                b"" | b"." => {}
                b".." => match depth.checked_sub(1) {
                    Some(d) => depth = d,
                    None => return true,
                },
                _ => depth += 1,
            }
        }
        let Some(root) = self.root.as_ref().filter(|_| !self.options.follow) else {
            return false;
        };
        let mut p = PathBuf::from(crate::os::bytes_os(&self.path_of(name)));
        loop {
            match std::fs::canonicalize(&p) {
                Ok(real) => return !real.starts_with(root),
                Err(_) => {
                    if !p.pop() {
                        return false;
                    }
                }
            }
        }
    }

    /// Records `name` as listed.
    pub(super) fn list(&mut self, name: &[u8]) {
        let n = normalize(name);
        if !self.listed.contains(n.as_slice()) {
            self.listed.insert(n.into_boxed_slice());
        }
    }

    /// The next file the walk finds that is not listed, or the next error;
    /// `None` once the walk is over. Called only after the manifest's last
    /// line, so the set is complete.
    pub(super) fn next_found(&mut self) -> Option<Found> {
        if !self.walked {
            self.walked = true;
            let walk = self.options.clone();
            self.walk = Some(Inputs::new(
                vec![self.dir.as_os_str().to_os_string()],
                &[],
                false,
                Some(walk),
            ));
        }
        loop {
            match self.walk.as_mut()?.next()? {
                Ok(path) => {
                    let rel = self.relative(&path);
                    if self.listed.contains(rel.as_slice()) || self.is_manifest(&path) {
                        continue;
                    }
                    return Some(Found::New(rel));
                }
                Err((path, e)) => {
                    let rel = self.relative(&path);
                    return Some(Found::Error(rel, crate::os::os_bytes(&path).into_owned(), e));
                }
            }
        }
    }

    /// A walked path relative to DIR (`.` for DIR itself).
    fn relative(&self, path: &OsString) -> Vec<u8> {
        match Path::new(path).strip_prefix(&self.dir) {
            Ok(r) if r.as_os_str().is_empty() => b".".to_vec(),
            Ok(r) => crate::os::os_bytes(r.as_os_str()).into_owned(),
            Err(_) => crate::os::os_bytes(path).into_owned(),
        }
    }

    /// True when `path` is the manifest itself.
    fn is_manifest(&self, path: &OsStr) -> bool {
        self.manifest
            .is_some_and(|id| std::fs::metadata(path).is_ok_and(|m| file_id(&m) == Some(id)))
    }
}

/// The error of a listed name that leads out of the audited directory
/// ([`Audit::outside`]).
pub(super) fn outside_error() -> std::io::Error {
    std::io::Error::other("outside the audited tree; not read")
}

/// After the summary: when no listed file was found under DIR and the
/// walk found files there, a hint that the names are relative to DIR (a
/// manifest made with `mhash -r DIR` names `DIR/...`).
pub fn hint(con: &mut crate::report::Console, counts: &AuditCounts, dir: &OsStr, manifest: &[u8]) {
    let found = [Category::Matching, Category::Changed, Category::Unreadable]
        .iter()
        .map(|&c| counts.get(c))
        .sum::<u64>();
    if found == 0 && counts.get(Category::Missing) != 0 && counts.get(Category::New) != 0 {
        let mut msg = b"hint: no file listed in ".to_vec();
        msg.extend_from_slice(&con.quotef(manifest));
        msg.extend_from_slice(b" was found under ");
        msg.extend_from_slice(&con.quotef(&crate::os::os_bytes(dir)));
        msg.extend_from_slice(
            b": its names are read relative to that directory (make it with 'cd DIR && mhash -r .')",
        );
        con.error_msg(&msg);
    }
}

/// A file's device and inode number (none where the platform has none).
fn file_id(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    crate::os::file_id(m)
}

/// `name` as the walk would spell it: empty and `.` components dropped
/// (`./a//b/` is `a/b`); a leading `/` kept (an absolute name never
/// matches a walked one). `..` is kept as it is.
pub fn normalize(name: &[u8]) -> Vec<u8> {
    let absolute = name.first() == Some(&b'/');
    let mut out = Vec::with_capacity(name.len());
    if absolute {
        out.push(b'/');
    }
    for c in name.split(|&b| b == b'/').filter(|c| !c.is_empty() && *c != b".") {
        if out.len() > usize::from(absolute) {
            out.push(b'/');
        }
        out.extend_from_slice(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_normalize_as_the_walk_spells_them() {
        assert_eq!(normalize(b"./a//b/"), b"a/b");
        assert_eq!(normalize(b"a"), b"a");
        assert_eq!(normalize(b"/x/./y"), b"/x/y");
        assert_eq!(normalize(b"../a"), b"../a");
        assert_eq!(normalize(b"a b\n\xff"), b"a b\n\xff");
    }

    #[test]
    fn listed_names_are_read_under_the_directory() {
        let a = Audit::new(OsStr::new("d/"), &Default::default(), OsStr::new("-"));
        assert_eq!(a.path_of(b"x/y"), b"d/x/y");
        assert_eq!(a.path_of(b"/abs"), b"/abs");
        let a = Audit::new(OsStr::new("d"), &Default::default(), OsStr::new("-"));
        assert_eq!(a.path_of(b"-"), b"d/-");
    }
}
