//! The Latin scan: Python's word / link / address pattern (`_latin_findall`)
//! as plain scanners, over the bytes of ASCII text or the chars of the rest.

use crate::text::normalise::is_word;

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

pub(super) fn is_word_or_dash(c: char) -> bool {
    is_word(c) || c == '-'
}

fn is_url_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~:/?#@!$&*+,;=%".contains(c)
}

/// Text the Latin rules scan, one char at a time: the chars of a piece, or
/// the bytes of a piece that is ASCII (most mail), read where they lie
/// instead of copied out into chars first.  The same rules run on either.
pub(super) trait Scanned {
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

pub(super) fn run_end<S: Scanned + ?Sized>(s: &S, mut at: usize, class: impl Fn(char) -> bool) -> usize {
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

/// The run of address characters from `at`: its end, and whether all of
/// them are word characters (then a word from `at` ends its first run of
/// word characters there too).
fn address_run<S: Scanned + ?Sized>(s: &S, mut at: usize) -> (usize, bool) {
    let mut plain = true;
    while at < s.len() {
        let c = s.at(at);
        if !is_address_char(c) {
            break;
        }
        plain &= is_word(c);
        at += 1;
    }
    (at, plain)
}

/// `[\w.+\-]++@[\w\-]++(?:\.[\w\-]++)++` at `at` (the look-behind is the
/// caller's), its local part `at..local` (address_run's): its end.
fn match_address<S: Scanned + ?Sized>(s: &S, at: usize, local: usize) -> Option<usize> {
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
    Some(word_rest(s, run_end(s, end, is_word)))
}

/// The rest of a word whose first run of word characters ends at `end`: its end.
fn word_rest<S: Scanned + ?Sized>(s: &S, mut end: usize) -> usize {
    let n = s.len();
    while end + 1 < n && matches!(s.at(end), '\'' | '.' | '-') && is_word(s.at(end + 1)) {
        end = run_end(s, end + 1, is_word);
    }
    if end < n && s.at(end) == '%' {
        end += 1;
    }
    end
}

/// The alternatives at `at` exactly, the address's look-behind tested unless
/// `free`: the match's end, and whether it is made of address characters
/// only and is no link (scan_latin's question), when known without reading
/// it again.
fn match_at<S: Scanned + ?Sized>(s: &S, at: usize, free: bool) -> Option<(usize, Option<bool>)> {
    if let Some(end) = match_url(s, at) {
        return Some((end, None));
    }
    if free || at == 0 || !is_address_char(s.at(at - 1)) {
        let (local, plain) = address_run(s, at);
        if let Some(end) = match_address(s, at, local) {
            return Some((end, None));
        }
        if plain && local > at {
            // A word starts here, and its first run of word characters is
            // the run just read (the character after it is no address
            // character, so no word character): read once, not again by
            // match_word.  Of address characters only (and no link: a run of
            // word characters holds no ":" or ".") unless it goes on past
            // the run, with an apostrophe or a "%".
            let end = word_rest(s, local);
            return Some((end, Some(end == local)));
        }
    }
    match_word(s, at).map(|end| (end, None))
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
pub(super) fn latin_spans(piece: &str) -> Vec<&str> {
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
            found = match_at(s, position, true).map(|(end, pure)| (position, end, pure));
        }
        if found.is_none() {
            found = (position..s.len()).find_map(|at| match_at(s, at, false).map(|(end, pure)| (at, end, pure)));
        }
        let Some((start, end, pure)) = found else { break };
        let begins = |prefix: &str| end - start >= prefix.len() && starts_with_at(s, start, prefix);
        after_impure = match pure {
            Some(pure) => !pure,
            None => {
                !(start..end).all(|at| is_address_char(s.at(at)))
                    || begins("http://")
                    || begins("https://")
                    || begins("www.")
            }
        };
        out.push((offset(start), offset(end)));
        position = end; // every alternative matches at least one character
    }
    out
}
