//! Header blocks: reading one (fields with their folds, the junk lines a
//! mail client skips, the mbox envelope, the bound on fields), finding a
//! field, and Content-Type's media type.

use super::scan::{blank_line_search, eol_len, is_blank, skip_to_eol, slice};

/// (lower-case name, raw value) of each field of a header block.
pub type Fields = Vec<(String, Vec<u8>)>;

// Fields read one by one per header block: the most in one message of the
// shared corpora is 125, and each costs time to read and decode, so millions
// of empty fields would cost seconds.  The rest of a
// longer block is skipped up to its first blank line, and a last field
// named "" (CUT_FIELD) says so: the message's decoder reports it as a token.
pub const MAX_FIELDS: usize = 2000;
pub const CUT_FIELD: &str = "";

/// A header field name byte: printable ASCII but ":".
#[inline]
fn is_name_byte(b: u8) -> bool {
    (0x21..=0x7e).contains(&b) && b != b':'
}

/// A field with its continuation lines, in one match: the name, blanks,
/// ":" and the value with its folds, then its line end.  (Blanks between
/// the name and the colon are RFC 5322's obsolete syntax (4.5.3), which a
/// reader must accept: "Subject :" and "Content-Type :" are what a mail
/// client reads as those fields, and reading them as the start of the body
/// let one blank hide a message's Content-Type.)
/// Returns (name end, value start, value end, match end).
fn match_field(d: &[u8], pos: usize) -> Option<(usize, usize, usize, usize)> {
    let mut i = pos;
    while i < d.len() && is_name_byte(d[i]) {
        i += 1;
    }
    if i == pos {
        return None;
    }
    let name_end = i;
    while i < d.len() && is_blank(d[i]) {
        i += 1;
    }
    if i >= d.len() || d[i] != b':' {
        return None;
    }
    let value_start = i + 1;
    let mut j = value_start;
    loop {
        j = skip_to_eol(d, j);
        let e = eol_len(d, j);
        if e > 0 && j + e < d.len() && is_blank(d[j + e]) {
            j += e + 1;
            continue;
        }
        break;
    }
    Some((name_end, value_start, j, j + eol_len(d, j)))
}

/// Any other line a header block may hold: an mbox "From " line, a field
/// with no name, a continuation with no field before it.  Its end.
fn match_other_line(d: &[u8], pos: usize) -> Option<usize> {
    let first = *d.get(pos)?;
    if !(d[pos..].starts_with(b"From ") || first == b':' || is_blank(first)) {
        return None;
    }
    let j = skip_to_eol(d, pos);
    Some(j + eol_len(d, j))
}

/// From a line that is neither a field nor a blank line: the line end
/// before the next line that is a field, blank (or blanks only), or starts
/// "<" or "--" (one scan, no step per line).  (position, whether that line
/// is a field).
fn next_field_or_blank(d: &[u8], from: usize) -> Option<(usize, bool)> {
    let mut p = from;
    while p < d.len() {
        p = skip_to_eol(d, p);
        if p >= d.len() {
            return None;
        }
        let t = p + eol_len(d, p);
        // A field's name and colon.
        let mut i = t;
        while i < d.len() && is_name_byte(d[i]) {
            i += 1;
        }
        if i > t {
            let mut k = i;
            while k < d.len() && is_blank(d[k]) {
                k += 1;
            }
            if k < d.len() && d[k] == b':' {
                return Some((p, true));
            }
        }
        // Blanks only up to a line end or the end.
        let mut k = t;
        while k < d.len() && is_blank(d[k]) {
            k += 1;
        }
        if k >= d.len() || eol_len(d, k) > 0 {
            return Some((p, false));
        }
        if d[t] == b'<' || d[t..].starts_with(b"--") {
            return Some((p, false));
        }
        p += 1;
    }
    None
}

/// Read the header block at data[start..end].
///
/// Returns ([(lower-case name, raw value)], body start, pushed-back line).
/// The value is the raw bytes after the colon, leading blanks and the last
/// line end removed, folds kept.  The block ends at a blank line (dropped) or
/// at the first line that is neither a field nor a continuation (which
/// starts the body).  As in the email package: a first line "From " is the
/// mbox envelope and dropped, a "From " line as the block's last line is the
/// first line of the body (the pushed-back line), one elsewhere is dropped,
/// and so are a field with no name and a continuation with no field before it.
/// The body start may be `end + 1` (a blank line's CRLF read past `end`, as
/// the Python does); slicing treats it as empty.
pub fn read_headers(data: &[u8], start: usize, end: usize) -> (Fields, usize, Vec<u8>) {
    let end = end.min(data.len());
    let d = &data[..end];
    let mut fields: Fields = Vec::new();
    let mut envelope: Option<(usize, usize)> = None; // a "From " line that may turn out to be the block's last
    let mut pos = start;
    while pos < end {
        if fields.len() >= MAX_FIELDS {
            pos = match blank_line_search(d, pos.saturating_sub(1)) {
                None => end,
                Some(b) => {
                    let first = b + eol_len(data, b);
                    first + eol_len(data, first)
                }
            };
            fields.push((CUT_FIELD.to_string(), Vec::new()));
            envelope = None;
            break;
        }
        if let Some((name_end, value_start, value_end, match_end)) = match_field(d, pos) {
            let name = String::from_utf8_lossy(&d[pos..name_end]).to_ascii_lowercase();
            let mut v = value_start;
            while v < value_end && is_blank(d[v]) {
                v += 1;
            }
            fields.push((name, d[v..value_end].to_vec()));
            pos = match_end;
            envelope = None;
            continue;
        }
        match match_other_line(d, pos) {
            Some(line_end) => {
                envelope = if pos > start && data[pos..].starts_with(b"From ") {
                    Some((pos, line_end))
                } else {
                    None
                };
                pos = line_end;
            }
            None => {
                if d[pos] == b'\r' || d[pos] == b'\n' {
                    // the blank separator line
                    pos += eol_len(d, pos);
                    break;
                }
                // A line that is no field.  The email package ends the block
                // here, but mime4j (by default) and, as far as we can tell,
                // Thunderbird skip such a line and read on to the blank line: a
                // spammer's one junk line hid the Content-Type after it from us
                // (its base64 HTML scored as letters, -6.42), not from the
                // reader.  So when a field follows before any blank line, the
                // junk lines are skipped (not scored: no client shows them);
                // otherwise the line starts the body, as a mailer that forgot
                // the blank line meant.  A line of blanks only, or one starting
                // "<" or "--", also ends the search: HTML and boundary lines
                // are a body whose blank line was lost (trec06p has mail turned
                // into web pages, "<p>" for each blank line, and HTML bodies
                // right after the header whose CSS "margin-left: 0px" would
                // read as fields); a spammer gains nothing by starting a junk
                // line so, since then the fields after it are read as the body.
                if data[pos] == b'<' || data[pos..].starts_with(b"--") {
                    break;
                }
                match next_field_or_blank(d, pos) {
                    Some((at, true)) => {
                        pos = at + eol_len(d, at);
                        envelope = None;
                    }
                    _ => break,
                }
            }
        }
    }
    let pushback = match envelope {
        Some((a, b)) => slice(data, a, b).to_vec(),
        None => Vec::new(),
    };
    (fields, pos, pushback)
}

/// The raw value of the first field called `name` (lower case), or None.
///
/// Content-Type is the first such field whose type is of the form
/// type/subtype: one that is not is unusable (RFC 2045 5.2 would read the
/// part as text/plain), and a spammer who puts a garbage Content-Type
/// before the real one should not turn a base64 HTML part into letters for
/// us only.  With two usable ones the first wins, as in every reader.
pub fn field<'a>(fields: &'a [(String, Vec<u8>)], name: &str) -> Option<&'a [u8]> {
    let mut first: Option<&'a [u8]> = None;
    for (key, value) in fields {
        if key == name {
            if name != "content-type" || media_type(value).is_some() {
                return Some(value);
            }
            if first.is_none() {
                first = Some(value);
            }
        }
    }
    first
}

/// A media type token byte (RFC 2045's token: `[!#-'*+.0-9A-Z^-~-]`).
#[inline]
fn is_type_byte(b: u8) -> bool {
    matches!(b, b'!' | b'#'..=b'\'' | b'*' | b'+' | b'.' | b'0'..=b'9' | b'A'..=b'Z' | b'^'..=b'~' | b'-')
}

#[inline]
fn is_fws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// type "/" subtype, blanks allowed around the slash; what follows the
/// subtype before the first ";" (a comment, garbage) is ignored, as the email
/// package's policy.default and Thunderbird's first-token reading do:
/// "text/html garbage" is text/html to a client.
pub(super) fn media_type(value: &[u8]) -> Option<String> {
    let mut i = 0;
    while i < value.len() && is_fws(value[i]) {
        i += 1;
    }
    let a = i;
    while i < value.len() && is_type_byte(value[i]) {
        i += 1;
    }
    if i == a {
        return None;
    }
    let main = &value[a..i];
    while i < value.len() && is_fws(value[i]) {
        i += 1;
    }
    if i >= value.len() || value[i] != b'/' {
        return None;
    }
    i += 1;
    while i < value.len() && is_fws(value[i]) {
        i += 1;
    }
    let b = i;
    while i < value.len() && is_type_byte(value[i]) {
        i += 1;
    }
    if i == b {
        return None;
    }
    let mut out = String::with_capacity(main.len() + 1 + i - b);
    out.extend(main.iter().map(|&c| c.to_ascii_lowercase() as char));
    out.push('/');
    out.extend(value[b..i].iter().map(|&c| c.to_ascii_lowercase() as char));
    Some(out)
}

/// Lower-case "type/subtype"; `default` without a Content-Type field,
/// text/plain when no Content-Type field is of that form (RFC 2045 5.2).
pub fn content_type(fields: &[(String, Vec<u8>)], default: &str) -> String {
    match field(fields, "content-type") {
        None => default.to_string(),
        Some(value) => media_type(value).unwrap_or_else(|| "text/plain".to_string()),
    }
}
