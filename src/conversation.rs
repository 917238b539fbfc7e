//! A conversation recorded as scene files, one per call in call order: loaded, each one's chat
//! request rendered, the requests blamed for what a provider's prompt cache could reuse, and the
//! calls priced for each chosen model (`prompt-inspector cache`). It sits above both the
//! injection engine and the run loop, which know nothing of files.

use std::path::{Path, PathBuf};
use std::sync::Arc;

mod lint;

use crate::inject::{self, Options};
use crate::pricing::cost::{round_usd, WhatIf, WhatIfCost};
use crate::pricing::Row;
use crate::provider::image;
use crate::report::Status;
use crate::runloop::blame::{blame, CacheReport};
use crate::scene::{self, Scene, SceneError};
use crate::segments::Family;
use crate::value::Value;

/// Loads the scenes (in call order), renders each one's chat request, blames them and prices
/// them for `models`; steps are labelled by file name. Used by `prompt-inspector cache` and the
/// cache goldens' test. Each tool that injects early gets its what-if ([`what_ifs`]), and the
/// cache-safety lint looks at the calls (`lint`).
pub fn blame_files(paths: &[PathBuf], models: &[&Row]) -> Result<CacheReport, SceneError> {
    Ok(blame_calls(&load(paths)?, models))
}

/// [`blame_files`] of calls already loaded (from files, or from texts by [`load_texts`]).
pub fn blame_calls(calls: &[Call], models: &[&Row]) -> CacheReport {
    let rendered = render(calls);
    let definitions = definitions(calls, &rendered);
    let mut report = blame(&rendered, &definitions, models);
    report.what_if = what_ifs(calls, &report, models);
    report.diagnostics = lint::findings(calls, &rendered, &definitions, &report, models);
    report
}

/// A conversation's calls: each scene with its label and the folder its images resolve in.
pub struct Call {
    pub label: String,
    pub base_dir: Option<PathBuf>,
    pub scene: Scene,
}

pub fn load(paths: &[PathBuf]) -> Result<Vec<Call>, SceneError> {
    paths
        .iter()
        .map(|path| {
            Ok(Call {
                label: path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                ),
                base_dir: path.parent().map(Path::to_path_buf),
                scene: scene::load_file(path)?,
            })
        })
        .collect()
}

/// Calls from scene texts, each with its label (no folder: a file image does not resolve). An
/// error names the label as its file.
pub fn load_texts(texts: &[(String, String)]) -> Result<Vec<Call>, SceneError> {
    texts
        .iter()
        .map(|(label, text)| {
            Ok(Call {
                label: label.clone(),
                base_dir: None,
                scene: scene::load_str(text).map_err(|e| e.in_file(Path::new(label)))?,
            })
        })
        .collect()
}

fn render(calls: &[Call]) -> Vec<(String, inject::Report)> {
    calls
        .iter()
        .map(|c| {
            let options = Options {
                base_dir: c.base_dir.clone(),
                ..Default::default()
            };
            let mut report = inject::render_with(&c.scene, Family::Chat, &options);
            identify_images(&mut report, c.base_dir.as_deref());
            (c.label.clone(), report)
        })
        .collect()
}

/// Each image part of the report's messages replaced by its identity, a hash of its bytes (a file
/// image read from `base_dir`): the caches compare images by identity and count each as one
/// image, so their data is neither kept nor serialised nor tokenized (docs/run-loop.md, "Images").
fn identify_images(report: &mut inject::Report, base_dir: Option<&Path>) {
    for m in report.messages.iter_mut().flatten() {
        let Value::List(parts) = &m.content else {
            continue;
        };
        if parts.iter().any(image::is_image_part) {
            let parts = parts
                .iter()
                .map(|p| {
                    if image::is_image_part(p) {
                        image::identified(p, base_dir)
                    } else {
                        p.clone()
                    }
                })
                .collect();
            m.content = Value::List(Arc::new(parts));
        }
    }
}

/// Each call's tool definitions as its request carries them (`provider::ToolDef`): the tools of
/// its report that have one, by name with their neutral JSON.
fn definitions(calls: &[Call], reports: &[(String, inject::Report)]) -> Vec<Vec<(String, String)>> {
    calls
        .iter()
        .zip(reports)
        .map(|(c, (_, r))| {
            let tools: Vec<&crate::scene::Tool> = r
                .tools
                .iter()
                .filter(|t| t.definition.is_some())
                .filter_map(|t| c.scene.tools.iter().find(|s| s.name == t.name))
                .collect();
            crate::provider::ToolDef::of(&tools)
                .into_iter()
                .map(|d| {
                    let text = d.text();
                    (d.name, text)
                })
                .collect()
        })
        .collect()
}

/// The latest chat segment tools may write: later text shifts nothing a cache could reuse.
pub fn latest_legal_chat_segment() -> &'static str {
    crate::segments::latest_legal(Family::Chat).name
}

/// For each tool that injects into a chat segment before the latest legal one in some call, the
/// calls re-rendered with it moved there, priced for `models` against `report`'s figures.
pub fn what_ifs(calls: &[Call], report: &CacheReport, models: &[&Row]) -> Vec<WhatIf> {
    let to = latest_legal_chat_segment();
    let rendered = render(calls);
    let mut movers: Vec<(String, String)> = Vec::new();
    for (_, r) in &rendered {
        for t in &r.tools {
            let Some(from) = &t.position else { continue };
            if t.status == Status::Injected
                && from != to
                && !movers.iter().any(|(name, _)| name == &t.name)
            {
                movers.push((t.name.clone(), from.clone()));
            }
        }
    }
    movers
        .into_iter()
        .map(|(tool, from)| {
            let moved: Vec<Call> = calls
                .iter()
                .map(|c| {
                    let mut scene = c.scene.clone();
                    for t in scene.tools.iter_mut().filter(|t| t.name == tool) {
                        if let Some(p) = t.prompt_position.as_mut() {
                            p.chat = Some(to.to_owned());
                        }
                    }
                    Call {
                        label: c.label.clone(),
                        base_dir: c.base_dir.clone(),
                        scene,
                    }
                })
                .collect();
            let moved_reports = render(&moved);
            let after = blame(&moved_reports, &definitions(&moved, &moved_reports), models);
            let models = report
                .models
                .iter()
                .zip(&after.models)
                .map(|(now, then)| WhatIfCost {
                    model: now.model.clone(),
                    cost_usd: now.total.cost_usd,
                    moved_cost_usd: then.total.cost_usd,
                    placement_cost_usd: round_usd(now.total.cost_usd - then.total.cost_usd),
                })
                .collect();
            WhatIf {
                tool,
                from,
                to,
                models,
            }
        })
        .collect()
}
