//! Python bindings for this stage (thin: convert, call, convert back).
//!
//! Names and argument shapes are those of spamnb.mail.mime, .addresses,
//! .message and .digest.  Differences a caller sees: `parse` returns a list
//! (not an iterator) of ("part", fields, content type, body) and
//! ("attached", fields) tuples; `decode_message` returns the fields of a
//! DecodedMessage as a tuple (headers, addresses, texts, urls, attachments,
//! parse_failed, cut), addresses as a dict.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use crate::mail::{addresses, digest, message, mime, status};

type Fields = Vec<(String, Vec<u8>)>;

fn fields_to_py<'py>(py: Python<'py>, fields: &Fields) -> PyResult<Bound<'py, PyList>> {
    let items: Vec<Bound<'py, PyTuple>> = fields
        .iter()
        .map(|(name, value)| PyTuple::new(py, [name.into_pyobject(py)?.into_any(), PyBytes::new(py, value).into_any()]))
        .collect::<PyResult<_>>()?;
    PyList::new(py, items)
}

/// Text with surrogate escapes (code points) as a Python str.
fn units_to_py<'py>(py: Python<'py>, units: &[u32]) -> PyResult<Bound<'py, PyAny>> {
    if let Some(s) = units.iter().map(|&u| char::from_u32(u)).collect::<Option<String>>() {
        return Ok(PyString::new(py, &s).into_any());
    }
    let raw: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
    PyBytes::new(py, &raw).call_method1("decode", ("utf-32-le", "surrogatepass"))
}

/// A Python str (surrogates included) as code points.
fn py_to_units(value: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    let raw = value.call_method1("encode", ("utf-32-le", "surrogatepass"))?;
    let raw: Vec<u8> = raw.extract()?;
    Ok(raw.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// bytes as they are; a str as UTF-8 with its surrogate escapes back to bytes.
fn bytes_or_str(value: &Bound<'_, PyAny>) -> PyResult<(Vec<u8>, bool)> {
    if let Ok(b) = value.downcast::<PyBytes>() {
        return Ok((b.as_bytes().to_vec(), false));
    }
    if value.is_instance_of::<PyString>() {
        let raw = value.call_method1("encode", ("utf-8", "surrogateescape"))?;
        return Ok((raw.extract()?, true));
    }
    Err(PyTypeError::new_err("expected bytes or str"))
}

#[pyfunction]
fn read_headers<'py>(py: Python<'py>, data: &[u8], start: usize, end: usize)
                     -> PyResult<(Bound<'py, PyList>, usize, Bound<'py, PyBytes>)> {
    let (fields, body, pushback) = mime::read_headers(data, start, end);
    Ok((fields_to_py(py, &fields)?, body, PyBytes::new(py, &pushback)))
}

#[pyfunction]
fn field<'py>(py: Python<'py>, fields: Fields, name: &str) -> Option<Bound<'py, PyBytes>> {
    mime::field(&fields, name).map(|v| PyBytes::new(py, v))
}

#[pyfunction]
#[pyo3(signature = (fields, default = "text/plain"))]
fn content_type(fields: Fields, default: &str) -> String {
    mime::content_type(&fields, default)
}

#[pyfunction]
fn charset(fields: Fields) -> Option<String> {
    mime::charset(&fields)
}

#[pyfunction]
fn filename(fields: Fields) -> String {
    mime::filename(&fields)
}

#[pyfunction]
#[pyo3(signature = (value))]
fn params<'py>(py: Python<'py>, value: Option<Vec<u8>>) -> PyResult<Bound<'py, PyList>> {
    let items: Vec<Bound<'py, PyTuple>> = mime::params(value.as_deref())
        .into_iter()
        .map(|(key, value)| -> PyResult<Bound<'py, PyTuple>> {
            let value: Bound<'py, PyAny> = match value {
                mime::ParamValue::Text(t) => t.into_pyobject(py)?.into_any(),
                mime::ParamValue::Encoded(c, l, t) => (c, l, t).into_pyobject(py)?.into_any(),
            };
            PyTuple::new(py, [key.into_pyobject(py)?.into_any(), value])
        })
        .collect::<PyResult<_>>()?;
    PyList::new(py, items)
}

#[pyfunction]
#[pyo3(signature = (value))]
fn params_cut(value: Option<Vec<u8>>) -> bool {
    mime::params_cut(value.as_deref())
}

#[pyfunction]
fn transfer_decode<'py>(py: Python<'py>, body: &[u8], fields: Fields) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &mime::transfer_decode(body, &fields))
}

/// (fields, [("part", fields, content type, body) | ("attached", fields)]).
#[pyfunction]
fn parse<'py>(py: Python<'py>, data: &[u8], max_parts: usize, max_depth: usize)
              -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>)> {
    let (fields, entities) = py.allow_threads(|| mime::parse(data, max_parts, max_depth));
    let out: Vec<Bound<'py, PyTuple>> = entities
        .iter()
        .map(|entity| match entity {
            mime::Entity::Part { fields, content_type, body } => PyTuple::new(py, [
                "part".into_pyobject(py)?.into_any(),
                fields_to_py(py, fields)?.into_any(),
                content_type.into_pyobject(py)?.into_any(),
                PyBytes::new(py, body).into_any(),
            ]),
            mime::Entity::Attached(fields) => {
                PyTuple::new(py, ["attached".into_pyobject(py)?.into_any(), fields_to_py(py, fields)?.into_any()])
            }
        })
        .collect::<PyResult<_>>()?;
    Ok((fields_to_py(py, &fields)?, PyList::new(py, out)?))
}

#[pyfunction]
fn decode_header_value(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let (data, was_str) = bytes_or_str(value)?;
    if was_str {
        if let Ok(s) = std::str::from_utf8(&data) {
            return Ok(message::decode_header_str(s));
        }
    }
    Ok(message::decode_header_value(&data))
}

#[pyfunction]
#[pyo3(signature = (value, limit = None))]
fn decode_addresses<'py>(py: Python<'py>, value: &Bound<'py, PyAny>, limit: Option<usize>)
                         -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
    let (data, _) = bytes_or_str(value)?;
    message::decode_addresses_raw(&data, limit)
        .into_iter()
        .map(|(name, address)| Ok((name, units_to_py(py, &address)?)))
        .collect()
}

#[pyfunction]
#[pyo3(signature = (value, limit = None))]
fn parse_addresses<'py>(py: Python<'py>, value: &Bound<'py, PyAny>, limit: Option<usize>)
                        -> PyResult<Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>> {
    let units = py_to_units(value)?;
    addresses::parse_addresses(&units, limit)
        .into_iter()
        .map(|(name, address)| Ok((units_to_py(py, &name)?, units_to_py(py, &address)?)))
        .collect()
}

#[pyfunction]
fn visible(text: &str) -> String {
    message::visible(text)
}

/// (headers, addresses, texts, urls, attachments, parse_failed, cut): the
/// fields of spamnb.mail.message.DecodedMessage.
#[pyfunction]
#[pyo3(signature = (raw, wanted_header = None))]
fn decode_message<'py>(py: Python<'py>, raw: &[u8], wanted_header: Option<Bound<'py, PyAny>>)
                       -> PyResult<Bound<'py, PyTuple>> {
    let decoded = match &wanted_header {
        None => message::decode_message(raw, &|_| true),
        Some(wanted) => {
            // A Python callable is asked once per field; an exception from it
            // is raised after decoding (as the Python would raise it).
            let error: std::cell::RefCell<Option<PyErr>> = std::cell::RefCell::new(None);
            let ask = |name: &str| -> bool {
                if error.borrow().is_some() {
                    return false;
                }
                match wanted.call1((name,)).and_then(|r| r.is_truthy()) {
                    Ok(yes) => yes,
                    Err(e) => {
                        *error.borrow_mut() = Some(e);
                        false
                    }
                }
            };
            let decoded = message::decode_message(raw, &ask);
            if let Some(e) = error.into_inner() {
                return Err(e);
            }
            decoded
        }
    };
    let addresses = PyDict::new(py);
    for (name, list) in &decoded.addresses {
        let pairs = PyList::empty(py);
        for (display, address) in list {
            pairs.append((display, crate::py_text::py_text_of_stand_ins(py, address)?))?;
        }
        addresses.set_item(name, pairs)?;
    }
    PyTuple::new(py, [
        decoded.headers.into_pyobject(py)?.into_any(),
        addresses.into_any(),
        decoded.texts.into_pyobject(py)?.into_any(),
        decoded.urls.into_pyobject(py)?.into_any(),
        decoded.attachments.into_pyobject(py)?.into_any(),
        decoded.parse_failed.into_pyobject(py)?.to_owned().into_any(),
        decoded.cut.into_pyobject(py)?.into_any(),
    ])
}

/// is_mbox_from_line(line: bytes) -> bool: whether `line` starts with an mbox separator.
#[pyfunction]
fn is_mbox_from_line(line: &[u8]) -> bool {
    crate::mail::mbox::is_from_line(line)
}

#[pyfunction]
fn message_digest(raw: &[u8]) -> u64 {
    digest::message_digest(raw)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(read_headers, m)?)?;
    m.add_function(wrap_pyfunction!(field, m)?)?;
    m.add_function(wrap_pyfunction!(content_type, m)?)?;
    m.add_function(wrap_pyfunction!(charset, m)?)?;
    m.add_function(wrap_pyfunction!(filename, m)?)?;
    m.add_function(wrap_pyfunction!(params, m)?)?;
    m.add_function(wrap_pyfunction!(params_cut, m)?)?;
    m.add_function(wrap_pyfunction!(transfer_decode, m)?)?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(decode_header_value, m)?)?;
    m.add_function(wrap_pyfunction!(decode_addresses, m)?)?;
    m.add_function(wrap_pyfunction!(parse_addresses, m)?)?;
    m.add_function(wrap_pyfunction!(visible, m)?)?;
    m.add_function(wrap_pyfunction!(decode_message, m)?)?;
    m.add_function(wrap_pyfunction!(message_digest, m)?)?;
    m.add_function(wrap_pyfunction!(is_mbox_from_line, m)?)?;
    // The bounds and names the Python side and the tests read.
    m.add("MAX_PARTS", message::MAX_PARTS)?;
    m.add("MAX_DEPTH", message::MAX_DEPTH)?;
    m.add("MAX_TEXT_CHARS", message::MAX_TEXT_CHARS)?;
    m.add("MAX_HEADER_BYTES", message::MAX_HEADER_BYTES)?;
    m.add("MAX_ADDRESSES", message::MAX_ADDRESSES)?;
    m.add("ADDRESS_FIELDS", message::ADDRESS_FIELDS.to_vec())?;
    m.add("MAX_FIELDS", mime::MAX_FIELDS)?;
    m.add("MAX_PARAMS", mime::MAX_PARAMS)?;
    m.add("CUT_FIELD", mime::CUT_FIELD)?;
    m.add("STATUS_HEADER", status::STATUS_HEADER)?;
    m.add("OWN_STATUS_FIELDS", PyTuple::new(m.py(), status::OWN_STATUS_FIELDS)?)?;
    Ok(())
}
