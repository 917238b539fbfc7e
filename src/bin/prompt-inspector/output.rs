//! Writing a command's whole output to stdout, shared by the commands that build it in memory.

use std::io::Write;
use std::process::ExitCode;

use prompt_inspector::report::DiagnosticCode;

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

/// Writes `value` as pretty JSON with a trailing newline straight to stdout, as it is serialised
/// (for output too big to build in memory first); exit 1 when stdout is gone.
pub fn emit_json<T: serde::Serialize + ?Sized>(value: &T) -> ExitCode {
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = prompt_inspector::json_out::write_pretty(&mut stdout, value)
        .map_err(std::io::Error::from)
        .and_then(|()| stdout.write_all(b"\n"))
        .and_then(|()| stdout.flush());
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(1),
    }
}

/// The exit status after the output was `emitted`: each diagnostic `--deny` names is said on
/// stderr and makes it 1 (a closed stdout stays what it was).
pub fn deny_exit<'d>(
    emitted: ExitCode,
    deny: &[DiagnosticCode],
    diagnostics: impl IntoIterator<Item = &'d prompt_inspector::inject::Diagnostic>,
) -> ExitCode {
    let mut denied = false;
    for d in diagnostics {
        if deny.contains(&d.code) {
            eprintln!("denied: {}: {}", d.code, d.message);
            denied = true;
        }
    }
    if emitted == ExitCode::SUCCESS && denied {
        ExitCode::from(1)
    } else {
        emitted
    }
}
