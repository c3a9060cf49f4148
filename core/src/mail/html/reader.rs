//! The reader: html.parser's goahead (Python 3.11, convert_charrefs=True,
//! end=True) step for step over one part's markup.  Text, comments,
//! declarations, marked sections and end tags are read here, start tags in
//! reader/starttag.rs, and what is kept of it all in reader/kept.rs.

mod kept;
mod starttag;

use std::borrow::Cow;

use super::budget::{Budget, SCAN_FACTOR};
use super::charrefs::unescape;
use super::chars::{lower, skip_spaces, space_len};
use super::search::{Finder, Pattern};
use super::Stop;

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
