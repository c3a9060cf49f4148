//! Bytes decoded with one of Python's codecs, as Python decodes them
//! (strict or with replacement, whole or cut): which decoder a codec name
//! takes, the single-byte and WHATWG decoders, UTF-16 and UTF-32.

use encoding_rs::{DecoderResult, Encoding, UTF_8};

use super::dbcs::Dbcs;
use super::hz::hz;
use super::iso2022::{iso2022, Iso2022};
use super::replacement::bad;
use super::utf7::utf7;
use crate::mail::charset_tables::CHARMAPS;

enum Kind {
    Ascii,
    Latin1,
    Charmap(&'static [u16; 256]),
    Utf8 { sig: bool },
    Dbcs(Dbcs),
    Iso2022(Iso2022),
    Hz,
    Utf7,
    Utf16 { big: Option<bool> },
    Utf32 { big: Option<bool> },
}

fn kind(codec: &str) -> Option<Kind> {
    Some(match codec {
        "ascii" => Kind::Ascii,
        "iso8859-1" | "charmap" => Kind::Latin1,
        "utf-8" => Kind::Utf8 { sig: false },
        "utf-8-sig" => Kind::Utf8 { sig: true },
        "gb18030" | "gbk" | "gb2312" => Kind::Dbcs(Dbcs::Gb18030),
        "big5hkscs" | "big5" | "cp950" => Kind::Dbcs(Dbcs::Big5Hkscs),
        "cp949" => Kind::Dbcs(Dbcs::Cp949),
        "euc_kr" => Kind::Dbcs(Dbcs::EucKr),
        "cp932" => Kind::Dbcs(Dbcs::Cp932),
        "shift_jis" | "shift_jis_2004" | "shift_jisx0213" => Kind::Dbcs(Dbcs::ShiftJis),
        "euc_jp" | "euc_jis_2004" | "euc_jisx0213" => Kind::Dbcs(Dbcs::EucJp),
        "iso2022_jp" | "iso2022_jp_2004" | "iso2022_jp_3" => Kind::Iso2022(Iso2022::Jp),
        "iso2022_jp_1" => Kind::Iso2022(Iso2022::Jp1),
        "iso2022_jp_2" => Kind::Iso2022(Iso2022::Jp2),
        "iso2022_jp_ext" => Kind::Iso2022(Iso2022::JpExt),
        "iso2022_kr" => Kind::Iso2022(Iso2022::Kr),
        "hz" => Kind::Hz,
        "utf-7" => Kind::Utf7,
        "utf-16" => Kind::Utf16 { big: None },
        "utf-16-le" => Kind::Utf16 { big: Some(false) },
        "utf-16-be" => Kind::Utf16 { big: Some(true) },
        "utf-32" => Kind::Utf32 { big: None },
        "utf-32-le" => Kind::Utf32 { big: Some(false) },
        "utf-32-be" => Kind::Utf32 { big: Some(true) },
        _ => {
            let i = CHARMAPS.binary_search_by(|(name, _)| (*name).cmp(codec)).ok()?;
            Kind::Charmap(&CHARMAPS[i].1)
        }
    })
}

/// `data` decoded with Python's codec `codec`, strictly (None on the first
/// bad sequence) or with U+FFFD for each (`replace`).  `cut`: read as an
/// incremental decoder reads a stream not yet ended, so an incomplete last
/// character is left out rather than an error.  None too for a codec this
/// core does not decode (johab, unicode-escape...): the caller falls back
/// as it does for bytes that do not decode.
pub fn decode_with(data: &[u8], codec: &str, replace: bool, cut: bool) -> Option<String> {
    match kind(codec)? {
        Kind::Ascii => single_byte(data, replace, |b| if b < 0x80 { Some(b as char) } else { None }),
        Kind::Latin1 => Some(data.iter().map(|&b| b as char).collect()),
        Kind::Charmap(table) => single_byte(data, replace, |b| match table[b as usize] {
            0xFFFF => None,
            code => char::from_u32(code as u32),
        }),
        Kind::Utf8 { sig } => {
            let data = if sig { data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data) } else { data };
            match data {
                // Python's incremental UTF-8 keeps ED A0-BF at the end (the
                // start of a surrogate) for what comes next; what is before
                // it is then followed by ED, so complete.
                [rest @ .., 0xED, 0xA0..=0xBF] if cut => whatwg(UTF_8, rest, replace, false),
                _ => whatwg(UTF_8, data, replace, cut),
            }
        }
        Kind::Dbcs(dbcs) => dbcs.decode(data, replace, cut),
        Kind::Iso2022(variant) => iso2022(data, variant, replace, cut),
        Kind::Hz => hz(data, replace, cut),
        Kind::Utf7 => utf7(data, replace, cut),
        Kind::Utf16 { big } => utf16(data, big, replace, cut),
        Kind::Utf32 { big } => utf32(data, big, replace, cut),
    }
}

fn single_byte(data: &[u8], replace: bool, map: impl Fn(u8) -> Option<char>) -> Option<String> {
    let mut out = String::with_capacity(data.len());
    for &b in data {
        match map(b) {
            Some(c) => out.push(c),
            None if replace => out.push('\u{fffd}'),
            None => return None,
        }
    }
    Some(out)
}

fn whatwg(encoding: &'static Encoding, data: &[u8], replace: bool, cut: bool) -> Option<String> {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    if replace {
        let mut out = String::with_capacity(decoder.max_utf8_buffer_length(data.len())?);
        let (_, _, _) = decoder.decode_to_string(data, &mut out, !cut);
        Some(out)
    } else {
        let mut out = String::with_capacity(decoder.max_utf8_buffer_length_without_replacement(data.len())?);
        match decoder.decode_to_string_without_replacement(data, &mut out, !cut) {
            (DecoderResult::InputEmpty, _) => Some(out),
            _ => None,
        }
    }
}

/// UTF-16 and UTF-32, of a given byte order or (`big` None) by their BOM,
/// little-endian without one.  Python's stream decoder of the BOM-led
/// codec refuses a cut text without a BOM, which is then read whole.
fn utf16(data: &[u8], big: Option<bool>, replace: bool, cut: bool) -> Option<String> {
    // (Python's stream decoder has read nothing yet when it holds a first
    // high surrogate awaiting its pair.)
    let bom = data.starts_with(b"\xff\xfe") || data.starts_with(b"\xfe\xff");
    let nothing_read = data.len() < 2 || (data.len() < 4 && (0xD8..=0xDB).contains(&data[1]));
    let cut = cut && (big.is_some() || nothing_read || bom);
    let (data, big) = match big {
        Some(big) => (data, big),
        None if data.starts_with(b"\xff\xfe") => (&data[2..], false),
        None if data.starts_with(b"\xfe\xff") => (&data[2..], true),
        None => (data, false),
    };
    whatwg(if big { encoding_rs::UTF_16BE } else { encoding_rs::UTF_16LE }, data, replace, cut)
}

fn utf32(data: &[u8], big: Option<bool>, replace: bool, cut: bool) -> Option<String> {
    let bom = data.starts_with(b"\xff\xfe\x00\x00") || data.starts_with(b"\x00\x00\xfe\xff");
    let cut = cut && (big.is_some() || data.len() < 4 || bom);
    let (data, big) = match big {
        Some(big) => (data, big),
        None if data.starts_with(b"\xff\xfe\x00\x00") => (&data[4..], false),
        None if data.starts_with(b"\x00\x00\xfe\xff") => (&data[4..], true),
        None => (data, false),
    };
    let mut out = String::with_capacity(data.len() / 4);
    let mut units = data.chunks_exact(4);
    for unit in &mut units {
        let bytes = [unit[0], unit[1], unit[2], unit[3]];
        let code = if big { u32::from_be_bytes(bytes) } else { u32::from_le_bytes(bytes) };
        match char::from_u32(code) {
            Some(c) => out.push(c),
            None => bad(&mut out, replace)?,
        }
    }
    if !units.remainder().is_empty() && !cut {
        bad(&mut out, replace)?;
    }
    Some(out)
}
