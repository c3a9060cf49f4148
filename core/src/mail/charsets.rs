//! Bytes of a declared or undeclared charset → text.
//!
//! Real mail lies about its charset often enough that a strict decode with
//! the declared name is only the first try.  Counts below are from the
//! shared corpora (`bench/charset_census.py`).
//!
//! Labels are read as Python reads them (its codec names and aliases, in
//! `charset_tables.rs`), and `codec_for` gives Python's codec name, so that
//! a label means here what it meant to the Python pipeline.  The decoders:
//! single-byte charsets from Python's own tables; UTF-8, GB18030, Big5,
//! EUC-KR (as CP949), Shift_JIS (as CP932), EUC-JP and ISO-2022-JP from
//! encoding_rs (WHATWG's decoders, which differ from Python's codecs in a
//! few mappings: bench/core_charsets_identity.py counts them); UTF-16,
//! UTF-32, UTF-7, HZ and ISO-2022-KR by hand.
//!
//! One file a job:
//!
//! - labels.rs: a label → Python's codec name (`codec_for`);
//! - decide.rs: which reading becomes a part's text (`decode_text`);
//! - sniff.rs: the reading of text of unknown charset, with score.rs (how
//!   well a reading reads);
//! - decode.rs: bytes decoded with one codec as Python decodes them
//!   (`decode_with`), with dbcs.rs (the double-byte codecs, from compiled
//!   tables), iso2022.rs, hz.rs and utf7.rs;
//! - replacement.rs: what each of those decoders does at a bad sequence.

mod dbcs;
mod decide;
mod decode;
mod hz;
mod iso2022;
mod labels;
mod replacement;
mod score;
mod sniff;
#[cfg(test)]
mod tests;
mod utf7;

pub use decide::decode_text;
pub use decode::decode_with;
pub use labels::codec_for;
pub use score::{reading_score, western_score};
pub use sniff::{sniff, SNIFFED_CODECS};
