//! Live documents: the open scene kept in the core between keystrokes (docs/api.md, "Live").
//!
//! `render` takes the whole scene text and returns whole reports: simple, but on a large scene
//! each keystroke would ship megabytes both ways. A live document keeps the text and the last
//! reports on the core's side; the page sends each edit as a text splice and gets back a
//! [`PatchOp`] list that turns its copy of `{chat, desk, validate}` into the new one.
//!
//! Both sides count revisions: an edit names the revision it applies to, and a mismatch (the
//! core restarted, the document was evicted) is a `stale_document` error after which the page
//! opens the document again with its whole text.

mod diff;
mod splice;
mod typed;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use serde::{Deserialize, Serialize};

pub use diff::{apply, diff, PatchOp, PathStep};
use typed::Shown;
pub use typed::REPORT_FIELDS;

use super::render::{options_of, priced};
use super::{ApiError, ErrorCode};
use crate::inject;
use crate::pricing::Row;
use crate::provider::ChatProvider;
use crate::scene;
use crate::segments::Family;
use crate::tokens::Encoding;

/// How a live document renders (the options of `render`, for both families at once).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LiveOptions {
    /// The folder relative image paths resolve against (the scene file's folder).
    #[serde(default)]
    pub base_dir: Option<String>,
    /// The chat report also carries this provider's request body.
    #[serde(default)]
    pub provider: Option<ChatProvider>,
    #[serde(default)]
    pub tokenizer: Option<Encoding>,
    /// Count tokens (the default), with the default tokenizer when `tokenizer` is not set;
    /// `false` with no `tokenizer` counts none.
    #[serde(default = "crate::api::render::counts_by_default")]
    pub tokens: bool,
    /// Price both reports' input for these models (`render`'s `models`): their `costs`.
    #[serde(default)]
    pub models: Vec<String>,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            base_dir: None,
            provider: None,
            tokenizer: None,
            tokens: true,
            models: Vec::new(),
        }
    }
}

/// The rows a document's options name; an unknown model refuses the options before anything
/// else changes (`invalid_argument`, field `options.models`).
fn rows_of(options: &LiveOptions) -> Result<Vec<Row>, ApiError> {
    super::models::rows(&options.models, "options.models")
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LiveOpenRequest {
    pub text: String,
    #[serde(default)]
    pub options: LiveOptions,
}

/// Replace `delete` UTF-16 code units at `start` (UTF-16 code units, as JavaScript counts) with
/// `insert`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct TextEdit {
    pub start: u32,
    pub delete: u32,
    pub insert: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LiveEditRequest {
    pub doc: u32,
    /// The revision the edit applies to (the last one the page received).
    pub revision: u32,
    #[serde(default)]
    pub edit: Option<TextEdit>,
    /// New options, when they changed.
    #[serde(default)]
    pub options: Option<LiveOptions>,
    /// A keystroke: the answer may leave pricing for later (see [`LiveUpdate::costs_pending`])
    /// when pricing this document takes long, so the board shows the edit sooner.
    #[serde(default)]
    pub defer_costs: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LiveCloseRequest {
    pub doc: u32,
}

/// The answer to an open or an edit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LiveUpdate {
    pub doc: u32,
    pub revision: u32,
    /// Set when the text does not load; the patch is then empty and the page keeps showing the
    /// last reports that rendered.
    pub load_error: Option<ApiError>,
    /// Turns the page's `{chat, desk, validate}` into the new one (the first one sets `[]`).
    pub patch: Vec<PatchOp>,
    /// Time spent in the core, for the performance panel.
    pub core_ms: f64,
    /// The reports' `costs` (and their cache-minimum findings) are the previous revision's: the
    /// edit asked to defer pricing and pricing this document takes long. An edit with no text
    /// change and no `defer_costs` (a settle) prices the current text.
    #[serde(default)]
    pub costs_pending: bool,
}

/// A document: its text and the tree the page holds.
struct Doc {
    id: u32,
    revision: u32,
    text: splice::Text,
    options: LiveOptions,
    /// The models table rows `options.models` names.
    rows: Vec<Row>,
    /// What the page holds (`None` until the text first loads).
    shown: Option<Shown>,
    /// The last parsed context and where its text is, moved along with every edit.
    context: Option<scene::ContextText>,
    /// The tools of the last text that loaded, in file order, those an edit touched left out and
    /// the spans of those after it moved: the next load takes them instead of reading them.
    tools: Vec<scene::Tool>,
    /// Template renders of the last refresh: a keystroke usually changes one template, and the
    /// two families render the same tool prompts (inject::RenderMemo).
    memo: inject::RenderMemo,
    /// The scene the shown reports were rendered from, while their costs are pending.
    unpriced: Option<scene::Scene>,
    /// How long pricing both reports took last time, in milliseconds.
    price_ms: f64,
}

/// Pricing that takes longer than this is left out of a keystroke's answer when the page asks
/// (`defer_costs`): on a scene of thousands of messages it is most of an edit's core time, and
/// a frame is 16 ms.
const DEFER_PRICING_OVER_MS: f64 = 2.0;

/// The live documents of one process (the Tauri app's state, or `serve`'s). At most
/// [`Live::MAX_DOCS`] are kept: a page that reloads opens a new one and never closes the old.
#[derive(Default)]
pub struct Live {
    docs: Mutex<Docs>,
    /// The LLM calls the OTLP receiver has taken in (`live_calls`).
    received: Arc<crate::otlp::CallStore>,
}

#[derive(Default)]
struct Docs {
    next: u32,
    /// By id, oldest first. The id sits outside the lock: finding a document must not wait for
    /// another one's render.
    list: VecDeque<(u32, Arc<Mutex<Doc>>)>,
}

impl Live {
    pub const MAX_DOCS: usize = 8;

    pub fn new() -> Live {
        Live::default()
    }

    /// Live documents beside a store of received calls the process's OTLP receiver fills.
    pub fn with_received(received: Arc<crate::otlp::CallStore>) -> Live {
        Live {
            docs: Mutex::default(),
            received,
        }
    }

    /// The store the OTLP receiver's calls go to.
    pub fn received(&self) -> &Arc<crate::otlp::CallStore> {
        &self.received
    }

    /// Opens a document on a text (which may fail to load: the error is in the update).
    pub fn open(&self, req: LiveOpenRequest) -> Result<LiveUpdate, ApiError> {
        let started = Instant::now();
        let rows = rows_of(&req.options)?;
        let mut doc = Doc {
            id: 0,
            revision: 0,
            text: splice::Text::new(req.text),
            options: req.options,
            rows,
            shown: None,
            context: None,
            tools: Vec::new(),
            memo: inject::RenderMemo::default(),
            unpriced: None,
            price_ms: 0.0,
        };
        let mut update = doc.refresh(started, false)?;
        let mut docs = self.docs.lock().unwrap_or_else(PoisonError::into_inner);
        docs.next = docs.next.wrapping_add(1).max(1);
        doc.id = docs.next;
        update.doc = doc.id;
        docs.list.push_back((doc.id, Arc::new(Mutex::new(doc))));
        while docs.list.len() > Self::MAX_DOCS {
            docs.list.pop_front();
        }
        Ok(update)
    }

    /// Applies an edit to a document and returns what changed.
    pub fn edit(&self, req: LiveEditRequest) -> Result<LiveUpdate, ApiError> {
        let started = Instant::now();
        let rows = req.options.as_ref().map(rows_of).transpose()?;
        let doc = self.find(req.doc)?;
        let mut doc = doc.lock().unwrap_or_else(PoisonError::into_inner);
        if doc.revision != req.revision {
            return Err(stale(format!(
                "document {} is at revision {}, the edit was made on revision {}",
                req.doc, doc.revision, req.revision
            )));
        }
        if let Some(edit) = &req.edit {
            let replaced = doc.text.apply(edit)?;
            doc.context = doc.context.take().and_then(|mut c| {
                // Still valid when the edit is wholly before the context (shift it) or after.
                if replaced.end <= c.span.start {
                    let shift = |at: usize| at - replaced.len() + edit.insert.len();
                    c.span = shift(c.span.start)..shift(c.span.end);
                    Some(c)
                } else {
                    (replaced.start >= c.span.end).then_some(c)
                }
            });
            let by = edit.insert.len() as isize - replaced.len() as isize;
            doc.tools.retain_mut(|tool| {
                if replaced.end <= tool.span.start {
                    tool.move_spans(by);
                    true
                } else {
                    replaced.start >= tool.span.end
                }
            });
        }
        let settle = req.edit.is_none() && req.options.is_none();
        if let (Some(options), Some(rows)) = (req.options, rows) {
            doc.options = options;
            doc.rows = rows;
        }
        if settle && doc.unpriced.is_some() {
            return doc.settle(started);
        }
        let defer = req.defer_costs && doc.price_ms > DEFER_PRICING_OVER_MS && !doc.rows.is_empty();
        doc.refresh(started, defer)
    }

    /// Forgets a document (closing an unknown one is not an error).
    pub fn close(&self, req: &LiveCloseRequest) {
        let mut docs = self.docs.lock().unwrap_or_else(PoisonError::into_inner);
        docs.list.retain(|(id, _)| *id != req.doc);
    }

    fn find(&self, id: u32) -> Result<Arc<Mutex<Doc>>, ApiError> {
        let docs = self.docs.lock().unwrap_or_else(PoisonError::into_inner);
        docs.list
            .iter()
            .find(|(doc, _)| *doc == id)
            .map(|(_, doc)| Arc::clone(doc))
            .ok_or_else(|| stale(format!("no live document {id} (it was closed or evicted)")))
    }
}

fn stale(message: String) -> ApiError {
    ApiError::new(ErrorCode::StaleDocument, message)
}

impl Doc {
    /// Renders the text, diffs against what the page has, and moves to the next revision. With
    /// `defer`, the reports keep the shown costs and the scene is kept for [`Doc::settle`].
    fn refresh(&mut self, started: Instant, defer: bool) -> Result<LiveUpdate, ApiError> {
        self.revision = self.revision.wrapping_add(1);
        let span = tracing::info_span!("live", doc = self.id, revision = self.revision);
        let _entered = span.enter();
        let loaded = scene::load_keeping(&self.text.text, self.context.as_ref(), &self.tools);
        let (load_error, patch) = match loaded {
            Err(e) => (Some(ApiError::from(e)), Vec::new()),
            Ok((scene, context)) => {
                self.context = context;
                self.tools.clone_from(&scene.tools);
                self.memo.next_refresh();
                let mut next = self.render(&scene);
                if defer {
                    if let Some(prev) = &self.shown {
                        keep_costs(&prev.chat, &mut next.chat);
                        keep_costs(&prev.desk, &mut next.desk);
                    }
                    self.unpriced = Some(scene);
                } else {
                    self.price(&scene, &mut next);
                    self.unpriced = None;
                }
                let patch = match &self.shown {
                    None => vec![PatchOp::Set {
                        path: Vec::new(),
                        value: next.to_value()?,
                    }],
                    Some(prev) => next.diff(prev)?,
                };
                // The old reports can hold every message of a large scene: freeing them is
                // left to another thread rather than delaying the answer.
                if let Some(old) = self.shown.replace(next) {
                    std::thread::spawn(move || drop(old));
                }
                (None, patch)
            }
        };
        let core_ms = started.elapsed().as_secs_f64() * 1000.0;
        tracing::debug!(ops = patch.len(), core_ms, "live update");
        Ok(LiveUpdate {
            doc: self.id,
            revision: self.revision,
            load_error,
            patch,
            core_ms,
            costs_pending: self.unpriced.is_some(),
        })
    }

    /// Prices the reports an earlier answer left unpriced: only `costs` and the cache-minimum
    /// findings change.
    fn settle(&mut self, started: Instant) -> Result<LiveUpdate, ApiError> {
        let (Some(scene), Some(mut shown)) = (self.unpriced.take(), self.shown.take()) else {
            return self.refresh(started, false);
        };
        self.revision = self.revision.wrapping_add(1);
        let before = (priced_parts(&shown.chat), priced_parts(&shown.desk));
        for report in [&mut shown.chat, &mut shown.desk] {
            report.costs.clear();
            report.diagnostics.retain(|d| !is_pricing_finding(d));
        }
        self.price(&scene, &mut shown);
        let patch = typed::costs_patch(&before.0, &shown.chat, &before.1, &shown.desk);
        self.shown = Some(shown);
        let core_ms = started.elapsed().as_secs_f64() * 1000.0;
        Ok(LiveUpdate {
            doc: self.id,
            revision: self.revision,
            load_error: None,
            patch: patch?,
            core_ms,
            costs_pending: false,
        })
    }

    /// Prices both reports for the document's models, timing it.
    fn price(&mut self, scene: &scene::Scene, shown: &mut Shown) {
        let at = Instant::now();
        let base_dir = self.options.base_dir.as_deref().map(std::path::Path::new);
        priced(&mut shown.chat, scene, base_dir, &self.rows);
        priced(&mut shown.desk, scene, base_dir, &self.rows);
        self.price_ms = at.elapsed().as_secs_f64() * 1000.0;
    }

    /// `{chat, desk, validate}` for the scene: what the page shows.
    fn render(&mut self, scene: &scene::Scene) -> Shown {
        let o = &self.options;
        let chat = options_of(o.base_dir.as_deref(), o.provider, o.tokenizer, o.tokens);
        let desk = options_of(o.base_dir.as_deref(), None, o.tokenizer, o.tokens);
        Shown {
            chat: inject::render_with_memo(scene, Family::Chat, &chat, &mut self.memo),
            desk: inject::render_with_memo(scene, Family::Desk, &desk, &mut self.memo),
            validate: super::validate::validate_scene(scene),
        }
    }
}

/// A finding that pricing adds (`priced`): the call is below a provider's caching minimum.
fn is_pricing_finding(d: &crate::report::Diagnostic) -> bool {
    d.code == crate::report::DiagnosticCode::CacheBelowMinimum
}

/// A report's priced parts: its costs and the findings pricing added.
fn priced_parts(report: &inject::Report) -> typed::Priced {
    typed::Priced {
        costs: report.costs.clone(),
        diagnostics: report.diagnostics.clone(),
    }
}

/// Gives an unpriced render the costs and pricing findings of the one shown before it, so a
/// deferred answer changes none of them (they are marked pending instead).
fn keep_costs(prev: &inject::Report, next: &mut inject::Report) {
    next.costs.clone_from(&prev.costs);
    next.diagnostics.extend(
        prev.diagnostics
            .iter()
            .filter(|d| is_pricing_finding(d))
            .cloned(),
    );
}
