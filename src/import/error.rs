//! Import errors: the file, the line and column, the JSON pointer of the field and what was
//! expected.

use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    /// The file read, when the input came from one.
    pub file: Option<PathBuf>,
    /// 1-based line and column (in characters) in the file; 0 when the error is not about a
    /// position (the file could not be read).
    pub line: usize,
    pub column: usize,
    /// The JSON pointer (RFC 6901) of the field within its record, empty for the record itself.
    pub pointer: String,
    pub message: String,
}

impl ImportError {
    pub(crate) fn io(file: &Path, message: impl Into<String>) -> ImportError {
        ImportError {
            file: Some(file.to_owned()),
            line: 0,
            column: 0,
            pointer: String::new(),
            message: message.into(),
        }
    }

    pub(crate) fn in_file(mut self, file: &Path) -> ImportError {
        self.file = Some(file.to_owned());
        self
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self
            .file
            .as_deref()
            .map_or_else(|| "<input>".to_owned(), |p| p.display().to_string());
        if self.line > 0 {
            write!(f, "{file}:{}:{}: ", self.line, self.column)?;
        } else {
            write!(f, "{file}: ")?;
        }
        if !self.pointer.is_empty() {
            write!(f, "{}: ", self.pointer)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ImportError {}
