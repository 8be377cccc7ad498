//! Parsing one checksum line (GNU coreutils digest.c `split_3` and
//! `bsd_split_3`): BSD tagged lines (`SHA256 (f) = hex`, OpenSSL's
//! `SHA256(f)= hex`), GNU untagged lines (`hex  f`, `hex *f`), the
//! one-space "BSD reversed" form (`hex f`, as `md5 -r` writes), escaped
//! names (leading `\`), and base64 digests (GNU 9.9+).

use crate::algo::{AlgoKind, Algorithm};
use crate::text::escape;
use base64::Engine as _;

/// A parsed checksum line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckLine {
    /// The algorithm the line uses (the first to try, when inferred).
    pub algo: Algorithm,
    /// The expected digest, decoded (hex or base64) to bytes.
    pub digest: Vec<u8>,
    /// The file name, unescaped, as bytes.
    pub name: Vec<u8>,
    /// How [`algo`](Self::algo) was decided.
    pub chosen: Chosen,
    /// For a digest whose algorithm was inferred from its length: the
    /// other algorithms it may be, to try (in one more read) when `algo`
    /// does not match; empty otherwise.
    pub alternatives: Vec<Algorithm>,
}

/// How a checksum line's algorithm was decided (`--debug`, `--json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chosen {
    /// The line's BSD tag (`SHA256 (f) = ...`) or xxhsum's `XXH3_` prefix.
    Tag,
    /// `-a`, or the personality's own algorithm.
    Given,
    /// The checksum file's name (`SHA256SUMS`, `*.md5`, ...).
    FileName,
    /// A header comment over the lines (Gentoo's `# SHA512 HASH`).
    Header,
    /// The digest's length: the most published algorithm of that length.
    Length,
    /// The digest's length, and the first guess did not match: another
    /// algorithm of that length did.
    Fallback,
    /// The checksum file's layout, which has one algorithm (SFV: CRC-32).
    Layout,
}

impl Chosen {
    /// The words `--debug` and `--json` use.
    pub fn as_str(self) -> &'static str {
        match self {
            Chosen::Tag => "tag",
            Chosen::Given => "-a",
            Chosen::FileName => "file name",
            Chosen::Header => "header",
            Chosen::Length => "length",
            Chosen::Fallback => "fallback",
            Chosen::Layout => "layout",
        }
    }
}

/// Which algorithm of each digest length a checksum file's lines proved to
/// use: the one that matched after a fallback is tried first for the rest
/// of that file's lines of that length. Shared by the line reader and the
/// workers.
#[derive(Debug, Default)]
pub struct Preferred(std::sync::Mutex<Vec<(usize, AlgoKind)>>);

impl Preferred {
    /// The algorithm preferred for digests of `len` bytes, if one matched.
    pub fn get(&self, len: usize) -> Option<AlgoKind> {
        let v = self.0.lock().ok()?;
        v.iter().find(|(l, _)| *l == len).map(|(_, k)| *k)
    }
    /// Records that `kind` matched a digest of `len` bytes.
    pub fn set(&self, len: usize, kind: AlgoKind) {
        if let Ok(mut v) = self.0.lock() {
            v.retain(|(l, _)| *l != len);
            v.push((len, kind));
        }
    }
}

/// Why a line was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// GNU's "improperly formatted checksum line".
    Malformed,
}

/// What may stand between a BSD tag and its `(` (GNU coreutils 9.1
/// `split_3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TagRule {
    /// md5sum, sha*sum: `TAG (` or `TAG(` only.
    Strict,
    /// b2sum, and cksum with `-a`: GNU overwrites the one character after
    /// the tag (its terminator), whatever it is, then allows one space:
    /// `BLAKE2b\t(f)` and even `SHA256x (f)` are accepted.
    AnyChar,
    /// cksum without `-a`: the tag ends at a blank, `-`, `(` or NUL; the
    /// blank (or NUL) is consumed and one more space may follow
    /// (`MD5  (f)`, `MD5\0(f)`).
    Blank,
}

/// Which algorithms a line may use: what the personality, `-a` and the
/// checksum file's name fix.
#[derive(Clone, Debug)]
pub struct Expect {
    /// Algorithms whose tags tagged lines may carry.
    pub tag_kinds: Vec<AlgoKind>,
    /// What may follow a tag before `(`.
    pub tag_rule: TagRule,
    /// The algorithm of untagged lines; `None`: untagged lines are
    /// rejected, unless `infer_by_length`.
    pub untagged: Option<Algorithm>,
    /// BLAKE2b untagged lines take their length from the digest (b2sum;
    /// GNU ignores `-l` there).
    pub blake2b_auto_length: bool,
    /// SHA-2/SHA-3 untagged lines take the member of `tag_kinds` (the
    /// family `cksum -a sha2|sha3` named) whose digest length is theirs:
    /// GNU 9.11's `cksum -a sha3 -l 256 -c` verifies a SHA3-224 line.
    pub family_auto_length: bool,
    /// An untagged line's algorithm may be inferred from its length, among
    /// `tag_kinds`.
    pub infer_by_length: bool,
    /// Accept base64 digests (GNU 9.9+).
    pub base64: bool,
    /// GNU's minimum untagged line length is 3 (b2sum, cksum) rather than
    /// the digest plus two: `DIGEST ` names the empty file.
    pub short_lines: bool,
    /// A tag's `-LENGTH` must begin with a digit (GNU 9.11 refuses
    /// `BLAKE2b-+256`, which 9.1's `xstrtoumax` reads).
    pub length_needs_digit: bool,
    /// GNU 9.11's reading of lines (see `CheckJob::lines_9_11`): a tag is
    /// followed by `(`, ` (` or `-LENGTH` only ([`TagRule`] then says only
    /// which tags may be read); NUL after a tagged digest is improper,
    /// after an untagged one a separator.
    pub lines_9_11: bool,
    /// GNU cksum's `valid_digits`: a digest whose hex and base64 forms
    /// have the same length (16- and 32-bit BLAKE2b: 4 and 8 characters)
    /// is read as base64 only, so `cksum -a blake2b -l 16 --untagged`'s
    /// own hex line is improperly formatted for `cksum -c`.
    pub base64_first: bool,
    /// GNU 8.32's `filename_unescape`: `\r` is no escape.
    pub lines_8_32: bool,
    /// GNU cksum 9.11's `-a sha2`: the first `SHA224`/`SHA256`/`SHA384`/
    /// `SHA512` tag read switches the run's algorithm to that one for good
    /// (src/cksum.c split_3: `cksum_algorithm = algo_tag`): later lines may
    /// carry only its tag, untagged lines are of it, and "improperly
    /// formatted" names it. `SHA2-N` tags do not switch.
    pub sha2_switch: bool,
    /// GNU 9.11's `SHA2-N`/`SHA3-N` family tags may be read: not where
    /// `cksum -a sha224|sha256|sha384|sha512` named one SHA-2 by its old
    /// name (its algorithm is then not `sha2`, so GNU's split_3 finds the
    /// tag's algorithm another one: no properly formatted lines).
    pub family_tags: bool,
    /// mhash's own face: a line tagged for an algorithm outside
    /// [`Expect::tag_kinds`] (`SHA1 (f) = ...` under `-a md5,blake3`) is
    /// improperly formatted, never read again as an untagged line (GNU
    /// cksum 9.11's `-a blake2b -c` takes `SHA1` for a base64 BLAKE2b-24
    /// digest of the file `(f) = ...`; its personalities keep that).
    pub other_tags_improper: bool,
    /// mhash's own face: a word is not a digest. Without a tag, `-a`, a
    /// header or an algorithm the checksum file's name names, a digest is
    /// inferred only at [`STANDARD_DIGEST_LENGTHS`] (never at BLAKE2b's
    /// free lengths: `exit` is no 24-bit digest); and a line that is not
    /// a checksum line leaves [`Parser::bsd_reversed`] as it was, so that
    /// a prose line never fixes the layout of the lines after it (GNU's
    /// split_3 may set it before it rejects a line; its personalities
    /// keep that).
    pub strict_inference: bool,
    /// GNU cksum 9.11 with `-a` naming a fixed-length algorithm (or `-a
    /// sha2` switched to one): a line beginning with the algorithm's tag
    /// sets the digest length of the untagged lines after it, for the rest
    /// of the run: its `-LENGTH` (`SHA512-256 (f) = ...`), else the
    /// algorithm's own (src/cksum.c split_3 sets the global
    /// `digest_length` and `digest_hex_bytes` there, and only the
    /// BLAKE2b/SHA2/SHA3 families work a length out afresh per line).
    pub carry_length: bool,
}

pub use crate::algo::STANDARD_DIGEST_LENGTHS;

/// Per-checksum-file parser state.
#[derive(Clone, Debug)]
pub struct Parser {
    /// What lines may use.
    pub expect: Expect,
    /// GNU's `bsd_reversed`: -1 unknown, 0 standard lines seen, 1 one-space
    /// lines seen; the two forms may not be mixed (GNU keeps it for the
    /// whole run, across checksum files: see [`super::Session`]).
    pub bsd_reversed: i8,
    /// The checksum file is standard input (a line may then not name `-`).
    is_stdin: bool,
    /// The base tag of the last tagged line seen (GNU cksum's
    /// `DIGEST_TYPE_STRING`, which a tag switches), if any.
    pub last_tag: Option<&'static str>,
    /// Where [`Expect::untagged`] came from (`-a`, or the file's name).
    pub untagged_by: Chosen,
    /// The algorithms that matched after a fallback, per digest length.
    pub preferred: std::sync::Arc<Preferred>,
    /// [`candidates`] per digest length, as computed for this file.
    cands: Vec<(usize, Vec<Algorithm>)>,
    /// The algorithm a tag switched `-a sha2` to ([`Expect::sha2_switch`]).
    pub switched: Option<AlgoKind>,
    /// GNU cksum's `digest_length` (in bytes) and `digest_hex_bytes` as
    /// the lines so far left them ([`Expect::carry_length`]): what an
    /// untagged line of a fixed-length algorithm is read with. The two
    /// may disagree: a tag with a bad `-LENGTH` resets the first only, a
    /// failed SHA-2 length count sets the second only. `None`: the
    /// algorithm's own length (before any line).
    pub carried_len: Option<(usize, usize)>,
}

fn is_white(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// True when `s` begins as a BSD tagged line of some algorithm mhash
/// knows: its tag (or a `SHA2`/`SHA3` family tag), an optional `-LENGTH`,
/// an optional space, then `(` ([`Expect::other_tags_improper`]).
fn tagged_for_any(s: &[u8]) -> bool {
    let mut tags = AlgoKind::ALL
        .into_iter()
        .filter_map(AlgoKind::tag)
        .chain(["SHA2", "SHA3"]);
    tags.any(|tag| {
        let Some(rest) = s.strip_prefix(tag.as_bytes()) else {
            return false;
        };
        let rest = match rest.strip_prefix(b"-") {
            Some(r) => {
                let digits = r.iter().take_while(|b| b.is_ascii_digit()).count();
                if digits == 0 {
                    return false;
                }
                &r[digits..]
            }
            None => rest,
        };
        let rest = rest.strip_prefix(b" ").unwrap_or(rest);
        rest.first() == Some(&b'(')
    })
}

/// Decodes exactly `len` bytes from `text`: hex (either case) of `2*len`
/// digits, or (when allowed) padded base64 of `4*ceil(len/3)` characters
/// (`base64_first`: base64 only, where the two lengths are equal).
fn decode_digest(text: &[u8], len: usize, base64: bool, base64_first: bool) -> Option<Vec<u8>> {
    let base64_only = base64 && base64_first && 2 * len == len.div_ceil(3) * 4;
    if !base64_only && text.len() == 2 * len && text.iter().all(u8::is_ascii_hexdigit) {
        return hex::decode(text).ok();
    }
    if base64 && text.len() == len.div_ceil(3) * 4 {
        // Non-canonical trailing bits (`...ch==` for `...cg==`) decode:
        // GNU 9.11 then reports a mismatch, not a format error.
        let d = lenient_base64().decode(text).ok()?;
        if d.len() == len && base64::engine::general_purpose::STANDARD.encode(&d).as_bytes() != text {
            // GNU compares the text: no digest matches a non-canonical
            // one. An empty digest matches nothing (`Listed::judge`), also
            // where only a leading part is compared (`SHA384-8 (f) = yz==`).
            return Some(Vec::new());
        }
        if d.len() == len {
            return Some(d);
        }
    }
    None
}

/// True when a token of `n` characters may be a standard digest
/// ([`STANDARD_DIGEST_LENGTHS`]) in hex or in padded base64.
fn standard_token_len(n: usize) -> bool {
    STANDARD_DIGEST_LENGTHS
        .iter()
        .any(|&len| n == 2 * len || n == len.div_ceil(3) * 4)
}

/// Standard base64 that decodes a last character with non-zero padding
/// bits (GNU reads the characters, not the bits).
fn lenient_base64() -> base64::engine::GeneralPurpose {
    base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
    )
}

/// The runs GNU cksum 9.11's split_3 counts at the start of an untagged
/// line's digest `tok`: hex digits; those and the base64 characters after
/// them; the `=` after those.
fn token_runs(tok: &[u8]) -> (usize, usize, usize) {
    let hex = tok.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let b64 = hex
        + tok[hex..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/'))
            .count();
    let equals = tok[b64..].iter().take_while(|&&b| b == b'=').count();
    (hex, b64, equals)
}

/// GNU cksum 9.11's BLAKE2b digest length, in bytes, for an untagged
/// line's digest `tok` (src/cksum.c split_3, "Auto determine length"): the
/// run of hex digits it begins with, unless base64 characters that are
/// not hex digits follow, when the base64 length whose padding matches the
/// trailing `=` run; `None` outside 1..=64 bytes. So a base64 digest made
/// of hex digits only (`CFc=`) is read as hex, and is improperly formatted.
fn gnu_blake2b_len(tok: &[u8]) -> Option<usize> {
    let (hex, b64, equals) = token_runs(tok);
    let mut digits = hex;
    if hex < b64
        && let Some(n) = (1..=64usize).find(|n| n.div_ceil(3) * 4 == b64 + equals && (8 * n) % 3 == equals)
    {
        digits = 2 * n;
    }
    (digits >= 2 && digits.is_multiple_of(2) && digits <= 128).then_some(digits / 2)
}

/// GNU cksum 9.11's count of an untagged line's digest under `-a sha2`
/// (src/cksum.c split_3): the hex digits it begins with, unless their half
/// is no SHA-2 length, when the hex length of the SHA-2 digest whose
/// base64 length the base64 characters and `=` make; and whether that
/// count is a digest length (GNU sets `digest_hex_bytes` either way).
fn gnu_sha2_count(tok: &[u8]) -> (usize, bool) {
    let (hex, b64, equals) = token_runs(tok);
    let mut digits = hex;
    if ![28, 32, 48, 64].contains(&(hex / 2)) {
        match [28usize, 32, 48, 64]
            .into_iter()
            .find(|n| n.div_ceil(3) * 4 == b64 + equals)
        {
            Some(n) => digits = 2 * n,
            None => return (hex, false),
        }
    }
    (digits, (2..=128).contains(&digits) && digits.is_multiple_of(2))
}

/// An untagged digest read as GNU cksum 9.11 reads it with the lengths
/// earlier lines left (`valid_digits`, then `b64_equal` or `hex_equal`):
/// base64 of `bytes` bytes where its length is that, else `hex` hex
/// digits, of which the first `hex / 2` bytes are compared.
fn gnu_carried_digest(tok: &[u8], bytes: usize, hex: usize) -> Option<Vec<u8>> {
    if tok.len() == bytes.div_ceil(3) * 4 {
        return decode_digest(tok, bytes, true, true);
    }
    if tok.len() == hex && tok.iter().all(u8::is_ascii_hexdigit) {
        return hex::decode(&tok[..hex / 2 * 2]).ok();
    }
    None
}

/// The cryptographic algorithms whose natural digest is `len` bytes long,
/// the most published first (the table's `publish_rank`: 32 bytes are
/// sha256, blake3, sha3-256, sm3). Non-cryptographic ones (xxHash, the
/// CRCs) are never inferred from a bare digest: they come from a tag,
/// `XXH3_`, `-a` or the file's name.
pub fn by_length(len: usize) -> Vec<Algorithm> {
    let mut kinds: Vec<AlgoKind> = AlgoKind::ALL
        .into_iter()
        .filter(|k| k.is_cryptographic() && k.max_bits() as usize / 8 == len)
        .collect();
    kinds.sort_by_key(|k| k.info().publish_rank);
    kinds.into_iter().map(Algorithm::new).collect()
}

/// [`by_length`] among `allowed`, then the variable-length algorithms at
/// that length (BLAKE2b up to 512 bits, BLAKE3's XOF), as `b2sum -l` and
/// `b3sum -l` write them untagged.
pub fn candidates(len: usize, allowed: &[AlgoKind]) -> Vec<Algorithm> {
    let mut c = by_length(len);
    c.retain(|a| allowed.contains(&a.kind));
    if len > 0 && len < 64 && allowed.contains(&AlgoKind::Blake2b) {
        c.push(Algorithm::blake2b(len as u32 * 8));
    }
    if len > 0 && len != 32 && allowed.contains(&AlgoKind::Blake3) {
        c.push(Algorithm::blake3(len as u64));
    }
    c
}

/// The bytes before the first NUL: GNU handles the parts of a line as C
/// strings, so a NUL ends a name or a digest.
fn c_str(b: &[u8]) -> &[u8] {
    match b.iter().position(|&c| c == 0) {
        Some(n) => &b[..n],
        None => b,
    }
}

/// A file name from a line: cut at NUL; unescaped when the line began with
/// `\` (then a NUL inside, or a bad escape, rejects the line).
fn c_name(raw: &[u8], escaped: bool, cr: bool) -> Result<Vec<u8>, LineError> {
    if escaped {
        if raw.contains(&0) {
            return Err(LineError::Malformed);
        }
        escape::unescape_cr(raw, cr).ok_or(LineError::Malformed)
    } else {
        Ok(c_str(raw).to_vec())
    }
}

/// C's `strtoumax (s, &end, 0)` as gnulib's `xstrtoumax` uses it: leading
/// white space, an optional `+` (a `-` is rejected), then `0x` hex, `0`
/// octal or decimal digits. Returns the value and the bytes consumed;
/// `None` without digits or on overflow.
pub fn strtoumax_base0(s: &[u8]) -> Option<(u64, usize)> {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    match s.get(i) {
        Some(b'-') => return None,
        Some(b'+') => i += 1,
        _ => {}
    }
    let (radix, start) = if s.get(i) == Some(&b'0')
        && matches!(s.get(i + 1), Some(b'x' | b'X'))
        && s.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
    {
        (16, i + 2)
    } else if s.get(i) == Some(&b'0') {
        (8, i)
    } else {
        (10, i)
    };
    let mut end = start;
    let mut v: u64 = 0;
    while let Some(d) = s.get(end).and_then(|&c| (c as char).to_digit(radix)) {
        v = v.checked_mul(radix as u64)?.checked_add(d as u64)?;
        end += 1;
    }
    if end == start {
        return None;
    }
    Some((v, end))
}

impl Parser {
    /// A parser for one checksum file.
    pub fn new(expect: Expect, is_stdin: bool) -> Parser {
        Parser {
            expect,
            bsd_reversed: -1,
            is_stdin,
            last_tag: None,
            untagged_by: Chosen::Given,
            preferred: Default::default(),
            cands: Vec::new(),
            switched: None,
            carried_len: None,
        }
    }

    /// Parses one line (without its LF/CRLF ending).
    ///
    /// # Errors
    /// [`LineError::Malformed`] where GNU would say "improperly formatted".
    pub fn parse(&mut self, line: &[u8]) -> Result<CheckLine, LineError> {
        let layout = self.bsd_reversed;
        let parsed = self.split(line).and_then(|parsed| {
            if self.is_stdin && parsed.name == b"-" {
                return Err(LineError::Malformed);
            }
            Ok(parsed)
        });
        if parsed.is_err() && self.expect.strict_inference {
            self.bsd_reversed = layout;
        }
        parsed
    }

    /// [`candidates`] for digests of `len` bytes among the expected
    /// algorithms, computed once per length.
    fn candidates(&mut self, len: usize) -> Vec<Algorithm> {
        if let Some((_, c)) = self.cands.iter().find(|(l, _)| *l == len) {
            return c.clone();
        }
        let c = candidates(len, &self.expect.tag_kinds);
        self.cands.push((len, c.clone()));
        c
    }

    /// The digest length in bytes an untagged line's token `tok` gives:
    /// half its digits where it is all hex (`all_hex`) and of even length,
    /// else, where base64 is accepted, its decoded length.
    fn token_len(&self, tok: &[u8], all_hex: bool) -> Option<usize> {
        if all_hex && tok.len().is_multiple_of(2) {
            Some(tok.len() / 2)
        } else if self.expect.base64 {
            // GNU counts characters: non-zero padding bits (`...SIF=` for
            // `...SIE=`) still make a digest, which then fails to match.
            lenient_base64().decode(tok).ok().map(|d| d.len())
        } else {
            None
        }
    }

    fn split(&mut self, s: &[u8]) -> Result<CheckLine, LineError> {
        let mut i = 0;
        while i < s.len() && is_white(s[i]) {
            i += 1;
        }
        let escaped = s.get(i) == Some(&b'\\');
        if escaped {
            i += 1;
        }
        // Every tag begins with a capital letter: other lines skip the
        // tag search (`every_tag_begins_with_a_capital`).
        let may_tag = s.get(i).is_some_and(u8::is_ascii_uppercase);
        // GNU 9.11's family tags: `SHA2-256 (f)`, `SHA3-0x100 (f)` (the
        // length in C syntax), bare `SHA2 (f)`/`SHA3 (f)` for 512 bits.
        if self.expect.tag_rule != TagRule::Strict
            && self.expect.family_tags
            && self.expect.length_needs_digit
            && self.switched.is_none()
            && may_tag
            && let Some(r) = self.family_tag(s, i, escaped)
        {
            return r;
        }
        // BSD tagged line?
        let kinds = if may_tag {
            self.expect.tag_kinds.clone()
        } else {
            Vec::new()
        };
        for kind in kinds {
            let tag = kind.tag().unwrap_or_default();
            if !s[i..].starts_with(tag.as_bytes()) {
                continue;
            }
            let mut j = i + tag.len();
            let next = s.get(j).copied();
            // `XXH3_...  NAME` is xxhsum's untagged XXH3 line, not a tag.
            if kind
                .info()
                .hex_prefix
                .is_some_and(|p| s[i..].starts_with(p.as_bytes()))
            {
                continue;
            }
            // GNU's algorithm_from_tag ends the tag at a blank, `-`, `(`
            // or the end of the C string: a NUL after the tag counts.
            if self.expect.lines_9_11 && self.expect.tag_rule != TagRule::Strict {
                // 9.11: `TAG (`, `TAG(` or `TAG-N`; anything else is read
                // as an untagged line (`MD5\t(f)`, `MD5x (f)`, `MD5\0(f)`
                // are improperly formatted).
                if !matches!(next, Some(b' ' | b'-' | b'(')) {
                    // algorithm_from_tag took the tag all the same (a tab,
                    // a NUL or the line's end ends it too), so without `-a`
                    // the "improperly formatted" message names it.
                    if matches!(next, None | Some(b'\t' | 0)) && self.expect.untagged.is_none() {
                        self.last_tag = Some(tag);
                    }
                    continue;
                }
            } else if self.expect.tag_rule != TagRule::AnyChar
                && !matches!(next, Some(b' ' | b'\t' | b'-' | b'('))
                && !(self.expect.tag_rule == TagRule::Blank && next == Some(0))
            {
                continue;
            }
            // GNU: any line beginning with the tag resets the length to
            // the algorithm's (a `-LENGTH` below sets it).
            let full = Algorithm::new(kind).digest_len();
            if self.expect.carry_length && kind.info().tag_takes_length {
                // Before any line: `-l`'s length, or the algorithm's (512
                // bits for `-a sha2`).
                let first = self.expect.untagged.map_or(128, |a| 2 * a.digest_len());
                let hex = self.carried_len.map_or(first, |(_, hex)| hex);
                self.carried_len = Some((full, hex));
            }
            let prev_tag = self.last_tag;
            self.last_tag = Some(tag);
            if self.expect.sha2_switch
                && self.switched.is_none()
                && kind.info().family == Some(crate::algo::Family::Sha2)
            {
                self.switch_to(kind);
            }
            let mut algo = Algorithm::new(kind);
            // The digest's length in bytes: the algorithm's, or a shorter
            // one a fixed-length tag names (below).
            let mut digest_len = None;
            if self.expect.carry_length && kind.info().tag_takes_length && next != Some(b'-') {
                self.carried_len = Some((full, 2 * full));
            }
            if kind.info().tag_takes_length && self.expect.tag_rule != TagRule::Strict && next == Some(b'-') {
                // GNU cksum's split_3 reads a length after any tag and
                // takes it for any algorithm (9.1: `0 < length && length <=
                // digest_length && length % 8 == 0`; 9.11 the same, with a
                // digit first): `MD5-128 (f) = ...`, `SHA1-80 (f) = <20
                // hex>`, comparing that many leading bytes (hex_equal).
                if self.expect.length_needs_digit && !s.get(j + 1).is_some_and(u8::is_ascii_digit) {
                    return Err(LineError::Malformed);
                }
                let (bits, used) = strtoumax_base0(&s[j + 1..]).ok_or(LineError::Malformed)?;
                if bits == 0 || bits > algo.digest_len() as u64 * 8 || !bits.is_multiple_of(8) {
                    return Err(LineError::Malformed);
                }
                digest_len = Some(bits as usize / 8);
                if self.expect.carry_length {
                    self.carried_len = Some((bits as usize / 8, bits as usize / 4));
                }
                j += 1 + used;
            } else if kind.variable_length() && next == Some(b'-') {
                // GNU: xstrtoumax (s + i, &end, 0, ...): C syntax, any base;
                // 9.11 wants a digit first (`BLAKE2b-+256` is refused).
                if self.expect.length_needs_digit && !s.get(j + 1).is_some_and(u8::is_ascii_digit) {
                    return Err(LineError::Malformed);
                }
                let (bits, used) = strtoumax_base0(&s[j + 1..]).ok_or(LineError::Malformed)?;
                let max = if kind == AlgoKind::Blake3 {
                    crate::algo::BLAKE3_MAX_BYTES * 8
                } else {
                    512
                };
                if bits == 0 || bits > max || !bits.is_multiple_of(8) {
                    return Err(LineError::Malformed);
                }
                algo = if kind == AlgoKind::Blake3 {
                    Algorithm::blake3(bits / 8)
                } else {
                    Algorithm::blake2b(bits as u32)
                };
                j += 1 + used;
            } else if next != Some(b'(')
                && !self.expect.lines_9_11
                && (self.expect.tag_rule == TagRule::AnyChar
                    || (self.expect.tag_rule == TagRule::Blank && matches!(next, Some(b' ' | b'\t' | 0))))
            {
                j += 1;
            }
            if s.get(j) == Some(&b' ') {
                j += 1;
            }
            if s.get(j) != Some(&b'(') {
                // Not a tagged line after all: a digest may begin like a
                // tag (`SHA15nZWgkw2wfwzCylrK3Ql7BI=  f` under `-a sha1`),
                // GNU 9.11 reads it as an untagged line.
                if self.expect.untagged.is_some() && next != Some(b'-') {
                    // (A tag that switched `-a sha2` stays switched, as in GNU.)
                    if self.switched.is_none() {
                        self.last_tag = prev_tag;
                    }
                    return self.untagged(s, i, escaped);
                }
                return Err(LineError::Malformed);
            }
            return self.bsd_split(&s[j + 1..], algo, digest_len, escaped);
        }
        if self.expect.other_tags_improper && may_tag && tagged_for_any(&s[i..]) {
            return Err(LineError::Malformed);
        }
        self.untagged(s, i, escaped)
    }

    /// Switches `-a sha2` to `kind` for the rest of the run
    /// ([`Expect::sha2_switch`]).
    pub fn switch_to(&mut self, kind: AlgoKind) {
        self.switched = Some(kind);
        self.expect.tag_kinds = vec![kind];
        self.expect.untagged = Some(Algorithm::new(kind));
        self.expect.infer_by_length = false;
        // GNU's algorithm is no longer the family: no length is worked
        // out per line any more.
        self.expect.family_auto_length = false;
        self.cands.clear();
        self.last_tag = kind.tag();
    }

    /// A `SHA2`/`SHA3` family tag at `s[i..]`, if the line has one whose
    /// member the expectations allow: the parsed line, or why not.
    fn family_tag(&mut self, s: &[u8], i: usize, escaped: bool) -> Option<Result<CheckLine, LineError>> {
        use AlgoKind::*;
        for (fam, members) in [
            (
                &b"SHA2"[..],
                [(224, Sha224), (256, Sha256), (384, Sha384), (512, Sha512)],
            ),
            (
                &b"SHA3"[..],
                [(224, Sha3_224), (256, Sha3_256), (384, Sha3_384), (512, Sha3_512)],
            ),
        ] {
            if !s[i..].starts_with(fam) || !members.iter().any(|(_, k)| self.expect.tag_kinds.contains(k)) {
                continue;
            }
            let mut j = i + fam.len();
            // GNU's algorithm_from_tag ends a tag at a blank, `-`, `(` or
            // the line's end, and split_3 makes the family its algorithm
            // before the length or the rest is checked: a malformed
            // `SHA3-255 (f)` is an "improperly formatted SHA3 checksum
            // line", as are the lines after it until another tag.
            if matches!(s.get(j), None | Some(b' ' | b'\t' | b'-' | b'(' | 0)) {
                self.last_tag = Some(if fam == b"SHA2" { "SHA2" } else { "SHA3" });
            }
            let bits = match s.get(j) {
                Some(b'-') => {
                    if !s.get(j + 1).is_some_and(u8::is_ascii_digit) {
                        return Some(Err(LineError::Malformed));
                    }
                    let Some((bits, used)) = strtoumax_base0(&s[j + 1..]) else {
                        return Some(Err(LineError::Malformed));
                    };
                    j += 1 + used;
                    bits
                }
                Some(b' ' | b'(') => 512,
                _ => continue,
            };
            let Some(&(_, kind)) = members.iter().find(|(b, _)| *b == bits) else {
                return Some(Err(LineError::Malformed));
            };
            if !self.expect.tag_kinds.contains(&kind) {
                return Some(Err(LineError::Malformed));
            }
            if s.get(j) == Some(&b' ') {
                j += 1;
            }
            if s.get(j) != Some(&b'(') {
                return Some(Err(LineError::Malformed));
            }
            return Some(self.bsd_split(&s[j + 1..], Algorithm::new(kind), None, escaped));
        }
        None
    }

    /// `NAME) = DIGEST`, the name running to the last `)`; the digest
    /// `digest_len` bytes long where the tag truncated it, else `algo`'s.
    fn bsd_split(
        &self,
        s: &[u8],
        algo: Algorithm,
        digest_len: Option<usize>,
        escaped: bool,
    ) -> Result<CheckLine, LineError> {
        let close = s.iter().rposition(|&b| b == b')').ok_or(LineError::Malformed)?;
        let name = c_name(&s[..close], escaped, !self.expect.lines_8_32)?;
        let mut i = close + 1;
        while i < s.len() && is_white(s[i]) {
            i += 1;
        }
        if s.get(i) != Some(&b'=') {
            return Err(LineError::Malformed);
        }
        i += 1;
        while i < s.len() && is_white(s[i]) {
            i += 1;
        }
        // GNU reads the digest as a C string: a NUL ends it (`... = HEX\0`).
        // GNU 9.1 read the digest as a C string (`... = HEX\0` ended at
        // the NUL); 9.11 reads to the end of the line.
        let text = if self.expect.lines_9_11 {
            &s[i..]
        } else {
            c_str(&s[i..])
        };
        let len = digest_len.unwrap_or(algo.digest_len());
        let digest = decode_digest(text, len, self.expect.base64, self.expect.base64_first)
            .ok_or(LineError::Malformed)?;
        Ok(CheckLine {
            algo,
            digest,
            name,
            chosen: Chosen::Tag,
            alternatives: Vec::new(),
        })
    }

    fn untagged(&mut self, s: &[u8], start: usize, escaped: bool) -> Result<CheckLine, LineError> {
        let mut rest = &s[start..];
        // xxhsum writes XXH3 digests as `XXH3_` and 16 hex digits (the
        // table's `hex_prefix`).
        if let Some((kind, after)) = self.expect.tag_kinds.iter().find_map(|&k| {
            let p = k.info().hex_prefix?;
            rest.strip_prefix(p.as_bytes()).map(|after| (k, after))
        }) && (matches!(self.untagged_by, Chosen::FileName | Chosen::Header)
            || self.expect.untagged.is_none_or(|a| a.kind == kind))
        {
            rest = after;
            let tok_len = rest
                .iter()
                .position(|&b| is_white(b))
                .ok_or(LineError::Malformed)?;
            let algo = Algorithm::new(kind);
            let digest = decode_digest(&rest[..tok_len], algo.digest_len(), false, false)
                .ok_or(LineError::Malformed)?;
            let mut i = tok_len + 1;
            if matches!(rest.get(i), Some(b' ' | b'*')) {
                i += 1;
            }
            let name = c_name(&rest[i..], escaped, !self.expect.lines_8_32)?;
            return Ok(CheckLine {
                algo,
                digest,
                name,
                chosen: Chosen::Tag,
                alternatives: Vec::new(),
            });
        }
        // The digest token runs to the first blank (GNU 9.11: or NUL,
        // which then separates it from the name as a blank does).
        let tok_len = if self.expect.lines_9_11 {
            memchr::memchr3(b' ', b'\t', 0, rest)
        } else {
            memchr::memchr2(b' ', b'\t', rest)
        }
        .ok_or(LineError::Malformed)?;
        let tok = &rest[..tok_len];
        let hex_run = tok.iter().take_while(|b| b.is_ascii_hexdigit()).count();
        let mut alternatives = Vec::new();
        let mut chosen = self.untagged_by;
        // GNU's lengths as earlier lines left them ([`Expect::carry_length`]).
        let mut carried = None;
        if self.expect.carry_length && self.expect.sha2_switch && self.switched.is_none() {
            // `-a sha2` counts each untagged line's digest; the count stays
            // even where the line is then refused.
            let (hex, ok) = gnu_sha2_count(tok);
            let bytes = match (ok, self.carried_len) {
                (true, _) => hex / 2,
                (false, Some((bytes, _))) => bytes,
                (false, None) => self.expect.untagged.map_or(64, |a| a.digest_len()),
            };
            self.carried_len = Some((bytes, hex));
        }
        // An algorithm the checksum file's name (or a header) names is
        // the algorithm of its untagged lines: a digest it cannot give is
        // an improperly formatted line, never another algorithm's by its
        // length (`SHA256SUMS` holding `c8  rel.tar` is no BLAKE2b-8 list).
        let algo = match self.expect.untagged {
            Some(a)
                if a.kind == AlgoKind::Blake2b
                    && self.expect.blake2b_auto_length
                    && self.expect.base64
                    && self.expect.lines_9_11 =>
            {
                Algorithm::blake2b(gnu_blake2b_len(tok).ok_or(LineError::Malformed)? as u32 * 8)
            }
            Some(a) if a.kind == AlgoKind::Blake2b && self.expect.blake2b_auto_length => {
                if hex_run == tok_len && hex_run >= 2 && hex_run % 2 == 0 && hex_run <= 128 {
                    Algorithm::blake2b(hex_run as u32 * 4)
                } else if self.expect.base64
                    && let Ok(d) = base64::engine::general_purpose::STANDARD.decode(tok)
                    && (1..=64).contains(&d.len())
                {
                    // A base64 digest: its length is the digest's (GNU 9.11).
                    Algorithm::blake2b(d.len() as u32 * 8)
                } else {
                    a
                }
            }
            // The family member of the digest's length (a SHA-2 or SHA-3
            // length names one member only).
            Some(a) if self.expect.family_auto_length => match self.token_len(tok, hex_run == tok_len) {
                Some(n) => self.candidates(n).first().copied().unwrap_or(a),
                None => a,
            },
            Some(a) => {
                if self.expect.carry_length {
                    carried = Some(self.carried_len.unwrap_or((a.digest_len(), 2 * a.digest_len())));
                }
                a
            }
            None if self.expect.infer_by_length => {
                // A token of no standard digest's length is refused before
                // it is decoded (a disk image is a million such lines).
                if self.expect.strict_inference && !standard_token_len(tok.len()) {
                    return Err(LineError::Malformed);
                }
                let len = self
                    .token_len(tok, hex_run == tok_len)
                    .ok_or(LineError::Malformed)?;
                if self.expect.strict_inference && !STANDARD_DIGEST_LENGTHS.contains(&len) {
                    return Err(LineError::Malformed);
                }
                let mut c = self.candidates(len);
                // What matched this file's earlier lines of this length first.
                if let Some(k) = self.preferred.get(len)
                    && let Some(at) = c.iter().position(|a| a.kind == k)
                {
                    let a = c.remove(at);
                    c.insert(0, a);
                }
                if c.is_empty() {
                    return Err(LineError::Malformed);
                }
                alternatives = c.split_off(1);
                chosen = Chosen::Length;
                c[0]
            }
            None => return Err(LineError::Malformed),
        };
        // GNU: the line must be long enough for digest, blank and a name
        // (3 bytes at least for b2sum and cksum).
        let min = if self.expect.short_lines { 3 } else { tok_len + 2 };
        if rest.len() < min {
            return Err(LineError::Malformed);
        }
        let digest = match carried {
            Some((bytes, hex)) => gnu_carried_digest(tok, bytes, hex),
            None => decode_digest(
                tok,
                algo.digest_len(),
                self.expect.base64,
                self.expect.base64_first,
            ),
        }
        .ok_or(LineError::Malformed)?;
        let mut i = tok_len + 1; // past the blank
        let reversed = rest.len() - i == 1 || (rest.get(i) != Some(&b' ') && rest.get(i) != Some(&b'*'));
        if reversed {
            if self.bsd_reversed == 0 {
                return Err(LineError::Malformed);
            }
            self.bsd_reversed = 1;
        } else if self.bsd_reversed != 1 {
            self.bsd_reversed = 0;
            i += 1;
        }
        let name = c_name(&rest[i..], escaped, !self.expect.lines_8_32)?;
        Ok(CheckLine {
            algo,
            digest,
            name,
            chosen,
            alternatives,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// mhash -c without -a: every tag, inference by length.
    fn native_parser() -> Parser {
        Parser::new(
            Expect {
                tag_kinds: AlgoKind::ALL.into_iter().filter(|k| k.tag().is_some()).collect(),
                tag_rule: TagRule::Blank,
                untagged: None,
                blake2b_auto_length: true,
                family_auto_length: false,
                infer_by_length: true,
                base64: true,
                short_lines: true,
                length_needs_digit: true,
                family_tags: true,
                other_tags_improper: false,
                strict_inference: true,
                carry_length: false,
                lines_9_11: false,
                base64_first: false,
                lines_8_32: false,
                sha2_switch: false,
            },
            false,
        )
    }

    #[test]
    fn xxhash_and_blake3_lines_are_read_and_odd_ones_rejected_without_panic() {
        let mut p = native_parser();
        let l = p.parse(b"XXH3_78af5f94892f3950  abc").unwrap();
        assert_eq!((l.algo.kind, &l.name[..]), (AlgoKind::Xxh3, &b"abc"[..]));
        let l = p
            .parse(b"XXH128 (abc) = 06b05ab6733a618578af5f94892f3950")
            .unwrap();
        assert_eq!(l.algo.kind, AlgoKind::Xxh128);
        let l = p
            .parse(
                b"BLAKE3-512 (f) = "
                    .iter()
                    .copied()
                    .chain([b'a'; 128])
                    .collect::<Vec<_>>()
                    .as_slice(),
            )
            .unwrap();
        assert_eq!(l.algo, Algorithm::blake3(64));
        for bad in [
            &b"XXH3_"[..],
            b"XXH3_ ",
            b"XXH3_78af5f94892f3950",
            b"XXH3_78af5f94892f395  abc",
            b"XXH3_78af5f94892f3950zz  abc",
            b"XXH3__78af5f94892f3950  abc",
            b"BLAKE3-0 (f) = 00",
            b"BLAKE3-7 (f) = 00",
            b"BLAKE3-99999999999999999999 (f) = 00",
            b"BLAKE3-8 (f) = 0",
            b"BLAKE3 (f) = ",
            b"XXH128 (f) = 06b0",
            b"\\XXH3_78af5f94892f3950  a\\",
        ] {
            let _ = p.parse(bad);
        }
        assert!(p.parse(b"XXH3_78af5f94892f3950").is_err());
        assert!(p.parse(b"BLAKE3-0 (f) = 00").is_err());
    }

    fn sha256_parser() -> Parser {
        Parser::new(
            Expect {
                tag_kinds: vec![AlgoKind::Sha256],
                tag_rule: TagRule::Strict,
                untagged: Some(Algorithm::new(AlgoKind::Sha256)),
                blake2b_auto_length: false,
                family_auto_length: false,
                infer_by_length: false,
                base64: true,
                short_lines: false,
                length_needs_digit: true,
                family_tags: true,
                other_tags_improper: false,
                strict_inference: false,
                carry_length: false,
                lines_9_11: false,
                base64_first: false,
                lines_8_32: false,
                sha2_switch: false,
            },
            false,
        )
    }

    #[test]
    fn blake2b_length_is_read_as_c_does() {
        assert_eq!(strtoumax_base0(b"128 ("), Some((128, 3)));
        assert_eq!(strtoumax_base0(b"0x10 ("), Some((16, 4)));
        assert_eq!(strtoumax_base0(b"010"), Some((8, 3)));
        assert_eq!(strtoumax_base0(b"08"), Some((0, 1)));
        assert_eq!(strtoumax_base0(b" +8"), Some((8, 3)));
        assert_eq!(strtoumax_base0(b"-8"), None);
        assert_eq!(strtoumax_base0(b"x"), None);
    }
    const H: &str = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";

    #[test]
    fn standard_binary_tagged_and_openssl_lines() {
        let mut p = sha256_parser();
        let l = p.parse(format!("{H}  a.txt").as_bytes()).unwrap();
        assert_eq!(l.name, b"a.txt");
        assert_eq!(hex::encode(&l.digest), H);
        assert_eq!(p.parse(format!("{H} *b c").as_bytes()).unwrap().name, b"b c");
        assert_eq!(
            p.parse(format!("SHA256 (x) y) = {H}").as_bytes()).unwrap().name,
            b"x) y"
        );
        assert_eq!(p.parse(format!("SHA256(f)= {H}").as_bytes()).unwrap().name, b"f");
        assert_eq!(
            p.parse(format!("\\{H}  a\\\\b\\nc").as_bytes()).unwrap().name,
            b"a\\b\nc"
        );
    }

    #[test]
    fn malformed_lines_are_rejected() {
        let mut p = sha256_parser();
        assert_eq!(p.parse(H.as_bytes()), Err(LineError::Malformed));
        assert_eq!(
            p.parse(format!("{}  f", &H[..62]).as_bytes()),
            Err(LineError::Malformed)
        );
        assert_eq!(
            p.parse(format!("MD5 (f) = {}", &H[..32]).as_bytes()),
            Err(LineError::Malformed)
        );
        assert_eq!(
            p.parse(format!("\\{H}  bad\\x").as_bytes()),
            Err(LineError::Malformed)
        );
    }

    #[test]
    fn cksum_tags_may_end_at_nul() {
        // GNU 9.1 `cksum -c` (no -a) reads `MD5\0(f) = ...` and
        // `MD5\0 (f) = ...`: its tag scan stops at the NUL, which the BSD
        // parse then overwrites as the tag's terminator.
        let md5 = "d41d8cd98f00b204e9800998ecf8427e";
        let mut p = Parser::new(
            Expect {
                tag_kinds: vec![AlgoKind::Md5, AlgoKind::Sha256],
                tag_rule: TagRule::Blank,
                untagged: None,
                blake2b_auto_length: true,
                family_auto_length: false,
                infer_by_length: false,
                base64: false,
                short_lines: true,
                length_needs_digit: true,
                family_tags: true,
                other_tags_improper: false,
                strict_inference: false,
                carry_length: false,
                lines_9_11: false,
                base64_first: false,
                lines_8_32: false,
                sha2_switch: false,
            },
            false,
        );
        for sep in ["\0", "\0 "] {
            let l = p.parse(format!("MD5{sep}(f) = {md5}").as_bytes()).unwrap();
            assert_eq!((l.algo.kind, &l.name[..]), (AlgoKind::Md5, &b"f"[..]));
        }
        assert_eq!(
            p.parse(format!("MD5\0\0(f) = {md5}").as_bytes()),
            Err(LineError::Malformed)
        );
        // md5sum's strict rule still rejects it.
        let mut q = sha256_parser();
        assert!(q.parse(format!("SHA256\0(f) = {H}").as_bytes()).is_err());
    }

    #[test]
    fn one_space_lines_fix_the_format_for_the_file() {
        let mut p = sha256_parser();
        assert_eq!(p.parse(format!("{H} x1").as_bytes()).unwrap().name, b"x1");
        assert_eq!(p.parse(format!("{H}  lead").as_bytes()).unwrap().name, b" lead");
        let mut q = sha256_parser();
        q.parse(format!("{H}  std").as_bytes()).unwrap();
        assert_eq!(q.parse(format!("{H} rev").as_bytes()), Err(LineError::Malformed));
    }

    #[test]
    fn words_are_not_digests_and_do_not_fix_the_layout() {
        let mut p = native_parser();
        // `exit` is base64 of 3 bytes, `12` hex of 1: no standard length.
        for word in [
            &b"exit code"[..],
            b"12 apples",
            b"note this line",
            b"tail +13 CHECKSUMS.md5",
        ] {
            assert_eq!(
                p.parse(word),
                Err(LineError::Malformed),
                "{}",
                word.escape_ascii()
            );
        }
        assert_eq!(p.bsd_reversed, -1);
        // The two-space line after them is read as GNU reads it.
        let l = p.parse(format!("{H}  x").as_bytes()).unwrap();
        assert_eq!((l.name.as_slice(), l.chosen), (&b"x"[..], Chosen::Length));
        // Each standard length, in hex and in base64, is inferred.
        for len in STANDARD_DIGEST_LENGTHS {
            let d = vec![0x5a; len];
            let b64 = base64::engine::general_purpose::STANDARD.encode(&d);
            for tok in [hex::encode(&d), b64] {
                let mut p = native_parser();
                assert_eq!(p.parse(format!("{tok}  f").as_bytes()).unwrap().digest, d);
            }
        }
        // BLAKE2b's free lengths are not.
        for len in [1, 2, 3, 8, 24, 40, 63] {
            let mut p = native_parser();
            let line = format!("{}  f", hex::encode(vec![0x5a; len]));
            assert_eq!(p.parse(line.as_bytes()), Err(LineError::Malformed), "{len}");
        }
    }

    #[test]
    fn a_named_algorithm_never_gives_way_to_another_by_length() {
        let mut p = native_parser();
        p.expect.untagged = Some(Algorithm::new(AlgoKind::Sha256));
        p.untagged_by = Chosen::FileName;
        for x in [0u8, 0xc8, 0xff] {
            assert_eq!(
                p.parse(format!("{x:02x}  rel.tar").as_bytes()),
                Err(LineError::Malformed)
            );
        }
        let md5 = "d41d8cd98f00b204e9800998ecf8427e";
        assert_eq!(p.parse(format!("{md5}  f").as_bytes()), Err(LineError::Malformed));
        let l = p.parse(format!("{H}  f").as_bytes()).unwrap();
        assert_eq!(
            (l.algo.kind, l.chosen, l.alternatives.len()),
            (AlgoKind::Sha256, Chosen::FileName, 0)
        );
        // A tag still names its own algorithm.
        assert_eq!(
            p.parse(format!("MD5 (f) = {md5}").as_bytes()).unwrap().algo.kind,
            AlgoKind::Md5
        );
    }

    #[test]
    fn gnu_counts_base64_characters_not_bits() {
        // Hex digits only, even with `=`: hex (`CFc=` is 3 digits: none).
        assert_eq!(gnu_blake2b_len(b"CFc="), None);
        assert_eq!(gnu_blake2b_len(b"ab=="), Some(1));
        assert_eq!(gnu_blake2b_len(b"abcd"), Some(2));
        // Base64 with a letter past `f`: its length, padding bits or not.
        assert_eq!(gnu_blake2b_len(b"yz=="), Some(1));
        assert_eq!(gnu_blake2b_len(b"yw=="), Some(1));
        assert_eq!(gnu_blake2b_len(b"yw="), None);
        let b64 = b"LXEWQrcmsEQBYnyp+6wy9chTD7GQPMTbAiWHF5IaSIF=";
        assert_eq!(gnu_sha2_count(b64), (64, true));
        assert_eq!(gnu_sha2_count(&[b'a'; 56]), (56, true));
        assert_eq!(gnu_sha2_count(b"a7ffc6f8bf1ed766"), (16, false));
        // A non-canonical digest decodes to nothing that can match.
        assert_eq!(decode_digest(b"yz==", 1, true, false), Some(Vec::new()));
        assert_eq!(decode_digest(b"yw==", 1, true, false), Some(vec![0xcb]));
        // Carried lengths: base64 of `bytes` first, else `hex` digits.
        assert_eq!(gnu_carried_digest(b"yw==", 1, 56), Some(vec![0xcb]));
        assert_eq!(
            gnu_carried_digest(b"0011223344556677", 28, 16),
            Some(vec![0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77])
        );
        assert_eq!(gnu_carried_digest(b"00112233", 28, 16), None);
    }

    #[test]
    fn every_tag_begins_with_a_capital() {
        for kind in AlgoKind::ALL {
            if let Some(tag) = kind.tag() {
                assert!(tag.as_bytes()[0].is_ascii_uppercase(), "{tag}");
            }
        }
    }
}
