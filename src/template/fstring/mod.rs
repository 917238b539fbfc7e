//! Python `str.format_map` (PEP 3101) over [`Value`]s, byte-identical to CPython 3.11.
//!
//! Parsing and rendering are [`crate::py::format::fields`], shared with the Jinja2 engine's
//! `str.format`; this engine supplies the mapping and the Python objects `json.loads` builds
//! ([`lookup`]). Errors carry the Python exception class and `str(exc)`.

mod lookup;

use self::lookup::{get_key, Obj};
use crate::py::format::fields::{Args, FormatString};
use crate::template::{Budget, ErrorKind, TemplateError};
use crate::value::Value;

/// Output beyond this many bytes is refused with `LimitExceeded` (CPython would keep going).
const MAX_OUTPUT: usize = 1 << 26;

/// A parsed fstring template.
pub struct Compiled {
    parsed: FormatString,
}

impl Compiled {
    /// The first error that rendering would raise whatever the variables (a syntax error, a
    /// positional field, an unknown conversion, nesting too deep), if any; unlocated: byte
    /// range only.
    pub fn syntax_error(&self) -> Option<TemplateError> {
        self.parsed.static_error().map(TemplateError::from)
    }
}

/// Parses `source`. Never fails: a syntax error is kept and raised when rendering reaches it.
pub fn compile(source: &str) -> Compiled {
    let parsed = FormatString::parse(source);
    tracing::trace!(
        bytes = source.len(),
        fields = parsed.fields(),
        "compiled fstring template"
    );
    Compiled { parsed }
}

/// `format_map`'s one argument: the variables.
struct Mapping<'v>(&'v Value);

impl<'v> Args for Mapping<'v> {
    type Value = Obj<'v>;

    fn keyword(&self, name: &str) -> Result<Obj<'v>, TemplateError> {
        get_key(self.0, name)
    }

    fn positional_count(&self) -> Option<usize> {
        None
    }

    fn positional(&self, _index: usize) -> Obj<'v> {
        // Never asked: format_map has no positional arguments.
        Obj::Owned(Value::None)
    }
}

/// `source.format_map(vars)` on its own (see [`render_in`]).
pub fn render(c: &Compiled, vars: &Value) -> Result<String, TemplateError> {
    render_in(c, vars, &Budget::scene())
}

/// `source.format_map(vars)`, within `budget`: the output (which bounds the work, every field
/// being printed into it) is limited to what the scene has left, and taken off it.
pub fn render_in(c: &Compiled, vars: &Value, budget: &Budget) -> Result<String, TemplateError> {
    if let Some(refused) = budget.refusal() {
        return Err(refused);
    }
    let left = usize::try_from(budget.output_left()).unwrap_or(usize::MAX);
    let mut out = String::with_capacity(c.parsed.source().len() + c.parsed.fields() * 16);
    match c
        .parsed
        .render_into(&Mapping(vars), &mut out, MAX_OUTPUT.min(left))
    {
        // Past what the scene has left, not past this template's own limit.
        Err(e) if left < MAX_OUTPUT && e.kind() == ErrorKind::LimitExceeded => {
            Err(budget.output_refused())
        }
        Err(e) => Err(e),
        Ok(()) => {
            budget.take_output(out.len() as u64)?;
            Ok(out)
        }
    }
}

#[cfg(test)]
mod tests;
