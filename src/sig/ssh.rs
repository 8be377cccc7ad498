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

/// Verifies an SSH signature (`sig`, the armored `.sig` file) over
/// `content` for `namespace` with a key of the key file.
pub(super) fn verify(content: &[u8], sig: &[u8], key: &[u8], namespace: &str) -> Result<Good, Bad> {
    let s = SshSig::from_pem(sig)
        .map_err(|e| Bad::new(BadKind::Unsupported, format!("not a valid SSH signature: {e}")))?;
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
