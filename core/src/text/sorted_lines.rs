//! Lookups in a table compiled in as text, one `key SEPARATOR value` line
//! per entry, sorted by the keys' UTF-8 bytes, searched where it lies.
//!
//! Nothing is built first: no hash map, no index of the lines.  A process
//! classifying one message looks up a few hundred keys, and building a map
//! of a whole table (jieba's dictionary is 4 MB, OpenCC's t2s 6,500 entries)
//! cost it more than all its lookups; a binary search halves a range of
//! bytes and reads the line its middle byte is in, so it touches only the
//! pages it reads.

#[derive(Clone, Copy)]
pub struct SortedLines {
    text: &'static str,
    separator: u8,
}

impl SortedLines {
    /// `text`: the lines alone (no header), each ended by a line break but
    /// perhaps the last; `separator`: an ASCII byte (a space, a tab).
    pub const fn new(text: &'static str, separator: u8) -> SortedLines {
        SortedLines { text, separator }
    }

    /// The text's length: the end of its last line.
    pub fn end(&self) -> usize {
        self.text.len()
    }

    /// The line that starts at byte `start`, without its line break.
    pub fn line(&self, start: usize) -> &'static str {
        let rest = self.text.get(start..).unwrap_or("");
        &rest[..memchr::memchr(b'\n', rest.as_bytes()).unwrap_or(rest.len())]
    }

    /// (key, value) of the line that starts at `start`.
    pub fn entry(&self, start: usize) -> Option<(&'static str, &'static str)> {
        let line = self.line(start);
        // The separator is ASCII: the bytes either side of it are character boundaries.
        let at = memchr::memchr(self.separator, line.as_bytes())?;
        Some((&line[..at], &line[at + 1..]))
    }

    /// The key of the line that starts at `start` (the whole line if it has no separator).
    fn key(&self, start: usize) -> &'static str {
        let line = self.line(start);
        &line[..memchr::memchr(self.separator, line.as_bytes()).unwrap_or(line.len())]
    }

    /// The start of the line after the one that starts at `start`.
    pub fn next_line(&self, start: usize) -> usize {
        (start + self.line(start).len() + 1).min(self.text.len())
    }

    /// Start of the first line whose key is not below `key` (`end()` if
    /// none is).
    pub fn lower_bound(&self, key: &[u8]) -> usize {
        self.lower_bound_in(key, 0, self.text.len())
    }

    /// Start of the first line from `low` on, before `high`, whose key is
    /// not below `key` (`high` if none is), for line starts `low` and
    /// `high` of a range that holds every line it may be.  They stay line
    /// starts: every line before `low` is below the key, none from `high` on is.
    pub fn lower_bound_in(&self, key: &[u8], low: usize, high: usize) -> usize {
        let bytes = self.text.as_bytes();
        let (mut low, mut high) = (low.min(bytes.len()), high.min(bytes.len()));
        while low < high {
            let byte = low + (high - low) / 2;
            let middle = memchr::memrchr(b'\n', &bytes[low..byte]).map_or(low, |index| low + index + 1);
            if self.key(middle).as_bytes() < key {
                low = self.next_line(middle);
            } else {
                high = middle;
            }
        }
        low
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&'static str> {
        match self.entry(self.lower_bound(key.as_bytes())) {
            Some((found, value)) if found == key => Some(value),
            _ => None,
        }
    }

    /// (key, value) of every line whose key starts with `prefix`, in order.
    pub fn under<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'static str, &'static str)> + 'a {
        self.under_from(prefix, self.lower_bound(prefix.as_bytes()))
    }

    /// `under(prefix)`, its first line (or where it would be) known.
    pub fn under_from<'a>(&'a self, prefix: &'a str, start: usize)
                          -> impl Iterator<Item = (&'static str, &'static str)> + 'a {
        let mut start = start;
        std::iter::from_fn(move || {
            let found = self.entry(start).filter(|(key, _)| key.starts_with(prefix))?;
            start = self.next_line(start);
            Some(found)
        })
    }

    /// Every line, in order.
    pub fn lines(&self) -> impl Iterator<Item = &'static str> {
        self.text.lines()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_key_and_nothing_else() {
        let table = SortedLines::new("a 1\nab 2\nb 3\nba 4\nbb 5\n\u{4e2d} 6\n\u{4e2d}\u{56fd} 7", b' ');
        for (key, value) in [("a", "1"), ("ab", "2"), ("b", "3"), ("ba", "4"), ("bb", "5"), ("中", "6"), ("中国", "7")] {
            assert_eq!(table.get(key), Some(value), "{key}");
        }
        for key in ["", "aa", "abc", "c", "中文", "\u{ffff}"] {
            assert_eq!(table.get(key), None, "{key}");
        }
        assert_eq!(table.under("b").collect::<Vec<_>>(), [("b", "3"), ("ba", "4"), ("bb", "5")]);
        assert_eq!(table.under("中").count(), 2);
        assert_eq!(table.under("c").count(), 0);
        assert_eq!(table.lower_bound(b""), 0);
        assert_eq!(table.lower_bound(b"\xff"), table.end());
        // Within the lines of b: b's own first, then nothing below b, then none past bb.
        let (b, c) = (table.lower_bound(b"b"), table.lower_bound(b"c"));
        assert_eq!(table.lower_bound_in(b"ba", b, c), table.lower_bound(b"ba"));
        assert_eq!(table.lower_bound_in(b"b", b, c), b);
        assert_eq!(table.lower_bound_in(b"bz", b, c), c);
        assert_eq!(table.under_from("b", b).count(), 3);
        let empty = SortedLines::new("", b'\t');
        assert_eq!(empty.get("a"), None);
        assert_eq!(empty.under("").count(), 0);
    }
}
