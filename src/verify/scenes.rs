//! Recorded calls read from imported scenes (`*.scene.json` with a `recorded` field holding the
//! response's usage, docs/scene-format.md), or from any recording `import` reads, made scenes
//! first: the request body is rebuilt in the recorded API's
//! shape from the scene's chat render (`provider::recorded_request`), and each text the scene's
//! configured prompts and tools wrote is known by who wrote it, so a miss can name the prompt or
//! tool that changed the prefix.

use std::path::Path;

use serde_json::Value as Json;

use super::input::InputError;
use super::{Author, Call};
use crate::report::{Report, Source};
use crate::scene::Scene;
use crate::segments::Family;

/// A call from a scene file; `Ok(None)` for a scene of a folder that recorded no usage.
pub fn read_scene(path: &Path, in_folder: bool) -> Result<Option<Call>, InputError> {
    let file = path.display().to_string();
    let scene = crate::scene::load_file(path).map_err(|e| InputError {
        file: file.clone(),
        line: e.line,
        column: e.column,
        pointer: e.path.clone(),
        message: e.message.clone(),
    })?;
    call_of(&scene, &file, file.clone(), path.parent(), in_folder)
}

/// [`read_scene`] of a scene's text, `label` naming it (a scene of one conversation's, so one
/// that records no usage is skipped).
pub fn read_scene_text(text: &str, label: &str) -> Result<Option<Call>, InputError> {
    let scene = crate::scene::load_str(text).map_err(|e| InputError {
        file: label.to_owned(),
        line: e.line,
        column: e.column,
        pointer: e.path.clone(),
        message: e.message.clone(),
    })?;
    call_of(&scene, label, label.to_owned(), None, true)
}

/// The calls a recording holds that `prompt-inspector import` reads (a JSON-lines file of
/// requests or pairs, a VCR cassette, a HAR file, an OpenTelemetry export, a request with its
/// response), each made a scene and rebuilt from it: one conversation, in call order.
pub fn read_recording(path: &Path) -> Result<Vec<Call>, InputError> {
    let file = path.display().to_string();
    let import = crate::import::import_file(path, None).map_err(|e| InputError {
        file: file.clone(),
        line: e.line,
        column: e.column,
        pointer: e.pointer.clone(),
        message: e.message.clone(),
    })?;
    let several = import.scenes.len() > 1;
    let mut calls = Vec::with_capacity(import.scenes.len());
    for (i, imported) in import.scenes.iter().enumerate() {
        let scene = crate::scene::load_str(&imported.text).map_err(|e| InputError {
            file: file.clone(),
            line: 0,
            column: 0,
            pointer: String::new(),
            message: format!("the scene made from {} does not load: {e}", imported.from),
        })?;
        let label = if several {
            format!("{file} ({})", imported.from)
        } else {
            file.clone()
        };
        if let Some(mut call) = call_of(&scene, &file, label, path.parent(), true)? {
            if several {
                call.conversation = Some(file.clone());
                call.seq = u32::try_from(i + 1).ok();
            }
            calls.push(call);
        }
    }
    if calls.is_empty() {
        return Err(InputError {
            file,
            line: 0,
            column: 0,
            pointer: String::new(),
            message: "no recorded call with its usage: record the responses too".to_owned(),
        });
    }
    Ok(calls)
}

/// The call a scene with recorded usage stands for, labelled `label`; `Ok(None)` for a scene
/// without usage when `skip` (a folder's), an error naming `file` otherwise.
fn call_of(
    scene: &Scene,
    file: &str,
    label: String,
    base_dir: Option<&Path>,
    skip: bool,
) -> Result<Option<Call>, InputError> {
    let unplaced = |message: &str| InputError {
        file: file.to_owned(),
        line: 0,
        column: 0,
        pointer: String::new(),
        message: message.to_owned(),
    };
    let usage = scene.recorded.as_ref().and_then(|r| r.usage.clone());
    let (Some(recorded), Some(usage)) = (scene.recorded.as_ref(), usage) else {
        if skip {
            return Ok(None);
        }
        return Err(unplaced(
            "the scene records no usage (`recorded.usage`): import the call with its response",
        ));
    };
    let report = crate::inject::render(scene, Family::Chat);
    let rebuilt = match crate::provider::recorded_request(scene, &report, base_dir) {
        Some(Ok(r)) => r,
        Some(Err(e)) => return Err(unplaced(&format!("the request cannot be rebuilt: {e}"))),
        None => return Err(unplaced("the scene has no `recorded` field")),
    };
    let who = authors(&report, &rebuilt.body);
    Ok(Some(Call {
        label,
        conversation: None,
        seq: None,
        api: rebuilt.api,
        model: rebuilt.model,
        body: rebuilt.body,
        raw: None,
        usage,
        cache_reported: true,
        timestamp: recorded.timestamp.clone(),
        who,
    }))
}

/// Who wrote each text of `body` that a segment's pieces make: each segment's text is looked for
/// in the body's strings (in document order, the first string holding it), and each of its
/// pieces, a configured prompt or a tool's text, is named over its bytes there.
fn authors(report: &Report, body: &Json) -> Vec<Author> {
    let mut strings = Vec::new();
    strings_of(body, String::new(), &mut strings);
    let mut out = Vec::new();
    for segment in &report.segments {
        if segment.pieces.is_empty() || segment.text.is_empty() {
            continue;
        }
        let Some((pointer, at)) = strings
            .iter()
            .find_map(|(p, s)| s.find(segment.text.as_str()).map(|at| (p, at)))
        else {
            continue;
        };
        for piece in &segment.pieces {
            let who = match piece.source {
                Source::Tool => format!(
                    "tool {} in {}",
                    piece.tool.as_deref().unwrap_or("?"),
                    segment.name
                ),
                Source::Config => match piece.index {
                    Some(i) => format!("the configured prompt {}[{i}]", segment.name),
                    None => format!("a configured prompt of {}", segment.name),
                },
            };
            out.push(Author {
                pointer: pointer.clone(),
                range: at + piece.range[0]..at + piece.range[1],
                who,
            });
        }
    }
    out
}

/// Every string of `value` with its JSON pointer, in document order.
fn strings_of<'v>(value: &'v Json, pointer: String, out: &mut Vec<(String, &'v str)>) {
    match value {
        Json::String(s) => out.push((pointer, s)),
        Json::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                strings_of(v, format!("{pointer}/{i}"), out);
            }
        }
        Json::Object(map) => {
            for (k, v) in map {
                strings_of(v, format!("{pointer}/{}", super::diff::escape(k)), out);
            }
        }
        _ => {}
    }
}
