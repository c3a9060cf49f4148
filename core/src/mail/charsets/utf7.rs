//! Python's UTF-7 decoder (RFC 2152).

use super::replacement::bad;

fn base64_value(b: u8) -> Option<u32> {
    Some(match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    } as u32)
}

/// UTF-7 (RFC 2152) as Python reads it: "+" starts base64 of UTF-16,
/// ended by "-" (dropped) or any other byte outside base64; "+-" is a plus
/// sign.  Bad sequences: a byte above 0x7F; "+" before a byte neither
/// base64 nor "-" (both bytes); a shift that ends inside a character or
/// with bits set in its padding (with the byte that ends it); a shift
/// still inside a character at the end.  A surrogate left unpaired, which
/// Python keeps as it is, is U+FFFD here (a Rust string cannot hold it).
/// Cut: a shift still open at the end is left out, as Python's incremental
/// decoder leaves it.
pub(super) fn utf7(data: &[u8], replace: bool, cut: bool) -> Option<String> {
    let mut out = String::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        if b >= 0x80 {
            bad(&mut out, replace)?;
            i += 1;
            continue;
        }
        if b != b'+' {
            out.push(b as char);
            i += 1;
            continue;
        }
        let shift_start = out.len();
        i += 1;
        match data.get(i) {
            Some(b'-') => {
                out.push('+');
                i += 1;
                continue;
            }
            Some(&next) if base64_value(next).is_none() => {
                bad(&mut out, replace)?;
                i += 1;
                continue;
            }
            _ => {}
        }
        let (mut bits, mut nbits, mut high) = (0u32, 0u32, None::<u32>);
        while let Some(value) = data.get(i).and_then(|&b| base64_value(b)) {
            bits = (bits << 6) | value;
            nbits += 6;
            i += 1;
            if nbits >= 16 {
                nbits -= 16;
                let unit = (bits >> nbits) & 0xffff;
                bits &= (1 << nbits) - 1;
                if let Some(h) = high.take() {
                    if (0xdc00..=0xdfff).contains(&unit) {
                        let code = 0x10000 + ((h - 0xd800) << 10) + (unit - 0xdc00);
                        out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        continue;
                    }
                    out.push('\u{fffd}');
                }
                if (0xd800..=0xdbff).contains(&unit) {
                    high = Some(unit);
                } else {
                    out.push(char::from_u32(unit).unwrap_or('\u{fffd}'));
                }
            }
        }
        let Some(&end) = data.get(i) else {
            if cut {
                out.truncate(shift_start);
            } else if high.is_some() || nbits >= 6 || bits != 0 {
                bad(&mut out, replace)?; // unterminated shift sequence
            }
            break;
        };
        if nbits >= 6 || bits != 0 {
            bad(&mut out, replace)?; // partial character, or padding bits set: the ending byte goes too
            i += 1;
            continue;
        }
        if high.is_some() && end != b'+' {
            out.push('\u{fffd}');
        }
        if end == b'-' {
            i += 1;
        }
    }
    Some(out)
}
