//! Characters as html.parser's regular expressions see them, read over the
//! markup's UTF-8 bytes: Python's `\s` (`str.isspace`, Unicode's blanks
//! included), `str.strip()`, `name.lower()` and re.I's case pairs.

use std::borrow::Cow;

/// Python's `str.isspace`, which is also what `\s` matches in its `re`.
pub(super) fn is_space(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\x1c'..='\x1f'
            | ' '
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// `is_space` of an ASCII byte.
#[inline]
pub(super) fn is_ascii_space(byte: u8) -> bool {
    matches!(byte, b'\t'..=b'\r' | 0x1c..=0x1f | b' ')
}

/// Python's `str.strip()`.
pub(super) fn py_strip(text: &str) -> &str {
    text.trim_matches(is_space)
}

/// `name.lower()` as far as it matters here: the result is only compared
/// with ASCII names, and the only characters outside ASCII whose lower case
/// is ASCII are KELVIN SIGN (to "k") and LATIN CAPITAL LETTER I WITH DOT
/// ABOVE (to "i" and a combining dot, never an ASCII name), so every other
/// character is kept as it is.
pub(super) fn lower(name: &str) -> Cow<'_, str> {
    if name
        .bytes()
        .all(|b| !b.is_ascii_uppercase() && b.is_ascii())
    {
        return Cow::Borrowed(name);
    }
    Cow::Owned(
        name.chars()
            .map(|c| {
                if c == '\u{212a}' {
                    'k'
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect(),
    )
}

/// Whether `c` matches `letter` (ASCII lower case) under Python's re.I, for
/// the letters of "script" and "style": the case pairs of Unicode's simple
/// case folding, LONG S and the Turkish i's included.
pub(super) fn ignorecase_eq(c: char, letter: u8) -> bool {
    if c.is_ascii() {
        return c.to_ascii_lowercase() as u32 == letter as u32;
    }
    match letter {
        b's' => c == '\u{17f}',
        b'i' => c == '\u{130}' || c == '\u{131}',
        b'k' => c == '\u{212a}',
        _ => false,
    }
}

/// The byte length of the blank (`\s`) at `at`, 0 if there is none before `limit`.
#[inline]
pub(super) fn space_len(b: &[u8], at: usize, limit: usize) -> usize {
    if at >= limit {
        return 0;
    }
    let first = b[at];
    if first < 0x80 {
        return usize::from(is_ascii_space(first));
    }
    let (c, len) = char_at(b, at);
    if at + len <= limit && is_space(c) {
        len
    } else {
        0
    }
}

/// The character at `at` (a character boundary) and its length in bytes.
#[inline]
pub(super) fn char_at(b: &[u8], at: usize) -> (char, usize) {
    let lead = b[at];
    if lead < 0x80 {
        return (lead as char, 1);
    }
    let (len, mut code) = match lead {
        0xc0..=0xdf => (2, u32::from(lead & 0x1f)),
        0xe0..=0xef => (3, u32::from(lead & 0x0f)),
        _ => (4, u32::from(lead & 0x07)),
    };
    for offset in 1..len {
        code = (code << 6) | u32::from(b.get(at + offset).copied().unwrap_or(0x80) & 0x3f);
    }
    (char::from_u32(code).unwrap_or('\u{fffd}'), len)
}

/// Past the blanks (`\s*`) from `at`, before `limit`.
#[inline]
pub(super) fn skip_spaces(b: &[u8], mut at: usize, limit: usize) -> usize {
    loop {
        let len = space_len(b, at, limit);
        if len == 0 {
            return at;
        }
        at += len;
    }
}
