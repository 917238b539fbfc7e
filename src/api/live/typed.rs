//! The diff of two renders of the same document, on the core's own types.
//!
//! Converting two whole reports to JSON trees to compare them costs more than rendering them (the
//! chat report of a large scene holds every message). The reports are compared as they are, field
//! by field and element by element, and only what differs is converted and walked by the generic
//! [`diff`](super::diff) to find the smallest ops.

use serde::Serialize;
use serde_json::Value;

use super::diff::{middles, walk, PatchOp, PathStep};
use crate::api::error::u32_of;
use crate::api::{ApiError, ErrorCode, ValidateResponse};
use crate::inject::Report;

/// What the page holds: the reports and the editor's template checks.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    pub chat: Report,
    pub desk: Report,
    pub validate: ValidateResponse,
}

/// The fields of [`Report`] this diff knows; a test fails when the report gains one.
pub const REPORT_FIELDS: [&str; 9] = [
    "llm",
    "tokenizer",
    "messages",
    "request",
    "segments",
    "tools",
    "diagnostics",
    "metrics",
    "costs",
];

impl Shown {
    /// The whole tree, `{chat, desk, validate}`, for a first open.
    pub fn to_value(&self) -> Result<Value, ApiError> {
        let mut m = serde_json::Map::new();
        m.insert("chat".into(), value(&self.chat)?);
        m.insert("desk".into(), value(&self.desk)?);
        m.insert("validate".into(), value(&self.validate)?);
        Ok(Value::Object(m))
    }

    /// The ops that turn `prev`'s tree into `self`'s.
    pub fn diff(&self, prev: &Shown) -> Result<Vec<PatchOp>, ApiError> {
        let mut d = Diff {
            path: Vec::new(),
            ops: Vec::new(),
        };
        d.at("chat", |d| d.report(&prev.chat, &self.chat))?;
        d.at("desk", |d| d.report(&prev.desk, &self.desk))?;
        d.at("validate", |d| {
            let (a, b) = (&prev.validate, &self.validate);
            d.at("load_error", |d| {
                d.option(&a.load_error, &b.load_error, true)
            })?;
            d.at("templates", |d| d.list(&a.templates, &b.templates))?;
            d.at("tools", |d| d.list(&a.tools, &b.tools))
        })?;
        Ok(d.ops)
    }
}

/// The parts of a report that pricing sets: its `costs`, and its findings (pricing adds the
/// cache-minimum ones).
pub struct Priced {
    pub costs: Vec<crate::report::InputCost>,
    pub diagnostics: Vec<crate::report::Diagnostic>,
}

/// The ops that turn the shown reports' priced parts `chat` and `desk` into those of the
/// reports priced since (nothing else of a report changes when it is priced).
pub fn costs_patch(
    chat: &Priced,
    priced_chat: &Report,
    desk: &Priced,
    priced_desk: &Report,
) -> Result<Vec<PatchOp>, ApiError> {
    let mut d = Diff {
        path: Vec::new(),
        ops: Vec::new(),
    };
    for (key, a, b) in [("chat", chat, priced_chat), ("desk", desk, priced_desk)] {
        d.at(key, |d| {
            d.at("diagnostics", |d| d.list(&a.diagnostics, &b.diagnostics))?;
            d.at("costs", |d| d.costs(&a.costs, &b.costs))
        })?;
    }
    Ok(d.ops)
}

fn value<T: Serialize + ?Sized>(v: &T) -> Result<Value, ApiError> {
    serde_json::to_value(v)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("serialising: {e}")))
}

struct Diff {
    path: Vec<PathStep>,
    ops: Vec<PatchOp>,
}

type Step = Result<(), ApiError>;

impl Diff {
    fn at(&mut self, key: &str, f: impl FnOnce(&mut Diff) -> Step) -> Step {
        self.path.push(PathStep::Key(key.to_owned()));
        let r = f(self);
        self.path.pop();
        r
    }

    fn report(&mut self, a: &Report, b: &Report) -> Step {
        self.at("llm", |d| d.field(&a.llm, &b.llm))?;
        self.at("tokenizer", |d| d.option(&a.tokenizer, &b.tokenizer, false))?;
        self.at("messages", |d| match (&a.messages, &b.messages) {
            (Some(x), Some(y)) => d.list(x, y),
            (x, y) => d.option(x, y, false),
        })?;
        self.at("request", |d| match (&a.request, &b.request) {
            (Some(x), Some(y)) => {
                walk(x, y, &mut d.path, &mut d.ops);
                Ok(())
            }
            (x, y) => d.option(x, y, false),
        })?;
        self.at("segments", |d| d.list(&a.segments, &b.segments))?;
        self.at("tools", |d| d.list(&a.tools, &b.tools))?;
        self.at("diagnostics", |d| d.list(&a.diagnostics, &b.diagnostics))?;
        self.at("metrics", |d| d.field(&a.metrics, &b.metrics))?;
        self.at("costs", |d| d.costs(&a.costs, &b.costs))
    }

    /// A report's `costs`, left out of the JSON when empty (no models asked for, or no tokens
    /// counted).
    fn costs(&mut self, a: &[crate::report::InputCost], b: &[crate::report::InputCost]) -> Step {
        match (a.is_empty(), b.is_empty()) {
            (false, false) => self.list(a, b),
            (true, true) => Ok(()),
            (false, true) => self.option(&Some(a), &None, false),
            (true, false) => self.option(&None, &Some(b), false),
        }
    }

    /// A field serialised only when present (`skip_serializing_if`), or as `null` when `nulls`.
    fn option<T: PartialEq + Serialize>(
        &mut self,
        a: &Option<T>,
        b: &Option<T>,
        nulls: bool,
    ) -> Step {
        match (a, b) {
            (Some(x), Some(y)) => self.field(x, y),
            (None, None) => Ok(()),
            (Some(_), None) if !nulls => {
                self.ops.push(PatchOp::Remove {
                    path: self.path.clone(),
                });
                Ok(())
            }
            _ => {
                let value = value(b)?;
                self.ops.push(PatchOp::Set {
                    path: self.path.clone(),
                    value,
                });
                Ok(())
            }
        }
    }

    /// A value compared as it is; converted and walked only when it differs.
    fn field<T: PartialEq + Serialize + ?Sized>(&mut self, a: &T, b: &T) -> Step {
        if a != b {
            walk(&value(a)?, &value(b)?, &mut self.path, &mut self.ops);
        }
        Ok(())
    }

    /// A list: the common head and tail are skipped; a middle of the same length is compared
    /// element by element, otherwise it is spliced.
    fn list<T: PartialEq + Serialize>(&mut self, a: &[T], b: &[T]) -> Step {
        let (head, am, bm) = middles(a, b);
        if am.len() == bm.len() {
            for (i, (x, y)) in am.iter().zip(bm).enumerate() {
                if x != y {
                    self.path.push(PathStep::Index(u32_of(head + i)));
                    let r = self.field(x, y);
                    self.path.pop();
                    r?;
                }
            }
        } else {
            let items = bm.iter().map(value).collect::<Result<_, _>>()?;
            self.ops.push(PatchOp::Splice {
                path: self.path.clone(),
                start: u32_of(head),
                delete: u32_of(am.len()),
                items,
            });
        }
        Ok(())
    }
}
