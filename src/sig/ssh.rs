//! SSH signatures (`ssh-keygen -Y sign -f KEY -n NAMESPACE FILE`; OpenSSH
//! PROTOCOL.sshsig), checked with the `ssh-key` crate.
//!
//! The key file is an OpenSSH public key (`ssh-ed25519 AAAA... comment`,
//! one or more lines) or an allowed-signers file (ssh-keygen(1), "ALLOWED
//! SIGNERS": `PRINCIPALS [OPTIONS] KEYTYPE BASE64 [COMMENT]`). Of the
//! options, `namespaces="a,b"` is honoured (`*` and `?` patterns too); a
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
    /// `namespaces="..."`, split at commas; `None`: any.
    namespaces: Option<Vec<String>>,
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

/// `ssh-keygen`'s pattern match (`*` any run, `?` one character).
fn matches(pat: &str, s: &str) -> bool {
    fn m(p: &[u8], s: &[u8]) -> bool {
        match (p.first(), s.first()) {
            (None, None) => true,
            (Some(b'*'), _) => m(&p[1..], s) || (!s.is_empty() && m(p, &s[1..])),
            (Some(b'?'), Some(_)) => m(&p[1..], &s[1..]),
            (Some(a), Some(b)) if a == b => m(&p[1..], &s[1..]),
            _ => false,
        }
    }
    m(pat.as_bytes(), s.as_bytes())
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
                "namespaces" => {
                    let v = value.trim_matches('"');
                    namespaces = Some(v.split(',').map(|s| s.trim().to_string()).collect());
                }
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
        && !ns.iter().any(|p| matches(p, namespace))
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
        assert!(matches("fi*", "file") && matches("f?le", "file") && !matches("x*", "file"));
    }
}
