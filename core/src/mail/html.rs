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
//! its searches for the end of a construct remember their answers
//! (search.rs), a quoted value's closing quote is found by a binary search
//! (reader/starttag.rs), and what a message's markup may cost is bounded
//! (budget.rs, which says why each bound is where it is).
//!
//! Positions here are byte offsets into the markup; the scan budget counts
//! characters, as the Python does.
//!
//! One file a job:
//!
//! - reader.rs: html_to_text, html.parser's reading step for step, with
//!   reader/starttag.rs (start tags and their attributes) and reader/kept.rs
//!   (what is kept: visible text, link targets, alt text);
//! - search.rs: the searches for the end of a construct, remembered;
//! - chars.rs: Python's character classes over UTF-8 bytes;
//! - charrefs.rs: character references (html.unescape), with entities.rs,
//!   its generated table;
//! - budget.rs: what reading a message's HTML may cost.

mod budget;
mod charrefs;
mod chars;
#[rustfmt::skip]
mod entities;
mod reader;
mod search;
#[cfg(test)]
mod tests;

pub use budget::{Budget, MAX_ATTRIBUTES, MAX_SCAN, MAX_TAGS, SCAN_FACTOR};
pub use reader::html_to_text;

/// Where the Python reader raises (AssertionError from a marked section,
/// ValueError from html.unescape) and reading stops.
#[derive(Debug)]
struct Stop;
