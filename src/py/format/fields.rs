//! `str.format(*args, **kwargs)` and `str.format_map(mapping)` (PEP 3101): a format string
//! parsed the way CPython's `MarkupIterator` (Objects/stringlib/unicode_format.h) parses it, and
//! rendered in CPython's order over any engine's values through [`Args`] and [`FieldValue`].
//!
//! CPython parses while it renders, so an error is raised only when rendering reaches it: a
//! missing key before a syntax error wins. Each [`Seq`] therefore keeps the nodes parsed before
//! its first syntax error plus that error, and each field keeps the parts of its name that
//! parsed plus the error that CPython would raise after looking those up. Every error points at
//! a byte range of the format string ([`PyError::range`]).

use std::borrow::Cow;
use std::ops::Range;

use super::c_char;
use crate::py::decimal_value;
use crate::py::error::{Locate, PyError, PyErrorKind};

/// The nesting CPython allows: the top level renders with depth 2, a nested spec with 1, and
/// a spec inside that would need depth 0, which is "Max string recursion exceeded".
const TOP_DEPTH: u32 = 2;

/// The arguments a format string renders over: `format_map`'s mapping, or `format`'s
/// positional and keyword arguments.
pub trait Args {
    type Value: FieldValue;
    /// `kwargs[name]` (the mapping of `format_map`), with the engine's `KeyError` when missing.
    fn keyword(&self, name: &str) -> Result<Self::Value, <Self::Value as FieldValue>::Error>;
    /// How many positional arguments there are; `None` for `format_map`, which has none (a
    /// positional field is then "Format string contains positional fields").
    fn positional_count(&self) -> Option<usize>;
    /// `args[index]`, only asked for an index below [`Args::positional_count`].
    fn positional(&self, index: usize) -> Self::Value;
}

/// `!s`, `!r`, `!a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conversion {
    Str,
    Repr,
    Ascii,
}

/// An object reached by a field name, as an engine models it.
pub trait FieldValue: Sized {
    type Error: From<PyError> + Locate;
    /// `getattr(obj, name)` (`.name`).
    fn get_attr(self, name: &str) -> Result<Self, Self::Error>;
    /// `obj[key]` for a key that is not all decimal digits (`[key]`, a str).
    fn get_key(self, key: &str) -> Result<Self, Self::Error>;
    /// `obj[index]` for an all-digits key (`[0]`, an int).
    fn get_index(self, index: i64) -> Result<Self, Self::Error>;
    /// `str(obj)`, `repr(obj)` or `ascii(obj)`.
    fn convert(&self, conversion: Conversion) -> Result<String, Self::Error>;
    /// Appends `format(obj, spec)`.
    fn format_into(&self, out: &mut String, spec: &str) -> Result<(), Self::Error>;
}

/// A parsed format string; it owns its source, whose byte ranges its nodes and errors name.
pub struct FormatString {
    source: Box<str>,
    seq: Seq,
    fields: usize,
}

impl FormatString {
    /// Parses `source`. Never fails: a syntax error is kept and raised when rendering reaches it.
    pub fn parse(source: &str) -> FormatString {
        let seq = parse_seq(source, 0, source.len(), TOP_DEPTH);
        let fields = count_fields(&seq);
        FormatString {
            source: source.into(),
            seq,
            fields,
        }
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// The number of replacement fields, nested ones included.
    pub fn fields(&self) -> usize {
        self.fields
    }

    /// The first error that `format_map` would raise whatever the mapping (a syntax error, a
    /// positional field, an unknown conversion, nesting too deep), if any.
    pub fn static_error(&self) -> Option<PyError> {
        first_static_error(&self.seq)
    }

    /// Appends the rendered string to `out`; past `max_output` bytes, `LimitExceeded` (Python
    /// has no such bound).
    pub fn render_into<A: Args>(
        &self,
        args: &A,
        out: &mut String,
        max_output: usize,
    ) -> Result<(), <A::Value as FieldValue>::Error> {
        let mut r = Renderer {
            src: &self.source,
            args,
            numbering: Numbering::Init,
            max_output,
        };
        r.render_seq(&self.seq, out)
    }
}

/// `fmt.format(*args, **kwargs)` or `fmt.format_map(mapping)` (as `args` says) in one go.
pub fn format<A: Args>(
    fmt: &str,
    args: &A,
    max_output: usize,
) -> Result<String, <A::Value as FieldValue>::Error> {
    let seq = parse_seq(fmt, 0, fmt.len(), TOP_DEPTH);
    let mut out = String::with_capacity(fmt.len());
    let mut r = Renderer {
        src: fmt,
        args,
        numbering: Numbering::Init,
        max_output,
    };
    r.render_seq(&seq, &mut out)?;
    Ok(out)
}

/// A sequence of literal text and fields, up to its first syntax error.
#[derive(Debug)]
struct Seq {
    nodes: Vec<Node>,
    error: Option<PyError>,
}

#[derive(Debug)]
enum Node {
    /// Literal text: a byte range of the source (`{{` contributes its first brace).
    Lit(Range<usize>),
    Field(Box<Field>),
}

/// One replacement field `{name.attr[key]!c:spec}`.
#[derive(Debug)]
struct Field {
    /// The whole field, braces included: where its errors point.
    range: Range<usize>,
    /// The first name part, or the error CPython raises for it (too many digits).
    first: Result<First, PyError>,
    accessors: Vec<Accessor>,
    /// Raised after the accessors before it have been looked up.
    accessor_error: Option<PyError>,
    conversion: Option<char>,
    spec: SpecPart,
}

#[derive(Debug)]
enum First {
    /// A keyword: the byte range of its name.
    Name(Range<usize>),
    /// `{}`: the next positional argument.
    Auto,
    /// `{0}`: a positional argument by number.
    Index(i64),
}

#[derive(Debug)]
enum Accessor {
    /// `.name`
    Attr(Range<usize>),
    /// `[key]` with a key that is not all decimal digits.
    Key(Range<usize>),
    /// `[123]`
    Index(i64),
}

#[derive(Debug)]
enum SpecPart {
    /// A spec without nested fields (possibly empty), used as is.
    Literal(Range<usize>),
    /// A spec with nested fields, rendered first.
    Nested(Seq),
    /// A nested spec that would itself contain fields.
    TooDeep,
}

fn value_error(message: &str, range: Range<usize>) -> PyError {
    PyError::value_error(message).with_range(range)
}

fn unknown_conversion(c: char, range: Range<usize>) -> PyError {
    PyError::value_error(format!("Unknown conversion specifier {}", c_char(c))).with_range(range)
}

fn positional_fields(range: Range<usize>) -> PyError {
    value_error("Format string contains positional fields", range)
}

fn first_static_error(seq: &Seq) -> Option<PyError> {
    for node in &seq.nodes {
        let Node::Field(field) = node else { continue };
        match &field.first {
            Err(e) => return Some(e.clone()),
            Ok(First::Auto | First::Index(_)) => {
                return Some(positional_fields(field.range.clone()))
            }
            Ok(First::Name(_)) => {}
        }
        if let Some(e) = &field.accessor_error {
            return Some(e.clone());
        }
        if let Some(c) = field.conversion {
            if !matches!(c, 's' | 'r' | 'a') {
                return Some(unknown_conversion(c, field.range.clone()));
            }
        }
        match &field.spec {
            SpecPart::Nested(inner) => {
                if let Some(e) = first_static_error(inner) {
                    return Some(e);
                }
            }
            SpecPart::TooDeep => {
                return Some(value_error(
                    "Max string recursion exceeded",
                    field.range.clone(),
                ))
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

/// `get_integer` of unicode_format.h: `Ok(None)` unless `text` is non-empty and all decimal
/// digits (any script); overflow past `Py_ssize_t` is an error.
fn get_integer(text: &str, range: &Range<usize>) -> Result<Option<i64>, PyError> {
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
fn parse_seq(src: &str, start: usize, end: usize, depth: u32) -> Seq {
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
) -> Result<(Field, usize), PyError> {
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
        Ok(Some(i)) => Ok(First::Index(i)),
        Ok(None) if first_text.is_empty() => Ok(First::Auto),
        Ok(None) => Ok(First::Name(name.start..first_end)),
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

/// `AutoNumberState`: whether fields have been numbered automatically (`{}`) or by hand
/// (`{0}`); a format string may not mix the two, nested specs included.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Numbering {
    Init,
    Auto(usize),
    Manual,
}

struct Renderer<'s, 'a, A> {
    src: &'s str,
    args: &'a A,
    numbering: Numbering,
    max_output: usize,
}

type ErrorOf<A> = <<A as Args>::Value as FieldValue>::Error;

impl<A: Args> Renderer<'_, '_, A> {
    fn text(&self, r: &Range<usize>) -> &str {
        self.src.get(r.clone()).unwrap_or("")
    }

    fn render_seq(&mut self, seq: &Seq, out: &mut String) -> Result<(), ErrorOf<A>> {
        for node in &seq.nodes {
            match node {
                Node::Lit(r) => out.push_str(self.text(r)),
                Node::Field(field) => {
                    self.render_field(field, out)?;
                    if out.len() > self.max_output {
                        return Err(PyError::new(
                            PyErrorKind::LimitExceeded,
                            format!("output exceeds the limit of {} bytes", self.max_output),
                        )
                        .with_range(field.range.clone())
                        .into());
                    }
                }
            }
        }
        match &seq.error {
            Some(e) => Err(e.clone().into()),
            None => Ok(()),
        }
    }

    /// `field_name_split`'s numbering, then `get_field_object`'s argument lookup.
    fn first_object(&mut self, field: &Field) -> Result<A::Value, ErrorOf<A>> {
        let index = match field.first.as_ref().map_err(Clone::clone)? {
            First::Name(r) => return self.args.keyword(self.text(r)),
            First::Auto => match self.numbering {
                Numbering::Manual => {
                    return Err(value_error(
                        "cannot switch from manual field specification to automatic field \
                         numbering",
                        field.range.clone(),
                    )
                    .into())
                }
                Numbering::Init | Numbering::Auto(_) => {
                    let next = match self.numbering {
                        Numbering::Auto(n) => n,
                        _ => 0,
                    };
                    self.numbering = Numbering::Auto(next + 1);
                    next as i64
                }
            },
            First::Index(i) => match self.numbering {
                Numbering::Auto(_) => {
                    return Err(value_error(
                        "cannot switch from automatic field numbering to manual field \
                         specification",
                        field.range.clone(),
                    )
                    .into())
                }
                Numbering::Init | Numbering::Manual => {
                    self.numbering = Numbering::Manual;
                    *i
                }
            },
        };
        let Some(count) = self.args.positional_count() else {
            return Err(positional_fields(field.range.clone()).into());
        };
        match usize::try_from(index) {
            Ok(i) if i < count => Ok(self.args.positional(i)),
            _ => Err(PyError::new(
                PyErrorKind::IndexError,
                format!("Replacement index {index} out of range for positional args tuple"),
            )
            .into()),
        }
    }

    /// `get_field_object`: the first name, then each accessor.
    fn resolve(&mut self, field: &Field) -> Result<A::Value, ErrorOf<A>> {
        let mut obj = self.first_object(field)?;
        for accessor in &field.accessors {
            obj = match accessor {
                Accessor::Attr(r) => obj.get_attr(self.text(r))?,
                Accessor::Key(r) => obj.get_key(self.text(r))?,
                Accessor::Index(i) => obj.get_index(*i)?,
            };
        }
        match &field.accessor_error {
            Some(e) => Err(e.clone().into()),
            None => Ok(obj),
        }
    }

    /// `output_markup`: look the object up, convert it, expand its spec, format it.
    fn render_field(&mut self, field: &Field, out: &mut String) -> Result<(), ErrorOf<A>> {
        let at = |e: ErrorOf<A>| e.or_at(field.range.clone());
        let obj = self.resolve(field).map_err(at)?;
        let converted = match field.conversion {
            None => None,
            Some(c) => {
                let conversion = match c {
                    's' => Conversion::Str,
                    'r' => Conversion::Repr,
                    'a' => Conversion::Ascii,
                    _ => return Err(unknown_conversion(c, field.range.clone()).into()),
                };
                Some(obj.convert(conversion).map_err(at)?)
            }
        };
        let spec: Cow<'_, str> = match &field.spec {
            SpecPart::Literal(r) => Cow::Borrowed(self.text(r)),
            SpecPart::Nested(seq) => {
                let mut s = String::new();
                self.render_seq(seq, &mut s)?;
                Cow::Owned(s)
            }
            SpecPart::TooDeep => {
                return Err(
                    value_error("Max string recursion exceeded", field.range.clone()).into(),
                )
            }
        };
        match &converted {
            Some(text) => {
                super::format_str(out, text, &spec).map_err(|e| at(ErrorOf::<A>::from(e)))
            }
            None => obj.format_into(out, &spec).map_err(at),
        }
    }
}

#[cfg(test)]
mod tests;
