//! Bytes of a declared or undeclared charset → text.
//!
//! Real mail lies about its charset often enough that a strict decode with
//! the declared name is only the first try.  Counts below are from the
//! shared corpora (`bench/charset_census.py`).
//!
//! Labels are read as Python reads them (its codec names and aliases, in
//! `charset_tables.rs`), and `codec_for` gives Python's codec name, so that
//! a label means here what it meant to the Python pipeline.  The decoders:
//! single-byte charsets from Python's own tables; UTF-8, GB18030, Big5,
//! EUC-KR (as CP949), Shift_JIS (as CP932), EUC-JP and ISO-2022-JP from
//! encoding_rs (WHATWG's decoders, which differ from Python's codecs in a
//! few mappings: bench/core_charsets_identity.py counts them); UTF-16,
//! UTF-32, UTF-7, HZ and ISO-2022-KR by hand.

use ahash::{AHashMap as HashMap, AHashSet as HashSet};
use std::sync::OnceLock;

use encoding_rs::{DecoderResult, Encoding, BIG5, EUC_JP, EUC_KR, GB18030, SHIFT_JIS, UTF_8};

use super::charset_tables::{ALIASES, CHARMAPS, MODULES};

// GB2312 and GBK are subsets of GB18030, and senders label GBK text as GB2312
// all the time (characters such as 镕 or 喆 are outside GB2312), so every
// member of the family is read as GB18030.  Big5 likewise reads as Big5-HKSCS.
//
// "iso-2022-jp": ISO-2022-JP as mail clients read it (the WHATWG decoder):
// with the half-width katakana set (ESC ( I), which Python's iso2022_jp
// refuses.  71 trec06p spam use it; read strictly they failed, and their
// escape codes were scored as words ("$b"), where the email package and a
// client show Japanese.
static OWN_ALIASES: &[(&str, &str)] = &[
    ("gb2312", "gb18030"), ("gbk", "gb18030"), ("gb_2312-80", "gb18030"), ("euc-cn", "gb18030"),
    ("x-gbk", "gb18030"), ("cp936", "gb18030"), ("ms936", "gb18030"), ("chinese", "gb18030"),
    ("csgb2312", "gb18030"), ("x-euc-cn", "gb18030"), ("gb2312_charset", "gb18030"),
    ("big5", "big5hkscs"), ("x-big5", "big5hkscs"), ("cn-big5", "big5hkscs"),
    ("ks_c_5601-1987", "cp949"), ("euc-kr", "cp949"),
    ("iso-8859-1", "cp1252"), ("latin-1", "cp1252"), ("latin1", "cp1252"),
    ("us-ascii", "cp1252"), ("ascii", "cp1252"), ("ansi_x3.4-1968", "cp1252"),
    ("windows-1252", "cp1252"), ("default", ""), ("default_charset", ""), ("charset", ""),
    ("unknown-8bit", ""), ("x-unknown", ""), ("unknown", ""),
    ("iso-2022-jp", "iso2022_jp_ext"), ("csiso2022jp", "iso2022_jp_ext"), ("iso2022jp", "iso2022_jp_ext"),
];

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

/// Python's str.isspace (which, unlike White_Space, holds the separators 0x1C-0x1F).
fn py_isspace(c: char) -> bool {
    matches!(c, '\t'..='\r' | '\x1c'..='\x1f' | ' ' | '\u{85}' | '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}'
        | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}')
}

/// encodings.normalize_encoding: runs of punctuation become one "_", non-ASCII
/// letters and digits are dropped.
fn normalize_encoding(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut punct = false;
    for c in name.chars() {
        if c.is_alphanumeric() || c == '.' {
            if punct && !out.is_empty() {
                out.push('_');
            }
            if c.is_ascii() {
                out.push(c);
            }
            punct = false;
        } else {
            punct = true;
        }
    }
    out
}

fn lookup(table: &[(&'static str, &'static str)], key: &str) -> Option<&'static str> {
    table.binary_search_by(|(k, _)| (*k).cmp(key)).ok().map(|i| table[i].1)
}

/// The Python codec to try for a charset label ("" when unknown or absent),
/// as `spamnb.mail.charsets.codec_for` names it.
pub fn codec_for(label: Option<&str>) -> &'static str {
    let Some(label) = label else { return "" };
    if label.is_empty() {
        return "";
    }
    let name = label.trim_matches(py_isspace).trim_matches(|c| c == '"' || c == '\'').to_lowercase();
    if let Some(codec) = OWN_ALIASES.iter().find(|(alias, _)| *alias == name).map(|(_, codec)| *codec) {
        return codec;
    }
    // codecs.lookup: a NUL in the name is a ValueError; then the encodings
    // package's search function (an alias, else the module of that name).
    // idna, punycode, rot13, base64... are codecs but not charsets: a header
    // naming one would make decoding raise instead of fall back (their
    // modules map to "").
    if name.contains('\0') {
        return "";
    }
    let normal = normalize_encoding(&name);
    let aliased = lookup(ALIASES, &normal).or_else(|| lookup(ALIASES, &normal.replace('.', "_")));
    for module in aliased.into_iter().chain(std::iter::once(normal.as_str())) {
        if module.is_empty() || module.contains('.') {
            continue;
        }
        if let Some(codec) = lookup(MODULES, module) {
            return codec;
        }
    }
    ""
}

// --- decoders ---

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

/// Pushes a bad sequence's replacement, or says the strict reading failed.
fn bad(out: &mut String, replace: bool) -> Option<()> {
    if replace {
        out.push('\u{fffd}');
        Some(())
    } else {
        None
    }
}

/// Two bytes of a 94×94 set, as GB2312 or KS X 1001 in their EUC form.
fn euc_pair(encoding: &'static Encoding, lead: u8, trail: u8) -> Option<char> {
    if !(0x21..=0x7e).contains(&lead) || !(0x21..=0x7e).contains(&trail) {
        return None;
    }
    let pair = [lead | 0x80, trail | 0x80];
    let (text, malformed) = encoding.decode_without_bom_handling(&pair);
    let mut chars = text.chars();
    match (malformed, chars.next(), chars.next()) {
        (false, Some(c), None) => Some(c),
        _ => None,
    }
}

// --- the double-byte codecs, as Python's CJK codecs read them ---
//
// The mapping of each two-byte cell is WHATWG's (encoding_rs), corrected
// where Python's codec maps it otherwise or not at all (DBCS_CORRECTIONS,
// generated from Python: GB18030-2000's private-use cells, Big5-HKSCS-2004
// against WHATWG's HKSCS-2008, JIS X 0208 as JIS maps it (〜 U+301C where
// Windows has ～), CP932's user-defined area...).  The scanning is
// Python's: a bad sequence is its lead byte alone (the next byte is read
// afresh, where WHATWG's decoders also swallow a non-ASCII trail byte), and
// a lead byte at the end is an incomplete character (left out when `cut`).

// The order of build_tables/dbcs_tables.rs's `Codec`: it indexes the compiled-in tables.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Dbcs {
    Gb18030,
    Big5Hkscs,
    Cp949,
    Cp932,
    EucJp,
    ShiftJis, // JIS X 0208 alone (no Windows extensions), as Python's shift_jis
    EucKr,    // KS X 1001 alone (no CP949 extensions), as Python's euc_kr
}

const CELL_TRAILS: usize = 0xFF - 0x40;
const CELLS: usize = 126 * CELL_TRAILS;
const PAIR: u32 = u32::MAX; // a cell that reads as two characters (Big5-HKSCS's Ê̄ and kin)

// Built by build.rs (build_tables/dbcs_tables.rs: the layout, and why not here),
// little-endian u32s: each codec's cells, in `Dbcs` order, (lead - 0x81) *
// 191 + (trail - 0x40) → code point (0: none); JIS X 0212's; and each
// codec's reverse map, (code point, packed bytes) sorted.
static DBCS_CELLS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/dbcs_cells.bin"));
static JISX0212_CELLS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/jisx0212.bin"));
static DBCS_REVERSE: [&[u8]; 7] = [
    include_bytes!(concat!(env!("OUT_DIR"), "/dbcs_reverse_0.bin")),
    include_bytes!(concat!(env!("OUT_DIR"), "/dbcs_reverse_1.bin")),
    include_bytes!(concat!(env!("OUT_DIR"), "/dbcs_reverse_2.bin")),
    include_bytes!(concat!(env!("OUT_DIR"), "/dbcs_reverse_3.bin")),
    include_bytes!(concat!(env!("OUT_DIR"), "/dbcs_reverse_4.bin")),
    include_bytes!(concat!(env!("OUT_DIR"), "/dbcs_reverse_5.bin")),
    include_bytes!(concat!(env!("OUT_DIR"), "/dbcs_reverse_6.bin")),
];

/// The `index`th little-endian u32 of a compiled-in table (0 past its end).
fn read_u32(table: &[u8], index: usize) -> u32 {
    match table.get(index * 4..index * 4 + 4) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

impl Dbcs {
    fn encoding(self) -> &'static Encoding {
        match self {
            Dbcs::Gb18030 => GB18030,
            Dbcs::Big5Hkscs => BIG5,
            Dbcs::Cp949 | Dbcs::EucKr => EUC_KR,
            Dbcs::Cp932 | Dbcs::ShiftJis => SHIFT_JIS,
            Dbcs::EucJp => EUC_JP,
        }
    }

    fn is_lead(self, b: u8) -> bool {
        match self {
            Dbcs::Cp932 => matches!(b, 0x81..=0x9F | 0xE0..=0xFC),
            Dbcs::ShiftJis => matches!(b, 0x81..=0x9F | 0xE0..=0xEA),
            Dbcs::EucJp => b >= 0xA1 && b != 0xFF,
            _ => (0x81..=0xFE).contains(&b),
        }
    }

    /// The character of one cell, if the codec reads it as one.
    fn cell(self, lead: u8, trail: u8) -> Option<u32> {
        if !(0x81..=0xFE).contains(&lead) || !(0x40..=0xFE).contains(&trail) {
            return None;
        }
        match read_u32(DBCS_CELLS, self as usize * CELLS + cell_index(lead, trail)) {
            0 => None,
            code => Some(code),
        }
    }

    fn decode(self, data: &[u8], replace: bool, cut: bool) -> Option<String> {
        let mut out = String::with_capacity(data.len() * 3 / 2);
        let mut i = 0;
        // An incomplete character at the end: left out of a cut text, an
        // error (one replacement for all its bytes) otherwise.
        macro_rules! incomplete {
            () => {{
                if !cut {
                    bad(&mut out, replace)?;
                }
                break;
            }};
        }
        while i < data.len() {
            let b = data[i];
            if b < 0x80 {
                out.push(b as char);
                i += 1;
                continue;
            }
            // The single bytes each codec reads above ASCII.
            let single = match self {
                Dbcs::ShiftJis => match b {
                    0xA1..=0xDF => char::from_u32(0xFF61 + (b - 0xA1) as u32),
                    _ => None,
                },
                Dbcs::Cp932 => match b {
                    0x80 => Some('\u{80}'),
                    0xA0 => Some('\u{f8f0}'),
                    0xA1..=0xDF => char::from_u32(0xFF61 + (b - 0xA1) as u32),
                    0xFD..=0xFF => char::from_u32(0xF8F1 + (b - 0xFD) as u32),
                    _ => None,
                },
                _ => None,
            };
            if let Some(c) = single {
                out.push(c);
                i += 1;
                continue;
            }
            // Elsewhere (GB18030's 80 and FF too) a bad lead byte is known
            // only with the byte after it: alone at the end it is incomplete.
            let error_at_lead = matches!(self, Dbcs::Cp932 | Dbcs::ShiftJis) && !self.is_lead(b);
            if error_at_lead {
                bad(&mut out, replace)?;
                i += 1;
                continue;
            }
            let Some(&trail) = data.get(i + 1) else { incomplete!() };
            if self == Dbcs::EucJp && b == 0x8E {
                if (0xA1..=0xDF).contains(&trail) {
                    out.push(char::from_u32(0xFEC0 + trail as u32).unwrap_or('\u{fffd}'));
                    i += 2;
                } else {
                    bad(&mut out, replace)?;
                    i += 1;
                }
                continue;
            }
            if self == Dbcs::EucJp && b == 0x8F {
                let Some(&third) = data.get(i + 2) else { incomplete!() };
                match jisx0212(trail, third) {
                    Some(c) => {
                        out.push(c);
                        i += 3;
                    }
                    None => {
                        bad(&mut out, replace)?;
                        i += 1;
                    }
                }
                continue;
            }
            if self == Dbcs::EucKr && b == 0xA4 && trail == 0xD4 {
                // KS X 1001:1998 Annex 3: a syllable made up of the filler and three jamo, 8 bytes.
                if data.len() - i < 8 {
                    incomplete!()
                }
                match hangul_make_up(&data[i..i + 8]) {
                    Some(c) => {
                        out.push(c);
                        i += 8;
                    }
                    None => {
                        bad(&mut out, replace)?;
                        i += 1;
                    }
                }
                continue;
            }
            if self == Dbcs::Gb18030 && (0x30..=0x39).contains(&trail) {
                if data.len() - i < 4 {
                    incomplete!()
                }
                match single_char(GB18030, &data[i..i + 4]) {
                    Some(c) => {
                        out.push(c);
                        i += 4;
                    }
                    None => {
                        bad(&mut out, replace)?;
                        i += 1;
                    }
                }
                continue;
            }
            match self.cell(b, trail) {
                Some(PAIR) => {
                    let pair = [b, trail];
                    out.push_str(&self.encoding().decode_without_bom_handling(&pair).0);
                    i += 2;
                }
                Some(code) => {
                    out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                    i += 2;
                }
                None => {
                    bad(&mut out, replace)?;
                    i += 1;
                }
            }
        }
        Some(out)
    }
}

/// A4 D4 A4 cho A4 jung A4 jong (or the filler D4): the Hangul syllable, as Python's euc_kr composes it.
fn hangul_make_up(seq: &[u8]) -> Option<char> {
    const NONE: u8 = 0xFF;
    // Compatibility jamo A4A1-A4BE (ㄱ ... ㅎ) → initial and final consonant indexes.
    const CHOSEONG: [u8; 30] = [0, 1, NONE, 2, NONE, NONE, 3, 4, 5, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
                                6, 7, 8, NONE, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18];
    const JONGSEONG: [u8; 30] = [1, 2, 3, 4, 5, 6, 7, NONE, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, NONE, 18, 19,
                                 20, 21, 22, NONE, 23, 24, 25, 26, 27];
    let &[_, _, a, cho, b, jung, c, jong] = seq else { return None };
    if a != 0xA4 || b != 0xA4 || c != 0xA4 {
        return None;
    }
    let cho = if (0xA1..=0xBE).contains(&cho) { CHOSEONG[(cho - 0xA1) as usize] } else { NONE };
    let jung = if (0xBF..=0xD3).contains(&jung) { jung - 0xBF } else { NONE };
    let jong = match jong {
        0xD4 => 0,
        0xA1..=0xBE => JONGSEONG[(jong - 0xA1) as usize],
        _ => NONE,
    };
    if cho == NONE || jung == NONE || jong == NONE {
        return None;
    }
    char::from_u32(0xAC00 + cho as u32 * 588 + jung as u32 * 28 + jong as u32)
}

fn cell_index(lead: u8, trail: u8) -> usize {
    (lead as usize - 0x81) * CELL_TRAILS + (trail as usize - 0x40)
}

/// `bytes` read strictly as one character of `encoding`.
fn single_char(encoding: &'static Encoding, bytes: &[u8]) -> Option<char> {
    let text = encoding.decode_without_bom_handling_and_without_replacement(bytes)?;
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

/// JIS X 0212 (EUC-JP's 8F set), row and cell from A1, as Python maps it.
fn jisx0212(lead: u8, trail: u8) -> Option<char> {
    if !(0xA1..=0xFE).contains(&lead) || !(0xA1..=0xFE).contains(&trail) {
        return None;
    }
    match read_u32(JISX0212_CELLS, (lead as usize - 0xA1) * 94 + (trail as usize - 0xA1)) {
        0 => None,
        code => char::from_u32(code),
    }
}

/// JIS X 0208 in 7 bits (ISO-2022-JP's two-byte set), as Python maps it:
/// the EUC-JP cell of the same row and cell.
fn jisx0208(lead: u8, trail: u8) -> Option<char> {
    if !(0x21..=0x7E).contains(&lead) || !(0x21..=0x7E).contains(&trail) {
        return None;
    }
    Dbcs::EucJp.cell(lead | 0x80, trail | 0x80).and_then(char::from_u32)
}

/// The ISO 2022 codecs of Python, by the sets each may designate.
#[derive(Clone, Copy, PartialEq)]
enum Iso2022 {
    Kr,    // KS X 1001, shifted in by SO
    Jp,    // JIS X 0208 and JIS X 0201 Roman (also for iso2022_jp_2004 and _3, less their JIS X 0213)
    Jp1,   // and JIS X 0212
    Jp2,   // and KS X 1001 and GB2312 (not its G2 sets, ISO-8859-1 and -7 after ESC N)
    JpExt, // iso2022_jp_ext: JIS X 0208, 0212, 0201 Roman and half-width katakana
}

#[derive(Clone, Copy, PartialEq)]
enum Set {
    Ascii,
    Roman,
    Katakana,
    Jis0208,
    Jis0212,
    Ksc,
    Gb2312,
}

impl Iso2022 {
    fn has(self, set: Set) -> bool {
        use Iso2022::*;
        match set {
            Set::Ascii => true,
            Set::Jis0208 | Set::Roman => self != Kr,
            Set::Katakana => self == JpExt,
            Set::Jis0212 => matches!(self, Jp1 | Jp2 | JpExt),
            Set::Ksc => matches!(self, Kr | Jp2),
            Set::Gb2312 => self == Jp2,
        }
    }
}

/// Python's ISO 2022 decoder.
///
/// iso2022_jp_ext: ESC ( B ASCII, ESC ( J JIS X 0201 Roman, ESC ( I
/// half-width katakana, ESC $ @ and ESC $ B JIS X 0208, ESC $ ( D JIS X
/// 0212; no shifts.  iso2022_kr: KS X 1001 designated (ESC $ ) C), SO and
/// SI shift to it and back, a line feed shifts back.  Control characters
/// pass in any set; a byte above 0x7F is a bad sequence; an escape sequence
/// of a set the codec lacks is a bad sequence of its length; ESC before a
/// byte that starts none passes through (with what follows, up to a final
/// byte A-Z or @).  A bad character in a two-byte set is a bad sequence of
/// both bytes.
fn iso2022(data: &[u8], variant: Iso2022, replace: bool, cut: bool) -> Option<String> {
    let kr = variant == Iso2022::Kr;
    const MAX_ESCAPE: usize = 16;
    let is_final = |b: u8| b.is_ascii_uppercase() || b == b'@';
    let mut out = String::with_capacity(data.len());
    let (mut g0, mut g1, mut shifted) = (Set::Ascii, Set::Ascii, false);
    let mut through = false; // inside an escape sequence of no ISO 2022 set
    let mut i = 0;
    // Python's stream decoder holds at most 8 bytes of an incomplete
    // sequence; past that a cut text is read whole, so they are an error.
    const MAX_PENDING: usize = 8;
    macro_rules! incomplete {
        () => {{
            if !cut || data.len() - i > MAX_PENDING {
                bad(&mut out, replace)?;
            }
            break;
        }};
    }
    while i < data.len() {
        let b = data[i];
        if through {
            out.push(b as char); // as ISO-8859-1
            i += 1;
            through = !is_final(b);
            continue;
        }
        if b == 0x1B {
            let Some(&second) = data.get(i + 1) else { incomplete!() };
            if !matches!(second, b'(' | b')' | b'$' | b'.' | b'&') {
                out.push('\u{1b}');
                through = true;
                i += 1;
                continue;
            }
            // The length of the escape sequence: up to its final byte.
            let mut j = 1;
            let mut length = None;
            while j < MAX_ESCAPE {
                if i + j >= data.len() {
                    break;
                }
                if is_final(data[i + j]) {
                    length = Some(j + 1);
                    break;
                }
                // JIS X 0208-1990's announcer "& @" is skipped with the byte after it.
                let announcer = !kr && i + j + 1 < data.len() && data[i + j] == b'&' && data[i + j + 1] == b'@';
                j += if announcer { 3 } else { 1 };
            }
            let Some(length) = length else {
                if j < MAX_ESCAPE {
                    incomplete!()
                }
                bad(&mut out, replace)?; // unterminated escape sequence
                i += 1;
                continue;
            };
            let seq = &data[i..i + length];
            // (plane, set): G0 or G1, of the sets this codec has.
            let double = |mark: u8| match mark {
                b'@' | b'B' => Some(Set::Jis0208),
                b'D' => Some(Set::Jis0212),
                b'C' => Some(Set::Ksc),
                b'A' => Some(Set::Gb2312),
                _ => None,
            };
            let single = |mark: u8| match mark {
                b'B' => Some(Set::Ascii),
                b'J' => Some(Set::Roman),
                b'I' => Some(Set::Katakana),
                _ => None,
            };
            let designated = match *seq {
                [_, b'$', mark] => double(mark).map(|set| (0, set)),
                [_, b'$', b'(', mark] => double(mark).map(|set| (0, set)),
                [_, b'$', b')', mark] => double(mark).map(|set| (1, set)),
                [_, b'(', mark] => single(mark).map(|set| (0, set)),
                [_, b')', mark] => single(mark).map(|set| (1, set)),
                [_, _, _, 0x1B, b'$', b'B'] if !kr => Some((0, Set::Jis0208)), // ESC & @ ESC $ B
                _ => None,
            }
            .filter(|&(_, set)| variant.has(set));
            match designated {
                Some((0, set)) => g0 = set,
                Some((_, set)) => g1 = set,
                None => {
                    bad(&mut out, replace)?;
                    i += length;
                    continue;
                }
            }
            i += length;
            continue;
        }
        if kr && (b == 0x0E || b == 0x0F) {
            shifted = b == 0x0E;
            i += 1;
            continue;
        }
        if b == b'\n' {
            shifted = false;
        }
        let set = if shifted { g1 } else { g0 };
        if b < 0x20 || set == Set::Ascii {
            if b >= 0x80 {
                bad(&mut out, replace)?;
            } else {
                out.push(b as char);
            }
            i += 1;
            continue;
        }
        if b >= 0x80 {
            bad(&mut out, replace)?;
            i += 1;
            continue;
        }
        match set {
            Set::Roman => {
                out.push(match b {
                    0x5C => '\u{a5}',
                    0x7E => '\u{203e}',
                    _ => b as char,
                });
                i += 1;
            }
            Set::Katakana => {
                if (0x21..=0x5F).contains(&b) {
                    out.push(char::from_u32(0xFF40 + b as u32).unwrap_or('\u{fffd}'));
                } else {
                    bad(&mut out, replace)?;
                }
                i += 1;
            }
            _ => {
                let Some(&trail) = data.get(i + 1) else { incomplete!() };
                let read = if !(0x21..=0x7E).contains(&b) || !(0x21..=0x7E).contains(&trail) {
                    None
                } else if set == Set::Jis0208 {
                    jisx0208(b, trail)
                } else if set == Set::Jis0212 {
                    jisx0212(b | 0x80, trail | 0x80)
                } else if set == Set::Gb2312 {
                    gb2312(b, trail)
                } else {
                    // KS X 1001: the EUC-KR cell (CP949's extensions lie outside A1-FE × A1-FE).
                    Dbcs::Cp949.cell(b | 0x80, trail | 0x80).and_then(char::from_u32)
                };
                match read {
                    Some(c) => out.push(c),
                    None => bad(&mut out, replace)?,
                }
                i += 2;
            }
        }
    }
    Some(out)
}

/// GB2312 in 7 bits as Python maps it: GB18030's cells of its rows,
/// less GBK's additions there (small Roman numerals, vertical forms, the
/// pinyin letters ɑ-ɡ, €) and its private-use cells, with two of GB2312's
/// own mappings (・ and ―, where GB18030 has · and —).
fn gb2312(lead: u8, trail: u8) -> Option<char> {
    match (lead, trail) {
        (0x21, 0x24) => return Some('\u{30fb}'),
        (0x21, 0x2A) => return Some('\u{2015}'),
        (0x22, 0x21..=0x2A | 0x63) | (0x26, 0x59..=0x75) | (0x28, 0x3B..=0x40) => return None,
        _ if lead > 0x77 => return None,
        _ => {}
    }
    euc_pair(GB18030, lead, trail).filter(|&c| !('\u{e000}'..='\u{f8ff}').contains(&c))
}

/// HZ (RFC 1843): "~{" switches to GB2312 in 7 bits, "~}" back; "~~" is a
/// tilde and "~" before a line break joins the lines.
fn hz(data: &[u8], replace: bool, cut: bool) -> Option<String> {
    let mut out = String::with_capacity(data.len());
    let mut gb = false;
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        if b == b'~' {
            let Some(&next) = data.get(i + 1) else {
                if cut {
                    break;
                }
                bad(&mut out, replace)?;
                break;
            };
            match next {
                b'~' if !gb => out.push('~'),
                b'{' if !gb => gb = true,
                b'}' if gb => gb = false,
                b'\n' if !gb => {}
                _ => {
                    bad(&mut out, replace)?;
                    i += 1;
                    continue;
                }
            }
            i += 2;
        } else if b >= 0x80 {
            bad(&mut out, replace)?;
            i += 1;
        } else if gb {
            let Some(&trail) = data.get(i + 1) else {
                if cut {
                    break;
                }
                bad(&mut out, replace)?;
                break;
            };
            match gb2312(b, trail) {
                Some(c) => {
                    out.push(c);
                    i += 2;
                }
                None => {
                    bad(&mut out, replace)?;
                    i += 1;
                }
            }
        } else {
            out.push(b as char);
            i += 1;
        }
    }
    Some(out)
}

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
fn utf7(data: &[u8], replace: bool, cut: bool) -> Option<String> {
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

// --- deciding ---

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
        return ascii_text(data);
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

fn ascii_text(data: &[u8]) -> String {
    data.iter().map(|&b| b as char).collect()
}

// The codecs tried on 8-bit text of unknown charset, besides UTF-8, in the
// order that breaks a tie (that of their share of the undeclared 8-bit text
// of the shared corpora): GB18030 (which reads GB2312 and GBK), EUC-KR (as
// CP949), Big5 (as Big5-HKSCS), Shift_JIS (as Windows' CP932) and EUC-JP.
pub const SNIFFED_CODECS: [&str; 5] = ["gb18030", "cp949", "big5hkscs", "cp932", "euc_jp"];

// The bytes each reading is judged on: from the first 8-bit byte, this many
// (some 2,000 CJK characters).  A reading is judged on a bounded sample so
// that the cost of judging stays the same for any size (the whole text must
// still decode); 8 KB chose the same reading for every text of the corpora.
const JUDGED_BYTES: usize = 4096;
// A reading with bad sequences replaced competes only when they are one,
// or at most one in this many of its 8-bit bytes.
const MOSTLY_VALID: usize = 10;

/// (codec, text) of the reading of `data` that reads best, or None.
///
/// Most 8-bit bytes decode strictly in several CJK codecs (Shift_JIS
/// Japanese reads as GB18030, EUC-KR Korean as GB2312, GB2312 as Big5), as
/// text of another language made of rare characters: 丂仭剑 for the
/// full-width spaces and box drawing of a Japanese spam.  So each strict
/// reading is scored as a person would read it (`reading_score`) and the
/// best wins, if it reads better than the Windows-1252 reading of western
/// text (`western_score`).  When no strict reading does, the readings that
/// decode with a few bad sequences replaced compete the same way, each
/// replacement counted against them: a stray bad byte in a long Chinese
/// body does not make it Latin-1.
///
/// Against the rule before it (GB18030 whenever the 8-bit bytes came in
/// pairs, unless 30 % kana or 90 % Hangul said otherwise), measured on the
/// shared corpora with decode_text's ISO-2022-JP rule: trec06p's 1,204
/// spam and 37 ham messages decode otherwise (Shift_JIS, EUC-KR and Big5
/// spam that was GB18030 mojibake; western ham that was too),
/// spamassassin's 17 spam and 4 ham, ccert_zh's 4 spam (Korean) and none
/// of its ham.
pub fn sniff(data: &[u8], cut: bool) -> Option<(&'static str, String)> {
    if let Some(text) = decode_with(data, "utf-8", false, cut) {
        return Some(("utf-8", text));
    }
    let first = data.iter().position(|&b| b >= 0x80);
    // From the ASCII byte before the first 8-bit one: a letter there touches
    // the first character read.
    let start = first.map_or(0, |i| i.saturating_sub(1));
    let judged = &data[start..data.len().min(start + JUDGED_BYTES)];
    let partial = cut || start + JUDGED_BYTES < data.len(); // the judged bytes may end inside a character
    let threshold = western_score(judged).max(0);
    let high_bytes = judged.iter().filter(|&&b| b >= 0x80).count();
    let mut undecoded = [false; SNIFFED_CODECS.len()]; // whose strict reading fails: only theirs change with replacement
    for replace in [false, true] {
        let mut ranked: Vec<(i64, usize, String)> = Vec::new();
        for (index, codec) in SNIFFED_CODECS.iter().enumerate() {
            if replace && !undecoded[index] {
                continue;
            }
            let Some(sample) = decode_with(judged, codec, replace, partial) else {
                undecoded[index] = true;
                continue;
            };
            if replace && sample.chars().filter(|&c| c == '\u{fffd}').count() > 1 + high_bytes / MOSTLY_VALID {
                continue; // not a stray bad byte (a header cut inside a character) but another encoding
            }
            let score = reading_score(&sample, codec);
            if score > threshold {
                ranked.push((score, index, sample));
            }
        }
        // Best first (ties in SNIFFED_CODECS order); the whole text must
        // decode too, which only the readings that may win are asked.
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, index, sample) in ranked {
            let codec = SNIFFED_CODECS[index];
            if start == 0 && !partial {
                return Some((codec, sample));
            }
            match decode_with(data, codec, replace, cut) {
                Some(text) => return Some((codec, text)),
                None => undecoded[index] = true,
            }
        }
    }
    None
}

// Points of one character in a reading.  A common character of the
// reading's language earns most, an ideograph of the standard's first
// (frequent) level or a symbol of its symbol rows (punctuation, full-width
// forms, box drawing) less, one of its second level less still.  Rare
// ideographs (the GBK and HKSCS extensions, which are what the bytes of
// another CJK encoding read as), half-width katakana (GB2312 read as
// Shift_JIS), private-use characters and C1 controls count against a
// reading.  The scale follows chardetng (Firefox's detector), in small
// integers.
const COMMON_POINTS: i64 = 4;
const LEVEL_1_POINTS: i64 = 2;
const SYMBOL_POINTS: i64 = 2;
const LEVEL_2_POINTS: i64 = 1;
const RARE_POINTS: i64 = -2;
const HALF_WIDTH_KANA_POINTS: i64 = -3;
const IMPOSSIBLE_POINTS: i64 = -8;
// Western text read as a CJK codec pairs each 8-bit byte with the letter
// after it ("won’t" in Shift_JIS is "won稚"); CJK text seldom writes a
// character against a Latin letter.
const LATIN_ADJACENT_POINTS: i64 = -2;

fn is_japanese(codec: &str) -> bool {
    codec == "cp932" || codec == "euc_jp"
}

/// A run of three or more of one non-ASCII character made two: a run of
/// one character is decoration (a line of box drawing, of full-width
/// spaces), so that a line of ─ read as 岸岸岸 by Big5 does not outweigh
/// the text around it.
fn collapse_repeats(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = None;
    let mut run = 0;
    for c in text.chars() {
        if Some(c) == last {
            run += 1;
        } else {
            last = Some(c);
            run = 1;
        }
        if c.is_ascii() || run <= 2 {
            out.push(c);
        }
    }
    out
}

fn is_cjk_letter(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{9fff}' | '\u{ac00}'..='\u{d7a3}')
}

/// How well `text`, decoded with `codec`, reads: the points of its
/// characters outside ASCII, less the CJK characters that touch an ASCII
/// letter.  Each distinct character is judged once.
pub fn reading_score(text: &str, codec: &str) -> i64 {
    let text = collapse_repeats(text);
    let mut counts: HashMap<char, i64> = HashMap::new();
    let mut adjacent = 0i64;
    let mut previous: Option<char> = None;
    for c in text.chars() {
        if !c.is_ascii() {
            *counts.entry(c).or_insert(0) += 1;
        }
        if let Some(p) = previous {
            // A character before a letter, and after one.
            if (is_cjk_letter(p) && c.is_ascii_alphabetic()) || (p.is_ascii_alphabetic() && is_cjk_letter(c)) {
                adjacent += 1;
            }
        }
        previous = Some(c);
    }
    LATIN_ADJACENT_POINTS * adjacent + counts.iter().map(|(&c, &n)| n * char_points(c, codec)).sum::<i64>()
}

/// Python's str.isalpha (general category L*), for the characters of the
/// CJK standards' symbol rows: Rust's Alphabetic also holds letter numbers
/// (Ⅻ, 〇) and circled letters (ⓐ), which Python's does not.
fn py_isalpha(c: char) -> bool {
    c.is_alphabetic()
        && !matches!(c, '\u{16ee}'..='\u{16f0}' | '\u{2160}'..='\u{2188}' | '\u{3007}' | '\u{3021}'..='\u{3029}'
            | '\u{3038}'..='\u{303a}' | '\u{24b6}'..='\u{24e9}')
}

#[derive(Clone, Copy, PartialEq)]
enum Row {
    Level1,
    Level2,
    Symbols,
    Extension,
}

fn char_points(c: char, codec: &str) -> i64 {
    let code = c as u32;
    if (0xFF61..=0xFF9F).contains(&code) {
        return HALF_WIDTH_KANA_POINTS;
    }
    if code < 0xA0 || (0xE000..=0xF8FF).contains(&code) || code == 0xFFFD {
        return IMPOSSIBLE_POINTS;
    }
    if (0x3041..=0x30FF).contains(&code) && is_japanese(codec) {
        return COMMON_POINTS; // kana
    }
    let Some(encoded) = encode_char(c, codec) else {
        return 0; // a character the codec reads but does not write
    };
    let row = row_of(&encoded, codec);
    if (0x4E00..=0x9FFF).contains(&code) {
        if codec == "cp949" {
            return 0; // Hanja: Korean mail is written in Hangul
        }
        if row == Row::Extension {
            return RARE_POINTS;
        }
        if is_japanese(codec) {
            // Japanese is written in kana and kanji together: its kana earn
            // a common character's points, its kanji a level less, which
            // keeps Chinese read as EUC-JP (邵筱昕 as 布黹蠖) from winning.
            return if row == Row::Level1 { LEVEL_2_POINTS } else { 0 };
        }
        if common_han().contains(&c) {
            return COMMON_POINTS;
        }
        return if row == Row::Level1 { LEVEL_1_POINTS } else { LEVEL_2_POINTS };
    }
    if (0xAC00..=0xD7A3).contains(&code) {
        // Hangul syllables
        if codec != "cp949" || row != Row::Level1 {
            return RARE_POINTS;
        }
        return if common_hangul().contains(&c) { COMMON_POINTS } else { LEVEL_1_POINTS };
    }
    if row == Row::Symbols {
        // Greek, Cyrillic and kana rows of a Chinese or Korean standard are
        // letters seldom used in its language.
        return if py_isalpha(c) { LEVEL_2_POINTS } else { SYMBOL_POINTS };
    }
    if (0x3400..=0x4DBF).contains(&code) || (0xF900..=0xFAFF).contains(&code) {
        return RARE_POINTS; // CJK extension A, compatibility ideographs
    }
    0
}

/// The bytes Python's `codec` writes `c` as (their length and the first
/// two are what matter), or None when it cannot write it.
fn encode_char(c: char, codec: &str) -> Option<Vec<u8>> {
    let dbcs = match codec {
        "gb18030" => Dbcs::Gb18030,
        "cp949" => Dbcs::Cp949,
        "big5hkscs" => Dbcs::Big5Hkscs,
        "cp932" => Dbcs::Cp932,
        "euc_jp" => Dbcs::EucJp,
        _ => return None,
    };
    if dbcs == Dbcs::Cp932 {
        // Python's CP932 writes these, though it reads their bytes as the full-width forms.
        let written: &[u8] = match c {
            '\u{a2}' => b"\x81\x91",
            '\u{a3}' => b"\x81\x92",
            '\u{ac}' => b"\x81\xca",
            '\u{2016}' => b"\x81\x61",
            '\u{2212}' => b"\x81\x7c",
            '\u{301c}' => b"\x81\x60",
            _ => b"",
        };
        if !written.is_empty() {
            return Some(written.to_vec());
        }
    }
    if dbcs == Dbcs::Big5Hkscs {
        // Python's Big5-HKSCS writes these in ETEN's box drawing row (F9), WHATWG's in the symbol rows.
        let written: &[u8] = match c {
            '\u{256d}' => b"\xf9\xfa",
            '\u{256e}' => b"\xf9\xfb",
            '\u{256f}' => b"\xf9\xfd",
            '\u{2570}' => b"\xf9\xfc",
            _ => b"",
        };
        if !written.is_empty() {
            return Some(written.to_vec());
        }
    }
    let mut buf = [0u8; 4];
    let text = c.encode_utf8(&mut buf);
    let mut encoder = dbcs.encoding().new_encoder();
    let mut out = [0u8; 8];
    let (result, _, written) = encoder.encode_from_utf8_without_replacement(text, &mut out, true);
    if matches!(result, encoding_rs::EncoderResult::InputEmpty) && written > 0 {
        let bytes = &out[..written];
        if dbcs.decode(bytes, false, false).is_some_and(|back| back == *text) {
            return Some(bytes.to_vec());
        }
    }
    // What WHATWG's encoders write otherwise or not at all (Big5's HKSCS
    // rows, EUC-JP's JIS X 0212, the cells corrected to Python's mapping).
    if let Some(bytes) = reverse_lookup(dbcs, c) {
        return Some(bytes);
    }
    // GB18030 writes every character, in four bytes when not in two.
    (dbcs == Dbcs::Gb18030).then(|| vec![0x81, 0x30, 0x81, 0x30])
}

/// The first cell that reads as `c` (Big5: the standard rows before
/// HKSCS's, as Python's encoder looks them up): a binary search of the
/// codec's compiled-in reverse map.
fn reverse_lookup(dbcs: Dbcs, c: char) -> Option<Vec<u8>> {
    let map = DBCS_REVERSE[dbcs as usize];
    let entries = map.len() / 8;
    let (mut low, mut high) = (0, entries);
    while low < high {
        let middle = low + (high - low) / 2;
        match read_u32(map, 2 * middle).cmp(&(c as u32)) {
            std::cmp::Ordering::Less => low = middle + 1,
            std::cmp::Ordering::Greater => high = middle,
            std::cmp::Ordering::Equal => {
                let [third, second, first, length] = read_u32(map, 2 * middle + 1).to_le_bytes();
                return Some([first, second, third][..usize::from(length).min(3)].to_vec());
            }
        }
    }
    None
}

/// Where a character lies in its standard: Symbols (the rows of
/// punctuation, forms and foreign letters), Level1 (the ideographs sorted
/// apart as the frequent ones: GB2312's 3,755, Big5's 5,401, JIS X 0208's
/// 2,965; for KS X 1001, its 2,350 Hangul syllables), Level2 (the other
/// ideographs of the standard; KS X 1001's Hanja), or Extension (what a
/// vendor added after: GBK, HKSCS, CP932's and CP949's extensions, JIS X
/// 0212).
fn row_of(encoded: &[u8], codec: &str) -> Row {
    let &[lead, trail] = encoded else { return Row::Extension };
    let euc = matches!(codec, "gb18030" | "euc_jp" | "cp949");
    if trail < 0xA1 && euc {
        // GBK's own symbol rows (╭╮╰╯, ═║╔╗, ↖↗) draw the art of Chinese mail.
        return if codec == "gb18030" && (0xA8..=0xA9).contains(&lead) { Row::Symbols } else { Row::Extension };
    }
    // Per codec: the lead bytes of the symbol rows, the first lead byte and
    // the last character of the first level, and the lead bytes of the
    // second level.
    let ((first_symbol, last_symbol), (first_level_1, last_level_1), (first_level_2, last_level_2)) = match codec {
        "gb18030" => ((0xA1, 0xA9), (0xB0, (0xD7, 0xFE)), (0xD8, 0xF7)),
        "euc_jp" => ((0xA1, 0xA8), (0xB0, (0xCF, 0xFE)), (0xD0, 0xF4)),
        "cp949" => ((0xA1, 0xAC), (0xB0, (0xC8, 0xFE)), (0xCA, 0xFD)),
        "big5hkscs" => ((0xA1, 0xA3), (0xA4, (0xC6, 0x7E)), (0xC9, 0xF9)),
        "cp932" => ((0x81, 0x84), (0x88, (0x98, 0x72)), (0x98, 0xEA)),
        _ => return Row::Extension,
    };
    if (first_symbol..=last_symbol).contains(&lead) {
        return Row::Symbols;
    }
    if first_level_1 <= lead && (lead, trail) <= last_level_1 {
        return Row::Level1;
    }
    if (first_level_2..=last_level_2).contains(&lead) {
        Row::Level2
    } else {
        Row::Extension
    }
}

const WESTERN_SYMBOLS: &str = "‘’“”–—•…€™©®°«»§£¥¢·´¡¿µ";
// Doubled in western text ("——", "’’"); "¡¡" is GB2312's full-width space.
const WESTERN_DOUBLED: &str = "‘’“”–—•…*°«»";

/// How well `data` reads as Windows-1252.  A letter or common symbol
/// (curly quotes, dashes, «») alone between ASCII earns a level-1
/// character's points, and so does a pair holding a letter (öß) or a
/// doubled dash or quote; three or more in a row, or a pair of other
/// symbols (¡¯, which is ’ in GB2312), are CJK bytes read as Latin
/// (ÎÒË¾¿É) and count against it, and so do the bytes Windows-1252 leaves
/// undefined.  The rarer symbols (‰ † ˆ ¤ ¬) earn nothing.
pub fn western_score(data: &[u8]) -> i64 {
    let decoded = decode_with(data, "cp1252", true, false).unwrap_or_default().replace('\u{a0}', " ");
    let text = collapse_repeats(&decoded);
    let mut score = 0;
    let mut run: Vec<char> = Vec::new();
    for c in text.chars().chain(std::iter::once('\0')) {
        if !c.is_ascii() {
            run.push(c);
            continue;
        }
        if run.is_empty() {
            continue;
        }
        let n = run.len() as i64;
        if run.len() >= 3
            || (run.len() == 2
                && !(run[0].is_alphabetic() || run[1].is_alphabetic() || (run[0] == run[1] && WESTERN_DOUBLED.contains(run[1]))))
        {
            score += RARE_POINTS * n;
        } else {
            for &c in &run {
                if c == '\u{fffd}' {
                    score += IMPOSSIBLE_POINTS;
                } else if (c.is_alphabetic() && !"ªºƒ".contains(c)) || WESTERN_SYMBOLS.contains(c) {
                    score += LEVEL_1_POINTS;
                }
            }
        }
        run.clear();
    }
    score
}

fn common_han() -> &'static HashSet<char> {
    static SET: OnceLock<HashSet<char>> = OnceLock::new();
    SET.get_or_init(|| COMMON_HAN.chars().collect())
}

fn common_hangul() -> &'static HashSet<char> {
    static SET: OnceLock<HashSet<char>> = OnceLock::new();
    SET.get_or_init(|| COMMON_HANGUL.chars().collect())
}

// Frequent characters of Chinese, Simplified and Traditional: the 500 most
// frequent in jieba's dictionary (counted over its words by their
// frequencies), the words of Chinese mail that list lacks (联系, 优惠,
// 欢迎...), and each in its Traditional forms (OpenCC s2t, s2tw, s2hk).
const COMMON_HAN: &str = concat!(
    "一是人了不在有大中国和为这上他个地年来我会以到时要出的生学说道民家子也成行下们于后就发自之对得主长可",
    "过天作分方用多你着部能市等业全里工公经本都而高政法面门动日进区事代那去心小同北定开产前其军还然起种所",
    "如现理机体表力好外与文当两实重新三么只山水关明从化平建又制南内西没此将员名手最东头者月间无安看见各城",
    "十相但已些正口通想度加第她合院物性战由位常点海意场武使次二向治因立数样身情入原问把路被并利石老教万知",
    "级量任江及应省资委务元美特期世湖回系比气汉总展电科金先声提品设或义王社很统处四首共马形己儿司太目基领",
    "队直计别女权话少流命至报米给打变果书清活几州华解议更称程今决张导术府才保交放管结师便走达族反再题色五",
    "京河接条规式县白它改风光运信受什组听布百济党指论强做取技黄神选记斯真却职号界件花类何眼兵传带空干农边",
    "据集联古广完质阳难增历史专官每住商即步认车台林必死游举线言皇土团收考求德叫近备研争非具李众连调感转笑",
    "革该持始英克士尔让拉思根格造较际亲单朝红型价校约器字段周亚深候则功属积快图火千准究往极育装许参半令吃",
    "观鱼精办像帝八复影告远群包整构料随划算象容示投势热值夫网望源息语股铁断派速怎需片爱律纪支早况病境证编",
    "谢免惠服迎优站费欢请址您國爲這個來會時學說們於後發對長過業裏經門動進區開產軍還種現機體與當兩實麼關從",
    "內沒將員東頭間無見戰點場數樣問並萬級應資務氣漢總電聲設義統處馬兒領隊計別權話報給變書幾華議稱決張導術",
    "結師達題條規縣風運組聽濟黨論強黃選記卻職號類傳帶幹農邊據聯廣質陽難歷專認車臺遊舉線團備爭衆連調轉該爾",
    "讓較際親單紅價約亞則屬積圖準極裝許參喫觀魚辦復遠羣構隨勢熱網語鐵斷愛紀況證編謝優費歡請為著裡眾説",
);

// Frequent Hangul syllables: particles, endings, the words of Korean mail
// (광고, 무료, 회원, 수신거부) and of the names in its From lines (surnames
// and common given names).  Chinese read as CP949 gives Hangul too, but
// rare syllables (广告 reads as 밤멩).
const COMMON_HANGUL: &str = concat!(
    "이다는의에을를하고가지서로기한리사대니자도있수정시아나인보전어해으주것스일상우들적부국게만제과와여요면안합",
    "성원비신장공경동소마라내중연무실문세구선현계방되습드트관위화개생회물행재결업용모분까알받거때또않했할된및그저",
    "더번님께립오본발처초품격판매광료입메확객감금액출벤쿠폰인특담청등록클릭험카은행최법림참당첨혜택",
    "김박강조윤임권황송류홍양손배백허남심노곽차진엄채천함변염추석설길표명반왕옥육맹탁편",
    "영준호희미숙철훈혜승태종순유민혁빈규욱환범웅래슬별솔",
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_read_as_python_reads_them() {
        assert_eq!(codec_for(None), "");
        assert_eq!(codec_for(Some(" 'GB2312' ")), "gb18030");
        assert_eq!(codec_for(Some("utf 8")), "utf-8");
        assert_eq!(codec_for(Some("u8")), "utf-8");
        assert_eq!(codec_for(Some("936")), "gbk");
        assert_eq!(codec_for(Some("euc_kr")), "euc_kr");
        assert_eq!(codec_for(Some("l1")), "iso8859-1");
        assert_eq!(codec_for(Some("iso-2022-jp")), "iso2022_jp_ext");
        assert_eq!(codec_for(Some("idna")), "");
        assert_eq!(codec_for(Some("base64")), "");
        assert_eq!(codec_for(Some("utf\0-8")), "");
        assert_eq!(codec_for(Some("utf.8")), "");
        assert_eq!(codec_for(Some("\u{1c}gbk")), "gb18030"); // Python's strip() takes the separators too
    }

    #[test]
    fn windows_1252_leaves_its_five_bytes_undefined() {
        assert_eq!(decode_with(b"a\x80\x81", "cp1252", false, false), None);
        assert_eq!(decode_with(b"a\x80\x81", "cp1252", true, false).unwrap(), "a\u{20ac}\u{fffd}");
        assert_eq!(decode_text(b"\x81\x8d\x8f\x90\x9d", None, false), "\u{fffd}".repeat(5));
    }

    #[test]
    fn a_bad_sequence_is_its_lead_byte_alone() {
        // GB18030: 0xDB then 0x2F is no character; the slash and 0xE2 0xB2 (獠) are read afresh.
        assert_eq!(decode_with(b"\xdb\x2f\xe2\xb2", "gb18030", true, false).unwrap(), "\u{fffd}/\u{7360}");
        // WHATWG's decoder would swallow a non-ASCII trail byte with the lead: Python reads it afresh.
        assert_eq!(decode_with(b"\xdb\xff\xb0\xa1", "gb18030", true, false).unwrap(), "\u{fffd}\u{fffd}\u{554a}");
        assert_eq!(decode_with(b"\xb0\xa1\xb0", "gb18030", true, false).unwrap(), "\u{554a}\u{fffd}");
        assert_eq!(decode_with(b"\xb0\xa1\xb0", "gb18030", true, true).unwrap(), "\u{554a}");
        assert_eq!(decode_with(b"\xb0\xa1\xb0", "gb18030", false, true).unwrap(), "\u{554a}");
        assert_eq!(decode_with(b"\xb0\xa1\xb0", "gb18030", false, false), None);
    }

    #[test]
    fn iso_2022_jp_as_python_reads_it() {
        assert_eq!(decode_with(b"\x1b$B$3$s\x1b(B!", "iso2022_jp_ext", false, false).unwrap(), "こん!");
        // 〜 as JIS maps it; empty switches are no error; half-width katakana.
        assert_eq!(decode_with(b"\x1b$B!A\x1b(B\x1b$B\x1b(B\x1b(I12\x1b(B", "iso2022_jp_ext", false, false).unwrap(),
                   "\u{301c}\u{ff71}\u{ff72}");
        assert_eq!(decode_with(b"\x1b$B$3$", "iso2022_jp_ext", false, true).unwrap(), "\u{3053}");
        assert_eq!(decode_with(b"\x1b$A", "iso2022_jp_ext", true, false).unwrap(), "\u{fffd}");
        assert_eq!(decode_text(b"\x1b$B$3$s\x1b(B", None, false), "こん");
    }

    #[test]
    fn seven_bit_codecs() {
        assert_eq!(decode_with(b"~{<:Ky~}~~", "hz", false, false).unwrap(), "\u{5df1}\u{6240}~");
        assert_eq!(decode_with(b"+AGEAYgBj- 1+-1", "utf-7", false, false).unwrap(), "abc 1+1");
        assert_eq!(decode_with(b"\x1b$)C\x0e\x30\x21\x0fA", "iso2022_kr", false, false).unwrap(), "\u{ac00}A");
    }

    #[test]
    fn garbage_never_panics_and_every_codec_is_tried() {
        let mut data: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
        data.extend_from_slice(b"\x1b$B\x1b(D\x1b$(D\x1bx+AAA~{");
        for (_, codec) in MODULES {
            for cut in [false, true] {
                let _ = decode_with(&data, codec, true, cut);
                let _ = decode_with(&data[..7], codec, false, cut);
            }
        }
        for label in [None, Some("utf-8"), Some("iso-2022-jp"), Some("hz"), Some("utf-7"), Some("utf-16")] {
            for end in [0, 1, 2, 3, 100, 2999, data.len()] {
                let _ = decode_text(&data[..end], label, false);
                let _ = decode_text(&data[..end], label, true);
            }
        }
    }

    #[test]
    fn sniffing_reads_undeclared_cjk() {
        // 本公司 in GB2312; in Big5; 회원 in EUC-KR.
        assert_eq!(decode_text(b"\xb1\xbe\xb9\xab\xcb\xbe", None, false), "本公司");
        assert_eq!(decode_text(b"\xa5\xbb\xa4\xbd\xa5\x71\xa1\x41", None, false), "本公司，");
        assert_eq!(decode_text(b"\xc8\xb8\xbf\xf8\xb4\xd4", None, false), "회원님");
        assert_eq!(decode_text(b"won\x92t", None, false), "won\u{2019}t");
    }

    #[test]
    fn compiled_tables_are_in_dbcs_order() {
        // 亜 in the three Japanese codecs, 가 in the two Korean, 啊 and 一 in the Chinese.
        let cells = [(Dbcs::Gb18030, [0xB0, 0xA1], '啊'), (Dbcs::Big5Hkscs, [0xA4, 0x40], '一'),
                     (Dbcs::Cp949, [0xB0, 0xA1], '가'), (Dbcs::Cp932, [0x88, 0x9F], '亜'),
                     (Dbcs::EucJp, [0xB0, 0xA1], '亜'), (Dbcs::ShiftJis, [0x88, 0x9F], '亜'),
                     (Dbcs::EucKr, [0xB0, 0xA1], '가')];
        for (dbcs, [lead, trail], c) in cells {
            assert_eq!(dbcs.cell(lead, trail), Some(c as u32), "{dbcs:?}");
            assert_eq!(reverse_lookup(dbcs, c), Some(vec![lead, trail]), "{dbcs:?}");
        }
        // CP949's extension is not EUC-KR's; JIS X 0212 is EUC-JP's three-byte set.
        assert_eq!(Dbcs::Cp949.cell(0x81, 0x41), Some('갂' as u32));
        assert_eq!(Dbcs::EucKr.cell(0x81, 0x41), None);
        assert_eq!(jisx0212(0xB0, 0xA1), Some('丂'));
        assert_eq!(reverse_lookup(Dbcs::EucJp, '丂'), Some(vec![0x8F, 0xB0, 0xA1]));
        assert_eq!(reverse_lookup(Dbcs::Gb18030, '\u{10FFFF}'), None);
    }
}
