//! What a mismatch changes in money: for each family whose request changed and each chosen
//! model, the call's input as that model's provider bills it, its price as a first call, and
//! what that provider's prompt cache would serve, in the golden and now (docs/cli.md, "check").
//!
//! Both sides are priced today, with today's prices and counting rules: the golden's call is
//! rebuilt from its report (its messages or segments, and its tool definitions, which a golden
//! keeps only in the desk request) and counted as the scene's call is now, so the difference is
//! the change to what is sent, not to the counting.

use std::path::Path;

use serde::Serialize;
use serde_json::Value as Json;

use crate::billing::{BilledPart, Prediction};
use crate::pricing::cost::{automatic_read, CallCost};
use crate::pricing::request::{self, Sent};
use crate::pricing::{Growth, Row};
use crate::provider::ToolDef;
use crate::report::{MessageOut, PieceOut, Report, SegmentOut, Source};
use crate::usage::Provenance;

/// One model's figures for one family's call, in the golden and now.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CostChange {
    /// `chat` or `desk`.
    pub llm: &'static str,
    /// The models table row's id.
    pub model: String,
    /// How far the token and cost figures can be off (the looser of the two sides').
    pub provenance: Provenance,
    /// The call's input as the row's provider bills it.
    pub tokens_before: usize,
    pub tokens_after: usize,
    /// Its price as a first call, nothing cached, in USD.
    pub cost_before_usd: f64,
    pub cost_after_usd: f64,
    /// The tokens the two calls share from the start, compared as the provider compares them.
    pub common_prefix_tokens: usize,
    /// What the cache serves the golden's call sent again unchanged...
    pub cache_read_before: usize,
    /// ...and the call now, from a cache the golden's call filled: a change early in the
    /// request makes this smaller.
    pub cache_read_after: usize,
}

impl CostChange {
    pub fn token_delta(&self) -> i64 {
        signed(self.tokens_after) - signed(self.tokens_before)
    }

    pub fn cost_delta_usd(&self) -> f64 {
        crate::pricing::cost::round_usd(self.cost_after_usd - self.cost_before_usd)
    }

    pub fn cache_read_delta(&self) -> i64 {
        signed(self.cache_read_after) - signed(self.cache_read_before)
    }
}

fn signed(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The cost changes of a mismatch: `golden` is the golden file's text, `now` the reports the
/// scene renders today with the tool definitions they send. Families whose call is the same in
/// both are left out; so is a side that cannot be rebuilt (a golden that is not one).
pub fn changes(
    golden: &str,
    now: [(&Report, &Sent); 2],
    base_dir: Option<&Path>,
    rows: &[Row],
) -> Vec<CostChange> {
    let Some(golden) = super::read_report(golden) else {
        return Vec::new();
    };
    let golden_tools = golden
        .get("desk")
        .and_then(|d| d.get("request"))
        .map(tool_defs_of_request)
        .unwrap_or_default();
    let mut out = Vec::new();
    for (report, sent) in now {
        let Some(before) = golden.get(report.llm).and_then(report_of) else {
            continue;
        };
        let before_sent = Sent {
            tools: tools_then(&golden, report.llm, &golden_tools, sent),
            base_dir,
        };
        for row in rows {
            let (Ok(b), Ok(a)) = (
                request::billed(&before, &before_sent, row),
                request::billed(report, sent, row),
            ) else {
                tracing::warn!(model = %row.id, llm = report.llm, "a side of the mismatch cannot be counted");
                continue;
            };
            if same_call(&b, &a) {
                continue;
            }
            out.push(change(report.llm, row, &b, &a));
        }
    }
    out
}

fn same_call(b: &Prediction, a: &Prediction) -> bool {
    b.input_tokens == a.input_tokens
        && b.parts.len() == a.parts.len()
        && b.parts
            .iter()
            .zip(&a.parts)
            .all(|(x, y)| x.canonical == y.canonical)
}

fn change(llm: &'static str, row: &Row, b: &Prediction, a: &Prediction) -> CostChange {
    let common_parts = b
        .parts
        .iter()
        .zip(&a.parts)
        .take_while(|(x, y)| x.canonical == y.canonical)
        .count();
    let common_prefix_tokens: usize = a.parts[..common_parts].iter().map(|p| p.tokens).sum();
    let first_call = |tokens| CallCost::of(row, tokens, 0, 0).cost_usd;
    let (cache_read_before, cache_read_after) = match row.cache.growth {
        Growth::Breakpoints => (
            breakpoint_read(row, &b.parts, &b.parts, b.parts.len()),
            breakpoint_read(row, &b.parts, &a.parts, common_parts),
        ),
        Growth::Units | Growth::ImplicitPrefix => (
            automatic_read(row, b.input_tokens),
            automatic_read(row, common_prefix_tokens),
        ),
    };
    CostChange {
        llm,
        model: row.id.clone(),
        provenance: b.provenance.combine(&a.provenance),
        tokens_before: b.input_tokens,
        tokens_after: a.input_tokens,
        cost_before_usd: first_call(b.input_tokens),
        cost_after_usd: first_call(a.input_tokens),
        common_prefix_tokens,
        cache_read_before,
        cache_read_after,
    }
}

/// What a breakpoint cache serves `now` after `written` was sent: the longest prefix ending at
/// one of `written`'s breakpoints that lies within the first `common` parts (the prefix the
/// two share), that is at least the row's minimum, and that one of `now`'s own breakpoints
/// reaches back to within the row's lookback.
fn breakpoint_read(row: &Row, written: &[BilledPart], now: &[BilledPart], common: usize) -> usize {
    let lookback = row.cache.lookback_blocks.unwrap_or(usize::MAX);
    let mut best = 0;
    let mut prefix = 0;
    for (j, part) in written.iter().enumerate().take(common) {
        prefix += part.tokens;
        if part.breakpoint.is_none() || prefix < row.cache.min_tokens {
            continue;
        }
        let reached = now
            .iter()
            .enumerate()
            .any(|(k, p)| p.breakpoint.is_some() && k >= j && k - j <= lookback);
        if reached {
            best = prefix;
        }
    }
    best
}

/// The tool definitions the golden's call sent: for each tool its report defines, today's
/// definition when it has the golden's size (it is the same one), else the one the golden's
/// desk request holds, else today's.
fn tools_then(golden: &Json, llm: &str, from_request: &[ToolDef], now: &Sent) -> Vec<ToolDef> {
    let sizes: Vec<(String, Option<usize>)> = golden
        .get(llm)
        .and_then(|r| r.get("tools"))
        .and_then(Json::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| {
                    let name = t.get("name")?.as_str()?.to_owned();
                    let definition = t.get("definition")?;
                    let bytes = definition.get("bytes").and_then(Json::as_u64);
                    Some((name, bytes.and_then(|b| usize::try_from(b).ok())))
                })
                .collect()
        })
        .unwrap_or_default();
    sizes
        .into_iter()
        .filter_map(|(name, bytes)| {
            let today = now.tools.iter().find(|d| d.name == name);
            match today {
                Some(d) if Some(d.text().len()) == bytes => Some(d.clone()),
                _ => from_request
                    .iter()
                    .find(|d| d.name == name)
                    .or(today)
                    .cloned(),
            }
        })
        .collect()
}

/// Tool definitions read back from a request body in any of the shapes `provider` writes
/// (chat completions, Responses, Anthropic, Gemini).
pub fn tool_defs_of_request(body: &Json) -> Vec<ToolDef> {
    let Some(tools) = body.get("tools").and_then(Json::as_array) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in tools {
        if let Some(declarations) = t.get("functionDeclarations").and_then(Json::as_array) {
            out.extend(declarations.iter().filter_map(|d| {
                def(d, "parametersJsonSchema").map(|mut def| {
                    // Gemini's body writes an absent description as "".
                    def.description = def.description.filter(|s| !s.is_empty());
                    def
                })
            }));
            continue;
        }
        let f = t.get("function").unwrap_or(t);
        if let Some(d) = def(f, "parameters").or_else(|| def(f, "input_schema")) {
            out.push(d);
        }
    }
    out
}

fn def(f: &Json, schema_key: &str) -> Option<ToolDef> {
    Some(ToolDef {
        name: f.get("name")?.as_str()?.to_owned(),
        description: f
            .get("description")
            .and_then(Json::as_str)
            .map(str::to_owned),
        parameters: f.get(schema_key)?.clone(),
    })
}

/// A family's report in a golden, as far as a request is built from it: its messages and its
/// segments' text and attachments. `None` for a value that is not a report.
pub fn report_of(value: &Json) -> Option<Report> {
    let llm = match value.get("llm")?.as_str()? {
        "chat" => "chat",
        "desk" => "desk",
        _ => return None,
    };
    let tokenizer = value
        .get("tokenizer")
        .and_then(Json::as_str)
        .and_then(|t| crate::tokens::Encoding::parse(t).ok());
    let segments = value
        .get("segments")?
        .as_array()?
        .iter()
        .filter_map(segment_of)
        .collect();
    let messages = value
        .get("messages")
        .and_then(Json::as_array)
        .map(|ms| ms.iter().filter_map(message_of).collect());
    Some(Report {
        llm,
        tokenizer,
        messages,
        request: None,
        segments,
        tools: Vec::new(),
        diagnostics: Vec::new(),
        metrics: Default::default(),
        costs: Vec::new(),
    })
}

fn str_at<'a>(v: &'a Json, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Json::as_str)
}

fn segment_of(s: &Json) -> Option<SegmentOut> {
    let name = crate::segments::find_any(str_at(s, "name")?)?.name;
    let pieces = s
        .get("pieces")
        .and_then(Json::as_array)
        .map(|ps| ps.iter().map(piece_of).collect())
        .unwrap_or_default();
    Some(SegmentOut {
        name,
        legal: true,
        rule: None,
        text: str_at(s, "text").unwrap_or("").to_owned(),
        bytes: 0,
        tokens: None,
        messages: s
            .get("messages")
            .and_then(Json::as_u64)
            .and_then(|n| usize::try_from(n).ok()),
        pieces,
    })
}

fn piece_of(p: &Json) -> PieceOut {
    PieceOut {
        source: if str_at(p, "source") == Some("tool") {
            Source::Tool
        } else {
            Source::Config
        },
        tool: str_at(p, "tool").map(str::to_owned),
        index: p
            .get("index")
            .and_then(Json::as_u64)
            .and_then(|n| usize::try_from(n).ok()),
        text: str_at(p, "text").unwrap_or("").into(),
        attachments: p
            .get("attachments")
            .and_then(Json::as_array)
            .map(|a| a.iter().map(crate::value::Value::from_json).collect())
            .unwrap_or_default(),
        range: [0, 0],
        tokens: None,
    }
}

fn message_of(m: &Json) -> Option<MessageOut> {
    let role = match str_at(m, "role")? {
        "system" => "system",
        "user" => "user",
        "assistant" => "assistant",
        "tool" => "tool",
        _ => return None,
    };
    Some(MessageOut {
        role,
        content: m
            .get("content")
            .map_or(crate::value::Value::None, crate::value::Value::from_json),
        segment: str_at(m, "segment")
            .and_then(crate::segments::find_any)
            .map(|s| s.name),
        name: str_at(m, "name").map(str::to_owned),
        tool_call_id: str_at(m, "tool_call_id").map(str::to_owned),
        tool_calls: m.get("tool_calls").map(crate::value::Value::from_json),
        tokens: None,
    })
}

/// The changes as an indented block for the text form, JUnit and GitHub: a heading, then a line
/// per family and model. Empty when there are none.
pub fn text(changes: &[CostChange]) -> String {
    if changes.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "Cost change, golden → now (each call's input as its model's provider bills it, priced as a\n\
         first call; cache: what a cache holding the golden's call serves it sent again → the call now):\n",
    );
    for c in changes {
        out.push_str(&format!(
            "  {} · {}: {} → {} tokens ({}; {}) · ${:.6} → ${:.6} ({}) · cache read {} → {} ({})\n",
            c.llm,
            c.model,
            thousands(signed(c.tokens_before)),
            thousands(signed(c.tokens_after)),
            delta(c.token_delta()),
            c.provenance,
            c.cost_before_usd,
            c.cost_after_usd,
            usd_delta(c.cost_delta_usd(), 6),
            thousands(signed(c.cache_read_before)),
            thousands(signed(c.cache_read_after)),
            delta(c.cache_read_delta()),
        ));
    }
    out
}

/// `1,234`, `-1,152`.
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `+66`, `-1,152`, `±0`.
pub fn delta(n: i64) -> String {
    match n {
        0 => "±0".to_owned(),
        n if n > 0 => format!("+{}", thousands(n)),
        n => thousands(n),
    }
}

/// `+$0.000082`, `-$0.001000`, `±$0`, with `places` decimals.
pub fn usd_delta(x: f64, places: usize) -> String {
    let shown = format!("{:.places$}", x.abs());
    if shown.bytes().all(|b| b == b'0' || b == b'.') {
        return "±$0".to_owned();
    }
    let sign = if x < 0.0 { '-' } else { '+' };
    format!("{sign}${shown}")
}
