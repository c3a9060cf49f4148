//! Where NFKC may cut a text: the rule text/normalise.rs normalises by, and
//! build.rs tabulates for the Basic Multilingual Plane (build_tables/bmp_classes.rs).

/// A character NFKC leaves as it is and that nothing before it can change
/// or compose with (quick check Yes, combining class 0: ICU's "boundary
/// before"), so NFKC of a text is NFKC of the pieces cut before each one.
pub fn is_nfkc_boundary(c: char) -> bool {
    c.is_ascii()
        || (unicode_normalization::char::canonical_combining_class(c) == 0
            && unicode_normalization::is_nfkc_quick(std::iter::once(c)) == unicode_normalization::IsNormalized::Yes)
}
