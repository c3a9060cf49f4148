//! Variant folding: Traditional characters, variants and look-alikes → plain Simplified.

/// `run` with variants folded.
pub fn fold_variants(_run: &str) -> String {
    unimplemented!("ported from spamnb/text/variants.py")
}
