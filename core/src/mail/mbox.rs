//! The mbox "From " line that starts a message.

use regex::bytes::Regex;
use std::sync::OnceLock;

/// Whether `line` starts with an mbox separator: "From " + sender + asctime
/// date.  Requiring weekday, month, day and hh:mm keeps unescaped body lines
/// such as "From there we walked" or "From 10:30 to 11:00" (mboxo writers do
/// not escape) from splitting a message; the sender may hold spaces
/// ("x@[1.2.3.4] [ufa]", seen in the SpamAssassin corpus).  ASCII classes, as
/// Python's bytes patterns have them; `regex` keeps the search linear.
pub fn is_from_line(line: &[u8]) -> bool {
    // Most first lines of a message file are a header field: answered without
    // building the pattern, a cost of every fresh `learn`'s start.
    if !line.starts_with(b"From ") {
        return false;
    }
    static FROM_LINE: OnceLock<Regex> = OnceLock::new();
    FROM_LINE
        .get_or_init(|| {
            Regex::new(
                r"(?-u)\AFrom \S.*?\s(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{1,2}\s+\d{1,2}:\d\d",
            )
            .expect("a fixed pattern")
        })
        .is_match(line)
}

#[cfg(test)]
mod tests {
    use super::is_from_line;

    #[test]
    fn separators_and_body_lines() {
        assert!(is_from_line(b"From alice@example.com  Thu Aug 22 12:34:56 2002\n"));
        assert!(is_from_line(b"From x@[1.2.3.4] [ufa] Mon Jan  6 01:02:03 2003"));
        assert!(!is_from_line(b"From there we walked on Mon Jan 6"));
        assert!(!is_from_line(b"From 10:30 to 11:00"));
        assert!(!is_from_line(b" From a Thu Aug 22 12:34:56 2002"));
    }
}
