//! The exceptions Python's printing and formatting raise, kept apart from the template engines
//! so that `py` depends on nothing above it; each engine wraps a [`PyError`] in its own error.

use std::fmt;
use std::ops::Range;

/// The Python exception class of a [`PyError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PyErrorKind {
    ValueError,
    TypeError,
    OverflowError,
    KeyError,
    IndexError,
    AttributeError,
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
            PyErrorKind::KeyError => "KeyError",
            PyErrorKind::IndexError => "IndexError",
            PyErrorKind::AttributeError => "AttributeError",
            PyErrorKind::LimitExceeded => "LimitExceeded",
        }
    }
}

/// A Python exception: its class and `str(exc)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PyError {
    pub kind: PyErrorKind,
    pub message: String,
    /// The byte range of the text being parsed that the error points at (a replacement field
    /// of a format string), when it has one.
    pub range: Option<Range<usize>>,
}

impl PyError {
    pub fn new(kind: PyErrorKind, message: impl Into<String>) -> PyError {
        PyError {
            kind,
            message: message.into(),
            range: None,
        }
    }

    /// Points the error at `range` of the text being parsed.
    pub fn with_range(mut self, range: Range<usize>) -> PyError {
        self.range = Some(range);
        self
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

/// An error that can point at a byte range of a format string: each engine's error type, so that
/// [`crate::py::format::fields`] can place the errors of its lookups, which the engines raise.
pub trait Locate {
    /// Points the error at `range` unless it already points somewhere.
    fn or_at(self, range: Range<usize>) -> Self;
}

impl Locate for PyError {
    fn or_at(mut self, range: Range<usize>) -> PyError {
        self.range.get_or_insert(range);
        self
    }
}

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
