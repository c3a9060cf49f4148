//! Which characters start a key of OpenCC's t2s (data/opencc_t2s.txt), so
//! that text/variants.rs passes a character that starts none (most of a
//! Simplified text) without searching each dictionary, and without walking
//! the table's 6,500 lines at a process's first Han run (0.3 ms).
//!
//! t2s_first_chars.bin in OUT_DIR: a bitmap of the code points below
//! FIRST_CHAR_LIMIT, bit `c % 8` of byte `c / 8` set where `c` starts a key.
//! A bit read is one load where a search of the 5,268 characters was
//! thirteen (two per character of every Han run: 6 % of a Chinese bulk
//! classify).  The table's own checks (checksum, entry count, order) are
//! the unit tests' (variants.rs).

use std::path::Path;

/// Above every key's first character (the last is U+30EDE); build.rs stops if one is not.
pub const FIRST_CHAR_LIMIT: u32 = 0x40000;

pub fn write(manifest: &Path, out: &Path) {
    let path = manifest.join("data").join("opencc_t2s.txt");
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path).expect("core/data/opencc_t2s.txt");
    let mut bitmap = vec![0u8; (FIRST_CHAR_LIMIT / 8) as usize];
    for first in text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.starts_with("= "))
        .filter_map(|line| line.chars().next())
    {
        let code = u32::from(first);
        assert!(code < FIRST_CHAR_LIMIT, "a t2s key starts above FIRST_CHAR_LIMIT: raise it");
        bitmap[(code / 8) as usize] |= 1 << (code % 8);
    }
    std::fs::write(out.join("t2s_first_chars.bin"), bitmap).expect("OUT_DIR is writable");
}
