//! Checks on a model file's JSON metadata before Python parses it.

/// Whether the JSON brackets of `text` (outside strings) fail to form a
/// well-nested sequence of depth at most `limit`: too deep, unbalanced or
/// mismatched.  Python's json parser recurses once per level, so a
/// metadata block of a million `[` would end in RecursionError instead of a
/// one-line error; this scan is linear and bounded by the text.
pub fn nested_deeper_than(text: &[u8], limit: usize) -> bool {
    let mut open: Vec<u8> = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for &byte in text {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                open.push(byte);
                if open.len() > limit {
                    return true;
                }
            }
            b']' | b'}' => {
                let wanted = if byte == b']' { b'[' } else { b'{' };
                if open.pop() != Some(wanted) {
                    return true;
                }
            }
            _ => {}
        }
    }
    !open.is_empty()
}

#[cfg(test)]
mod tests {
    use super::nested_deeper_than;

    #[test]
    fn depth_balance_and_strings() {
        assert!(!nested_deeper_than(br#"{"a": [1, {"b": "]]]"}]}"#, 3));
        assert!(nested_deeper_than(br#"{"a": [1, {"b": "]]]"}]}"#, 2));
        assert!(nested_deeper_than(b"[}", 5));
        assert!(nested_deeper_than(b"[[]", 5));
        assert!(nested_deeper_than(b"]", 5));
        assert!(!nested_deeper_than(br#"{"x": "a\"[b"}"#, 1));
        assert!(nested_deeper_than(&vec![b'['; 1_000_000], 64));
    }
}
