//! Python bindings for training's counting (thin: convert, call, convert back).

use std::sync::Mutex;

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::model::counting::{self, TokenCounter};

/// Little-endian bytes of numbers (numpy.frombuffer reads them without a Python step per number).
fn le_bytes<'py, T: Copy, const N: usize>(py: Python<'py>, values: &[T], bytes_of: fn(T) -> [u8; N])
                                           -> Bound<'py, PyBytes> {
    let mut out = Vec::with_capacity(values.len() * N);
    for &value in values {
        out.extend_from_slice(&bytes_of(value));
    }
    PyBytes::new(py, &out)
}

/// A counter of one training run in one worker thread (counting::TokenCounter).
#[pyclass(module = "spamnb._core", name = "TokenCounter", frozen)]
struct PyTokenCounter {
    counter: Mutex<TokenCounter>,
}

#[pymethods]
impl PyTokenCounter {
    #[new]
    fn new() -> Self {
        PyTokenCounter { counter: Mutex::new(TokenCounter::new()) }
    }

    /// count(messages, labels, keep, options) -> (keys, counts, text_keys,
    /// text_lengths, text, messages, kept): a batch decoded, tokenized and
    /// counted with the GIL released.  keys: u64 LE, sorted; counts: u32 LE,
    /// 4 rows (N_ham, N_spam, D_ham, D_spam) of len(keys); the text of the
    /// tokens this counter had not sent (keys u64, lengths u32, UTF-8 with
    /// surrogatepass); messages: (ham, spam); kept: per message kept, its
    /// token keys in token order (u64 LE bytes).
    #[allow(clippy::type_complexity)]
    fn count<'py>(&self, py: Python<'py>, messages: Vec<Bound<'py, PyBytes>>, labels: Vec<u8>, keep: Vec<bool>,
                  options: &Bound<'py, PyAny>)
                  -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>,
                               Bound<'py, PyBytes>, (u64, u64), Bound<'py, PyList>)> {
        if labels.len() != messages.len() || keep.len() != messages.len() {
            return Err(PyValueError::new_err("messages, labels and keep differ in length"));
        }
        let options = crate::py_text::options_of(options)?;
        let batch: Vec<(&[u8], u8, bool)> = messages.iter().zip(labels).zip(keep)
            .map(|((raw, label), keep)| (raw.as_bytes(), label, keep))
            .collect();
        let counted = py.allow_threads(|| {
            let mut counter = self.counter.lock().map_err(|_| "a counter lock was poisoned".to_string())?;
            counter.count_batch(&batch, &options).map_err(|error| error.to_string())
        });
        let out = counted.map_err(PyValueError::new_err)?;
        let kept = PyList::empty(py);
        for keys in &out.kept {
            kept.append(le_bytes(py, keys, u64::to_le_bytes))?;
        }
        Ok((le_bytes(py, &out.keys, u64::to_le_bytes), le_bytes(py, &out.counts, u32::to_le_bytes),
            le_bytes(py, &out.text_keys, u64::to_le_bytes), le_bytes(py, &out.text_lengths, u32::to_le_bytes),
            PyBytes::new(py, &out.text), (out.messages[0], out.messages[1]), kept))
    }
}

/// distinct_keys(keys, sizes) -> (distinct, counts, sizes): for messages given
/// as their u64 keys one after another (`sizes`: each message's number of
/// keys), each message's distinct keys in order of first occurrence and how
/// often each occurs (u64 LE, u32 LE), and how many distinct keys each has
/// (u64 LE).
#[pyfunction]
fn distinct_keys<'py>(py: Python<'py>, keys: PyBuffer<u64>, sizes: PyBuffer<u64>)
                      -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let keys = keys.to_vec(py)?;
    let sizes: Vec<usize> = sizes.to_vec(py)?.into_iter().map(|size| size as usize).collect();
    let (distinct, counts, per_message) = py.allow_threads(|| counting::distinct_keys(&keys, &sizes));
    let per_message: Vec<u64> = per_message.into_iter().map(|size| size as u64).collect();
    Ok((le_bytes(py, &distinct, u64::to_le_bytes), le_bytes(py, &counts, u32::to_le_bytes),
        le_bytes(py, &per_message, u64::to_le_bytes)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTokenCounter>()?;
    m.add_function(wrap_pyfunction!(distinct_keys, m)?)?;
    Ok(())
}
