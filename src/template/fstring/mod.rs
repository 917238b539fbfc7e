//! Python `str.format_map` (PEP 3101) over [`Value`]s, byte-identical to CPython 3.11.
//!
//! [`compile`] parses once into nodes ([`parser`]); [`render`] walks them ([`render`]), looking
//! fields up by borrowing from the variables ([`lookup`]) and formatting with
//! [`crate::py::format`]. Errors carry the Python exception class and `str(exc)`.

mod lookup;
mod parser;
mod render;

use self::parser::{Node, Seq, SpecPart, TOP_DEPTH};
use crate::template::TemplateError;
use crate::value::Value;

/// A parsed fstring template.
pub struct Compiled {
    source: Box<str>,
    seq: Seq,
    /// Number of replacement fields, for the output capacity guess.
    fields: usize,
}

impl Compiled {
    /// The first error that rendering would raise whatever the variables (a syntax error, a
    /// positional field, an unknown conversion, nesting too deep), if any; unlocated: byte
    /// range only.
    pub fn syntax_error(&self) -> Option<TemplateError> {
        first_static_error(&self.seq)
    }
}

fn first_static_error(seq: &Seq) -> Option<TemplateError> {
    for node in &seq.nodes {
        let Node::Field(field) = node else { continue };
        if let Err(e) = &field.first {
            return Some(e.clone());
        }
        if let Some(e) = &field.accessor_error {
            return Some(e.clone());
        }
        if let Some(c) = field.conversion {
            if !matches!(c, 's' | 'r' | 'a') {
                return Some(
                    TemplateError::new(
                        crate::template::ErrorKind::ValueError,
                        format!(
                            "Unknown conversion specifier {}",
                            crate::py::format::c_char(c)
                        ),
                    )
                    .with_range(field.range.clone()),
                );
            }
        }
        match &field.spec {
            SpecPart::Nested(inner) => {
                if let Some(e) = first_static_error(inner) {
                    return Some(e);
                }
            }
            SpecPart::TooDeep => {
                return Some(
                    TemplateError::new(
                        crate::template::ErrorKind::ValueError,
                        "Max string recursion exceeded",
                    )
                    .with_range(field.range.clone()),
                )
            }
            SpecPart::Literal(_) => {}
        }
    }
    seq.error.clone()
}

fn count_fields(seq: &Seq) -> usize {
    seq.nodes
        .iter()
        .map(|n| match n {
            Node::Field(f) => {
                1 + match &f.spec {
                    SpecPart::Nested(inner) => count_fields(inner),
                    _ => 0,
                }
            }
            Node::Lit(_) => 0,
        })
        .sum()
}

/// Parses `source`. Never fails: a syntax error is kept and raised when rendering reaches it.
pub fn compile(source: &str) -> Compiled {
    let seq = parser::parse_seq(source, 0, source.len(), TOP_DEPTH);
    let fields = count_fields(&seq);
    tracing::trace!(bytes = source.len(), fields, "compiled fstring template");
    Compiled {
        source: source.into(),
        seq,
        fields,
    }
}

/// `source.format_map(vars)`.
pub fn render(c: &Compiled, vars: &Value) -> Result<String, TemplateError> {
    let mut out = String::with_capacity(c.source.len() + c.fields * 16);
    render::render_seq(&c.seq, &c.source, vars, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests;
