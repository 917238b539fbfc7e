//! The one error shape that crosses IPC and HTTP: a stable code, a sentence, and the position
//! fields an editor needs to point at the problem (docs/api.md, "Errors").

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::scene::SceneError;
use crate::template::TemplateError;

// The codes the operations give in every front end. What only HTTP can go wrong with (a token, a
// Host header, a body size, a method, a static file) has its codes in `serve` (docs/api.md,
// "Errors"), sent in the same `{code, message}` shape.
/// What went wrong, as a stable name the UI can switch on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum ErrorCode {
    LoadError,
    IoError,
    TemplateError,
    NoRun,
    InvalidArgument,
    // The request is not JSON of the operation's request type (`dispatch`, serve).
    BadRequest,
    // No operation of that name (`dispatch`, serve).
    UnknownOperation,
    /// A live edit was made on another revision, or the document is gone: open it again.
    StaleDocument,
    /// In the app: a path the person did not choose (in a dialog, the recent list, or the open
    /// scene's folder); the same answer whether or not the file exists.
    PathNotChosen,
    Internal,
}

/// `{code, message}` plus the position fields that apply; absent fields are left out of the JSON.
/// The optional strings are `Box<str>` to keep the error small (it is the `Err` of every
/// operation; clippy's `result_large_err` draws the line at 128 bytes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    /// Template errors: the Python exception name (`KeyError`, `TemplateSyntaxError`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Box<str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<Box<str>>,
    /// 1-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// 1-based, in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// A scene field path (`tools[1].prompt_position`) or a request field (`vars`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<Box<str>>,
    /// Template errors: the byte range in the template text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<[u32; 2]>,
}

/// Offsets and counts in transport types are u32 (TypeScript numbers, no BigInt); a scene is at
/// most 512 MiB, so this only saturates on nonsense.
pub(crate) fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            kind: None,
            file: None,
            line: None,
            column: None,
            field: None,
            range: None,
        }
    }

    /// A file could not be read or written. The path goes in `file` only: every front end
    /// (this type's `Display`, the UI's `errorText`) puts `file` before the message, so a
    /// message that named it too would say it twice. The message is in words (`no such file`),
    /// not the system's `os error 2`.
    pub fn io(path: &Path, err: &std::io::Error) -> ApiError {
        ApiError::io_of(path, err, "file")
    }

    /// [`ApiError::io`] for a path that names `what` (`folder`, `file or folder`): a missing one
    /// is `no such folder`.
    pub fn io_of(path: &Path, err: &std::io::Error, what: &str) -> ApiError {
        let code = if crate::files::is_not_chosen(err) {
            ErrorCode::PathNotChosen
        } else {
            ErrorCode::IoError
        };
        ApiError::new(code, crate::files::io_words(err, what)).with_file(path)
    }

    /// A request field the operation refuses.
    pub fn invalid(field: &str, message: impl Into<String>) -> ApiError {
        let mut e = ApiError::new(ErrorCode::InvalidArgument, message);
        e.field = Some(field.into());
        e
    }

    pub fn with_file(mut self, path: &Path) -> ApiError {
        self.file = Some(path.display().to_string().into());
        self
    }
}

impl From<SceneError> for ApiError {
    fn from(e: SceneError) -> ApiError {
        // An unreadable file (no position) is an I/O problem, not a scene that fails to load.
        let code = if e.line == 0 && e.file.is_some() {
            ErrorCode::IoError
        } else {
            ErrorCode::LoadError
        };
        ApiError {
            code,
            message: e.message,
            kind: None,
            file: e.file.map(|f| f.display().to_string().into()),
            line: (e.line > 0).then(|| u32_of(e.line)),
            column: (e.column > 0).then(|| u32_of(e.column)),
            field: (!e.path.is_empty()).then(|| e.path.into()),
            range: None,
        }
    }
}

impl From<TemplateError> for ApiError {
    fn from(e: TemplateError) -> ApiError {
        ApiError {
            code: ErrorCode::TemplateError,
            message: e.message().to_owned(),
            kind: Some(e.kind().python_name().into()),
            file: None,
            line: e.line().map(u32_of),
            column: e.column().map(u32_of),
            field: None,
            range: e.range().map(|r| [u32_of(r.start), u32_of(r.end)]),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}:")?;
        }
        if let (Some(line), Some(column)) = (self.line, self.column) {
            write!(f, "{line}:{column}:")?;
        }
        if self.file.is_some() || self.line.is_some() {
            f.write_str(" ")?;
        }
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ApiError {}
