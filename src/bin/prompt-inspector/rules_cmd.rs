//! `prompt-inspector rules`: the 14 segments and the three rules, from the core's one table.

use std::process::ExitCode;

use prompt_inspector::segments::{Family, Rule};

pub fn run(as_json: bool) -> ExitCode {
    if as_json {
        // The app's `rules` operation builds the same document; the CLI prints it.
        let doc = prompt_inspector::api::rules();
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
    println!();
    println!(
        "Why these rules, how a tool is validated and asked, and how segments are assembled: \
         docs/rules.md"
    );
    ExitCode::SUCCESS
}
