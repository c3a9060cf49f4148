//! Tokens → keys → weights: the 64-bit key of a token and the lookups and sums
//! of scoring.

pub mod counting;
pub mod journal;
pub mod keys;
pub mod meta;
pub mod positions;
pub mod runs;
pub mod table;
