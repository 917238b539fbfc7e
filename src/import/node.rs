//! A value of a recorded request with where it sits: its JSON pointer and its record's text, so
//! every error names the line, the column and the field.

use std::borrow::Cow;

use super::ImportError;
use crate::json::{self, Json, Kind};
use crate::value::Value;

/// The text a record was read from and where that text sits in the file.
pub(crate) struct Doc<'t> {
    pub text: &'t str,
    /// The file's line the text starts on (a JSON-lines record's line; 1 for a whole file).
    pub first_line: usize,
    /// When the text is JSON held in a string of the file (an OpenTelemetry attribute): where
    /// that string is, since positions inside its decoded text are not the file's.
    pub host: Option<Host>,
    /// The pointer of the text's root within its record (a JSON attribute value of a span).
    pub prefix: String,
}

pub(crate) struct Host {
    pub line: usize,
    pub column: usize,
    pub pointer: String,
    /// What the string is (`the gen_ai.input.messages attribute`).
    pub what: String,
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
                ImportError {
                    file: None,
                    line: host.line,
                    column: host.column,
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

    /// The position of byte `offset` in the file (the host string's for embedded text).
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        match &self.host {
            Some(h) => (h.line, h.column),
            None => {
                let (line, column) = json::line_col(self.text, offset);
                (self.first_line + line - 1, column)
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

    /// The value as Python's `json.loads` reads it.
    pub fn value(&self) -> Value {
        self.json.to_value()
    }

    /// The value as JSON for the scene being written (numbers kept exact).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self.value()).unwrap_or(serde_json::Value::Null)
    }

    /// A short rendering of the value for the lists of what was not mapped.
    pub fn excerpt(&self) -> String {
        excerpt(&self.to_json())
    }
}

/// Compact JSON, cut to 80 characters.
pub(crate) fn excerpt(v: &serde_json::Value) -> String {
    const MAX: usize = 80;
    let text = v.to_string();
    if text.chars().count() <= MAX {
        return text;
    }
    let cut: String = text.chars().take(MAX).collect();
    format!("{cut}…")
}
