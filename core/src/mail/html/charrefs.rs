//! Character references decoded as html.unescape decodes them (its tables:
//! entities.rs, generated).

use std::borrow::Cow;

use super::entities;
use super::Stop;

/// Python's int() refuses a decimal string of more digits than this
/// (sys.get_int_max_str_digits()), so html.unescape raises on such a
/// reference and reading stops there.
const INT_MAX_STR_DIGITS: usize = 4300;

/// html.unescape: `&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)`
/// replaced as the HTML5 spec says.  Err where Python's int() refuses the
/// digits of a decimal reference.
pub(super) fn unescape(s: &str) -> Result<Cow<'_, str>, Stop> {
    let b = s.as_bytes();
    let Some(first) = memchr::memchr(b'&', b) else {
        return Ok(Cow::Borrowed(s));
    };
    let mut out = String::with_capacity(s.len());
    let mut copied = 0; // s[..copied] is in `out` (or replaced)
    let mut at = first;
    loop {
        // b[at] == '&'
        let reference = at + 1;
        let mut matched: Option<usize> = None; // the end of the reference
        if b.get(reference) == Some(&b'#') {
            let digits = reference + 1;
            if b.get(digits).is_some_and(u8::is_ascii_digit) {
                let mut end = digits;
                while end < b.len() && b[end].is_ascii_digit() {
                    end += 1;
                }
                if end - digits > INT_MAX_STR_DIGITS {
                    return Err(Stop);
                }
                let number = b[digits..end].iter().fold(0u32, |n, d| {
                    n.saturating_mul(10)
                        .saturating_add((d - b'0') as u32)
                        .min(0x11_0000)
                });
                let end = if b.get(end) == Some(&b';') {
                    end + 1
                } else {
                    end
                };
                out.push_str(&s[copied..at]);
                push_numeric(&mut out, number);
                matched = Some(end);
            } else if matches!(b.get(digits), Some(b'x' | b'X'))
                && b.get(digits + 1).is_some_and(u8::is_ascii_hexdigit)
            {
                let mut end = digits + 1;
                let mut number = 0u32;
                while end < b.len() && b[end].is_ascii_hexdigit() {
                    let digit = (b[end] as char).to_digit(16).unwrap_or(0);
                    number = number
                        .saturating_mul(16)
                        .saturating_add(digit)
                        .min(0x11_0000);
                    end += 1;
                }
                let end = if b.get(end) == Some(&b';') {
                    end + 1
                } else {
                    end
                };
                out.push_str(&s[copied..at]);
                push_numeric(&mut out, number);
                matched = Some(end);
            }
        } else {
            // [^\t\n\f <&#;]{1,32};?
            let mut end = reference;
            let mut count = 0;
            for c in s[reference..].chars() {
                if count == 32 || matches!(c, '\t' | '\n' | '\x0c' | ' ' | '<' | '&' | '#' | ';') {
                    break;
                }
                end += c.len_utf8();
                count += 1;
            }
            if count > 0 {
                if b.get(end) == Some(&b';') {
                    end += 1;
                }
                out.push_str(&s[copied..at]);
                push_named(&mut out, &s[reference..end]);
                matched = Some(end);
            }
        }
        let next_from = match matched {
            Some(end) => {
                copied = end;
                end
            }
            None => at + 1,
        };
        match memchr::memchr(b'&', &b[next_from..]) {
            Some(offset) => at = next_from + offset,
            None => break,
        }
    }
    out.push_str(&s[copied..]);
    Ok(Cow::Owned(out))
}

fn push_numeric(out: &mut String, number: u32) {
    if let Some(replacement) = entities::invalid_charref(number) {
        out.push_str(replacement);
    } else if (0xD800..=0xDFFF).contains(&number) || number > 0x10FFFF {
        out.push('\u{fffd}');
    } else if entities::invalid_codepoint(number) {
    } else if let Some(c) = char::from_u32(number) {
        out.push(c);
    }
}

fn named(name: &str) -> Option<&'static str> {
    entities::NAMED
        .binary_search_by(|(key, _)| (*key).cmp(name))
        .ok()
        .map(|index| entities::NAMED[index].1)
}

fn push_named(out: &mut String, name: &str) {
    if let Some(value) = named(name) {
        out.push_str(value);
        return;
    }
    // the longest name that is a prefix (as the standard defines it), of at
    // least two characters
    let ends: Vec<usize> = name
        .char_indices()
        .map(|(index, _)| index)
        .skip(2)
        .collect();
    for &end in ends.iter().rev() {
        if let Some(value) = named(&name[..end]) {
            out.push_str(value);
            out.push_str(&name[end..]);
            return;
        }
    }
    out.push('&');
    out.push_str(name);
}
