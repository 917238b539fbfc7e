//! Recorded calls read from files: one call per file, `{request, response_usage, model,
//! conversation, seq}` (the usage corpus's shape, corpora/usage/PROVENANCE.md), with the optional
//! `api` (detected from the usage's and the request's fields when absent) and `timestamp`
//! (RFC 3339); or an imported scene with recorded usage (`scenes`), the scenes of one folder
//! being one conversation in file-name order. Folders are searched recursively for `*.json`
//! files; in a folder, a JSON file that is not a call (no `request` and no `response_usage`, such
//! as the corpus's `selection.json`) and a scene that recorded no usage are skipped. Every error
//! names the file and, where it can, the line, the column and the field.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use super::{time, Call};
use crate::usage::{Api, Usage};

/// A call file is at most this large (a body with a few images inline).
pub const MAX_CALL_BYTES: u64 = 64 * 1024 * 1024;

/// Folders are searched this deep at most (a link loop ends there).
const MAX_FOLDER_DEPTH: usize = 32;

/// A file or folder that cannot be read as recorded calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub file: String,
    /// 1-based; 0 when the problem is not at a place in the file.
    pub line: usize,
    pub column: usize,
    /// The field's JSON pointer, when one is at fault.
    pub pointer: String,
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if !self.pointer.is_empty() {
            write!(f, ": {}", self.pointer)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for InputError {}

/// What the paths held.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    pub calls: Vec<Call>,
    /// Files and folders that could not be read, in the order met; the rest were read.
    pub errors: Vec<InputError>,
    /// JSON files in folders that are not calls.
    pub skipped: Vec<String>,
}

/// Reads every call under `paths` (files as given, folders recursively in sorted order).
pub fn load_paths(paths: &[PathBuf]) -> Loaded {
    let mut loaded = Loaded::default();
    for p in paths {
        match crate::files::metadata(p) {
            Ok(meta) if meta.is_dir() => walk(p, 0, &mut loaded),
            Ok(_) if is_recording(p) => match super::scenes::read_recording(p) {
                Ok(calls) => loaded.calls.extend(calls),
                Err(e) => loaded.errors.push(e),
            },
            Ok(_) => read_into(p, false, &mut loaded),
            Err(e) => loaded.errors.push(unplaced(p, e.to_string())),
        }
    }
    check_places(&mut loaded);
    loaded
}

/// The scenes of one conversation, one call each in the order given (a folder's `*.scene.json`
/// files as the app's Conversation view opens them); scenes that record no usage are skipped.
pub fn load_scenes(paths: &[PathBuf]) -> Loaded {
    let mut loaded = Loaded::default();
    for p in paths {
        read_into(p, true, &mut loaded);
    }
    check_places(&mut loaded);
    loaded
}

/// [`load_scenes`] of scene texts, each with its label (the name its errors and result carry):
/// one conversation, in the order given.
pub fn load_scene_texts(texts: &[(String, String)]) -> Loaded {
    let mut loaded = Loaded::default();
    for (label, text) in texts {
        match super::scenes::read_scene_text(text, label) {
            Ok(Some(mut call)) => {
                call.seq = u32::try_from(loaded.calls.len() + 1).ok();
                call.conversation = Some(String::new());
                loaded.calls.push(call);
            }
            Ok(None) => loaded.skipped.push(label.clone()),
            Err(e) => loaded.errors.push(e),
        }
    }
    check_places(&mut loaded);
    loaded
}

fn walk(dir: &Path, depth: usize, loaded: &mut Loaded) {
    if depth > MAX_FOLDER_DEPTH {
        loaded.errors.push(unplaced(
            dir,
            format!("folders nested deeper than {MAX_FOLDER_DEPTH}"),
        ));
        return;
    }
    let mut entries: Vec<PathBuf> = match crate::files::read_dir(dir) {
        Ok(entries) => entries.into_iter().map(|e| e.path()).collect(),
        Err(e) => {
            loaded.errors.push(unplaced(dir, e.to_string()));
            return;
        }
    };
    entries.sort();
    for p in entries {
        match crate::files::metadata(&p) {
            Ok(meta) if meta.is_dir() => walk(&p, depth + 1, loaded),
            Ok(_) if is_call_file(&p) => read_into(&p, true, loaded),
            Ok(_) => {}
            Err(e) => loaded.errors.push(unplaced(&p, e.to_string())),
        }
    }
}

/// A `*.json` file.
fn is_call_file(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "json")
}

/// A recording only `import` reads, named on its own: JSON lines, a cassette, a HAR file.
fn is_recording(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    [".jsonl", ".ndjson", ".yaml", ".yml", ".har"]
        .iter()
        .any(|x| name.ends_with(x))
}

/// A `*.scene.json` file.
fn is_scene_file(p: &Path) -> bool {
    p.file_name()
        .is_some_and(|n| n.to_string_lossy().ends_with(".scene.json"))
}

fn unplaced(p: &Path, message: String) -> InputError {
    InputError {
        file: p.display().to_string(),
        line: 0,
        column: 0,
        pointer: String::new(),
        message,
    }
}

fn read_into(p: &Path, in_folder: bool, loaded: &mut Loaded) {
    if is_scene_file(p) {
        match super::scenes::read_scene(p, in_folder) {
            Ok(Some(mut call)) => {
                // The scenes of a folder are one conversation, in the order they are read.
                let folder = p
                    .parent()
                    .map(|f| f.display().to_string())
                    .unwrap_or_default();
                let place = loaded
                    .calls
                    .iter()
                    .filter(|c| c.conversation.as_deref() == Some(folder.as_str()))
                    .count();
                call.conversation = Some(folder);
                call.seq = u32::try_from(place + 1).ok();
                loaded.calls.push(call);
            }
            Ok(None) => loaded.skipped.push(p.display().to_string()),
            Err(e) => loaded.errors.push(e),
        }
        return;
    }
    let text = match crate::files::read_regular_text(p, MAX_CALL_BYTES, "a recorded call") {
        Ok(t) => t,
        Err(e) => return loaded.errors.push(unplaced(p, e.to_string())),
    };
    match read_call(&text, &p.display().to_string(), in_folder) {
        Ok(Read::Call(call)) => loaded.calls.push(*call),
        Ok(Read::NotACall) => loaded.skipped.push(p.display().to_string()),
        // A request with its whole response: the usage is in the response, as import reads it.
        Ok(Read::WithResponse) => match super::scenes::read_recording(p) {
            Ok(calls) => loaded.calls.extend(calls),
            Err(e) => loaded.errors.push(e),
        },
        Err(e) => loaded.errors.push(e),
    }
}

/// What a JSON file holds.
#[derive(Debug)]
pub enum Read {
    Call(Box<Call>),
    /// In a folder: a JSON file that is no recorded call.
    NotACall,
    /// A request with its whole response (`{request, response}`), which `import` reads.
    WithResponse,
}

/// A call from one file's text.
pub fn read_call(text: &str, file: &str, in_folder: bool) -> Result<Read, InputError> {
    let fail = |pointer: &str, message: String| {
        let (line, column) = position(text, pointer);
        InputError {
            file: file.to_owned(),
            line,
            column,
            pointer: pointer.to_owned(),
            message,
        }
    };
    let doc: Json = serde_json::from_str(text).map_err(|e| InputError {
        file: file.to_owned(),
        line: e.line(),
        column: e.column(),
        pointer: String::new(),
        message: strip_position(&e.to_string()),
    })?;
    let Some(object) = doc.as_object() else {
        if in_folder {
            return Ok(Read::NotACall);
        }
        return Err(fail(
            "",
            format!(
                "expected a recorded call, an object {{request, response_usage, ...}}, found {}",
                describe(&doc)
            ),
        ));
    };
    if in_folder && !object.contains_key("request") && !object.contains_key("response_usage") {
        return Ok(Read::NotACall);
    }
    let request = match object.get("request") {
        Some(r) if r.is_object() => r,
        Some(other) => {
            return Err(fail(
                "/request",
                format!(
                    "expected the request body, an object, found {}",
                    describe(other)
                ),
            ))
        }
        None => {
            return Err(fail(
                "",
                "no `request`: a recorded call holds its request body in `request`".to_owned(),
            ))
        }
    };
    if !object.contains_key("response_usage") && object.contains_key("response") {
        return Ok(Read::WithResponse);
    }
    let usage_json = match object.get("response_usage") {
        Some(u) if u.is_object() => u,
        Some(other) => return Err(fail("/response_usage", format!("expected the response's usage object, found {}", describe(other)))),
        None => return Err(fail("", "no `response_usage`: a recorded call holds what the provider billed in `response_usage`".to_owned())),
    };
    let api = match object.get("api") {
        None | Some(Json::Null) => detect(request, usage_json).ok_or_else(|| {
            fail("/response_usage", "cannot tell the API from the usage (no `prompt_tokens`, `input_tokens` or `promptTokenCount`): name it in `api`".to_owned())
        })?,
        Some(Json::String(s)) => Api::parse(s).ok_or_else(|| {
            let names: Vec<&str> = Api::ALL.iter().map(|a| a.as_str()).collect();
            fail("/api", format!("unknown API {s:?}; expected one of {}", names.join(", ")))
        })?,
        Some(other) => return Err(fail("/api", format!("expected a string, found {}", describe(other)))),
    };
    let model = match (object.get("model"), request.get("model")) {
        (Some(Json::String(m)), _) | (None | Some(Json::Null), Some(Json::String(m))) => m.clone(),
        (Some(other @ (Json::Bool(_) | Json::Number(_) | Json::Array(_) | Json::Object(_))), _) => {
            return Err(fail(
                "/model",
                format!(
                    "expected the model's name, a string, found {}",
                    describe(other)
                ),
            ))
        }
        _ => {
            return Err(fail(
                "",
                "no model: name it in `model` (or the request's `model`)".to_owned(),
            ))
        }
    };
    let usage = Usage::from_response(api, usage_json).ok_or_else(|| {
        fail(
            "/response_usage",
            format!(
                "not {} usage: its input token count is missing or not a whole number",
                api.as_str()
            ),
        )
    })?;
    let conversation = match object.get("conversation") {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(fail(
                "/conversation",
                format!(
                    "expected a conversation id, a string, found {}",
                    describe(other)
                ),
            ))
        }
    };
    let seq = match object.get("seq") {
        None | Some(Json::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .filter(|n| *n >= 1)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| {
                    fail(
                        "/seq",
                        format!("expected the call's 1-based place, found {v}"),
                    )
                })?,
        ),
    };
    let timestamp = match object.get("timestamp") {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) if time::seconds(s).is_some() => Some(s.clone()),
        Some(other) => {
            return Err(fail(
                "/timestamp",
                format!(
                "expected an RFC 3339 date-time such as \"2025-06-01T10:15:30Z\", found {other}"
            ),
            ))
        }
    };
    Ok(Read::Call(Box::new(Call {
        label: file.to_owned(),
        conversation,
        seq,
        api,
        model,
        body: request.clone(),
        raw: None,
        cache_reported: reports_cache(api, usage_json),
        usage,
        timestamp,
        who: Vec::new(),
    })))
}

/// The API a call went to, from its usage's fields (each API names its counts its own way),
/// then from its request's.
fn detect(request: &Json, usage: &Json) -> Option<Api> {
    let has = |v: &Json, key: &str| v.get(key).is_some();
    if has(usage, "prompt_tokens") {
        return Some(Api::OpenaiChat);
    }
    if has(usage, "promptTokenCount") {
        return Some(Api::Gemini);
    }
    if has(usage, "cache_creation_input_tokens") || has(usage, "cache_read_input_tokens") {
        return Some(Api::Anthropic);
    }
    if has(usage, "input_tokens_details") || has(usage, "output_tokens_details") {
        return Some(Api::OpenaiResponses);
    }
    if !has(usage, "input_tokens") {
        return None;
    }
    if has(request, "input") || has(request, "instructions") {
        Some(Api::OpenaiResponses)
    } else if has(request, "messages") {
        Some(Api::Anthropic)
    } else {
        None
    }
}

/// Whether the usage says how much was read from the cache (zero included).
fn reports_cache(api: Api, usage: &Json) -> bool {
    let at = |path: &[&str]| {
        let mut v = usage;
        for k in path {
            match v.get(k) {
                Some(next) => v = next,
                None => return false,
            }
        }
        v.is_u64()
    };
    match api {
        Api::OpenaiChat => {
            at(&["prompt_tokens_details", "cached_tokens"])
                || at(&["input_tokens_details", "cached_tokens"])
        }
        Api::OpenaiResponses => at(&["input_tokens_details", "cached_tokens"]),
        Api::Anthropic => at(&["cache_read_input_tokens"]),
        Api::Gemini => at(&["cachedContentTokenCount"]),
    }
}

/// Every conversation's places are its own: a `seq` given twice is an error on the later file.
fn check_places(loaded: &mut Loaded) {
    let mut seen: Vec<(&str, u32, &str)> = Vec::new();
    let mut errors = Vec::new();
    for c in &loaded.calls {
        let (Some(conversation), Some(seq)) = (c.conversation.as_deref(), c.seq) else {
            continue;
        };
        match seen
            .iter()
            .find(|(n, s, _)| *n == conversation && *s == seq)
        {
            Some((_, _, first)) => errors.push(InputError {
                file: c.label.clone(),
                line: 0,
                column: 0,
                pointer: "/seq".to_owned(),
                message: format!("conversation {conversation:?} has a call {seq} already: {first}"),
            }),
            None => seen.push((conversation, seq, &c.label)),
        }
    }
    let doubled: Vec<String> = errors.iter().map(|e| e.file.clone()).collect();
    loaded.calls.retain(|c| !doubled.contains(&c.label));
    loaded.errors.extend(errors);
}

/// The 1-based line and column of the value at `pointer` in `text` (of the deepest value on the
/// way that exists), `(1, 1)` for the document.
fn position(text: &str, pointer: &str) -> (usize, usize) {
    let Ok(root) = crate::json::parse(text) else {
        return (1, 1);
    };
    let mut at = &root;
    for step in pointer.split('/').skip(1) {
        let key = step.replace("~1", "/").replace("~0", "~");
        let next = match &at.kind {
            crate::json::Kind::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => at.get(&key),
        };
        match next {
            Some(n) => at = n,
            None => break,
        }
    }
    crate::json::line_col(text, at.span.start)
}

/// A value's kind, for "found …".
fn describe(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// serde_json ends its messages with " at line L column C", which the error gives already.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(k) => message[..k].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(text: &str) -> Result<Option<Call>, InputError> {
        read_call(text, "c.json", false).map(|r| match r {
            Read::Call(c) => Some(*c),
            _ => None,
        })
    }

    #[test]
    fn a_corpus_call_reads_with_its_api_detected() {
        let c = call(
            r#"{"source": "x", "model": "gpt-4o-mini",
                "request": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]},
                "response_usage": {"prompt_tokens": 8, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 0}},
                "conversation": "x:one", "seq": 2}"#,
        )
        .expect("reads")
        .expect("a call");
        assert_eq!(c.api, Api::OpenaiChat);
        assert_eq!((c.conversation.as_deref(), c.seq), (Some("x:one"), Some(2)));
        assert_eq!(c.usage.input_total, 8);
        assert!(c.cache_reported);
        let anthropic = call(
            r#"{"model": "claude-sonnet-4-5", "request": {"messages": []},
                "response_usage": {"input_tokens": 5, "output_tokens": 1}}"#,
        )
        .expect("reads")
        .expect("a call");
        assert_eq!(anthropic.api, Api::Anthropic);
        assert!(
            !anthropic.cache_reported,
            "no cache field: nothing reported"
        );
    }

    #[test]
    fn errors_name_the_line_column_and_field() {
        let text = "{\n  \"request\": {\"messages\": []}, \"model\": \"m\",\n  \"response_usage\": {\"prompt_tokens\": 1},\n  \"seq\": 0\n}";
        let e = call(text).expect_err("seq 0");
        assert_eq!(
            e.to_string(),
            "c.json:4:10: /seq: expected the call's 1-based place, found 0"
        );
        let e = call("{\"request\": {}, \"response_usage\": {\"prompt_tokens\": 1}}")
            .expect_err("no model");
        assert_eq!((e.line, e.column, e.pointer.as_str()), (1, 1, ""));
        let e = call("{\"request\": [], \"response_usage\": {}}").expect_err("not an object");
        assert_eq!((e.line, e.column, e.pointer.as_str()), (1, 13, "/request"));
        let e = call("{\"request\": {}, \n \"response_usage\": {\"tokens\": 1}, \"model\": \"m\"}")
            .expect_err("unknown usage");
        assert_eq!((e.line, e.column), (2, 20));
        assert!(
            e.message.starts_with("cannot tell the API"),
            "{}",
            e.message
        );
        let e = call("{\"request\": {,}}").expect_err("not JSON");
        assert_eq!((e.line, e.column), (1, 14));
        assert!(!e.message.contains("at line"), "{}", e.message);
        assert!(matches!(
            read_call("{\"items\": []}", "selection.json", true),
            Ok(Read::NotACall)
        ));
        assert!(matches!(
            read_call(
                "{\"request\": {}, \"response\": \"data: {}\"}",
                "pair.json",
                false
            ),
            Ok(Read::WithResponse)
        ));
    }
}
