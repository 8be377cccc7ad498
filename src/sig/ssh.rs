//! SSH signatures (`ssh-keygen -Y sign -f KEY -n NAMESPACE FILE`; OpenSSH
//! PROTOCOL.sshsig), checked with the `ssh-key` crate.
//!
//! The key file is an OpenSSH public key (`ssh-ed25519 AAAA... comment`,
//! one or more lines) or an allowed-signers file (ssh-keygen(1), "ALLOWED
//! SIGNERS": `PRINCIPALS [OPTIONS] KEYTYPE BASE64 [COMMENT]`). Of the
//! options, `namespaces="a,b"` is honoured as OpenSSH honours it (see
//! [`namespace_allowed`]); a
//! line with `cert-authority`, `valid-after` or `valid-before` is not used
//! (certificates and validity windows are not supported), so a signature
//! by its key is refused as by an unknown key.

use super::{Bad, BadKind, Format, Good, Place};
use ssh_key::{HashAlg, PublicKey, SshSig};

/// One usable key of the key file, with who it is.
struct Allowed {
    key: PublicKey,
    /// The principals (allowed signers) or the key's comment.
    who: Option<String>,
    /// `namespaces="..."`, unquoted (a pattern list, see
    /// [`namespace_allowed`]); `None`: any.
    namespaces: Option<String>,
}

/// Splits a line at blanks, keeping `"..."` together (the options field
/// may quote commas and blanks).
fn fields(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quoted) = (None, false);
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ' ' | '\t' if !quoted => {
                if let Some(s) = start.take() {
                    out.push(&line[s..i]);
                }
                continue;
            }
            _ => {}
        }
        start.get_or_insert(i);
    }
    if let Some(s) = start {
        out.push(&line[s..]);
    }
    out
}

/// Whether `s` names an SSH key type (`ssh-ed25519`, `ecdsa-sha2-nistp256`,
/// `sk-ssh-ed25519@openssh.com`, `ssh-rsa`, ...).
fn is_key_type(s: &str) -> bool {
    s.starts_with("ssh-") || s.starts_with("ecdsa-sha2-") || s.starts_with("sk-")
}

/// OpenSSH's `match_pattern` (match.c): `*` matches any run of bytes,
/// `?` any one byte, any other byte itself. Run as OpenSSH runs it, a set
/// of pattern positions stepped over the name once: time is at most the
/// pattern's length times the name's, so `namespaces="***...*x"` cannot
/// take exponential time as a backtracking match would.
fn matches(pat: &[u8], s: &[u8]) -> bool {
    /// Every position after a `*` that is live is live too (a `*` may
    /// match nothing).
    fn close(live: &mut [bool], pat: &[u8]) {
        for (i, &p) in pat.iter().enumerate() {
            if p == b'*' && live[i] {
                live[i + 1] = true;
            }
        }
    }
    if pat.is_empty() {
        return s.is_empty();
    }
    let mut live = vec![false; pat.len() + 1];
    let mut next = vec![false; pat.len() + 1];
    live[0] = true;
    close(&mut live, pat);
    for &c in s {
        next.fill(false);
        for (i, &p) in pat.iter().enumerate() {
            if !live[i] {
                continue;
            }
            match p {
                b'*' => next[i] = true,
                b'?' => next[i + 1] = true,
                _ if p == c => next[i + 1] = true,
                _ => {}
            }
        }
        close(&mut next, pat);
        std::mem::swap(&mut live, &mut next);
        if !live.contains(&true) {
            return false;
        }
    }
    live[pat.len()]
}

/// OpenSSH's `match_pattern_list` (match.c), as `ssh-keygen -Y verify`
/// applies it to an allowed-signers line's `namespaces="..."`: patterns
/// separated by commas (nothing trimmed), each negated by a leading `!`.
/// Allowed when a pattern matches and no negated one does; a pattern of
/// 1,023 bytes or more allows nothing (OpenSSH's buffer).
fn namespace_allowed(list: &[u8], namespace: &[u8]) -> bool {
    let mut positive = false;
    let mut i = 0;
    while i < list.len() {
        let negated = list[i] == b'!';
        if negated {
            i += 1;
        }
        let start = i;
        while i < list.len() && list[i] != b',' {
            i += 1;
        }
        let pattern = &list[start..i];
        if pattern.len() >= 1023 {
            return false;
        }
        // The comma (a list that ends in one has no empty pattern after it).
        i += 1;
        if matches(pattern, namespace) {
            if negated {
                return false;
            }
            positive = true;
        }
    }
    positive
}

/// The keys of a public-key or allowed-signers file; lines that are not
/// keys (or use options not supported) are passed over.
fn parse_keys(key: &[u8]) -> Result<Vec<Allowed>, Bad> {
    let text = std::str::from_utf8(key).map_err(|_| {
        Bad::new(
            BadKind::Unsupported,
            "the key file is not an SSH public key or allowed-signers file",
        )
    })?;
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f = fields(line);
        let Some(at) = f.iter().position(|t| is_key_type(t)) else {
            continue;
        };
        let Ok(key) = PublicKey::from_openssh(&f[at..].join(" ")) else {
            continue;
        };
        if at == 0 {
            let c = key.comment().to_string();
            out.push(Allowed {
                key,
                who: (!c.is_empty()).then_some(c),
                namespaces: None,
            });
            continue;
        }
        let mut namespaces = None;
        let mut usable = true;
        for opt in f[1..at].iter().flat_map(|o| split_options(o)) {
            let (name, value) = opt.split_once('=').unwrap_or((opt, ""));
            match name.to_ascii_lowercase().as_str() {
                // As OpenSSH's `opt_dequote`: in double quotes, `\"` for
                // a quote; a line with two of them is not used.
                "namespaces" => match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
                    Some(v) if namespaces.is_none() => namespaces = Some(v.replace("\\\"", "\"")),
                    _ => usable = false,
                },
                _ => usable = false,
            }
        }
        if usable {
            out.push(Allowed {
                key,
                who: Some(f[0].to_string()),
                namespaces,
            });
        }
    }
    if out.is_empty() {
        return Err(Bad::new(
            BadKind::Unsupported,
            "the key file holds no SSH public key mhash can use",
        ));
    }
    Ok(out)
}

/// The options field split at commas outside quotes.
fn split_options(s: &str) -> Vec<&str> {
    let (mut out, mut start, mut quoted) = (Vec::new(), 0, false);
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// The armor's contents: the base64 lines between `-----BEGIN SSH
/// SIGNATURE-----` and `-----END SSH SIGNATURE-----`, decoded.
fn dearmor(sig: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(sig).ok()?;
    let mut lines = text.trim_start().lines().map(str::trim);
    (lines.next()? == "-----BEGIN SSH SIGNATURE-----").then_some(())?;
    let mut b64 = String::new();
    for l in lines {
        if l == "-----END SSH SIGNATURE-----" {
            return super::b64(b64.as_bytes());
        }
        b64.push_str(l);
    }
    None
}

/// A reader of SSH wire encoding (RFC 4251 §5) that takes nothing on
/// trust: a length that runs past its buffer is OpenSSH's `incomplete
/// message`, bytes left over are an error too.
struct Wire<'a>(&'a [u8]);

impl<'a> Wire<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        if n > self.0.len() {
            return Err(format!("incomplete message: {what} runs past the end"));
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }

    fn u32(&mut self, what: &str) -> Result<u32, String> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A `string`: a 32-bit length, then that many bytes.
    fn string(&mut self, what: &str) -> Result<&'a [u8], String> {
        let n = self.u32(what)?;
        self.take(n as usize, what)
    }

    fn end(&self, what: &str) -> Result<(), String> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(format!("trailing data after {what}"))
        }
    }
}

/// PROTOCOL.sshsig's blob read as strictly as OpenSSH reads it
/// (`sshsig_wrap_verify`, `sshkey_from_blob`, the per-algorithm signature
/// parsers): `SSHSIG`, a version no larger than 1, then public key,
/// namespace, reserved, hash algorithm and signature as strings, nothing
/// after; inside the public key and the signature every length must fit
/// too, with nothing left over (an ECDSA signature's two integers
/// included; an Ed25519 key is 32 bytes, its signature 64). Other key
/// types are left to the crate's parser.
fn strict_blob(blob: &[u8]) -> Result<(), String> {
    let mut w = Wire(blob);
    if w.take(6, "the magic")? != b"SSHSIG" {
        return Err("no SSHSIG magic".into());
    }
    let v = w.u32("the version")?;
    if v > 1 {
        return Err(format!("version {v}, larger than 1"));
    }
    let key = w.string("the public key")?;
    w.string("the namespace")?;
    w.string("the reserved field")?;
    w.string("the hash algorithm")?;
    let sig = w.string("the signature")?;
    w.end("the signature")?;

    let mut k = Wire(key);
    let ktype = k.string("the public key's type")?;
    let fields: &[&str] = match ktype {
        b"ssh-ed25519" => &["the Ed25519 key"],
        b"sk-ssh-ed25519@openssh.com" => &["the Ed25519 key", "the application"],
        b"ecdsa-sha2-nistp256" | b"ecdsa-sha2-nistp384" | b"ecdsa-sha2-nistp521" => {
            &["the curve", "the ECDSA point"]
        }
        b"sk-ecdsa-sha2-nistp256@openssh.com" => &["the curve", "the ECDSA point", "the application"],
        b"ssh-rsa" => &["the RSA exponent", "the RSA modulus"],
        b"ssh-dss" => &["DSA p", "DSA q", "DSA g", "DSA y"],
        _ => return Ok(()),
    };
    for f in fields {
        let b = k.string(f)?;
        if *f == "the Ed25519 key" && b.len() != 32 {
            return Err(format!("an Ed25519 key of {} bytes, not 32", b.len()));
        }
    }
    k.end("the public key")?;

    let mut s = Wire(sig);
    let stype = s.string("the signature's type")?;
    let bytes = s.string("the signature's bytes")?;
    if stype.starts_with(b"sk-") {
        s.take(1, "the signature's flags")?;
        s.u32("the signature's counter")?;
    }
    s.end("the signature's bytes")?;
    if stype.ends_with(b"ed25519") || stype.starts_with(b"sk-ssh-ed25519") {
        if bytes.len() != 64 {
            return Err(format!("an Ed25519 signature of {} bytes, not 64", bytes.len()));
        }
    } else if stype.starts_with(b"ecdsa-sha2-") || stype.starts_with(b"sk-ecdsa-sha2-") {
        let mut e = Wire(bytes);
        e.string("the ECDSA signature's r")?;
        e.string("the ECDSA signature's s")?;
        e.end("the ECDSA signature's integers")?;
    }
    Ok(())
}

/// Verifies an SSH signature (`sig`, the armored `.sig` file) over
/// `content` for `namespace` with a key of the key file.
pub(super) fn verify(content: &[u8], sig: &[u8], key: &[u8], namespace: &str) -> Result<Good, Bad> {
    let malformed = |why: String| Bad::new(BadKind::Bad, format!("malformed SSH signature: {why}"));
    let blob = dearmor(sig).ok_or_else(|| malformed("its armor does not hold base64".into()))?;
    strict_blob(&blob).map_err(malformed)?;
    let s = SshSig::from_pem(sig).map_err(|e| malformed(super::brief(&e, "not PROTOCOL.sshsig")))?;
    // The crate's reading of the armor must be the bytes checked above.
    if s.to_pem(ssh_key::LineEnding::LF)
        .ok()
        .and_then(|p| dearmor(p.as_bytes()))
        != Some(blob)
    {
        return Err(malformed("not in canonical encoding".into()));
    }
    let id = ssh_key::Fingerprint::new(HashAlg::Sha256, s.public_key()).to_string();
    let keys = parse_keys(key).map_err(|b| b.key(id.clone()))?;
    let Some(a) = keys.iter().find(|a| a.key.key_data() == s.public_key()) else {
        return Err(Bad::new(
            BadKind::UnknownKey,
            "the key file does not hold the key that signed",
        )
        .key(id));
    };
    if s.namespace() != namespace {
        return Err(Bad::new(
            BadKind::Bad,
            format!(
                "made for namespace {:?}, not {namespace:?} (see --namespace)",
                s.namespace()
            ),
        )
        .key(id));
    }
    if let Some(ns) = &a.namespaces
        && !namespace_allowed(ns.as_bytes(), namespace.as_bytes())
    {
        return Err(Bad::new(
            BadKind::UnknownKey,
            format!("the allowed-signers line does not allow namespace {namespace:?}"),
        )
        .key(id));
    }
    a.key
        .verify(namespace, content, &s)
        .map_err(|_| Bad::new(BadKind::Bad, "the signature does not match the file").key(id.clone()))?;
    Ok(Good {
        format: Format::Ssh,
        place: Place::Inline,
        key_id: id,
        signer: a.who.clone(),
        text: None,
        ignored_lines: 0,
        signatures: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_signers_fields_keep_quotes_together() {
        assert_eq!(
            fields(r#"a@b namespaces="file, x" ssh-ed25519 AAAA c"#),
            ["a@b", r#"namespaces="file, x""#, "ssh-ed25519", "AAAA", "c"]
        );
        assert_eq!(
            split_options(r#"cert-authority,namespaces="a,b""#),
            ["cert-authority", r#"namespaces="a,b""#]
        );
        assert!(matches(b"fi*", b"file") && matches(b"f?le", b"file") && !matches(b"x*", b"file"));
    }
}
