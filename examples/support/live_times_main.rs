// The body of the live_times examples (included by examples/live_times.rs and
// examples/live_times_system.rs, which differ only in the allocator).
use std::time::Instant;

use prompt_inspector::api::{Live, LiveEditRequest, LiveOpenRequest, LiveOptions, TextEdit};

fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    // `FIRST=1` edits the first tool's template (as the page probe does), else the last one's.
    let found = if std::env::var("FIRST").is_ok() {
        text.find("\"templates\": {")
    } else {
        text.rfind("\"templates\": {")
    };
    let Some(at) = found else {
        return;
    };
    let at = at + text[at..].find(": \"").map_or(0, |i| i + 3) + 14;
    let units = text[..at].encode_utf16().count() as u32;
    let live = Live::new();
    // The options the app opens a scene with: tokens counted, priced for one model (the models
    // table's first default). `MODELS=` (empty) prices none, `TOKENS=0` counts none.
    let models = std::env::var("MODELS").unwrap_or_else(|_| "openai/gpt-5".to_owned());
    let options = LiveOptions {
        tokens: std::env::var("TOKENS").map_or(true, |v| v != "0"),
        models: models
            .split(',')
            .filter(|m| !m.is_empty())
            .map(str::to_owned)
            .collect(),
        ..LiveOptions::default()
    };
    eprintln!("tokens {}, models {:?}", options.tokens, options.models);
    let t = Instant::now();
    let Ok(u) = live.open(LiveOpenRequest { text, options }) else {
        return;
    };
    eprintln!("open {:?}", t.elapsed());
    let (doc, mut rev) = (u.doc, u.revision);
    let gap = std::env::var("GAP_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let edits: u32 = std::env::var("EDITS").ok().and_then(|v| v.parse().ok()).unwrap_or(10);
    for i in 0..edits {
        std::thread::sleep(std::time::Duration::from_millis(gap));
        let t = Instant::now();
        let edit = TextEdit {
            start: units + i,
            delete: 0,
            insert: "x".into(),
        };
        let Ok(u) = live.edit(LiveEditRequest {
            doc,
            revision: rev,
            edit: Some(edit),
            options: None,
            defer_costs: std::env::var("DEFER").is_ok(),
        }) else {
            return;
        };
        let json = serde_json::to_string(&u).unwrap_or_default();
        rev = u.revision;
        // `NOSETTLE=1`: keystrokes only (to profile the deferred edit alone).
        if u.costs_pending && std::env::var("NOSETTLE").is_err() {
            // `DEFER=1`: the page's settle, right after the keystroke's answer.
            let t = Instant::now();
            let Ok(s) = live.edit(LiveEditRequest {
                doc,
                revision: rev,
                edit: None,
                options: None,
                defer_costs: false,
            }) else {
                return;
            };
            rev = s.revision;
            eprintln!("settle {:?}, {} ops", t.elapsed(), s.patch.len());
            if std::env::var("OPS").is_ok() {
                eprintln!("{}", serde_json::to_string(&u.patch).unwrap_or_default());
            }
        }
        eprintln!(
            "edit {:?} core {:.2} ms, {} ops, {} bytes",
            t.elapsed(),
            u.core_ms,
            u.patch.len(),
            json.len()
        );
    }
}
