//! Python bindings for a model file mapped into memory (thin: the mapping is
//! memmap2's; this lends its bytes to Python as a read-only buffer) and for
//! the writers' lock on it (flock(2)).
//!
//! The mmap and fcntl modules are each a shared library loaded in a fresh
//! `classify` or `learn` (about 0.2 ms of one, BENCHMARKS.md "Where the time
//! goes with the core"); the core, loaded anyway, maps and locks instead.

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

/// lock_file(fd, wait) -> bool: an exclusive flock(2) lock on the open file
/// `fd`, as fcntl.flock takes it: waited for (the GIL released; a signal's
/// Python handler runs, and may raise, between tries) when `wait`, else
/// tried once.  True when held; False when another holder has it and `wait`
/// is False.
#[pyfunction]
fn lock_file(py: Python<'_>, fd: c_int, wait: bool) -> PyResult<bool> {
    let how = if wait { libc::LOCK_EX } else { libc::LOCK_EX | libc::LOCK_NB };
    loop {
        // SAFETY: flock on a descriptor number takes nothing of Rust's; a number
        // that is not an open file is refused by the kernel (EBADF).
        let done = py.allow_threads(|| unsafe { libc::flock(fd, how) });
        if done == 0 {
            return Ok(true);
        }
        let error = std::io::Error::last_os_error();
        match error.kind() {
            std::io::ErrorKind::WouldBlock if !wait => return Ok(false),
            std::io::ErrorKind::Interrupted => py.check_signals()?,
            _ => return Err(os_error(error)),
        }
    }
}

/// unlock_file(fd): lets go of lock_file's lock.
#[pyfunction]
fn unlock_file(fd: c_int) -> PyResult<()> {
    // SAFETY: as in lock_file.
    if unsafe { libc::flock(fd, libc::LOCK_UN) } != 0 {
        return Err(os_error(std::io::Error::last_os_error()));
    }
    Ok(())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MappedFile>()?;
    m.add_function(wrap_pyfunction!(map_file, m)?)?;
    m.add_function(wrap_pyfunction!(lock_file, m)?)?;
    m.add_function(wrap_pyfunction!(unlock_file, m)?)?;
    Ok(())
}
