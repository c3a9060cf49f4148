//! Line scanning the whole MIME reader shares: line ends (CRLF, LF or a
//! lone CR, as in the email package), the search for a blank line, a byte
//! search from a position, and slicing that never fails.

use memchr::memchr2;

/// The length of the line end at `p` of `d` (CRLF is one line end), 0 if none.
#[inline]
pub(super) fn eol_len(d: &[u8], p: usize) -> usize {
    match d.get(p) {
        Some(b'\r') => {
            if d.get(p + 1) == Some(&b'\n') {
                2
            } else {
                1
            }
        }
        Some(b'\n') => 1,
        _ => 0,
    }
}

/// The first position at or after `p` holding CR or LF, or `d.len()`.
#[inline]
pub(super) fn skip_to_eol(d: &[u8], p: usize) -> usize {
    if p >= d.len() {
        return d.len();
    }
    match memchr2(b'\r', b'\n', &d[p..]) {
        Some(i) => p + i,
        None => d.len(),
    }
}

#[inline]
pub(super) fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `data[start..end]`, empty when the range is empty or out of the buffer
/// (Python's slicing never fails).
#[inline]
pub(super) fn slice(data: &[u8], start: usize, end: usize) -> &[u8] {
    let end = end.min(data.len());
    if start >= end {
        &[]
    } else {
        &data[start..end]
    }
}

/// The first blank line at or after `from`: the position of the line end
/// ending the line before it (`(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r|\n)`).
pub(super) fn blank_line_search(d: &[u8], from: usize) -> Option<usize> {
    let mut p = from;
    while p < d.len() {
        p = skip_to_eol(d, p);
        if p >= d.len() {
            return None;
        }
        let e = eol_len(d, p);
        if eol_len(d, p + e) > 0 {
            return Some(p);
        }
        p += 1;
    }
    None
}

pub(super) fn find_from(hay: &[u8], byte: u8, from: usize) -> Option<usize> {
    if from >= hay.len() {
        return None;
    }
    memchr::memchr(byte, &hay[from..]).map(|i| from + i)
}
