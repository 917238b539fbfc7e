use super::super::Table;
use super::{automatic_read, CallCost, ModelCost};

fn row(growth: &str, charged: bool) -> super::super::Row {
    let text = format!(
        r#"{{"format": "prompt-inspector/models@1", "models": [{{"id": "acme/a1", "models": ["a1"],
          "cache": {{"min_tokens": 1024, "growth": "{growth}", "unit_tokens": 128, "max_breakpoints": 4,
                    "order": ["messages"], "ttl": ["5m", "1h"], "writes_charged": {charged}}},
          "prices_per_mtok": {{"input": 3.0, "cached_input": 0.3, "cache_write": {{"5m": 3.75, "1h": 6.0}}, "output": 15.0}},
          "sources": ["https://example.com"], "read": "2026-12-01"}}]}}"#
    );
    Table::parse(&text, "t").expect("parses").models.remove(0)
}

#[test]
fn units_round_down_past_the_minimum_and_implicit_prefixes_take_all() {
    let units = row("units", false);
    assert_eq!(automatic_read(&units, 1023), 0);
    assert_eq!(automatic_read(&units, 1024), 1024);
    assert_eq!(automatic_read(&units, 1151), 1024);
    assert_eq!(automatic_read(&units, 1152), 1152);
    let implicit = row("implicit_prefix", false);
    assert_eq!(automatic_read(&implicit, 1000), 0);
    assert_eq!(automatic_read(&implicit, 1151), 1151);
    assert_eq!(automatic_read(&row("breakpoints", true), 5000), 0);
}

#[test]
fn a_call_is_priced_by_its_three_kinds_of_input() {
    let r = row("breakpoints", true);
    // 10,000 tokens: 4,000 read at 0.30, 2,000 written at 3.75 (5m), 4,000 at 3.00.
    let c = CallCost::of(&r, 10_000, 4_000, 2_000);
    assert_eq!(
        (c.uncached_tokens, c.cache_read_tokens, c.cache_write_tokens),
        (4_000, 4_000, 2_000)
    );
    assert_eq!(c.cost_usd, 0.0012 + 0.0075 + 0.012);
    assert_eq!(c.uncached_cost_usd, 0.03);
    // A cache that does not charge writes bills them as ordinary input.
    let free = CallCost::of(&row("units", false), 10_000, 4_000, 2_000);
    assert_eq!(free.cache_write_tokens, 0);
    assert_eq!(free.uncached_tokens + free.cache_read_tokens, 8_000);
    assert_eq!(free.cost_usd, round(0.0012 + 6_000.0 * 3.0 / 1e6));
    // Reads and writes never exceed the request.
    let c = CallCost::of(&r, 100, 400, 50);
    assert_eq!(
        (c.cache_read_tokens, c.cache_write_tokens, c.uncached_tokens),
        (100, 0, 0)
    );
}

fn round(x: f64) -> f64 {
    super::round_usd(x)
}

#[test]
fn totals_sum_the_calls_and_say_the_saving() {
    let r = row("breakpoints", true);
    let calls = vec![
        CallCost::of(&r, 10_000, 0, 10_000),
        CallCost::of(&r, 10_500, 10_000, 0),
    ];
    let m = ModelCost::new(&r, calls);
    assert_eq!(m.ttl.as_deref(), Some("5m"));
    assert_eq!(m.total.cache_write_tokens, 10_000);
    assert_eq!(m.total.cache_read_tokens, 10_000);
    assert_eq!(m.total.uncached_tokens, 500);
    assert_eq!(m.total.cost_usd, round(0.0375 + 0.003 + 0.0015));
    assert_eq!(m.total.uncached_cost_usd, round(0.0615));
    assert_eq!(m.total.saving_usd, round(0.0615 - 0.042));
}

mod input_costs {
    use crate::pricing::request::{self, Sent};
    use crate::report::{DefinitionOut, MessageOut, Metrics, Report, SegmentOut, Status, ToolOut};
    use crate::tokens::Encoding;
    use crate::usage::{Api, Provenance};
    use crate::value::Value;

    fn segment(name: &'static str, tokens: Option<usize>) -> SegmentOut {
        SegmentOut {
            name,
            legal: true,
            rule: None,
            text: String::new(),
            bytes: 0,
            tokens,
            messages: None,
            pieces: Vec::new(),
        }
    }

    fn tool(name: &str, definition_tokens: Option<usize>) -> ToolOut {
        ToolOut {
            name: name.to_owned(),
            status: Status::Injected,
            position: None,
            definition: definition_tokens.map(|t| DefinitionOut {
                bytes: 1,
                tokens: Some(t),
            }),
        }
    }

    fn message(tokens: usize) -> MessageOut {
        MessageOut {
            role: "user",
            content: Value::Str("x".into()),
            segment: None,
            name: None,
            tool_call_id: None,
            tool_calls: None,
            tokens: Some(tokens),
        }
    }

    fn desk() -> Report {
        Report {
            llm: "desk",
            tokenizer: Some(Encoding::O200kBase),
            messages: None,
            request: None,
            segments: vec![
                segment("system_prompt", Some(1000)),
                segment("purpose_prompt", Some(500)),
            ],
            tools: vec![tool("search", Some(200)), tool("notes", None)],
            diagnostics: Vec::new(),
            metrics: Metrics::default(),
            costs: Vec::new(),
        }
    }

    #[test]
    fn a_desk_call_prices_its_segments_and_definitions_at_the_input_price() {
        // Input at $3 per million tokens (the test row); nothing is cached on a first call.
        let r = super::row("breakpoints", true);
        let sent = Sent::default();
        let costs = super::super::input_costs(&desk(), &sent, &[&r]);
        assert_eq!(costs.len(), 1);
        let c = &costs[0];
        assert_eq!(c.model, "acme/a1");
        assert_eq!(c.usd_per_mtok_input, 3.0);
        // The text counts are the report's; the call's input is its body as billed, which for
        // a provider the table does not know is an OpenAI-compatible chat body.
        assert_eq!((c.content_tokens, c.definition_tokens), (1500, 200));
        let body = request::body(&desk(), &sent, &r);
        assert_eq!(body.api, Api::OpenaiChat);
        let billed = crate::billing::predict(body.api, &body.model, &body.json).expect("counted");
        assert_eq!(c.input_tokens, billed.input_tokens);
        assert_eq!(c.api, Some(Api::OpenaiChat));
        assert_eq!(
            c.cost_usd,
            super::super::round_usd(c.input_tokens as f64 * 3.0 / 1e6)
        );
        // Nothing about an unknown provider is exact.
        assert!(
            c.provenance.bound() >= request::TEXT_BOUND_PERCENT,
            "{:?}",
            c.provenance
        );
        assert_eq!(
            c.text_provenance,
            Provenance::Estimate {
                bound_percent: request::TEXT_BOUND_PERCENT
            }
        );
        assert_eq!(
            (c.prices_read.as_str(), c.price_sources.len()),
            ("2026-12-01", 1)
        );
        let segments: Vec<(&str, usize, f64)> = c
            .segments
            .iter()
            .map(|s| (s.name, s.tokens, s.cost_usd))
            .collect();
        assert_eq!(
            segments,
            [
                ("system_prompt", 1000, 0.003),
                ("purpose_prompt", 500, 0.0015)
            ]
        );
        let definitions: Vec<(&str, usize, f64)> = c
            .definitions
            .iter()
            .map(|d| (d.tool.as_str(), d.tokens, d.cost_usd))
            .collect();
        assert_eq!(
            definitions,
            [("search", 200, 0.0006)],
            "a tool without a schema has no definition"
        );
    }

    #[test]
    fn a_chat_call_is_its_messages_and_nothing_is_priced_without_tokens() {
        let r = super::row("units", false);
        let mut chat = desk();
        chat.llm = "chat";
        // The messages are what is sent: 30 tokens, whatever the segments count.
        chat.messages = Some(vec![message(10), message(20)]);
        let sent = Sent::default();
        let c = &super::super::input_costs(&chat, &sent, &[&r, &r])[1];
        assert_eq!((c.content_tokens, c.definition_tokens), (30, 200));
        assert_eq!(c.segments[1].tokens, 500);
        let mut uncounted = desk();
        uncounted.tokenizer = None;
        assert!(super::super::input_costs(&uncounted, &sent, &[&r]).is_empty());
        assert!(super::super::input_costs(&desk(), &sent, &[]).is_empty());
    }
}

#[test]
fn the_highest_price_and_the_most_tokens_still_cost_a_finite_sum() {
    let text = r#"{"format": "prompt-inspector/models@1", "models": [{"id": "acme/a1", "models": ["a1"],
      "cache": {"min_tokens": 0, "growth": "implicit_prefix", "order": ["messages"], "ttl": ["5m"],
                "writes_charged": true},
      "prices_per_mtok": {"input": 1000000.0, "cached_input": 1000000.0, "cache_write": {"5m": 1000000.0}, "output": 1000000.0},
      "sources": ["https://example.com"], "read": "2026-12-01"}]}"#;
    let r = Table::parse(text, "t").expect("parses").models.remove(0);
    let call = CallCost::of(&r, usize::MAX, usize::MAX / 3, usize::MAX / 3);
    assert!(
        call.cost_usd.is_finite() && call.cost_usd > 1e18,
        "{call:?}"
    );
    assert!(call.uncached_cost_usd.is_finite(), "{call:?}");
    // Many calls of many tokens each (the token totals themselves stay within a usize).
    let calls = vec![CallCost::of(&r, usize::MAX / 1000, 0, 0); 1000];
    let total = ModelCost::new(&r, calls).total;
    for x in [total.cost_usd, total.uncached_cost_usd, total.saving_usd] {
        assert!(x.is_finite(), "{total:?}");
    }
}
