//! The options a model is trained and scored with (TokenizerOptions: which
//! header fields, stop words, bigrams, variant folding), their presets and
//! defaults, and the fields never read: the verdicts a filter writes into a
//! message.  The one home of these rules: Python's TokenizerOptions reads
//! them through the binding (py_text.rs).

use ahash::AHashSet as HashSet;

use crate::mail::status::OWN_STATUS_FIELDS;
use crate::text::normalise::{self, strip};

/// Header presets for --headers.  "content" leaves out the routing and
/// bookkeeping fields; it is for collections whose routing leaks the label
/// (ccert_zh: its spam and ham came through different relays in different
/// months), not for a user's own mail.
pub const HEADER_PRESETS: [(&str, &[&str]); 3] = [
    ("content", &["subject", "from", "to", "cc", "reply-to", "mime-version", "content-*"]),
    ("all", &["*"]),
    ("none", &[]),
];

/// The header preset a model reads unless told: every field.  How a message
/// travelled (Received, Message-ID, X-Mailer, list fields) is what makes real
/// mail easy.  bench/choose_defaults.py, 1-ROCA % inside the training parts,
/// trec06p later mail / online / spamassassin CV / sa->trec / trec->sa:
/// all 0.003 / 0.125 / 0.034 / 12.2 / 8.9, content 0.056 / 0.098 / 0.048 /
/// 8.4 / 6.2: content loses 11x on later mail of the same server, all loses
/// at most 1.9x anywhere, so all.
pub const DEFAULT_HEADERS: &str = "all";
/// Bigrams on by default: 5-fold cross-validation inside the training part
/// gave 1-ROCA % 0.080 / 0.006 (spamassassin / ccert_zh) against 0.096 /
/// 0.007 without.  The price: about 3 times the vocabulary and twice the
/// training time.  Pairs skip stop words, so "the free the money" pairs
/// "free money".
pub const DEFAULT_BIGRAMS: bool = true;
/// Folding variants on by default: level on these corpora (1-ROCA % 0.115 /
/// 0.011 with and without), whose Chinese is almost all Simplified GB2312; it
/// is for mail that mixes scripts or disguises words (涐司岢办理㊣規髮票 =
/// 我司可办理正规发票).  On ccert_zh's test part disguised so
/// (bench/rewrite_zh.py), the table of variants.py took 1-ROCA 0.0330 →
/// 0.0316 % (plain: 0.0297 either way).
pub const DEFAULT_FOLD_VARIANTS: bool = true;

/// The field names of a preset (`content`, `all`, `none`), or None.
pub fn header_preset(name: &str) -> Option<&'static [&'static str]> {
    HEADER_PRESETS.iter().find(|(key, _)| *key == name).map(|(_, names)| *names)
}

/// Everything about tokenizing that a model must remember to score alike.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenizerOptions {
    /// Header field names to tokenize; a trailing `*` matches a prefix.
    pub headers: Vec<String>,
    /// Words dropped from body and header text (after case folding).
    pub stopwords: HashSet<String>,
    /// Also count each pair of adjacent body words ("free money", "代开 发票").
    pub bigrams: bool,
    /// Fold Traditional characters and spam homoglyphs to Simplified.
    pub fold_variants: bool,
}

impl Default for TokenizerOptions {
    fn default() -> Self {
        TokenizerOptions {
            headers: TokenizerOptions::parse_headers(DEFAULT_HEADERS),
            stopwords: crate::text::stopwords::builtin(),
            bigrams: DEFAULT_BIGRAMS,
            fold_variants: DEFAULT_FOLD_VARIANTS,
        }
    }
}

impl TokenizerOptions {
    /// `content`, `all`, `none` or a comma list such as `subject,from,x-mailer,content-*`
    /// (names lower-cased, presets expanded, repeats dropped).
    pub fn parse_headers(spec: &str) -> Vec<String> {
        let spec = normalise::lower(strip(spec));
        if let Some(names) = header_preset(&spec) {
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
            if let Some(found) = header_preset(item) {
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
        wants_header(&self.headers, name)
    }
}

/// Whether a header field (its name in lower case, as the mail decoder gives
/// it) is tokenized under the header patterns `headers` (a trailing `*`
/// matches a prefix).  The status fields spamnb adds (OWN_STATUS_FIELDS: its
/// own, and the SpamAssassin-style ones of `filter --header-style
/// spamassassin` and spamd PROCESS) are never read: learning a filtered
/// message would otherwise teach the model its own verdict.  No message of
/// the three corpora carries them (grep: 0 of 33,661), so no measured token
/// changes.
pub fn wants_header<S: AsRef<str>>(headers: &[S], name: &str) -> bool {
    if OWN_STATUS_FIELDS.iter().any(|own| own.eq_ignore_ascii_case(name)) {
        return false;
    }
    headers.iter().any(|pattern| match pattern.as_ref().strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == pattern.as_ref(),
    })
}

