//! Header fields → tokens: the fields read by a rule of their own
//! (Received, Message-ID, Date) and `FIELD:word` for the rest, address
//! fields by their display names and addresses.

use super::latin::{is_word_or_dash, run_end};
use super::{address_tokens, joined, registered_domain, text_tokens_with, Budget, CoreHan, HanText, TokenizerOptions};
use crate::text::normalise::{casefold, is_decimal, is_space, is_word, strip};

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
