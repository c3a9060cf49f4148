//! spamnb's core: the per-message path (raw bytes → parts → tokens → keys →
//! weights) in Rust, bound to Python as `spamnb._core`.
//!
//! The stages live in plain Rust modules (`mail`, `text`, `model`) that know
//! nothing of Python; the `py_*` modules are the thin binding layer that turns
//! Python values into Rust ones and back.

pub mod mail;
pub mod model;
pub mod surrogates;
pub mod text;

mod py_charsets;
mod py_chinese;
mod py_counting;
mod py_files;
mod py_html;
mod py_keys;
mod py_mail;
mod py_text;

use pyo3::prelude::*;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// _panic(why): panics, for the tests of how Python turns a panic of the
/// core into a verdict or an error (nothing else calls it).
#[pyfunction]
fn _panic(why: &str) {
    panic!("{why}");
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A panic reaches Python as PanicException, its message with it, and each
    // front end reports it in its own way (app/verdict.py); the default hook
    // would also print a Rust backtrace note into a mail system's log.
    std::panic::set_hook(Box::new(|_| {}));
    m.add("PanicException", m.py().get_type::<pyo3::panic::PanicException>())?;
    m.add_function(wrap_pyfunction!(_panic, m)?)?;
    py_mail::register(m)?;
    py_charsets::register(m)?;
    py_html::register(m)?;
    py_text::register(m)?;
    py_chinese::register(m)?;
    py_keys::register(m)?;
    py_counting::register(m)?;
    py_files::register(m)?;
    Ok(())
}
