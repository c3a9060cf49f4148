//! The status fields spamnb writes (`filter`, and spamd's replies), as its
//! readers know them: the digest takes them out (mail/digest.rs) and the
//! tokenizer never reads them (text/tokens/options.rs `wants_header`), so a
//! message learned after `spamnb filter` tagged it is the message learned
//! before, and a model never learns its own verdicts.

use crate::text::normalise::is_space;

pub const STATUS_HEADER: &str = "X-Spamnb-Status";

/// The status fields spamnb's filter and spamd add, in either style, by
/// field name (ASCII case ignored).  A field of another name holding a
/// status value (`filter --header X-Custom`) is known by its value
/// (is_status_value).
pub const OWN_STATUS_FIELDS: [&str; 4] = [STATUS_HEADER, "X-Spam-Flag", "X-Spam-Level", "X-Spam-Status"];

/// Whether a field's value is what `spamnb filter` writes, whatever the
/// field's name (`--header X-Custom`): `Yes, score=0.9987,
/// log-odds=6.64, model=NAME` and maybe `, reason="…"`: after any white
/// space, `(?:Yes|No|Unsure), score=[0-9.]+, log-odds=[-+]?(?:[0-9.]+|inf),
/// model=` as a regular expression.
pub fn is_status_value(value: &str) -> bool {
    fn number(rest: &str) -> Option<&str> {
        let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        if end == 0 {
            None
        } else {
            Some(&rest[end..])
        }
    }
    let rest = value.trim_start_matches(is_space);
    let Some(rest) = ["Yes", "No", "Unsure"].iter().find_map(|word| rest.strip_prefix(word)) else {
        return false;
    };
    let Some(rest) = rest.strip_prefix(", score=").and_then(number) else {
        return false;
    };
    let Some(rest) = rest.strip_prefix(", log-odds=") else {
        return false;
    };
    let rest = rest.strip_prefix(['-', '+']).unwrap_or(rest);
    let rest = match number(rest) {
        Some(after) => after,
        None => match rest.strip_prefix("inf") {
            Some(after) => after,
            None => return false,
        },
    };
    rest.starts_with(", model=")
}
