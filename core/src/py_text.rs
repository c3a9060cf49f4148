//! Python bindings for the tokenizer (thin: convert, call, convert back).
//!
//! Options come from the Python `TokenizerOptions` (headers, stopwords,
//! bigrams, fold_variants: what a model stores); a budget from any object
//! with `han`, `expansions` and a list `spilled` (the Python `Budget`).

use ahash::AHashSet as HashSet;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFrozenSet, PyList, PyString, PyTuple};

use crate::mail::message::DecodedMessage;
use crate::surrogates::{from_surrogatepass, surrogatepass_bytes};
use crate::text::normalise as norm;
use crate::text::tokens::{self, Budget, HanText, TokenizerOptions};

thread_local! {
    /// Whether the text read since the binding call began held surrogates:
    /// only then are stand-ins turned back into them, so a real U+10F800..
    /// character of text without surrogates comes back as it was.
    static SAW_SURROGATES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Begin a binding call: no surrogates read yet.
fn begin() {
    SAW_SURROGATES.with(|saw| saw.set(false));
}

/// A Python str as Rust text; its lone surrogates (surrogate escapes of
/// 8-bit bytes) carried by their stand-ins (crate::surrogates).
pub(crate) fn text_of(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let string = value.downcast::<PyString>()?;
    match string.to_str() {
        Ok(text) => Ok(text.to_string()),
        Err(_) => {
            SAW_SURROGATES.with(|saw| saw.set(true));
            let encoded = string.call_method1("encode", ("utf-8", "surrogatepass"))?;
            Ok(from_surrogatepass(encoded.downcast::<PyBytes>()?.as_bytes()))
        }
    }
}

/// Rust text as a Python str, stand-ins turned back into surrogates.
pub(crate) fn py_text<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    if !SAW_SURROGATES.with(|saw| saw.get()) {
        return Ok(PyString::new(py, text).into_any());
    }
    py_text_of_stand_ins(py, text)
}

/// Rust text as a Python str, every stand-in turned back into its surrogate
/// (text the core made from raw bytes, such as a decoded address).
pub(crate) fn py_text_of_stand_ins<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    match surrogatepass_bytes(text) {
        std::borrow::Cow::Borrowed(_) => Ok(PyString::new(py, text).into_any()),
        std::borrow::Cow::Owned(bytes) => PyBytes::new(py, &bytes).call_method1("decode", ("utf-8", "surrogatepass")),
    }
}

/// Tokens as a Python list of str.
pub(crate) fn py_tokens<'py>(py: Python<'py>, tokens: Vec<String>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for token in tokens {
        list.append(py_text(py, &token)?)?;
    }
    Ok(list)
}

fn texts_of(value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    value.try_iter()?.map(|item| text_of(&item?)).collect()
}

fn pairs_of(value: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    value
        .try_iter()?
        .map(|item| {
            let item = item?;
            Ok((text_of(&item.get_item(0)?)?, text_of(&item.get_item(1)?)?))
        })
        .collect()
}

/// The last options converted, by identity: a frozen TokenizerOptions whose
/// headers are a tuple and stop words a frozenset never changes, and is
/// kept alive here, so its identity names its value.
static OPTIONS_CACHE: Mutex<Option<(Py<PyAny>, Arc<TokenizerOptions>)>> = Mutex::new(None);

/// The Rust options of a Python `TokenizerOptions` (or anything with its four attributes).
pub(crate) fn options_of(options: &Bound<'_, PyAny>) -> PyResult<Arc<TokenizerOptions>> {
    if let Ok(cache) = OPTIONS_CACHE.lock() {
        if let Some((object, converted)) = cache.as_ref() {
            if object.bind(options.py()).is(options) {
                return Ok(converted.clone());
            }
        }
    }
    let headers_object = options.getattr("headers")?;
    let stopwords_object = options.getattr("stopwords")?;
    let mut stopwords = HashSet::new();
    for word in stopwords_object.try_iter()? {
        stopwords.insert(text_of(&word?)?);
    }
    let converted = Arc::new(TokenizerOptions {
        headers: texts_of(&headers_object)?,
        stopwords,
        bigrams: options.getattr("bigrams")?.is_truthy()?,
        fold_variants: options.getattr("fold_variants")?.is_truthy()?,
    });
    let immutable = headers_object.is_instance_of::<PyTuple>() && stopwords_object.is_instance_of::<PyFrozenSet>();
    let frozen = options.getattr("_frozen").and_then(|f| f.is_truthy()).unwrap_or(false);
    if immutable && frozen {
        if let Ok(mut cache) = OPTIONS_CACHE.lock() {
            *cache = Some((options.clone().unbind(), converted.clone()));
        }
    }
    Ok(converted)
}

/// The Rust message of a Python `DecodedMessage` (its attributes).
pub(crate) fn message_of(message: &Bound<'_, PyAny>) -> PyResult<DecodedMessage> {
    let addresses_object = message.getattr("addresses")?;
    let addresses_dict = addresses_object
        .downcast::<PyDict>()
        .map_err(|_| PyTypeError::new_err("DecodedMessage.addresses must be a dict"))?;
    let mut addresses = Vec::with_capacity(addresses_dict.len());
    for (name, list) in addresses_dict.iter() {
        addresses.push((text_of(&name)?, pairs_of(&list)?));
    }
    Ok(DecodedMessage {
        headers: pairs_of(&message.getattr("headers")?)?,
        addresses,
        texts: texts_of(&message.getattr("texts")?)?,
        urls: texts_of(&message.getattr("urls")?)?,
        attachments: pairs_of(&message.getattr("attachments")?)?,
        parse_failed: message.getattr("parse_failed")?.is_truthy()?,
        cut: match message.getattr("cut") {
            Ok(cut) => texts_of(&cut)?,
            Err(_) => Vec::new(),
        },
    })
}

/// A Python budget's state as a Rust Budget (its spilled list left where it is).
fn budget_of(budget: &Bound<'_, PyAny>) -> PyResult<Budget> {
    Ok(Budget {
        han: budget.getattr("han")?.extract()?,
        expansions: budget.getattr("expansions")?.extract()?,
        spilled: Vec::new(),
    })
}

/// Write a Rust budget's state back to the Python one (spilled characters appended).
fn budget_back(budget: &Bound<'_, PyAny>, state: Budget) -> PyResult<()> {
    budget.setattr("han", state.han)?;
    budget.setattr("expansions", state.expansions)?;
    let spilled = budget.getattr("spilled")?;
    let list = spilled.downcast::<PyList>()?;
    for char in state.spilled {
        list.append(py_text(budget.py(), &char)?)?;
    }
    Ok(())
}

fn with_budget<T>(budget: Option<&Bound<'_, PyAny>>, work: impl FnOnce(Option<&mut Budget>) -> T) -> PyResult<T> {
    match budget {
        None => Ok(work(None)),
        Some(object) if object.is_none() => Ok(work(None)),
        Some(object) => {
            let mut state = budget_of(object)?;
            let out = work(Some(&mut state));
            budget_back(object, state)?;
            Ok(out)
        }
    }
}

/// text_tokens(text, options, budget=None): tokens of free text.
#[pyfunction]
#[pyo3(signature = (text, options, budget=None))]
fn text_tokens<'py>(py: Python<'py>, text: &Bound<'py, PyAny>, options: &Bound<'py, PyAny>,
                    budget: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyList>> {
    begin();
    let text = text_of(text)?;
    let options = options_of(options)?;
    py_tokens(py, with_budget(budget, |budget| py.allow_threads(|| tokens::text_tokens(&text, &options, budget)))?)
}

/// normalise(text, budget=None): NFKC and case folding, bounded by the budget's expansions.
#[pyfunction]
#[pyo3(signature = (text, budget=None))]
fn normalise<'py>(text: &Bound<'py, PyAny>, budget: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
    begin();
    let py = text.py();
    let text = text_of(text)?;
    match budget.filter(|b| !b.is_none()) {
        None => py_text(py, &norm::normalise(&text, None)),
        Some(object) => {
            let mut left: i64 = object.getattr("expansions")?.extract()?;
            let out = norm::normalise(&text, Some(&mut left));
            object.setattr("expansions", left)?;
            py_text(py, &out)
        }
    }
}

#[pyfunction]
fn url_tokens<'py>(url: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    begin();
    py_tokens(url.py(), tokens::url_tokens(&text_of(url)?))
}

#[pyfunction]
fn url_host<'py>(url: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    begin();
    tokens::url_host(&text_of(url)?).map(|host| py_text(url.py(), &host)).transpose()
}

#[pyfunction]
fn registered_domain<'py>(host: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    begin();
    py_text(host.py(), &tokens::registered_domain(&text_of(host)?))
}

#[pyfunction]
fn token_part(token: &Bound<'_, PyAny>) -> PyResult<&'static str> {
    begin();
    Ok(tokens::token_part(&text_of(token)?))
}

/// message_tokens(message, options): all tokens of a Python DecodedMessage.
#[pyfunction]
fn message_tokens<'py>(py: Python<'py>, message: &Bound<'py, PyAny>, options: &Bound<'py, PyAny>)
                      -> PyResult<Bound<'py, PyList>> {
    begin();
    let message = message_of(message)?;
    let options = options_of(options)?;
    py_tokens(py, py.allow_threads(|| tokens::message_tokens(&message, &options)))
}

/// tokenize(raw: bytes, options) -> list[str]: all tokens of a raw message
/// (decode and tokenize in the core; the GIL is released meanwhile).  Raw
/// 8-bit bytes of an address come back as the surrogate escapes they always
/// were in tokens.
#[pyfunction]
fn tokenize<'py>(py: Python<'py>, raw: &[u8], options: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    begin();
    let options = options_of(options)?;
    let found = py.allow_threads(|| tokens::raw_message_tokens(raw, &options));
    SAW_SURROGATES.with(|saw| saw.set(true));
    py_tokens(py, found)
}

/// Han handling by two Python callables: for comparing the tokenizer with
/// the Python one before the Rust segmentation is compared on its own.  Test
/// helpers only: the real path never calls back into Python.
struct PythonHan<'py> {
    fold: Bound<'py, PyAny>,
    segment: Bound<'py, PyAny>,
}

impl HanText for PythonHan<'_> {
    fn fold_variants(&self, run: &str) -> String {
        py_text(self.fold.py(), run)
            .and_then(|run| self.fold.call1((run,)))
            .and_then(|out| text_of(&out))
            .unwrap_or_else(|_| run.to_string())
    }
    fn segment(&self, run: &str) -> Vec<String> {
        py_text(self.segment.py(), run)
            .and_then(|run| self.segment.call1((run,)))
            .and_then(|out| texts_of(&out))
            .unwrap_or_default()
    }
}

/// Test helper: text_tokens with Han runs folded and segmented by Python callables.
#[pyfunction]
#[pyo3(signature = (text, options, fold, segment, budget=None))]
fn _text_tokens_python_han<'py>(text: &Bound<'py, PyAny>, options: &Bound<'py, PyAny>, fold: &Bound<'py, PyAny>,
                                segment: &Bound<'py, PyAny>, budget: Option<&Bound<'py, PyAny>>)
                                -> PyResult<Bound<'py, PyList>> {
    begin();
    let text = text_of(text)?;
    let options = options_of(options)?;
    let han = PythonHan { fold: fold.clone(), segment: segment.clone() };
    py_tokens(fold.py(), with_budget(budget, |budget| tokens::text_tokens_with(&text, &options, budget, &han))?)
}

/// Test helper: message_tokens with Han runs folded and segmented by Python callables.
#[pyfunction]
fn _message_tokens_python_han<'py>(message: &Bound<'py, PyAny>, options: &Bound<'py, PyAny>,
                                   fold: &Bound<'py, PyAny>, segment: &Bound<'py, PyAny>)
                                   -> PyResult<Bound<'py, PyList>> {
    begin();
    let message = message_of(message)?;
    let options = options_of(options)?;
    let han = PythonHan { fold: fold.clone(), segment: segment.clone() };
    py_tokens(fold.py(), tokens::message_tokens_with(&message, &options, &han))
}

/// Test helper: Python's `_latin_findall` (words, links and addresses of text with no Han character).
#[pyfunction]
fn _latin_findall<'py>(text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    begin();
    py_tokens(text.py(), tokens::latin_findall(&text_of(text)?))
}

/// builtin_stopwords(): the English and Chinese lists shipped with spamnb
/// (spamnb/data/stopwords_*.txt, compiled in), as a frozenset.
/// parse_headers(spec) -> tuple[str, ...]: the header patterns of a
/// --headers spec (`content`, `all`, `none` or a comma list).
#[pyfunction]
fn parse_headers<'py>(py: Python<'py>, spec: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    begin();
    let names = TokenizerOptions::parse_headers(&text_of(spec)?);
    PyTuple::new(py, names.iter().map(|name| py_text(py, name)).collect::<PyResult<Vec<_>>>()?)
}

/// wants_header(headers, name) -> bool: whether a field (its lower-case
/// name) is tokenized under the header patterns `headers`.
#[pyfunction]
fn wants_header(headers: &Bound<'_, PyAny>, name: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(tokens::wants_header(&texts_of(headers)?, &text_of(name)?))
}

/// The presets as a dict of tuples, and the defaults of the options a model
/// stores (stop words apart: builtin_stopwords), keyed by field name.
fn presets_and_defaults<'py>(py: Python<'py>) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let presets = PyDict::new(py);
    for (name, fields) in tokens::HEADER_PRESETS {
        presets.set_item(name, PyTuple::new(py, fields)?)?;
    }
    let defaults = PyDict::new(py);
    defaults.set_item("headers", presets.get_item(tokens::DEFAULT_HEADERS)?)?;
    defaults.set_item("bigrams", tokens::DEFAULT_BIGRAMS)?;
    defaults.set_item("fold_variants", tokens::DEFAULT_FOLD_VARIANTS)?;
    Ok((presets, defaults))
}

#[pyfunction]
fn builtin_stopwords(py: Python<'_>) -> PyResult<Bound<'_, PyFrozenSet>> {
    let words: Vec<String> = crate::text::stopwords::builtin().into_iter().collect();
    PyFrozenSet::new(py, &words)
}

/// parse_stopwords(text) -> frozenset[str]: a stop-word list's words (one a
/// line, `#` starts a comment, case-folded), as the built-in lists are read.
#[pyfunction]
fn parse_stopwords<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyFrozenSet>> {
    let words: Vec<String> = crate::text::stopwords::parse(text).into_iter().collect();
    PyFrozenSet::new(py, &words)
}

/// Test helper: the runs of Han characters text_tokens hands to segment (before folding).
#[pyfunction]
fn _han_runs<'py>(py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    begin();
    let text = text_of(text)?;
    let runs = tokens::han_split(&text).into_iter().skip(1).step_by(2).filter(|run| !run.is_empty());
    py_tokens(py, runs.map(String::from).collect())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(text_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(normalise, m)?)?;
    m.add_function(wrap_pyfunction!(url_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(url_host, m)?)?;
    m.add_function(wrap_pyfunction!(registered_domain, m)?)?;
    m.add_function(wrap_pyfunction!(token_part, m)?)?;
    m.add_function(wrap_pyfunction!(message_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(parse_stopwords, m)?)?;
    m.add_function(wrap_pyfunction!(_text_tokens_python_han, m)?)?;
    m.add_function(wrap_pyfunction!(_message_tokens_python_han, m)?)?;
    m.add_function(wrap_pyfunction!(_latin_findall, m)?)?;
    m.add_function(wrap_pyfunction!(_han_runs, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_stopwords, m)?)?;
    m.add_function(wrap_pyfunction!(parse_headers, m)?)?;
    m.add_function(wrap_pyfunction!(wants_header, m)?)?;
    let (presets, defaults) = presets_and_defaults(m.py())?;
    m.add("HEADER_PRESETS", presets)?;
    m.add("TOKENIZER_DEFAULTS", defaults)?;
    m.add("TOKENIZER_VERSION", tokens::TOKENIZER_VERSION)?;
    m.add("MAX_SEGMENTED_CHARS", tokens::MAX_SEGMENTED_CHARS)?;
    m.add("MAX_EXPANDERS", tokens::MAX_EXPANDERS)?;
    m.add("PYTHON_UNICODE_VERSION", norm::pyunicode::UNICODE_VERSION)?;
    Ok(())
}
