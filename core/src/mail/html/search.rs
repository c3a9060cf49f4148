//! Every search for the end of a construct (">", "-->", "]]>",
//! "</script>") remembers its answer, so a later search from a point
//! before that answer gets it without scanning again, and a search that
//! found nothing is not repeated from further on (html.parser searches
//! again from every "<", quadratic on unclosed constructs).  The patterns
//! are html.parser's, written out as plain code.

use super::chars::{char_at, ignorecase_eq, skip_spaces};

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Pattern {
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
pub(super) struct Finder {
    pattern: Pattern,
    start: usize,
    found: Option<(usize, usize)>,
    failed_from: usize,
}

impl Finder {
    pub(super) fn new(pattern: Pattern, len: usize) -> Self {
        Finder {
            pattern,
            start: 0,
            found: None,
            failed_from: len + 1,
        }
    }

    pub(super) fn search(&mut self, text: &str, start: usize) -> Option<(usize, usize)> {
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

    pub(super) fn find(&mut self, text: &str, start: usize) -> Option<usize> {
        self.search(text, start).map(|(at, _)| at)
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
