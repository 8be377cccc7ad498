//! `mhash --install-links DIR`: make mhash answer to the GNU names by
//! creating `DIR/md5sum`, `DIR/sha256sum`, ... as symbolic links to the
//! running binary (hard links on Windows, where symlinks need a privilege).
//!
//! Nothing is replaced unless `--force`: if any name is taken by something
//! else, each such name is reported and no link is made. A name that
//! already links to this binary is left as it is, so running it twice is
//! harmless.
//!
//! `--with-b3sum` adds a `b3sum` link (mhash's b3sum face). It is not made
//! by default: a real b3sum later on `PATH` would be shadowed by it; where
//! one is, the printed line names it (`shadows /usr/bin/b3sum, b3sum
//! 1.5.4`), as the GNU names' lines name the GNU tool they shadow.
//! `--relative` makes each symbolic link's target relative to DIR
//! (`../lib/mhash/mhash`), so that a tree holding both can move.

use crate::config::LinkOpts;
use crate::report::Console;
use std::path::{Component, Path, PathBuf};

/// The name `--with-b3sum` adds.
pub const B3SUM: &str = "b3sum";

/// The names created, one per GNU personality.
pub fn link_names() -> impl Iterator<Item = &'static str> {
    crate::config::Personality::GNU.iter().map(|(_, name)| *name)
}

/// Whether `link` already is a link to `exe`: on Unix a symbolic link
/// that resolves to it; on Windows a hard link to it, or a copy of it
/// (the same bytes), as [`make_link`] makes them.
fn links_to(link: &Path, exe: &Path) -> bool {
    #[cfg(unix)]
    {
        match std::fs::read_link(link) {
            Ok(target) => {
                let target = link.parent().map_or(target.clone(), |d| d.join(&target));
                std::fs::canonicalize(target).is_ok_and(|t| t == exe)
            }
            Err(_) => false,
        }
    }
    #[cfg(not(unix))]
    {
        crate::os::same_file(link, exe)
            || match (std::fs::read(link), std::fs::read(exe)) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            }
    }
}

/// Makes `link` answer as `exe` (written `target` in a symbolic link): a
/// symbolic link on Unix; on Windows a hard link (symbolic links need a
/// privilege there), else a copy (another volume, a file system without
/// hard links), and `target` is not used.
fn make_link(exe: &Path, target: &Path, link: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        let _ = exe;
        std::os::unix::fs::symlink(target, link)
    }
    #[cfg(not(unix))]
    {
        let _ = target;
        std::fs::hard_link(exe, link).or_else(|_| std::fs::copy(exe, link).map(|_| ()))
    }
}

/// `to` as a path relative to the directory `from`: both absolute and
/// canonical (no `.`, `..` or symbolic link in them); `None` when they
/// share no root (two Windows drives).
pub fn relative_path(from: &Path, to: &Path) -> Option<PathBuf> {
    let a: Vec<Component> = from.components().collect();
    let b: Vec<Component> = to.components().collect();
    if a.first() != b.first() {
        return None;
    }
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut rel = PathBuf::new();
    for _ in common..a.len() {
        rel.push("..");
    }
    for c in &b[common..] {
        rel.push(c.as_os_str());
    }
    Some(rel)
}

/// The first line of `tool --version` (`b3sum 1.5.4`), if it says one.
fn version_line(tool: &Path) -> Option<String> {
    let out = std::process::Command::new(tool)
        .arg("--version")
        .env("LC_ALL", "C")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next()?.trim();
    (!first.is_empty()).then(|| first.to_string())
}

/// The file beside the links that says which GNU release each name
/// reproduces: lines `NAME RELEASE` (`sha256sum 9.1`), read at start-up
/// under a GNU name where `MHASH_GNU_COMPAT` is not set
/// ([`crate::os::installed_release`]). A file, not the link's target name:
/// a symbolic link's target must stay the binary (a hard link has no
/// target at all on Windows), and one failed `open` is all it costs a
/// start where the file is not there (about a microsecond of the ~1 ms).
pub const RELEASE_FILE: &str = crate::os::RELEASE_FILE;

/// The GNU tool that a link `dir/name` shadows: the first `name` on `PATH`
/// after `dir` (anywhere on `PATH` when `dir` is not on it) that is not
/// this binary, else `/usr/bin/name`.
fn shadowed_tool(dir: &Path, name: &str, exe: &Path) -> Option<PathBuf> {
    let file = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    let canon = |p: &Path| std::fs::canonicalize(p).ok();
    let here = canon(dir);
    let path: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    let after = path
        .iter()
        .position(|p| here.is_some() && canon(p) == here)
        .map_or(0, |i| i + 1);
    let usable = |p: &Path| p.is_file() && !links_to(p, exe) && canon(p).is_none_or(|c| c != exe);
    path[after..]
        .iter()
        .map(|d| d.join(&file))
        .chain(std::iter::once(Path::new("/usr/bin").join(&file)))
        .find(|p| canon(p.parent().unwrap_or(p)) != here && usable(p))
}

/// The GNU coreutils release of `tool`, from the first line of its
/// `--version` (`sha256sum (GNU coreutils) 9.1`): `9.1`; `None` for a
/// tool that is not GNU's or does not say.
fn gnu_release(tool: &Path) -> Option<String> {
    let out = std::process::Command::new(tool)
        .arg("--version")
        .env("LC_ALL", "C")
        .env_remove("MHASH_GNU_COMPAT")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    release_in_version(&String::from_utf8_lossy(&out.stdout))
}

/// The release in a GNU tool's `--version` text: its first line is
/// `NAME (GNU coreutils) 9.1`, or `cksum (coreutils) 8.32`: GNU 8.32's
/// cksum names the package without `GNU` (as a build of 8.32 from its
/// sources prints it; its other tools and 9.x's cksum say `GNU
/// coreutils`).
pub fn release_in_version(text: &str) -> Option<String> {
    let first = text.lines().next()?;
    let (_, rest) = first
        .split_once("(GNU coreutils) ")
        .or_else(|| first.split_once("(coreutils) "))?;
    let version = rest.split_whitespace().next()?;
    version
        .split('.')
        .take(2)
        .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| version.to_string())
}

/// The release mhash reproduces for GNU release `version`: the newest of
/// those it knows (8.32, 9.1, 9.4, 9.11) that is not newer (`9.3` is
/// 9.1's behaviour, `9.10` 9.4's); a release before 8.32 gets 8.32's.
pub fn compat_for_release(version: &str) -> &'static str {
    let mut parts = version.split('.').map(|n| n.parse::<u32>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    match (major, minor) {
        (0..=8, _) => "8.32",
        (9, 0..=3) => "9.1",
        (9, 4..=10) => "9.4",
        _ => "9.11",
    }
}

/// Creates the links in `dir` to the running binary, printing
/// `DIR/NAME -> BINARY (as GNU coreutils 9.1, found /usr/bin/NAME)` for
/// each one made: the GNU release it reproduces, that of the GNU tool the
/// link shadows (`shadowed_tool`), written to [`RELEASE_FILE`] in `dir`;
/// 9.11 where none is found. Returns true on success.
///
/// `opts.b3sum` adds `DIR/b3sum`, printed with the b3sum it shadows (the
/// first other `b3sum` on `PATH` after DIR, with its `--version` line) or
/// `no other b3sum found to shadow`; `opts.relative` writes each link's
/// target relative to DIR (the canonical DIR); `opts.force` replaces what
/// is there.
pub fn install_links(con: &mut Console, dir: &Path, opts: LinkOpts) -> bool {
    let force = opts.force;
    let exe = match std::env::current_exe().and_then(std::fs::canonicalize) {
        // Windows' canonical form is verbatim (`\\?\C:\...`): shown plain.
        Ok(p) => crate::os::display_path(&p),
        Err(e) => {
            con.error_io(b"cannot locate the running binary", &e);
            return false;
        }
    };
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            let e = std::io::Error::other("Not a directory");
            con.error_io(&crate::os::os_bytes(dir.as_os_str()), &e);
            return false;
        }
        Err(e) => {
            con.error_io(&crate::os::os_bytes(dir.as_os_str()), &e);
            return false;
        }
    }
    // The target written in each symbolic link: the binary's path, or
    // that path from DIR (`--relative`; Windows' hard links and copies
    // have no target).
    let target = if opts.relative && cfg!(unix) {
        match std::fs::canonicalize(dir)
            .ok()
            .and_then(|d| relative_path(&crate::os::display_path(&d), &exe))
        {
            Some(t) => t,
            None => {
                let mut msg = crate::os::os_bytes(dir.as_os_str()).into_owned();
                msg.extend_from_slice(
                    b": --relative: the binary is on another volume; no relative path leads to it",
                );
                con.error_msg(&msg);
                return false;
            }
        }
    } else {
        exe.clone()
    };
    let links: Vec<PathBuf> = link_names()
        .chain(opts.b3sum.then_some(B3SUM))
        .map(|n| dir.join(format!("{n}{}", std::env::consts::EXE_SUFFIX)))
        .collect();
    // First pass: what is already there.
    let mut todo = Vec::new();
    let mut ok = true;
    for link in &links {
        let shown = crate::os::os_bytes(link.as_os_str()).into_owned();
        match std::fs::symlink_metadata(link) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => todo.push((link, false)),
            Err(e) => {
                con.error_io(&shown, &e);
                ok = false;
            }
            Ok(_) if links_to(link, &exe) => {}
            Ok(m) if m.is_dir() => {
                let e = std::io::Error::other("Is a directory");
                con.error_io(&shown, &e);
                ok = false;
            }
            Ok(_) if force => todo.push((link, true)),
            Ok(_) => {
                let mut msg = crate::text::quote::quotef(&shown);
                msg.extend_from_slice(b": File exists (--force replaces it)");
                con.error_msg(&msg);
                ok = false;
            }
        }
    }
    if !ok {
        return false;
    }
    // The release each name reproduces, from the GNU tool it shadows.
    let mut releases = String::new();
    let mut said: Vec<(PathBuf, String)> = Vec::new();
    for name in link_names() {
        let found = shadowed_tool(dir, name, &exe).and_then(|t| gnu_release(&t).map(|v| (t, v)));
        let note = match &found {
            Some((tool, version)) => {
                let level = compat_for_release(version);
                releases.push_str(&format!("{name} {level}\n"));
                if version == level {
                    format!(" (as GNU coreutils {level}, found {})", tool.display())
                } else {
                    format!(
                        " (as GNU coreutils {level}, found {} of {version})",
                        tool.display()
                    )
                }
            }
            None => format!(" (as GNU coreutils 9.11: no GNU {name} found to shadow)"),
        };
        said.push((dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX)), note));
    }
    if opts.b3sum {
        let note = match shadowed_tool(dir, B3SUM, &exe) {
            Some(tool) => match version_line(&tool) {
                Some(v) => format!(" (b3sum's face; shadows {}, {v})", tool.display()),
                None => format!(" (b3sum's face; shadows {})", tool.display()),
            },
            None => " (b3sum's face; no other b3sum found to shadow)".to_string(),
        };
        said.push((dir.join(format!("{B3SUM}{}", std::env::consts::EXE_SUFFIX)), note));
    }
    let release_file = dir.join(RELEASE_FILE);
    let r = if releases.is_empty() {
        match std::fs::remove_file(&release_file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            r => r,
        }
    } else {
        std::fs::write(&release_file, releases.as_bytes())
    };
    if let Err(e) = r {
        con.error_io(&crate::os::os_bytes(release_file.as_os_str()), &e);
        return false;
    }
    for (link, replace) in todo {
        let shown = crate::os::os_bytes(link.as_os_str()).into_owned();
        let r = if replace {
            std::fs::remove_file(link).and_then(|()| make_link(&exe, &target, link))
        } else {
            make_link(&exe, &target, link)
        };
        match r {
            Ok(()) => {
                let mut line = shown;
                line.extend_from_slice(b" -> ");
                line.extend_from_slice(&crate::os::os_bytes(target.as_os_str()));
                if let Some((_, note)) = said.iter().find(|(p, _)| p == link) {
                    line.extend_from_slice(note.as_bytes());
                }
                line.push(b'\n');
                con.write_out(&line);
            }
            Err(e) => {
                con.error_io(&shown, &e);
                ok = false;
            }
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_release_is_read_from_either_version_line() {
        // First lines of `--version` of GNU builds from their sources.
        assert_eq!(
            release_in_version("sha256sum (GNU coreutils) 9.1\nCopyright").as_deref(),
            Some("9.1")
        );
        assert_eq!(
            release_in_version("cksum (coreutils) 8.32\n").as_deref(),
            Some("8.32")
        );
        assert_eq!(release_in_version("sha256sum (uutils coreutils) 0.0.30\n"), None);
        assert_eq!(release_in_version("b3sum 1.5.4\n"), None);
    }

    #[test]
    fn relative_paths_climb_to_the_common_directory() {
        // Compared with `/` between components on every OS (Windows
        // joins them with `\`).
        let rel = |a: &str, b: &str| {
            relative_path(Path::new(a), Path::new(b)).map(|p| {
                p.components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/")
            })
        };
        assert_eq!(
            rel("/opt/x/bin", "/opt/x/lib/mhash").as_deref(),
            Some("../lib/mhash")
        );
        assert_eq!(
            rel("/usr/local/bin", "/usr/local/bin/mhash").as_deref(),
            Some("mhash")
        );
        assert_eq!(rel("/a/b/c", "/d/e").as_deref(), Some("../../../d/e"));
    }

    #[test]
    fn a_release_maps_to_the_newest_known_behaviour_not_newer() {
        for (v, want) in [
            ("8.32", "8.32"),
            ("8.30", "8.32"),
            ("9.0", "9.1"),
            ("9.1", "9.1"),
            ("9.3", "9.1"),
            ("9.4", "9.4"),
            ("9.10", "9.4"),
            ("9.11", "9.11"),
            ("10.0", "9.11"),
        ] {
            assert_eq!(compat_for_release(v), want, "{v}");
        }
    }
}
