//! What tokenizing one message may cost: Han characters segmented and long
//! NFKC expansions, for the header fields and for the body each.

use crate::text::normalise;

/// Han characters segmented by jieba per message, for the header fields and
/// for the body each: jieba costs 10-20 us a character when its HMM reads
/// them (rare characters, unknown words) and its dictionary is read in for
/// them, so this bounds a message's segmentation to a few tenths of a second.
/// The most in one message of the shared corpora is 8,085.  Han characters
/// past the bound are not dropped: each is a token of its own.  They come
/// after the message's other tokens and form no bigrams: pairs of random
/// characters would be as many distinct tokens as characters, each a look-up
/// in the model.
pub const MAX_SEGMENTED_CHARS: i64 = 20_000;

/// Characters that NFKC expands to 4 or more, per message for the header
/// fields and for the body each (see normalise); 20,000 expand to at most
/// 360,000 characters.
pub const MAX_EXPANDERS: i64 = 20_000;

/// Work one message's header fields, or its body, may still cost:
/// Han characters to segment, long NFKC expansions.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    pub han: i64,
    pub expansions: i64,
    /// Han characters past `han`, one token each.
    pub spilled: Vec<String>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { han: MAX_SEGMENTED_CHARS, expansions: MAX_EXPANDERS, spilled: Vec::new() }
    }
}

/// `text` in NFKC and case-folded, its long expansions counted against `budget`.
pub fn normalise(text: &str, budget: Option<&mut Budget>) -> String {
    normalise::normalise(text, budget.map(|b| &mut b.expansions))
}
