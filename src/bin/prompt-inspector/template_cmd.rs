//! `prompt-inspector template`: one template, JSON variables, text on stdout.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use prompt_inspector::{Engine, Template, Value, Vars};

/// A template or variables file is at most this large, like a scene.
const MAX_TEXT_BYTES: u64 = prompt_inspector::scene::MAX_SCENE_BYTES;

/// Reads a UTF-8 text file (a regular file, bounded), naming the file in the error.
pub fn read_text(path: &Path) -> Result<String, String> {
    prompt_inspector::files::read_regular_text(path, MAX_TEXT_BYTES, "a template or variables file")
        .map_err(|e| format!("{}: {e}", path.display()))
}

pub fn run(engine: Engine, template_path: &Path, vars_path: &Path) -> ExitCode {
    let fail = |message: String| {
        eprint!("error: {message}");
        if !message.ends_with('\n') {
            eprintln!();
        }
        ExitCode::from(1)
    };
    let source = match read_text(template_path) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let vars_text = match read_text(vars_path) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let vars = match Value::from_json_str(&vars_text) {
        Ok(v @ Value::Dict(_)) => v,
        Ok(other) => {
            return fail(format!(
                "{}: the variables must be a JSON object, found {}",
                vars_path.display(),
                other.type_name()
            ))
        }
        Err(e) => {
            return fail(format!(
                "{}:{}:{}: invalid JSON: {}",
                vars_path.display(),
                e.line,
                e.column,
                e.message
            ))
        }
    };
    let name = template_path.display().to_string();
    let rendered = Template::compile(engine, &source).and_then(|t| t.render(&Vars::new(vars)));
    match rendered {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            if out
                .write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .is_err()
            {
                return ExitCode::from(1);
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(e.excerpt(&source, &name)),
    }
}
