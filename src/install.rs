//! `mhash --install-links DIR`: make mhash answer to the GNU names by
//! creating `DIR/md5sum`, `DIR/sha256sum`, ... as symbolic links to the
//! running binary (hard links on Windows, where symlinks need a privilege).
//!
//! Nothing is replaced unless `--force`: if any name is taken by something
//! else, each such name is reported and no link is made. A name that
//! already links to this binary is left as it is, so running it twice is
//! harmless.

use crate::report::Console;
use std::path::{Path, PathBuf};

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

/// Makes `link` answer as `exe`: a symbolic link on Unix; on Windows a
/// hard link (symbolic links need a privilege there), else a copy (another
/// volume, a file system without hard links).
fn make_link(exe: &Path, link: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(exe, link)
    }
    #[cfg(not(unix))]
    {
        std::fs::hard_link(exe, link).or_else(|_| std::fs::copy(exe, link).map(|_| ()))
    }
}

/// Creates the links in `dir` to the running binary, printing
/// `DIR/NAME -> BINARY` for each one made. Returns true on success.
pub fn install_links(con: &mut Console, dir: &Path, force: bool) -> bool {
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
    let links: Vec<PathBuf> = link_names()
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
    for (link, replace) in todo {
        let shown = crate::os::os_bytes(link.as_os_str()).into_owned();
        let r = if replace {
            std::fs::remove_file(link).and_then(|()| make_link(&exe, link))
        } else {
            make_link(&exe, link)
        };
        match r {
            Ok(()) => {
                let mut line = shown;
                line.extend_from_slice(b" -> ");
                line.extend_from_slice(&crate::os::os_bytes(exe.as_os_str()));
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
