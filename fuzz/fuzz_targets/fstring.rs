//! Fuzzes the `fstring` engine: parsing and rendering arbitrary templates over arbitrary variables
//! must never panic, and an error must always point inside the template.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: common::Input| {
    common::compile_and_render(prompt_inspector::Engine::Fstring, &input);
});
