//! `prompt-inspector rules`: the 14 segments and the three rules, from the core's one table.

use std::process::ExitCode;

use prompt_inspector::segments::{Family, Rule, SEGMENTS};
use serde_json::json;

pub fn run(as_json: bool) -> ExitCode {
    if as_json {
        let segments: Vec<_> = SEGMENTS
            .iter()
            .map(|s| {
                let mut v = json!({
                    "name": s.name,
                    "family": s.family.as_str(),
                    "order": s.order(),
                    "legal": s.legal(),
                    "purpose": s.purpose,
                });
                if let Some(rule) = s.rule {
                    v["rule"] = json!(rule.id());
                    v["reason"] = json!(rule.reason());
                }
                v
            })
            .collect();
        let rules: Vec<_> = Rule::ALL
            .iter()
            .map(|r| {
                json!({
                    "id": r.id(),
                    "title": r.title(),
                    "reason": r.reason(),
                    "segments": SEGMENTS.iter().filter(|s| s.rule == Some(*r)).map(|s| s.name).collect::<Vec<_>>(),
                })
            })
            .collect();
        let doc = json!({ "segments": segments, "rules": rules });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        return ExitCode::SUCCESS;
    }
    for family in [Family::Chat, Family::Desk] {
        println!("{} segments, in assembly order:", family.class_name());
        for s in family.segments() {
            let verdict = match s.rule {
                None => "legal".to_owned(),
                Some(r) => format!("forbidden: {}", r.id()),
            };
            println!("  {}. {:<33} {verdict}", s.order() + 1, s.name);
            println!("     {}", s.purpose);
        }
        println!();
    }
    println!("Rules:");
    for r in Rule::ALL {
        println!("  {} — {}", r.id(), r.title());
        println!("     {}", r.reason());
    }
    ExitCode::SUCCESS
}
