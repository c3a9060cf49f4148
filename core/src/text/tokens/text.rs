//! Free text → tokens: the text normalised, cut into Han runs and the
//! pieces between them, the runs segmented within the budget, the pieces'
//! words, numbers, links and addresses kept by the word rules.

use ahash::AHashSet as HashSet;

use super::latin::latin_spans;
use super::{address_tokens, han_split, url_tokens, Budget, CoreHan, HanText, TokenizerOptions};
use crate::text::normalise;

/// One-letter Latin "words" are noise (with them: 0.274 / 0.017, level, and a
/// larger vocabulary).  A minimum of three letters would lose ccert_zh's "mm",
/// "gg", "qq" slang (0.279 / 0.021).
pub const MIN_WORD_LENGTH: usize = 2;
/// Longer words are dropped: a bound on token size for hostile input.  Turning
/// them into SpamBayes-style "skip:C:N" tokens measured level (Bernoulli model:
/// 0.306 / 0.016 against 0.307 / 0.016), so that rule is gone.
pub const MAX_WORD_LENGTH: usize = 40;

/// Tokens of free text: words, numbers, Chinese words, URL and address tokens.
///
/// `budget` bounds the Han characters segmented and the long NFKC
/// expansions (a fresh Budget when not given): see MAX_SEGMENTED_CHARS and
/// normalise.  The Han characters past its bound are left in
/// `budget.spilled`, which the caller reads (when no budget is given, they
/// end the list returned).
pub fn text_tokens(text: &str, options: &TokenizerOptions, budget: Option<&mut Budget>) -> Vec<String> {
    text_tokens_with(text, options, budget, &CoreHan)
}

/// `text_tokens` with the Han handling given.
pub fn text_tokens_with(text: &str, options: &TokenizerOptions, budget: Option<&mut Budget>,
                        han: &dyn HanText) -> Vec<String> {
    match budget {
        Some(budget) => budget_text_tokens(text, options, budget, han),
        None => {
            let mut budget = Budget::default();
            let mut out = budget_text_tokens(text, options, &mut budget, han);
            out.append(&mut budget.spilled);
            out
        }
    }
}

fn budget_text_tokens(text: &str, options: &TokenizerOptions, budget: &mut Budget,
                      han: &dyn HanText) -> Vec<String> {
    let mut out = Vec::new();
    let stop = &options.stopwords;
    let text = normalise::normalise(text, Some(&mut budget.expansions));
    // Han characters start at U+2E80 (CJK radicals): text below that (most
    // mail that is not Chinese) needs no split.
    let pieces = if text.chars().any(|c| c >= '\u{2e80}') { han_split(&text) } else { vec![text.as_str()] };
    for (index, &piece) in pieces.iter().enumerate() {
        if piece.is_empty() {
            continue;
        }
        if index % 2 == 1 {
            // A Han run.
            if budget.han <= 0 {
                // Every Han run from here on is spilled: the rest of the text at once.
                spill_the_rest(&pieces, index, &mut out, options, budget, han);
                break;
            }
            let folded;
            let run = if options.fold_variants {
                folded = han.fold_variants(piece);
                folded.as_str()
            } else {
                piece
            };
            let length = run.chars().count() as i64;
            if length > budget.han {
                let cut = run.char_indices().nth(budget.han as usize).map_or(run.len(), |(at, _)| at);
                out.extend(han.segment(&run[..cut]).into_iter().filter(|w| !stop.contains(w)));
                budget.spilled.extend(run[cut..].chars().map(String::from).filter(|c| !stop.contains(c)));
                budget.han = 0;
                continue;
            }
            budget.han -= length;
            out.extend(han.segment(run).into_iter().filter(|w| !stop.contains(w)));
            continue;
        }
        if piece.chars().nth(MIN_WORD_LENGTH - 1).is_some() {
            // A shorter piece holds no token.
            latin_tokens(piece, stop, &mut out);
        }
    }
    out
}

/// The tokens of pieces[first..] (a Han run first, as han_split gives
/// them), the Han budget spent: what the step per piece gives, found at
/// once.  Spilled runs are not segmented and stand alone, and no Latin
/// token spans a Han run, so the Latin pieces are read joined by a blank
/// (no token holds one, and every rule reads it as it reads the end of a
/// piece) and the runs joined by a line end (no variant or OpenCC phrase
/// holds one).
fn spill_the_rest(pieces: &[&str], first: usize, out: &mut Vec<String>, options: &TokenizerOptions,
                  budget: &mut Budget, han: &dyn HanText) {
    let stop = &options.stopwords;
    let mut runs = pieces[first..].iter().step_by(2).copied().collect::<Vec<_>>().join("\n");
    if options.fold_variants {
        runs = han.fold_variants(&runs);
    }
    budget.spilled.extend(runs.chars().filter(|&c| c != '\n').map(String::from).filter(|c| !stop.contains(c)));
    let latin = pieces[first + 1..].iter().step_by(2).copied().collect::<Vec<_>>().join(" ");
    latin_tokens(&latin, stop, out);
}

/// Words, numbers, URL and address tokens of text with no Han character, added to `out`.
fn latin_tokens(piece: &str, stop: &HashSet<String>, out: &mut Vec<String>) {
    for value in latin_spans(piece) {
        // Which alternative matched, from the text: only a URL holds "://"
        // or starts with "www." (an address or word starting so would have
        // matched as a URL first), and of the rest only an address has "@".
        if value.contains("://") || value.starts_with("www.") {
            out.extend(url_tokens(value));
        } else if value.contains('@') {
            out.extend(address_tokens("email", value));
        } else {
            // A char has at most 4 bytes: most words are judged by their byte length alone.
            let fits = value.len() <= MAX_WORD_LENGTH || value.chars().count() <= MAX_WORD_LENGTH;
            if fits && value.chars().nth(MIN_WORD_LENGTH - 1).is_some() && !stop.contains(value) {
                out.push(value.to_string());
            }
        }
    }
}
