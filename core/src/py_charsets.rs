//! Python bindings for this stage (thin: convert, call, convert back).

use pyo3::prelude::*;

use crate::mail::charsets;

/// decode_text(data: bytes, declared: str | None = None, cut: bool = False) -> str
#[pyfunction]
#[pyo3(signature = (data, declared=None, cut=false))]
fn decode_text(py: Python<'_>, data: &[u8], declared: Option<&str>, cut: bool) -> String {
    py.allow_threads(|| charsets::decode_text(data, declared, cut))
}

/// codec_for(label: str | None) -> str: the Python codec name for a charset label ("" if none).
#[pyfunction]
#[pyo3(signature = (label))]
fn codec_for(label: Option<&str>) -> &'static str {
    charsets::codec_for(label)
}

/// _decode_with(data, codec, replace, cut) -> str | None: one codec's reading (for the identity bench).
#[pyfunction]
fn _charsets_decode_with(data: &[u8], codec: &str, replace: bool, cut: bool) -> Option<String> {
    charsets::decode_with(data, codec, replace, cut)
}

/// _charsets_sniff(data, cut) -> (codec, text) | None (for the identity bench).
#[pyfunction]
#[pyo3(signature = (data, cut=false))]
fn _charsets_sniff(data: &[u8], cut: bool) -> Option<(&'static str, String)> {
    charsets::sniff(data, cut)
}

/// _charsets_reading_score(text, codec) -> int (for the identity bench).
#[pyfunction]
fn _charsets_reading_score(text: &str, codec: &str) -> i64 {
    charsets::reading_score(text, codec)
}

/// _charsets_western_score(data) -> int (for the identity bench).
#[pyfunction]
fn _charsets_western_score(data: &[u8]) -> i64 {
    charsets::western_score(data)
}

/// _charsets_whatwg(data, label) -> str | None: encoding_rs's strict reading under a WHATWG
/// label (for core/tools/gen_charset_tables.py, which compares it with Python's codecs).
#[pyfunction]
fn _charsets_whatwg(data: &[u8], label: &str) -> Option<String> {
    let encoding = encoding_rs::Encoding::for_label(label.as_bytes())?;
    encoding.decode_without_bom_handling_and_without_replacement(data).map(|text| text.into_owned())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(decode_text, m)?)?;
    m.add_function(wrap_pyfunction!(codec_for, m)?)?;
    m.add_function(wrap_pyfunction!(_charsets_decode_with, m)?)?;
    m.add_function(wrap_pyfunction!(_charsets_sniff, m)?)?;
    m.add_function(wrap_pyfunction!(_charsets_reading_score, m)?)?;
    m.add_function(wrap_pyfunction!(_charsets_western_score, m)?)?;
    m.add_function(wrap_pyfunction!(_charsets_whatwg, m)?)?;
    Ok(())
}
