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
mod py_html;
mod py_keys;
mod py_mail;
mod py_text;

use pyo3::prelude::*;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    py_mail::register(m)?;
    py_charsets::register(m)?;
    py_html::register(m)?;
    py_text::register(m)?;
    py_chinese::register(m)?;
    py_keys::register(m)?;
    Ok(())
}
