//! HTML → visible text and link targets.

/// What reading HTML may still cost, all of one message's HTML parts together.
#[derive(Debug, Clone)]
pub struct Budget {}

impl Default for Budget {
    fn default() -> Self {
        Budget {}
    }
}

/// The visible text of `markup` and the link and image targets it holds.
pub fn html_to_text(_markup: &str, _budget: &mut Budget) -> (String, Vec<String>) {
    unimplemented!("ported from spamnb/mail/htmltext.py")
}
