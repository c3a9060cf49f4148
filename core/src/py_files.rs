//! Python bindings for a model file mapped into memory (thin: the mapping is
//! memmap2's; this lends its bytes to Python as a read-only buffer).
//!
//! The mmap module's own import is a shared library loaded in each fresh
//! `classify` and `learn` (about 0.2 ms of one, BENCHMARKS.md "Where the time
//! goes with the core"); the core, loaded anyway, maps the file instead.

use std::os::raw::c_int;

use pyo3::exceptions::PyOSError;
use pyo3::ffi;
use pyo3::prelude::*;

/// A whole file mapped read-only and shared (what `mmap.mmap(fd, 0,
/// prot=PROT_READ)` gives): `len()` and the buffer protocol (memoryview,
/// bytes, struct), never writable.  The mapping lasts while any view of it
/// does (each view holds a reference); a writer replaces the model file by
/// renaming a new one into place, so the pages mapped never change.
#[pyclass(module = "spamnb._core", name = "MappedFile", frozen)]
struct MappedFile {
    map: memmap2::Mmap,
}

#[pymethods]
impl MappedFile {
    fn __len__(&self) -> usize {
        self.map.len()
    }

    unsafe fn __getbuffer__(slf: Bound<'_, Self>, view: *mut ffi::Py_buffer, flags: c_int) -> PyResult<()> {
        let bytes: &[u8] = &slf.get().map;
        // SAFETY: `view` is the buffer the caller asked to fill; FillInfo takes
        // a reference to `slf` for it (released with the view), so the mapping
        // outlives every view of it; readonly = 1 refuses a writable request.
        if ffi::PyBuffer_FillInfo(view, slf.as_ptr(), bytes.as_ptr() as *mut _, bytes.len() as ffi::Py_ssize_t,
                                  1, flags) == -1 {
            return Err(PyErr::fetch(slf.py()));
        }
        Ok(())
    }

    unsafe fn __releasebuffer__(&self, _view: *mut ffi::Py_buffer) {}
}

/// map_file(fd) -> MappedFile: the open file `fd`, from its start to its end
/// now, mapped read-only (OSError as the mmap module raises it).  The
/// caller may close `fd` after: the mapping keeps the file.
#[pyfunction]
fn map_file(fd: c_int) -> PyResult<MappedFile> {
    // SAFETY: read-only and shared, as mmap.mmap maps a model: the bytes
    // change only if someone writes the file in place, which spamnb's writers
    // never do (they rename a new file into place); such a write by another
    // program reaches a reader as it would through Python's mmap.
    let map = unsafe { memmap2::Mmap::map(fd) }.map_err(os_error)?;
    Ok(MappedFile { map })
}

/// OSError(errno, strerror), as Python's own calls raise it (its subclass
/// chosen by errno), so that a caller can read `strerror` and `errno`.
fn os_error(error: std::io::Error) -> PyErr {
    match error.raw_os_error() {
        Some(code) => {
            let text = error.to_string();
            let strerror = text.strip_suffix(&format!(" (os error {code})")).unwrap_or(&text).to_owned();
            PyOSError::new_err((code, strerror))
        }
        None => PyOSError::new_err(error.to_string()),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MappedFile>()?;
    m.add_function(wrap_pyfunction!(map_file, m)?)?;
    Ok(())
}
