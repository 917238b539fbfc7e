//! Each call as each chosen model's provider bills it: its input tokens (`billing::predict`), what
//! it reads from and writes to the cache (`verify`'s simulation), and what it repeats of the call
//! before it, counted the shared-prefix rule of `verify` (`verify::prefix`) on the
//! request bodies, tools, system and the provider's framing included, not on the chat messages
//! alone. A scene that records the request its provider was sent (`recorded`) is counted on that
//! request for a model of the same API, as `verify` counts it, and `verify`'s cause stands; otherwise
//! the body is the one `pricing::request` prices for the model's provider, and the cause is
//! worked out with the breakpoints the bill places (`api::explain`).

use std::path::{Path, PathBuf};

use crate::api::explain::Billed;
use crate::inject::{self, Options};
use crate::pricing::cost::{CallCost, ModelCost};
use crate::pricing::request::{self, Sent};
use crate::pricing::Growth;
use crate::pricing::Row;
use crate::scene::{Scene, SceneError};
use crate::segments::Family;
use crate::verify::prefix::{self, Bill, Request};

/// One scene, rendered once for every model.
struct Rendered {
    scene: Scene,
    base_dir: Option<PathBuf>,
    report: inject::Report,
}

/// One call as a row's provider bills it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallBill {
    pub bill: Bill,
    /// The request is the one the scene records as sent.
    pub as_sent: bool,
}

/// For each row (in the order given), each of the `count` calls as its provider bills it; `None`
/// for a call whose request cannot be built or predicted. A scene that does not load leaves every
/// call without one (the blame reports the error).
pub fn bills(
    calls: Result<Vec<crate::conversation::Call>, SceneError>,
    count: usize,
    rows: &[&Row],
) -> Vec<Vec<Option<CallBill>>> {
    let Ok(scenes) = calls else {
        return rows.iter().map(|_| vec![None; count]).collect();
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
            prefix::bills(row, &requests)
                .into_iter()
                .zip(as_sent)
                .map(|(bill, as_sent)| bill.map(|bill| CallBill { bill, as_sent }))
                .collect()
        })
        .collect()
}

/// Each call's repeat against the call before it (`None` for the first call and where either
/// is not predicted), for the zero-read explanations.
pub fn repeats(bills: &[Option<CallBill>]) -> Vec<Option<Billed>> {
    bills
        .iter()
        .enumerate()
        .map(|(k, now)| {
            let now = now.as_ref()?;
            let before = bills.get(k.checked_sub(1)?)?.as_ref()?;
            // Both requests as sent, or the cache's breakpoints are not the requests'.
            let as_sent = now.as_sent && before.as_sent;
            now.bill
                .repeat
                .clone()
                .map(|repeat| Billed { repeat, as_sent })
        })
        .collect()
}

/// The row's bill of the conversation from the calls' billed figures, when they stand for what
/// the provider is sent: every call predicted, and for a breakpoint cache every request the one
/// the scene records (a built request does not carry the breakpoints the blame places, so its
/// reads are the blame's).
pub fn model_cost(row: &Row, bills: &[Option<CallBill>]) -> Option<ModelCost> {
    let automatic = row.cache.growth != Growth::Breakpoints;
    let calls: Vec<&CallBill> = bills.iter().map(Option::as_ref).collect::<Option<_>>()?;
    if !automatic && !calls.iter().all(|c| c.as_sent) {
        return None;
    }
    let priced = calls
        .iter()
        .map(|c| CallCost::of(row, c.bill.input_tokens, c.bill.read, c.bill.write))
        .collect();
    let mut cost = ModelCost::new(row, priced);
    if let Some(first) = calls.first() {
        cost.provenance = first.bill.provenance.clone();
    }
    Some(cost)
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
