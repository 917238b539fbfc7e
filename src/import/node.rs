//! A value of a recorded request with where it sits: its JSON pointer and its record's text, so
//! every error names the line, the column and the field.

use std::borrow::Cow;

use super::ImportError;
use crate::json::{self, Json, Kind};

/// The text a record was read from and where that text sits in the file.
pub(crate) struct Doc<'t> {
    pub text: &'t str,
    /// The file's line the text starts on (a JSON-lines record's line; 1 for a whole file).
    pub first_line: usize,
    /// When the text is JSON held in a string of the file (an OpenTelemetry attribute): where
    /// that string is, since positions inside its decoded text are not the file's.
    pub host: Option<Host<'t>>,
    /// The pointer of the text's root within its record (a JSON attribute value of a span).
    pub prefix: String,
}

/// Where a string holding JSON text sits. Its line and column are worked out only when an
/// error needs them: counting lines from the top of the file for every attribute of an export
/// made reading one quadratic in its spans.
#[derive(Clone)]
pub(crate) struct Host<'t> {
    /// The text the string is in, the file's line that text starts on, and the string's offset.
    pub text: &'t str,
    pub first_line: usize,
    pub offset: usize,
    pub pointer: String,
    /// What the string is (`the gen_ai.input.messages attribute`).
    pub what: String,
}

impl Host<'_> {
    fn line_col(&self) -> (usize, usize) {
        let (line, column) = json::line_col(self.text, self.offset);
        (self.first_line + line - 1, column)
    }
}

impl Doc<'_> {
    /// The error at byte `offset` of this text, field `pointer`.
    pub fn error_at(
        &self,
        offset: usize,
        pointer: &str,
        message: impl Into<String>,
    ) -> ImportError {
        let message = message.into();
        let (line, column) = json::line_col(self.text, offset);
        match &self.host {
            None => ImportError {
                file: None,
                line: self.first_line + line - 1,
                column,
                pointer: format!("{}{pointer}", self.prefix),
                message,
            },
            Some(host) => {
                let (host_line, host_column) = host.line_col();
                ImportError {
                    file: None,
                    line: host_line,
                    column: host_column,
                    pointer: host.pointer.clone(),
                    message: format!(
                    "in the JSON text of {}, at {} (its line {line}, column {column}): {message}",
                    host.what,
                    if pointer.is_empty() { "the top" } else { pointer }
                ),
                }
            }
        }
    }
}

/// Parses a record, with a JSON syntax error at its line and column.
pub(crate) fn parse(doc: &Doc<'_>) -> Result<Json, ImportError> {
    json::parse(doc.text)
        .map_err(|e| doc.error_at(e.offset, "", format!("invalid JSON: {}", e.message)))
}

#[derive(Clone)]
pub(crate) struct Node<'a> {
    pub json: &'a Json,
    pub doc: &'a Doc<'a>,
    pub ptr: String,
}

/// One RFC 6901 reference token.
fn escape(key: &str) -> Cow<'_, str> {
    if key.contains(['~', '/']) {
        Cow::Owned(key.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(key)
    }
}

impl<'a> Node<'a> {
    pub fn root(json: &'a Json, doc: &'a Doc<'a>) -> Node<'a> {
        Node {
            json,
            doc,
            ptr: String::new(),
        }
    }

    pub fn err(&self, message: impl Into<String>) -> ImportError {
        self.doc.error_at(self.json.span.start, &self.ptr, message)
    }

    fn expected(&self, what: &str) -> ImportError {
        self.err(format!(
            "expected {what}, found {}",
            self.json.kind.describe()
        ))
    }

    pub fn is_null(&self) -> bool {
        self.json.kind == Kind::Null
    }

    pub fn is_object(&self) -> bool {
        matches!(self.json.kind, Kind::Object(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self.json.kind, Kind::Array(_))
    }

    pub fn as_str(&self) -> Option<&'a str> {
        match &self.json.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn str(&self) -> Result<&'a str, ImportError> {
        self.as_str().ok_or_else(|| self.expected("a string"))
    }

    /// Checks that the node is an object.
    pub fn object(&self) -> Result<(), ImportError> {
        if self.is_object() {
            Ok(())
        } else {
            Err(self.expected("an object"))
        }
    }

    /// The members, in file order, as nodes (keys with their pointers).
    pub fn members(&self) -> Result<Vec<(&'a str, Node<'a>)>, ImportError> {
        match &self.json.kind {
            Kind::Object(members) => Ok(members
                .iter()
                .map(|m| {
                    (
                        m.key.as_str(),
                        Node {
                            json: &m.value,
                            doc: self.doc,
                            ptr: format!("{}/{}", self.ptr, escape(&m.key)),
                        },
                    )
                })
                .collect()),
            _ => Err(self.expected("an object")),
        }
    }

    /// The items when the node is an array, with no error otherwise (an error costs a scan of
    /// the text up to the node for its line, too much for a check made on every message).
    pub fn array(&self) -> Option<Vec<Node<'a>>> {
        if self.is_array() {
            self.items().ok()
        } else {
            None
        }
    }

    pub fn items(&self) -> Result<Vec<Node<'a>>, ImportError> {
        match &self.json.kind {
            Kind::Array(items) => Ok(items
                .iter()
                .enumerate()
                .map(|(i, json)| Node {
                    json,
                    doc: self.doc,
                    ptr: format!("{}/{i}", self.ptr),
                })
                .collect()),
            _ => Err(self.expected("an array")),
        }
    }

    /// The member `key`; `null` reads as absent, as the providers' SDKs send it.
    pub fn get(&self, key: &str) -> Option<Node<'a>> {
        let value = self.json.get(key)?;
        (value.kind != Kind::Null).then(|| Node {
            json: value,
            doc: self.doc,
            ptr: format!("{}/{}", self.ptr, escape(key)),
        })
    }

    pub fn req(&self, key: &str) -> Result<Node<'a>, ImportError> {
        self.object()?;
        self.get(key)
            .ok_or_else(|| self.err(format!("missing field {key:?}")))
    }

    pub fn req_str(&self, key: &str) -> Result<&'a str, ImportError> {
        self.req(key)?.str()
    }

    pub fn opt_str(&self, key: &str) -> Result<Option<&'a str>, ImportError> {
        self.get(key).map(|n| n.str()).transpose()
    }

    /// The value as JSON for the scene being written: integers exact, and a number too large
    /// for a float (`1e999`) kept as its text, which the scene loader reads back as the
    /// request's reader would. `NaN` and `Infinity` have no JSON text: they are refused, with
    /// their position, rather than written as something else.
    pub fn to_json(&self) -> Result<serde_json::Value, ImportError> {
        tree_to_json(self.json, self.doc.text).map_err(|(offset, what)| {
            self.doc.error_at(
                offset,
                &self.ptr,
                format!("{what} is not a JSON number: a scene cannot hold it as it is"),
            )
        })
    }

    /// A short rendering of the value for the lists of what was not mapped (the source text
    /// when the value has no JSON form).
    pub fn excerpt(&self) -> String {
        tree_excerpt(self.json, self.doc.text)
    }
}

/// [`Node::excerpt`] of a tree read from `text`.
pub(crate) fn tree_excerpt(json: &Json, text: &str) -> String {
    match tree_to_json(json, text) {
        Ok(v) => excerpt(&v),
        Err(_) => cut(text.get(json.span.clone()).unwrap_or("")),
    }
}

/// A tree as JSON, with each float that is not finite written as its source text when that
/// text is a JSON number; `Err((offset, text))` for one that is not (`NaN`, `Infinity`).
pub(crate) fn tree_to_json(json: &Json, text: &str) -> Result<serde_json::Value, (usize, String)> {
    use serde_json::Value as J;
    Ok(match &json.kind {
        Kind::Float(f) if !f.is_finite() => {
            let source = text.get(json.span.clone()).unwrap_or("").trim();
            match source.parse::<serde_json::Number>() {
                // Without a digit the text would be a word that happened to parse.
                Ok(n) if source.bytes().any(|b| b.is_ascii_digit()) => J::Number(n),
                _ => {
                    let shown = if source.is_empty() {
                        f.to_string()
                    } else {
                        source.to_owned()
                    };
                    return Err((json.span.start, shown));
                }
            }
        }
        Kind::Array(items) => J::Array(
            items
                .iter()
                .map(|i| tree_to_json(i, text))
                .collect::<Result<_, _>>()?,
        ),
        Kind::Object(members) => {
            let mut map = serde_json::Map::with_capacity(members.len());
            for m in members {
                map.insert(m.key.clone(), tree_to_json(&m.value, text)?);
            }
            J::Object(map)
        }
        _ => serde_json::to_value(json.to_value()).unwrap_or(J::Null),
    })
}

/// Compact JSON, cut to 80 characters.
pub(crate) fn excerpt(v: &serde_json::Value) -> String {
    cut(&v.to_string())
}

/// Text cut to 80 characters.
fn cut(text: &str) -> String {
    const MAX: usize = 80;
    if text.chars().count() <= MAX {
        return text.to_owned();
    }
    let cut: String = text.chars().take(MAX).collect();
    format!("{cut}…")
}
