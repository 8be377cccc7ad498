//! The documents a user reads: README.md, docs/*.md and the man page
//! (`mhash man`) use no wording that makes sense only inside the
//! workspace mhash is developed in (its shared directory, branch names,
//! issue numbers, sessions and helpers), and the man page renders
//! cleanly: `man --warnings` reports nothing, and the ENVIRONMENT section
//! is one tagged paragraph per variable, not a re-wrapped table.

use crate::util::{self, mhash};
use std::path::Path;

/// Words that name the development workspace, not the tool: the shared
/// directory beside the clone, work branches, issue numbers, sessions.
const INTERNAL: &[&str] = &[
    "../shared",
    "helper",
    "everyday",
    "checkfmt",
    "sigharden",
    "winbench",
    "worktree",
    "own ci",
    "the issue",
    "issue's",
];

/// The places in `text` that use internal wording: `(line, what)`, lines
/// counted from 1. Case-blind; also `#` followed by a digit (`#38`) and
/// `issue` followed by a number (`issue 4`, `issue17`).
fn internal_wording(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let lower = line.to_ascii_lowercase();
        for w in INTERNAL {
            if lower.contains(w) {
                found.push((i + 1, (*w).to_string()));
            }
        }
        let b = lower.as_bytes();
        // A work session (not the code's `Session` type).
        for (at, _) in lower.match_indices("session") {
            if at == 0 || b[at - 1] != b'`' {
                found.push((i + 1, "session".to_string()));
            }
        }
        for (at, _) in lower.match_indices('#') {
            if b.get(at + 1).is_some_and(u8::is_ascii_digit) {
                found.push((i + 1, lower[at..].chars().take(6).collect()));
            }
        }
        for (at, _) in lower.match_indices("issue") {
            let rest = lower[at + 5..].trim_start_matches(' ');
            if rest.starts_with(|c: char| c.is_ascii_digit()) {
                found.push((i + 1, lower[at..].chars().take(10).collect()));
            }
        }
    }
    found
}

#[test]
fn the_scan_finds_what_it_looks_for() {
    let found = internal_wording(
        "ok\nsee #38 and issue 4\nin ../shared/x; Issue17\nfine: C# 1, ## 2, `Session`\nthis session\n",
    );
    let lines: Vec<usize> = found.iter().map(|f| f.0).collect();
    assert_eq!(lines, [2, 2, 3, 3, 5], "{found:?}");
}

#[test]
fn documents_use_no_workspace_wording() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut bad = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (line, what) in internal_wording(&text) {
            bad.push(format!(
                "{}:{line}: {what}",
                f.strip_prefix(root).unwrap().display()
            ));
        }
    }
    let d = tempfile::tempdir().unwrap();
    let page = mhash(d.path()).arg("man").output().unwrap();
    assert!(page.status.success());
    for (line, what) in internal_wording(&String::from_utf8_lossy(&page.stdout)) {
        bad.push(format!("mhash man:{line}: {what}"));
    }
    assert!(bad.is_empty(), "internal wording:\n{}", bad.join("\n"));
}

/// `man -l` renders `mhash man`'s page at 80 columns with no warning,
/// and its ENVIRONMENT section is a tagged paragraph per variable: each
/// name alone on its line, its text on the lines after, never wider than
/// the page.
#[cfg(unix)]
#[test]
fn man_page_renders_without_warnings_and_keeps_the_environment_table() {
    let d = tempfile::tempdir().unwrap();
    let page = mhash(d.path()).arg("man").output().unwrap();
    assert!(page.status.success());
    std::fs::write(d.path().join("mhash.1"), &page.stdout).unwrap();
    if !Path::new("/usr/bin/man").exists() {
        util::skip(
            "docs_text::man_page_renders_without_warnings_and_keeps_the_environment_table",
            "/usr/bin/man not found (apt-get install man-db)",
        );
        return;
    }
    let out = util::command("man")
        .args(["--warnings", "-l", "-P", "cat", "mhash.1"])
        .env("MANWIDTH", "80")
        .env("MAN_KEEP_FORMATTING", "")
        .env("LC_ALL", "C")
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "man --warnings");
    // Plain text: overstrikes (bold as `X\bX`) taken out, as col -b does.
    let mut text = String::new();
    for c in String::from_utf8_lossy(&out.stdout).chars() {
        if c == '\u{8}' {
            text.pop();
        } else {
            text.push(c);
        }
    }
    let lines: Vec<&str> = text.lines().collect();
    for l in &lines {
        assert!(l.chars().count() <= 80, "wider than 80 columns: {l:?}");
    }
    let start = lines
        .iter()
        .position(|l| *l == "ENVIRONMENT")
        .unwrap_or_else(|| panic!("no ENVIRONMENT section:\n{text}"));
    let section: Vec<&str> = lines[start + 1..]
        .iter()
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .copied()
        .collect();
    // Every variable `--help` lists, alone on its line (indented by 7, the
    // section's margin), its text after it.
    for var in [
        "MHASH_GNU_COMPAT=8.32|9.1|9.4|9.11",
        "MHASH_JOBS=N",
        "MHASH_IO=auto|read|mmap",
        "MHASH_BACKEND=portable",
        "MHASH_CALIBRATE=never|always",
        "MHASH_READ_SIZE=BYTES",
        "MHASH_MAP_WINDOW=BYTES",
        "POSIXLY_CORRECT",
    ] {
        let at = section
            .iter()
            .position(|l| l.trim() == var)
            .unwrap_or_else(|| panic!("{var} is not alone on a line:\n{}", section.join("\n")));
        let next = section.get(at + 1).copied().unwrap_or("");
        assert!(
            next.starts_with("              ") && !next.trim().is_empty(),
            "{var}: no text indented under it: {next:?}"
        );
    }
    // A row's text is whole: the first one reads on.
    assert!(
        section
            .iter()
            .any(|l| l.trim() == "the GNU release the GNU names reproduce (default 9.11)"),
        "{}",
        section.join("\n")
    );
    assert!(lines.contains(&"EXIT STATUS"), "{text}");
}
