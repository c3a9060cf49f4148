//! Han runs: where they are in a text, and how they are folded and
//! segmented (HanText, the crate's own CoreHan).

/// How Han runs are folded and segmented: crate::text::variants and
/// crate::text::chinese on the real path; tests may pass their own.
pub trait HanText {
    fn fold_variants(&self, run: &str) -> String;
    fn segment(&self, run: &str) -> Vec<String>;
}

/// The crate's own Han handling (variants.rs, chinese.rs).
pub struct CoreHan;

impl HanText for CoreHan {
    fn fold_variants(&self, run: &str) -> String {
        crate::text::variants::fold_variants(run)
    }
    fn segment(&self, run: &str) -> Vec<String> {
        crate::text::chinese::segment(run)
    }
}

/// Han characters (CJK Unified Ideographs, Extension A, Compatibility), and
/// the CJK radicals that look like ideographs (⻔ for 门), which NFKC leaves
/// alone and variant folding turns into the ideograph (variants.rs).
pub fn is_han(c: char) -> bool {
    matches!(c, '\u{2e80}'..='\u{2eff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '\u{f900}'..='\u{faff}')
}

/// Python's `_han_run().split(text)`: the pieces between Han runs at even
/// indices, the runs at odd ones (empty pieces kept).
pub fn han_split(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut in_run = false;
    for (index, c) in text.char_indices() {
        let han = is_han(c);
        if han != in_run {
            pieces.push(&text[start..index]);
            start = index;
            in_run = han;
        }
    }
    pieces.push(&text[start..]);
    if in_run {
        pieces.push("");
    }
    pieces
}
