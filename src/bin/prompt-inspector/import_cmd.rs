//! `prompt-inspector import`: a recorded request (or a JSON-lines file of them) in, scene files
//! out; the mapping is the core's (`prompt_inspector::import`). The summary, with what could not
//! be mapped, goes to stderr.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use prompt_inspector::import::{self, Import, Source};

/// Where the scenes go.
pub enum Out {
    /// One scene on stdout.
    Stdout,
    /// One scene into this file.
    File(PathBuf),
    /// The scenes into this folder (`NN-<name>.scene.json` for a conversation).
    Dir(PathBuf),
}

pub fn run(input: &Path, from: Option<Source>, out: Out, force: bool) -> ExitCode {
    // One scene's destinations refuse a conversation before it is converted.
    let read = match &out {
        Out::Stdout | Out::File(_) => import::import_file_one(input, from),
        Out::Dir(_) => import::import_file(input, from),
    };
    let imported = match read {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    summary(input, &imported);
    let count = imported.scenes.len();
    let targets: Vec<PathBuf> = match &out {
        Out::Stdout | Out::File(_) if count > 1 => {
            eprintln!(
                "error: {} became {count} scenes (a conversation): pass --out-dir DIR to write them as numbered files",
                input.display()
            );
            return ExitCode::from(2);
        }
        Out::Stdout => {
            return crate::output::emit(&imported.scenes[0].text);
        }
        Out::File(path) => vec![path.clone()],
        Out::Dir(dir) => {
            if let Err(e) = std::fs::create_dir_all(dir) {
                eprintln!("error: {}: {e}", dir.display());
                return ExitCode::from(2);
            }
            import::file_names(&imported)
                .into_iter()
                .map(|n| dir.join(n))
                .collect()
        }
    };
    if !force {
        if let Some(existing) = targets.iter().find(|p| p.exists()) {
            eprintln!(
                "error: {} exists; pass --force to replace it",
                existing.display()
            );
            return ExitCode::from(2);
        }
    }
    for (scene, path) in imported.scenes.iter().zip(&targets) {
        if let Err(e) = prompt_inspector::files::write_atomic(path, scene.text.as_bytes()) {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(2);
        }
        eprintln!("wrote {}", path.display());
    }
    if count > 1 {
        if let Out::Dir(dir) = &out {
            eprintln!(
                "the calls in order: prompt-inspector cache {}",
                dir.join(format!("*-{}.scene.json", imported.stem))
                    .display()
            );
        }
    }
    ExitCode::SUCCESS
}

fn summary(input: &Path, imported: &Import) {
    let source = imported.source.as_str();
    match &imported.detected {
        Some(why) => eprintln!("{}: read as {source} (detected: {why})", input.display()),
        None => eprintln!("{}: read as {source} (--from)", input.display()),
    }
    for s in &imported.skipped {
        eprintln!("skipped {s}");
    }
    for scene in &imported.scenes {
        eprintln!("scene {} ({}): {}", scene.name, scene.from, recorded(scene));
        for c in &scene.carried {
            eprintln!("  - carried {c}");
        }
        if scene.unmapped.is_empty() {
            eprintln!("  everything else mapped");
            continue;
        }
        eprintln!(
            "  not mapped ({}, also listed in its description):",
            scene.unmapped.len()
        );
        for u in &scene.unmapped {
            eprintln!("  - {u}");
        }
    }
}

/// What a scene keeps in `recorded`, in one line: API, model, parameters, usage, breakpoints.
fn recorded(scene: &import::ImportedScene) -> String {
    let Some(r) = &scene.recorded else {
        return "nothing recorded beside the prompts".to_owned();
    };
    let mut out = format!(
        "recorded {} {}",
        r.api.as_str(),
        r.model.as_deref().unwrap_or("(no model named)")
    );
    if !r.params.is_empty() {
        let names: Vec<&str> = r.params.keys().map(String::as_str).collect();
        out.push_str(&format!(", params: {}", names.join(", ")));
    }
    if let Some(u) = &r.usage {
        out.push_str(&format!(
            ", billed input {} ({} read from the cache, {} written), output {}",
            u.input_total,
            u.cache_read,
            u.cache_write_total(),
            u.output
        ));
    }
    if !r.cache_control.is_empty() {
        out.push_str(&format!(", {} cache breakpoint(s)", r.cache_control.len()));
    }
    if let Some(p) = &r.prompt {
        out.push_str(&format!(
            ", prompt template {}{}",
            p.name.as_deref().unwrap_or("(unnamed)"),
            p.version
                .as_deref()
                .map(|v| format!(" version {v}"))
                .unwrap_or_default()
        ));
    }
    if !r.reply.is_empty() {
        out.push_str(&format!(", the reply ({} message(s))", r.reply.len()));
    }
    out
}
