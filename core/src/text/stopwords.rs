//! Ported from spamnb/text/ (tokens.py, stopwords): the built-in stop-word
//! lists, and reading a list's text.
//!
//! Dropping stop words: 0.273 / 0.017 (spamassassin / ccert_zh, 1-ROCA %, see
//! tokens.rs); keeping them: 0.264 / 0.025.  Level for English, better for
//! Chinese, whose function words (的, 了, 我们) fill every message of both classes.
//!
//! Stop words are a model option: a model stores its list and scores with
//! it, so the Python `TokenizerOptions` keeps carrying them and the binding
//! passes them in.  The built-in lists are compiled in from spamnb/data/
//! (the files Python reads) for Rust callers that build default options.

use ahash::AHashSet as HashSet;

use super::normalise::{casefold, splitlines, strip};

const ENGLISH: &str = include_str!("../../../spamnb/data/stopwords_en.txt");
const CHINESE: &str = include_str!("../../../spamnb/data/stopwords_zh.txt");

/// The words of a list's text: one a line, `#` starts a comment, case-folded.
pub fn parse(text: &str) -> HashSet<String> {
    let mut words = HashSet::new();
    for line in splitlines(text) {
        let word = casefold(strip(line.split('#').next().unwrap_or("")));
        if !word.is_empty() {
            words.insert(word);
        }
    }
    words
}

/// The English and Chinese lists shipped with spamnb.
pub fn builtin() -> HashSet<String> {
    let mut words = parse(ENGLISH);
    words.extend(parse(CHINESE));
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_holds_both_languages() {
        let words = builtin();
        for word in ["the", "的", "我们", "you"] {
            assert!(words.contains(word), "{word}");
        }
        assert!(!words.iter().any(|w| w.contains('#') || w.trim() != w));
    }

    #[test]
    fn comments_and_case() {
        let words = parse("# mine\nMeeting  # a comment\n\n会议\r\n");
        assert_eq!(words, ["meeting", "会议"].iter().map(|s| s.to_string()).collect());
    }
}
