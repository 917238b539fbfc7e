//! Property: escaping any string for the fstring engine and rendering it gives the string back.
//! This is what `format_2_prompt` relies on when it wraps a tool's literal string return.

use prompt_inspector::template::escape_fstring;
use prompt_inspector::{Engine, Template, Value, Vars};
use proptest::prelude::*;

fn render_escaped(s: &str) -> Result<String, String> {
    let t = Template::compile(Engine::Fstring, &escape_fstring(s)).map_err(|e| e.to_string())?;
    if let Some(e) = t.syntax_error() {
        return Err(e.to_string());
    }
    let vars = Vars::new(Value::from_json_str("{}").map_err(|e| e.to_string())?);
    t.render(&vars).map_err(|e| e.to_string())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn escaped_text_renders_to_itself(s in any::<String>()) {
        prop_assert_eq!(render_escaped(&s), Ok(s.clone()));
    }

    // Brace-heavy strings: the random strings above rarely hold many braces.
    #[test]
    fn escaped_brace_soup_renders_to_itself(s in "[{}a:!\\[\\]0 ]{0,64}") {
        prop_assert_eq!(render_escaped(&s), Ok(s.clone()));
    }
}

#[test]
fn escaped_tfnotes_example_renders_to_itself() {
    // TFRobot's unit table: "代码 {x: 1}" must come back unchanged, not raise KeyError.
    assert_eq!(render_escaped("代码 {x: 1}"), Ok("代码 {x: 1}".to_owned()));
}
