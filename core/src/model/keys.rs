//! The 64-bit key a token is found by in a model file.
//!
//! BLAKE2b with an 8-byte digest of the token's UTF-8, read little-endian: a
//! keyed-quality hash, so no one can craft a token that lands on another
//! token's key (with 10 million tokens, two keys collide by chance once in
//! 10^5 models).  Every model file is sorted by these keys, so changing the
//! function means a new model format.

use blake2b_simd::Params;

/// The key of one token; a surrogate stand-in (crate::surrogates) is hashed
/// as the surrogate it stands for, as Python's "surrogatepass" UTF-8.
pub fn token_key(token: &str) -> u64 {
    key_of_bytes(&crate::surrogates::surrogatepass_bytes(token))
}

/// The key of a token's encoded bytes (UTF-8; a token read back from an old
/// model may hold a lone surrogate, which Python encodes with surrogatepass).
pub fn key_of_bytes(bytes: &[u8]) -> u64 {
    let hash = Params::new().hash_length(8).hash(bytes);
    let mut digest = [0u8; 8];
    digest.copy_from_slice(hash.as_bytes());
    u64::from_le_bytes(digest)
}

/// The keys of many tokens, in order.
pub fn token_keys<'a>(tokens: impl IntoIterator<Item = &'a str>) -> Vec<u64> {
    tokens.into_iter().map(token_key).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_hashlib() {
        // int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little")
        assert_eq!(token_key("free"), 0xd373c549e3c3150d);
        assert_eq!(token_key(""), 0xb4b2797457a0a6e4);
        assert_eq!(token_key("免费"), 0x28edd137be3a04fe);
        assert_eq!(token_key("url:example.com"), 0xff4894ebed125674);
    }
}
