//! What reading HTML may cost, all of one message's HTML parts together.
//! Python 3.11's html.parser takes time quadratic in the input on unclosed
//! constructs, and these bounds are where this reader stops following it:
//!
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

/// Per message, all HTML parts together: start-tag scans before they are
/// bounded by the next ">", in characters, as a multiple of a part's length
/// and in all.
pub const SCAN_FACTOR: i64 = 2;
pub const MAX_SCAN: i64 = 1_000_000;
/// "<" read as markup, per message.
pub const MAX_TAGS: i64 = 50_000;
/// Attributes read one by one, per message.
pub const MAX_ATTRIBUTES: i64 = 50_000;

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
