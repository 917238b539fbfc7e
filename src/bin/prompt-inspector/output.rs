//! Writing a command's whole output to stdout, shared by the commands that build it in memory.

use std::io::Write;
use std::process::ExitCode;

/// Pretty JSON (the project's one indentation style) with a trailing newline.
pub fn json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    let mut s = prompt_inspector::json_out::to_string_pretty(value);
    s.push('\n');
    s
}

/// Writes `out` and flushes; exit 1 when stdout is gone (a closed pipe).
pub fn emit(out: &str) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(1),
    }
}
