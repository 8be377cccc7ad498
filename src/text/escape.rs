//! GNU's file-name escaping for checksum lines (coreutils digest.c): a name
//! holding `\`, LF or CR is written with `\\`, `\n`, `\r` and the whole line
//! gets a leading `\`. `-z` turns escaping off.

/// True when `name` must be escaped in a checksum line.
pub fn needs_escape(name: &[u8]) -> bool {
    name.iter().any(|&b| b == b'\\' || b == b'\n' || b == b'\r')
}

/// [`needs_escape`], or with `cr` false GNU 8.32's rule: only `\` and LF
/// are escaped (a CR is written as it is).
pub fn needs_escape_cr(name: &[u8], cr: bool) -> bool {
    name.iter()
        .any(|&b| b == b'\\' || b == b'\n' || (cr && b == b'\r'))
}

/// Writes `name` with `\`, LF and CR escaped (no leading backslash).
pub fn escape_into(out: &mut Vec<u8>, name: &[u8]) {
    escape_into_cr(out, name, true);
}

/// [`escape_into`]; with `cr` false a CR is written as it is (GNU 8.32).
pub fn escape_into_cr(out: &mut Vec<u8>, name: &[u8], cr: bool) {
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' if cr => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

/// Reverses [`escape_into`]: `\\`, `\n`, `\r` become `\`, LF, CR; any other
/// backslash sequence (or a trailing `\`) makes the name invalid (`None`),
/// as GNU's `filename_unescape` rejects it.
pub fn unescape(name: &[u8]) -> Option<Vec<u8>> {
    unescape_cr(name, true)
}

/// [`unescape`]; with `cr` false `\r` is no escape (GNU 8.32).
pub fn unescape_cr(name: &[u8], cr: bool) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(name.len());
    let mut it = name.iter();
    while let Some(&b) = it.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match it.next() {
            Some(b'\\') => out.push(b'\\'),
            Some(b'n') => out.push(b'\n'),
            Some(b'r') if cr => out.push(b'\r'),
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_then_unescape_is_identity() {
        let name = b"a\\b\nc\rd\xff";
        let mut e = Vec::new();
        escape_into(&mut e, name);
        assert_eq!(e, b"a\\\\b\\nc\\rd\xff");
        assert_eq!(unescape(&e).unwrap(), name);
        assert!(unescape(b"bad\\x").is_none());
        assert!(unescape(b"trailing\\").is_none());
    }
}
