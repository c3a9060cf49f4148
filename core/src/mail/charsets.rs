//! Bytes of a declared or undeclared charset → text.

/// Decode `data` declared as `declared` (or undeclared); never fails.
/// `cut`: the bytes were cut from a longer body (a last partial character is not an error).
pub fn decode_text(_data: &[u8], _declared: Option<&str>, _cut: bool) -> String {
    unimplemented!("ported from spamnb/mail/charsets.py")
}
