//! Python bindings for token keys.

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::sync::Mutex;

use ahash::AHashMap;
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::model::keys;
use crate::model::table::{Spot, Table, TableError};
use crate::text::tokens::raw_message_tokens;

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

/// The distinct tokens of a list in order of first appearance (as
/// collections.Counter gives them): their places in `tokens`, and how often
/// each occurs.  Told apart by their bytes: UTF-8, or for a str holding a
/// lone surrogate Python's surrogatepass encoding, which no UTF-8 equals.
fn distinct_tokens(tokens: &[Bound<'_, PyString>]) -> PyResult<(Vec<usize>, Vec<u64>)> {
    let mut texts: Vec<Cow<'_, [u8]>> = Vec::with_capacity(tokens.len());
    for token in tokens {
        texts.push(match token.to_str() {
            Ok(text) => Cow::Borrowed(text.as_bytes()),
            Err(_) => {
                let encoded = token.call_method1("encode", ("utf-8", "surrogatepass"))?;
                Cow::Owned(encoded.downcast::<PyBytes>()?.as_bytes().to_vec())
            }
        });
    }
    Ok(first_places(texts.iter().map(|text| text.as_ref())))
}

/// Distinct items in order of first appearance: the place of each one's
/// first occurrence, and how often each occurs.
fn first_places<T: std::hash::Hash + Eq>(items: impl ExactSizeIterator<Item = T>) -> (Vec<usize>, Vec<u64>) {
    let mut first: AHashMap<T, usize> = AHashMap::with_capacity(items.len());
    let (mut order, mut counts) = (Vec::new(), Vec::new());
    for (at, item) in items.enumerate() {
        match first.entry(item) {
            Entry::Occupied(seen) => counts[*seen.get()] += 1,
            Entry::Vacant(new) => {
                new.insert(order.len());
                order.push(at);
                counts.push(1);
            }
        }
    }
    (order, counts)
}

/// A model file's scoring sections (keys, weights, block index, block CRCs),
/// looked up where they lie: each a C-contiguous buffer of bytes (a
/// memoryview of the mapped file), held for the table's life.
#[pyclass(module = "spamnb._core", frozen)]
struct KeyTable {
    keys: PyBuffer<u8>,
    weights: PyBuffer<u8>,
    first: PyBuffer<u8>,
    crcs: Option<PyBuffer<u8>>,
    block: usize,
    checked: Mutex<Vec<bool>>,
    known: Mutex<AHashMap<Box<str>, Option<f32>>>,
    places: Mutex<AHashMap<Box<str>, (i64, u64)>>,
}

/// Tokens looked up, remembered: mail repeats its words, so in a bulk run
/// most lookups are one probe of this map instead of a hash and two searches
/// through the mapped file (classify of the spamassassin test part: 90 % of
/// lookups are repeats).  Emptied when full, so hostile mail cannot grow it.
const KNOWN_LIMIT: usize = 1 << 18;

/// A word pair ("free money"; body words hold no ":").  Pairs are mostly
/// met once (spamassassin's test part: 73 % of pair lookups are new, 19 %
/// of words'), so only those the model knows are remembered: fewer
/// allocations and cache misses than remembering every one (callgrind).
fn is_pair(token: &str) -> bool {
    token.contains(' ') && !token.contains(':')
}

fn bytes_of(buffer: &PyBuffer<u8>) -> &[u8] {
    // SAFETY: the buffer is C-contiguous (checked in KeyTable::new) and held
    // by the table, so its memory stays valid and in place while borrowed.
    unsafe { std::slice::from_raw_parts(buffer.buf_ptr() as *const u8, buffer.len_bytes()) }
}

fn contiguous(object: &Bound<'_, PyAny>) -> PyResult<PyBuffer<u8>> {
    let buffer = PyBuffer::<u8>::get(object)?;
    if !buffer.is_c_contiguous() {
        return Err(PyValueError::new_err("a scoring section is not contiguous"));
    }
    Ok(buffer)
}

/// A lookup failure as ValueError(kind, detail): ("corrupt", block) or ("unusable", why).
impl From<TableError> for PyErr {
    fn from(error: TableError) -> Self {
        match error {
            TableError::Corrupt(block) => PyValueError::new_err(("corrupt", block)),
            TableError::Unusable(why) => PyValueError::new_err(("unusable", why)),
        }
    }
}

/// Tokens looked up in `table`, each answered by what `remember(entry, key)`
/// makes of its entry (None: the model never saw it) and its key, and kept
/// in `memory` by its text: mail repeats its words, so the tokens met before
/// are one probe of it.  The others are keyed first, each key's cache lines in
/// the mapped file asked for as it is made, and looked up after: the hashing
/// of the next tokens hides the wait for those reads (a bulk run looks up ~150
/// keys a message, mostly word pairs met once, each a cache miss when read in
/// turn).  Token `i` is `text(i)`, keyed by `key_of(i)`; one with no text (a
/// str holding a lone surrogate, which no &str holds) is looked up, never
/// remembered, and a word pair is remembered only when the model knows it.
fn looked_up<'t, V: Copy + Default, E: From<TableError>>(table: &Table<'_>, checked: &mut [bool], memory: &mut AHashMap<Box<str>, V>,
                                       count: usize, text: impl Fn(usize) -> Option<&'t str>,
                                       mut key_of: impl FnMut(usize) -> Result<u64, E>,
                                       remember: impl Fn(Option<usize>, u64) -> V) -> Result<Vec<V>, E> {
    let mut answers = Vec::with_capacity(count);
    let mut unknown: Vec<(usize, u64, Option<Spot>, Option<&'t str>)> = Vec::new();
    for slot in 0..count {
        let token = text(slot);
        if let Some(answer) = token.and_then(|token| memory.get(token)) {
            answers.push(*answer);
            continue;
        }
        let key = key_of(slot)?;
        let spot = table.spot(key);
        if let Some(spot) = spot {
            table.prefetch(spot);
        }
        unknown.push((slot, key, spot, token));
        answers.push(V::default());
    }
    for (slot, key, spot, token) in unknown {
        let found = match spot {
            Some(spot) => table.index_at(key, spot, checked)?,
            None => None, // before the first block: not in the model
        };
        let answer = remember(found, key);
        if let Some(token) = token.filter(|token| found.is_some() || !is_pair(token)) {
            if memory.len() >= KNOWN_LIMIT {
                memory.clear();
            }
            memory.insert(token.into(), answer);
        }
        answers[slot] = answer;
    }
    Ok(answers)
}

impl KeyTable {
    /// The table over the sections held, which Table::new accepted when the
    /// KeyTable was made (they cannot change since: the buffers are held).
    fn table(&self) -> Table<'_> {
        Table::accepted(bytes_of(&self.keys), bytes_of(&self.weights), bytes_of(&self.first),
                        self.crcs.as_ref().map(bytes_of), self.block)
    }
}

#[pymethods]
impl KeyTable {
    #[new]
    #[pyo3(signature = (keys, weights, block_first, block_crcs, block_size))]
    fn new(keys: &Bound<'_, PyAny>, weights: &Bound<'_, PyAny>, block_first: &Bound<'_, PyAny>,
           block_crcs: Option<&Bound<'_, PyAny>>, block_size: usize) -> PyResult<Self> {
        let table = KeyTable {
            keys: contiguous(keys)?,
            weights: contiguous(weights)?,
            first: contiguous(block_first)?,
            crcs: block_crcs.map(contiguous).transpose()?,
            block: block_size,
            checked: Mutex::new(Vec::new()),
            known: Mutex::new(AHashMap::new()),
            places: Mutex::new(AHashMap::new()),
        };
        let blocks = Table::new(bytes_of(&table.keys), bytes_of(&table.weights), bytes_of(&table.first),
                                table.crcs.as_ref().map(bytes_of), block_size)
            .map_err(PyValueError::new_err)?
            .blocks();
        *table.checked.lock().map_err(|_| PyValueError::new_err("a table lock was poisoned"))? = vec![false; blocks];
        Ok(table)
    }

    fn __len__(&self) -> usize {
        self.table().len()
    }

    /// index(key) -> int: the entry of a token key, or -1 when the model never saw it.
    fn index(&self, key: u64) -> PyResult<i64> {
        let mut checked = self.checked.lock().map_err(|_| PyValueError::new_err("a table lock was poisoned"))?;
        match self.table().index(key, &mut checked) {
            Ok(Some(at)) => Ok(at as i64),
            Ok(None) => Ok(-1),
            Err(error) => Err(error.into()),
        }
    }

    /// bag(tokens) -> (distinct, counts, indexes, keys): a message's tokens,
    /// each distinct one once in order of first appearance (as
    /// collections.Counter gives them), with how often it occurs, its entry
    /// (-1 when the model never saw it) and its key: what scoring a message
    /// by counts (scorer.LiveTable) and `learn` read per token, in one call
    /// instead of a Python step and a lookup call per token.  The tokens met
    /// before are answered from the table's memory of them: a long-lived
    /// process (serve, its learning workers) meets the same words again and
    /// again.
    #[allow(clippy::type_complexity)] // the four parallel lists Python unpacks
    fn bag<'py>(&self, tokens: Vec<Bound<'py, PyString>>)
                -> PyResult<(Vec<Bound<'py, PyString>>, Vec<u64>, Vec<i64>, Vec<u64>)> {
        let (order, counts) = distinct_tokens(&tokens)?;
        let mut checked = self.checked.lock().map_err(|_| PyValueError::new_err("a table lock was poisoned"))?;
        let mut places = self.places.lock().map_err(|_| PyValueError::new_err("a table lock was poisoned"))?;
        let found = looked_up(&self.table(), &mut checked, &mut places, order.len(),
                              |slot| tokens[order[slot]].to_str().ok(), |slot| key_of(&tokens[order[slot]]),
                              |entry, key| (entry.map_or(-1, |at| at as i64), key))?;
        let (indexes, keys) = found.into_iter().unzip();
        let distinct = order.iter().map(|&at| tokens[at].clone()).collect();
        Ok((distinct, counts, indexes, keys))
    }

    /// weighed_bag(tokens) -> (distinct, counts, weights): bag's distinct
    /// tokens and counts, with each token's λ (None when the model never saw
    /// it): a token list scored (explanations, chunks, `evaluate`), the
    /// tokens met before answered from the table's memory of them, as
    /// message_terms answers them.
    #[allow(clippy::type_complexity)] // the three parallel lists Python unpacks
    fn weighed_bag<'py>(&self, tokens: Vec<Bound<'py, PyString>>)
                        -> PyResult<(Vec<Bound<'py, PyString>>, Vec<u64>, Vec<Option<f32>>)> {
        let (order, counts) = distinct_tokens(&tokens)?;
        let table = self.table();
        let mut checked = self.checked.lock().map_err(|_| PyValueError::new_err("a table lock was poisoned"))?;
        let mut known = self.known.lock().map_err(|_| PyValueError::new_err("a table lock was poisoned"))?;
        let weights = looked_up(&table, &mut checked, &mut known, order.len(),
                                |slot| tokens[order[slot]].to_str().ok(), |slot| key_of(&tokens[order[slot]]),
                                |entry, _| entry.map(|at| table.weight(at)))?;
        let distinct = order.iter().map(|&at| tokens[at].clone()).collect();
        Ok((distinct, counts, weights))
    }

    /// message_terms(raw, options, presence) -> (terms, known, distinct): the
    /// whole per-message path in the core.  The message's tokens, each
    /// distinct one once in order of first appearance, looked up; `terms` the
    /// nonzero x_w λ_w of those the model knows (x_w: 1 when `presence`, else
    /// the token's count), `known` how many, `distinct` the distinct tokens.
    fn message_terms(&self, py: Python<'_>, raw: &[u8], options: &Bound<'_, PyAny>, presence: bool)
                     -> PyResult<(Vec<f64>, usize, usize)> {
        let options = crate::py_text::options_of(options)?;
        let found = py.allow_threads(|| -> Result<(Vec<f64>, usize, usize), TableError> {
            let tokens = raw_message_tokens(raw, &options);
            let (places, counts) = first_places(tokens.iter().map(String::as_str));
            let order: Vec<&str> = places.iter().map(|&at| tokens[at].as_str()).collect();
            let table = self.table();
            let poisoned = |_| TableError::Unusable("a table lock was poisoned".into());
            let mut checked = self.checked.lock().map_err(poisoned)?;
            let mut known = self.known.lock().map_err(|_| TableError::Unusable("a table lock was poisoned".into()))?;
            let weights = looked_up(&table, &mut checked, &mut known, order.len(), |slot| Some(order[slot]),
                                    |slot| Ok(keys::token_key(order[slot])),
                                    |entry, _| entry.map(|at| table.weight(at)))?;
            let mut terms = Vec::new();
            for (&count, weight) in counts.iter().zip(weights) {
                if let Some(weight) = weight.filter(|weight| *weight != 0.0) {
                    let times = if presence { 1.0 } else { count as f64 };
                    terms.push(f64::from(weight) * times);
                }
            }
            let known = terms.len();
            Ok((terms, known, order.len()))
        });
        found.map_err(PyErr::from)
    }
}

/// journal_keys_increasing(keys) -> bool: whether a journal record's keys
/// (bytes, u64 little-endian) are strictly increasing (core/src/model/journal.rs).
#[pyfunction]
fn journal_keys_increasing(keys: &Bound<'_, PyAny>) -> PyResult<bool> {
    let keys = contiguous(keys)?;
    Ok(crate::model::journal::strictly_increasing(bytes_of(&keys)))
}

/// journal_sums(records, keys) -> list[list[int] | None]: for each key, its
/// four count changes summed over the journal records (keys, changes) that
/// hold it, each a buffer of the record's little-endian bytes; None where
/// no record does (core/src/model/journal.rs).
#[pyfunction]
fn journal_sums(records: Vec<(Bound<'_, PyAny>, Bound<'_, PyAny>)>, keys: Vec<u64>) -> PyResult<Vec<Option<[i64; 4]>>> {
    let buffers = records.iter().map(|(keys, changes)| Ok((contiguous(keys)?, contiguous(changes)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let slices: Vec<(&[u8], &[u8])> = buffers.iter().map(|(keys, changes)| (bytes_of(keys), bytes_of(changes))).collect();
    crate::model::journal::sums(&slices, &keys)
        .map_err(|_| PyValueError::new_err("a journal record's keys and changes disagree in size"))
}

/// json_nested_deeper_than(text: bytes, limit) -> bool: whether JSON's
/// brackets nest deeper than `limit`, or do not nest at all.
#[pyfunction]
fn json_nested_deeper_than(text: &[u8], limit: usize) -> bool {
    crate::model::meta::nested_deeper_than(text, limit)
}

/// crc32(data, value=0) -> int: zlib.crc32 of a buffer of bytes (bytes, a
/// memoryview of the mapped model), by crc32fast: with the CPU's carry-less
/// multiply, several times faster than the system zlib's tables (checking the
/// 2.5 MB of a spamassassin model's occurrence counts by them is about a
/// tenth of a fresh `learn`'s start).
#[pyfunction]
#[pyo3(signature = (data, value = 0))]
fn crc32(py: Python<'_>, data: &Bound<'_, PyAny>, value: u32) -> PyResult<u32> {
    let buffer = PyBuffer::<u8>::get(data)?;
    if !buffer.is_c_contiguous() {
        return Err(PyValueError::new_err("crc32 needs contiguous bytes"));
    }
    let bytes = bytes_of(&buffer);
    let mut hasher = crc32fast::Hasher::new_with_initial(value);
    if bytes.len() < 1 << 16 {
        hasher.update(bytes);
    } else {
        py.allow_threads(|| hasher.update(bytes));
    }
    Ok(hasher.finalize())
}

/// block_crcs(keys, weights, block_size) -> list[int]: the CRC-32 of each
/// block of a model's keys and weights sections, as KeyTable checks them.
#[pyfunction]
fn block_crcs(py: Python<'_>, keys: &Bound<'_, PyAny>, weights: &Bound<'_, PyAny>, block_size: usize) -> PyResult<Vec<u32>> {
    let keys = PyBuffer::<u8>::get(keys)?;
    let weights = PyBuffer::<u8>::get(weights)?;
    if !keys.is_c_contiguous() || !weights.is_c_contiguous() || block_size == 0 {
        return Err(PyValueError::new_err("block_crcs needs contiguous bytes and a block size"));
    }
    let (keys, weights) = (bytes_of(&keys), bytes_of(&weights));
    Ok(py.allow_threads(|| crate::model::table::block_crcs(keys, weights, block_size)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(crc32, m)?)?;
    m.add_function(wrap_pyfunction!(block_crcs, m)?)?;
    m.add_class::<KeyTable>()?;
    m.add_function(wrap_pyfunction!(json_nested_deeper_than, m)?)?;
    m.add_function(wrap_pyfunction!(journal_keys_increasing, m)?)?;
    m.add_function(wrap_pyfunction!(journal_sums, m)?)?;
    m.add_function(wrap_pyfunction!(token_key, m)?)?;
    m.add_function(wrap_pyfunction!(token_keys, m)?)?;
    Ok(())
}
