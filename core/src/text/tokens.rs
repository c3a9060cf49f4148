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
//! error about 0.11 / 0.01: smaller differences are noise).  Today's defaults
//! (bigrams, α 0.1, min strength 2) score 0.046 / 0.003, sd 0.052 / 0.004.
//!
//! Python's `re` rules are written as plain code over the characters (no
//! look-around in the `regex` crate; Python's `\w`, `\d`, `\s` are not
//! Rust's): see normalise.rs for the character classes.

use ahash::AHashSet as HashSet;

use super::normalise::{self, casefold, is_decimal, is_digit, is_space, is_word, strip};
use crate::mail::message::DecodedMessage;

/// Header presets for --headers.  Every field by default: how a message
/// travelled (Received, Message-ID, X-Mailer, list fields) is what makes real
/// mail easy.  bench/choose_defaults.py, 1-ROCA % inside the training parts,
/// trec06p later mail / online / spamassassin CV / sa->trec / trec->sa:
/// all 0.003 / 0.125 / 0.034 / 12.2 / 8.9, content 0.056 / 0.098 / 0.048 /
/// 8.4 / 6.2: content loses 11x on later mail of the same server, all loses
/// at most 1.9x anywhere, so all.  "content" leaves out the routing and
/// bookkeeping fields; it is for collections whose routing leaks the label
/// (ccert_zh: its spam and ham came through different relays in different
/// months), not for a user's own mail.
pub const HEADER_PRESETS: [(&str, &[&str]); 3] = [
    ("content", &["subject", "from", "to", "cc", "reply-to", "mime-version", "content-*"]),
    ("all", &["*"]),
    ("none", &[]),
];

/// The field `spamnb filter` adds (digest.STATUS_HEADER, lower case) is never
/// read: learning a filtered message would otherwise teach the model its own
/// verdict.  Nor are the SpamAssassin-style fields `filter --header-style
/// spamassassin` and spamd PROCESS write, for the same reason; no message of the
/// three corpora carries them (grep: 0 of 33,661), so no measured token changes.
pub const OWN_STATUS_FIELD: &str = "x-spamnb-status";
pub const OWN_FIELDS: [&str; 4] = [OWN_STATUS_FIELD, "x-spam-flag", "x-spam-level", "x-spam-status"];

/// One-letter Latin "words" are noise (with them: 0.274 / 0.017, level, and a
/// larger vocabulary).  A minimum of three letters would lose ccert_zh's "mm",
/// "gg", "qq" slang (0.279 / 0.021).
pub const MIN_WORD_LENGTH: usize = 2;
/// Bumped whenever a change here would give an existing model's tokens a new
/// meaning; a model trained by another version is refused, not mis-scored.
pub const TOKENIZER_VERSION: u32 = 3;
/// Longer words are dropped: a bound on token size for hostile input.  Turning
/// them into SpamBayes-style "skip:C:N" tokens measured level (Bernoulli model:
/// 0.306 / 0.016 against 0.307 / 0.016), so that rule is gone.
pub const MAX_WORD_LENGTH: usize = 40;

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

/// Everything about tokenizing that a model must remember to score alike.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenizerOptions {
    /// Header field names to tokenize; a trailing `*` matches a prefix.
    pub headers: Vec<String>,
    /// Words dropped from body and header text (after case folding).
    pub stopwords: HashSet<String>,
    /// Also count each pair of adjacent body words ("free money", "代开 发票").
    /// Bigrams on by default: 5-fold cross-validation inside the training part
    /// gave 1-ROCA % 0.080 / 0.006 (spamassassin / ccert_zh) against 0.096 /
    /// 0.007 without.  The price: about 3 times the vocabulary and twice the
    /// training time.  Pairs skip stop words, so "the free the money" pairs
    /// "free money".
    pub bigrams: bool,
    /// Fold Traditional characters and spam homoglyphs to Simplified.
    /// Folding variants: level on these corpora (1-ROCA % 0.115 / 0.011 with
    /// and without), whose Chinese is almost all Simplified GB2312; it is for
    /// mail that mixes scripts or disguises words (涐司岢办理㊣規髮票 = 我司可办理正规发票).
    /// On ccert_zh's test part disguised so (bench/rewrite_zh.py), the table
    /// of variants.py took 1-ROCA 0.0330 → 0.0316 % (plain: 0.0297 either way).
    pub fold_variants: bool,
}

impl Default for TokenizerOptions {
    fn default() -> Self {
        TokenizerOptions {
            headers: vec!["*".to_string()],
            stopwords: super::stopwords::builtin(),
            bigrams: true,
            fold_variants: true,
        }
    }
}

impl TokenizerOptions {
    /// `content`, `all`, `none` or a comma list such as `subject,from,x-mailer,content-*`.
    pub fn parse_headers(spec: &str) -> Vec<String> {
        let preset = |name: &str| HEADER_PRESETS.iter().find(|(key, _)| *key == name).map(|(_, v)| *v);
        let spec = normalise::lower(strip(spec));
        if let Some(names) = preset(&spec) {
            return names.iter().map(|s| s.to_string()).collect();
        }
        let mut names: Vec<String> = Vec::new();
        let mut add = |name: &str| {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        };
        for item in spec.split(',') {
            let item = strip(item).trim_end_matches(':');
            if let Some(found) = preset(item) {
                for name in found {
                    add(name);
                }
            } else if !item.is_empty() {
                add(item);
            }
        }
        names
    }

    pub fn wants_header(&self, name: &str) -> bool {
        if OWN_FIELDS.contains(&name) {
            return false;
        }
        self.headers.iter().any(|pattern| match pattern.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == pattern,
        })
    }
}

/// Whether a field's value is what `spamnb filter` writes, whatever the
/// field's name (`--header X-Custom`): `Yes, score=0.9987,
/// log-odds=6.64, model=NAME`.  Python: re.match(r"\s*" + digest.STATUS_VALUE,
/// value) with STATUS_VALUE = `(?:Yes|No|Unsure), score=[0-9.]+,
/// log-odds=[-+]?(?:[0-9.]+|inf), model=`.
pub fn is_status_value(value: &str) -> bool {
    fn number(rest: &str) -> Option<&str> {
        let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        if end == 0 {
            None
        } else {
            Some(&rest[end..])
        }
    }
    let rest = value.trim_start_matches(is_space);
    let Some(rest) = ["Yes", "No", "Unsure"].iter().find_map(|word| rest.strip_prefix(word)) else {
        return false;
    };
    let Some(rest) = rest.strip_prefix(", score=").and_then(number) else {
        return false;
    };
    let Some(rest) = rest.strip_prefix(", log-odds=") else {
        return false;
    };
    let rest = rest.strip_prefix(['-', '+']).unwrap_or(rest);
    let rest = match number(rest) {
        Some(after) => after,
        None => match rest.strip_prefix("inf") {
            Some(after) => after,
            None => return false,
        },
    };
    rest.starts_with(", model=")
}

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

/// How Han runs are folded and segmented: crate::text::variants and
/// crate::text::chinese on the real path; tests may pass their own.
pub trait HanText {
    fn fold_variants(&self, run: &str) -> String;
    fn segment(&self, run: &str) -> Vec<String>;
}

/// The crate's own Han handling (variants.rs, chinese.rs).
pub struct CoreHan;

impl HanText for CoreHan {
    fn fold_variants(&self, run: &str) -> String {
        crate::text::variants::fold_variants(run)
    }
    fn segment(&self, run: &str) -> Vec<String> {
        crate::text::chinese::segment(run)
    }
}

/// Han characters (CJK Unified Ideographs, Extension A, Compatibility), and
/// the CJK radicals that look like ideographs (⻔ for 门), which NFKC leaves
/// alone and variant folding turns into the ideograph (variants.rs).
pub fn is_han(c: char) -> bool {
    matches!(c, '\u{2e80}'..='\u{2eff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '\u{f900}'..='\u{faff}')
}

/// Python's `_han_run().split(text)`: the pieces between Han runs at even
/// indices, the runs at odd ones (empty pieces kept).
pub fn han_split(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut in_run = false;
    for (index, c) in text.char_indices() {
        let han = is_han(c);
        if han != in_run {
            pieces.push(&text[start..index]);
            start = index;
            in_run = han;
        }
    }
    pieces.push(&text[start..]);
    if in_run {
        pieces.push("");
    }
    pieces
}

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

// URLs are ASCII (an IRI's non-ASCII host arrives IDNA-encoded in mail), so
// the match stops at the first full-width or Chinese character:
// 访问http://a.example.com，联系 gives a.example.com, not "a.example.com,联系".
// The alternatives, tried in this order at each position: URL, address, word
// (Python: `(?:https?://|www\.)[A-Za-z0-9\-._~:/?#@!$&*+,;=%]++`
// `|(?<![\w.+\-])[\w.+\-]++@[\w\-]++(?:\.[\w\-]++)++`
// `|[$€£¥]?\w++(?:['.\-]\w++)*+%?`).
// An address does not start right after a character it could hold (the
// look-behind): without that test each position of a line of 500,000 "-",
// or of ".-a" repeated, scanned the rest of the line for an "@" (quadratic:
// 20,000 "-" took 0.4 s).  Where the scan moved on after such a character
// because every alternative failed there, an address starting one character
// later would have matched there already, so nothing is lost; where a match
// ended there, latin_findall tries the address itself.
// The quantifiers are possessive: no alternative ever needs to give
// characters back (a local part ends only at its "@", a word at a character
// it cannot hold), so each is a plain scan forward.

fn is_address_char(c: char) -> bool {
    is_word(c) || matches!(c, '.' | '+' | '-')
}

fn is_word_or_dash(c: char) -> bool {
    is_word(c) || c == '-'
}

fn is_url_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~:/?#@!$&*+,;=%".contains(c)
}

/// Text the Latin rules scan, one char at a time: the chars of a piece, or
/// the bytes of a piece that is ASCII (most mail), read where they lie
/// instead of copied out into chars first.  The same rules run on either.
trait Scanned {
    fn len(&self) -> usize;
    fn at(&self, index: usize) -> char;
}

impl Scanned for [char] {
    fn len(&self) -> usize {
        <[char]>::len(self)
    }
    fn at(&self, index: usize) -> char {
        self[index]
    }
}

impl Scanned for [u8] {
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }
    fn at(&self, index: usize) -> char {
        char::from(self[index])
    }
}

fn starts_with_at<S: Scanned + ?Sized>(s: &S, at: usize, prefix: &str) -> bool {
    at + prefix.len() <= s.len() && prefix.chars().enumerate().all(|(k, p)| s.at(at + k) == p)
}

fn run_end<S: Scanned + ?Sized>(s: &S, mut at: usize, class: impl Fn(char) -> bool) -> usize {
    while at < s.len() && class(s.at(at)) {
        at += 1;
    }
    at
}

/// `(?:https?://|www\.)[A-Za-z0-9\-._~:/?#@!$&*+,;=%]++` at `at`: its end.
fn match_url<S: Scanned + ?Sized>(s: &S, at: usize) -> Option<usize> {
    if at >= s.len() || !matches!(s.at(at), 'h' | 'w') {
        return None; // tried at every position: most start no link
    }
    let prefix = ["http://", "https://", "www."].iter().find(|p| starts_with_at(s, at, p))?;
    let body = at + prefix.len();
    let end = run_end(s, body, is_url_char);
    (end > body).then_some(end)
}

/// `[\w.+\-]++@[\w\-]++(?:\.[\w\-]++)++` at `at` (the look-behind is the caller's): its end.
fn match_address<S: Scanned + ?Sized>(s: &S, at: usize) -> Option<usize> {
    let local = run_end(s, at, is_address_char);
    if local == at || local >= s.len() || s.at(local) != '@' {
        return None;
    }
    let domain = local + 1;
    let mut end = run_end(s, domain, is_word_or_dash);
    if end == domain {
        return None;
    }
    let mut labels = 0;
    while end < s.len() && s.at(end) == '.' {
        let label_end = run_end(s, end + 1, is_word_or_dash);
        if label_end == end + 1 {
            break;
        }
        end = label_end;
        labels += 1;
    }
    (labels > 0).then_some(end)
}

/// `[$€£¥]?\w++(?:['.\-]\w++)*+%?` at `at`: its end.
fn match_word<S: Scanned + ?Sized>(s: &S, at: usize) -> Option<usize> {
    let n = s.len();
    let mut end = at;
    if end + 1 < n && matches!(s.at(end), '$' | '€' | '£' | '¥') && is_word(s.at(end + 1)) {
        end += 1;
    }
    if end >= n || !is_word(s.at(end)) {
        return None;
    }
    end = run_end(s, end, is_word);
    while end + 1 < n && matches!(s.at(end), '\'' | '.' | '-') && is_word(s.at(end + 1)) {
        end = run_end(s, end + 1, is_word);
    }
    if end < n && s.at(end) == '%' {
        end += 1;
    }
    Some(end)
}

/// The alternatives at `at` exactly, the address's look-behind tested unless `free`.
fn match_at<S: Scanned + ?Sized>(s: &S, at: usize, free: bool) -> Option<usize> {
    if let Some(end) = match_url(s, at) {
        return Some(end);
    }
    if free || at == 0 || !is_address_char(s.at(at - 1)) {
        if let Some(end) = match_address(s, at) {
            return Some(end);
        }
    }
    match_word(s, at)
}

/// Python's `_latin_findall`: the pattern's findall as it was without the
/// look-behind that keeps it linear: right after a match that is not a word
/// made of address characters only ("$a", "it's", a link, an address), an
/// address may start even though the character before it could be part of
/// one, so there the alternatives are tried without the look-behind.  (After
/// a match made of address characters only, an address starting where it
/// ended would have been matched from its start instead, as addresses are
/// tried first.)  Each such try reads at most one run of address characters
/// that no other try reads, so this stays linear.
pub fn latin_findall(piece: &str) -> Vec<String> {
    latin_spans(piece).into_iter().map(String::from).collect()
}

/// latin_findall's matches as slices of `piece`: a token is copied only if kept.
fn latin_spans(piece: &str) -> Vec<&str> {
    if piece.is_ascii() {
        // A byte is a char: offsets are indices.
        return scan_latin(piece.as_bytes(), |at| at).into_iter().map(|(start, end)| &piece[start..end]).collect();
    }
    let mut s: Vec<char> = Vec::with_capacity(piece.len());
    // The byte offset of each char, and of the end: a match's text is a slice.
    let mut offsets: Vec<usize> = Vec::with_capacity(piece.len() + 1);
    for (offset, c) in piece.char_indices() {
        s.push(c);
        offsets.push(offset);
    }
    offsets.push(piece.len());
    scan_latin(s.as_slice(), |at| offsets[at]).into_iter().map(|(start, end)| &piece[start..end]).collect()
}

/// The matches of latin_findall over `s`, as byte ranges of the piece (`offset`: a char's).
fn scan_latin<S: Scanned + ?Sized>(s: &S, offset: impl Fn(usize) -> usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut position = 0;
    let mut after_impure = false;
    while position < s.len() {
        let mut found = None;
        if after_impure && position > 0 && is_address_char(s.at(position - 1)) {
            found = match_at(s, position, true).map(|end| (position, end));
        }
        if found.is_none() {
            found = (position..s.len()).find_map(|at| match_at(s, at, false).map(|end| (at, end)));
        }
        let Some((start, end)) = found else { break };
        let begins = |prefix: &str| end - start >= prefix.len() && starts_with_at(s, start, prefix);
        after_impure = !(start..end).all(|at| is_address_char(s.at(at)))
            || begins("http://")
            || begins("https://")
            || begins("www.");
        out.push((offset(start), offset(end)));
        position = end; // every alternative matches at least one character
    }
    out
}

/// `parts` joined: the tokens made of a prefix and a word, made without the
/// formatting machinery (a message makes hundreds of them).
fn joined(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|part| part.len()).sum());
    for part in parts {
        out.push_str(part);
    }
    out
}

/// Second-level labels under which names are registered (example.com.cn), so
/// the registered domain is three labels there, not "com.cn".
const SECOND_LEVEL: [&str; 10] = ["com", "net", "org", "edu", "gov", "ac", "co", "or", "ne", "go"];

fn registered_keep(labels: &[&str]) -> usize {
    let n = labels.len();
    if n > 2 && SECOND_LEVEL.contains(&labels[n - 2]) && labels[n - 1].chars().count() == 2 {
        3
    } else {
        2
    }
}

/// The name a host is registered under: mail.example.com → example.com,
/// a.b.example.com.cn → example.com.cn.
pub fn registered_domain(host: &str) -> String {
    let labels: Vec<&str> = host.split('.').collect();
    let keep = registered_keep(&labels).min(labels.len());
    labels[labels.len() - keep..].join(".")
}

/// urllib.parse.urlsplit(url).hostname for a case-folded URL (Some("") when
/// it has none, None when urlsplit calls it invalid); plain URLs by
/// urlsplit's netloc rule `(?:[a-z][a-z0-9+.\-]*:)?//([^/?#]*)`, the rest by
/// urlsplit's own steps.
pub fn url_host(url: &str) -> Option<String> {
    if !url.is_ascii() || url.chars().any(|c| c <= ' ' || c == '[' || c == ']') {
        // NFKC folding, controls, spaces, IPv6: urlsplit's rules.
        return urlsplit_hostname(url);
    }
    let bytes = url.as_bytes();
    let mut at = 0;
    if bytes.first().is_some_and(|b| b.is_ascii_lowercase()) {
        let end = 1 + bytes[1..]
            .iter()
            .position(|&b| !(b.is_ascii_lowercase() || b.is_ascii_digit() || b"+.-".contains(&b)))
            .unwrap_or(bytes.len() - 1);
        if bytes.get(end) == Some(&b':') && url[end + 1..].starts_with("//") {
            at = end + 1;
        }
    }
    if !url[at..].starts_with("//") {
        return Some(String::new());
    }
    let rest = &url[at + 2..];
    let netloc = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let host = netloc.rsplit('@').next().unwrap_or("");
    Some(host.split(':').next().unwrap_or("").to_string())
}

/// urlsplit(url).hostname or "", None where urlsplit raises ValueError.
fn urlsplit_hostname(url: &str) -> Option<String> {
    let url: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|&c| !matches!(c, '\t' | '\r' | '\n'))
        .collect();
    let mut rest = url.as_str();
    if let Some(colon) = rest.find(':') {
        let scheme = &rest[..colon];
        if colon > 0
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        {
            rest = &rest[colon + 1..];
        }
    }
    let mut netloc = "";
    if let Some(after) = rest.strip_prefix("//") {
        netloc = &after[..after.find(['/', '?', '#']).unwrap_or(after.len())];
        let (open, close) = (netloc.contains('['), netloc.contains(']'));
        if open != close {
            return None; // Invalid IPv6 URL
        }
        if open {
            let inside = netloc.split_once('[').map_or("", |(_, after)| after);
            let bracketed = inside.split_once(']').map_or(inside, |(host, _)| host);
            if !bracketed_host_is_valid(bracketed) {
                return None;
            }
        }
    }
    if !netloc_is_valid(netloc) {
        return None;
    }
    let hostinfo = netloc.rsplit('@').next().unwrap_or("");
    let hostname = match hostinfo.split_once('[') {
        Some((_, bracketed)) => bracketed.split_once(']').map_or(bracketed, |(host, _)| host),
        None => hostinfo.split(':').next().unwrap_or(""),
    };
    if hostname.is_empty() {
        return Some(String::new());
    }
    // A scoped IPv6 address's zone is not lowered.
    Some(match hostname.split_once('%') {
        Some((host, zone)) => format!("{}%{}", normalise::lower(host), zone),
        None => normalise::lower(hostname),
    })
}

/// urllib.parse._checknetloc: a netloc whose NFKC form gains one of
/// "/?#@:" (℀ is a/c) is invalid.
fn netloc_is_valid(netloc: &str) -> bool {
    if netloc.is_ascii() {
        return true;
    }
    let plain: String = netloc.chars().filter(|c| !"@:#?".contains(*c)).collect();
    let folded = normalise::nfkc(&plain);
    folded == plain || !folded.contains(['/', '?', '#', '@', ':'])
}

/// urllib.parse._check_bracketed_host: IPvFuture (`v1.x`) or an IPv6
/// address as Python's ipaddress reads it (an IPv4 address is refused).
fn bracketed_host_is_valid(host: &str) -> bool {
    if let Some(rest) = host.strip_prefix('v') {
        // \Av[a-fA-F0-9]+\..+\Z
        let hex = rest.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(rest.len());
        return hex > 0 && rest[hex..].starts_with('.') && rest.len() > hex + 1 && !rest[hex + 1..].contains('\n');
    }
    !is_ipv4(host) && is_ipv6(host)
}

/// ipaddress.IPv4Address(text) succeeds.
fn is_ipv4(text: &str) -> bool {
    let octets: Vec<&str> = text.split('.').collect();
    octets.len() == 4
        && octets.iter().all(|octet| {
            !octet.is_empty()
                && octet.len() <= 3
                && octet.bytes().all(|b| b.is_ascii_digit())
                && !(octet.len() > 1 && octet.starts_with('0'))
                && octet.parse::<u32>().is_ok_and(|v| v <= 255)
        })
}

/// ipaddress.IPv6Address(text) succeeds (a `%zone` allowed).
fn is_ipv6(text: &str) -> bool {
    if text.contains('/') {
        return false;
    }
    let address = match text.split_once('%') {
        Some((address, zone)) => {
            if zone.is_empty() || zone.contains('%') {
                return false;
            }
            address
        }
        None => text,
    };
    if address.is_empty() {
        return false;
    }
    let mut parts: Vec<String> = address.split(':').map(String::from).collect();
    if parts.len() < 3 {
        return false;
    }
    if parts.last().is_some_and(|last| last.contains('.')) {
        let last = parts.pop().unwrap_or_default();
        if !is_ipv4(&last) {
            return false;
        }
        parts.push("0".into());
        parts.push("0".into());
    }
    if parts.len() > 9 {
        return false;
    }
    let mut skip = None;
    for (index, part) in parts.iter().enumerate().take(parts.len() - 1).skip(1) {
        if part.is_empty() {
            if skip.is_some() {
                return false;
            }
            skip = Some(index);
        }
    }
    let (high, low) = match skip {
        Some(index) => {
            let mut high = index;
            let mut low = parts.len() - index - 1;
            if parts[0].is_empty() {
                if high != 1 {
                    return false;
                }
                high = 0;
            }
            if parts[parts.len() - 1].is_empty() {
                if low != 1 {
                    return false;
                }
                low = 0;
            }
            if 8 < high + low + 1 {
                return false;
            }
            (high, low)
        }
        None => {
            if parts.len() != 8 || parts[0].is_empty() || parts[7].is_empty() {
                return false;
            }
            (8, 0)
        }
    };
    let hextet = |part: &String| !part.is_empty() && part.len() <= 4 && part.bytes().all(|b| b.is_ascii_hexdigit());
    parts[..high].iter().all(hextet) && parts[parts.len() - low..].iter().all(hextet)
}

/// `url:HOST` plus `url:DOMAIN` (the registered domain) for a link target;
/// `mailto:` links give the address tokens of an e-mail address.
///
/// Without URL tokens: 0.344 / 0.018.
pub fn url_tokens(url: &str) -> Vec<String> {
    let folded = casefold(strip(url));
    let url = folded.trim_end_matches(['.', ',', ';', ':', '!', '?', '\'', '"']);
    if let Some(address) = url.strip_prefix("mailto:") {
        return address_tokens("email", address.split('?').next().unwrap_or(""));
    }
    let with_scheme;
    let url = if url.starts_with("www.") {
        with_scheme = format!("http://{url}");
        with_scheme.as_str()
    } else {
        url
    };
    let Some(host) = url_host(url) else {
        return Vec::new();
    };
    let host = host.trim_matches('.');
    if host.is_empty() || host.chars().count() > 253 {
        return Vec::new();
    }
    let mut tokens = vec![joined(&["url:", host])];
    let labels: Vec<&str> = host.split('.').collect();
    let last = labels[labels.len() - 1];
    if !last.is_empty() && last.chars().all(is_digit) {
        return tokens; // an IP address has no registered domain
    }
    let keep = registered_keep(&labels);
    if labels.len() > keep {
        tokens.push(format!("url:{}", labels[labels.len() - keep..].join(".")));
    }
    tokens
}

pub fn address_tokens(field: &str, address: &str) -> Vec<String> {
    let address = casefold(strip(address).trim_matches(['<', '>']));
    if !address.contains('@') || address.chars().count() > 254 {
        return Vec::new();
    }
    let domain = address.rsplit('@').next().unwrap_or("");
    vec![joined(&[field, ":addr:", &address]), joined(&[field, ":domain:", domain])]
}

/// Maximal runs of characters of `class`, as (start, end) in chars.
fn runs_of(s: &[char], class: impl Fn(char) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut index = 0;
    while index < s.len() {
        if class(s[index]) {
            let start = index;
            index = run_end(s, index, &class);
            out.push((start, index));
        } else {
            index += 1;
        }
    }
    out
}

fn is_host_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'
}

fn is_host_run_char(c: char) -> bool {
    is_word(c) || c == '.' || c == '-'
}

/// Python's `_HOST` pattern, `(?<![\w.\-])[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{2,24}(?![\w\-])`,
/// matched from `start` of a run of `[\w.\-]` characters: the look-behind
/// lets it start only where such a run starts, and the backtracking gives
/// the longest chain of labels whose last label is 2 to 24 letters a-z
/// followed by a character that is neither `\w` nor "-".
fn host_at(s: &[char], start: usize) -> Option<usize> {
    if start >= s.len() || !is_host_char(s[start]) {
        return None;
    }
    let mut end = run_end(s, start, is_host_char);
    let mut best = None;
    while end + 1 < s.len() && s[end] == '.' && is_host_char(s[end + 1]) {
        let label = end + 1;
        end = run_end(s, label, is_host_char);
        let letters = s[label..end].iter().all(|c| c.is_ascii_lowercase());
        let after_ok = end >= s.len() || !is_word_or_dash(s[end]);
        if letters && (2..=24).contains(&(end - label)) && after_ok {
            best = Some(end);
        }
    }
    best
}

/// `_HOST.fullmatch(text)`.
fn is_host(text: &str) -> bool {
    let s: Vec<char> = text.chars().collect();
    host_at(&s, 0) == Some(s.len())
}

/// Weekday and month names of the timestamp every Received line ends with.
const CALENDAR: [&str; 19] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun", "jan", "feb", "mar", "apr",
    "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/// What a Received line says about where mail came from, not when or
/// which queue: the /24 and /16 of each IPv4 address, the registered
/// domain of each host name, and the plain words (from, by, with, helo,
/// unknown, esmtp, ...).  Its queue ids, times and dates are left out:
/// they are unique per message, or name a day that never comes back.
pub fn received_tokens(value: &str) -> Vec<String> {
    let value = casefold(value);
    let mut s: Vec<char> = Vec::with_capacity(value.len());
    let mut offsets: Vec<usize> = Vec::with_capacity(value.len() + 1);
    for (offset, c) in value.char_indices() {
        s.push(c);
        offsets.push(offset);
    }
    offsets.push(value.len());
    let text = |a: usize, b: usize| &value[offsets[a]..offsets[b]];
    let mut out = Vec::new();
    // `(?<![\d.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.\d{1,3}(?![\d.])`: a whole run of [\d.] characters.
    for (start, end) in runs_of(&s, |c| is_decimal(c) || c == '.') {
        let mut groups: Vec<(usize, usize)> = Vec::new();
        let mut at = start;
        for (index, &c) in s[start..end].iter().enumerate().map(|(k, c)| (start + k, c)) {
            if c == '.' {
                groups.push((at, index));
                at = index + 1;
            }
        }
        groups.push((at, end));
        if groups.len() == 4 && groups.iter().all(|&(a, b)| (1..=3).contains(&(b - a))) {
            let (a, b, c) = (text(groups[0].0, groups[0].1), text(groups[1].0, groups[1].1),
                             text(groups[2].0, groups[2].1));
            out.push(format!("received:ip:{a}.{b}.{c}"));
            out.push(format!("received:ip:{a}.{b}"));
        }
    }
    let word_runs = runs_of(&s, is_host_run_char);
    for &(start, _) in &word_runs {
        if let Some(end) = host_at(&s, start) {
            out.push(joined(&["received:domain:", &registered_domain(text(start, end))]));
        }
    }
    // `(?<![\w.\-])[a-z]{2,12}(?![\w.\-])`: a whole run of [\w.\-] characters.
    for &(start, end) in &word_runs {
        if (2..=12).contains(&(end - start)) && s[start..end].iter().all(|c| c.is_ascii_lowercase()) {
            let word = text(start, end);
            if !CALENDAR.contains(&word) {
                out.push(joined(&["received:", word]));
            }
        }
    }
    out
}

/// The registered domain after the `@` of a Message-ID (the sending
/// site's, or a forger's), or that it has none; its unique left part is
/// left out.
pub fn message_id_tokens(name: &str, value: &str) -> Vec<String> {
    let value = casefold(strip(value).trim_matches(['<', '>']));
    let domain = match value.rsplit_once('@') {
        Some((_, domain)) => domain,
        None => "",
    };
    let domain = domain.trim_matches(['.', '>']);
    if domain.is_empty() || !is_host(domain) {
        return vec![format!("{name}:domain:none")];
    }
    vec![format!("{name}:domain:{}", registered_domain(domain))]
}

/// Python's `_DATE_ZONE.search(value)`, `([+\-]\d{4}|\b(?:ut|gmt|[ecmp][sd]t|z)\b)\s*(?:\([^)]*\))?\s*$`:
/// the zone that ends the line, maybe before a comment in parentheses;
/// where several readings end the line, the one that starts first.
fn date_zone(s: &[char]) -> Option<String> {
    let last = s.iter().rposition(|&c| !is_space(c))?;
    let back_over_space = |mut end: usize| {
        while end > 0 && is_space(s[end - 1]) {
            end -= 1;
        }
        end
    };
    let mut ends = vec![last + 1];
    if s[last] == ')' {
        let previous = s[..last].iter().rposition(|&c| c == ')').map_or(0, |at| at + 1);
        ends.extend((previous..last).filter(|&at| s[at] == '(').map(back_over_space));
    }
    let mut best: Option<(usize, usize)> = None;
    for end in ends {
        let mut found = None;
        if end >= 5 && matches!(s[end - 5], '+' | '-') && s[end - 4..end].iter().all(|&c| is_decimal(c)) {
            found = Some(end - 5);
        } else {
            let start = (0..end).rev().take_while(|&at| is_word(s[at])).last();
            if let Some(start) = start {
                let word: String = s[start..end].iter().collect();
                let zone = matches!(word.as_str(), "ut" | "gmt" | "z")
                    || (word.len() == 3
                        && word.starts_with(['e', 'c', 'm', 'p'])
                        && matches!(word.as_bytes()[1], b's' | b'd')
                        && word.ends_with('t'));
                if zone {
                    found = Some(start);
                }
            }
        }
        if let Some(start) = found {
            if best.is_none_or(|(first, _)| start < first) {
                best = Some((start, end));
            }
        }
    }
    best.map(|(start, end)| s[start..end].iter().collect())
}

/// A Date field's zone and the shape of the line (digits as 9, letters
/// as a), which name the mailer that wrote it; never the day itself.
pub fn date_tokens(name: &str, value: &str) -> Vec<String> {
    let value = casefold(strip(value));
    let s: Vec<char> = value.chars().collect();
    let zone = date_zone(&s).unwrap_or_else(|| "none".to_string());
    let mut shape = String::new();
    let mut count = 0;
    let mut in_letters = false;
    for &c in &s {
        let c = if is_decimal(c) { '9' } else { c };
        if c.is_ascii_lowercase() {
            if in_letters {
                continue;
            }
            in_letters = true;
            shape.push('a');
        } else {
            in_letters = false;
            shape.push(c);
        }
        count += 1;
        if count == 40 {
            break;
        }
    }
    vec![format!("{name}:zone:{zone}"), format!("{name}:shape:{shape}")]
}

// Fields read by a rule of their own instead of as words.  Measured with
// every header read, by bench/choose_defaults.py (1-ROCA %, inside the
// training parts: trec06p later mail / online / spamassassin CV / sa->trec /
// trec->sa), each rule against the same run without it
// (`--variant headers=all --variant headers=all+no-rule=received`):
// - received: 0.003 / 0.125 / 0.034 / 12.2 / 8.9 with, 0.005 / 0.179 /
//   0.033 / 12.8 / 10.7 without: plain words memorise queue ids and times;
// - date: 12.2 / 8.9 / 0.125 (sa->trec / trec->sa / online) with, 11.7 /
//   10.0 / 0.134 without; its worst ratio over the protocols is the lower;
// - message-id: level on accuracy (12.2 / 8.9 either way); as plain words
//   every message adds its unique id to the vocabulary, never seen again.
fn field_rule(name: &str, value: &str) -> Option<Vec<String>> {
    match name {
        "received" => Some(received_tokens(value)),
        "message-id" | "resent-message-id" | "in-reply-to" => Some(message_id_tokens(name, value)),
        "date" | "resent-date" => Some(date_tokens(name, value)),
        _ => None,
    }
}

/// Tokens of one header field: its rule's, or `name:` before each word of
/// its value (of its display names and addresses, for an address field).
pub fn header_tokens(name: &str, value: &str, options: &TokenizerOptions, addresses: Option<&[(String, String)]>,
                     budget: Option<&mut Budget>) -> Vec<String> {
    header_tokens_with(name, value, options, addresses, budget, &CoreHan)
}

pub fn header_tokens_with(name: &str, value: &str, options: &TokenizerOptions,
                          addresses: Option<&[(String, String)]>, budget: Option<&mut Budget>,
                          han: &dyn HanText) -> Vec<String> {
    if let Some(tokens) = field_rule(name, value) {
        return tokens;
    }
    let mut fresh = Budget::default();
    let budget = match budget {
        Some(budget) => budget,
        None => &mut fresh,
    };
    let mut out = Vec::new();
    match addresses {
        Some(addresses) => {
            for (display, address) in addresses {
                if !display.is_empty() {
                    let words = text_tokens_with(display, options, Some(&mut *budget), han);
                    out.extend(words.into_iter().map(|word| joined(&[name, ":", &word])));
                }
                if !address.is_empty() {
                    out.extend(address_tokens(name, address));
                }
            }
        }
        None => {
            let words = text_tokens_with(value, options, Some(&mut *budget), han);
            out.extend(words.into_iter().map(|word| joined(&[name, ":", &word])));
        }
    }
    out.extend(budget.spilled.drain(..).map(|c| joined(&[name, ":", &c])));
    out
}

/// The prefixes of tokens that come from the body (links, addresses in the
/// text, attachments, a decoder's bound); every other token holding ":" is a
/// header field's (`FIELD:...`), since body words never hold one.
pub const BODY_PREFIXES: [&str; 4] = ["url:", "email:", "attach:", "cut:"];

/// Which part of a message a token comes from: "subject" (a word of the
/// Subject), "header" (any other header field: how the mail travelled and
/// was written), or "body" (words, pairs, links, attachments).
pub fn token_part(token: &str) -> &'static str {
    if !token.contains(':') || BODY_PREFIXES.iter().any(|p| token.starts_with(p)) {
        "body"
    } else if token.starts_with("subject:") {
        "subject"
    } else {
        "header"
    }
}

/// All tokens of a decoded message, in reading order, repeats kept.
pub fn message_tokens(message: &DecodedMessage, options: &TokenizerOptions) -> Vec<String> {
    message_tokens_with(message, options, &CoreHan)
}

pub fn message_tokens_with(message: &DecodedMessage, options: &TokenizerOptions, han: &dyn HanText) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen_addresses: HashSet<&str> = HashSet::new();
    let mut header_budget = Budget::default();
    let mut body_budget = Budget::default();
    for (name, value) in &message.headers {
        if !options.wants_header(name) || is_status_value(value) {
            continue;
        }
        let listed = message.addresses.iter().find(|(field, _)| field == name);
        let mut addresses = None;
        if let Some((_, list)) = listed {
            if !seen_addresses.insert(name.as_str()) {
                continue; // all of a field's addresses, once
            }
            addresses = Some(list.as_slice());
        }
        out.extend(header_tokens_with(name, value, options, addresses, Some(&mut header_budget), han));
    }
    for text in &message.texts {
        let words = text_tokens_with(text, options, Some(&mut body_budget), han);
        if options.bigrams {
            // Pairs of words, not of url:/email: tokens.
            let plain: Vec<&String> = words.iter().filter(|w| !w.contains(':')).collect();
            let pairs: Vec<String> = plain.windows(2).map(|pair| joined(&[pair[0], " ", pair[1]])).collect();
            out.extend(words);
            out.extend(pairs);
        } else {
            out.extend(words);
        }
    }
    out.append(&mut body_budget.spilled);
    for url in &message.urls {
        out.extend(url_tokens(url));
    }
    // Attachment type and extension: level on these corpora (0.272 / 0.017
    // without), where attachments are rare; they are the only trace an
    // image-only or malware message leaves.
    for (content_type, filename) in &message.attachments {
        out.push(format!("attach:type:{content_type}"));
        if let Some((_, extension)) = filename.rsplit_once('.') {
            let extension: String = casefold(extension).chars().take(16).collect();
            out.push(format!("attach:ext:{extension}"));
        }
    }
    // A bound the decoder stopped at ("header bytes"): the model learns what
    // such mail is, as of any other token.  Real mail never has one.
    out.extend(message.cut.iter().map(|what| format!("cut:{}", what.replace(' ', "-"))));
    out
}


/// All tokens of a raw message: decoded (mail::message::decode_message,
/// reading only the header fields `options` wants), then tokenized.  The
/// whole per-message path in one call, with no Python in between.
pub fn raw_message_tokens(raw: &[u8], options: &TokenizerOptions) -> Vec<String> {
    let message = crate::mail::message::decode_message(raw, &|name| options.wants_header(name));
    message_tokens(&message, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalise::{nfkc, pyunicode};

    /// Han runs as single characters, folded as they are: the tokenizer's
    /// own rules without the other stages.
    struct CharHan;

    impl HanText for CharHan {
        fn fold_variants(&self, run: &str) -> String {
            run.to_string()
        }
        fn segment(&self, run: &str) -> Vec<String> {
            run.chars().map(String::from).collect()
        }
    }

    fn plain() -> TokenizerOptions {
        TokenizerOptions { stopwords: HashSet::new(), ..TokenizerOptions::default() }
    }

    fn tokens(text: &str) -> Vec<String> {
        text_tokens_with(text, &plain(), None, &CharHan)
    }

    #[test]
    fn words_links_addresses() {
        assert_eq!(tokens("ＦＲＥＥ Free it's $100 50% a"), ["free", "free", "it's", "$100", "50%"]);
        assert_eq!(tokens("mail Sales@Deals.example now"),
                   ["mail", "email:addr:sales@deals.example", "email:domain:deals.example", "now"]);
        assert_eq!(tokens("访问http://a.example.com，联系"), ["访", "问", "url:a.example.com", "url:example.com", "联", "系"]);
        assert_eq!(tokens(&"x".repeat(41)), Vec::<String>::new());
    }

    #[test]
    fn ascii_and_other_text_scan_alike() {
        // The same text with and without a char past ASCII at its end (the
        // scan over bytes and the one over chars); "http:// x" is a word
        // "http" followed by no link.
        for text in ["$a+b@x.com http:// x.y@z.org www. it's-50% a.b@ http://h.example/p?q=1 ".to_string(),
                     "+me@x.org,ww.w wwwx www.a.b $5 a-b.c'd".to_string()] {
            let mut with_other = text.clone();
            with_other.push('é');
            let mut expected = latin_findall(&with_other);
            if expected.last().is_some_and(|last| last.ends_with('é')) {
                let last = expected.pop().unwrap_or_default();
                let cut = last.trim_end_matches('é');
                if !cut.is_empty() {
                    expected.push(cut.to_string());
                }
            }
            assert_eq!(latin_findall(&text), expected, "{text}");
        }
        assert_eq!(latin_findall("http:// a@b.c"), ["http", "a@b.c"]);
    }

    #[test]
    fn an_address_after_an_impure_match_is_found() {
        assert_eq!(latin_findall("$a+b@x.com"), ["$a", "+b@x.com"]);
        assert_eq!(latin_findall("it's+me@x.org"), ["it's", "+me@x.org"]);
        assert_eq!(latin_findall("$a.b@x.com"), ["$a.b", "x.com"]);
        assert_eq!(latin_findall("a.b@"), ["a.b"]);
    }

    #[test]
    fn han_budget_spills_single_characters() {
        let mut budget = Budget { han: 4, ..Budget::default() };
        let out = text_tokens_with(&"发票".repeat(10), &plain(), Some(&mut budget), &CharHan);
        assert_eq!(out.len(), 4);
        assert_eq!(budget.spilled.len(), 16);
        let mut budget = Budget { han: 0, ..Budget::default() };
        let out = text_tokens_with("发 ab 票 cd", &plain(), Some(&mut budget), &CharHan);
        assert_eq!(out, ["ab", "cd"]);
        assert_eq!(budget.spilled, ["发", "票"]);
    }

    #[test]
    fn received_message_id_and_date() {
        let mut found = received_tokens("from unknown (HELO mx3.mail.example.com.cn) ([222.135.252.194])\n\tby \
                                         relay.example.org with ESMTP id 4F2A19C3B1; Sat, 3 Apr 2004 14:35:34 -0400");
        found.sort();
        let mut expected = vec!["received:ip:222.135.252", "received:ip:222.135", "received:domain:example.com.cn",
                                "received:domain:example.org", "received:from", "received:unknown", "received:helo",
                                "received:by", "received:with", "received:esmtp", "received:id"];
        expected.sort();
        assert_eq!(found, expected);
        assert_eq!(received_tokens("a.example.com1 xy"), ["received:domain:a.example", "received:xy"]);
        assert_eq!(message_id_tokens("message-id", "<1.2@mail.example.co.uk>"), ["message-id:domain:example.co.uk"]);
        assert_eq!(message_id_tokens("in-reply-to", "<garbage>"), ["in-reply-to:domain:none"]);
        assert_eq!(date_tokens("date", "Sat, 3 Apr 2004 10:34:36 -0500 (EST)"),
                   ["date:zone:-0500", "date:shape:a, 9 a 9999 99:99:99 -9999 (a)"]);
        assert_eq!(date_tokens("date", "3 Apr 2004 GMT (a (b)"), ["date:zone:gmt", "date:shape:9 a 9999 a (a (a)"]);
        assert_eq!(date_tokens("date", ""), ["date:zone:none", "date:shape:"]);
    }

    #[test]
    fn urls() {
        assert_eq!(url_tokens("http://www.shop.example.com.cn/x"), ["url:www.shop.example.com.cn", "url:example.com.cn"]);
        assert_eq!(url_tokens("http://1.2.3.4/x"), ["url:1.2.3.4"]);
        assert_eq!(url_host("http://[::1]:80/x"), Some("::1".to_string()));
        assert_eq!(url_host("http://[bad/x"), None);
        assert_eq!(url_host("http://[1.2.3.4]/"), None);
        assert_eq!(url_host("http://a℀b.com/"), None);
        assert_eq!(url_host("javascript:void(0)"), Some(String::new()));
    }

    #[test]
    fn status_values() {
        assert!(is_status_value(" Yes, score=0.99, log-odds=-inf, model=x"));
        assert!(!is_status_value("Yes, score=, log-odds=1, model=x"));
    }

    #[test]
    fn expanders_are_the_characters_nfkc_makes_four_or_more_of() {
        for code in 0..=0x10FFFF_u32 {
            if let Some(c) = char::from_u32(code) {
                let long = nfkc(c.encode_utf8(&mut [0; 4])).chars().count() >= 4;
                assert_eq!(normalise::is_expander(c), long, "{code:x}");
            }
        }
        assert!(!pyunicode::MARKS.is_empty());
    }

    #[test]
    fn hostile_shapes_finish() {
        for text in ["-".repeat(200_000), "+.".repeat(100_000), ".-a".repeat(50_000), "-a@".repeat(50_000),
                     "a@b".repeat(50_000), "a'".repeat(100_000) + "-x@y.com", "a@b.c+".repeat(30_000) + "@x.com",
                     "$a.".repeat(30_000) + "@x.com", "a".to_string() + &"\u{301}\u{316}".repeat(50_000),
                     "\u{fdfa}".repeat(30_000), "(".repeat(50_000) + ")"] {
            let start = std::time::Instant::now();
            let _ = tokens(&text);
            let _ = date_tokens("date", &text);
            let _ = received_tokens(&text);
            assert!(start.elapsed().as_secs_f64() < 20.0, "{}", &text[..10]);
        }
    }
}
