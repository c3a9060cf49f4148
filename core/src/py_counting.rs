//! Python bindings for training's counting (thin: convert, call, convert back).

use std::sync::Mutex;

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::model::counting::{self, TokenCounter};
use crate::model::runs::{self, MergeError};

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

/// The bytes a buffer spans (to refuse outputs that overlap another array).
trait Span {
    fn span(&self) -> std::ops::Range<usize>;
}

impl<T: pyo3::buffer::Element> Span for PyBuffer<T> {
    fn span(&self) -> std::ops::Range<usize> {
        let start = self.buf_ptr() as usize;
        start..start + self.len_bytes()
    }
}

/// A C-contiguous buffer's elements, to read.
fn elements<T: pyo3::buffer::Element>(buffer: &PyBuffer<T>) -> PyResult<&[T]> {
    if !buffer.is_c_contiguous() {
        return Err(PyValueError::new_err("an array is not contiguous"));
    }
    // SAFETY: contiguous, of T (PyBuffer<T> checked the format), and held
    // by the caller while the slice is borrowed.
    Ok(unsafe { std::slice::from_raw_parts(buffer.buf_ptr() as *const T, buffer.item_count()) })
}

/// A C-contiguous, writable buffer's elements, to write.
fn elements_mut<T: pyo3::buffer::Element>(buffer: &mut PyBuffer<T>) -> PyResult<&mut [T]> {
    if !buffer.is_c_contiguous() || buffer.readonly() {
        return Err(PyValueError::new_err("an output array is not contiguous and writable"));
    }
    // SAFETY: as in `elements`; writable, and borrowed mutably once (the
    // caller checks that no other array it reads or writes overlaps it).
    Ok(unsafe { std::slice::from_raw_parts_mut(buffer.buf_ptr() as *mut T, buffer.item_count()) })
}

/// distinct_keys(keys, sizes, distinct, counts, per_message) -> int: for
/// messages given as their u64 keys one after another (`sizes`: each
/// message's number of keys), each message's distinct keys in order of
/// first occurrence and how often each occurs, written to the front of the
/// arrays `distinct` (u64) and `counts` (u32), and each message's number of
/// distinct keys to `per_message` (u64); returns how many were written.
/// numpy arrays in and out: no copy of the sample's millions of keys.
#[pyfunction]
fn distinct_keys(py: Python<'_>, keys: PyBuffer<u64>, sizes: PyBuffer<u64>, mut distinct: PyBuffer<u64>,
                 mut counts: PyBuffer<u32>, mut per_message: PyBuffer<u64>) -> PyResult<usize> {
    let spans = [&keys as &dyn Span, &sizes, &distinct, &counts, &per_message].map(|b| b.span());
    for (i, a) in spans.iter().enumerate() {
        if spans[i + 1..].iter().any(|b| overlap(a, b)) {
            return Err(PyValueError::new_err("distinct_keys: two of its arrays share memory"));
        }
    }
    let (keys, sizes) = (elements(&keys)?, elements(&sizes)?);
    let (distinct, counts, per_message) = (elements_mut(&mut distinct)?, elements_mut(&mut counts)?,
                                           elements_mut(&mut per_message)?);
    Ok(py.allow_threads(|| counting::distinct_keys(keys, sizes, distinct, counts, per_message)))
}

/// key_positions(sorted, needles, out): numpy.searchsorted(sorted, needles)
/// (side "left") of u64 keys, written to `out` (u64), by interpolation
/// (core/src/model/positions.rs).
#[pyfunction]
fn key_positions(py: Python<'_>, sorted: PyBuffer<u64>, needles: PyBuffer<u64>, mut out: PyBuffer<u64>)
                 -> PyResult<()> {
    let spans = [&sorted as &dyn Span, &needles, &out].map(|b| b.span());
    if overlap(&spans[2], &spans[0]) || overlap(&spans[2], &spans[1]) {
        return Err(PyValueError::new_err("key_positions: its output shares memory with an input"));
    }
    let (sorted, needles, out) = (elements(&sorted)?, elements(&needles)?, elements_mut(&mut out)?);
    py.allow_threads(|| crate::model::positions::positions(sorted, needles, out));
    Ok(())
}

/// sorted_position(sorted, key) -> int: bisect.bisect_left(sorted, key) in
/// a sorted u64 array (a learn finds a message's digest among the model's
/// without importing bisect for one search).
#[pyfunction]
fn sorted_position(sorted: PyBuffer<u64>, key: u64) -> PyResult<usize> {
    Ok(elements(&sorted)?.partition_point(|&known| known < key))
}

fn overlap(a: &std::ops::Range<usize>, b: &std::ops::Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// Refuses output buffers that overlap each other or an input.
fn check_apart(inputs: &[&dyn Span], outputs: &[&dyn Span]) -> PyResult<()> {
    let outs: Vec<_> = outputs.iter().map(|b| b.span()).collect();
    for (i, out) in outs.iter().enumerate() {
        if outs[i + 1..].iter().any(|other| overlap(out, other)) || inputs.iter().any(|b| overlap(out, &b.span())) {
            return Err(PyValueError::new_err("an output array shares memory with another array"));
        }
    }
    Ok(())
}

fn merge_error(error: MergeError) -> PyResult<Option<usize>> {
    match error {
        MergeError::NotSorted => Ok(None),
        MergeError::NoRoom => Err(PyValueError::new_err("an output array is too short")),
        // countruns.sum_counts's words, u32::MAX as Python's f"{:,}" writes it.
        MergeError::Overflow => Err(PyValueError::new_err("a count past 4,294,967,295: out of range for the model format")),
        MergeError::Collision => Err(PyValueError::new_err("two tokens share a 64-bit key")),
    }
}

/// merge_counts(keys, counts, out_keys, out_counts) -> int | None: count runs
/// (lists of u64 key arrays, sorted and unique, and of C-contiguous u32
/// (4, n) count arrays) summed per key, merged k ways: keys to out_keys,
/// counts entry after entry (4 a key) to out_counts; how many keys were
/// written, or None when a run is not sorted (the caller sums it otherwise).
#[pyfunction]
fn merge_counts(py: Python<'_>, keys: Vec<PyBuffer<u64>>, counts: Vec<PyBuffer<u32>>, mut out_keys: PyBuffer<u64>,
                mut out_counts: PyBuffer<u32>) -> PyResult<Option<usize>> {
    if keys.len() != counts.len() {
        return Err(PyValueError::new_err("merge_counts: as many key arrays as count arrays"));
    }
    let inputs: Vec<&dyn Span> = keys.iter().map(|b| b as &dyn Span).chain(counts.iter().map(|b| b as &dyn Span)).collect();
    check_apart(&inputs, &[&out_keys, &out_counts])?;
    let mut runs = Vec::with_capacity(keys.len());
    for (k, c) in keys.iter().zip(&counts) {
        runs.push((elements(k)?, elements(c)?));
    }
    let (out_keys, out_counts) = (elements_mut(&mut out_keys)?, elements_mut(&mut out_counts)?);
    match py.allow_threads(|| runs::merge_counts(&runs, out_keys, out_counts)) {
        Ok(written) => Ok(Some(written)),
        Err(error) => merge_error(error),
    }
}

/// merge_text(keys, lengths, texts, out_keys, out_lengths, out_text) ->
/// (int, int) | None: text runs (lists of u64 key arrays, sorted and unique,
/// u32 length arrays and u8 text arrays) merged with one text per key, the
/// first run's; (keys written, text bytes written), or None when a run is
/// not sorted.  ValueError when two different texts share a key.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn merge_text(py: Python<'_>, keys: Vec<PyBuffer<u64>>, lengths: Vec<PyBuffer<u32>>, texts: Vec<PyBuffer<u8>>,
              mut out_keys: PyBuffer<u64>, mut out_lengths: PyBuffer<u32>, mut out_text: PyBuffer<u8>)
              -> PyResult<Option<(usize, usize)>> {
    if keys.len() != lengths.len() || keys.len() != texts.len() {
        return Err(PyValueError::new_err("merge_text: as many key, length and text arrays"));
    }
    let inputs: Vec<&dyn Span> = keys.iter().map(|b| b as &dyn Span).chain(lengths.iter().map(|b| b as &dyn Span))
        .chain(texts.iter().map(|b| b as &dyn Span)).collect();
    check_apart(&inputs, &[&out_keys, &out_lengths, &out_text])?;
    let mut runs = Vec::with_capacity(keys.len());
    for ((k, l), t) in keys.iter().zip(&lengths).zip(&texts) {
        runs.push((elements(k)?, elements(l)?, elements(t)?));
    }
    let (out_keys, out_lengths, out_text) = (elements_mut(&mut out_keys)?, elements_mut(&mut out_lengths)?,
                                             elements_mut(&mut out_text)?);
    match py.allow_threads(|| runs::merge_text(&runs, out_keys, out_lengths, out_text)) {
        Ok(written) => Ok(Some(written)),
        Err(error) => merge_error(error).map(|_| None),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTokenCounter>()?;
    m.add_function(wrap_pyfunction!(distinct_keys, m)?)?;
    m.add_function(wrap_pyfunction!(key_positions, m)?)?;
    m.add_function(wrap_pyfunction!(sorted_position, m)?)?;
    m.add_function(wrap_pyfunction!(merge_counts, m)?)?;
    m.add_function(wrap_pyfunction!(merge_text, m)?)?;
    Ok(())
}
