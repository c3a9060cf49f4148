//! HTML → visible text and link targets (port of spamnb/mail/htmltext.py).
//!
//! Spam hides words from a token filter with markup ("fr<!-- x -->ee",
//! "f<b></b>ree"), so text on either side of an inline tag or a comment is
//! joined without a space; only block-level tags separate words.
//!
//! The markup is read by a scanner of our own that follows html.parser's
//! reading (Python 3.11, convert_charrefs=True) step for step, as
//! htmltext.py's scanner does, with its regular expressions written out as
//! plain code (Python's `\s` is `str.isspace`, Unicode's blanks included), so
//! it gives the same text and links (`bench/core_html_identity.py` compares
//! the two on the shared corpora).  Python 3.11's html.parser takes time
//! quadratic in the input on unclosed constructs ("<x y" repeated: 80,000
//! characters took 150 s; "<a", "</", "<?", "<![CDATA[" and "<!x" repeated
//! are quadratic too); what differs from it is how far this reader looks:
//!
//! - every search for the end of a construct (">", "-->", "]]>",
//!   "</script>") remembers its answer, so a later search from a point
//!   before that answer gets it without scanning again, and a search that
//!   found nothing is not repeated from further on;
//! - the search for a quoted value's closing quote is a binary search in the
//!   positions of that quote (found once per part), so an unclosed quote
//!   costs no scan to the end of the markup however often it is met;
//! - the pattern that finds where a start tag ends may scan past the tag
//!   (quoted values can hold ">"), and html.parser runs it again from every
//!   "<" that an unclosed tag swallowed.  Its scans are added up, and once
//!   they pass SCAN_FACTOR times the part's length, or MAX_SCAN characters in
//!   a message (all parts together), each later scan stops at the next ">"
//!   (or "<" when no ">" follows).  Real mail never comes near: in the shared
//!   corpora a part's scans add up to at most 0.97 times its length, and the
//!   longest HTML part is 314,284 characters.  Past that point a start tag
//!   whose quoted value holds ">" is read as html.parser reads an unclosed
//!   tag (its text up to that ">"); the text is still read.
//! - a message's markup is read so for its first MAX_TAGS "<" (all parts
//!   together; the most in one part of the shared corpora is 4,575).  The
//!   markup past that is not dropped: its tags are cut out (`<[^<>]*>`
//!   becomes a space), its character references decoded, and its text kept,
//!   links aside.
//! - attributes are read one by one only where they can be used (link
//!   targets, an image's alt text), and for MAX_ATTRIBUTES per message (the
//!   most in one message of the shared corpora is 1,633); past that a tag's
//!   attributes are stepped over, and the tag is read as before, its link
//!   targets and alt text aside.
//!
//! Positions here are byte offsets into the markup; the scan budget counts
//! characters, as the Python does.

use std::borrow::Cow;

#[rustfmt::skip]
mod entities;

/// Per message, all HTML parts together: start-tag scans before they are
/// bounded by the next ">", in characters, as a multiple of a part's length
/// and in all.
pub const SCAN_FACTOR: i64 = 2;
pub const MAX_SCAN: i64 = 1_000_000;
/// "<" read as markup, per message.
pub const MAX_TAGS: i64 = 50_000;
/// Attributes read one by one, per message.
pub const MAX_ATTRIBUTES: i64 = 50_000;
/// Link targets kept per HTML part: more is a hostile or generated page.
const MAX_URLS: usize = 1000;
/// Python's int() refuses a decimal string of more digits than this
/// (sys.get_int_max_str_digits()), so html.unescape raises on such a
/// reference and reading stops there.
const INT_MAX_STR_DIGITS: usize = 4300;

/// What reading HTML may still cost, all of one message's HTML parts together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    pub tags: i64,
    pub scan: i64,
    pub attributes: i64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            tags: MAX_TAGS,
            scan: MAX_SCAN,
            attributes: MAX_ATTRIBUTES,
        }
    }
}

/// The visible text of `markup` and the link and image targets it holds.
/// `budget` is what reading may cost, and is what is left of it afterwards:
/// one Budget serves a message's parts.
pub fn html_to_text(markup: &str, budget: &mut Budget) -> (String, Vec<String>) {
    let mut reducer = Reducer::new(markup, budget);
    // html.parser raises on a few malformed declarations (and unescape on a
    // decimal reference of over 4,300 digits); what was read before that
    // point is kept.
    let _ = reducer.run();
    (reducer.out, reducer.urls)
}

/// Where the Python reader raises (AssertionError from a marked section,
/// ValueError from html.unescape) and reading stops.
#[derive(Debug)]
struct Stop;

// "head" is not here: tag soup often opens <head> and never closes it.
fn invisible(tag: &str) -> bool {
    matches!(tag, "script" | "style" | "title" | "noscript" | "template")
}

fn block(tag: &str) -> bool {
    matches!(
        tag,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "br"
            | "dd"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hr"
            | "li"
            | "main"
            | "nav"
            | "ol"
            | "p"
            | "pre"
            | "section"
            | "table"
            | "tbody"
            | "td"
            | "tfoot"
            | "th"
            | "thead"
            | "tr"
            | "ul"
            | "option"
            | "body"
            | "html"
            | "img"
            | "input"
            | "button"
            | "select"
            | "textarea"
    )
}

fn link_attribute(name: &str) -> bool {
    matches!(name, "href" | "src" | "action" | "background")
}

/// Python's `str.isspace`, which is also what `\s` matches in its `re`.
fn is_space(c: char) -> bool {
    matches!(
        c,
        '\t'..='\r'
            | '\x1c'..='\x1f'
            | ' '
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// `is_space` of an ASCII byte.
#[inline]
fn is_ascii_space(byte: u8) -> bool {
    matches!(byte, b'\t'..=b'\r' | 0x1c..=0x1f | b' ')
}

/// Python's `str.strip()`.
fn py_strip(text: &str) -> &str {
    text.trim_matches(is_space)
}

/// `name.lower()` as far as it matters here: the result is only compared
/// with ASCII names, and the only characters outside ASCII whose lower case
/// is ASCII are KELVIN SIGN (to "k") and LATIN CAPITAL LETTER I WITH DOT
/// ABOVE (to "i" and a combining dot, never an ASCII name), so every other
/// character is kept as it is.
fn lower(name: &str) -> Cow<'_, str> {
    if name
        .bytes()
        .all(|b| !b.is_ascii_uppercase() && b.is_ascii())
    {
        return Cow::Borrowed(name);
    }
    Cow::Owned(
        name.chars()
            .map(|c| {
                if c == '\u{212a}' {
                    'k'
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect(),
    )
}

/// Whether `c` matches `letter` (ASCII lower case) under Python's re.I, for
/// the letters of "script" and "style": the case pairs of Unicode's simple
/// case folding, LONG S and the Turkish i's included.
fn ignorecase_eq(c: char, letter: u8) -> bool {
    if c.is_ascii() {
        return c.to_ascii_lowercase() as u32 == letter as u32;
    }
    match letter {
        b's' => c == '\u{17f}',
        b'i' => c == '\u{130}' || c == '\u{131}',
        b'k' => c == '\u{212a}',
        _ => false,
    }
}

// -- character references (html.unescape) -----------------------------------

/// html.unescape: `&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)`
/// replaced as the HTML5 spec says.  Err where Python's int() refuses the
/// digits of a decimal reference.
fn unescape(s: &str) -> Result<Cow<'_, str>, Stop> {
    let b = s.as_bytes();
    let Some(first) = memchr::memchr(b'&', b) else {
        return Ok(Cow::Borrowed(s));
    };
    let mut out = String::with_capacity(s.len());
    let mut copied = 0; // s[..copied] is in `out` (or replaced)
    let mut at = first;
    loop {
        // b[at] == '&'
        let reference = at + 1;
        let mut matched: Option<usize> = None; // the end of the reference
        if b.get(reference) == Some(&b'#') {
            let digits = reference + 1;
            if b.get(digits).is_some_and(u8::is_ascii_digit) {
                let mut end = digits;
                while end < b.len() && b[end].is_ascii_digit() {
                    end += 1;
                }
                if end - digits > INT_MAX_STR_DIGITS {
                    return Err(Stop);
                }
                let number = b[digits..end].iter().fold(0u32, |n, d| {
                    n.saturating_mul(10)
                        .saturating_add((d - b'0') as u32)
                        .min(0x11_0000)
                });
                let end = if b.get(end) == Some(&b';') {
                    end + 1
                } else {
                    end
                };
                out.push_str(&s[copied..at]);
                push_numeric(&mut out, number);
                matched = Some(end);
            } else if matches!(b.get(digits), Some(b'x' | b'X'))
                && b.get(digits + 1).is_some_and(u8::is_ascii_hexdigit)
            {
                let mut end = digits + 1;
                let mut number = 0u32;
                while end < b.len() && b[end].is_ascii_hexdigit() {
                    let digit = (b[end] as char).to_digit(16).unwrap_or(0);
                    number = number
                        .saturating_mul(16)
                        .saturating_add(digit)
                        .min(0x11_0000);
                    end += 1;
                }
                let end = if b.get(end) == Some(&b';') {
                    end + 1
                } else {
                    end
                };
                out.push_str(&s[copied..at]);
                push_numeric(&mut out, number);
                matched = Some(end);
            }
        } else {
            // [^\t\n\f <&#;]{1,32};?
            let mut end = reference;
            let mut count = 0;
            for c in s[reference..].chars() {
                if count == 32 || matches!(c, '\t' | '\n' | '\x0c' | ' ' | '<' | '&' | '#' | ';') {
                    break;
                }
                end += c.len_utf8();
                count += 1;
            }
            if count > 0 {
                if b.get(end) == Some(&b';') {
                    end += 1;
                }
                out.push_str(&s[copied..at]);
                push_named(&mut out, &s[reference..end]);
                matched = Some(end);
            }
        }
        let next_from = match matched {
            Some(end) => {
                copied = end;
                end
            }
            None => at + 1,
        };
        match memchr::memchr(b'&', &b[next_from..]) {
            Some(offset) => at = next_from + offset,
            None => break,
        }
    }
    out.push_str(&s[copied..]);
    Ok(Cow::Owned(out))
}

fn push_numeric(out: &mut String, number: u32) {
    if let Some(replacement) = entities::invalid_charref(number) {
        out.push_str(replacement);
    } else if (0xD800..=0xDFFF).contains(&number) || number > 0x10FFFF {
        out.push('\u{fffd}');
    } else if entities::invalid_codepoint(number) {
    } else if let Some(c) = char::from_u32(number) {
        out.push(c);
    }
}

fn named(name: &str) -> Option<&'static str> {
    entities::NAMED
        .binary_search_by(|(key, _)| (*key).cmp(name))
        .ok()
        .map(|index| entities::NAMED[index].1)
}

fn push_named(out: &mut String, name: &str) {
    if let Some(value) = named(name) {
        out.push_str(value);
        return;
    }
    // the longest name that is a prefix (as the standard defines it), of at
    // least two characters
    let ends: Vec<usize> = name
        .char_indices()
        .map(|(index, _)| index)
        .skip(2)
        .collect();
    for &end in ends.iter().rev() {
        if let Some(value) = named(&name[..end]) {
            out.push_str(value);
            out.push_str(&name[end..]);
            return;
        }
    }
    out.push('&');
    out.push_str(name);
}

// -- searches that remember ---------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pattern {
    /// `>`
    Gt,
    /// `<`
    Lt,
    /// `--\s*>`
    CommentClose,
    /// `]\s*]\s*>`
    MarkedSectionClose,
    /// `]\s*>`
    MsMarkedSectionClose,
    /// `</\s*NAME\s*>`, re.I
    CdataClose(&'static [u8]),
}

/// pattern.search(text, start), remembering: a start at or after an earlier
/// one and not past the match it found gets that match again, and a start at
/// or after one that found nothing finds nothing, without a scan.
struct Finder {
    pattern: Pattern,
    start: usize,
    found: Option<(usize, usize)>,
    failed_from: usize,
}

impl Finder {
    fn new(pattern: Pattern, len: usize) -> Self {
        Finder {
            pattern,
            start: 0,
            found: None,
            failed_from: len + 1,
        }
    }

    fn search(&mut self, text: &str, start: usize) -> Option<(usize, usize)> {
        if let Some(found) = self.found {
            if self.start <= start && start <= found.0 {
                return Some(found);
            }
        }
        if start >= self.failed_from {
            return None;
        }
        let found = search(self.pattern, text, start);
        match found {
            None => self.failed_from = start,
            Some(_) => {
                self.start = start;
                self.found = found;
            }
        }
        found
    }

    fn find(&mut self, text: &str, start: usize) -> Option<usize> {
        self.search(text, start).map(|(at, _)| at)
    }
}

/// The byte length of the blank (`\s`) at `at`, 0 if there is none before `limit`.
#[inline]
fn space_len(b: &[u8], at: usize, limit: usize) -> usize {
    if at >= limit {
        return 0;
    }
    let first = b[at];
    if first < 0x80 {
        return usize::from(is_ascii_space(first));
    }
    let (c, len) = char_at(b, at);
    if at + len <= limit && is_space(c) {
        len
    } else {
        0
    }
}

/// The character at `at` (a character boundary) and its length in bytes.
#[inline]
fn char_at(b: &[u8], at: usize) -> (char, usize) {
    let lead = b[at];
    if lead < 0x80 {
        return (lead as char, 1);
    }
    let (len, mut code) = match lead {
        0xc0..=0xdf => (2, u32::from(lead & 0x1f)),
        0xe0..=0xef => (3, u32::from(lead & 0x0f)),
        _ => (4, u32::from(lead & 0x07)),
    };
    for offset in 1..len {
        code = (code << 6) | u32::from(b.get(at + offset).copied().unwrap_or(0x80) & 0x3f);
    }
    (char::from_u32(code).unwrap_or('\u{fffd}'), len)
}

/// Past a bare value (`[^>\s]*`) from `at`, before `limit`.
fn bare_value_end(b: &[u8], mut at: usize, limit: usize) -> usize {
    while at < limit && b[at] != b'>' && space_len(b, at, limit) == 0 {
        at += if b[at] < 0x80 { 1 } else { char_at(b, at).1 };
    }
    at
}

/// Past the blanks (`\s*`) from `at`, before `limit`.
#[inline]
fn skip_spaces(b: &[u8], mut at: usize, limit: usize) -> usize {
    loop {
        let len = space_len(b, at, limit);
        if len == 0 {
            return at;
        }
        at += len;
    }
}

/// Where the two bytes `first`, `second` first stand together in `b`.
fn find_pair(b: &[u8], first: u8, second: u8) -> Option<usize> {
    let mut from = 0;
    loop {
        let at = from + memchr::memchr(first, &b[from..])?;
        if b.get(at + 1) == Some(&second) {
            return Some(at);
        }
        from = at + 1;
    }
}

fn search(pattern: Pattern, text: &str, start: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let n = b.len();
    if start > n {
        return None;
    }
    // Each candidate's blanks are scanned once or twice in all (a candidate
    // that fails leaves them to at most one later candidate): linear.
    let mut from = start;
    match pattern {
        Pattern::Gt => memchr::memchr(b'>', &b[start..]).map(|at| (start + at, start + at + 1)),
        Pattern::Lt => memchr::memchr(b'<', &b[start..]).map(|at| (start + at, start + at + 1)),
        Pattern::CommentClose => loop {
            let at = from + find_pair(&b[from..], b'-', b'-')?;
            let after = skip_spaces(b, at + 2, n);
            if b.get(after) == Some(&b'>') {
                return Some((at, after + 1));
            }
            from = at + 1;
        },
        Pattern::MarkedSectionClose => loop {
            let at = from + memchr::memchr(b']', &b[from..])?;
            let second = skip_spaces(b, at + 1, n);
            if b.get(second) == Some(&b']') {
                let after = skip_spaces(b, second + 1, n);
                if b.get(after) == Some(&b'>') {
                    return Some((at, after + 1));
                }
            }
            from = at + 1;
        },
        Pattern::MsMarkedSectionClose => loop {
            let at = from + memchr::memchr(b']', &b[from..])?;
            let after = skip_spaces(b, at + 1, n);
            if b.get(after) == Some(&b'>') {
                return Some((at, after + 1));
            }
            from = at + 1;
        },
        Pattern::CdataClose(name) => loop {
            let at = from + find_pair(&b[from..], b'<', b'/')?;
            let mut p = skip_spaces(b, at + 2, n);
            let mut whole = true;
            for &letter in name {
                if p >= n {
                    whole = false;
                    break;
                }
                let (c, len) = char_at(b, p);
                if !ignorecase_eq(c, letter) {
                    whole = false;
                    break;
                }
                p += len;
            }
            if whole {
                let after = skip_spaces(b, p, n);
                if b.get(after) == Some(&b'>') {
                    return Some((at, after + 1));
                }
            }
            from = at + 1;
        },
    }
}

// -- attributes -----------------------------------------------------------------

/// One match of html.parser's attribute pattern:
/// `((?<=['"\s/])[^\s/>][^\s/=>]*)(\s*=+\s*('[^']*'|"[^"]*"|(?!['"])[^>\s]*))?(?:\s|/(?!>))*`
struct Attribute {
    name: (usize, usize),
    /// group 3, when group 2 (the `=` and what follows it) took part
    value: Option<(usize, usize)>,
    end: usize,
}

// -- the reader -------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cdata {
    Script,
    Style,
}

impl Cdata {
    fn name(self) -> &'static str {
        match self {
            Cdata::Script => "script",
            Cdata::Style => "style",
        }
    }
}

enum AttributeKind {
    Link,
    Alt,
}

struct Reducer<'a> {
    text: &'a str,
    b: &'a [u8],
    budget: &'a mut Budget,
    scan_left: i64,
    out: String,
    urls: Vec<String>,
    hidden_depth: u64,
    cdata: Option<Cdata>,
    cdata_close: Finder,
    gt: Finder,
    lt: Finder,
    comment_close: Finder,
    section_close: Finder,
    ms_section_close: Finder,
    /// positions of "'" and of '"', found the first time a quoted value is
    /// read
    quotes: [Option<Vec<usize>>; 2],
    /// (tag start, first attribute, where they stop following one another)
    /// of the last start tag whose end was located unbounded
    chain: Option<(usize, usize, usize)>,
}

impl<'a> Reducer<'a> {
    fn new(text: &'a str, budget: &'a mut Budget) -> Self {
        let n = text.len();
        let chars = text.chars().count() as i64;
        let scan_left = budget
            .scan
            .min(SCAN_FACTOR.saturating_mul(chars).saturating_add(1024));
        Reducer {
            text,
            b: text.as_bytes(),
            budget,
            scan_left,
            out: String::with_capacity(n / 2),
            urls: Vec::new(),
            hidden_depth: 0,
            cdata: None,
            cdata_close: Finder::new(Pattern::CdataClose(b"script"), n),
            gt: Finder::new(Pattern::Gt, n),
            lt: Finder::new(Pattern::Lt, n),
            comment_close: Finder::new(Pattern::CommentClose, n),
            section_close: Finder::new(Pattern::MarkedSectionClose, n),
            ms_section_close: Finder::new(Pattern::MsMarkedSectionClose, n),
            quotes: [None, None],
            chain: None,
        }
    }

    // -- what is kept -------------------------------------------------------

    /// Whether starttag(tag, ...) would read any attribute.
    fn wants_attributes(&self, tag: &str) -> bool {
        !invisible(tag) && (self.urls.len() < MAX_URLS || tag == "img")
    }

    fn starttag(&mut self, tag: &str, attrs: &[(AttributeKind, Option<String>)]) {
        if invisible(tag) {
            self.hidden_depth += 1;
            return;
        }
        if block(tag) {
            self.out.push(' ');
        }
        if self.urls.len() < MAX_URLS {
            for (kind, value) in attrs {
                if let (AttributeKind::Link, Some(value)) = (kind, value) {
                    if !value.is_empty() {
                        self.urls.push(py_strip(value).to_string());
                    }
                }
            }
        }
        if tag == "img" {
            // Alt text is shown when images are blocked, which is how most
            // people read mail, so it is part of the visible text.
            for (kind, value) in attrs {
                if let (AttributeKind::Alt, Some(value)) = (kind, value) {
                    if !value.is_empty() {
                        self.out.push(' ');
                        self.out.push_str(value);
                        self.out.push(' ');
                    }
                }
            }
        }
    }

    fn startendtag(&mut self, tag: &str, attrs: &[(AttributeKind, Option<String>)]) {
        if !invisible(tag) {
            self.starttag(tag, attrs);
        }
    }

    fn endtag(&mut self, tag: &str) {
        if invisible(tag) {
            if self.hidden_depth > 0 {
                self.hidden_depth -= 1;
            }
            return;
        }
        if block(tag) {
            self.out.push(' ');
        }
    }

    fn data(&mut self, data: &str) {
        if self.hidden_depth == 0 {
            self.out.push_str(data);
        }
    }

    /// Text between i and j: character references decoded outside script
    /// and style (decoded, and so able to stop reading, even when hidden).
    fn text_data(&mut self, i: usize, j: usize) -> Result<(), Stop> {
        let text = self.text;
        if self.cdata.is_none() {
            let decoded = unescape(&text[i..j])?;
            self.data(&decoded);
        } else {
            self.data(&text[i..j]);
        }
        Ok(())
    }

    // -- reading (html.parser's goahead with end=True) ------------------------

    fn run(&mut self) -> Result<(), Stop> {
        let text = self.text;
        let b = self.b;
        let n = b.len();
        let mut i = 0;
        // each search for "<" starts where the last one's text ended: linear
        while i < n {
            let j = if self.cdata.is_none() {
                memchr::memchr(b'<', &b[i..]).map_or(n, |at| i + at)
            } else {
                match self.cdata_close.search(text, i) {
                    // an unclosed script or style: the rest is its content
                    None => return Ok(()),
                    Some((at, _)) => at,
                }
            };
            if i < j {
                self.text_data(i, j)?;
            }
            i = j;
            if i == n {
                break;
            }
            self.budget.tags = self.budget.tags.saturating_sub(1);
            if self.budget.tags < 0 {
                // past the bound: the rest as text, tags cut out
                self.budget.tags = 0;
                let rest = cut_simple_tags(&text[i..]);
                let decoded = unescape(&rest)?;
                self.out.push_str(&decoded);
                return Ok(());
            }
            let k: Option<usize> = if b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
                self.parse_starttag(i)?
            } else if b[i..].starts_with(b"</") {
                self.parse_endtag(i)?
            } else if b[i..].starts_with(b"<!--") {
                self.parse_comment(i)
            } else if b[i..].starts_with(b"<?") {
                self.parse_pi(i)
            } else if b[i..].starts_with(b"<!") {
                self.parse_html_declaration(i)?
            } else if i + 1 < n {
                self.data("<");
                Some(i + 1)
            } else {
                break;
            };
            let k = match k {
                Some(k) => k,
                None => {
                    // not closed: read as text up to the next ">" (or "<")
                    let k = match self.gt.find(text, i + 1) {
                        Some(gt) => gt + 1,
                        None => memchr::memchr(b'<', &b[i + 1..]).map_or(i + 1, |at| i + 1 + at),
                    };
                    self.text_data(i, k)?;
                    k
                }
            };
            i = k;
        }
        if i < n && self.cdata.is_none() {
            self.text_data(i, n)?;
        }
        Ok(())
    }

    fn parse_html_declaration(&mut self, i: usize) -> Result<Option<usize>, Stop> {
        let b = self.b;
        if b[i..].starts_with(b"<!--") {
            return Ok(self.parse_comment(i));
        }
        if b[i..].starts_with(b"<![") {
            return self.parse_marked_section(i);
        }
        // text[i:i + 9].lower() == "<!doctype": no character outside ASCII
        // lowers to a letter of "doctype"
        if b.len() >= i + 9 && b[i..i + 9].eq_ignore_ascii_case(b"<!doctype") {
            return Ok(self.gt.find(self.text, i + 9).map(|gt| gt + 1));
        }
        Ok(self.parse_bogus_comment(i))
    }

    fn parse_bogus_comment(&mut self, i: usize) -> Option<usize> {
        self.gt.find(self.text, i + 2).map(|gt| gt + 1)
    }

    fn parse_pi(&mut self, i: usize) -> Option<usize> {
        self.gt.find(self.text, i + 2).map(|gt| gt + 1)
    }

    fn parse_comment(&mut self, i: usize) -> Option<usize> {
        self.comment_close
            .search(self.text, i + 4)
            .map(|(_, end)| end)
    }

    fn parse_marked_section(&mut self, i: usize) -> Result<Option<usize>, Stop> {
        let b = self.b;
        let n = b.len();
        let start = i + 3;
        if start == n {
            return Ok(None);
        }
        // _markupbase's `[a-zA-Z][-_.a-zA-Z0-9]*\s*`
        if !b[start].is_ascii_alphabetic() {
            return Err(Stop); // "expected name token", as _markupbase raises: reading stops
        }
        let mut name_end = start + 1;
        while name_end < n
            && (b[name_end].is_ascii_alphanumeric() || matches!(b[name_end], b'-' | b'_' | b'.'))
        {
            name_end += 1;
        }
        if skip_spaces(b, name_end, n) == n {
            return Ok(None);
        }
        let section = self.text[start..name_end].to_ascii_lowercase();
        let found = match section.as_str() {
            "temp" | "cdata" | "ignore" | "include" | "rcdata" => {
                self.section_close.search(self.text, start)
            }
            "if" | "else" | "endif" => self.ms_section_close.search(self.text, start),
            _ => return Err(Stop), // "unknown status keyword in marked section"
        };
        Ok(found.map(|(_, end)| end))
    }

    /// The positions of the quote `quote` after `from` and before `limit`.
    fn closing_quote(&mut self, quote: u8, from: usize, limit: usize) -> Option<usize> {
        let slot = usize::from(quote == b'"');
        let b = self.b;
        let positions =
            self.quotes[slot].get_or_insert_with(|| memchr::memchr_iter(quote, b).collect());
        let index = positions.partition_point(|&at| at < from);
        positions.get(index).copied().filter(|&at| at < limit)
    }

    /// html.parser's attribute pattern matched at `k`, the markup taken to end
    /// at `limit`.  Its `=+` and the blanks after it are greedy: `a=="x` and
    /// `a= "x` with the quote never closed end with a bare value only when
    /// they give back (a value `="x...` and an empty one).
    fn attribute_at(&mut self, k: usize, limit: usize) -> Option<Attribute> {
        let b = self.b;
        if k == 0 || k >= limit {
            return None;
        }
        // (?<=['"\s/])
        let previous = b[k - 1];
        let follows = if previous < 0x80 {
            matches!(previous, b'\'' | b'"' | b'/') || is_ascii_space(previous)
        } else {
            let mut before = k - 1;
            while before > 0 && (b[before] & 0xc0) == 0x80 {
                before -= 1;
            }
            is_space(char_at(b, before).0)
        };
        if !follows {
            return None;
        }
        // [^\s/>][^\s/=>]*
        let (first, len) = char_at(b, k);
        if is_space(first) || first == '/' || first == '>' {
            return None;
        }
        let mut p = k + len;
        while p < limit {
            let byte = b[p];
            if byte < 0x80 {
                if matches!(byte, b'/' | b'=' | b'>') || is_ascii_space(byte) {
                    break;
                }
                p += 1;
            } else {
                let (c, len) = char_at(b, p);
                if is_space(c) {
                    break;
                }
                p += len;
            }
        }
        let name = (k, p);
        // (\s*=+\s*(value))?
        let mut value = None;
        let mut end = p;
        let equals = skip_spaces(b, p, limit);
        if equals < limit && b[equals] == b'=' {
            let mut equals_end = equals;
            while equals_end < limit && b[equals_end] == b'=' {
                equals_end += 1;
            }
            let at = skip_spaces(b, equals_end, limit);
            if at < limit && matches!(b[at], b'\'' | b'"') {
                if let Some(close) = self.closing_quote(b[at], at + 1, limit) {
                    value = Some((at, close + 1));
                } else if at > equals_end {
                    // the blanks give back their last: an empty bare value before it
                    let mut last = at - 1;
                    while (b[last] & 0xc0) == 0x80 {
                        last -= 1;
                    }
                    value = Some((last, last));
                } else if equals_end - equals >= 2 {
                    // `=+` gives back its last "=": a bare value from it
                    value = Some((equals_end - 1, bare_value_end(b, equals_end - 1, limit)));
                }
            } else {
                value = Some((at, bare_value_end(b, at, limit)));
            }
            if let Some((_, value_end)) = value {
                end = value_end;
            }
        }
        // (?:\s|/(?!>))*
        loop {
            let len = space_len(b, end, limit);
            if len > 0 {
                end += len;
            } else if end < limit && b[end] == b'/' && !(end + 1 < limit && b[end + 1] == b'>') {
                end += 1;
            } else {
                break;
            }
        }
        Some(Attribute { name, value, end })
    }

    /// Where html.parser's `locatestarttagend_tolerant` ends from the start
    /// tag at i, the markup taken to end at `limit`.
    fn locate_starttag_end_at(&mut self, i: usize, limit: usize) -> usize {
        let b = self.b;
        // <[a-zA-Z][^\t\n\r\f />\x00]*
        let mut p = (i + 2).min(limit);
        while p < limit && !matches!(b[p], b'\t' | b'\n' | b'\r' | 0x0c | b' ' | b'/' | b'>' | 0) {
            p += 1;
        }
        // [\s/]*
        loop {
            let len = space_len(b, p, limit);
            if len > 0 {
                p += len;
            } else if p < limit && b[p] == b'/' {
                p += 1;
            } else {
                break;
            }
        }
        let first = p;
        while let Some(attribute) = self.attribute_at(p, limit) {
            p = attribute.end;
        }
        if limit == b.len() {
            self.chain = Some((i, first, p));
        }
        skip_spaces(b, p, limit)
    }

    /// (end, cut): where the start tag at i ends, and whether the bound cut
    /// it short.
    fn locate_starttag_end(&mut self, i: usize) -> (usize, bool) {
        let n = self.b.len();
        self.chain = None;
        if self.scan_left > 0 {
            let end = self.locate_starttag_end_at(i, n);
            let scanned = count_chars(&self.b[i..end]);
            self.scan_left = self.scan_left.saturating_sub(scanned);
            self.budget.scan = self.budget.scan.saturating_sub(scanned);
            return (end, false);
        }
        let bound = match self.gt.find(self.text, i + 1) {
            Some(gt) => gt + 1,
            None => self.lt.find(self.text, i + 1).unwrap_or(n),
        };
        let end = self.locate_starttag_end_at(i, bound);
        (end, end == bound && bound < n)
    }

    fn check_for_whole_start_tag(&mut self, i: usize) -> Option<usize> {
        let b = self.b;
        let (j, cut) = self.locate_starttag_end(i);
        if cut {
            return None;
        }
        match b.get(j) {
            Some(b'>') => Some(j + 1),
            Some(b'/') => {
                if b.get(j + 1) == Some(&b'>') {
                    Some(j + 2)
                } else {
                    None
                }
            }
            None => None,
            Some(c) if c.is_ascii_alphabetic() || *c == b'=' => None,
            Some(_) => Some(if j > i { j } else { i + 1 }),
        }
    }

    fn parse_starttag(&mut self, i: usize) -> Result<Option<usize>, Stop> {
        let Some(endpos) = self.check_for_whole_start_tag(i) else {
            return Ok(None);
        };
        let text = self.text;
        let b = self.b;
        let n = b.len();
        // `([a-zA-Z][^\t\n\r\f />\x00]*)(?:\s|/(?!>))*` from i + 1
        let (name_end, mut k) = name_and_blanks(b, i + 2);
        // Read unbounded, the attributes from k were stepped over when the
        // tag's end was located (k is where they start there too, or, after
        // a "/" before ">", where none starts): where they stop is known,
        // so a tag of a million attributes is stepped over once.
        let chain_end = match self.chain {
            Some((start, first, end)) if start == i && first == k => Some(end),
            _ => None,
        };
        let tag = lower(&text[i + 1..name_end]);
        let mut attrs: Vec<(AttributeKind, Option<String>)> = Vec::new();
        // html.parser steps from attribute to attribute while k < endpos,
        // keeping each; only those starttag reads are kept, and read one by
        // one while the message's budget lasts.
        if self.wants_attributes(&tag) {
            while k < endpos && self.budget.attributes > 0 {
                let Some(found) = self.attribute_at(k, n) else {
                    break;
                };
                self.budget.attributes -= 1;
                let name = lower(&text[found.name.0..found.name.1]);
                let kind = if link_attribute(&name) {
                    Some(AttributeKind::Link)
                } else if name == "alt" {
                    Some(AttributeKind::Alt)
                } else {
                    None
                };
                if let Some(kind) = kind {
                    let value = match found.value {
                        None => None,
                        Some((start, end)) => {
                            let mut value = &text[start..end];
                            // value[:1] == "'" == value[-1:] (or '"'): its quotes off
                            let quoted = (value.starts_with('\'') && value.ends_with('\''))
                                || (value.starts_with('"') && value.ends_with('"'));
                            if quoted {
                                value = if value.len() >= 2 {
                                    &value[1..value.len() - 1]
                                } else {
                                    ""
                                };
                            }
                            Some(unescape(value)?.into_owned())
                        }
                    };
                    attrs.push((kind, value));
                }
                k = found.end;
            }
        }
        if k < endpos {
            k = match chain_end {
                // every attribute end on the chain is at or before endpos
                Some(end) if end <= endpos => end,
                _ => self.attributes_end(k, endpos),
            };
        }
        let end = if k < endpos {
            py_strip(&text[k..endpos])
        } else {
            ""
        };
        if end != ">" && end != "/>" {
            self.data(&text[i..endpos]);
            return Ok(Some(endpos));
        }
        if end.ends_with("/>") {
            self.startendtag(&tag, &attrs);
        } else {
            self.starttag(&tag, &attrs);
            let cdata = match &*tag {
                "script" => Some(Cdata::Script),
                "style" => Some(Cdata::Style),
                _ => None,
            };
            if let Some(cdata) = cdata {
                self.cdata = Some(cdata);
                self.cdata_close = Finder::new(Pattern::CdataClose(cdata.name().as_bytes()), n);
            }
        }
        Ok(Some(endpos))
    }

    /// Where html.parser's step from attribute to attribute, from k, stops:
    /// at the first attribute's end at or past endpos, or where none follows.
    fn attributes_end(&mut self, mut k: usize, endpos: usize) -> usize {
        let n = self.b.len();
        while k < endpos {
            match self.attribute_at(k, n) {
                Some(found) => k = found.end,
                None => break,
            }
        }
        k
    }

    fn parse_endtag(&mut self, i: usize) -> Result<Option<usize>, Stop> {
        let text = self.text;
        let b = self.b;
        let n = b.len();
        let Some((_, gtpos)) = self.gt.search(text, i + 1) else {
            return Ok(None);
        };
        // `</\s*([a-zA-Z][-.a-zA-Z0-9:_]*)\s*>` at i
        let mut element = None;
        let name_start = skip_spaces(b, i + 2, n);
        if name_start < n && b[name_start].is_ascii_alphabetic() {
            let mut name_end = name_start + 1;
            while name_end < n
                && (b[name_end].is_ascii_alphanumeric()
                    || matches!(b[name_end], b'-' | b'.' | b':' | b'_'))
            {
                name_end += 1;
            }
            let after = skip_spaces(b, name_end, n);
            if b.get(after) == Some(&b'>') {
                element = Some(text[name_start..name_end].to_ascii_lowercase());
            }
        }
        let Some(element) = element else {
            if self.cdata.is_some() {
                self.data(&text[i..gtpos]);
                return Ok(Some(gtpos));
            }
            // `([a-zA-Z][^\t\n\r\f />\x00]*)(?:\s|/(?!>))*` from i + 2
            if !b.get(i + 2).is_some_and(u8::is_ascii_alphabetic) {
                if b[i..].starts_with(b"</>") {
                    return Ok(Some(i + 3));
                }
                return Ok(self.parse_bogus_comment(i));
            }
            let (name_end, k) = name_and_blanks(b, i + 3);
            // the name cannot pass the ">" found above, so this finds it
            let gt = self.gt.find(text, k);
            let name = lower(&text[i + 2..name_end]);
            self.endtag(&name);
            return Ok(Some(gt.map_or(n, |gt| gt + 1)));
        };
        if let Some(cdata) = self.cdata {
            if element != cdata.name() {
                self.data(&text[i..gtpos]);
                return Ok(Some(gtpos));
            }
        }
        self.endtag(&element);
        self.cdata = None;
        Ok(Some(gtpos))
    }
}

fn count_chars(bytes: &[u8]) -> i64 {
    bytes.iter().filter(|&&byte| (byte & 0xc0) != 0x80).count() as i64
}

/// `<[^<>]*>` replaced by a space.
fn cut_simple_tags(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut from = 0;
    while let Some(offset) = memchr::memchr(b'<', &b[from..]) {
        let open = from + offset;
        match memchr::memchr2(b'<', b'>', &b[open + 1..]) {
            Some(offset) if b[open + 1 + offset] == b'>' => {
                out.push_str(&text[copied..open]);
                out.push(' ');
                copied = open + 1 + offset + 1;
                from = copied;
            }
            Some(offset) => from = open + 1 + offset, // another "<" first: the tag starts there
            None => break,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}


/// A tag name's end and what follows its blanks and lone slashes:
/// `[^\t\n\r\f />\x00]*(?:\s|/(?!>))*` from `from`, just after the name's
/// first letter (start and end tags read their names alike).
fn name_and_blanks(b: &[u8], from: usize) -> (usize, usize) {
    let n = b.len();
    let mut name_end = from;
    while name_end < n && !matches!(b[name_end], b'\t' | b'\n' | b'\r' | 0x0c | b' ' | b'/' | b'>' | 0) {
        name_end += 1;
    }
    let mut k = name_end;
    loop {
        let len = space_len(b, k, n);
        if len > 0 {
            k += len;
        } else if k < n && b[k] == b'/' && b.get(k + 1) != Some(&b'>') {
            k += 1;
        } else {
            break;
        }
    }
    (name_end, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(markup: &str) -> (String, Vec<String>) {
        html_to_text(markup, &mut Budget::default())
    }

    #[test]
    fn inline_tags_and_comments_join_words_and_blocks_part_them() {
        assert_eq!(read("fr<!-- x -->ee f<b></b>ree").0, "free free");
        assert_eq!(read("one<p>two</p>three<br>four").0, "one two three four");
        assert_eq!(read("<script>var a = '<b>x</b>';</script>shown").0, "shown");
        assert_eq!(read("<style>p {}</STYLE >shown").0, "shown");
        assert_eq!(read("<title>hidden</title><head>kept").0, "kept");
    }

    #[test]
    fn links_and_alt_text() {
        let (text, urls) =
            read("<a href=' http://a.example/ '>x</a><img src=\"i.png\" alt=\"FREE &amp; easy\">");
        assert_eq!(text, "x  FREE & easy ");
        assert_eq!(urls, vec!["http://a.example/", "i.png"]);
    }

    #[test]
    fn character_references() {
        assert_eq!(
            unescape("&amp; &ampx &#65;&#x42 &#128; &#0; &#xD800; &#1; &bogus; &").unwrap(),
            "& &x AB \u{20ac} \u{fffd} \u{fffd}  &bogus; &"
        );
        assert_eq!(
            unescape("&notit; &notin; &#99999999999999999999;").unwrap(),
            "\u{ac}it; \u{2209} \u{fffd}"
        );
        assert!(unescape(&format!("&#{};", "1".repeat(4301))).is_err());
        assert!(unescape(&format!("&#{};", "1".repeat(4300))).is_ok());
    }

    #[test]
    fn a_decimal_reference_too_long_for_python_stops_reading() {
        let markup = format!("kept<b>x</b>&#{};lost", "9".repeat(5000));
        assert_eq!(read(&markup).0, "keptx");
    }

    #[test]
    fn unclosed_constructs_are_read_as_text() {
        assert_eq!(read("a <b c='d").0, "a <b c='d");
        assert_eq!(read("a <!-- never closed").0, "a <!-- never closed");
        assert_eq!(read("<<<").0, "<<<");
        assert_eq!(read("x <").0, "x <");
    }

    #[test]
    fn an_unknown_marked_section_stops_reading() {
        assert_eq!(read("kept<![bogus[ x ]]>lost").0, "kept");
        assert_eq!(read("a<![CDATA[ x ]]>b").0, "ab");
    }

    #[test]
    fn budgets_bound_tags_and_attributes() {
        let mut budget = Budget {
            tags: 5,
            ..Budget::default()
        };
        let (text, _) = html_to_text(&("<b>x</b> ".repeat(10) + "<i>free</i> money"), &mut budget);
        assert_eq!(budget.tags, 0);
        assert!(text.contains("free") && text.contains("money"));
        let many = format!(
            "<a{} href='http://far.example/'>far</a>",
            " b".repeat(100_000)
        );
        assert_eq!(read(&many), ("far".to_string(), vec![]));
        let mut budget = Budget {
            attributes: 200_000,
            ..Budget::default()
        };
        assert_eq!(
            html_to_text(&many, &mut budget),
            ("far".to_string(), vec!["http://far.example/".to_string()])
        );
    }

    #[test]
    fn hostile_shapes_take_linear_time() {
        use std::time::Instant;
        let shapes: Vec<Box<dyn Fn(usize) -> String>> = vec![
            Box::new(|n| "<x y".repeat(n)),
            Box::new(|n| "<a".repeat(n)),
            Box::new(|n| "</".repeat(n)),
            Box::new(|n| "<?".repeat(n)),
            Box::new(|n| "<![CDATA[".repeat(n)),
            Box::new(|n| "<!x".repeat(n)),
            Box::new(|n| "<!--".repeat(n)),
            Box::new(|n| "<<<".repeat(n)),
            Box::new(|n| "<a b='".repeat(n)),
            Box::new(|n| "<a b=\"".repeat(n)),
            Box::new(|n| "<a b='>".repeat(n)),
            Box::new(|n| format!("<a href=\"{}", "<".repeat(n))),
            Box::new(|n| format!("<script>{}", "</scrip ".repeat(n))),
            Box::new(|n| format!("<a{}>", " b".repeat(n))),
            Box::new(|n| "]] ] ] ]".repeat(n)),
            Box::new(|n| format!("<![if {}", "] ".repeat(n))),
            Box::new(|n| "-- - -- ".repeat(n)),
        ];
        for make in &shapes {
            let (small, large) = (make(20_000), make(80_000));
            let time = |markup: &str| {
                let mut best = f64::MAX;
                for _ in 0..3 {
                    let started = Instant::now();
                    html_to_text(
                        markup,
                        &mut Budget {
                            tags: 1_000_000_000,
                            ..Budget::default()
                        },
                    );
                    best = best.min(started.elapsed().as_secs_f64());
                }
                best
            };
            let (cheap, dear) = (time(&small), time(&large));
            assert!(
                dear <= 8.0 * cheap.max(1e-4),
                "{:?}: {cheap} s, {dear} s",
                &small[..small.len().min(20)]
            );
        }
    }

    #[test]
    fn never_panics_on_fragments() {
        let pieces = [
            "<a", "<", "a", "B", " ", "\t", "\u{a0}", "=", "==", "'", "\"", "/", ">", "/>",
            "\u{0}", "é", "<b c", "'>'", "href", "=x ", "&", "#", "x", "1", ";", "<!", "--", "[",
            "]", "?", "script", "</", "\u{212a}", "\u{17f}", "\u{2028}",
        ];
        let mut state = 12345u64;
        for _ in 0..20_000 {
            let mut markup = String::new();
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            for _ in 0..(state >> 60) + 1 {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                markup.push_str(pieces[(state >> 33) as usize % pieces.len()]);
            }
            read(&markup);
            html_to_text(
                &markup,
                &mut Budget {
                    scan: 0,
                    tags: 3,
                    attributes: 1,
                },
            );
        }
    }
}
