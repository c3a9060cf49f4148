//! The Python tokenizer's character classes (text/pyunicode.rs: `\w`, `\s`,
//! `\d`, str.isdigit, unassigned) of every code point of the Basic
//! Multilingual Plane, and whether NFKC may start a piece at it (its
//! boundary: quick check Yes and combining class 0, from the normaliser's
//! own crate), as a two-stage table: text/normalise.rs reads a character's
//! classes with two loads where it searched each class's ranges (`\w` alone
//! is 700-odd ranges: ten steps for every Han character a Chinese message
//! holds) and asked the normaliser two questions.
//!
//! bmp_classes.bin in OUT_DIR, laid out as bmp_layout.rs says: the leaf of
//! each block of code points, then the leaves, a code point's classes a
//! byte.  Blocks with the same bytes share a leaf (most blocks are all one
//! class).

use std::collections::HashMap;
use std::path::Path;

#[allow(dead_code)]
#[path = "../src/text/pyunicode.rs"]
mod pyunicode;
#[path = "../src/text/nfkc_boundary.rs"]
mod nfkc_boundary;
use nfkc_boundary::is_nfkc_boundary;
use super::bmp_layout::{DECIMAL_BIT, DIGIT_BIT, LEAF, NFKC_BOUNDARY_BIT, SPACE_BIT, STAGE1_BYTES, UNASSIGNED_BIT, WORD_BIT};

/// Each class's bit and its ranges.
const CLASSES: [(u8, &[(u32, u32)]); 5] = [(WORD_BIT, pyunicode::WORD), (SPACE_BIT, pyunicode::SPACE),
                                           (DECIMAL_BIT, pyunicode::DECIMAL), (DIGIT_BIT, pyunicode::DIGIT),
                                           (UNASSIGNED_BIT, pyunicode::UNASSIGNED)];

pub fn write(manifest: &Path, out: &Path) {
    for file in ["pyunicode.rs", "nfkc_boundary.rs"] {
        println!("cargo:rerun-if-changed={}", manifest.join("src").join("text").join(file).display());
    }
    let mut bytes = vec![0u8; 0x10000];
    for (bit, ranges) in CLASSES {
        for &(start, end) in ranges {
            for code in start..=end.min(0xFFFF) {
                bytes[code as usize] |= bit;
            }
        }
    }
    for (code, classes) in bytes.iter_mut().enumerate() {
        if char::from_u32(code as u32).is_some_and(is_nfkc_boundary) {
            *classes |= NFKC_BOUNDARY_BIT;
        }
    }
    let mut leaves: Vec<&[u8]> = Vec::new();
    let mut leaf_of: HashMap<&[u8], u16> = HashMap::new();
    let mut stage1 = Vec::with_capacity(STAGE1_BYTES);
    for block in bytes.chunks(LEAF) {
        let next = u16::try_from(leaves.len()).expect("at most 256 leaves");
        let leaf = *leaf_of.entry(block).or_insert_with(|| {
            leaves.push(block);
            next
        });
        stage1.extend_from_slice(&leaf.to_le_bytes());
    }
    let table: Vec<u8> = stage1.into_iter().chain(leaves.concat()).collect();
    std::fs::write(out.join("bmp_classes.bin"), table).expect("OUT_DIR is writable");
}
