//! Parsing a format string the way CPython's `MarkupIterator` (Objects/stringlib/
//! unicode_format.h) does, into nodes that rendering walks.
//!
//! CPython parses while it renders, so an error is raised only when rendering reaches it: a
//! missing key before a syntax error wins. Each [`Seq`] therefore keeps the nodes parsed before
//! its first syntax error plus that error, and each [`Field`] keeps the parts of its name that
//! parsed plus the error that CPython would raise after looking those up.

use std::ops::Range;

use crate::py::decimal_value;
use crate::template::{ErrorKind, TemplateError};

/// The nesting CPython allows: the top level renders with depth 2, a nested spec with 1, and
/// a spec inside that would need depth 0, which is "Max string recursion exceeded".
pub(super) const TOP_DEPTH: u32 = 2;

/// A sequence of literal text and fields, up to its first syntax error.
#[derive(Debug)]
pub(super) struct Seq {
    pub nodes: Vec<Node>,
    pub error: Option<TemplateError>,
}

#[derive(Debug)]
pub(super) enum Node {
    /// Literal text: a byte range of the source (`{{` contributes its first brace).
    Lit(Range<usize>),
    Field(Box<Field>),
}

/// One replacement field `{name.attr[key]!c:spec}`.
#[derive(Debug)]
pub(super) struct Field {
    /// The whole field, braces included: where its errors point.
    pub range: Range<usize>,
    /// The mapping key of the first name part, or the error CPython raises for it (positional
    /// fields, too many digits).
    pub first: Result<Range<usize>, TemplateError>,
    pub accessors: Vec<Accessor>,
    /// Raised after the accessors before it have been looked up.
    pub accessor_error: Option<TemplateError>,
    pub conversion: Option<char>,
    pub spec: SpecPart,
}

#[derive(Debug)]
pub(super) enum Accessor {
    /// `.name`
    Attr(Range<usize>),
    /// `[key]` with a key that is not all decimal digits.
    Key(Range<usize>),
    /// `[123]`
    Index(i64),
}

#[derive(Debug)]
pub(super) enum SpecPart {
    /// A spec without nested fields (possibly empty), used as is.
    Literal(Range<usize>),
    /// A spec with nested fields, rendered first.
    Nested(Seq),
    /// A nested spec that would itself contain fields.
    TooDeep,
}

fn value_error(message: &str, range: Range<usize>) -> TemplateError {
    TemplateError::new(ErrorKind::ValueError, message).with_range(range)
}

/// `get_integer` of unicode_format.h: `Ok(None)` unless `text` is non-empty and all decimal
/// digits (any script); overflow past `Py_ssize_t` is an error.
fn get_integer(text: &str, range: &Range<usize>) -> Result<Option<i64>, TemplateError> {
    if text.is_empty() {
        return Ok(None);
    }
    let mut acc: i64 = 0;
    for c in text.chars() {
        let Some(d) = decimal_value(c) else {
            return Ok(None);
        };
        let d = i64::from(d);
        if acc > (i64::MAX - d) / 10 {
            return Err(value_error(
                "Too many decimal digits in format string",
                range.clone(),
            ));
        }
        acc = acc * 10 + d;
    }
    Ok(Some(acc))
}

/// Parses `src[start..end]` at recursion `depth`.
pub(super) fn parse_seq(src: &str, start: usize, end: usize, depth: u32) -> Seq {
    let b = src.as_bytes();
    let mut nodes = Vec::new();
    let mut pos = start;
    while pos < end {
        let lit_start = pos;
        let mut c = 0u8;
        let mut markup = false;
        while pos < end {
            c = b[pos];
            pos += 1;
            if c == b'{' || c == b'}' {
                markup = true;
                break;
            }
        }
        let at_end = pos >= end;
        if c == b'}' && markup && (at_end || b[pos] != b'}') {
            let error = value_error("Single '}' encountered in format string", pos - 1..pos);
            return Seq {
                nodes,
                error: Some(error),
            };
        }
        if at_end && markup && c == b'{' {
            let error = value_error("Single '{' encountered in format string", pos - 1..pos);
            return Seq {
                nodes,
                error: Some(error),
            };
        }
        let mut lit_end = pos;
        if markup {
            if b[pos] == c {
                // An escaped brace: the literal keeps the first one.
                pos += 1;
                markup = false;
            } else {
                lit_end -= 1;
            }
        }
        if lit_end > lit_start {
            nodes.push(Node::Lit(lit_start..lit_end));
        }
        if markup {
            match parse_field(src, pos, end, depth) {
                Ok((field, next)) => {
                    nodes.push(Node::Field(Box::new(field)));
                    pos = next;
                }
                Err(error) => {
                    return Seq {
                        nodes,
                        error: Some(error),
                    }
                }
            }
        }
    }
    Seq { nodes, error: None }
}

/// Parses the field whose `{` is just before `pos`; returns it and the position after its `}`.
fn parse_field(
    src: &str,
    mut pos: usize,
    end: usize,
    depth: u32,
) -> Result<(Field, usize), TemplateError> {
    let b = src.as_bytes();
    let open = pos - 1;
    let name_start = pos;
    let mut c = 0u8;
    let mut terminated = false;
    while pos < end {
        c = b[pos];
        pos += 1;
        match c {
            b'{' => return Err(value_error("unexpected '{' in field name", pos - 1..pos)),
            b'[' => {
                while pos < end && b[pos] != b']' {
                    pos += 1;
                }
            }
            b'}' | b':' | b'!' => {
                terminated = true;
                break;
            }
            _ => {}
        }
    }
    if !terminated {
        return Err(value_error("expected '}' before end of string", open..end));
    }
    let name = name_start..pos - 1;
    let mut conversion = None;
    if c == b'}' {
        let field = make_field(
            src,
            open..pos,
            name,
            None,
            SpecPart::Literal(pos - 1..pos - 1),
        );
        return Ok((field, pos));
    }
    if c == b'!' {
        let Some(conv) = src.get(pos..end).and_then(|s| s.chars().next()) else {
            return Err(value_error(
                "end of string while looking for conversion specifier",
                pos - 1..pos,
            ));
        };
        conversion = Some(conv);
        pos += conv.len_utf8();
        if let Some(next) = src.get(pos..end).and_then(|s| s.chars().next()) {
            pos += next.len_utf8();
            if next == '}' {
                let field = make_field(
                    src,
                    open..pos,
                    name,
                    conversion,
                    SpecPart::Literal(pos - 1..pos - 1),
                );
                return Ok((field, pos));
            }
            if next != ':' {
                return Err(value_error(
                    "expected ':' after conversion specifier",
                    pos - next.len_utf8()..pos,
                ));
            }
        }
    }
    let spec_start = pos;
    let mut count = 1;
    let mut expanding = false;
    while pos < end {
        let c = b[pos];
        pos += 1;
        if c == b'{' {
            expanding = true;
            count += 1;
        } else if c == b'}' {
            count -= 1;
            if count == 0 {
                let spec_range = spec_start..pos - 1;
                let spec = if !expanding {
                    SpecPart::Literal(spec_range)
                } else if depth <= 1 {
                    SpecPart::TooDeep
                } else {
                    SpecPart::Nested(parse_seq(src, spec_range.start, spec_range.end, depth - 1))
                };
                return Ok((make_field(src, open..pos, name, conversion, spec), pos));
            }
        }
    }
    Err(value_error("unmatched '{' in format spec", open..open + 1))
}

/// Splits the field name (`field_name_split` and `FieldNameIterator`).
fn make_field(
    src: &str,
    range: Range<usize>,
    name: Range<usize>,
    conversion: Option<char>,
    spec: SpecPart,
) -> Field {
    let b = src.as_bytes();
    let first_end = (name.start..name.end)
        .find(|&i| b[i] == b'.' || b[i] == b'[')
        .unwrap_or(name.end);
    let first_text = &src[name.start..first_end];
    let first = match get_integer(first_text, &range) {
        Err(e) => Err(e),
        // An empty name auto-numbers and a numeric one indexes: both need positional arguments,
        // which format_map has none of.
        Ok(Some(_)) => Err(value_error(
            "Format string contains positional fields",
            range.clone(),
        )),
        Ok(None) if first_text.is_empty() => Err(value_error(
            "Format string contains positional fields",
            range.clone(),
        )),
        Ok(None) => Ok(name.start..first_end),
    };
    let mut accessors = Vec::new();
    let mut accessor_error = None;
    let mut pos = first_end;
    while pos < name.end {
        let kind = b[pos];
        pos += 1;
        let part_start = pos;
        let accessor = match kind {
            b'.' => {
                while pos < name.end && b[pos] != b'.' && b[pos] != b'[' {
                    pos += 1;
                }
                Ok(Accessor::Attr(part_start..pos))
            }
            b'[' => {
                while pos < name.end && b[pos] != b']' {
                    pos += 1;
                }
                if pos >= name.end {
                    Err(value_error("Missing ']' in format string", range.clone()))
                } else {
                    pos += 1;
                    let key = part_start..pos - 1;
                    match get_integer(&src[key.clone()], &range) {
                        Ok(Some(i)) => Ok(Accessor::Index(i)),
                        Ok(None) => Ok(Accessor::Key(key)),
                        Err(e) => Err(e),
                    }
                }
            }
            _ => Err(value_error(
                "Only '.' or '[' may follow ']' in format field specifier",
                range.clone(),
            )),
        };
        let empty = match &accessor {
            Ok(Accessor::Attr(r) | Accessor::Key(r)) => r.is_empty(),
            _ => false,
        };
        match accessor {
            Ok(_) if empty => {
                accessor_error = Some(value_error(
                    "Empty attribute in format string",
                    range.clone(),
                ));
                break;
            }
            Ok(a) => accessors.push(a),
            Err(e) => {
                accessor_error = Some(e);
                break;
            }
        }
    }
    Field {
        range,
        first,
        accessors,
        accessor_error,
        conversion,
        spec,
    }
}
