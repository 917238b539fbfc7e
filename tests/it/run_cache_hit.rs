//! `fixtures/run/stable-prefix.scene.json` through `prompt-inspector run`: a run whose static
//! system message is long enough for the default Claude model's breakpoint cache, so request 1
//! writes it and every later request reads it back (the app's "Run the cache example").

use crate::support::cli;

const FIXTURE: &str = "fixtures/run/stable-prefix.scene.json";
const SONNET: &str = "anthropic/claude-sonnet-4-5";

#[test]
fn the_stable_prefix_run_reads_the_cache_on_the_default_claude_model() {
    let out = cli(&[
        "run", FIXTURE, "--format", "json", "--shared", "--model", SONNET,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    // The system message's tokens, counted here with the tokenizer the run's figures use.
    let system = report["messages"][0]["content"]
        .as_str()
        .expect("the system message");
    let tokens =
        prompt_inspector::tokens::count(system, prompt_inspector::tokens::Encoding::O200kBase);
    let table = prompt_inspector::pricing::Table::builtin();
    let row = table.select(&[SONNET.to_owned()]).expect("the row")[0].clone();
    assert!(row.default, "{SONNET} is a default model");
    assert!(tokens >= row.cache.min_tokens, "{tokens} tokens");
    let model = &report["models"][0];
    assert_eq!(model["model"], SONNET);
    let calls = model["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), 5, "five rounds");
    assert_eq!(calls[0]["cache_write_tokens"], tokens, "{model}");
    assert_eq!(calls[0]["cache_read_tokens"], 0);
    for c in &calls[1..] {
        assert_eq!(c["cache_read_tokens"], tokens, "{model}");
        assert_eq!(c["cache_write_tokens"], 0, "{model}");
    }
    // Priced at the row's prices: $3 a million uncached, $0.30 read, $3.75 written (5 minutes).
    let p = &row.prices_per_mtok;
    let request = |i: usize| {
        report["iterations"][i]["cache"]["request_tokens"]
            .as_u64()
            .expect("tokens") as f64
    };
    let round2 = ((request(1) - tokens as f64) * p.input + tokens as f64 * p.cached_input) / 1e6;
    let cost = calls[1]["cost_usd"].as_f64().expect("cost");
    assert!((cost - round2).abs() < 1e-8, "{cost} against {round2}");
    // The text form says the same: round 2 reads the system message back.
    let text = cli(&["run", FIXTURE, "--model", SONNET]);
    let text = String::from_utf8_lossy(&text.stdout);
    let round2: Vec<&str> = text
        .lines()
        .find(|l| l.trim_start().starts_with("round 2 "))
        .map(|l| l.split_whitespace().collect())
        .unwrap_or_default();
    assert_eq!(
        round2.get(2..4),
        Some(&["read", &tokens.to_string()[..]][..]),
        "{text}"
    );
}
