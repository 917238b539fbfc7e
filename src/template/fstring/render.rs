//! Rendering parsed nodes in CPython's order: for each field, look the object up, convert it,
//! expand its spec (nested fields), then format it; a syntax error is raised where parsing
//! stopped, after everything before it has rendered.

use std::borrow::Cow;

use super::lookup::{get_key, Obj};
use super::parser::{Accessor, Field, Node, Seq, SpecPart};
use crate::py::format::{c_char, format_str};
use crate::template::{ErrorKind, TemplateError};
use crate::value::Value;

/// Output beyond this many bytes is refused with `LimitExceeded` (CPython would keep going).
pub(super) const MAX_OUTPUT: usize = 1 << 26;

fn at(e: TemplateError, field: &Field) -> TemplateError {
    if e.range().is_some() {
        e
    } else {
        e.with_range(field.range.clone())
    }
}

pub(super) fn render_seq(
    seq: &Seq,
    src: &str,
    vars: &Value,
    out: &mut String,
) -> Result<(), TemplateError> {
    for node in &seq.nodes {
        match node {
            Node::Lit(r) => out.push_str(src.get(r.clone()).unwrap_or("")),
            Node::Field(field) => {
                render_field(field, src, vars, out)?;
                if out.len() > MAX_OUTPUT {
                    return Err(TemplateError::new(
                        ErrorKind::LimitExceeded,
                        format!("output exceeds the limit of {MAX_OUTPUT} bytes"),
                    )
                    .with_range(field.range.clone()));
                }
            }
        }
    }
    match &seq.error {
        Some(e) => Err(e.clone()),
        None => Ok(()),
    }
}

/// `get_field_object`: the first name looked up in the mapping, then each accessor.
fn resolve<'v>(field: &Field, src: &str, vars: &'v Value) -> Result<Obj<'v>, TemplateError> {
    let first = field.first.as_ref().map_err(Clone::clone)?;
    let mut obj = get_key(vars, src.get(first.clone()).unwrap_or(""))?;
    for accessor in &field.accessors {
        obj = match accessor {
            Accessor::Attr(r) => obj.get_attr(src.get(r.clone()).unwrap_or(""))?,
            Accessor::Key(r) => obj.get_key(src.get(r.clone()).unwrap_or(""))?,
            Accessor::Index(i) => obj.get_index(*i)?,
        };
    }
    match &field.accessor_error {
        Some(e) => Err(e.clone()),
        None => Ok(obj),
    }
}

fn render_field(
    field: &Field,
    src: &str,
    vars: &Value,
    out: &mut String,
) -> Result<(), TemplateError> {
    let obj = resolve(field, src, vars).map_err(|e| at(e, field))?;
    let converted = match field.conversion {
        None => None,
        Some(c) => match obj.convert(c) {
            Some(text) => Some(text),
            None => {
                return Err(at(
                    TemplateError::new(
                        ErrorKind::ValueError,
                        format!("Unknown conversion specifier {}", c_char(c)),
                    ),
                    field,
                ))
            }
        },
    };
    let spec: Cow<'_, str> = match &field.spec {
        SpecPart::Literal(r) => Cow::Borrowed(src.get(r.clone()).unwrap_or("")),
        SpecPart::Nested(seq) => {
            let mut s = String::new();
            render_seq(seq, src, vars, &mut s)?;
            Cow::Owned(s)
        }
        SpecPart::TooDeep => {
            return Err(at(
                TemplateError::new(ErrorKind::ValueError, "Max string recursion exceeded"),
                field,
            ))
        }
    };
    let result = match &converted {
        Some(text) => format_str(out, text, &spec),
        None => obj.format_into(out, &spec),
    };
    result.map_err(|e| at(e.into(), field))
}
