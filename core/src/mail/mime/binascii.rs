//! CPython's binascii decoders (base64, quoted-printable, one uuencoded
//! line), byte for byte: the email package decodes bodies and RFC 2047
//! words with them, and the same bytes must come out here.

use super::scan::find_from;

fn base64_value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// CPython 3.11's binascii.a2b_base64, byte for byte (strict_mode included).
pub(crate) fn a2b_base64(data: &[u8], strict: bool) -> Result<Vec<u8>, ()> {
    if strict && data.first() == Some(&b'=') {
        return Err(()); // leading padding
    }
    let mut out = Vec::with_capacity(data.len() / 4 * 3 + 3);
    let mut quad_pos = 0u8;
    let mut leftchar = 0u8;
    let mut pads = 0u8;
    let mut padding_started = false;
    for (i, &c) in data.iter().enumerate() {
        if c == b'=' {
            padding_started = true;
            if quad_pos >= 2 {
                pads += 1;
                if quad_pos + pads >= 4 {
                    // A pad sequence means no more input is read.
                    if strict && i + 1 < data.len() {
                        return Err(()); // excess data after padding
                    }
                    return Ok(out);
                }
            }
            continue;
        }
        let Some(v) = base64_value(c) else {
            if strict {
                return Err(()); // only base64 data is allowed
            }
            continue;
        };
        if strict && padding_started {
            return Err(()); // discontinuous padding
        }
        pads = 0;
        match quad_pos {
            0 => {
                quad_pos = 1;
                leftchar = v;
            }
            1 => {
                quad_pos = 2;
                out.push((leftchar << 2) | (v >> 4));
                leftchar = v & 0x0f;
            }
            2 => {
                quad_pos = 3;
                out.push((leftchar << 4) | (v >> 2));
                leftchar = v & 0x03;
            }
            _ => {
                quad_pos = 0;
                out.push((leftchar << 6) | v);
                leftchar = 0;
            }
        }
    }
    if quad_pos != 0 {
        return Err(()); // incorrect padding
    }
    Ok(out)
}

/// CPython's binascii.a2b_qp, byte for byte (a soft line break "=\r"
/// skips up to the next LF; "==" is "="; a bad escape keeps its "=").
pub(crate) fn a2b_qp(data: &[u8], header: bool) -> Vec<u8> {
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(data.len());
    let n = data.len();
    let mut i = 0;
    while i < n {
        let c = data[i];
        if c == b'=' {
            i += 1;
            if i >= n {
                break;
            }
            if data[i] == b'\n' || data[i] == b'\r' {
                if data[i] != b'\n' {
                    i = find_from(data, b'\n', i).unwrap_or(n);
                }
                if i < n {
                    i += 1;
                }
            } else if data[i] == b'=' {
                out.push(b'=');
                i += 1;
            } else if i + 1 < n && hex(data[i]).is_some() && hex(data[i + 1]).is_some() {
                out.push((hex(data[i]).unwrap_or(0) << 4) | hex(data[i + 1]).unwrap_or(0));
                i += 2;
            } else {
                out.push(b'=');
            }
        } else if header && c == b'_' {
            out.push(b' ');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// CPython's binascii.a2b_uu of one line (without its line end).
pub(super) fn a2b_uu(line: &[u8]) -> Result<Vec<u8>, ()> {
    // An empty line reads its length byte from the buffer's terminating NUL.
    let first = line.first().copied().unwrap_or(0);
    let mut bin_len = (first.wrapping_sub(b' ') & 0o77) as usize;
    let rest = line.get(1..).unwrap_or(line);
    let mut out = Vec::with_capacity(bin_len);
    let mut leftchar: u32 = 0;
    let mut leftbits = 0u32;
    let mut k = 0usize;
    while bin_len > 0 {
        let mut c = rest.get(k).copied();
        if matches!(c, Some(b'\n') | Some(b'\r')) {
            c = None;
        }
        let v = match c {
            None => 0u32, // some spaces got eaten at the line end
            Some(c) => {
                if !(b' '..=b' ' + 64).contains(&c) {
                    return Err(()); // illegal char
                }
                (c.wrapping_sub(b' ') & 0o77) as u32
            }
        };
        leftchar = (leftchar << 6) | v;
        leftbits += 6;
        if leftbits >= 8 {
            leftbits -= 8;
            out.push(((leftchar >> leftbits) & 0xff) as u8);
            leftchar &= (1 << leftbits) - 1;
            bin_len -= 1;
        }
        k += 1;
    }
    // Anything left on the line must be blanks ("`" may pad).
    for &c in rest.get(k..).unwrap_or(&[]) {
        if c != b' ' && c != b' ' + 64 && c != b'\n' && c != b'\r' {
            return Err(()); // trailing garbage
        }
    }
    Ok(out)
}
