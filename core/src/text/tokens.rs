//! A decoded message → the list of tokens the model counts (ported from
//! spamnb/text/tokens.py).
//!
//! Token kinds:
//! - body words: Latin words and numbers, case-folded, as they are;
//! - Chinese words: runs of Han characters segmented by jieba;
//! - `url:HOST` and `url:DOMAIN` for every link, in text or behind HTML;
//! - `FIELD:word` for words of a selected header (`subject:免费`, `from:alice`),
//!   with `FIELD:addr:...` and `FIELD:domain:...` for addresses;
//! - `attach:type:...`, `attach:ext:...` for each attachment.
//!
//! Every rule carries its measured effect: 1-ROCA % (lower is better), mean of
//! 10-fold cross-validation inside the 70 % training part of each corpus, for
//! the defaults (mixed model) against the defaults without the rule:
//!
//!     python bench/ablate.py --folds 10 --variant baseline --variant VARIANT
//!
//! Numbers are "spamassassin / ccert_zh", each against the defaults of its
//! time: most rules below were measured when the defaults scored 0.273 / 0.017
//! (fold-to-fold standard deviation about 0.36 / 0.03, so a mean's standard
//! error about 0.11 / 0.01: smaller differences are noise).  Defaults close
//! to today's (bigrams, α 0.1, min strength 2) score 0.046 / 0.003, sd 0.052 / 0.004.
//!
//! Python's `re` rules are written as plain code over the characters (no
//! look-around in the `regex` crate; Python's `\w`, `\d`, `\s` are not
//! Rust's): see normalise.rs for the character classes.
//!
//! One file a job:
//!
//! - options.rs: TokenizerOptions (the header fields read, stop words,
//!   bigrams, variant folding) and the fields a filter writes, never read;
//! - budget.rs: what a message's Han segmentation and NFKC expansions may cost;
//! - han.rs: Han runs found, folded and segmented;
//! - text.rs: free text → tokens, with the word rules;
//! - latin.rs: the Latin scan (words, numbers, links, addresses);
//! - links.rs: link targets and addresses → `url:` and `addr:` tokens;
//! - fields.rs: header fields → tokens (Received, Message-ID, Date by rules
//!   of their own);
//! - message.rs: a whole message → its tokens, and which part a token is of.

mod budget;
mod fields;
mod han;
mod latin;
mod links;
mod message;
mod options;
#[cfg(test)]
mod tests;
mod text;

pub use budget::{normalise, Budget, MAX_EXPANDERS, MAX_SEGMENTED_CHARS};
pub use fields::{date_tokens, header_tokens, header_tokens_with, message_id_tokens, received_tokens};
pub use han::{han_split, is_han, CoreHan, HanText};
pub use latin::latin_findall;
pub use links::{address_tokens, registered_domain, url_host, url_tokens};
pub use message::{message_tokens, message_tokens_with, raw_message_tokens, token_part, BODY_PREFIXES};
pub use options::{header_preset, wants_header, TokenizerOptions, DEFAULT_BIGRAMS, DEFAULT_FOLD_VARIANTS,
                  DEFAULT_HEADERS, HEADER_PRESETS};
pub use text::{text_tokens, text_tokens_with, MAX_WORD_LENGTH, MIN_WORD_LENGTH};

/// Bumped whenever a change here would give an existing model's tokens a new
/// meaning; a model trained by another version is refused, not mis-scored.
pub const TOKENIZER_VERSION: u32 = 3;

/// `parts` joined: the tokens made of a prefix and a word, made without the
/// formatting machinery (a message makes hundreds of them).
fn joined(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|part| part.len()).sum());
    for part in parts {
        out.push_str(part);
    }
    out
}
