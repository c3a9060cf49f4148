//! The double-byte codecs' cell tables and reverse maps, built once at
//! compile time and compiled into the core (src/mail/charsets/dbcs.rs reads them).
//!
//! Built at a process's first sniffed message they were its largest cost:
//! 24,000 cells decoded per codec, five codecs per sniff, and a hash map of
//! each codec's characters for the scoring of a reading (4.3 ms of a 40 ms
//! cold classify of a Chinese message).
//!
//! The mapping of each cell is WHATWG's (encoding_rs), corrected where
//! Python's codec maps it otherwise or not at all (DBCS_CORRECTIONS,
//! generated from Python by core/tools/gen_charset_tables.py).
//!
//! Files written to OUT_DIR, every number a little-endian u32:
//! - dbcs_cells.bin: per codec in `CODECS` order, (lead - 0x81) * 191 +
//!   (trail - 0x40) → code point (0: none; u32::MAX: a cell that reads as
//!   two characters);
//! - jisx0212.bin: (lead - 0xA1) * 94 + (trail - 0xA1) → code point (0: none),
//!   EUC-JP's 8F set;
//! - dbcs_reverse_N.bin: for codec N, (code point, bytes) pairs sorted by code
//!   point: the first cell that reads as the character (Big5: the standard
//!   rows before HKSCS's, as Python's encoder looks them up); bytes packed as
//!   length << 24 | first << 16 | second << 8 | third.

use encoding_rs::{Encoding, BIG5, EUC_JP, EUC_KR, GB18030, SHIFT_JIS};
use std::collections::HashMap;
use std::path::Path;

use crate::dbcs_corrections::DBCS_CORRECTIONS;
use crate::dbcs_layout::{cell_index, Dbcs as Codec, CELLS, CODECS};

const PAIR: u32 = u32::MAX;

impl Codec {
    fn encoding(self) -> &'static Encoding {
        match self {
            Codec::Gb18030 => GB18030,
            Codec::Big5Hkscs => BIG5,
            Codec::Cp949 | Codec::EucKr => EUC_KR,
            Codec::Cp932 | Codec::ShiftJis => SHIFT_JIS,
            Codec::EucJp => EUC_JP,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Codec::Gb18030 => "gb18030",
            Codec::Big5Hkscs => "big5hkscs",
            Codec::Cp949 => "cp949",
            Codec::Cp932 => "cp932",
            Codec::EucJp => "euc_jp",
            Codec::ShiftJis => "shift_jis",
            Codec::EucKr => "euc_kr",
        }
    }

    fn is_lead(self, b: u8) -> bool {
        match self {
            Codec::Cp932 => matches!(b, 0x81..=0x9F | 0xE0..=0xFC),
            Codec::ShiftJis => matches!(b, 0x81..=0x9F | 0xE0..=0xEA),
            Codec::EucJp => b >= 0xA1 && b != 0xFF,
            _ => (0x81..=0xFE).contains(&b),
        }
    }
}

fn corrections(codec: &str) -> &'static [(u32, u32)] {
    DBCS_CORRECTIONS.iter().find(|(name, _)| *name == codec).map_or(&[], |(_, list)| list)
}

/// The cells WHATWG's decoder reads, corrected to Python's mapping.
fn whatwg_cells(codec: Codec) -> Vec<u32> {
    let encoding = codec.encoding();
    let mut table = vec![0u32; CELLS];
    for lead in (0x81..=0xFEu8).filter(|&lead| codec.is_lead(lead)) {
        for trail in 0x40..=0xFEu8 {
            let pair = [lead, trail];
            let (text, malformed) = encoding.decode_without_bom_handling(&pair);
            if malformed {
                continue;
            }
            let mut chars = text.chars();
            table[cell_index(lead, trail)] = match (chars.next(), chars.next(), chars.next()) {
                (Some(c), None, _) => c as u32,
                (Some(_), Some(_), None) => PAIR,
                _ => 0,
            };
        }
    }
    for &(bytes, code) in corrections(codec.name()) {
        if bytes <= 0xFFFF {
            let (lead, trail) = ((bytes >> 8) as u8, bytes as u8);
            if lead >= 0x81 && trail >= 0x40 && trail != 0xFF {
                table[cell_index(lead, trail)] = code;
            }
        }
    }
    table
}

/// JIS X 0212 (EUC-JP's 8F set), row and cell from A1, as Python maps it.
fn jisx0212_cells() -> Vec<u32> {
    let mut table = vec![0u32; 94 * 94];
    for lead in 0xA1..=0xFEu8 {
        for trail in 0xA1..=0xFEu8 {
            let bytes = [0x8F, lead, trail];
            let (text, malformed) = EUC_JP.decode_without_bom_handling(&bytes);
            let mut chars = text.chars();
            if let (false, Some(c), None) = (malformed, chars.next(), chars.next()) {
                table[(lead as usize - 0xA1) * 94 + (trail as usize - 0xA1)] = c as u32;
            }
        }
    }
    for &(bytes, code) in corrections("euc_jp") {
        if bytes >> 16 == 0x8F {
            let (lead, trail) = ((bytes >> 8) as u8, bytes as u8);
            if (0xA1..=0xFE).contains(&lead) && (0xA1..=0xFE).contains(&trail) {
                table[(lead as usize - 0xA1) * 94 + (trail as usize - 0xA1)] = code;
            }
        }
    }
    table
}

/// Shift_JIS's cells: JIS X 0208's row and cell (EUC-JP's cell of the same
/// row and cell), moved (Python's arithmetic).
fn shift_jis_cells(euc_jp: &[u32]) -> Vec<u32> {
    let mut table = vec![0u32; CELLS];
    for lead in (0x81..=0x9Fu8).chain(0xE0..=0xEA) {
        for trail in (0x40..=0x7Eu8).chain(0x80..=0xFC) {
            let c1 = if lead < 0xE0 { lead - 0x81 } else { lead - 0xC1 };
            let c2 = if trail < 0x80 { trail - 0x40 } else { trail - 0x41 };
            let row = 2 * c1 + u8::from(c2 >= 0x5E) + 0x21;
            let cell = if c2 < 0x5E { c2 } else { c2 - 0x5E } + 0x21;
            if (0x21..=0x7E).contains(&row) && (0x21..=0x7E).contains(&cell) {
                let code = euc_jp[cell_index(row | 0x80, cell | 0x80)];
                if code != 0 && char::from_u32(code).is_some() {
                    table[cell_index(lead, trail)] = code;
                }
            }
        }
    }
    table
}

/// EUC-KR's cells: CP949's, less its extensions (lead or trail below A1).
fn euc_kr_cells(cp949: &[u32]) -> Vec<u32> {
    let mut table = cp949.to_vec();
    for lead in 0x81..=0xFEu8 {
        for trail in 0x40..=0xFEu8 {
            if lead < 0xA1 || trail < 0xA1 {
                table[cell_index(lead, trail)] = 0;
            }
        }
    }
    table
}

/// Character → the first cell that reads as it, sorted by character.
fn reverse_map(codec: Codec, cells: &[u32], jisx0212: &[u32]) -> Vec<(u32, u32)> {
    let mut map: HashMap<u32, u32> = HashMap::new();
    let leads: Vec<u8> =
        if codec == Codec::Big5Hkscs { (0xA1..=0xFE).chain(0x81..=0xA0).collect() } else { (0x81..=0xFE).collect() };
    for lead in leads {
        for trail in 0x40..=0xFEu8 {
            let code = cells[cell_index(lead, trail)];
            if code != 0 && code != PAIR && char::from_u32(code).is_some() {
                map.entry(code).or_insert(2 << 24 | (lead as u32) << 16 | (trail as u32) << 8);
            }
        }
    }
    if codec == Codec::EucJp {
        for lead in 0xA1..=0xFEu8 {
            for trail in 0xA1..=0xFEu8 {
                let code = jisx0212[(lead as usize - 0xA1) * 94 + (trail as usize - 0xA1)];
                if code != 0 && char::from_u32(code).is_some() {
                    map.entry(code).or_insert(3 << 24 | 0x8F << 16 | (lead as u32) << 8 | trail as u32);
                }
            }
        }
    }
    let mut pairs: Vec<(u32, u32)> = map.into_iter().collect();
    pairs.sort_unstable();
    pairs
}

fn little_endian(numbers: impl IntoIterator<Item = u32>) -> Vec<u8> {
    numbers.into_iter().flat_map(u32::to_le_bytes).collect()
}

pub fn write(out: &Path) {
    let jisx0212 = jisx0212_cells();
    let mut tables: Vec<Vec<u32>> = Vec::new();
    for codec in CODECS {
        let table = match codec {
            Codec::ShiftJis => shift_jis_cells(&tables[Codec::EucJp as usize]),
            Codec::EucKr => euc_kr_cells(&tables[Codec::Cp949 as usize]),
            _ => whatwg_cells(codec),
        };
        tables.push(table);
    }
    for (index, codec) in CODECS.into_iter().enumerate() {
        let pairs = reverse_map(codec, &tables[index], &jisx0212);
        let bytes = little_endian(pairs.into_iter().flat_map(|(code, bytes)| [code, bytes]));
        std::fs::write(out.join(format!("dbcs_reverse_{index}.bin")), bytes).expect("OUT_DIR is writable");
    }
    std::fs::write(out.join("dbcs_cells.bin"), little_endian(tables.into_iter().flatten())).expect("OUT_DIR is writable");
    std::fs::write(out.join("jisx0212.bin"), little_endian(jisx0212)).expect("OUT_DIR is writable");
}
