//! Template renders kept from one render of a scene to the next, for a live document: a keystroke
//! re-renders a scene in which, usually, one template changed, and both families render the same
//! tool prompts again.
//!
//! A render depends on the template (engine, the text of each locale, the active language), on the
//! variables it sees and on what the scene render's budget has left (the engines are pure; the
//! recursion limit is fixed).
//! The variables are the effective context, its `user_input.additional_info`, or a tool's state
//! with the context. So an entry is keyed by the template and which variables it saw (a tool's
//! state by value), and every entry is dropped when the effective context differs from the one the
//! entries were made with. The template's spans (where it sits in the file) are not part of the key:
//! they move with every edit above the template and never change what it renders.
//!
//! The budget (`template::budget`): a kept render takes from the scene render's budget exactly
//! what it took when it was made ([`Budget::replay`]), so the templates after it see the budget
//! a fresh render would leave them. It is kept only if the budget did not limit it, and reused
//! only while the budget has at least the fuel it was given and room for its output; otherwise
//! it is made again. A render through the memo therefore gives the same report as a fresh one.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

use indexmap::IndexMap;

use super::render::PromptError;
use crate::report::{Diagnostic, MessageOut};
use crate::scene::{TemplateSpec, Tool};
use crate::template::budget::Cost;
use crate::template::{Budget, Engine};
use crate::value::Value;

/// Which variables a template rendered over (the context itself is the memo's).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RenderedOver {
    /// The whole effective context (a `NormalizePrompt`).
    Context,
    /// `context.user_input.additional_info` (an `AdditionalInfoPrompt`).
    AdditionalInfo,
    /// `{state, ctx}`: a tool's `format_2_prompt` string source, with that tool's state.
    State(Value),
}

#[derive(Debug)]
struct Entry {
    engine: Engine,
    active_language: Option<String>,
    templates: IndexMap<String, String>,
    over: RenderedOver,
    result: Result<String, PromptError>,
    /// What the render took from its scene render's budget.
    cost: Cost,
    /// The last refresh that used it (entries unused for a whole refresh are dropped).
    used: u64,
}

impl Entry {
    fn matches(&self, spec: &TemplateSpec, over: &RenderedOver) -> bool {
        self.engine == spec.engine
            && self.active_language == spec.active_language
            && self.templates == spec.templates
            && self.over == *over
    }
}

/// See the module documentation. [`Default`] is an empty memo.
#[derive(Debug, Default)]
pub struct RenderMemo {
    /// A one-off render (`render_with`) keeps nothing: storing would only cost it time.
    off: bool,
    /// The effective context the entries were rendered with.
    context: Option<Value>,
    entries: HashMap<u64, Vec<Entry>>,
    refresh: u64,
    hits: u64,
    misses: u64,
    /// The chat render's message counts, by the texts they were counted on.
    counts: super::tokens::KeptCounts,
    /// The last conversation made into messages: the list (held, so that its address names it),
    /// its messages and the findings made on the way.
    conversation: Option<KeptConversation>,
    /// The last effective context and what it was made of: the scene's context and the valid
    /// tools' names and descriptions (`context::effective`).
    effective: Option<KeptEffective>,
}

#[derive(Debug)]
struct KeptConversation {
    list: Arc<Vec<Value>>,
    messages: Vec<MessageOut>,
    findings: Vec<Diagnostic>,
}

#[derive(Debug)]
struct KeptEffective {
    context: Value,
    tools: Vec<(String, Option<String>)>,
    effective: Value,
}

impl RenderMemo {
    /// A memo that keeps nothing: every render is made.
    pub(crate) fn off() -> RenderMemo {
        RenderMemo {
            off: true,
            ..RenderMemo::default()
        }
    }

    /// Starts a refresh of a document (its renders, one per family). Entries the previous refresh
    /// did not use are dropped, so the memo holds about one scene's templates, not every text
    /// typed.
    pub fn next_refresh(&mut self) {
        let keep_from = self.refresh;
        self.refresh += 1;
        self.entries.retain(|_, list| {
            list.retain(|e| e.used >= keep_from);
            !list.is_empty()
        });
    }

    /// Renders are about to run over `context`: entries made over another context are dropped.
    pub(crate) fn context(&mut self, context: &Value) {
        if self.off {
            return;
        }
        if !self.context.as_ref().is_some_and(|c| same(c, context)) {
            self.entries.clear();
            self.context = Some(context.clone());
        }
    }

    /// The render of `spec` over `over`: kept, or made by `render` and kept; either way taking
    /// its cost from `budget` (see the module documentation).
    pub(crate) fn render(
        &mut self,
        spec: &TemplateSpec,
        over: RenderedOver,
        budget: &Budget,
        render: impl FnOnce() -> Result<String, PromptError>,
    ) -> Result<String, PromptError> {
        if self.off {
            return render();
        }
        let key = key_of(spec, &over);
        let list = self.entries.entry(key).or_default();
        let found = list.iter().position(|e| e.matches(spec, &over));
        if let Some(i) = found {
            if budget.replay(&list[i].cost) {
                let e = &mut list[i];
                e.used = self.refresh;
                self.hits += 1;
                return e.result.clone();
            }
        }
        self.misses += 1;
        let (result, cost) = budget.measure(render);
        // A render the budget limited is not kept (nor does it replace the one kept).
        if !cost.limited() {
            let entry = Entry {
                engine: spec.engine,
                active_language: spec.active_language.clone(),
                templates: spec.templates.clone(),
                over,
                result: result.clone(),
                cost,
                used: self.refresh,
            };
            match found {
                Some(i) => list[i] = entry,
                None => list.push(entry),
            }
        }
        result
    }

    /// The message counts kept from the last render (`None` for a memo that keeps nothing).
    pub(super) fn kept_counts(&mut self) -> Option<&mut super::tokens::KeptCounts> {
        (!self.off).then_some(&mut self.counts)
    }

    /// `context::effective(context, tools)`, the kept one when `context` is the very context it
    /// was made of and the tools' names and descriptions are the same: its containers are then
    /// the same ones, which [`RenderMemo::context`] compares by address.
    pub(super) fn effective(&mut self, context: &Value, tools: &[&Tool]) -> Value {
        let same_tools = |kept: &[(String, Option<String>)]| {
            kept.len() == tools.len()
                && kept.iter().zip(tools).all(|((name, description), t)| {
                    *name == t.name && *description == t.description
                })
        };
        if let Some(kept) = &self.effective {
            if same_container(&kept.context, context) && same_tools(&kept.tools) {
                return kept.effective.clone();
            }
        }
        let effective = crate::context::effective(context, tools);
        if !self.off {
            self.effective = Some(KeptEffective {
                context: context.clone(),
                tools: tools
                    .iter()
                    .map(|t| (t.name.clone(), t.description.clone()))
                    .collect(),
                effective: effective.clone(),
            });
        }
        effective
    }

    /// The messages and findings of `list` when it is the very list kept last.
    pub(super) fn kept_conversation(
        &self,
        list: &Arc<Vec<Value>>,
    ) -> Option<(&[MessageOut], &[Diagnostic])> {
        let kept = self.conversation.as_ref()?;
        Arc::ptr_eq(&kept.list, list).then_some((&kept.messages, &kept.findings))
    }

    /// Keeps `list`'s messages and findings for the next render (not in a memo that keeps
    /// nothing).
    pub(super) fn keep_conversation(
        &mut self,
        list: &Arc<Vec<Value>>,
        messages: &[MessageOut],
        findings: &[Diagnostic],
    ) {
        if !self.off {
            self.conversation = Some(KeptConversation {
                list: Arc::clone(list),
                messages: messages.to_vec(),
                findings: findings.to_vec(),
            });
        }
    }

    /// Renders served from the memo, and renders made, since it was created.
    pub fn counts(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }
}

/// A hash of what [`Entry::matches`] compares, but a tool's state (compared in full on a hit).
fn key_of(spec: &TemplateSpec, over: &RenderedOver) -> u64 {
    // A fixed-seed hasher: the key only has to be stable within this process.
    let mut h = foldhash::fast::FixedState::with_seed(0x5eed).build_hasher();
    spec.engine.hash(&mut h);
    spec.active_language.hash(&mut h);
    for (locale, text) in &spec.templates {
        locale.hash(&mut h);
        text.hash(&mut h);
    }
    std::mem::discriminant(over).hash(&mut h);
    h.finish()
}

/// Whether two values are one shared container (or both not a container: the context as written
/// may be absent or not a dict, and then the effective context does not depend on it).
fn same_container(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Dict(x), Value::Dict(y)) => Arc::ptr_eq(x, y),
        (Value::List(x), Value::List(y)) => Arc::ptr_eq(x, y),
        (Value::Dict(_) | Value::List(_), _) | (_, Value::Dict(_) | Value::List(_)) => false,
        _ => true,
    }
}

/// Whether two effective contexts are the same value. A live document reuses the parsed context
/// between keystrokes, so its shared containers are usually the very same: those are compared by
/// address first, and by value only when they are not.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::List(x), Value::List(y)) => {
            Arc::ptr_eq(x, y)
                || (x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q)))
        }
        (Value::Dict(x), Value::Dict(y)) => {
            Arc::ptr_eq(x, y)
                || (x.len() == y.len()
                    && x.iter()
                        .zip(y.iter())
                        .all(|((k, p), (l, q))| k == l && same(p, q)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> TemplateSpec {
        let mut templates = IndexMap::new();
        templates.insert("default".to_owned(), text.to_owned());
        TemplateSpec {
            engine: Engine::Fstring,
            templates,
            active_language: None,
            spans: IndexMap::new(),
        }
    }

    fn ctx(n: i64) -> Value {
        let mut d = crate::value::Dict::default();
        d.insert(Arc::from("n"), Value::Int(crate::value::PyInt::Small(n)));
        Value::Dict(Arc::new(d))
    }

    #[test]
    fn keeps_a_render_per_template_variables_and_context() {
        let mut m = RenderMemo::default();
        let mut calls = 0;
        let mut render = |m: &mut RenderMemo, s: &TemplateSpec, over: RenderedOver| {
            m.render(s, over, &Budget::scene(), || {
                calls += 1;
                Ok(format!("r{calls}"))
            })
        };
        m.next_refresh();
        m.context(&ctx(1));
        assert_eq!(
            render(&mut m, &spec("a"), RenderedOver::Context),
            Ok("r1".into())
        );
        assert_eq!(
            render(&mut m, &spec("a"), RenderedOver::Context),
            Ok("r1".into())
        );
        // Other variables, another text, another state: each its own render.
        assert_eq!(
            render(&mut m, &spec("a"), RenderedOver::AdditionalInfo),
            Ok("r2".into())
        );
        assert_eq!(
            render(&mut m, &spec("b"), RenderedOver::Context),
            Ok("r3".into())
        );
        assert_eq!(
            render(&mut m, &spec("a"), RenderedOver::State(ctx(7))),
            Ok("r4".into())
        );
        assert_eq!(
            render(&mut m, &spec("a"), RenderedOver::State(ctx(8))),
            Ok("r5".into())
        );
        assert_eq!(
            render(&mut m, &spec("a"), RenderedOver::State(ctx(7))),
            Ok("r4".into())
        );
        // Where the template sits in the file does not matter.
        let mut moved = spec("a");
        moved.spans.insert("default".to_owned(), 10..11);
        assert_eq!(
            render(&mut m, &moved, RenderedOver::Context),
            Ok("r1".into())
        );
        assert_eq!(m.counts(), (3, 5));
        // The same context as another value is the same context; a different one drops it all.
        m.context(&ctx(1));
        assert_eq!(
            render(&mut m, &spec("a"), RenderedOver::Context),
            Ok("r1".into())
        );
        m.context(&ctx(2));
        assert_eq!(
            render(&mut m, &spec("a"), RenderedOver::Context),
            Ok("r6".into())
        );
    }

    #[test]
    fn an_off_memo_renders_every_time() {
        let mut m = RenderMemo::off();
        m.context(&ctx(1));
        assert_eq!(
            m.render(&spec("a"), RenderedOver::Context, &Budget::scene(), || Ok(
                "1".into()
            )),
            Ok("1".into())
        );
        assert_eq!(
            m.render(&spec("a"), RenderedOver::Context, &Budget::scene(), || Ok(
                "2".into()
            )),
            Ok("2".into())
        );
        assert_eq!(m.counts(), (0, 0));
    }

    #[test]
    fn drops_what_a_whole_refresh_did_not_use() {
        let mut m = RenderMemo::default();
        m.next_refresh();
        m.context(&ctx(1));
        for t in ["a", "b"] {
            let _ = m.render(&spec(t), RenderedOver::Context, &Budget::scene(), || {
                Ok(t.to_owned())
            });
        }
        m.next_refresh();
        let _ = m.render(&spec("a"), RenderedOver::Context, &Budget::scene(), || {
            Ok("again".into())
        });
        m.next_refresh();
        // "b" went unused for a whole refresh: rendered again; "a" was used: kept.
        assert_eq!(
            m.render(&spec("b"), RenderedOver::Context, &Budget::scene(), || Ok(
                "new".into()
            )),
            Ok("new".into())
        );
        assert_eq!(
            m.render(&spec("a"), RenderedOver::Context, &Budget::scene(), || Ok(
                "new".into()
            )),
            Ok("a".into())
        );
    }
}
