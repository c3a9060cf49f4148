//! Ported from spamnb/mail/addresses.py.
//!
//! Address lists: an address field's raw value to (display name, address)
//! pairs.  A port of the email package's _parseaddr.AddrlistClass, state for
//! state, so addresses come out as `email.utils.getaddresses` gives them.
//! Time is linear in the value, `limit` bounds the entries a hostile field
//! can make, and nothing here fails on bad input.
//!
//! The text is read as code points (`u32`): a Python str, whose raw 8-bit
//! bytes are surrogate escapes (U+DC80..U+DCFF) when it came from bytes.
//! `units_of_bytes` and `bytes_of_units` go between such text and raw bytes.

use super::mime::py_isspace;

/// Code points of `value` read as ASCII with surrogate escapes (8-bit byte b → U+DC00 + b).
pub fn units_of_bytes(value: &[u8]) -> Vec<u32> {
    value.iter().map(|&b| if b < 0x80 { b as u32 } else { 0xdc00 + b as u32 }).collect()
}

/// The raw bytes of text made of ASCII, surrogate escapes and other
/// characters (the latter as UTF-8): str.encode("utf-8", "surrogateescape").
pub fn bytes_of_units(units: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(units.len());
    for &u in units {
        if (0xdc80..=0xdcff).contains(&u) {
            out.push((u - 0xdc00) as u8);
        } else if let Some(c) = char::from_u32(u) {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        } else {
            out.extend_from_slice("\u{fffd}".as_bytes()); // a lone surrogate that is no escape
        }
    }
    out
}

fn is_special(u: u32) -> bool {
    matches!(char::from_u32(u), Some('(' | ')' | '<' | '>' | '@' | ',' | ':' | ';' | '.' | '"' | '[' | ']'))
}

fn is_lws(u: u32) -> bool {
    matches!(u, 0x20 | 0x09 | 0x0d | 0x0a)
}

fn is_space(u: u32) -> bool {
    char::from_u32(u).is_some_and(py_isspace)
}

fn blank_only(s: &[u32]) -> bool {
    s.iter().all(|&u| is_space(u))
}

fn join(parts: &[Vec<u32>], sep: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(sep);
        }
        out.extend_from_slice(p);
    }
    out
}

fn units(s: &str) -> Vec<u32> {
    s.chars().map(|c| c as u32).collect()
}

/// Groups nested deeper than this make the Python raise RecursionError,
/// which parse_addresses answers with no address at all.  Python's limit
/// counts its whole call stack (1,000 frames), so its exact depth varies
/// by a few with the caller; this is where decode_message called from a
/// shallow stack meets it (990 nested groups give no address).
pub const MAX_GROUP_DEPTH: usize = 989;

struct TooDeep;

/// (display name, address), as code points.
pub type Pair = (Vec<u32>, Vec<u32>);

struct Parser<'a> {
    text: &'a [u32],
    limit: Option<usize>,
    pos: usize,
    comments: Vec<Vec<u32>>,
}

/// (display name, address) pairs of an address field's raw value.
///
/// Reads quoted names ("Smith, John" <j@x>), comments ((John) j@x, whose
/// text becomes the name), <address> forms, bare addresses, groups
/// (undisclosed-recipients:;) and route addresses as email.utils.getaddresses
/// does; garbage gives ("", "") entries, never an error.  With `limit`, at
/// most about that many entries are read, and the text after them is not.
pub fn parse_addresses(text: &[u32], limit: Option<usize>) -> Vec<Pair> {
    let mut parser = Parser { text, limit, pos: 0, comments: Vec::new() };
    let mut result = Vec::new();
    while parser.pos < text.len() && limit.is_none_or(|l| result.len() < l) {
        match parser.address(0) {
            Err(TooDeep) => return Vec::new(), // groups nested thousands deep
            Ok(found) => {
                if found.is_empty() {
                    result.push((Vec::new(), Vec::new()));
                } else {
                    result.extend(found);
                }
            }
        }
    }
    result
}

impl Parser<'_> {
    fn at(&self) -> Option<u32> {
        self.text.get(self.pos).copied()
    }

    /// Skip blanks and line ends, collecting comments; the blanks skipped.
    fn skip(&mut self) -> Vec<u32> {
        let mut blanks = Vec::new();
        while let Some(c) = self.at() {
            if is_lws(c) {
                if c == 0x20 || c == 0x09 {
                    blanks.push(c);
                }
                self.pos += 1;
            } else if c == '(' as u32 {
                let comment = self.delimited('(' as u32, &[')' as u32, 0x0d], true);
                self.comments.push(comment);
            } else {
                break;
            }
        }
        blanks
    }

    fn address(&mut self, depth: usize) -> Result<Vec<Pair>, TooDeep> {
        if depth > MAX_GROUP_DEPTH {
            return Err(TooDeep);
        }
        let len = self.text.len();
        self.comments = Vec::new();
        self.skip();
        // The Python keeps the same comment list across the reset below, so
        // resetting the position alone is its reading.
        let old_pos = self.pos;
        let phrases = self.phrases();
        self.skip();
        let mut out = Vec::new();
        match self.at() {
            None => {
                if let Some(first) = phrases.first() {
                    out.push((join(&self.comments, &[0x20]), first.clone()));
                }
            }
            Some(c) if c == '.' as u32 || c == '@' as u32 => {
                self.pos = old_pos;
                let spec = self.addr_spec();
                out.push((join(&self.comments, &[0x20]), spec));
            }
            Some(c) if c == ':' as u32 => {
                // a group: its members, up to ";"
                self.pos += 1;
                while self.pos < len && self.limit.is_none_or(|l| out.len() < l) {
                    self.skip();
                    if self.at() == Some(';' as u32) {
                        self.pos += 1;
                        break;
                    }
                    out.extend(self.address(depth + 1)?);
                }
            }
            Some(c) if c == '<' as u32 => {
                let route = self.route_addr();
                let mut name = join(&phrases, &[0x20]);
                if !self.comments.is_empty() {
                    name.extend(units(" ("));
                    name.extend(join(&self.comments, &[0x20]));
                    name.push(')' as u32);
                }
                out.push((name, route));
            }
            Some(c) => {
                if let Some(first) = phrases.first() {
                    out.push((join(&self.comments, &[0x20]), first.clone()));
                } else if is_special(c) {
                    self.pos += 1;
                }
            }
        }
        self.skip();
        if self.at() == Some(',' as u32) {
            self.pos += 1;
        }
        Ok(out)
    }

    fn route_addr(&mut self) -> Vec<u32> {
        let mut expect_route = false;
        self.pos += 1;
        self.skip();
        let mut spec = Vec::new();
        while let Some(c) = self.at() {
            if expect_route {
                self.domain();
                expect_route = false;
            } else if c == '>' as u32 {
                self.pos += 1;
                break;
            } else if c == '@' as u32 {
                self.pos += 1;
                expect_route = true;
            } else if c == ':' as u32 {
                self.pos += 1;
            } else {
                spec = self.addr_spec();
                self.pos += 1;
                break;
            }
            self.skip();
        }
        spec
    }

    fn addr_spec(&mut self) -> Vec<u32> {
        let mut pieces: Vec<Vec<u32>> = Vec::new();
        self.skip();
        while let Some(c) = self.at() {
            let mut keep_blanks = true;
            if c == '.' as u32 {
                if pieces.last().is_some_and(|p| blank_only(p)) {
                    pieces.pop();
                }
                pieces.push(vec!['.' as u32]);
                self.pos += 1;
                keep_blanks = false;
            } else if c == '"' as u32 {
                let quoted = self.delimited('"' as u32, &['"' as u32, 0x0d], false);
                // '"%s"' % quote(...): backslashes and quotes escaped
                let mut piece = vec!['"' as u32];
                for u in quoted {
                    if u == '\\' as u32 || u == '"' as u32 {
                        piece.push('\\' as u32);
                    }
                    piece.push(u);
                }
                piece.push('"' as u32);
                pieces.push(piece);
            } else if is_special(c) || is_lws(c) {
                if pieces.last().is_some_and(|p| blank_only(p)) {
                    pieces.pop();
                }
                break;
            } else {
                pieces.push(self.atom(false));
            }
            let blanks = self.skip();
            if keep_blanks && !blanks.is_empty() {
                pieces.push(blanks);
            }
        }
        let mut spec: Vec<u32> = pieces.concat();
        if self.at() != Some('@' as u32) {
            return spec;
        }
        spec.push('@' as u32);
        self.pos += 1;
        self.skip();
        let domain = self.domain();
        if domain.is_empty() {
            return Vec::new();
        }
        spec.extend(domain);
        spec
    }

    fn domain(&mut self) -> Vec<u32> {
        let mut pieces: Vec<u32> = Vec::new();
        while let Some(c) = self.at() {
            if c == 0x20 || c == 0x09 {
                self.pos += 1;
            } else if c == '(' as u32 {
                let comment = self.delimited('(' as u32, &[')' as u32, 0x0d], true);
                self.comments.push(comment);
            } else if c == '[' as u32 {
                let literal = self.delimited('[' as u32, &[']' as u32, 0x0d], false);
                pieces.push('[' as u32);
                pieces.extend(literal);
                pieces.push(']' as u32);
            } else if c == '.' as u32 {
                self.pos += 1;
                pieces.push('.' as u32);
            } else if c == '@' as u32 {
                return Vec::new();
            } else if is_special(c) || c == 0x0d || c == 0x0a {
                break;
            } else {
                pieces.extend(self.atom(false));
            }
        }
        pieces
    }

    /// A quoted string, comment or domain literal, without its delimiters.
    /// Comments nest (and their text is kept); a backslash quotes the next
    /// character.
    fn delimited(&mut self, begin: u32, ends: &[u32], comments: bool) -> Vec<u32> {
        if self.at() != Some(begin) {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut depth = 1usize;
        let mut quoted = false;
        self.pos += 1;
        while let Some(c) = self.at() {
            self.pos += 1;
            if quoted {
                out.push(c);
                quoted = false;
            } else if ends.contains(&c) {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            } else if comments && c == '(' as u32 {
                depth += 1;
            } else if c == '\\' as u32 {
                quoted = true;
            } else {
                out.push(c);
            }
        }
        out
    }

    /// An atom: up to a special character or a blank; in a phrase "." is
    /// part of it.
    fn atom(&mut self, phrase: bool) -> Vec<u32> {
        let start = self.pos;
        while let Some(c) = self.at() {
            if is_lws(c) || (is_special(c) && !(phrase && c == '.' as u32)) {
                break;
            }
            self.pos += 1;
        }
        self.text[start..self.pos].to_vec()
    }

    fn phrases(&mut self) -> Vec<Vec<u32>> {
        let mut out = Vec::new();
        while let Some(c) = self.at() {
            if is_lws(c) {
                self.pos += 1;
            } else if c == '"' as u32 {
                out.push(self.delimited('"' as u32, &['"' as u32, 0x0d], false));
            } else if c == '(' as u32 {
                let comment = self.delimited('(' as u32, &[')' as u32, 0x0d], true);
                self.comments.push(comment);
            } else if is_special(c) && c != '.' as u32 {
                break;
            } else {
                out.push(self.atom(true));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(value: &str) -> Vec<(String, String)> {
        let units: Vec<u32> = value.chars().map(|c| c as u32).collect();
        parse_addresses(&units, None)
            .into_iter()
            .map(|(n, a)| (String::from_utf8_lossy(&bytes_of_units(&n)).into_owned(),
                           String::from_utf8_lossy(&bytes_of_units(&a)).into_owned()))
            .collect()
    }

    #[test]
    fn address_lists_as_the_email_package_reads_them() {
        let p = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(pairs("\"Smith, John\" <j@x.example>, b@y.example"),
                   vec![p("Smith, John", "j@x.example"), p("", "b@y.example")]);
        assert_eq!(pairs("((nested) comment) j@x.example"), vec![p("nested comment", "j@x.example")]);
        assert_eq!(pairs("undisclosed-recipients:;"), vec![p("", "")]);
        assert_eq!(pairs("<@relay.example:j@x.example>"), vec![p("", "j@x.example")]);
        assert_eq!(pairs("a@b.example,,"), vec![p("", "a@b.example"), p("", "")]);
    }

    #[test]
    fn deep_groups_give_no_address_and_limits_hold() {
        assert!(pairs(&("a:".repeat(MAX_GROUP_DEPTH + 1) + "x@y")).is_empty());
        assert_eq!(pairs(&("a:".repeat(MAX_GROUP_DEPTH) + "x@y")).len(), 1);
        let many: Vec<u32> = "x <a@b.example>, ".repeat(5000).chars().map(|c| c as u32).collect();
        assert_eq!(parse_addresses(&many, Some(1001)).len(), 1001);
        let open: Vec<u32> = "(".repeat(100_000).chars().map(|c| c as u32).collect();
        let _ = parse_addresses(&open, None);
    }

    #[test]
    fn raw_bytes_round_trip_as_surrogate_escapes() {
        let raw = b"\xc4\xe3 <z@x.cn>";
        let units = units_of_bytes(raw);
        assert_eq!(units[0], 0xdcc4);
        assert_eq!(bytes_of_units(&units), raw.to_vec());
    }
}
