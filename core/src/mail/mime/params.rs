//! Parameters of a structured field (Content-Type's charset, boundary and
//! name, Content-Disposition's filename): splitting them out, RFC 2231's
//! encoded and continued values, the bound on how many are read, and the
//! lookups the decoder makes with them.

use memchr::memmem;

use super::headers::field;
use super::scan::find_from;

/// Python's str.isspace for one character (Unicode White_Space plus the
/// information separators U+001C..U+001F, which Python counts as blanks).
#[inline]
pub(crate) fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's str.strip().
pub(crate) fn py_strip(s: &str) -> &str {
    s.trim_matches(py_isspace)
}

/// A parameter value: a string, or (charset, language, text) when the
/// parameter was RFC 2231 encoded.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    Text(String),
    Encoded(Option<String>, Option<String>, String),
}

/// The email package hands out a value holding 8-bit bytes as a Header
/// whose str() turns each such byte into U+FFFD; parameters are read so.
fn ascii_replace(value: &[u8]) -> String {
    value.iter().map(|&b| if b < 0x80 { b as char } else { '\u{fffd}' }).collect()
}

fn unquote(value: &str) -> String {
    let b = value.as_bytes();
    if b.len() > 1 {
        if b[0] == b'"' && b[b.len() - 1] == b'"' {
            return value[1..value.len() - 1].replace("\\\\", "\\").replace("\\\"", "\"");
        }
        if b[0] == b'<' && b[b.len() - 1] == b'>' {
            return value[1..value.len() - 1].to_string();
        }
    }
    value.to_string()
}

/// `value` escaped for the inside of a quoted string (parameters here,
/// display names in addresses.rs).
pub fn quote(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Non-overlapping occurrences of `needle` in `hay[a..b]`, as str.count.
fn count(hay: &[u8], needle: &[u8], a: usize, b: usize) -> usize {
    if a >= b {
        return 0;
    }
    memmem::find_iter(&hay[a..b], needle).fold((0usize, 0usize), |(n, next), at| {
        if at >= next {
            (n + 1, at + needle.len())
        } else {
            (n, next)
        }
    }).0
}


/// A ";" inside an odd number of (unescaped) quotes does not end a parameter.
fn split_params(value: &str) -> Vec<String> {
    let v = value.as_bytes();
    let length = v.len();
    let find = |from: usize| -> Option<usize> { find_from(v, b';', from) };
    let quotes_in = |a: usize, b: usize| count(v, b"\"", a, b) - count(v, b"\\\"", a, b);
    let mut out = Vec::new();
    let mut position = 0usize;
    while position <= length {
        let mut end = find(position);
        if let Some(e) = end {
            if e > position {
                let mut quotes = quotes_in(position, e);
                while quotes % 2 == 1 {
                    let Some(at) = end else { break };
                    let following = find(at + 1);
                    quotes += quotes_in(at, following.unwrap_or(length));
                    end = following;
                }
            }
        }
        let end = end.unwrap_or(length);
        // ";" is ASCII: every cut is at a character boundary.
        let item = &value[position..end];
        let item = match item.find('=') {
            Some(eq) => format!("{}={}", py_strip(&item[..eq]).to_lowercase(), py_strip(&item[eq + 1..])),
            None => item.to_string(),
        };
        out.push(py_strip(&item).to_string());
        position = end + 1;
    }
    out
}

// Parameters read per field: each cost a couple of microseconds of Python,
// and a message can have 500 parts.  Real mail has a few; the most in the
// shared corpora is one spam's Content-Type of 7,138 empty ones ("; ; ;"),
// none after the first.  Those past the bound are not read; params_cut()
// tells whether any of them held something (the decoder reports it).
pub const MAX_PARAMS: usize = 256;

/// The position of the `n`th ";" (1-based) of `value`, if it has that many.
fn nth_semicolon(value: &[u8], n: usize) -> Option<usize> {
    memchr::memchr_iter(b';', value).nth(n - 1)
}

/// Whether params() leaves out parameters of `value` that are not empty.
pub fn params_cut(value: Option<&[u8]>) -> bool {
    let Some(value) = value else { return false };
    if memchr::memchr_iter(b';', value).count() <= MAX_PARAMS {
        return false;
    }
    let Some(at) = nth_semicolon(value, MAX_PARAMS) else { return false };
    value[at + 1..].iter().any(|b| !matches!(b, b';' | b' ' | b'\t' | b'\r' | b'\n'))
}

// An RFC 2231 section number has at most 4 digits here: Python's int()
// refuses a string of over 4,300 digits, and one spam parameter
// x*<5,000 nines>*=a made the whole message unreadable (its base64 body was
// scored undecoded, +4.99 became -0.85).  A longer "number" is no section:
// the parameter is kept under its literal name, which nothing reads.
/// `name*`, `name*N` or `name*N*` (N of 1 to 4 digits): (name, N or -1).
fn continuation(key: &str) -> Option<(&str, i32)> {
    let b = key.as_bytes();
    let star = key.find('*')?;
    if star == 0 || !b[..star].iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_') {
        return None;
    }
    let rest = &b[star + 1..];
    if rest.is_empty() {
        return Some((&key[..star], -1));
    }
    let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits > 4 {
        return None;
    }
    let tail = &rest[digits..];
    if !(tail.is_empty() || tail == b"*") {
        return None;
    }
    let number = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    Some((&key[..star], number))
}

/// %XX → the octet, read as Latin-1 (urllib.parse.unquote(encoding="latin-1")):
/// two ASCII hex digits after "%", else the "%" is kept as it is.
fn percent_unquote_latin1(piece: &str) -> String {
    if !piece.contains('%') {
        return piece.to_string();
    }
    let b = piece.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = String::with_capacity(piece.len());
    let mut i = 0;
    let mut plain = 0; // start of the text not yet copied
    while i < b.len() {
        if b[i] == b'%' {
            if let (Some(&h), Some(&l)) = (b.get(i + 1), b.get(i + 2)) {
                if let (Some(h), Some(l)) = (hex(h), hex(l)) {
                    out.push_str(&piece[plain..i]);
                    out.push(char::from((h * 16 + l) as u8));
                    i += 3;
                    plain = i;
                    continue;
                }
            }
        }
        i += 1;
    }
    out.push_str(&piece[plain..]);
    out
}

/// An RFC 2231 parameter's sections: (number or -1, value, whether encoded).
type Sections = Vec<(i32, String, bool)>;

/// [(name, value)] of a structured field, its first item ("text/plain")
/// included.  A value is a str, or (charset, language, text) when the
/// parameter was RFC 2231 encoded; continuations (`name*0*=`) are joined.
pub fn params(value: Option<&[u8]>) -> Vec<(String, ParamValue)> {
    let Some(mut value) = value else { return Vec::new() };
    if let Some(at) = nth_semicolon(value, MAX_PARAMS + 1) {
        // More than MAX_PARAMS: up to (not including) the MAX_PARAMS-th ";".
        let _ = at;
        let cut = nth_semicolon(value, MAX_PARAMS).unwrap_or(value.len());
        value = &value[..cut];
    }
    // Unfolded first (RFC 5322 2.2.3: a fold is the line end alone, the
    // blank after it stays): a quoted boundary="simple folded onto the next
    // line as ' boundary"' is "simple boundary" to a mail client, and kept
    // with its line end it matched no line, so no part was found (-4.19).
    let unfolded: Vec<u8>;
    let value: &[u8] = if value.iter().any(|&b| b == b'\r' || b == b'\n') {
        unfolded = value.iter().copied().filter(|&b| b != b'\r' && b != b'\n').collect();
        &unfolded
    } else {
        value
    };
    let items: Vec<(String, String)> = split_params(&ascii_replace(value))
        .into_iter()
        .map(|item| match item.find('=') {
            Some(eq) => (py_strip(&item[..eq]).to_string(), py_strip(&item[eq + 1..]).to_string()),
            None => (py_strip(&item).to_string(), String::new()),
        })
        .collect();
    let mut out: Vec<(String, ParamValue)> = Vec::new();
    let mut items = items.into_iter();
    if let Some((k, v)) = items.next() {
        out.push((k, ParamValue::Text(v)));
    }
    // name → [(section, value, encoded)], in first-seen order.
    let mut extended: Vec<(String, Sections)> = Vec::new();
    for (key, val) in items {
        let encoded = key.ends_with('*');
        let val = unquote(&val);
        match continuation(&key) {
            Some((name, number)) => {
                let name = name.to_string();
                match extended.iter_mut().find(|(k, _)| *k == name) {
                    Some((_, pieces)) => pieces.push((number, val, encoded)),
                    None => extended.push((name, vec![(number, val, encoded)])),
                }
            }
            None => out.push((key, ParamValue::Text(format!("\"{}\"", quote(&val))))),
        }
    }
    for (key, mut pieces) in extended {
        pieces.sort();
        let mut joined = String::new();
        let mut is_extended = false;
        for (_, piece, encoded) in pieces {
            if encoded {
                joined.push_str(&percent_unquote_latin1(&piece)); // %XX → one character per octet
                is_extended = true;
            } else {
                joined.push_str(&piece);
            }
        }
        let text = quote(&joined);
        if is_extended {
            let split: Vec<&str> = text.splitn(3, '\'').collect();
            if split.len() == 3 {
                out.push((key, ParamValue::Encoded(Some(split[0].to_string()), Some(split[1].to_string()),
                                                   format!("\"{}\"", split[2]))));
            } else {
                out.push((key, ParamValue::Encoded(None, None, format!("\"{}\"", text))));
            }
        } else {
            out.push((key, ParamValue::Text(format!("\"{}\"", text))));
        }
    }
    out
}

/// The first parameter `name` of field `header`, unquoted, or None.
pub fn param(fields: &[(String, Vec<u8>)], name: &str, header: &str) -> Option<ParamValue> {
    for (key, value) in params(field(fields, header)) {
        if key.to_lowercase() == name {
            return Some(match value {
                ParamValue::Encoded(c, l, t) => ParamValue::Encoded(c, l, unquote(&t)),
                ParamValue::Text(t) => ParamValue::Text(unquote(&t)),
            });
        }
    }
    None
}

/// A parameter value as text: an RFC 2231 triple decoded with its charset.
///
/// A charset that is no text charset (idna, punycode, rot13, an unknown
/// name) is not used: the octets are read as Latin-1, one character each,
/// as a client that does not know the label shows them.  `boundary*=idna''...`
/// raised UnicodeError in the Python, the message was read as raw text and
/// its parts never decoded (+5.39 became +0.02).
pub fn collapse(value: &ParamValue) -> String {
    match value {
        ParamValue::Text(t) => unquote(t),
        ParamValue::Encoded(charset, _, text) => {
            // text.encode("raw-unicode-escape"): Latin-1 octets, \uXXXX above.
            let mut raw = Vec::with_capacity(text.len());
            for c in text.chars() {
                let n = c as u32;
                if n < 0x100 {
                    raw.push(n as u8);
                } else if n < 0x10000 {
                    raw.extend_from_slice(format!("\\u{:04x}", n).as_bytes());
                } else {
                    raw.extend_from_slice(format!("\\U{:08x}", n).as_bytes());
                }
            }
            decode_with_label(&raw, charset.as_deref())
        }
    }
}

/// str(raw, codec_for(label) or "latin-1", "replace"); us-ascii without a label.
/// Python's codecs are approximated with encoding_rs's (WHATWG) decoders,
/// except for the labels WHATWG maps to another charset than Python does
/// (ASCII and Latin-1 are windows-1252 there).
fn decode_with_label(raw: &[u8], label: Option<&str>) -> String {
    let latin1 = |raw: &[u8]| raw.iter().map(|&b| b as char).collect::<String>();
    let ascii = |raw: &[u8]| raw.iter().map(|&b| if b < 0x80 { b as char } else { '\u{fffd}' }).collect::<String>();
    let Some(label) = label else { return ascii(raw) };
    let name = label.trim().trim_matches(|c| c == '"' || c == '\'').to_ascii_lowercase();
    let name = name.replace('_', "-");
    match name.as_str() {
        "" => return latin1(raw),
        "us-ascii" | "ascii" | "646" | "us" | "ansi-x3.4-1968" | "iso646-us" | "cp367" | "ibm367" => return ascii(raw),
        "latin-1" | "latin1" | "iso-8859-1" | "iso8859-1" | "8859" | "cp819" | "l1" | "iso-ir-100" | "ibm819"
        | "iso-8859-1:1987" => return latin1(raw),
        _ => {}
    }
    match encoding_rs::Encoding::for_label(name.as_bytes()) {
        Some(enc) if enc != encoding_rs::REPLACEMENT => enc.decode_without_bom_handling(raw).0.into_owned(),
        _ => latin1(raw),
    }
}

/// The lower-case charset parameter of Content-Type, or None.
pub fn charset(fields: &[(String, Vec<u8>)]) -> Option<String> {
    let value = collapse_value(param(fields, "charset", "content-type")?);
    if value.is_ascii() {
        Some(py_strip(&value).to_ascii_lowercase())
    } else {
        None
    }
}

fn collapse_value(value: ParamValue) -> String {
    match value {
        ParamValue::Text(t) => t,
        other => collapse(&other),
    }
}

/// Content-Disposition's filename, else Content-Type's name, else "".
pub fn filename(fields: &[(String, Vec<u8>)]) -> String {
    let value = param(fields, "filename", "content-disposition").or_else(|| param(fields, "name", "content-type"));
    match value {
        None => String::new(),
        Some(v) => py_strip(&collapse(&v)).to_string(),
    }
}
