//! Text as GNU writes it, pure functions over bytes: the quoting of names
//! in diagnostics ([`quote`], gnulib quotearg), the escaping of names in
//! checksum lines ([`escape`], coreutils digest.c), and arguments carried
//! through `String` messages without loss ([`lossless`], [`message_bytes`]).

pub mod escape;
pub mod quote;

/// First code point of the Unicode private-use block standing for a byte
/// that is not UTF-8 in an argument (U+F780..=U+F7FF for bytes 0x80..=0xFF,
/// as Python's "surrogateescape" does with surrogates, which Rust strings
/// cannot hold).
pub const RAW_BYTE_BASE: u32 = 0xF700;

/// An argument as text for messages, without loss: bytes that are not
/// UTF-8 become private-use characters that [`message_bytes`] turns back
/// into the same bytes (GNU prints arguments in its messages as bytes).
pub fn lossless(os: &std::ffi::OsStr) -> String {
    let bytes = crate::os::os_bytes(os);
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for &b in chunk.invalid() {
            out.push(char::from_u32(RAW_BYTE_BASE + u32::from(b)).expect("private-use code point"));
        }
    }
    out
}

/// The bytes a message stands for: [`lossless`]'s private-use characters
/// become their raw bytes again, everything else its UTF-8.
pub fn message_bytes(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        let u = c as u32;
        if (RAW_BYTE_BASE + 0x80..=RAW_BYTE_BASE + 0xFF).contains(&u) {
            out.push((u - RAW_BYTE_BASE) as u8);
        } else {
            let mut b = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
        }
    }
    out
}

/// `secs` seconds since the Unix epoch (negative before it) as an ISO
/// 8601 UTC time to the second, `2025-01-01T12:00:00Z` (what `date -u -d
/// @SECS +%FT%TZ` prints). The civil date from the day count is Howard
/// Hinnant's `civil_from_days` (proleptic Gregorian calendar).
pub fn utc(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3_600,
        rem / 60 % 60,
        rem % 60
    )
}

// Unix: arbitrary bytes in an OsStr (Windows has WTF-16 there).
#[cfg(all(test, unix))]
mod tests {
    #[test]
    fn arguments_that_are_not_utf8_survive_into_messages() {
        use super::*;
        use std::os::unix::ffi::OsStrExt;
        let raw = std::ffi::OsStr::from_bytes(b"-\xaa\xc3\xa9x\xff");
        let text = lossless(raw);
        assert_eq!(text.chars().count(), 5);
        assert_eq!(message_bytes(&text), raw.as_bytes());
    }
}
