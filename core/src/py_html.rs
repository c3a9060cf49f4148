//! Python bindings for this stage (thin: convert, call, convert back).
//!
//! `spamnb._core.html_to_text(markup, budget=None) -> (text, urls)` and
//! `spamnb._core.HtmlBudget(tags=50_000, scan=1_000_000, attributes=50_000)`,
//! as spamnb.mail.htmltext's `html_to_text` and `Budget`.

use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::mail::html::{self, Budget, MAX_ATTRIBUTES, MAX_SCAN, MAX_TAGS};

/// What reading a message's HTML parts may still cost (spamnb.mail.htmltext.Budget).
#[pyclass(name = "HtmlBudget", module = "spamnb._core")]
pub struct PyHtmlBudget {
    #[pyo3(get, set)]
    tags: i64,
    #[pyo3(get, set)]
    scan: i64,
    #[pyo3(get, set)]
    attributes: i64,
}

#[pymethods]
impl PyHtmlBudget {
    #[new]
    #[pyo3(signature = (tags = MAX_TAGS, scan = MAX_SCAN, attributes = MAX_ATTRIBUTES))]
    fn new(tags: i64, scan: i64, attributes: i64) -> Self {
        PyHtmlBudget {
            tags,
            scan,
            attributes,
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "HtmlBudget(tags={}, scan={}, attributes={})",
            self.tags, self.scan, self.attributes
        )
    }
}

/// Return (visible text, link targets) of an HTML document or fragment.
/// `budget` (a fresh HtmlBudget when not given) is what reading may cost, and
/// is what is left of it afterwards: one budget serves a message's parts.
#[pyfunction]
#[pyo3(signature = (markup, budget = None))]
fn html_to_text(
    py: Python<'_>,
    markup: &Bound<'_, PyString>,
    budget: Option<PyRefMut<'_, PyHtmlBudget>>,
) -> PyResult<(String, Vec<String>)> {
    // A str with a lone surrogate has no UTF-8 form: it is read with U+FFFD
    // in the surrogate's place (decoded mail never holds one).
    let markup = markup.to_string_lossy();
    let markup: &str = &markup;
    match budget {
        Some(mut budget) => {
            let mut inner = Budget {
                tags: budget.tags,
                scan: budget.scan,
                attributes: budget.attributes,
            };
            let result = py.allow_threads(|| html::html_to_text(markup, &mut inner));
            budget.tags = inner.tags;
            budget.scan = inner.scan;
            budget.attributes = inner.attributes;
            Ok(result)
        }
        None => Ok(py.allow_threads(|| html::html_to_text(markup, &mut Budget::default()))),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyHtmlBudget>()?;
    m.add_function(wrap_pyfunction!(html_to_text, m)?)?;
    Ok(())
}
