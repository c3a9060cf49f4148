//! Ported from spamnb/mail/digest.py.
//!
//! A message's identity for "have I learned this before?".  The digest is
//! SHA-256 (first 8 bytes, little-endian) of the message with what delivery
//! changes taken out: the mbox From_ envelope line, CRLF line ends, and our
//! own status header, so a message learned straight from a folder and the
//! same message after `spamnb filter` added its header are one message.

use regex::bytes::Regex;
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

pub const STATUS_HEADER: &str = "X-Spamnb-Status";
/// The value `spamnb filter` writes, whatever the field's name (`--header
/// X-Custom`): `Yes, score=0.9987, log-odds=6.64, model=NAME` and maybe
/// `, reason="…"`.  A field holding it is taken out of the digest and never
/// tokenized, as the fields of the known names are.
pub const STATUS_VALUE: &str = r"(?:Yes|No|Unsure), score=[0-9.]+, log-odds=[-+]?(?:[0-9.]+|inf), model=";

/// Lines of the named header field, folded continuation lines included.
fn status_header_pattern(name: &str) -> Regex {
    let pattern = format!(r"(?mi-u)^{}:[^\n]*\n(?:[ \t][^\n]*\n)*", regex::escape(name));
    Regex::new(&pattern).expect("a fixed pattern")
}

/// What spamnb's filter and spamd add, in either style, and a status field of
/// any other name (`filter --header X-Custom`), known by its value: taken out
/// before hashing, so a filtered message is the same message to `learn`.
fn added() -> &'static [Regex] {
    static ADDED: OnceLock<Vec<Regex>> = OnceLock::new();
    ADDED.get_or_init(|| {
        let any_status = format!(r"(?m-u)^[\x21-\x39\x3b-\x7e]+:[ \t]*{}[^\n]*\n(?:[ \t][^\n]*\n)*", STATUS_VALUE);
        vec![
            status_header_pattern(STATUS_HEADER),
            Regex::new(&any_status).expect("a fixed pattern"),
            status_header_pattern("X-Spam-Flag"),
            status_header_pattern("X-Spam-Level"),
            status_header_pattern("X-Spam-Status"),
        ]
    })
}

pub fn message_digest(raw: &[u8]) -> u64 {
    let mut data = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'\r' && raw.get(i + 1) == Some(&b'\n') {
            i += 1; // the LF is kept
            continue;
        }
        data.push(raw[i]);
        i += 1;
    }
    let data: &[u8] = if data.starts_with(b"From ") {
        match memchr::memchr(b'\n', &data) {
            Some(at) => &data[at + 1..],
            None => b"",
        }
    } else {
        &data
    };
    let (head, separator, body): (&[u8], &[u8], &[u8]) = match memchr::memmem::find(data, b"\n\n") {
        Some(at) => (&data[..at], b"\n\n", &data[at + 2..]),
        None => (data, b"", b""),
    };
    let mut head = head.to_vec();
    head.push(b'\n');
    for pattern in added() {
        if pattern.is_match(&head) {
            head = pattern.replace_all(&head, &b""[..]).into_owned();
        }
    }
    head.pop();
    let mut hasher = Sha256::new();
    hasher.update(&head);
    hasher.update(separator);
    hasher.update(body);
    let digest = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivery_changes_leave_the_digest_alone() {
        let plain = message_digest(b"Subject: x\n\nbody\n");
        assert_eq!(message_digest(b"From a@b Mon\r\nSubject: x\r\n\r\nbody\r\n"), plain);
        assert_eq!(message_digest(b"Subject: x\nX-Spamnb-Status: Yes, score=0.99, log-odds=6.64, model=m\n\tmore\n\nbody\n"),
                   plain);
        assert_eq!(message_digest(b"Subject: x\nX-Custom: No, score=0.1, log-odds=-inf, model=m\n\nbody\n"), plain);
        assert_eq!(message_digest(b"x-spam-flag: YES\nSubject: x\n\nbody\n"), plain);
        assert_ne!(message_digest(b"Subject: y\n\nbody\n"), plain);
    }
}
