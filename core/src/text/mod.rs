//! A decoded message → tokens: NFKC and case folding, words, URLs, addresses,
//! `field:` tokens, Chinese folded (variants, Traditional → Simplified) and
//! segmented (jieba-rs).

pub mod chinese;
pub mod normalise;
pub mod sorted_lines;
pub mod stopwords;
pub mod tokens;
pub mod variants;
