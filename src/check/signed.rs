//! `--key`: a checksum file's signature is verified over its exact bytes
//! (a caller of [`crate::sig`]) before any of its lines is read.

use crate::config::{CheckJob, Verbosity};
use crate::report::Console;
use std::ffi::OsStr;
use std::io::Read;

/// Each signature of a file of several, for the JSON record: (key ID,
/// verdict).
fn pairs(seen: &[crate::sig::Seen]) -> Vec<(&str, &str)> {
    seen.iter().map(|s| (s.key_id.as_str(), s.verdict())).collect()
}

/// `--key`: reads the checksum file whole (at most
/// [`crate::sig::MAX_SIGNED_FILE`] bytes), verifies its signature and says
/// so on stderr (and in a JSON record with `--json`). Returns the bytes
/// to read as checksum lines, or `None` (after the one-line message) when
/// the signature is not good: then nothing of the file is checked.
pub(super) fn signed_text(
    con: &mut Console,
    job: &CheckJob,
    checkfile: &OsStr,
    display: &[u8],
    signed: &crate::config::Signed,
) -> Option<Vec<u8>> {
    use crate::report::json::{SignatureVerdict, signature_record};
    use crate::sig::{self, Place};
    let is_stdin = checkfile == "-";
    let read = || -> std::io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        if is_stdin {
            crate::os::stdin_reader()
                .take(sig::MAX_SIGNED_FILE + 1)
                .read_to_end(&mut buf)?;
        } else {
            let mut f = crate::os::open_read(std::path::Path::new(checkfile))?;
            (&mut f).take(sig::MAX_SIGNED_FILE + 1).read_to_end(&mut buf)?;
            // As without --key: a close(2) error is the file's error
            // (GNU checks fclose's result).
            crate::os::close_file(f)?;
        }
        if buf.len() as u64 > sig::MAX_SIGNED_FILE {
            return Err(std::io::Error::other(format!(
                "larger than {} bytes: too large to verify a signature over",
                sig::MAX_SIGNED_FILE
            )));
        }
        Ok(buf)
    };
    let content = match read() {
        Ok(c) => c,
        Err(e) => {
            con.error_io(display, &e);
            return None;
        }
    };
    // Every file name in the verdict (the signature file, the names tried
    // beside the checksum file, the key file) is quoted as GNU quotes the
    // names in its messages: a name cannot carry a control sequence to the
    // terminal.
    let quoted = |p: &std::path::Path| {
        String::from_utf8_lossy(&con.quotef(&crate::os::os_bytes(p.as_os_str()))).into_owned()
    };
    let req = sig::Request {
        checksum_file: (!is_stdin).then_some(std::path::Path::new(checkfile)),
        key: signed.key.as_deref().map(std::path::Path::new),
        sigstore: signed.sigstore.as_ref(),
        signature: signed.signature.as_deref().map(std::path::Path::new),
        namespace: &signed.namespace,
        min_signatures: signed.min_signatures,
        trusted_comment: signed.trusted_comment.as_ref(),
        name: &quoted,
    };
    let place_bytes = |p: &Option<Place>| match p {
        Some(Place::Detached(f)) => Some(crate::os::os_bytes(f.as_os_str()).into_owned()),
        _ => None,
    };
    // Standard input is named as GNU names it, unquoted.
    let named = |con: &Console| {
        if is_stdin {
            display.to_vec()
        } else {
            con.quotef(display)
        }
    };
    let verdict = sig::verify(&content, &req);
    let words = match &verdict {
        Ok(good) => good.message(&quoted),
        Err(bad) => bad.message(&quoted),
    };
    let mut msg = named(con);
    msg.extend_from_slice(b": ");
    msg.extend_from_slice(words.as_bytes());
    match verdict {
        Ok(good) => {
            // `--status` prints nothing for a good run: nor this line.
            let say = job.verbosity != Verbosity::Status;
            if say {
                con.error_msg(&msg);
            }
            if good.ignored_lines > 0 && say {
                let mut note = named(con);
                let n = good.ignored_lines;
                let s = if n == 1 { "line" } else { "lines" };
                note.extend_from_slice(
                    format!(": {n} {s} outside the signed block ignored, not checked").as_bytes(),
                );
                con.error_msg(&note);
            }
            if job.json {
                let file = place_bytes(&Some(good.place.clone()));
                let mut out = Vec::new();
                signature_record(
                    &mut out,
                    display,
                    &SignatureVerdict {
                        verdict: "good",
                        format: Some(good.format.name()),
                        key_id: Some(&good.key_id),
                        signer: good.signer.as_deref(),
                        signature_file: file.as_deref(),
                        ignored_lines: good.ignored_lines,
                        signatures: &pairs(&good.signatures),
                        error: None,
                    },
                );
                con.write_out(&out);
            }
            Some(good.text.unwrap_or(content))
        }
        Err(bad) => {
            let line = words;
            con.error_msg(&msg);
            if job.json {
                let file = place_bytes(&bad.place);
                let mut out = Vec::new();
                signature_record(
                    &mut out,
                    display,
                    &SignatureVerdict {
                        verdict: bad.kind.name(),
                        format: bad.format.map(|f| f.name()),
                        key_id: bad.key_id.as_deref(),
                        signer: None,
                        signature_file: file.as_deref(),
                        ignored_lines: 0,
                        signatures: &pairs(&bad.signatures),
                        error: Some(&line),
                    },
                );
                con.write_out(&out);
            }
            None
        }
    }
}
