//! Start tags: where one ends (html.parser's locatestarttagend_tolerant,
//! bounded once the scan budget is spent: budget.rs), its attributes read
//! one by one while the message's budget lasts, and the tag handed on to
//! what is kept.
//!
//! The search for a quoted value's closing quote is a binary search in the
//! positions of that quote (found once per part), so an unclosed quote
//! costs no scan to the end of the markup however often it is met.

use super::kept::{link_attribute, AttributeKind};
use super::{name_and_blanks, Cdata, Reducer};
use crate::mail::html::charrefs::unescape;
use crate::mail::html::chars::{char_at, is_ascii_space, is_space, lower, py_strip, skip_spaces, space_len};
use crate::mail::html::search::{Finder, Pattern};
use crate::mail::html::Stop;

/// One match of html.parser's attribute pattern:
/// `((?<=['"\s/])[^\s/>][^\s/=>]*)(\s*=+\s*('[^']*'|"[^"]*"|(?!['"])[^>\s]*))?(?:\s|/(?!>))*`
struct Attribute {
    name: (usize, usize),
    /// group 3, when group 2 (the `=` and what follows it) took part
    value: Option<(usize, usize)>,
    end: usize,
}

impl Reducer<'_> {
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

    pub(super) fn parse_starttag(&mut self, i: usize) -> Result<Option<usize>, Stop> {
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
}

/// Past a bare value (`[^>\s]*`) from `at`, before `limit`.
fn bare_value_end(b: &[u8], mut at: usize, limit: usize) -> usize {
    while at < limit && b[at] != b'>' && space_len(b, at, limit) == 0 {
        at += if b[at] < 0x80 { 1 } else { char_at(b, at).1 };
    }
    at
}

fn count_chars(bytes: &[u8]) -> i64 {
    bytes.iter().filter(|&&byte| (byte & 0xc0) != 0x80).count() as i64
}
