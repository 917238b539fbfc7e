//! Predicted against billed input on the recorded calls of `corpora/usage`, for the estimated
//! providers (Anthropic, Gemini): the figures in docs/models.md, "Predicted billed input:
//! Anthropic, Gemini, DeepSeek".
//!
//! For Anthropic it also refits the estimate's coefficients (weighted least squares on the
//! relative error, over the calls with no image or document) and reports leave-one-out errors
//! (each call predicted by coefficients fitted without it) and a split (fitted on the
//! pydantic-ai calls, tested on the others), so the figures show more than a memorised corpus.
//!
//! `cargo run --example billed_estimates [-- --verbose]`

use std::path::Path;

use prompt_inspector::billing::anthropic::{self, Coefficients, Tally, FITTED};
use prompt_inspector::billing::{self, calibration};
use prompt_inspector::tokens::{count, Encoding};
use prompt_inspector::usage::Api;
use serde_json::Value as Json;

fn main() {
    let verbose = std::env::args().any(|a| a == "--verbose");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/usage");
    let (records, _) = calibration::records_in(&dir).expect("corpora/usage is readable");
    for api in [Api::Anthropic, Api::Gemini] {
        let calls: Vec<_> = records.iter().filter(|r| r.api == api).collect();
        let mut before = Vec::new();
        let mut after = Vec::new();
        let mut own_bound = 0;
        for r in &calls {
            let billed = r.usage.input_total as f64;
            let p = billing::predict(r.api, &r.model, &r.body).expect("countable");
            let old = seam_count(&r.body) as f64;
            before.push((old - billed) / billed * 100.0);
            let error = (p.input_tokens as f64 - billed) / billed * 100.0;
            after.push(error);
            if error.abs() <= p.provenance.bound() {
                own_bound += 1;
            }
            if verbose {
                println!(
                    "{:<24} {:>6} billed {:>6} predicted {:+6.1}%  {}",
                    r.model,
                    r.usage.input_total,
                    p.input_tokens,
                    after.last().copied().unwrap_or(0.0),
                    short(&r.source)
                );
            }
        }
        println!("{} ({} calls)", api.as_str(), calls.len());
        println!(
            "  before (compact JSON, o200k_base): {}",
            summary(&before, None)
        );
        let stated = match api {
            Api::Anthropic => anthropic::BOUND_PERCENT,
            _ => billing::gemini::BOUND_PERCENT,
        };
        println!(
            "  after:                             {}",
            summary(&after, Some(stated))
        );
        println!(
            "  within the bound each prediction states (media widen it): {own_bound}/{}",
            calls.len()
        );
    }
    anthropic_fit(&records, verbose);
}

/// The seam's first count: each tool, the system prompt and each message as compact JSON.
fn seam_count(body: &Json) -> usize {
    let mut n = 0;
    for key in ["tools", "messages", "contents"] {
        for v in body.get(key).and_then(Json::as_array).into_iter().flatten() {
            n += count(&v.to_string(), Encoding::O200kBase);
        }
    }
    for key in ["system", "systemInstruction"] {
        if let Some(v) = body.get(key) {
            n += count(&v.to_string(), Encoding::O200kBase);
        }
    }
    n
}

fn summary(errors: &[f64], bound: Option<f64>) -> String {
    let mut abs: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
    abs.sort_by(f64::total_cmp);
    let median = if abs.is_empty() {
        0.0
    } else {
        abs[abs.len() / 2]
    };
    let within = |b: f64| abs.iter().filter(|e| **e <= b + 1e-9).count();
    let mut s = format!(
        "median error {median:.1}%, within 1%: {}/{}",
        within(1.0),
        abs.len()
    );
    if let Some(b) = bound {
        s.push_str(&format!(
            ", within the ±{b}% bound: {}/{}",
            within(b),
            abs.len()
        ));
    }
    s
}

fn short(source: &str) -> &str {
    source.rsplit("corpora/usage/").next().unwrap_or(source)
}

const FEATURES: usize = 11;

/// A call's tally as the features the coefficients multiply, with the new tokenizer's text in
/// its own column.
fn features(t: &Tally, newer: bool) -> [f64; FEATURES] {
    let (text, structured, new) = if newer {
        (0, 0, t.text + t.structured)
    } else {
        (t.text, t.structured, 0)
    };
    [
        text as f64,
        structured as f64,
        new as f64,
        t.messages as f64,
        t.tools as f64,
        t.calls as f64,
        t.requests as f64,
        t.thinking as f64,
        t.formats as f64,
        t.budgets as f64,
        0.0,
    ]
}

fn coefficients(x: &[f64]) -> Coefficients {
    Coefficients {
        text_ratio: x[0],
        structured_ratio: x[1],
        new_tokenizer_ratio: x[2],
        per_message: x[3],
        per_tool: x[4],
        per_call: x[5],
        per_request: x[6],
        thinking: x[7],
        output_format: x[8],
        task_budget: x[9],
    }
}

struct Sample {
    source: String,
    tally: Tally,
    newer: bool,
    billed: f64,
}

fn anthropic_fit(records: &[calibration::Record], verbose: bool) {
    let samples: Vec<Sample> = records
        .iter()
        .filter(|r| r.api == Api::Anthropic)
        .filter_map(|r| {
            let (tally, newer) = anthropic::tally(&r.model, &r.body).ok()?;
            let p = billing::predict(r.api, &r.model, &r.body).ok()?;
            // Calls with images or documents are priced by documented rules, not fitted.
            let media = p.parts.iter().any(|x| x.kind == billing::PartKind::Image);
            (!media).then(|| Sample {
                source: r.source.clone(),
                tally,
                newer,
                billed: r.usage.input_total as f64,
            })
        })
        .collect();
    let fitted = fit(&samples.iter().collect::<Vec<_>>());
    println!("anthropic refit on {} calls without media:", samples.len());
    println!("  {:?}", coefficients(&fitted));
    println!("  shipped: {FITTED:?}");
    let errors = |c: &Coefficients, s: &Sample| {
        (s.tally.tokens(c, s.newer).round() - s.billed) / s.billed * 100.0
    };
    let in_sample: Vec<f64> = samples
        .iter()
        .map(|s| errors(&coefficients(&fitted), s))
        .collect();
    let loo: Vec<f64> = (0..samples.len())
        .map(|i| {
            let rest: Vec<&Sample> = samples
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, s)| s)
                .collect();
            let c = coefficients(&fit(&rest));
            let e = errors(&c, &samples[i]);
            if verbose {
                println!("  leave-one-out {:+6.1}%  {}", e, short(&samples[i].source));
            }
            e
        })
        .collect();
    let bound = Some(anthropic::BOUND_PERCENT);
    println!("  in sample:     {}", summary(&in_sample, bound));
    println!("  leave-one-out: {}", summary(&loo, bound));
    let (train, test): (Vec<&Sample>, Vec<&Sample>) = samples
        .iter()
        .partition(|s| s.source.contains("pydantic-ai"));
    let c = coefficients(&fit(&train));
    let split: Vec<f64> = test.iter().map(|s| errors(&c, s)).collect();
    println!(
        "  split (fitted on {} pydantic-ai calls, tested on {} others): {}",
        train.len(),
        test.len(),
        summary(&split, bound)
    );
}

/// Weighted least squares of `billed - documented` on the features, each call weighted by
/// 1 / billed², so that the fit minimises relative error. Unused features stay 0.
fn fit(samples: &[&Sample]) -> Vec<f64> {
    let mut a = [[0.0f64; FEATURES]; FEATURES];
    let mut b = [0.0f64; FEATURES];
    for s in samples {
        let x = features(&s.tally, s.newer);
        let y = s.billed - s.tally.documented as f64;
        let w = 1.0 / (s.billed * s.billed);
        for i in 0..FEATURES {
            b[i] += w * x[i] * y;
            for j in 0..FEATURES {
                a[i][j] += w * x[i] * x[j];
            }
        }
    }
    solve(a, b)
}

/// Gaussian elimination with partial pivoting; a column with no data solves to 0.
fn solve(mut a: [[f64; FEATURES]; FEATURES], mut b: [f64; FEATURES]) -> Vec<f64> {
    for c in 0..FEATURES {
        let p = (c..FEATURES)
            .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
            .unwrap_or(c);
        a.swap(c, p);
        b.swap(c, p);
        if a[c][c].abs() < 1e-18 {
            continue;
        }
        let (pivot, pivot_b) = (a[c], b[c]);
        for (r, row) in a.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / pivot[c];
                for (x, p) in row.iter_mut().zip(pivot.iter()).skip(c) {
                    *x -= f * p;
                }
                b[r] -= f * pivot_b;
            }
        }
    }
    (0..FEATURES)
        .map(|i| {
            if a[i][i].abs() < 1e-18 {
                0.0
            } else {
                b[i] / a[i][i]
            }
        })
        .collect()
}
