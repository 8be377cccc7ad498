//! GNU's `quotef`: file names in diagnostics (and, since GNU 9.11, in
//! check-mode status lines) are shell-quoted when they need it.
//!
//! This follows gnulib quotearg's `shell_escape_quoting_style`: a name made of
//! safe characters is printed as is; otherwise it is wrapped in single quotes,
//! control characters and bytes that are not printable in the locale become
//! `'$'\n''`-style escapes, and a name whose only problem is a single quote
//! is wrapped in double quotes (`"it's"`).

/// True when the locale's character type is UTF-8 (as the C library
/// decides it, [`crate::os::ctype_is_utf8`]: a locale named but not
/// installed is the C locale), in which case valid multibyte characters
/// are printable; in the C locale every byte >= 0x80 is escaped. Asked
/// only when a name holds such a byte.
fn utf8_locale() -> bool {
    use std::sync::OnceLock;
    static UTF8: OnceLock<bool> = OnceLock::new();
    *UTF8.get_or_init(|| {
        if let Some(utf8) = crate::os::ctype_is_utf8() {
            return utf8;
        }
        let v = ["LC_ALL", "LC_CTYPE", "LANG"]
            .iter()
            .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
            .unwrap_or_default()
            .to_ascii_lowercase();
        v.contains("utf-8") || v.contains("utf8")
    })
}

/// One unit of the name: a printable run or a byte to escape.
enum Unit<'a> {
    Text(&'a [u8]),
    Escape(u8),
}

/// The units of `name`, produced lazily: a name may be 100 MiB long (a
/// checksum line names it), and a `Vec<Unit>` of it would take 24 bytes per
/// byte of name.
fn units(name: &[u8], utf8: bool) -> Units<'_> {
    Units { name, i: 0, utf8 }
}

struct Units<'a> {
    name: &'a [u8],
    i: usize,
    utf8: bool,
}

impl<'a> Iterator for Units<'a> {
    type Item = Unit<'a>;

    fn next(&mut self) -> Option<Unit<'a>> {
        let (name, i) = (self.name, self.i);
        let &b = name.get(i)?;
        if (0x20..0x7f).contains(&b) {
            self.i += 1;
            return Some(Unit::Text(&name[i..i + 1]));
        }
        if b >= 0x80 && self.utf8 {
            let len = match b {
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf4 => 4,
                _ => 0,
            };
            if len > 0
                && i + len <= name.len()
                && std::str::from_utf8(&name[i..i + len]).is_ok_and(|s| !s.chars().any(char::is_control))
            {
                self.i += len;
                return Some(Unit::Text(&name[i..i + len]));
            }
        }
        self.i += 1;
        Some(Unit::Escape(b))
    }
}

/// GNU's `quote()` (gnulib `locale_quoting_style`) for the values in
/// usage diagnostics (`invalid length: '12'`): ASCII apostrophes in the C
/// locale, `‘` and `’` where the locale's charset is UTF-8.
/// GNU's `quote (ARG)` (gnulib quotearg, `locale_quoting_style`) of an
/// argument's bytes: in the C locale `'...'` with `\\`, `\'`, C escapes
/// (`\n`, `\t`, ...) and 3-digit octal for other control and non-ASCII
/// bytes; in a UTF-8 locale `‘...’`, printable characters kept, `\\` and
/// C escapes, octal for control and invalid bytes.
pub fn locale_quote_bytes(b: &[u8]) -> String {
    let utf8 = utf8_locale();
    let mut out = String::from(if utf8 { "\u{2018}" } else { "'" });
    let escape = |out: &mut String, byte: u8| {
        let letter = match byte {
            7 => Some('a'),
            8 => Some('b'),
            12 => Some('f'),
            b'\n' => Some('n'),
            b'\r' => Some('r'),
            b'\t' => Some('t'),
            11 => Some('v'),
            _ => None,
        };
        match letter {
            Some(l) => {
                out.push('\\');
                out.push(l);
            }
            None => out.push_str(&format!("\\{byte:03o}")),
        }
    };
    for chunk in b.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\'' if !utf8 => out.push_str("\\'"),
                c if c.is_ascii() && (c as u8) >= 0x20 && c != '\x7f' => out.push(c),
                c if !c.is_ascii() && utf8 && !c.is_control() => out.push(c),
                c => {
                    let mut buf = [0u8; 4];
                    for &byte in c.encode_utf8(&mut buf).as_bytes() {
                        escape(&mut out, byte);
                    }
                }
            }
        }
        for &byte in chunk.invalid() {
            escape(&mut out, byte);
        }
    }
    out.push_str(if utf8 { "\u{2019}" } else { "'" });
    out
}

/// [`locale_quote_bytes`] without escapes, for text known to be printable
/// ASCII (algorithm names, option names).
pub fn locale_quote(s: &str) -> String {
    if utf8_locale() {
        format!("\u{2018}{s}\u{2019}")
    } else {
        format!("'{s}'")
    }
}

/// Quotes `name` as GNU 9.11's `quotef` does (C or UTF-8 locale rules).
pub fn quotef(name: &[u8]) -> Vec<u8> {
    quote_with(name, utf8_locale())
}

/// [`quotef`] as GNU 9.11 (`gnu_9_1` false) or 9.1 (gnulib's stale
/// second-pass state, see [`quote_with_9_1`]) quotes.
pub fn quotef_compat(name: &[u8], gnu_9_1: bool) -> Vec<u8> {
    quote_at(name, utf8_locale(), gnu_9_1)
}

/// [`quotef`] with the locale rule given explicitly (GNU 9.11).
pub fn quote_with(name: &[u8], utf8: bool) -> Vec<u8> {
    quote_at(name, utf8, false)
}

/// [`quote_with`] as GNU 9.1's gnulib quotes.
pub fn quote_with_9_1(name: &[u8], utf8: bool) -> Vec<u8> {
    quote_at(name, utf8, true)
}

/// gnulib's `quotearg_n_style_colon (.., shell_escape_quoting_style, ..)`:
/// `:` needs quoting too. `stale`: GNU 9.1's gnulib quirk (below).
fn quote_at(name: &[u8], utf8: bool, stale: bool) -> Vec<u8> {
    if name.is_empty() {
        return b"''".to_vec();
    }
    let mut needs = false;
    let mut has_single = false;
    let mut dq_ok = true; // every character reads the same inside "..."
    for (idx, u) in units(name, utf8).enumerate() {
        match u {
            Unit::Escape(_) => {
                needs = true;
                dq_ok = false;
            }
            Unit::Text(t) if t.len() == 1 => {
                let c = t[0];
                match c {
                    b'\'' => {
                        needs = true;
                        has_single = true;
                    }
                    b' ' | b':' => needs = true,
                    b'!' | b'"' | b'$' | b'&' | b'(' | b')' | b'*' | b';' | b'<' | b'=' | b'>' | b'?'
                    | b'[' | b'\\' | b'^' | b'`' | b'|' => {
                        needs = true;
                        dq_ok = false;
                    }
                    b'#' | b'~' if idx == 0 => {
                        needs = true;
                    }
                    b'{' | b'}' if name.len() == 1 => needs = true,
                    // Safe here, but not among gnulib's "same in C and
                    // shell quotes" characters: a name with `'` and one of
                    // these is single-quoted (`'a{'\''b'`), not "a{'b".
                    b'#' | b'~' | b'{' | b'}' => dq_ok = false,
                    _ => {}
                }
            }
            Unit::Text(_) => {}
        }
    }
    if !needs {
        return name.to_vec();
    }
    if has_single && dq_ok {
        let mut out = Vec::with_capacity(name.len() + 2);
        out.push(b'"');
        out.extend_from_slice(name);
        out.push(b'"');
        return out;
    }
    let mut out = Vec::with_capacity(name.len() + 8);
    out.push(b'\'');
    // GNU 9.1's gnulib quirk, reproduced: a name with a single quote is
    // quoted in two passes (the first only measures), and the second pass
    // starts with the first one's final "inside $'...'" state. When the
    // name ends in an escaped byte, the second pass thus opens with a stale
    // state: its first escape lacks the `'$'` (`\r'\232` quotes as
    // `'\r'\'''$'\232'`) and a leading printable gets a spurious `''`.
    // GNU 9.11's gnulib starts clean (`''$'\r'\'''$'\232'`).
    let last_is_escape = matches!(units(name, utf8).last(), Some(Unit::Escape(_)));
    let mut in_escape = stale && has_single && last_is_escape;
    for u in units(name, utf8) {
        match u {
            Unit::Escape(b) => {
                if !in_escape {
                    out.extend_from_slice(b"'$'");
                    in_escape = true;
                }
                match b {
                    b'\n' => out.extend_from_slice(b"\\n"),
                    b'\r' => out.extend_from_slice(b"\\r"),
                    b'\t' => out.extend_from_slice(b"\\t"),
                    0x07 => out.extend_from_slice(b"\\a"),
                    0x08 => out.extend_from_slice(b"\\b"),
                    0x0c => out.extend_from_slice(b"\\f"),
                    0x0b => out.extend_from_slice(b"\\v"),
                    _ => out.extend_from_slice(&[
                        b'\\',
                        b'0' + (b >> 6),
                        b'0' + ((b >> 3) & 7),
                        b'0' + (b & 7),
                    ]),
                }
            }
            // A quote closes a `$'...'` run itself (gnulib clears its
            // pending_shell_escape_end): LF then `'` is `'$'\n'\''`, not
            // `'$'\n'''\''`.
            Unit::Text(b"'") => {
                out.extend_from_slice(b"'\\''");
                in_escape = false;
            }
            Unit::Text(t) => {
                if in_escape {
                    out.extend_from_slice(b"''");
                    in_escape = false;
                }
                out.extend_from_slice(t);
            }
        }
    }
    out.push(b'\'');
    out
}

#[cfg(test)]
mod tests {
    use super::{quote_with, quote_with_9_1};

    fn q(s: &[u8]) -> String {
        String::from_utf8_lossy(&quote_with_9_1(s, false)).into_owned()
    }

    // GNU coreutils 9.11 (`md5sum NAME`, LC_ALL=C).
    #[test]
    fn quoting_matches_gnu_9_11() {
        let q = |s: &[u8]| String::from_utf8_lossy(&quote_with(s, false)).into_owned();
        assert_eq!(q(b"a:b"), "'a:b'");
        assert_eq!(q(b"it's:x"), "\"it's:x\"");
        assert_eq!(q(b"a'\x01"), r#"'a'\'''$'\001'"#);
        assert_eq!(q(b"\r'\x9a"), r#"''$'\r'\'''$'\232'"#);
        assert_eq!(q(b"x\ny"), "'x'$'\\n''y'");
    }

    // Expected values are GNU coreutils 9.1's diagnostics
    // (`sha256sum NAME` on a missing NAME, LC_ALL=C).
    #[test]
    fn quoting_matches_gnu() {
        assert_eq!(q(b"plain.txt"), "plain.txt");
        assert_eq!(q(b"a b"), "'a b'");
        assert_eq!(q(b"x\ny"), "'x'$'\\n''y'");
        assert_eq!(q(b"it's"), "\"it's\"");
        assert_eq!(q(b"\xff"), "''$'\\377'");
        assert_eq!(q(b"a\\b"), "'a\\b'");
        assert_eq!(q(b"c\rd"), "'c'$'\\r''d'");
        assert_eq!(q(b""), "''");
        // A single quote right after an escape (found by proptest_gnu).
        assert_eq!(q(b"\n'a"), r#"''$'\n'\''a'"#);
        assert_eq!(q(b"x\x01'"), r#"'x'$'\001'\'''"#);
        assert_eq!(q(b"'\n"), r#"''\'''$'\n'"#);
        // gnulib's stale second-pass state (name with `'`, ending in an
        // escape), as GNU 9.1 prints it.
        assert_eq!(q(b"\r'\x9a"), r#"'\r'\'''$'\232'"#);
        assert_eq!(q(b"a'\x01"), r#"'''a'\'''$'\001'"#);
        assert_eq!(q(b"\x01'a"), r#"''$'\001'\''a'"#);
        assert_eq!(q(b" '\n"), r#"''' '\'''$'\n'"#);
        // `quotef` is the colon variant in 9.1 too.
        assert_eq!(q(b"nosuch:x"), "'nosuch:x'");
        assert_eq!(q(b"a'b:"), "\"a'b:\"");
    }
}
