//! Python bindings for this stage (thin: convert, call, convert back).

use std::collections::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::text::{chinese, variants};

/// segment(run) -> list[str]: a run of Han characters in words (jieba's
/// precise mode with HMM); runs over MAX_RUN characters cut in PIECE pieces.
#[pyfunction]
fn segment(py: Python<'_>, run: &str) -> Vec<String> {
    py.allow_threads(|| chinese::segment(run))
}

/// fold_variants(run) -> str: variants and look-alikes to plain characters,
/// then OpenCC's t2s.
#[pyfunction]
fn fold_variants(run: &str) -> String {
    variants::fold_variants(run)
}

/// fold_word(word) -> str: each Han run of a word (or `field:word` token) folded.
#[pyfunction]
fn fold_word(word: &str) -> String {
    variants::fold_word(word)
}

/// load_variant_table(text) -> dict[int, str]: a variant table file's text
/// checked and read as the core reads its compiled-in copy, with the hand
/// list; ValueError saying why when it is damaged.
#[pyfunction]
fn load_variant_table(text: &str) -> PyResult<HashMap<u32, String>> {
    variants::load_table(text)
        .map(|table| table.into_iter().map(|(variant, plain)| (variant as u32, plain.to_string())).collect())
        .map_err(PyValueError::new_err)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(segment, m)?)?;
    m.add_function(wrap_pyfunction!(fold_variants, m)?)?;
    m.add_function(wrap_pyfunction!(fold_word, m)?)?;
    m.add_function(wrap_pyfunction!(load_variant_table, m)?)?;
    m.add("MAX_RUN", chinese::MAX_RUN)?;
    m.add("PIECE", chinese::PIECE)?;
    Ok(())
}
