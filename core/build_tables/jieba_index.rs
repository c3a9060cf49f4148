//! An index of jieba's dictionary (data/jieba_dict.txt) by first character,
//! so that a lookup searches the few lines of one character (30 on average)
//! where a binary search of all 349,000 lines read 20 of them, scattered
//! over 4 MB: those searches were a millisecond of a process's first
//! Chinese message (src/text/chinese.rs reads the index).
//!
//! jieba_first_chars.bin in OUT_DIR: (character, start of its first line in
//! the dictionary's body) for each first character, in order, as
//! little-endian u32s; a character's lines end where the next one's start.

use std::path::Path;

pub fn write(manifest: &Path, out: &Path) {
    let path = manifest.join("data").join("jieba_dict.txt");
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path).expect("core/data/jieba_dict.txt");
    // The body follows the `# key: value` header lines (chinese.rs's split_header).
    let mut body = text.as_str();
    while body.starts_with('#') {
        body = &body[body.find('\n').map_or(body.len(), |index| index + 1)..];
    }
    let mut index: Vec<u8> = Vec::new();
    let mut previous = None;
    let mut start = 0;
    for line in body.split_inclusive('\n') {
        let first = line.chars().next();
        if first != previous {
            let first = first.expect("split_inclusive gives no empty line");
            index.extend((first as u32).to_le_bytes());
            index.extend(u32::try_from(start).expect("a dictionary under 4 GB").to_le_bytes());
            previous = Some(first);
        }
        start += line.len();
    }
    std::fs::write(out.join("jieba_first_chars.bin"), index).expect("OUT_DIR is writable");
}
