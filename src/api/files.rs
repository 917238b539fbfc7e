//! Scene files: the embedded default, open (only what loads), atomic save, and a stat the UI
//! polls to notice a change on disk.

use std::path::Path;
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use super::{ApiError, ErrorCode};
use crate::scene;

/// A scene's text and where it came from (`null` for the embedded default scene).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SceneText {
    pub path: Option<String>,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PathRequest {
    pub path: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SaveRequest {
    pub path: String,
    pub text: String,
    /// The text is a recording `import` reads (the Live view's JSON lines of received spans, read
    /// back by `cache` and `verify`) rather than a scene; it must import to be written.
    #[serde(default)]
    pub recording: bool,
}

/// Enough to notice that a file changed on disk since it was read or written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FileStat {
    /// Milliseconds since the Unix epoch; 0 when the OS does not say.
    pub modified_ms: f64,
    /// Bytes.
    pub size: f64,
}

/// The embedded default scene (TFNotes, a chat-only memo, a tool trying a forbidden position).
pub fn default_scene() -> SceneText {
    SceneText {
        path: None,
        text: scene::DEFAULT_SCENE.to_owned(),
    }
}

/// Reads a scene file and checks that it loads; on failure nothing is returned but the error.
pub fn open(req: &PathRequest) -> Result<SceneText, ApiError> {
    tracing::info!(path = %req.path, "opening scene");
    let path = Path::new(&req.path);
    // Read once and load from memory, so the text returned is the text checked; bounded and
    // regular files only, as `scene::load_file` reads (a recording gone wrong, a FIFO or a device
    // is refused, not read into memory or waited on).
    let bytes = crate::files::read_regular(path, scene::MAX_SCENE_BYTES, "a scene")
        .map_err(|e| ApiError::io(path, &e))?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        // Not UTF-8: the loader says where, with the file named.
        Err(e) => {
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let at = e.utf8_error().valid_up_to();
            let (line, column) = crate::json::line_col(&text, at);
            let mut err =
                ApiError::new(ErrorCode::LoadError, "the file is not valid UTF-8").with_file(path);
            err.line = Some(super::error::u32_of(line));
            err.column = Some(super::error::u32_of(column));
            return Err(err);
        }
    };
    scene::load_str(&text).map_err(|e| ApiError::from(e.in_file(path)))?;
    Ok(SceneText {
        path: Some(req.path.clone()),
        text,
    })
}

/// Writes `text` to `path` atomically, refusing text that does not load (as a scene, or as the
/// recording `recording` says it is).
pub fn save(req: &SaveRequest) -> Result<FileStat, ApiError> {
    let path = Path::new(&req.path);
    if req.recording {
        let name = path
            .file_name()
            .map_or_else(|| req.path.clone(), |n| n.to_string_lossy().into_owned());
        let json_lines = name.ends_with(".jsonl") || name.ends_with(".ndjson");
        crate::import::import_str(&req.text, &name, json_lines, None).map_err(|e| {
            ApiError::invalid("text", format!("{name}: not a recording import reads: {e}"))
        })?;
    } else {
        scene::load_str(&req.text)?;
    }
    // A write finds nothing only when the folder it goes in is missing.
    crate::files::write_atomic(path, req.text.as_bytes())
        .map_err(|e| ApiError::io_of(path, &e, "folder to write it in"))?;
    tracing::info!(path = %path.display(), bytes = req.text.len(), "scene saved");
    stat(&PathRequest {
        path: req.path.clone(),
    })
}

/// Modification time and size of a file.
pub fn stat(req: &PathRequest) -> Result<FileStat, ApiError> {
    let path = Path::new(&req.path);
    let meta = crate::files::metadata(path).map_err(|e| ApiError::io(path, &e))?;
    let modified_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    Ok(FileStat {
        modified_ms,
        // f64 holds sizes exactly up to 2^53 bytes.
        size: meta.len() as f64,
    })
}
