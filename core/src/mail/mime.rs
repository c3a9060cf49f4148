//! Ported from spamnb/mail/mime.py.
//!
//! A small MIME reader over raw bytes: header blocks, parameters, multipart
//! splitting and transfer decoding (address lists: addresses.rs).
//!
//! It started as a reading of mail the way the email package's default
//! (compat32) parser reads it, and departs from it where a tolerant mail
//! client shows a message the package misreads (junk header lines, blanks
//! before the colon, garbage or duplicate Content-Type and encodings, RFC 2231
//! oddities, boundary lines, epilogues).
//!
//! Lines end with CRLF, LF or a lone CR, as in the email package.  Every part
//! is a range [start, end) of the one buffer; a part ends at the first line
//! that is a boundary of any multipart enclosing it.  Nothing here fails or
//! panics on bad input, and every scan is linear in the input: the Python's
//! regular expressions are written here as plain scanners with the same
//! matches (the `regex` crate has no possessive or look-around forms).
//!
//! One file a job:
//!
//! - scan.rs: line ends, blank lines, slicing;
//! - headers.rs: header blocks, field lookup, Content-Type's media type;
//! - params.rs: a field's parameters, RFC 2231 included;
//! - transfer.rs: Content-Transfer-Encoding and its decoding, with
//!   binascii.rs (CPython's decoders) and uu.rs (uuencoded bodies);
//! - multipart.rs: a multipart body cut at its boundary lines;
//! - tree.rs: the part walk, bounded, in reading order.

mod binascii;
mod headers;
mod multipart;
mod params;
mod scan;
#[cfg(test)]
mod tests;
mod transfer;
mod tree;
mod uu;

pub(crate) use binascii::{a2b_base64, a2b_qp};
pub use headers::{content_type, field, read_headers, Fields, CUT_FIELD, MAX_FIELDS};
pub use multipart::split;
pub use params::{charset, collapse, filename, param, params, params_cut, quote, ParamValue, MAX_PARAMS};
pub(crate) use params::{py_isspace, py_strip};
pub use transfer::{transfer_decode, transfer_encoding};
pub use tree::{parse, Entity};
