//! `mhash man`: the roff man page, clap_mangen's sections for the name,
//! synopsis and options, and mhash's own for the rest of `--help`'s text.
//!
//! `--help`'s closing text is laid out for a terminal (a two-column
//! environment table aligned with spaces); set as filled roff text it
//! would be run together and re-wrapped. Here its paragraphs join the
//! DESCRIPTION, the `Environment:` table becomes an ENVIRONMENT section of
//! tagged paragraphs (`.TP`, one per variable) and `Exit status:` an EXIT
//! STATUS section, so that `man` lays them out at any width.

use clap::Command;
use roff::{Roff, bold, roman};

/// The man page for `cmd` (the native face's command, with its version).
///
/// # Errors
/// Writing the roff text failed (it is written to memory: in practice
/// never).
pub(super) fn render(cmd: Command) -> std::io::Result<String> {
    let after = cmd.get_after_help().map(|s| s.to_string()).unwrap_or_default();
    let man = clap_mangen::Man::new(cmd.clone().after_help(None::<&str>));
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    let mut roff = Roff::default();
    let mut env = Vec::new();
    let mut exit = None;
    for para in after.split("\n\n") {
        if let Some(rest) = para.strip_prefix("Environment:\n") {
            env = environment(rest);
        } else if let Some(rest) = para.strip_prefix("Exit status:") {
            exit = Some(joined(rest));
        } else {
            roff.control("PP", [] as [&str; 0]);
            roff.text([roman(joined(para))]);
        }
    }
    roff.to_writer(&mut out)?;
    man.render_options_section(&mut out)?;
    let mut roff = Roff::default();
    if !env.is_empty() {
        roff.control("SH", ["ENVIRONMENT"]);
        for (name, text) in &env {
            roff.control("TP", [] as [&str; 0]);
            roff.text([bold(name.as_str())]);
            roff.text([roman(text.as_str())]);
        }
    }
    if let Some(text) = exit {
        roff.control("SH", ["EXIT STATUS"]);
        roff.text([roman(text)]);
    }
    roff.to_writer(&mut out)?;
    man.render_version_section(&mut out)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The lines of `text` as one line (each trimmed, joined by a space).
fn joined(text: &str) -> String {
    text.split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `Environment:` table's rows, `(NAME[=VALUES], text)`: a row starts
/// with a line indented by two spaces, its name ends at the first run of
/// two spaces, and lines indented further continue its text.
fn environment(table: &str) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = Vec::new();
    for line in table.lines() {
        let starts_row = line.starts_with("  ") && !line[2..].starts_with(' ');
        match rows.last_mut() {
            Some((_, text)) if !starts_row => {
                text.push(' ');
                text.push_str(line.trim());
            }
            _ => {
                let body = line.trim();
                let (name, text) = body.split_once("  ").unwrap_or((body, ""));
                rows.push((name.to_string(), text.trim().to_string()));
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::environment;

    #[test]
    fn environment_rows_join_their_continuation_lines() {
        let rows =
            environment("  A=1|2  first line\n                 goes on\n  B  second\n  C=x,...  third\n");
        assert_eq!(
            rows,
            [
                ("A=1|2".to_string(), "first line goes on".to_string()),
                ("B".to_string(), "second".to_string()),
                ("C=x,...".to_string(), "third".to_string()),
            ]
        );
    }
}
