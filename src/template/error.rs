//! One error type for both template engines, shaped for an editor: what kind (named after the
//! Python exception the real engine raises), where (byte range, line, column) and an excerpt.

use std::fmt;
use std::ops::Range;

use crate::py::{PyError, PyErrorKind};

/// The kind of a template error, named after the exception CPython or Jinja2 raises for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    KeyError,
    IndexError,
    ValueError,
    AttributeError,
    TypeError,
    OverflowError,
    ZeroDivisionError,
    /// Jinja2: the template does not parse.
    TemplateSyntaxError,
    /// Jinja2: the template parses but the compiler rejects it (an unknown filter or test, an
    /// assignment to `loop`); a subclass of `TemplateSyntaxError` in Jinja2.
    TemplateAssertionError,
    /// Jinja2: an undefined value was used in a way the default `Undefined` refuses.
    UndefinedError,
    /// Jinja2: any other runtime error Jinja2 itself raises (bad filter arguments and the like).
    TemplateRuntimeError,
    /// Our own bound on untrusted templates (fuel, recursion, output size). Python has no
    /// equivalent: the real engine would run on (or run out of memory).
    LimitExceeded,
}

impl ErrorKind {
    /// The Python exception class name, as conformance data records it.
    pub fn python_name(self) -> &'static str {
        match self {
            ErrorKind::KeyError => "KeyError",
            ErrorKind::IndexError => "IndexError",
            ErrorKind::ValueError => "ValueError",
            ErrorKind::AttributeError => "AttributeError",
            ErrorKind::TypeError => "TypeError",
            ErrorKind::OverflowError => "OverflowError",
            ErrorKind::ZeroDivisionError => "ZeroDivisionError",
            ErrorKind::TemplateSyntaxError => "TemplateSyntaxError",
            ErrorKind::TemplateAssertionError => "TemplateAssertionError",
            ErrorKind::UndefinedError => "UndefinedError",
            ErrorKind::TemplateRuntimeError => "TemplateRuntimeError",
            ErrorKind::LimitExceeded => "LimitExceeded",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.python_name())
    }
}

/// A template failed to compile or render.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError {
    kind: ErrorKind,
    message: String,
    /// Byte range in the template source the error points at, when known.
    range: Option<Range<usize>>,
    /// 1-based line and column (in characters) of `range.start`, filled by [`TemplateError::locate`].
    line: usize,
    column: usize,
    /// For a name or key the template reads that is not there: the closest ones that are, written
    /// as the template would write them (see [`super::suggest`]). Never part of the message.
    suggestions: Vec<String>,
}

impl TemplateError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> TemplateError {
        TemplateError {
            kind,
            message: message.into(),
            range: None,
            line: 0,
            column: 0,
            suggestions: Vec::new(),
        }
    }

    /// Sets the names to suggest in place of the one not found (closest first).
    pub fn with_suggestions(mut self, suggestions: Vec<String>) -> TemplateError {
        self.suggestions = suggestions;
        self
    }

    /// What exists in place of a name or key not found, in the template's own syntax
    /// (`ctx[user_input][input]`, `ctx.user_input.input`), closest first; empty when the error is
    /// not about a missing name or nothing is close.
    pub fn suggestions(&self) -> &[String] {
        &self.suggestions
    }

    /// Sets the byte range the error points at (line and column follow from [`Self::locate`]).
    pub fn with_range(mut self, range: Range<usize>) -> TemplateError {
        self.range = Some(range);
        self
    }

    /// Computes line and column of the range start in `source`; a range past the end (or not on
    /// a character boundary) is clamped, so this never panics.
    pub fn locate(mut self, source: &str) -> TemplateError {
        if let Some(range) = &self.range {
            let mut start = range.start.min(source.len());
            while !source.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = range.end.clamp(start, source.len());
            while !source.is_char_boundary(end) {
                end += 1;
            }
            self.range = Some(start..end);
            let before = &source[..start];
            self.line = before.matches('\n').count() + 1;
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            self.column = source[line_start..start].chars().count() + 1;
        }
        self
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The exception's message, as `str(exc)` gives it in Python where practical.
    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn range(&self) -> Option<Range<usize>> {
        self.range.clone()
    }

    /// 1-based line, or `None` when the error has no position.
    pub fn line(&self) -> Option<usize> {
        (self.line > 0).then_some(self.line)
    }

    /// 1-based column in characters, or `None` when the error has no position.
    pub fn column(&self) -> Option<usize> {
        (self.column > 0).then_some(self.column)
    }

    /// A rustc-style excerpt of `source` with the error's range underlined, for terminals.
    pub fn excerpt(&self, source: &str, file_name: &str) -> String {
        let mut out = format!("{}: {}\n", self.kind, self.message);
        let (Some(range), Some(line), Some(column)) = (self.range(), self.line(), self.column())
        else {
            return out;
        };
        out.push_str(&format!("  --> {file_name}:{line}:{column}\n"));
        let line_text = source.lines().nth(line - 1).unwrap_or("");
        let gutter = line.to_string();
        let pad = " ".repeat(gutter.len());
        let line_start = source[..range.start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = line_start + line_text.len();
        let marked = source
            .get(range.start..range.end.min(line_end).max(range.start))
            .map_or(1, |s| s.chars().count().max(1));
        out.push_str(&format!("{pad} |\n{gutter} | {line_text}\n{pad} | "));
        out.push_str(&" ".repeat(column - 1));
        out.push_str(&"^".repeat(marked));
        out.push('\n');
        out
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)?;
        if let (Some(line), Some(column)) = (self.line(), self.column()) {
            write!(f, " (line {line}, column {column})")?;
        }
        Ok(())
    }
}

impl std::error::Error for TemplateError {}

impl From<PyErrorKind> for ErrorKind {
    fn from(kind: PyErrorKind) -> ErrorKind {
        match kind {
            PyErrorKind::ValueError => ErrorKind::ValueError,
            PyErrorKind::TypeError => ErrorKind::TypeError,
            PyErrorKind::OverflowError => ErrorKind::OverflowError,
            PyErrorKind::KeyError => ErrorKind::KeyError,
            PyErrorKind::IndexError => ErrorKind::IndexError,
            PyErrorKind::AttributeError => ErrorKind::AttributeError,
            PyErrorKind::LimitExceeded => ErrorKind::LimitExceeded,
        }
    }
}

/// A Python exception raised while printing or formatting a value, with its byte range in the
/// format string when it has one.
impl From<PyError> for TemplateError {
    fn from(e: PyError) -> TemplateError {
        let error = TemplateError::new(e.kind.into(), e.message);
        match e.range {
            Some(range) => error.with_range(range),
            None => error,
        }
    }
}

impl crate::py::Locate for TemplateError {
    fn or_at(self, range: Range<usize>) -> TemplateError {
        if self.range.is_some() {
            self
        } else {
            self.with_range(range)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_counts_characters_not_bytes() {
        let src = "第一行\n你好 {x}";
        let start = src.find('{').expect("brace");
        let e = TemplateError::new(ErrorKind::KeyError, "'x'")
            .with_range(start..start + 3)
            .locate(src);
        assert_eq!((e.line(), e.column()), (Some(2), Some(4)));
        let shown = e.excerpt(src, "t.txt");
        assert!(shown.contains("t.txt:2:4"), "{shown}");
        assert!(shown.ends_with("|    ^^^\n"), "{shown}");
    }

    #[test]
    fn locate_clamps_out_of_range_positions() {
        let e = TemplateError::new(ErrorKind::ValueError, "m")
            .with_range(50..60)
            .locate("é");
        assert_eq!(e.range(), Some(2..2));
        assert_eq!(e.line(), Some(1));
    }
}
