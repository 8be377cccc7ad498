//! Sigstore bundles (`--bundle`, `--certificate-identity`,
//! `--certificate-oidc-issuer`, `--trusted-root`), offline: the
//! verification is `sigstore-verify`'s (sigstore/sigstore-rust), which
//! checks the Fulcio certificate chain to the trusted root's CA, the
//! signed time inside the certificate's validity (the Rekor entry's
//! integrated time or an RFC 3161 timestamp), the Rekor inclusion proof
//! or promise against the trusted root's log keys, and the signature
//! over the exact bytes given. This module holds the glue: the
//! cryptography under it (a `sigstore-crypto` provider built on the
//! RustCrypto crates mhash has already, rather than the crate's default
//! `aws-lc-rs`, a C library whose build is most of the crate's cost),
//! the identity and issuer rules (cosign's exact and `-regexp` forms),
//! trusted roots from a file (`.json`, or `gh attestation
//! trusted-root`'s `.jsonl`), and the subjects of an in-toto statement
//! (GitHub artifact attestations) as checksum lines.
//!
//! Nothing here reaches the network.

use super::{Bad, BadKind, Format, Good, LEGACY, Matcher, Place, SigstorePolicy, brief, brief_to};
use sigstore_verify::crypto::{
    CryptoProvider, Error as CryptoError, HashContext, Result as CryptoResult, SigningScheme,
};
use sigstore_verify::trust_root::TrustedRoot;
use sigstore_verify::types::{Bundle, HashAlgorithm, SignatureContent};
use sigstore_verify::{VerificationPolicy, Verifier};

/// The `sigstore-crypto` provider: SHA-2 from `sha2`, ECDSA P-256 and
/// P-384 from `p256`/`p384`, Ed25519 from `ed25519-dalek`, RSA (PKCS#1
/// v1.5 and PSS, 2048 to 8192 bits, as ring and aws-lc accept) from
/// `rsa`. Keys come as the SubjectPublicKeyInfo's bit string (an
/// uncompressed or compressed point, 32 Ed25519 bytes, a PKCS#1
/// RSAPublicKey); ECDSA signatures are DER.
#[derive(Debug)]
struct RustCrypto;

static PROVIDER: RustCrypto = RustCrypto;

struct Hasher<D>(D);

impl<D: sha2::Digest + Send> HashContext for Hasher<D> {
    fn update(&mut self, data: &[u8]) {
        sha2::Digest::update(&mut self.0, data);
    }

    fn finalize(self: Box<Self>) -> Vec<u8> {
        sha2::Digest::finalize(self.0).to_vec()
    }
}

fn digest(h: HashAlgorithm, data: &[u8]) -> CryptoResult<Vec<u8>> {
    let mut ctx = PROVIDER.hash(h)?;
    ctx.update(data);
    Ok(ctx.finalize())
}

fn invalid(scheme: SigningScheme) -> CryptoError {
    CryptoError::Verification(format!("{} signature invalid", scheme.name()))
}

impl CryptoProvider for RustCrypto {
    fn hash(&self, algorithm: HashAlgorithm) -> CryptoResult<Box<dyn HashContext>> {
        match algorithm {
            HashAlgorithm::Sha2256 => Ok(Box::new(Hasher(<sha2::Sha256 as sha2::Digest>::new()))),
            HashAlgorithm::Sha2384 => Ok(Box::new(Hasher(<sha2::Sha384 as sha2::Digest>::new()))),
            HashAlgorithm::Sha2512 => Ok(Box::new(Hasher(<sha2::Sha512 as sha2::Digest>::new()))),
            other => Err(CryptoError::UnsupportedAlgorithm(format!(
                "cannot compute {other} digests"
            ))),
        }
    }

    fn verify_raw(
        &self,
        scheme: SigningScheme,
        key: &[u8],
        data: &[u8],
        signature: &[u8],
    ) -> CryptoResult<()> {
        if scheme == SigningScheme::Ed25519 {
            let key: [u8; 32] = key.try_into().map_err(|_| invalid(scheme))?;
            let key = ed25519_dalek::VerifyingKey::from_bytes(&key).map_err(|_| invalid(scheme))?;
            let sig = ed25519_dalek::Signature::from_slice(signature).map_err(|_| invalid(scheme))?;
            return key.verify_strict(data, &sig).map_err(|_| invalid(scheme));
        }
        let h = scheme.hash_algorithm().ok_or_else(|| {
            CryptoError::UnsupportedAlgorithm(format!("{} is not supported", scheme.name()))
        })?;
        self.verify_prehashed(scheme, key, &digest(h, data)?, signature)
    }

    fn verify_prehashed(
        &self,
        scheme: SigningScheme,
        key: &[u8],
        digest: &[u8],
        signature: &[u8],
    ) -> CryptoResult<()> {
        use SigningScheme as S;
        use p256::ecdsa::signature::hazmat::PrehashVerifier;
        let want = scheme.hash_algorithm().map(|h| match h {
            HashAlgorithm::Sha2256 => 32,
            HashAlgorithm::Sha2384 => 48,
            _ => 64,
        });
        if want != Some(digest.len()) {
            return Err(invalid(scheme));
        }
        match scheme {
            S::EcdsaP256Sha256 | S::EcdsaP256Sha384 => {
                let k = p256::ecdsa::VerifyingKey::from_sec1_bytes(key).map_err(|_| invalid(scheme))?;
                let s = p256::ecdsa::Signature::from_der(signature).map_err(|_| invalid(scheme))?;
                k.verify_prehash(digest, &s).map_err(|_| invalid(scheme))
            }
            S::EcdsaP384Sha256 | S::EcdsaP384Sha384 => {
                let k = p384::ecdsa::VerifyingKey::from_sec1_bytes(key).map_err(|_| invalid(scheme))?;
                let s = p384::ecdsa::Signature::from_der(signature).map_err(|_| invalid(scheme))?;
                k.verify_prehash(digest, &s).map_err(|_| invalid(scheme))
            }
            S::RsaPkcs1Sha256
            | S::RsaPkcs1Sha384
            | S::RsaPkcs1Sha512
            | S::RsaPssSha256
            | S::RsaPssSha384
            | S::RsaPssSha512 => {
                use rsa::pkcs1::DecodeRsaPublicKey;
                use rsa::sha2::{Sha256, Sha384, Sha512};
                use rsa::traits::PublicKeyParts;
                let k = rsa::RsaPublicKey::from_pkcs1_der(key).map_err(|_| invalid(scheme))?;
                if !(2048..=8192).contains(&(k.size() * 8)) {
                    return Err(invalid(scheme));
                }
                let ok = match scheme {
                    S::RsaPkcs1Sha256 => k.verify(rsa::Pkcs1v15Sign::new::<Sha256>(), digest, signature),
                    S::RsaPkcs1Sha384 => k.verify(rsa::Pkcs1v15Sign::new::<Sha384>(), digest, signature),
                    S::RsaPkcs1Sha512 => k.verify(rsa::Pkcs1v15Sign::new::<Sha512>(), digest, signature),
                    S::RsaPssSha256 => k.verify(rsa::Pss::new::<Sha256>(), digest, signature),
                    S::RsaPssSha384 => k.verify(rsa::Pss::new::<Sha384>(), digest, signature),
                    _ => k.verify(rsa::Pss::new::<Sha512>(), digest, signature),
                };
                ok.map_err(|_| invalid(scheme))
            }
            _ => Err(CryptoError::UnsupportedAlgorithm(format!(
                "{} is not supported",
                scheme.name()
            ))),
        }
    }
}

/// What a file given as a bundle is, told by its contents.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum BundleKind {
    /// A Sigstore bundle (`mediaType` `application/vnd.dev.sigstore.bundle...`).
    Bundle,
    /// cosign's own bundle before v2.4's `--new-bundle-format`
    /// (`base64Signature`, `cert`, `rekorBundle`).
    LegacyCosign,
    /// Anything else.
    Other,
}

/// Tells a bundle's kind from its JSON (nothing is verified).
pub(super) fn bundle_kind(bytes: &[u8]) -> BundleKind {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return BundleKind::Other;
    };
    let Some(o) = v.as_object() else {
        return BundleKind::Other;
    };
    if o.get("mediaType")
        .and_then(|m| m.as_str())
        .is_some_and(|m| m.starts_with("application/vnd.dev.sigstore.bundle"))
    {
        BundleKind::Bundle
    } else if o.contains_key("base64Signature") || o.contains_key("rekorBundle") {
        BundleKind::LegacyCosign
    } else {
        BundleKind::Other
    }
}

/// The trusted roots: `--trusted-root`'s file (one JSON object, or one a
/// line as `gh attestation trusted-root` writes them), else the
/// public-good instance's root that `sigstore-trust-root` embeds.
fn trusted_roots(
    policy: &SigstorePolicy,
    name: &dyn Fn(&std::path::Path) -> String,
) -> Result<Vec<TrustedRoot>, Bad> {
    let Some(path) = &policy.trusted_root else {
        return TrustedRoot::from_json(sigstore_verify::trust_root::SIGSTORE_PRODUCTION_TRUSTED_ROOT)
            .map(|r| vec![r])
            .map_err(|e| {
                Bad::new(
                    BadKind::Unreadable,
                    format!("the built-in trusted root: {}", brief(&e, "unreadable")),
                )
            });
    };
    let bytes = super::read_aux(path, "trusted root", BadKind::Unreadable, name)?;
    let bad = |why: String| Bad::new(BadKind::Unreadable, format!("trusted root {}: {why}", name(path)));
    let text = std::str::from_utf8(&bytes).map_err(|_| bad("not UTF-8 text: not a trusted root".into()))?;
    // One JSON value: one root (its error is the file's); else JSON lines.
    if serde_json::from_str::<serde_json::Value>(text).is_ok() {
        return TrustedRoot::from_json(text)
            .map(|r| vec![r])
            .map_err(|e| bad(format!("not a trusted root: {}", brief(&e, "unreadable"))));
    }
    let mut roots = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        roots.push(TrustedRoot::from_json(line).map_err(|e| {
            bad(format!(
                "line {}: not a trusted root: {}",
                i + 1,
                brief(&e, "unreadable")
            ))
        })?);
    }
    if roots.is_empty() {
        return Err(bad("empty: no trusted root in it".into()));
    }
    Ok(roots)
}

/// Whether `value` meets `m` (an exact string, or a regular expression
/// found anywhere in it, as Go's `regexp.MatchString` that cosign uses).
fn meets(m: &Matcher, value: &str) -> bool {
    match m {
        Matcher::Exact(s) => s == value,
        Matcher::Regex(re) => re.is_match(value.as_bytes()),
    }
}

/// Verifies `bundle_bytes` (a Sigstore bundle) over `artifact`, the exact
/// bytes of the checksum file, or, for a DSSE envelope, the in-toto
/// statement's first subject (then [`subject_lines`] reads the others:
/// the envelope's signature covers them all). `Good::key_id` is the
/// certificate's identity, `Good::signer` its OIDC issuer.
pub(super) fn verify(
    artifact: Option<&[u8]>,
    bundle_bytes: &[u8],
    place: &Place,
    policy: &SigstorePolicy,
    name: &dyn Fn(&std::path::Path) -> String,
) -> Result<Good, Bad> {
    let _ = sigstore_verify::crypto::install_default_provider(&PROVIDER);
    let fmt = |b: Bad| b.format(Format::Sigstore);
    match bundle_kind(bundle_bytes) {
        BundleKind::Bundle => {}
        BundleKind::LegacyCosign => return Err(fmt(Bad::new(BadKind::Unsupported, LEGACY))),
        BundleKind::Other => {
            return Err(fmt(Bad::new(
                BadKind::Unsupported,
                "not a Sigstore bundle (JSON with a mediaType of application/vnd.dev.sigstore.bundle)",
            )));
        }
    }
    let text = std::str::from_utf8(bundle_bytes)
        .map_err(|_| fmt(Bad::new(BadKind::Bad, "the bundle is not UTF-8 JSON")))?;
    let bundle = Bundle::from_json(text).map_err(|e| {
        fmt(Bad::new(
            BadKind::Bad,
            format!("malformed bundle: {}", brief(&e, "unreadable")),
        ))
    })?;
    let digest = match (&bundle.content, artifact) {
        (SignatureContent::DsseEnvelope(env), _) => Some(first_subject(env).map_err(fmt)?),
        (_, None) => {
            return Err(fmt(Bad::new(
                BadKind::Unsupported,
                "the bundle signs a file, not an in-toto statement: give the checksum file it signs with --bundle",
            )));
        }
        _ => None,
    };
    let roots = trusted_roots(policy, name).map_err(fmt)?;
    // The identity and issuer are checked here (the crate matches exact
    // strings only): the crate verifies every signature, chain, log entry
    // and time with no identity required, then the certificate's own
    // values are held against the rules.
    let any = VerificationPolicy::any_identity();
    let mut result = None;
    let mut errors: Vec<String> = Vec::new();
    for root in &roots {
        // A root with no transparency log or no certificate transparency
        // log (GitHub's own instance, for private repositories) proves
        // times with its timestamp authority only, as `gh attestation
        // verify` accepts them: those timestamps must then verify, and
        // one at least must be there (the crate refuses a certificate
        // with no verified time).
        let mut policy = any.clone();
        if root.tlogs.is_empty() {
            policy = policy.skip_tlog_unsafe();
        }
        if root.ctlogs.is_empty() {
            policy = policy.skip_sct();
        }
        let outcome = Verifier::new(root).and_then(|v| match &digest {
            Some(d) => v.verify(*d, &bundle, &policy),
            None => v.verify(artifact.unwrap_or_default(), &bundle, &policy),
        });
        match outcome {
            Ok(r) => {
                result = Some(r);
                break;
            }
            Err(e) => errors.push(brief_to(&e, "not verified", 200)),
        }
    }
    let Some(r) = result else {
        let why = if errors.len() == 1 {
            errors.remove(0)
        } else {
            let each: Vec<String> = errors
                .iter()
                .enumerate()
                .map(|(i, e)| format!("with trusted root {}: {e}", i + 1))
                .collect();
            each.join("; ")
        };
        return Err(fmt(Bad::new(BadKind::Bad, why)));
    };
    let identity = r.identity().map(|s| s.as_str().to_string());
    let issuer = r.issuer().map(str::to_string);
    let quote = |s: &str| name(std::path::Path::new(s));
    let id = identity.clone().unwrap_or_default();
    let bad_id = |what: &str, got: Option<&str>, flag: &str| {
        let why = match got {
            Some(g) => format!("the certificate's {what} {} does not match {flag}", quote(g)),
            None => format!(
                "the certificate names no {what}, and {flag} asks for one ({} '' accepts none, \
                 as cosign compares an absent value as empty)",
                flag.trim_end_matches("-regexp")
            ),
        };
        fmt(Bad::new(BadKind::Bad, why))
    };
    if !identity.as_deref().is_some_and(|i| meets(&policy.identity, i)) {
        return Err(bad_id(
            "identity",
            identity.as_deref(),
            &policy.identity.flag("--certificate-identity"),
        ));
    }
    // An absent issuer is compared as the empty string, as cosign's
    // policy check does (a certificate of GitHub's own instance for a
    // private repository may carry none).
    if !meets(&policy.issuer, issuer.as_deref().unwrap_or("")) {
        return Err(bad_id(
            "OIDC issuer",
            issuer.as_deref(),
            &policy.issuer.flag("--certificate-oidc-issuer"),
        )
        .key(id.clone()));
    }
    Ok(Good {
        format: Format::Sigstore,
        place: place.clone(),
        key_id: id,
        signer: issuer,
        text: None,
        ignored_lines: 0,
        signatures: Vec::new(),
    })
}

/// The in-toto statement of a DSSE envelope.
fn statement(env: &sigstore_verify::types::DsseEnvelope) -> Result<serde_json::Value, Bad> {
    if env.payload_type != "application/vnd.in-toto+json" {
        return Err(Bad::new(
            BadKind::Unsupported,
            format!(
                "the envelope holds {}, not an in-toto statement",
                brief(&env.payload_type, "an unnamed payload")
            ),
        ));
    }
    serde_json::from_slice(env.payload.as_bytes())
        .map_err(|_| Bad::new(BadKind::Bad, "the in-toto statement is not JSON"))
}

/// `(name, algorithm, hex)` of each subject: SHA-256 where given, else SHA-512.
fn subjects(stmt: &serde_json::Value) -> Vec<(String, &'static str, String)> {
    let mut out = Vec::new();
    for s in stmt
        .get("subject")
        .and_then(|s| s.as_array())
        .into_iter()
        .flatten()
    {
        let name = s.get("name").and_then(|n| n.as_str()).unwrap_or_default();
        let d = s.get("digest");
        let pick = [("sha256", "SHA256", 64), ("sha512", "SHA512", 128)]
            .into_iter()
            .find_map(|(k, tag, len)| {
                d.and_then(|d| d.get(k))
                    .and_then(|h| h.as_str())
                    .filter(|h| h.len() == len && h.bytes().all(|b| b.is_ascii_hexdigit()))
                    .map(|h| (tag, h.to_ascii_lowercase()))
            });
        if let Some((tag, hex)) = pick
            && !name.is_empty()
        {
            out.push((name.to_string(), tag, hex));
        }
    }
    out
}

fn first_subject(
    env: &sigstore_verify::types::DsseEnvelope,
) -> Result<sigstore_verify::types::Sha256Hash, Bad> {
    let stmt = statement(env)?;
    let s = stmt.get("subject").and_then(|s| s.as_array()).and_then(|a| {
        a.iter().find_map(|s| {
            s.get("digest")
                .and_then(|d| d.get("sha256"))
                .and_then(|h| h.as_str())
                .and_then(|h| sigstore_verify::types::Sha256Hash::from_hex(h).ok())
        })
    });
    s.ok_or_else(|| {
        Bad::new(
            BadKind::Unsupported,
            "the in-toto statement has no subject with a SHA-256 digest",
        )
    })
}

/// The subjects of a verified bundle's in-toto statement as checksum
/// lines (`SHA256 (NAME) = HEX`, GNU's tagged form, a name with a
/// backslash or line break escaped as GNU escapes it). With `only`, one
/// line for each of those files, named as given, against the subject of
/// its name (the whole path, else its last component); a file that no
/// subject names fails the whole (nothing is checked).
pub(super) fn subject_lines(
    bundle_bytes: &[u8],
    only: &[std::path::PathBuf],
    name: &dyn Fn(&std::path::Path) -> String,
) -> Result<Vec<u8>, Bad> {
    let bundle = std::str::from_utf8(bundle_bytes)
        .ok()
        .and_then(|t| Bundle::from_json(t).ok())
        .ok_or_else(|| Bad::new(BadKind::Bad, "malformed bundle"))?;
    let SignatureContent::DsseEnvelope(env) = &bundle.content else {
        return Err(Bad::new(
            BadKind::Unsupported,
            "the bundle holds no in-toto statement",
        ));
    };
    let stmt = statement(env)?;
    let all = subjects(&stmt);
    if all.is_empty() {
        return Err(Bad::new(
            BadKind::Unsupported,
            "the in-toto statement names no subject with a SHA-256 or SHA-512 digest",
        ));
    }
    let mut picked: Vec<(String, &'static str, String)> = Vec::new();
    if only.is_empty() {
        picked = all;
    } else {
        for f in only {
            let whole = f.to_string_lossy();
            let last = f.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
            let hit = all
                .iter()
                .find(|s| s.0 == whole)
                .or_else(|| all.iter().find(|s| s.0 == last));
            match hit {
                Some((_, tag, hex)) => picked.push((whole.into_owned(), tag, hex.clone())),
                None => {
                    return Err(Bad::new(
                        BadKind::Missing,
                        format!("{} is not a subject of the attestation", name(f)),
                    ));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (n, tag, hex) in picked {
        let escaped = n.contains(['\\', '\n', '\r']);
        if escaped {
            out.push(b'\\');
        }
        let n = if escaped {
            n.replace('\\', "\\\\").replace('\n', "\\n").replace('\r', "\\r")
        } else {
            n
        };
        out.extend_from_slice(format!("{tag} ({n}) = {hex}\n").as_bytes());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundles_are_told_by_their_json() {
        assert_eq!(
            bundle_kind(br#"{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}"#),
            BundleKind::Bundle
        );
        assert_eq!(
            bundle_kind(br#"{"base64Signature":"AA==","cert":"x","rekorBundle":{}}"#),
            BundleKind::LegacyCosign
        );
        assert_eq!(bundle_kind(b"0123  f\n"), BundleKind::Other);
        assert_eq!(bundle_kind(b""), BundleKind::Other);
    }

    /// FIPS 180-2 Appendix B.1 (SHA-256 of "abc") through the provider.
    #[test]
    fn the_provider_hashes_as_fips_180_says() {
        assert_eq!(
            hex::encode(digest(HashAlgorithm::Sha2256, b"abc").unwrap()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
