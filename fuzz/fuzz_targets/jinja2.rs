//! Fuzzes the `jinja2` engine: parsing and rendering arbitrary templates over arbitrary variables
//! must never panic, and an error must always point inside the template.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use prompt_inspector::{Engine, Template, Vars};

fuzz_target!(|input: common::Input| {
    let vars = Vars::new(input.vars());
    let result = Template::compile(Engine::Jinja2, &input.template).and_then(|t| {
        if let Some(e) = t.syntax_error() {
            check_range(&e, &input.template);
        }
        t.render(&vars)
    });
    if let Err(e) = result {
        check_range(&e, &input.template);
    }
});

fn check_range(e: &prompt_inspector::TemplateError, source: &str) {
    if let Some(r) = e.range() {
        assert!(
            r.start <= r.end && r.end <= source.len(),
            "range {r:?} outside the template"
        );
        assert!(source.is_char_boundary(r.start) && source.is_char_boundary(r.end));
    }
}
