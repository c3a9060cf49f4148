//! The double-byte codecs (GB18030, Big5-HKSCS, CP949, EUC-KR, CP932,
//! Shift_JIS, EUC-JP), as Python's CJK codecs read them, from the tables
//! build.rs compiles in; and the 94×94 sets in 7 bits the ISO 2022 and HZ
//! codecs read through them (JIS X 0208, JIS X 0212, GB2312).

use encoding_rs::{Encoding, BIG5, EUC_JP, EUC_KR, GB18030, SHIFT_JIS};

use super::replacement::bad;

// The mapping of each two-byte cell is WHATWG's (encoding_rs), corrected
// where Python's codec maps it otherwise or not at all (DBCS_CORRECTIONS,
// generated from Python: GB18030-2000's private-use cells, Big5-HKSCS-2004
// against WHATWG's HKSCS-2008, JIS X 0208 as JIS maps it (〜 U+301C where
// Windows has ～), CP932's user-defined area...).  The scanning is
// Python's: a bad sequence is its lead byte alone (the next byte is read
// afresh, where WHATWG's decoders also swallow a non-ASCII trail byte), and
// a lead byte at the end is an incomplete character (left out when `cut`).

#[path = "../../../build_tables/dbcs_layout.rs"]
mod layout;
use layout::{cell_index, CELLS};
pub(super) use layout::Dbcs;

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
    pub(super) fn encoding(self) -> &'static Encoding {
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
    pub(super) fn cell(self, lead: u8, trail: u8) -> Option<u32> {
        if !(0x81..=0xFE).contains(&lead) || !(0x40..=0xFE).contains(&trail) {
            return None;
        }
        match read_u32(DBCS_CELLS, self as usize * CELLS + cell_index(lead, trail)) {
            0 => None,
            code => Some(code),
        }
    }

    pub(super) fn decode(self, data: &[u8], replace: bool, cut: bool) -> Option<String> {
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
pub(super) fn jisx0212(lead: u8, trail: u8) -> Option<char> {
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
pub(super) fn jisx0208(lead: u8, trail: u8) -> Option<char> {
    if !(0x21..=0x7E).contains(&lead) || !(0x21..=0x7E).contains(&trail) {
        return None;
    }
    Dbcs::EucJp.cell(lead | 0x80, trail | 0x80).and_then(char::from_u32)
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

/// GB2312 in 7 bits as Python maps it: GB18030's cells of its rows,
/// less GBK's additions there (small Roman numerals, vertical forms, the
/// pinyin letters ɑ-ɡ, €) and its private-use cells, with two of GB2312's
/// own mappings (・ and ―, where GB18030 has · and —).
pub(super) fn gb2312(lead: u8, trail: u8) -> Option<char> {
    match (lead, trail) {
        (0x21, 0x24) => return Some('\u{30fb}'),
        (0x21, 0x2A) => return Some('\u{2015}'),
        (0x22, 0x21..=0x2A | 0x63) | (0x26, 0x59..=0x75) | (0x28, 0x3B..=0x40) => return None,
        _ if lead > 0x77 => return None,
        _ => {}
    }
    euc_pair(GB18030, lead, trail).filter(|&c| !('\u{e000}'..='\u{f8ff}').contains(&c))
}

/// The first cell that reads as `c` (Big5: the standard rows before
/// HKSCS's, as Python's encoder looks them up): a binary search of the
/// codec's compiled-in reverse map.
pub(super) fn reverse_lookup(dbcs: Dbcs, c: char) -> Option<Vec<u8>> {
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
