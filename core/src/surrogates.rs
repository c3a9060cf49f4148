//! Lone surrogates carried through Rust text.
//!
//! Python text may hold lone surrogates: the mail decoder carries the raw
//! 8-bit bytes of a header (an address's local part in a legacy charset) as
//! surrogate escapes (U+DC80..U+DCFF), and they reach tokens, whose keys hash
//! their "surrogatepass" UTF-8 (ED B2 A6 ...).  A Rust str cannot hold a
//! surrogate, so each is carried as a code point of plane 16's private use
//! area, U+10F800 + (surrogate - U+D800): like a surrogate it is no word,
//! space or digit character, and NFKC and case folding keep it, so every rule
//! reads it as the Python reads the surrogate.  Text from Python is read with
//! `from_surrogatepass` and tokens go back through `surrogatepass_bytes`.

/// The first code point standing for a surrogate (U+D800).
pub const SURROGATE_BASE: u32 = 0x10F800;

/// The stand-in of a surrogate (U+D800..U+DFFF).
pub fn stand_in(surrogate: u32) -> char {
    char::from_u32(SURROGATE_BASE + (surrogate - 0xD800)).unwrap_or('\u{fffd}')
}

/// Text of "surrogatepass" UTF-8 (Python's `str.encode("utf-8",
/// "surrogatepass")`), each surrogate as its stand-in; anything else that
/// is not UTF-8 becomes U+FFFD.
pub fn from_surrogatepass(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(text) => {
                out.push_str(text);
                break;
            }
            Err(error) => {
                let valid = error.valid_up_to();
                out.push_str(std::str::from_utf8(&rest[..valid]).unwrap_or_default());
                rest = &rest[valid..];
                if rest.len() >= 3 && rest[0] == 0xED && (0xA0..=0xBF).contains(&rest[1])
                    && (0x80..=0xBF).contains(&rest[2])
                {
                    let surrogate = 0xD000 | (u32::from(rest[1] & 0x3F) << 6) | u32::from(rest[2] & 0x3F);
                    out.push(stand_in(surrogate));
                    rest = &rest[3..];
                } else {
                    out.push('\u{fffd}');
                    rest = &rest[error.error_len().unwrap_or(rest.len()).max(1)..];
                }
            }
        }
    }
    out
}

/// The surrogate a character stands for, if it is a stand-in.
pub fn stood_for(c: char) -> Option<u32> {
    let code = c as u32;
    (SURROGATE_BASE..SURROGATE_BASE + 0x800).contains(&code).then(|| 0xD800 + (code - SURROGATE_BASE))
}

/// Python's `text.encode("utf-8", "surrogatepass")` of text whose
/// surrogates are carried by their stand-ins: the bytes a token's key hashes.
pub fn surrogatepass_bytes(text: &str) -> std::borrow::Cow<'_, [u8]> {
    // Every stand-in's UTF-8 starts with F4 (plane 16): a byte search spares
    // the common case, a token without one, the decoding of its characters.
    if memchr::memchr(0xF4, text.as_bytes()).is_none() || !text.chars().any(|c| stood_for(c).is_some()) {
        return std::borrow::Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match stood_for(c) {
            Some(surrogate) => out.extend([
                0xE0 | (surrogate >> 12) as u8,
                0x80 | ((surrogate >> 6) & 0x3F) as u8,
                0x80 | (surrogate & 0x3F) as u8,
            ]),
            None => {
                let mut buffer = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod surrogate_tests {
    use super::*;
    use crate::text::normalise::{casefold, is_word, nfkc};

    #[test]
    fn surrogates_round_trip() {
        let bytes = b"a\xed\xb2\xa6n@x";
        let text = from_surrogatepass(bytes);
        assert_eq!(text.chars().count(), 5);
        assert!(!is_word(text.chars().nth(1).unwrap_or('a')));
        assert_eq!(&*surrogatepass_bytes(&text), &bytes[..]);
        assert_eq!(casefold(&text), text);
        assert_eq!(nfkc(&text), text);
        assert_eq!(from_surrogatepass(b"\xff"), "\u{fffd}");
    }
}
