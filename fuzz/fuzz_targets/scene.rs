//! Fuzzes the scene loader: any text either loads or fails with a positioned error, and a scene
//! that loads renders in both families without panicking. Seeds: `fixtures/` (see docs/fuzzing.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use prompt_inspector::{inject, scene, segments::Family};

fuzz_target!(|text: &str| {
    match scene::load_str(text) {
        Ok(s) => {
            for family in [Family::Chat, Family::Desk] {
                let report = inject::render(&s, family);
                for seg in &report.segments {
                    for p in &seg.pieces {
                        assert_eq!(&seg.text[p.range[0]..p.range[1]], &*p.text);
                    }
                }
            }
        }
        Err(e) => {
            assert!(
                e.line >= 1 && e.column >= 1,
                "error without a position: {e}"
            );
            assert!(e.offset <= text.len());
        }
    }
});
