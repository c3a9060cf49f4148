//! The first character of every key of OpenCC's t2s (data/opencc_t2s.txt),
//! so that text/variants.rs passes a character that starts none (most of a
//! Simplified text) without searching each dictionary, and without walking
//! the table's 6,500 lines at a process's first Han run (0.3 ms).
//!
//! t2s_first_chars.bin in OUT_DIR: the characters, sorted, as little-endian
//! u32s.  The table's own checks (checksum, entry count, order) are the
//! unit tests' (variants.rs).

use std::path::Path;

pub fn write(manifest: &Path, out: &Path) {
    let path = manifest.join("data").join("opencc_t2s.txt");
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path).expect("core/data/opencc_t2s.txt");
    let mut first_chars: Vec<u32> = text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.starts_with("= "))
        .filter_map(|line| line.chars().next())
        .map(u32::from)
        .collect();
    first_chars.sort_unstable();
    first_chars.dedup();
    let bytes: Vec<u8> = first_chars.into_iter().flat_map(u32::to_le_bytes).collect();
    std::fs::write(out.join("t2s_first_chars.bin"), bytes).expect("OUT_DIR is writable");
}
