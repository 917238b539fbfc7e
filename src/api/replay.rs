//! `check` and `approve`: a folder of scenes against their goldens, with both JSON documents for a
//! side-by-side view, and writing one golden; `golden`: scene text against a golden file anywhere
//! (the Python package's pytest fixture), with the diff `check` prints.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::error::u32_of;
use super::render::raw_json;
use super::ApiError;
use crate::check;
use crate::scene;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CheckRequest {
    /// A folder searched recursively for `*.scene.json`, or one scene file.
    pub folder: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CheckResponse {
    /// Scenes whose golden matches.
    pub passed: u32,
    pub failed: u32,
    pub scenes: Vec<CheckedScene>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum CheckStatus {
    Ok,
    Mismatch,
    MissingGolden,
    Unreadable,
}

#[derive(Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CheckedScene {
    pub path: String,
    pub golden_path: String,
    pub status: CheckStatus,
    /// The golden file's JSON; `null` when missing, unreadable or not JSON.
    #[cfg_attr(feature = "specta", specta(type = Option<specta_typescript::Unknown>))]
    pub golden: Option<Box<RawValue>>,
    /// What the golden would hold now; `null` when the scene does not load.
    #[cfg_attr(feature = "specta", specta(type = Option<specta_typescript::Unknown>))]
    pub current: Option<Box<RawValue>>,
    /// Unified diff golden → now, for `mismatch`.
    pub diff: Option<String>,
    /// Why the scene is `unreadable`.
    pub error: Option<ApiError>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ApproveRequest {
    pub scene_path: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ApproveResponse {
    pub golden_path: String,
}

/// Checks every scene under `folder` against its golden.
pub fn check(req: &CheckRequest) -> Result<CheckResponse, ApiError> {
    tracing::info!(folder = %req.folder, "checking scenes against goldens");
    let folder = PathBuf::from(&req.folder);
    let scenes = check::discover(std::slice::from_ref(&folder)).map_err(|e| {
        // The path asked for is missing: the box that named it asks for a folder.
        let what = if e.path == folder {
            "folder"
        } else {
            "file or folder"
        };
        ApiError::io_of(&e.path, &e.error, what)
    })?;
    if scenes.is_empty() {
        return Err(ApiError::invalid(
            "folder",
            format!(
                "no *{} files under {}",
                check::SCENE_SUFFIX,
                folder.display()
            ),
        ));
    }
    let mut out = Vec::with_capacity(scenes.len());
    for path in &scenes {
        out.push(check_scene(path)?);
    }
    let passed = out.iter().filter(|s| s.status == CheckStatus::Ok).count();
    Ok(CheckResponse {
        passed: u32_of(passed),
        failed: u32_of(out.len() - passed),
        scenes: out,
    })
}

fn check_scene(path: &Path) -> Result<CheckedScene, ApiError> {
    let golden_path = check::golden_path(path);
    let mut entry = CheckedScene {
        path: path.display().to_string(),
        golden_path: golden_path.display().to_string(),
        status: CheckStatus::Unreadable,
        golden: None,
        current: None,
        diff: None,
        error: None,
    };
    let scene = match scene::load_file(path) {
        Ok(s) => s,
        Err(e) => {
            entry.error = Some(e.into());
            return Ok(entry);
        }
    };
    let now = check::golden_text_in(&scene, path.parent());
    entry.current = Some(raw_json_text(&now)?);
    match check::read_golden(&golden_path) {
        Ok(before) => {
            // A golden that is not JSON still gets its diff; only the structured view is lost.
            entry.golden = RawValue::from_string(before.trim_end().to_owned()).ok();
            if before == now {
                entry.status = CheckStatus::Ok;
            } else {
                entry.status = CheckStatus::Mismatch;
                entry.diff = Some(check::mismatch_diff(
                    &before,
                    &now,
                    &golden_path.display().to_string(),
                ));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            entry.status = CheckStatus::MissingGolden;
        }
        Err(e) => entry.error = Some(ApiError::io(&golden_path, &e)),
    }
    Ok(entry)
}

/// The golden text the core wrote, as raw JSON (without its trailing newline).
fn raw_json_text(text: &str) -> Result<Box<RawValue>, ApiError> {
    RawValue::from_string(text.trim_end().to_owned()).or_else(|_| raw_json(text))
}

/// Writes the golden of one scene, as it is on disk now.
pub fn approve(req: &ApproveRequest) -> Result<ApproveResponse, ApiError> {
    tracing::info!(scene = %req.scene_path, "approving golden");
    let path = Path::new(&req.scene_path);
    let golden = check::golden_path(path);
    // Confined (the app): both the scene and its golden must be reachable, before either is read.
    let reachable =
        |p: &Path, access| crate::files::chosen::check(p, access).map_err(|e| ApiError::io(p, &e));
    reachable(path, crate::files::Access::Read)?;
    reachable(&golden, crate::files::Access::Write)?;
    let scene = scene::load_file(path)?;
    let text = check::golden_text_in(&scene, path.parent());
    crate::files::write_atomic(&golden, text.as_bytes())
        .map_err(|e| ApiError::io_of(&golden, &e, "folder to write it in"))?;
    tracing::info!(golden = %golden.display(), "golden approved");
    Ok(ApproveResponse {
        golden_path: golden.display().to_string(),
    })
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GoldenRequest {
    /// The scene text.
    pub text: String,
    /// The folder relative image paths resolve against.
    #[serde(default)]
    pub base_dir: Option<String>,
    /// The golden file to compare with (or write).
    pub golden_path: String,
    /// Write the golden instead of comparing.
    #[serde(default)]
    pub bless: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GoldenResponse {
    /// `ok`, `mismatch` or `missing_golden`; after `bless`, `ok` (the golden was written).
    pub status: CheckStatus,
    /// Unified diff golden → now, for `mismatch`, as `check` prints it.
    pub diff: Option<String>,
    /// Whether the golden was written (`bless`).
    pub written: bool,
}

/// Compares scene text with a golden file, as `check` compares a scene file with the golden
/// beside it (the same golden text and diff); with `bless`, writes the golden atomically.
pub fn golden(req: &GoldenRequest) -> Result<GoldenResponse, ApiError> {
    let scene = scene::load_str(&req.text)?;
    let golden_path = Path::new(&req.golden_path);
    let now = check::golden_text_in(&scene, req.base_dir.as_deref().map(Path::new));
    if req.bless {
        crate::files::write_atomic(golden_path, now.as_bytes())
            .map_err(|e| ApiError::io_of(golden_path, &e, "folder to write it in"))?;
        return Ok(GoldenResponse {
            status: CheckStatus::Ok,
            diff: None,
            written: true,
        });
    }
    let (status, diff) = match check::read_golden(golden_path) {
        Ok(before) if before == now => (CheckStatus::Ok, None),
        Ok(before) => (
            CheckStatus::Mismatch,
            Some(check::mismatch_diff(&before, &now, &req.golden_path)),
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (CheckStatus::MissingGolden, None),
        Err(e) => return Err(ApiError::io(golden_path, &e)),
    };
    Ok(GoldenResponse {
        status,
        diff,
        written: false,
    })
}
