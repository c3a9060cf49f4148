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
mod py_html;
mod py_keys;
mod py_mail;
mod py_text;

use pyo3::prelude::*;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

extern "C" {
    /// mimalloc's option setter (in the library libmimalloc-sys links in; that
    /// crate declares it only under its `extended` feature, whose `cty`
    /// dependency this build does not have).
    fn mi_option_set(option: std::os::raw::c_int, value: std::os::raw::c_long);
}

/// mi_option_purge_delay in mimalloc v2's mi_option_t (include/mimalloc.h;
/// Cargo.toml pins v2, whose enum differs from v3's).
const MI_OPTION_PURGE_DELAY: std::os::raw::c_int = 15;

/// Milliseconds mimalloc waits before it gives freed pages back.  v2's 10
/// had a training worker give back and fault in again the pages of every
/// batch: 6 % more wall time for `train -j 2` of 75,000 synthetic messages
/// (system time 9.1-9.4 -> 11.4-11.7 s); at 100 the time is v3's again and
/// a worker holds 2 MB more than at 10 (107 against 105 MB over 80 batches).
const PURGE_DELAY_MS: std::os::raw::c_long = 100;

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
    // SAFETY: a plain setter of a number, thread-safe, valid at any time.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    m.add("PanicException", m.py().get_type::<pyo3::panic::PanicException>())?;
    m.add_function(wrap_pyfunction!(_panic, m)?)?;
    py_mail::register(m)?;
    py_charsets::register(m)?;
    py_html::register(m)?;
    py_text::register(m)?;
    py_chinese::register(m)?;
    py_keys::register(m)?;
    py_counting::register(m)?;
    Ok(())
}
