//! Predicted against billed input on the OpenAI pairs of corpora/usage, before (the request's
//! JSON counted with `o200k_base`) and after (`billing::predict`), per API: median error, share
//! exact, share within 1%. `--pairs` lists every pair. Run from the repository root:
//!
//! ```text
//! cargo run --example billed_openai [-- --pairs]
//! ```
//!
//! The figures go in docs/models.md, "Predicted billed input: OpenAI".

use std::path::Path;

use prompt_inspector::billing;
use prompt_inspector::tokens::{count, Encoding};
use prompt_inspector::usage::{Api, Provenance};
use serde_json::Value as Json;

struct Pair {
    file: String,
    api: Api,
    model: String,
    billed: usize,
    before: usize,
    after: usize,
    provenance: Provenance,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let list_pairs = std::env::args().any(|a| a == "--pairs");
    let root = Path::new("corpora/usage");
    let selection: Json =
        serde_json::from_str(&std::fs::read_to_string(root.join("selection.json"))?)?;
    let mut pairs = Vec::new();
    for entry in selection.as_array().into_iter().flatten() {
        let api = match entry.get("endpoint").and_then(Json::as_str) {
            Some("openai-chat") => Api::OpenaiChat,
            Some("openai-responses") => Api::OpenaiResponses,
            _ => continue,
        };
        let file = entry.get("file").and_then(Json::as_str).unwrap_or_default();
        let pair: Json = serde_json::from_str(&std::fs::read_to_string(root.join(file))?)?;
        let model = pair["model"].as_str().unwrap_or_default().to_owned();
        let usage = &pair["response_usage"];
        let billed = usage
            .get("prompt_tokens")
            .or_else(|| usage.get("input_tokens"))
            .and_then(Json::as_u64)
            .unwrap_or(0) as usize;
        let request = &pair["request"];
        let prediction = billing::predict(api, &model, request)?;
        pairs.push(Pair {
            file: file.to_owned(),
            api,
            model,
            billed,
            before: json_count(api, request),
            after: prediction.input_tokens,
            provenance: prediction.provenance,
        });
    }
    println!("| API | pairs | median error before | after | exact before | after | within 1% before | after |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (name, api) in [
        ("openai-chat", Some(Api::OpenaiChat)),
        ("openai-responses", Some(Api::OpenaiResponses)),
        ("both", None),
    ] {
        let set: Vec<&Pair> = pairs
            .iter()
            .filter(|p| api.is_none_or(|a| a == p.api))
            .collect();
        let (mb, ma) = (
            median_error(&set, |p| p.before),
            median_error(&set, |p| p.after),
        );
        let (eb, ea) = (
            share(&set, |p| p.before == p.billed),
            share(&set, |p| p.after == p.billed),
        );
        let (wb, wa) = (
            share(&set, |p| within_1(p.before, p.billed)),
            share(&set, |p| within_1(p.after, p.billed)),
        );
        println!(
            "| {name} | {} | {mb:.1}% | {ma:.1}% | {eb} | {ea} | {wb} | {wa} |",
            set.len()
        );
    }
    let honest = pairs
        .iter()
        .filter(|p| p.after == p.billed || within_bound(p))
        .count();
    println!(
        "\nexact, or an estimate within its stated bound: {honest} of {}",
        pairs.len()
    );
    if list_pairs {
        println!("\n| pair | model | billed | before | after | provenance |");
        println!("| --- | --- | --- | --- | --- | --- |");
        for p in &pairs {
            println!(
                "| {} | {} | {} | {} | {} | {} |",
                p.file, p.model, p.billed, p.before, p.after, p.provenance
            );
        }
    }
    Ok(())
}

/// What the project predicted before: every tool, the instructions and every message or input
/// item as compact JSON counted with `o200k_base`.
fn json_count(api: Api, body: &Json) -> usize {
    let keys: &[&str] = match api {
        Api::OpenaiChat => &["tools", "messages"],
        _ => &["tools", "instructions", "input"],
    };
    keys.iter()
        .filter_map(|k| body.get(*k))
        .flat_map(|v| match v {
            Json::Array(items) => items.iter().collect::<Vec<_>>(),
            other => vec![other],
        })
        .map(|v| count(&v.to_string(), Encoding::O200kBase))
        .sum()
}

fn error(predicted: usize, billed: usize) -> f64 {
    (predicted as f64 - billed as f64).abs() / (billed.max(1) as f64) * 100.0
}

fn within_1(predicted: usize, billed: usize) -> bool {
    error(predicted, billed) <= 1.0
}

fn within_bound(p: &Pair) -> bool {
    error(p.after, p.billed) <= p.provenance.bound()
}

fn median_error(set: &[&Pair], f: impl Fn(&Pair) -> usize) -> f64 {
    let mut errors: Vec<f64> = set.iter().map(|p| error(f(p), p.billed)).collect();
    errors.sort_by(f64::total_cmp);
    match errors.len() {
        0 => 0.0,
        n if n % 2 == 1 => errors[n / 2],
        n => (errors[n / 2 - 1] + errors[n / 2]) / 2.0,
    }
}

fn share(set: &[&Pair], f: impl Fn(&Pair) -> bool) -> String {
    format!("{} of {}", set.iter().filter(|p| f(p)).count(), set.len())
}
