//! What each call repeats of the call before it, for each chosen model, counted as that model's
//! provider bills the two requests: the shared-prefix rule of `verify` (`verify::prefix`) on the
//! request bodies, tools, system and the provider's framing included, not on the chat messages
//! alone. A scene that records the request its provider was sent (`recorded`) is counted on that
//! request for a model of the same API, as `verify` counts it, and `verify`'s cause stands; otherwise
//! the body is the one `pricing::request` prices for the model's provider, and the cause is
//! worked out with the breakpoints the bill places (`api::explain`).

use std::path::{Path, PathBuf};

use crate::api::explain::Billed;
use crate::inject::{self, Options};
use crate::pricing::request::{self, Sent};
use crate::pricing::Row;
use crate::scene::Scene;
use crate::segments::Family;
use crate::verify::prefix::{self, Request};

/// One scene, rendered once for every model.
struct Rendered {
    scene: Scene,
    base_dir: Option<PathBuf>,
    report: inject::Report,
}

/// For each row (in the order given), each call's repeat against the call before it; `None`
/// for the first call and for a call whose requests cannot be built or predicted. A scene that
/// does not load leaves every call without one (the blame reports the error).
pub fn repeats(paths: &[PathBuf], rows: &[&Row]) -> Vec<Vec<Option<Billed>>> {
    let Ok(scenes) = crate::conversation::load(paths) else {
        return rows.iter().map(|_| vec![None; paths.len()]).collect();
    };
    let rendered: Vec<Rendered> = scenes
        .into_iter()
        .map(|c| {
            let options = Options {
                base_dir: c.base_dir.clone(),
                ..Options::default()
            };
            let report = inject::render_with(&c.scene, Family::Chat, &options);
            Rendered {
                scene: c.scene,
                base_dir: c.base_dir,
                report,
            }
        })
        .collect();
    rows.iter()
        .map(|row| {
            let (requests, as_sent): (Vec<Request>, Vec<bool>) =
                rendered.iter().map(|r| request_for(r, row)).unzip();
            prefix::repeats(row, &requests)
                .into_iter()
                .enumerate()
                .map(|(k, repeat)| {
                    // Both requests as sent, or the cache's breakpoints are not the requests'.
                    let as_sent = as_sent[k] && k > 0 && as_sent[k - 1];
                    repeat.map(|repeat| Billed { repeat, as_sent })
                })
                .collect()
        })
        .collect()
}

/// The request `row`'s provider is sent for the scene, and whether it is the recorded one.
fn request_for(r: &Rendered, row: &Row) -> (Request, bool) {
    let base_dir: Option<&Path> = r.base_dir.as_deref();
    let sent = Sent::of(&r.scene, &r.report, base_dir);
    let priced = request::body(&r.report, &sent, row);
    match crate::provider::recorded_request(&r.scene, &r.report, base_dir) {
        Some(Ok(rec)) if rec.api == priced.api => (
            Request {
                api: rec.api,
                model: rec.model,
                body: rec.body,
            },
            true,
        ),
        _ => (
            Request {
                api: priced.api,
                model: priced.model,
                body: priced.json,
            },
            false,
        ),
    }
}
