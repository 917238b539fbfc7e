//! Conformance against a corpus from outside this project: templates and variables from Jinja2's
//! own test suite (`conformance/cases_jinja2_upstream.py`, extracted and run through Jinja2 3.1.6
//! by `conformance/gen_jinja_upstream.py` into `tests/conformance/jinja2_upstream.json`).
//!
//! The comparison is `conformance.rs`'s, with the exact exception class: a case passes when the
//! output is byte-identical, or when the error class (and, for errors raised while compiling, the
//! line) is Jinja2's. The failing ids must be exactly those listed under "## Known differences
//! from Jinja2" in `docs/templates.md`, so the list is right in both directions.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use prompt_inspector::Engine;

use crate::conformance::{check, known_differences, load, summary};

const SECTION: &str = "Known differences from Jinja2";

#[test]
fn jinja2_matches_jinja2_upstream_suite() {
    let cases = load("jinja2_upstream");
    assert!(cases.len() >= 200, "the upstream corpus is missing cases");
    let all_ids: BTreeSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    let o = check(Engine::Jinja2, &cases);
    let line = summary("jinja2 upstream", cases.len(), &o);
    eprintln!("{line}");

    let known = known_differences(SECTION);
    let failing: BTreeSet<&str> = o.failures.iter().map(|(id, _)| id.as_str()).collect();
    let mut problems = String::new();
    let unlisted: Vec<&(String, String)> = o
        .failures
        .iter()
        .filter(|(id, _)| !known.contains(id))
        .collect();
    if !unlisted.is_empty() {
        let _ = writeln!(
            problems,
            "\n{} failing case(s) not listed under \"## {SECTION}\" in docs/templates.md:",
            unlisted.len()
        );
        for (_, r) in &unlisted {
            problems.push_str(r);
        }
    }
    for id in known.iter().filter(|id| !failing.contains(id.as_str())) {
        let note = if all_ids.contains(id.as_str()) {
            "passes now: remove it"
        } else {
            "no such case id"
        };
        let _ = writeln!(problems, "listed under \"## {SECTION}\" but {note}: `{id}`");
    }
    if !problems.is_empty() {
        panic!("{problems}\n{line}");
    }
}
