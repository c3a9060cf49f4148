//! Ported from spamnb/mail/digest.py.
//!
//! A message's identity for "have I learned this before?".  The digest is
//! SHA-256 (first 8 bytes, little-endian) of the message with what delivery
//! changes taken out: the mbox From_ envelope line, CRLF line ends, and our
//! own status header, so a message learned straight from a folder and the
//! same message after `spamnb filter` added its header are one message.

use super::status::{is_status_value, OWN_STATUS_FIELDS};
use sha2::{Digest, Sha256};
use std::borrow::Cow;

/// Whether a header field, known by its first line (without its line end),
/// is one that delivery added: one of OWN_STATUS_FIELDS, or a status field of any
/// other name (`filter --header X-Custom`), known by its value.  A plain scan,
/// not regexes: building them is a cost of every fresh `learn`'s start, for
/// a test of one line.
fn is_added(line: &[u8]) -> bool {
    let Some(colon) = memchr::memchr(b':', line) else {
        return false;
    };
    let name = &line[..colon];
    if OWN_STATUS_FIELDS.iter().any(|added| name.eq_ignore_ascii_case(added.as_bytes())) {
        return true;
    }
    // A name of printable ASCII (not the colon: the first one ends it), then
    // spaces or tabs, then the value.
    if name.is_empty() || !name.iter().all(|&byte| (0x21..=0x7e).contains(&byte)) {
        return false;
    }
    let value = &line[colon + 1..];
    let value = &value[value.iter().take_while(|&&byte| byte == b' ' || byte == b'\t').count()..];
    // is_status_value skips leading white space of any kind; only spaces and
    // tabs may come before the value here, so it must start with its word.
    if !matches!(value.first(), Some(b'Y' | b'N' | b'U')) {
        return false;
    }
    // What follows the value's fixed part may be any bytes: the part is ASCII.
    let text = match std::str::from_utf8(value) {
        Ok(text) => text,
        Err(error) => std::str::from_utf8(&value[..error.valid_up_to()]).unwrap_or_default(),
    };
    is_status_value(text)
}

/// The header (each line ending in LF) without the fields delivery added,
/// their continuation lines (starting with a space or a tab) with them.
fn without_added_fields(head: &[u8]) -> Vec<u8> {
    let mut kept = Vec::with_capacity(head.len());
    let mut dropping = false;
    for line in head.split_inclusive(|&byte| byte == b'\n') {
        if !matches!(line.first(), Some(b' ' | b'\t')) {
            dropping = is_added(line.strip_suffix(b"\n").unwrap_or(line));
        }
        if !dropping {
            kept.extend_from_slice(line);
        }
    }
    kept
}

/// `raw` with each CRLF made LF: borrowed when it holds none (most mail on
/// disk), else copied a line at a time (a byte at a time was most of the
/// digest's cost after SHA-256 itself).
fn without_crs(raw: &[u8]) -> Cow<'_, [u8]> {
    let mut ends = memchr::memmem::find_iter(raw, b"\r\n").peekable();
    if ends.peek().is_none() {
        return Cow::Borrowed(raw);
    }
    let mut data = Vec::with_capacity(raw.len());
    let mut from = 0;
    for at in ends {
        data.extend_from_slice(&raw[from..at]);
        from = at + 1; // the LF is kept
    }
    data.extend_from_slice(&raw[from..]);
    Cow::Owned(data)
}

pub fn message_digest(raw: &[u8]) -> u64 {
    let data = without_crs(raw);
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
    let mut with_end = head.to_vec();
    with_end.push(b'\n');
    let mut head = without_added_fields(&with_end);
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
    use crate::mail::status::STATUS_HEADER;

    /// The value `spamnb filter` writes, as a regular expression: the oracle
    /// the scan is held to.
    const STATUS_VALUE: &str = r"(?:Yes|No|Unsure), score=[0-9.]+, log-odds=[-+]?(?:[0-9.]+|inf), model=";

    /// The rule as first written, a byte at a time: every CR followed by an LF goes.
    fn without_crs_bytewise(raw: &[u8]) -> Vec<u8> {
        let mut data = Vec::new();
        for (i, &byte) in raw.iter().enumerate() {
            if !(byte == b'\r' && raw.get(i + 1) == Some(&b'\n')) {
                data.push(byte);
            }
        }
        data
    }

    #[test]
    fn line_ends_go_as_the_bytewise_rule_takes_them_out() {
        for raw in [&b""[..], b"\r", b"\n", b"\r\n", b"\r\r\n", b"\r\n\r\n", b"a\rb\r\nc\r", b"\n\r\n\r",
                    b"From x\r\nSubject: y\r\n\r\nbody\r\r\n\r"] {
            assert_eq!(without_crs(raw).as_ref(), without_crs_bytewise(raw).as_slice(), "{raw:?}");
        }
        assert!(matches!(without_crs(b"no carriage returns\n"), Cow::Borrowed(_)));
    }

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

    /// The rule as regexes (how it was first written): the scan must take out
    /// exactly what they take out.
    fn regexes() -> Vec<regex::bytes::Regex> {
        use regex::bytes::Regex;
        let named = |name: &str| {
            Regex::new(&format!(r"(?mi-u)^{}:[^\n]*\n(?:[ \t][^\n]*\n)*", regex::escape(name))).unwrap()
        };
        let any_status = Regex::new(&format!(
            r"(?m-u)^[\x21-\x39\x3b-\x7e]+:[ \t]*{}[^\n]*\n(?:[ \t][^\n]*\n)*",
            STATUS_VALUE
        ))
        .unwrap();
        vec![
            named(STATUS_HEADER),
            any_status,
            named("X-Spam-Flag"),
            named("X-Spam-Level"),
            named("X-Spam-Status"),
        ]
    }

    fn by_regexes(patterns: &[regex::bytes::Regex], head: &[u8]) -> Vec<u8> {
        let mut head = head.to_vec();
        for pattern in patterns {
            head = pattern.replace_all(&head, &b""[..]).into_owned();
        }
        head
    }

    #[test]
    fn the_scan_takes_out_what_the_regexes_do() {
        let lines: [&[u8]; 22] = [
            b"Subject: x",
            b"X-Spamnb-Status: Yes, score=0.99, log-odds=6.64, model=m",
            b"x-spamnb-status: anything",
            b"X-Spamnb-Status : not this one",
            b"X-Custom: No, score=0.1, log-odds=-inf, model=m, reason=\"r\"",
            b"X-Custom:\t Unsure, score=., log-odds=+1.5, model=",
            b"X-Custom: \x0bYes, score=1, log-odds=1, model=m",
            b"X-Custom: Yes, score=, log-odds=1, model=m",
            b"X-Custom: Yes, score=1, log-odds=infinity, model=m",
            b"X C: Yes, score=1, log-odds=1, model=m",
            b"\xff: Yes, score=1, log-odds=1, model=m",
            b"X-Custom: Yes, score=1, log-odds=1, model=\xff\xfe",
            b"X-SPAM-FLAG: YES",
            b"X-Spam-Level: ***",
            b"X-Spam-Status: Yes, score=9.9",
            b"X-Spam-Statuses: no",
            b" continued",
            b"\tcontinued",
            b"",
            b":",
            b"Received: from a\r",
            b"no colon here",
        ];
        // Every sequence of up to three lines (each may also start the header).
        let patterns = regexes();
        let mut checked = 0;
        for a in lines {
            for b in lines {
                for c in lines {
                    let mut head = Vec::new();
                    for line in [a, b, c] {
                        head.extend_from_slice(line);
                        head.push(b'\n');
                    }
                    assert_eq!(without_added_fields(&head), by_regexes(&patterns, &head), "{:?}", String::from_utf8_lossy(&head));
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 22 * 22 * 22);
    }
}
