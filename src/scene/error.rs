//! Scene loading errors: the file, the line and column, the field path and what was expected.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::json;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneError {
    /// The scene file, when the scene came from one.
    pub file: Option<PathBuf>,
    /// 1-based line and column (in characters); 0 when the error is not about a position
    /// (the file could not be read).
    pub line: usize,
    pub column: usize,
    /// Byte offset in the file.
    pub offset: usize,
    /// Path of the field (`tools[1].prompt_position[0]`), empty for the document itself.
    pub path: String,
    pub message: String,
}

impl SceneError {
    pub(crate) fn at(
        text: &str,
        offset: usize,
        path: impl fmt::Display,
        message: impl Into<String>,
    ) -> SceneError {
        let (line, column) = json::line_col(text, offset);
        SceneError {
            file: None,
            line,
            column,
            offset,
            path: path.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn io(file: &Path, message: impl Into<String>) -> SceneError {
        SceneError {
            file: Some(file.to_owned()),
            line: 0,
            column: 0,
            offset: 0,
            path: String::new(),
            message: message.into(),
        }
    }

    pub(crate) fn in_file(mut self, file: &Path) -> SceneError {
        self.file = Some(file.to_owned());
        self
    }
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self
            .file
            .as_deref()
            .map_or_else(|| "<scene>".to_owned(), |p| p.display().to_string());
        if self.line > 0 {
            write!(f, "{file}:{}:{}: ", self.line, self.column)?;
        } else {
            write!(f, "{file}: ")?;
        }
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for SceneError {}
