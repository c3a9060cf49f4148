//! Python bindings for token keys.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::model::keys;

/// A token's key; a str holding a lone surrogate (not UTF-8) is hashed as
/// Python's `encode("utf-8", "surrogatepass")` gives it, as keys always were.
fn key_of(token: &Bound<'_, PyString>) -> PyResult<u64> {
    match token.to_str() {
        Ok(text) => Ok(keys::token_key(text)),
        Err(_) => {
            let encoded = token.call_method1("encode", ("utf-8", "surrogatepass"))?;
            Ok(keys::key_of_bytes(encoded.downcast::<PyBytes>()?.as_bytes()))
        }
    }
}

/// token_key(token: str) -> int: the 64-bit key a token is found by (BLAKE2b-64, little-endian).
#[pyfunction]
fn token_key(token: &Bound<'_, PyString>) -> PyResult<u64> {
    key_of(token)
}

/// token_keys(tokens: list[str]) -> bytes: each token's key as 8 little-endian bytes, in order
/// (numpy.frombuffer(..., dtype="<u8") reads them without a Python step per token).
#[pyfunction]
fn token_keys<'py>(py: Python<'py>, tokens: Vec<Bound<'py, PyString>>) -> PyResult<Bound<'py, PyBytes>> {
    let mut bytes = Vec::with_capacity(tokens.len() * 8);
    for token in &tokens {
        bytes.extend_from_slice(&key_of(token)?.to_le_bytes());
    }
    Ok(PyBytes::new(py, &bytes))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(token_key, m)?)?;
    m.add_function(wrap_pyfunction!(token_keys, m)?)?;
    Ok(())
}
