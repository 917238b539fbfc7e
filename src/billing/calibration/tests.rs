use super::*;
use serde_json::json;

#[test]
fn a_family_is_the_model_without_its_date_prefix_or_latest() {
    assert_eq!(family("claude-sonnet-4-5-20250929"), "claude-sonnet-4-5");
    assert_eq!(family("claude-3-5-haiku-latest"), "claude-3-5-haiku");
    assert_eq!(family("gpt-4o-mini-2024-07-18"), "gpt-4o-mini");
    assert_eq!(family("anthropic/Claude-Opus-4-6"), "claude-opus-4-6");
    assert_eq!(family("gemini-2.5-pro"), "gemini-2.5-pro");
}

fn record(model: &str, text: &str, billed: u64) -> Record {
    let body = json!({"model": model, "max_tokens": 10,
        "messages": [{"role": "user", "content": text}]});
    Record {
        source: format!("{model}.json"),
        api: Api::Anthropic,
        model: model.to_owned(),
        body,
        usage: Usage {
            input_total: billed,
            uncached: billed,
            ..Usage::default()
        },
    }
}

fn predicted(model: &str, text: &str) -> usize {
    let r = record(model, text, 1);
    predict(r.api, model, &r.body).unwrap().input_tokens
}

#[test]
fn learning_takes_the_median_ratio_per_family_and_pools_the_api() {
    let texts = [
        "alpha beta gamma",
        "one two three four five six",
        "hello",
        "a b c d e f g h",
        "x y z",
    ];
    let mut records: Vec<Record> = texts
        .iter()
        .map(|t| {
            record(
                "claude-sonnet-4-5",
                t,
                (predicted("claude-sonnet-4-5", t) * 2) as u64,
            )
        })
        .collect();
    records.push(record(
        "claude-3-opus-20240229",
        "hi",
        predicted("claude-3-opus", "hi") as u64,
    ));
    let (c, skipped) = learn(&records);
    assert!(skipped.is_empty());
    let sonnet = c
        .ratio_for(Api::Anthropic, "claude-sonnet-4-5-20250929")
        .unwrap();
    assert_eq!(
        (sonnet.family.as_str(), sonnet.ratio, sonnet.calls),
        ("claude-sonnet-4-5", 2.0, 5)
    );
    assert_eq!(
        (sonnet.min_ratio, sonnet.max_ratio, sonnet.bound_percent),
        (2.0, 2.0, 1.0)
    );
    // One call is too few to measure a spread: the estimate's own bound stays.
    let opus = c
        .ratio_for(Api::Anthropic, "claude-3-opus-20240229")
        .unwrap();
    assert_eq!(opus.ratio, 1.0);
    assert_eq!(opus.bound_percent, crate::billing::anthropic::BOUND_PERCENT);
    // A family the file does not name takes the API's pooled ratio.
    let pooled = c.ratio_for(Api::Anthropic, "claude-haiku-4-5").unwrap();
    assert_eq!(
        (pooled.family.as_str(), pooled.calls, pooled.ratio),
        ("*", 6, 2.0)
    );
    assert!(c.ratio_for(Api::Gemini, "gemini-2.5-pro").is_none());
}

#[test]
fn applying_scales_the_parts_keeps_their_sum_and_says_calibrated() {
    let c = Calibration {
        format: FORMAT.to_owned(),
        families: vec![FamilyRatio {
            api: Api::Anthropic,
            family: "claude-sonnet-4-5".to_owned(),
            ratio: 1.1,
            bound_percent: 4.0,
            calls: 20,
            min_ratio: 1.0,
            max_ratio: 1.2,
        }],
    };
    let body = json!({"system": "You are terse.", "messages": [{"role": "user", "content": "Tell me about Paris in two sentences."}]});
    let plain = predict(Api::Anthropic, "claude-sonnet-4-5", &body).unwrap();
    let p = predict_calibrated(Api::Anthropic, "claude-sonnet-4-5", &body, Some(&c)).unwrap();
    assert_eq!(
        p.input_tokens,
        (plain.input_tokens as f64 * 1.1).round() as usize
    );
    assert_eq!(
        p.input_tokens,
        p.parts.iter().map(|x| x.tokens).sum::<usize>()
    );
    assert_eq!(
        p.provenance,
        Provenance::Calibrated {
            ratio: 1.1,
            bound_percent: 4.0
        }
    );
    assert_eq!(p.provenance.to_string(), "calibrated ±4%");
    // Another family, no pooled entry: left as it was.
    let other = predict_calibrated(Api::Anthropic, "claude-opus-4-6", &body, Some(&c)).unwrap();
    assert_eq!(
        other,
        predict(Api::Anthropic, "claude-opus-4-6", &body).unwrap()
    );
    // An exact prediction is never scaled.
    let mut exact = plain.clone();
    exact.provenance = Provenance::Exact;
    let before = exact.clone();
    c.apply(&mut exact);
    assert_eq!(exact, before);
}

#[test]
fn a_written_file_parses_back_to_the_same_calibration() {
    let records = vec![record("claude-sonnet-4-5", "hello there", 30)];
    let (c, _) = learn(&records);
    assert_eq!(Calibration::parse(&c.to_json(), "c.json").unwrap(), c);
}

#[test]
fn malformed_files_are_refused_with_their_position() {
    let at = |text: &str| Calibration::parse(text, "c.json").unwrap_err();
    let e = at("{\n  \"format\": \"prompt-inspector/calibration@1\",\n  \"families\": [\n");
    assert_eq!(e.position.map(|p| p.0), Some(4));
    assert!(e.to_string().starts_with("c.json:4:"), "{e}");
    let e = at("{\"format\": \"prompt-inspector/calibration@1\", \"families\": [], \"extra\": 1}");
    assert!(e.position.is_some() && e.message.contains("extra"), "{e}");
    let e = at("{\"format\": \"other@1\", \"families\": []}");
    assert_eq!(e.pointer.as_deref(), Some("/format"));
    let family = |ratio: f64, name: &str| {
        json!({"api": "anthropic", "family": name, "ratio": ratio, "bound_percent": 3.0,
               "calls": 4, "min_ratio": 1.0, "max_ratio": 1.0})
    };
    let file = |families: Json| json!({"format": FORMAT, "families": families}).to_string();
    let e = at(&file(json!([family(1.0, "a"), family(0.0, "b")])));
    assert_eq!(e.pointer.as_deref(), Some("/families/1/ratio"));
    assert_eq!(
        e.to_string(),
        "c.json: /families/1/ratio: a ratio is a positive number"
    );
    let e = at(&file(json!([family(1.0, "a"), family(1.0, "a")])));
    assert_eq!(e.pointer.as_deref(), Some("/families/1/family"));
    let e = at(&file(json!([family(1.0, "")])));
    assert_eq!(e.pointer.as_deref(), Some("/families/0/family"));
    let e = at(&file(
        json!([{"api": "nope", "family": "a", "ratio": 1.0, "bound_percent": 1.0,
        "calls": 1, "min_ratio": 1.0, "max_ratio": 1.0}]),
    ));
    assert!(e.position.is_some(), "{e}");
}

#[test]
fn a_one_call_file_is_a_record_and_its_api_comes_from_its_shape() {
    let anthropic = json!({"model": "claude-sonnet-4-5", "request": {"messages": []},
        "response_usage": {"input_tokens": 5, "cache_read_input_tokens": 2, "output_tokens": 1}});
    let r = record_of("a.json", &anthropic).unwrap();
    assert_eq!((r.api, r.usage.input_total), (Api::Anthropic, 7));
    let chat = json!({"model": "gpt-4o", "request": {"messages": []},
        "response_usage": {"prompt_tokens": 9, "completion_tokens": 1}});
    assert_eq!(record_of("c.json", &chat).unwrap().api, Api::OpenaiChat);
    let responses = json!({"model": "gpt-4o", "request": {"input": "hi"},
        "response_usage": {"input_tokens": 9, "output_tokens": 1}});
    assert_eq!(
        record_of("r.json", &responses).unwrap().api,
        Api::OpenaiResponses
    );
    let gemini = json!({"model": "gemini-2.5-pro", "request": {"contents": []},
        "response_usage": {"promptTokenCount": 5}});
    assert_eq!(record_of("g.json", &gemini).unwrap().api, Api::Gemini);
    assert!(record_of("x.json", &json!({"request": {}})).is_none());
    assert!(record_of("x.json", &json!([1, 2])).is_none());
}
