//! The 64-bit key a token is found by.
