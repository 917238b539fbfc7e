//! Python `str.format_map` (PEP 3101) over [`Value`]s, byte-identical to CPython.
//! (Being implemented: see the helper's work in this folder.)

use crate::template::{ErrorKind, TemplateError};
use crate::value::Value;

/// A parsed fstring template.
pub struct Compiled {
    source: String,
}

impl Compiled {
    /// The first syntax error, if any (unlocated: byte range only).
    pub fn syntax_error(&self) -> Option<TemplateError> {
        None
    }
}

pub fn compile(source: &str) -> Compiled {
    Compiled {
        source: source.to_owned(),
    }
}

pub fn render(c: &Compiled, _vars: &Value) -> Result<String, TemplateError> {
    Err(TemplateError::new(ErrorKind::ValueError, format!("fstring engine pending ({} bytes)", c.source.len())))
}
