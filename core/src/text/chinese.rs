//! Runs of Han characters → words (jieba-rs: jieba's dictionary and HMM).

/// Split a run of Han characters into words (jieba's precise mode with HMM).
pub fn segment(_run: &str) -> Vec<String> {
    unimplemented!("ported from spamnb/text/chinese.py")
}
