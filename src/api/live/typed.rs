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
use crate::api::validate::{TemplateCheck, ToolCheck};
use crate::api::{ApiError, ErrorCode, ValidateResponse};
use crate::inject::Report;
use crate::report::{Diagnostic, InputCost, MessageOut, PieceOut, SegmentOut, ToolOut};

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
    fn list<T: Element>(&mut self, a: &[T], b: &[T]) -> Step {
        let (head, am, bm) = middles(a, b);
        if am.len() == bm.len() {
            for (i, (x, y)) in am.iter().zip(bm).enumerate() {
                if x != y {
                    self.path.push(PathStep::Index(u32_of(head + i)));
                    let r = T::changed(self, x, y);
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

/// A list element of the shown tree. An element that differs is converted to JSON and walked;
/// the ones a keystroke changes in one small field, hundreds at a time (a byte range that moved
/// by the typed character), are compared field by field instead, giving the same ops.
trait Element: PartialEq + Serialize {
    /// The ops for `a` into `b`, which differ, at the diff's current path.
    fn changed(d: &mut Diff, a: &Self, b: &Self) -> Step {
        d.field(a, b)
    }
}

impl Element for MessageOut {}
impl Element for Diagnostic {}
impl Element for ToolOut {}
impl Element for InputCost {}
impl Element for ToolCheck {}

impl Element for TemplateCheck {
    fn changed(d: &mut Diff, a: &Self, b: &Self) -> Step {
        let TemplateCheck {
            path,
            owner,
            tool,
            segment,
            engine,
            locale,
            span,
            error,
        } = a;
        let moved_only = *path == b.path
            && *owner == b.owner
            && *tool == b.tool
            && *segment == b.segment
            && *engine == b.engine
            && *locale == b.locale
            && *error == b.error;
        if moved_only {
            d.at("span", |d| d.field(span, &b.span))
        } else {
            d.field(a, b)
        }
    }
}

impl Element for PieceOut {
    fn changed(d: &mut Diff, a: &Self, b: &Self) -> Step {
        let PieceOut {
            source,
            tool,
            index,
            text,
            attachments,
            range,
            tokens,
        } = a;
        let moved_only = *source == b.source
            && *tool == b.tool
            && *index == b.index
            && *text == b.text
            && *attachments == b.attachments
            && *tokens == b.tokens;
        if moved_only {
            d.at("range", |d| d.field(range, &b.range))
        } else {
            d.field(a, b)
        }
    }
}

impl Element for SegmentOut {
    /// Field by field, so that a segment's pieces are a list of their own; unless an optional
    /// field appears or goes, where the walk of the JSON decides how the object is patched.
    fn changed(d: &mut Diff, a: &Self, b: &Self) -> Step {
        let SegmentOut {
            name,
            legal,
            rule,
            text,
            bytes,
            tokens,
            messages,
            pieces,
        } = a;
        let same_keys = rule.is_some() == b.rule.is_some()
            && tokens.is_some() == b.tokens.is_some()
            && messages.is_some() == b.messages.is_some();
        if !same_keys {
            return d.field(a, b);
        }
        d.at("name", |d| d.field(name, &b.name))?;
        d.at("legal", |d| d.field(legal, &b.legal))?;
        d.at("rule", |d| d.option(rule, &b.rule, false))?;
        d.at("text", |d| d.field(text, &b.text))?;
        d.at("bytes", |d| d.field(bytes, &b.bytes))?;
        d.at("tokens", |d| d.option(tokens, &b.tokens, false))?;
        d.at("messages", |d| d.option(messages, &b.messages, false))?;
        d.at("pieces", |d| d.list(pieces, &b.pieces))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::validate::{Owner, TemplateProblem};
    use crate::report::Source;

    /// The ops of the typed list diff, and those of walking the two lists as JSON.
    fn both<T: Element>(a: &[T], b: &[T]) -> (Vec<PatchOp>, Vec<PatchOp>) {
        let mut d = Diff {
            path: vec![PathStep::Key("list".into())],
            ops: Vec::new(),
        };
        d.list(a, b).expect("diffs");
        let mut path = vec![PathStep::Key("list".into())];
        let mut walked = Vec::new();
        walk(
            &value(a).expect("serialises"),
            &value(b).expect("serialises"),
            &mut path,
            &mut walked,
        );
        (d.ops, walked)
    }

    fn piece(tool: &str, text: &str, at: usize, tokens: Option<usize>) -> PieceOut {
        PieceOut {
            source: Source::Tool,
            tool: Some(tool.into()),
            index: None,
            text: text.into(),
            attachments: Vec::new(),
            range: [at, at + text.len()],
            tokens,
        }
    }

    fn segment(pieces: Vec<PieceOut>, tokens: Option<usize>) -> SegmentOut {
        let text = pieces
            .iter()
            .map(|p| p.text.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        SegmentOut {
            name: "system_msg_prompt",
            legal: true,
            rule: None,
            bytes: text.len(),
            text,
            tokens,
            messages: None,
            pieces,
        }
    }

    /// Three pieces; the first one's text is `first`, the others start after it.
    fn pieces(first: &str, tokens: Option<usize>) -> Vec<PieceOut> {
        let mut at = 0;
        ["a", "b", "c"]
            .iter()
            .zip([first, "second piece", "third piece"])
            .map(|(tool, text)| {
                let p = piece(tool, text, at, tokens);
                at += text.len() + 1;
                p
            })
            .collect()
    }

    #[test]
    fn segments_diff_field_by_field_as_the_walk_does() {
        let before = vec![segment(pieces("one", Some(1)), Some(5))];
        let cases = [
            // A typed character: the first piece's text, every later range, the segment's text.
            vec![segment(pieces("one!", Some(1)), Some(5))],
            // Counts that change, with the ranges.
            vec![segment(pieces("one two", Some(2)), Some(7))],
            // A count that goes: the walk patches that key away.
            vec![segment(pieces("one", Some(1)), None)],
            // A piece more: the pieces are spliced.
            vec![segment(
                {
                    let mut p = pieces("one", Some(1));
                    p.push(piece("d", "fourth", 40, Some(1)));
                    p
                },
                Some(6),
            )],
            before.clone(),
        ];
        for after in cases {
            let (typed, walked) = both(&before, &after);
            assert_eq!(typed, walked, "{after:?}");
        }
        let (typed, _) = both(&before, &[segment(pieces("one!", Some(1)), Some(5))]);
        assert!(
            typed.len() > 3,
            "the ranges that moved are patched: {typed:?}"
        );
    }

    fn check(span: [u32; 2], error: Option<&str>) -> TemplateCheck {
        TemplateCheck {
            path: "tools[0].format_2_prompt.source.templates.default".into(),
            owner: Owner::Tool,
            tool: Some("a".into()),
            segment: None,
            engine: "jinja2".into(),
            locale: "default".into(),
            span,
            error: error.map(|m| TemplateProblem {
                kind: "TemplateSyntaxError".into(),
                message: m.into(),
                range: None,
                line: Some(1),
                column: Some(2),
            }),
        }
    }

    #[test]
    fn template_checks_diff_their_span_as_the_walk_does() {
        let before = [
            check([10, 20], None),
            check([30, 40], Some("unexpected '}'")),
        ];
        let cases = [
            [
                check([11, 21], None),
                check([31, 41], Some("unexpected '}'")),
            ],
            [
                check([10, 20], Some("unexpected end")),
                check([31, 41], None),
            ],
            [check([10, 20], None), check([31, 41], Some("another"))],
        ];
        for after in cases {
            let (typed, walked) = both(&before, &after);
            assert_eq!(typed, walked, "{after:?}");
            assert!(!typed.is_empty());
        }
    }
}
