//! uuencoded bodies: the begin line found and the lines up to "end" decoded,
//! as the email package does, a block of lines at a time.

use memchr::memmem;

use super::binascii::a2b_uu;
use super::scan::{eol_len, skip_to_eol};

/// bytes.splitlines(): lines split at CRLF, CR or LF, line ends dropped.
fn splitlines(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut p = 0;
    while p < data.len() {
        let e = skip_to_eol(data, p);
        out.push(&data[p..e]);
        p = e + eol_len(data, e);
    }
    out
}

/// Python's int(token, 8) accepts this token (blanks, sign, "0o", "_" between digits).
pub(super) fn is_octal_int(token: &[u8]) -> bool {
    let is_space = |c: &u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let mut t = token;
    while let [c, rest @ ..] = t {
        if is_space(c) { t = rest } else { break }
    }
    while let [rest @ .., c] = t {
        if is_space(c) { t = rest } else { break }
    }
    if let [b'+' | b'-', rest @ ..] = t {
        t = rest;
    }
    let mut after_prefix = false;
    if t.len() >= 2 && t[0] == b'0' && (t[1] == b'o' || t[1] == b'O') {
        t = &t[2..];
        after_prefix = true;
    }
    // digits separated by single underscores; after "0o" one may lead
    if after_prefix {
        if let [b'_', rest @ ..] = t {
            t = rest;
        }
    }
    if t.is_empty() {
        return false;
    }
    let mut previous_digit = false;
    for &c in t {
        match c {
            b'0'..=b'7' => previous_digit = true,
            b'_' if previous_digit => previous_digit = false,
            _ => return false,
        }
    }
    previous_digit
}

// uuencoded data as the email package reads it (its _decode_uu, over
// bytes.splitlines' lines): from the first line "begin MODE ..." whose MODE
// is octal, up to a line "end" (blanks around it), an empty line before that
// making the whole body unreadable.  Read a block of lines at a time: all
// lines and their decodings held at once would take memory in proportion to
// the body (hundreds of MB for millions of short lines).
const UU_BLOCK: usize = 1 << 16;

pub(super) fn uudecode(encoded: &[u8]) -> Result<Vec<u8>, ()> {
    // The begin lines: one at the start, then each after a CR or LF.
    let mut begin_end: Option<usize> = None;
    let mut candidates = Vec::new();
    if encoded.starts_with(b"begin ") {
        candidates.push(0usize);
    }
    for at in memmem::find_iter(encoded, b"begin ") {
        if at > 0 && (encoded[at - 1] == b'\r' || encoded[at - 1] == b'\n') {
            candidates.push(at);
        }
    }
    for at in candidates {
        let line_end = skip_to_eol(encoded, at + 6);
        let mode = &encoded[at + 6..line_end];
        let token = match memchr::memchr(b' ', mode) {
            Some(i) => &mode[..i],
            None => mode,
        };
        if is_octal_int(token) {
            begin_end = Some(line_end);
            break;
        }
    }
    let Some(begin_end) = begin_end else { return Err(()) }; // no begin line
    let brk = eol_len(encoded, begin_end);
    if brk == 0 {
        return Ok(Vec::new()); // the begin line is the last line
    }
    let end = encoded.len();
    let mut start = begin_end + brk;
    let mut out = Vec::new();
    while start < end {
        // whole lines: a block ends after a line break (CRLF is one)
        let cut = if start + UU_BLOCK < end {
            let p = skip_to_eol(encoded, start + UU_BLOCK);
            if p >= end { end } else { p + eol_len(encoded, p) }
        } else {
            end
        };
        let mut lines = splitlines(&encoded[start..cut]);
        let mut count = lines.len();
        if memmem::find(&encoded[start..cut], b"end").is_some() {
            let strip = |l: &[u8]| -> bool {
                let s: &[u8] = {
                    let mut t = l;
                    while let [c, rest @ ..] = t {
                        if matches!(c, b' ' | b'\t' | b'\r' | b'\n' | 0x0c) { t = rest } else { break }
                    }
                    while let [rest @ .., c] = t {
                        if matches!(c, b' ' | b'\t' | b'\r' | b'\n' | 0x0c) { t = rest } else { break }
                    }
                    t
                };
                s == b"end"
            };
            if let Some(i) = lines.iter().position(|l| strip(l)) {
                count = i;
            }
        }
        if let Some(i) = lines.iter().position(|l| l.is_empty()) {
            if i < count {
                return Err(()); // truncated
            }
        }
        let ended = count < lines.len();
        lines.truncate(count);
        let mut block = Vec::new();
        let mut whole = true;
        for line in &lines {
            match a2b_uu(line) {
                Ok(b) => block.extend(b),
                Err(()) => {
                    whole = false;
                    break;
                }
            }
        }
        if !whole {
            // Broken encoders: each line cut to what its length byte
            // announces (the email package does so for a line that fails
            // whole; a line that decodes whole decodes the same cut so).
            block.clear();
            for line in &lines {
                let first = line.first().copied().unwrap_or(0);
                let length = ((first.wrapping_sub(32) & 63) as usize * 4 + 5) / 3;
                block.extend(a2b_uu(&line[..length.min(line.len())])?);
            }
        }
        out.extend(block);
        if ended {
            break;
        }
        start = cut;
    }
    Ok(out)
}
