//! The exceptions Python's printing and formatting raise, kept apart from the template engines
//! so that `py` depends on nothing above it; each engine wraps a [`PyError`] in its own error.

use std::fmt;

/// The Python exception class of a [`PyError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PyErrorKind {
    ValueError,
    TypeError,
    OverflowError,
    /// Our own bound on untrusted input (see [`MAX_WIDTH`]); Python has no such exception.
    LimitExceeded,
}

impl PyErrorKind {
    /// The exception class name, as Python prints it.
    pub fn python_name(self) -> &'static str {
        match self {
            PyErrorKind::ValueError => "ValueError",
            PyErrorKind::TypeError => "TypeError",
            PyErrorKind::OverflowError => "OverflowError",
            PyErrorKind::LimitExceeded => "LimitExceeded",
        }
    }
}

/// A Python exception: its class and `str(exc)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PyError {
    pub kind: PyErrorKind,
    pub message: String,
}

impl PyError {
    pub fn new(kind: PyErrorKind, message: impl Into<String>) -> PyError {
        PyError {
            kind,
            message: message.into(),
        }
    }

    pub fn value_error(message: impl Into<String>) -> PyError {
        PyError::new(PyErrorKind::ValueError, message)
    }

    pub fn type_error(message: impl Into<String>) -> PyError {
        PyError::new(PyErrorKind::TypeError, message)
    }

    pub fn overflow_error(message: impl Into<String>) -> PyError {
        PyError::new(PyErrorKind::OverflowError, message)
    }
}

impl fmt::Display for PyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.python_name(), self.message)
    }
}

impl std::error::Error for PyError {}

/// The largest width or precision either engine formats (a format spec, `%` formatting, and
/// the filters and methods that pad: `center`, `ljust`, `indent`, `tojson(indent=...)`).
/// CPython would allocate whatever is asked (or fail with MemoryError); an untrusted template
/// must not make us do so, and the output limits of both engines are far above this.
pub const MAX_WIDTH: i64 = 1 << 20;

/// Refuses a width or precision above [`MAX_WIDTH`] with `LimitExceeded`.
pub fn check_width(n: i64) -> Result<(), PyError> {
    if n > MAX_WIDTH {
        return Err(PyError::new(
            PyErrorKind::LimitExceeded,
            format!("width or precision {n} is larger than the limit of {MAX_WIDTH}"),
        ));
    }
    Ok(())
}
