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
use crate::report::Report;
use crate::usage::Provenance;

pub use super::rebuild::{report_of, tool_defs_of_request};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billing::PartKind;

    fn part(tokens: usize, breakpoint: bool) -> BilledPart {
        BilledPart {
            kind: PartKind::Message,
            pointer: String::new(),
            canonical: String::new(),
            tokens,
            breakpoint: breakpoint.then(|| "5m".to_owned()),
        }
    }

    fn anthropic_row(min_tokens: usize, lookback: usize) -> Row {
        let text = format!(
            r#"{{"id": "anthropic/t", "models": ["t"], "cache": {{"min_tokens": {min_tokens},
              "growth": "breakpoints", "max_breakpoints": 4, "lookback_blocks": {lookback},
              "order": ["tools", "system", "messages"], "ttl": ["5m"], "writes_charged": true}},
              "prices_per_mtok": {{"input": 3, "cached_input": 0.3, "cache_write": {{"5m": 3.75}},
              "output": 15}}, "sources": ["https://example.com"], "read": "2026-12-01"}}"#
        );
        serde_json::from_str(&text).expect("a row")
    }

    #[test]
    fn a_breakpoint_cache_reads_the_longest_shared_prefix_written_at_a_breakpoint() {
        let row = anthropic_row(1024, 20);
        // 600 + 600 (breakpoint: 1,200 written) + 300 + 100 (breakpoint: 1,600 written).
        let written = [
            part(600, false),
            part(600, true),
            part(300, false),
            part(100, true),
        ];
        // Sent again: the longest prefix written, reached from its own last breakpoint.
        assert_eq!(breakpoint_read(&row, &written, &written, 4), 1600);
        // Only the first three parts shared: the entry at 1,200 is what is left.
        assert_eq!(breakpoint_read(&row, &written, &written, 3), 1200);
        // Only the first part shared: 600 tokens end at no breakpoint.
        assert_eq!(breakpoint_read(&row, &written, &written, 1), 0);
        // An entry under the minimum is never written.
        assert_eq!(
            breakpoint_read(&anthropic_row(2000, 20), &written, &written, 4),
            0
        );
        // The call now must mark a breakpoint at or after the entry, within the lookback.
        let unmarked = [part(600, false), part(600, false), part(300, false)];
        assert_eq!(breakpoint_read(&row, &written, &unmarked, 3), 0);
        let far = [
            part(600, false),
            part(600, false),
            part(300, false),
            part(1, true),
        ];
        assert_eq!(
            breakpoint_read(&anthropic_row(1024, 1), &written, &far, 3),
            0
        );
        assert_eq!(
            breakpoint_read(&anthropic_row(1024, 2), &written, &far, 3),
            1200
        );
    }

    #[test]
    fn tool_definitions_read_back_from_every_shape_the_bodies_use() {
        let schema = serde_json::json!({"type": "object", "properties": {"q": {"type": "string"}}});
        let expected = vec![ToolDef {
            name: "search".to_owned(),
            description: Some("Search the web.".to_owned()),
            parameters: schema.clone(),
        }];
        for body in [
            serde_json::json!({"tools": [{"type": "function", "function": {"name": "search", "description": "Search the web.", "parameters": schema}}]}),
            serde_json::json!({"tools": [{"type": "function", "name": "search", "description": "Search the web.", "parameters": schema, "strict": false}]}),
            serde_json::json!({"tools": [{"name": "search", "description": "Search the web.", "input_schema": schema}]}),
            serde_json::json!({"tools": [{"functionDeclarations": [{"name": "search", "description": "Search the web.", "parametersJsonSchema": schema}]}]}),
        ] {
            assert_eq!(tool_defs_of_request(&body), expected, "{body}");
        }
        let gemini_without = serde_json::json!({"tools": [{"functionDeclarations": [{"name": "search", "description": "", "parametersJsonSchema": schema}]}]});
        assert_eq!(tool_defs_of_request(&gemini_without)[0].description, None);
        assert!(tool_defs_of_request(&serde_json::json!({"prompt": "x"})).is_empty());
    }

    #[test]
    fn figures_read_with_their_sign_and_thousands() {
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(-1_152), "-1,152");
        assert_eq!(thousands(999), "999");
        assert_eq!(delta(66), "+66");
        assert_eq!(delta(0), "±0");
        assert_eq!(usd_delta(0.000_082, 6), "+$0.000082");
        assert_eq!(usd_delta(-0.001, 6), "-$0.001000");
        assert_eq!(usd_delta(0.000_000_4, 6), "±$0");
    }
}
