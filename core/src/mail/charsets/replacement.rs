//! What every decoder does at a bad sequence: U+FFFD in its place when
//! reading with replacement, the end of a strict reading otherwise.  Its own
//! module so that decode.rs, which picks a decoder, sits above the decoders
//! (dbcs.rs, iso2022.rs, hz.rs, utf7.rs) and they never reach back up to it.

/// Pushes a bad sequence's replacement, or says the strict reading failed.
pub(super) fn bad(out: &mut String, replace: bool) -> Option<()> {
    if replace {
        out.push('\u{fffd}');
        Some(())
    } else {
        None
    }
}
