//! Which reading of a part's bytes becomes its text: the declared charset
//! as far as the bytes agree, else UTF-8, the CJK reading that reads best,
//! or Windows-1252.

use super::{codec_for, decode_with, sniff};

/// Labels that in practice mean "somebody's default", not a statement about
/// the bytes: text so labelled is sniffed when it is not plain ASCII.
fn is_weak(codec: &str) -> bool {
    codec.is_empty() || codec == "cp1252"
}

// Encodings whose bytes are all ASCII, with escape sequences for the text:
// ISO-2022-JP mail read as ASCII gave tokens like "$bfma3", and the three
// spamassassin spam written so were scored below every ham (1-ROCA 0.41 %
// on spamassassin came mostly from them).  HZ is the Chinese one.
const SEVEN_BIT_PREFIXES: [&str; 4] = ["iso2022", "hz", "utf-7", "utf_7"];
// ESC $ B and ESC $ @: ISO-2022-JP's switch to JIS X 0208, its two-byte set.
const JIS_ESCAPE: &[u8] = b"\x1b$";

/// Decode `data`, trusting `declared` only as far as the bytes agree; never fails.
///
/// Order: ASCII needs no guess (unless declared as a 7-bit encoding such
/// as ISO-2022-JP or HZ, or undeclared but holding ISO-2022-JP's escapes);
/// a strong declared charset that decodes strictly wins; otherwise UTF-8,
/// then the reading of the CJK codecs that reads best (`sniff`), then the
/// declared codec with replacement, then Windows-1252.  `cut`: the data was
/// cut by a size cap, so its last character may be incomplete, which no
/// reading holds against it.
///
/// A text cut short by a size cap may end inside a character: read as an
/// incremental decoder reads a stream not yet ended, the incomplete last
/// character is left out instead of failing the strict reading.  Without
/// this a UTF-8 body past the 2,000,000-byte cap, cut in a character,
/// failed UTF-8 and was re-read as GB18030 (+5.29 became +0.02): the cap
/// must never change the charset decided.
pub fn decode_text(data: &[u8], declared: Option<&str>, cut: bool) -> String {
    let codec = codec_for(declared);
    let seven_bit = SEVEN_BIT_PREFIXES.iter().any(|prefix| codec.starts_with(prefix));
    let ascii = data.is_ascii();
    if ascii && !seven_bit {
        if is_weak(codec) && memchr::memmem::find(data, JIS_ESCAPE).is_some() {
            // Japanese mail sent without a charset is mostly ISO-2022-JP:
            // all ASCII, so read as ASCII its escape codes became words
            // ("$b", "$B$3$s$K$A$O"), in 421 trec06p spam.  Taken only when
            // it reads strictly.
            if let Some(text) = decode_with(data, "iso2022_jp_ext", false, cut) {
                return text;
            }
        }
        // ASCII is UTF-8 as it is: one copy, not a character at a time.
        return String::from_utf8_lossy(data).into_owned();
    }
    if !is_weak(codec) {
        if let Some(text) = decode_with(data, codec, false, cut) {
            return text;
        }
        if seven_bit && ascii {
            // Sniffing would read the escape codes as ASCII words; a stray
            // bad sequence costs a replacement character, not the text.
            if let Some(text) = decode_with(data, codec, true, cut) {
                return text;
            }
        }
    }
    if let Some((_, text)) = sniff(data, cut) {
        return text;
    }
    if !is_weak(codec) {
        if let Some(text) = decode_with(data, codec, true, cut) {
            return text;
        }
    }
    decode_with(data, "cp1252", true, false).unwrap_or_default()
}
