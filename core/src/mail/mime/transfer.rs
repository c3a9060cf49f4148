//! Content-Transfer-Encoding: which one a part has, and its body with it
//! undone (base64 read as a mail client reads it, quoted-printable and
//! uuencode as the email package does).

use super::binascii::{a2b_base64, a2b_qp};
use super::uu::uudecode;

/// The lower-case Content-Transfer-Encoding, "" when none is known.
///
/// The first field whose first token (case aside) is a known encoding wins:
/// "BASE64 ", "base64 (comment)" and '"base64"' are base64 to a client (the
/// trailing blank alone left a body undecoded), and a garbage field before
/// the real one is ignored, as an unusable Content-Type is.
pub fn transfer_encoding(fields: &[(String, Vec<u8>)]) -> &'static str {
    const ENCODINGS: [&str; 9] =
        ["7bit", "8bit", "binary", "quoted-printable", "base64", "x-uuencode", "uuencode", "uue", "x-uue"];
    for (key, value) in fields {
        if key == "content-transfer-encoding" {
            // blanks, a quote, then up to a blank, ";", "(" or quote
            let mut i = 0;
            while i < value.len() && matches!(value[i], b' ' | b'\t' | b'\r' | b'\n' | b'"') {
                i += 1;
            }
            let a = i;
            while i < value.len() && !matches!(value[i], b' ' | b'\t' | b'\r' | b'\n' | b';' | b'(' | b'"') {
                i += 1;
            }
            let token = &value[a..i];
            if let Some(found) = ENCODINGS.iter().find(|e| token.eq_ignore_ascii_case(e.as_bytes())) {
                return found;
            }
        }
    }
    ""
}

/// The body with its Content-Transfer-Encoding undone; the body as it is
/// for an unknown encoding.  Junk in base64 is skipped, as binascii does.
pub fn transfer_decode(body: &[u8], fields: &[(String, Vec<u8>)]) -> Vec<u8> {
    match transfer_encoding(fields) {
        "quoted-printable" => a2b_qp(body, false),
        "base64" => {
            let joined: Vec<u8> = body.iter().copied().filter(|&b| b != b'\r' && b != b'\n').collect();
            base64(&joined)
        }
        "x-uuencode" | "uuencode" | "uue" | "x-uue" => uudecode(body).unwrap_or_else(|_| body.to_vec()),
        _ => body.to_vec(),
    }
}

/// Padding inside the data: each line (or chunk) was encoded on its own,
/// and a client decodes on after the padding, as Thunderbird's decoder
/// does group by group.  binascii (and so the email package) stops at the
/// first padding, which hid all but the first line of such a body.
/// Each padded piece is decoded alone (pieces are disjoint: linear).
/// Only for data that is all base64: text appended after the padding (a
/// mailing list's footer under a base64 body, 8-bit text mislabelled
/// base64) is left to the lenient reading, which stops at the padding.
fn base64(encoded: &[u8]) -> Vec<u8> {
    let end = encoded.len() - encoded.iter().rev().take_while(|&&b| b == b'=').count();
    let all_base64 = encoded.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=');
    if encoded[..end].contains(&b'=') && all_base64 {
        let mut out = Vec::new();
        for piece in encoded.split(|&b| b == b'=').filter(|p| !p.is_empty()) {
            out.extend(base64_piece(piece));
        }
        return out;
    }
    base64_piece(encoded)
}

/// Strictly with the padding fixed, else leniently (junk characters
/// skipped), else with padding added; undecodable data is left as it is.
/// The email package's order, so a body decodes to the same bytes.
fn base64_piece(encoded: &[u8]) -> Vec<u8> {
    let mut padded = encoded.to_vec();
    if !encoded.len().is_multiple_of(4) {
        padded.extend(std::iter::repeat_n(b'=', 4 - encoded.len() % 4));
    }
    if let Ok(out) = a2b_base64(&padded, true) {
        return out;
    }
    if let Ok(out) = a2b_base64(encoded, false) {
        return out;
    }
    let mut more = encoded.to_vec();
    more.extend_from_slice(b"==");
    if let Ok(out) = a2b_base64(&more, false) {
        return out;
    }
    encoded.to_vec()
}
