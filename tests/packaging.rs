//! The Debian package (`cargo deb`, [package.metadata.deb] in Cargo.toml,
//! built by scripts/build-deb): it installs /usr/bin/mhash, its man page,
//! the bash, zsh and fish completions and docs, and nothing under a GNU
//! tool's name (coreutils owns those files; `mhash --install-links`
//! makes the links where a user wants them). Where cargo-deb and
//! dpkg-deb are installed, a package is built from the test binary and
//! its content and control fields are read back; elsewhere that part
//! prints SKIP.

use std::path::{Path, PathBuf};

use crate::util;

/// `(source, installed path)` of every asset in Cargo.toml's
/// [package.metadata.deb] (a destination ending in `/` takes the source's
/// file name).
fn deb_assets() -> Vec<(String, String)> {
    let toml = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let section = toml
        .split("\n[package.metadata.deb]\n")
        .nth(1)
        .expect("Cargo.toml has [package.metadata.deb]");
    let section = section.split("\n[").next().unwrap();
    let assets = section
        .split("assets = [")
        .nth(1)
        .expect("[package.metadata.deb] lists assets");
    let assets = &assets[..assets.find("\n]").expect("assets end with ]")];
    assets
        .lines()
        .filter(|l| l.trim_start().starts_with('['))
        .map(|l| {
            let parts: Vec<&str> = l.split('"').collect();
            let (src, dest) = (parts[1].to_string(), parts[3].to_string());
            let dest = match dest.strip_suffix('/') {
                Some(dir) => format!("{dir}/{}", Path::new(&src).file_name().unwrap().to_str().unwrap()),
                None => dest,
            };
            (src, dest)
        })
        .collect()
}

#[test]
fn deb_metadata_installs_mhash_its_manual_and_completions_and_no_gnu_names() {
    let assets = deb_assets();
    let dests: Vec<&str> = assets.iter().map(|(_, d)| d.as_str()).collect();
    for want in [
        "usr/bin/mhash",
        "usr/share/man/man1/mhash.1.gz",
        "usr/share/bash-completion/completions/mhash",
        "usr/share/zsh/vendor-completions/_mhash",
        "usr/share/fish/vendor_completions.d/mhash.fish",
        "usr/share/doc/mhash/README.md",
    ] {
        assert!(dests.contains(&want), "{want} not installed: {dests:?}");
    }
    let in_bin: Vec<&&str> = dests.iter().filter(|d| d.starts_with("usr/bin/")).collect();
    assert_eq!(in_bin, [&"usr/bin/mhash"], "only mhash under /usr/bin");
    for (_, d) in &assets {
        let name = Path::new(d).file_name().unwrap().to_str().unwrap();
        assert!(
            !util::GNU_NAMES.contains(&name) && name != "b3sum" && name != "shasum",
            "{d}: a tool's name that another package owns"
        );
    }
    // Every source is in the repository, or written by scripts/build-deb.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = std::fs::read_to_string(root.join("scripts/build-deb")).unwrap();
    for (src, _) in &assets {
        if let Some(generated) = src.strip_prefix("target/deb-assets/") {
            assert!(
                script.contains(&format!("$out/{generated}")),
                "scripts/build-deb does not write {src}"
            );
        } else if src != "target/release/mhash" {
            assert!(root.join(src).is_file(), "{src} is not in the repository");
        }
    }
}

/// Whether `cargo deb` answers (cargo-deb is installed).
fn cargo_deb() -> bool {
    std::process::Command::new(env!("CARGO"))
        .args(["deb", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Builds the package from this build's binary (a copy of the tree's
/// packaging inputs in a scratch directory, so nothing in the clone's
/// target/ changes), then lists it with `dpkg-deb -c` and reads its
/// control file with `dpkg-deb -I`: /usr/bin holds `mhash` and nothing
/// else, the man page and completions are there, and the installed binary
/// runs (extracted with `dpkg-deb -x`, SHA-256 of "abc" from FIPS 180-2
/// B.1); then `dpkg -i` and `dpkg -r` in a scratch root (`--root`, an
/// empty dpkg database there) install and remove it.
#[cfg(unix)]
#[test]
fn deb_package_holds_mhash_and_no_gnu_names() {
    const TEST: &str = "packaging::deb_package_holds_mhash_and_no_gnu_names";
    if !cargo_deb() {
        return util::skip(
            TEST,
            "cargo-deb is not installed (cargo install --locked cargo-deb)",
        );
    }
    if !Path::new("/usr/bin/dpkg-deb").exists() {
        return util::skip(TEST, "dpkg-deb not found");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let t = tempfile::tempdir().unwrap();
    let w = t.path();
    // A crate that is mhash's manifest and packaging inputs, with the
    // test build's binary where cargo-deb looks for the release one.
    for f in ["Cargo.toml", "Cargo.lock", "LICENSE", "README.md", "build.rs"] {
        std::fs::copy(root.join(f), w.join(f)).unwrap();
    }
    for d in ["docs", "src", "benches", "examples", "build"] {
        copy_tree(&root.join(d), &w.join(d));
    }
    // The manifest names its integration tests' entry file.
    std::fs::create_dir_all(w.join("tests")).unwrap();
    std::fs::write(w.join("tests/tests.rs"), "").unwrap();
    let assets = w.join("target/deb-assets");
    let release = w.join("target/release");
    std::fs::create_dir_all(&assets).unwrap();
    std::fs::create_dir_all(&release).unwrap();
    std::fs::copy(util::MHASH, release.join("mhash")).unwrap();
    let print = |args: &[&str], to: &str, gz: bool| {
        let out = util::command(util::MHASH).args(args).output().unwrap();
        assert!(out.status.success());
        let p = assets.join(to);
        if gz {
            std::fs::write(w.join("page"), &out.stdout).unwrap();
            let z = std::process::Command::new("gzip")
                .args(["-9nc", "page"])
                .current_dir(w)
                .output()
                .unwrap();
            std::fs::write(p, z.stdout).unwrap();
        } else {
            std::fs::write(p, out.stdout).unwrap();
        }
    };
    print(&["man"], "mhash.1.gz", true);
    print(&["completions", "bash"], "mhash.bash", false);
    print(&["completions", "zsh"], "_mhash", false);
    print(&["completions", "fish"], "mhash.fish", false);
    let out = std::process::Command::new(env!("CARGO"))
        .args(["deb", "--no-build", "--offline", "--fast"])
        .current_dir(w)
        .env("CARGO_TARGET_DIR", w.join("target"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo deb: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let deb: PathBuf = std::fs::read_dir(w.join("target/debian"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "deb"))
        .expect("a .deb in target/debian");
    let list = std::process::Command::new("dpkg-deb")
        .arg("-c")
        .arg(&deb)
        .output()
        .unwrap();
    assert!(list.status.success());
    let list = String::from_utf8(list.stdout).unwrap();
    // `-rwxr-xr-x root/root 123 2026-12-06 12:00 ./usr/bin/mhash`
    let paths: Vec<&str> = list
        .lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .map(|p| p.trim_start_matches('.'))
        .collect();
    let bins: Vec<&&str> = paths
        .iter()
        .filter(|p| p.starts_with("/usr/bin/") && **p != "/usr/bin/")
        .collect();
    assert_eq!(bins, [&"/usr/bin/mhash"], "{list}");
    for want in [
        "/usr/share/man/man1/mhash.1.gz",
        "/usr/share/bash-completion/completions/mhash",
        "/usr/share/zsh/vendor-completions/_mhash",
        "/usr/share/fish/vendor_completions.d/mhash.fish",
        "/usr/share/doc/mhash/copyright",
    ] {
        assert!(paths.contains(&want), "{want} not in the package:\n{list}");
    }
    let info = std::process::Command::new("dpkg-deb")
        .arg("-I")
        .arg(&deb)
        .output()
        .unwrap();
    let info = String::from_utf8(info.stdout).unwrap();
    assert!(info.contains(" Package: mhash\n"), "{info}");
    assert!(info.contains(" Version: 0.1.0"), "{info}");
    // The packaged binary runs from where it is unpacked.
    let x = w.join("x");
    let ok = std::process::Command::new("dpkg-deb")
        .arg("-x")
        .arg(&deb)
        .arg(&x)
        .status()
        .unwrap();
    assert!(ok.success());
    std::fs::write(w.join("abc"), "abc").unwrap();
    let out = util::command(x.join("usr/bin/mhash"))
        .arg("abc")
        .current_dir(w)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  abc\n"
    );
    // Installed and removed with dpkg in a scratch root (its own, empty,
    // dpkg database; the libc it depends on is not in it).
    if !Path::new("/usr/bin/dpkg").exists() {
        return util::skip(TEST, "dpkg not found: not installed in a scratch root");
    }
    let scratch = w.join("root");
    std::fs::create_dir_all(scratch.join("var/lib/dpkg/info")).unwrap();
    std::fs::create_dir_all(scratch.join("var/lib/dpkg/updates")).unwrap();
    std::fs::write(scratch.join("var/lib/dpkg/status"), "").unwrap();
    let dpkg = |args: &[&str]| {
        let out = std::process::Command::new("dpkg")
            .arg(format!("--root={}", scratch.display()))
            .args(["--force-not-root", "--force-depends", "--force-script-chrootless"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "dpkg {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    dpkg(&["-i", deb.to_str().unwrap()]);
    let installed: Vec<String> = std::fs::read_dir(scratch.join("usr/bin"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(installed, ["mhash"]);
    assert!(scratch.join("usr/share/man/man1/mhash.1.gz").is_file());
    dpkg(&["-r", "mhash"]);
    assert!(
        !scratch.join("usr/bin/mhash").exists(),
        "dpkg -r left /usr/bin/mhash"
    );
    assert!(!scratch.join("usr/share/man/man1/mhash.1.gz").exists());
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if e.file_type().unwrap().is_dir() {
            copy_tree(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}
