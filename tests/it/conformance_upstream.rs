//! Conformance against a corpus from outside this project: templates and variables from Jinja2's
//! own test suite (`conformance/cases_jinja2_upstream.py`, extracted and run through Jinja2 3.1.6
//! by `conformance/gen_jinja_upstream.py` into `tests/conformance/jinja2_upstream.json`).
//!
//! The comparison is `conformance.rs`'s, with the exact exception class: a case passes when the
//! output is byte-identical, or when the error class (and, for errors raised while compiling, the
//! line) is Jinja2's. The failing ids must be exactly those listed under "## Known differences
//! from Jinja2" in `docs/templates.md`, so the list is right in both directions.

use prompt_inspector::Engine;

use crate::conformance::{check, differences_against_list, load, summary};

const SECTION: &str = "Known differences from Jinja2";

#[test]
fn jinja2_matches_jinja2_upstream_suite() {
    let cases = load("jinja2_upstream");
    assert!(cases.len() >= 200, "the upstream corpus is missing cases");
    let o = check(Engine::Jinja2, &cases);
    let line = summary("jinja2 upstream", cases.len(), &o);
    eprintln!("{line}");

    let problems = differences_against_list(SECTION, &cases, &o);
    if !problems.is_empty() {
        panic!("{problems}\n{line}");
    }
}
