//! The loop as xbot runs it (`agent/engine.go` `Run`): assemble the first request,
//! then per recorded round append the assistant turn and the tool results and, after a round
//! with tool calls, the dynamic-context block and the system reminder. The loop ends at the first
//! round without tool calls.

use serde::Serialize;

use super::cache::{Figures, RequestMeter};
use super::dynamic_context::{self, Injector, Outcome};
use super::reminder;
use crate::scene::run::{Run, RunMessage};
use crate::scene::Role;

/// The replayed loop with each message once, as goldens and the app hold it. Every request is
/// the first messages of `messages`, because the loop only appends, and it changes a message
/// (appending blocks to it) only before the message is first sent. `run --format json` prints
/// each request whole instead.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RunReport {
    /// The directory the run starts in.
    pub initial_cwd: String,
    /// How the system message was built.
    pub system: SystemOut,
    /// Every message of the loop in order, as it was sent: the longest request, followed by the
    /// final answer when the loop ended with one.
    #[cfg_attr(feature = "specta", specta(type = Vec<crate::scene::run::wire::RunMessageJson>))]
    pub messages: Vec<RunMessage>,
    pub iterations: Vec<IterationOut>,
    /// The request the loop sends next when the recording ends after a round with tool calls
    /// (the blocks injected after the last round are only seen here): its number of messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(type = Option<u32>))]
    pub next_request_messages: Option<usize>,
    /// Recorded rounds after the first round without tool calls: the loop never reaches them.
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub ignored_iterations: usize,
    /// History messages with role `system`, dropped (the pipeline's system message is sent).
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub dropped_system_messages: usize,
    /// Each chosen model's input cost per round ([`super::cache::price_run`]); empty (and left
    /// out) unless a front end asked for prices.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<crate::pricing::cost::ModelCost>,
    /// The cache-safety lint's findings for those models (`cache_below_minimum`,
    /// docs/diagnostics.md): the loop only appends, so its prefix never changes by itself.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<crate::report::Diagnostic>,
}

impl RunReport {
    /// Prices each round's input for `models` (fills [`RunReport::models`]).
    pub fn price(&mut self, models: &[&crate::pricing::Row]) {
        let figures: Vec<&super::cache::Figures> =
            self.iterations.iter().map(|it| &it.cache).collect();
        self.models = super::cache::price_run(&figures, models);
        let sizes: Vec<(String, usize)> = figures
            .iter()
            .enumerate()
            .map(|(i, f)| (format!("round {}", i + 1), f.request_tokens))
            .collect();
        self.diagnostics = models
            .iter()
            .filter_map(|row| crate::pricing::minimum::below_minimum(row, &sizes))
            .collect();
    }

    /// The messages of a request that holds the first `n` messages.
    pub fn first_messages(&self, n: usize) -> &[RunMessage] {
        &self.messages[..n.min(self.messages.len())]
    }

    /// The request of round `i` (0-based); empty past the last round.
    pub fn request(&self, i: usize) -> &[RunMessage] {
        self.iterations
            .get(i)
            .map_or(&[], |it| self.first_messages(it.request_messages))
    }

    /// The request the loop sends next, when the recording ends after a round with tool calls.
    pub fn next_request(&self) -> Option<&[RunMessage]> {
        self.next_request_messages.map(|n| self.first_messages(n))
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SystemOut {
    /// The parts used, in the order they were joined (sorted by key as plain strings).
    pub parts: Vec<String>,
    /// Parts skipped because they are empty.
    pub skipped: Vec<String>,
    /// xbot marks the system message `static`: the provider may cache it.
    pub cache_hint: &'static str,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct IterationOut {
    /// The messages sent for this round: the first this many of the report's `messages`.
    #[cfg_attr(feature = "specta", specta(type = u32))]
    pub request_messages: usize,
    /// The blocks appended to the last message after this round, in order.
    pub injected: Vec<String>,
    /// This request against the previous one.
    pub cache: Figures,
    /// The model's answer (recorded).
    #[cfg_attr(feature = "specta", specta(type = crate::scene::run::wire::RunMessageJson))]
    pub assistant: RunMessage,
    /// This round's tool names, in call order (`本轮使用`).
    pub tools: Vec<String>,
    /// The directory the injector saw after this round (xbot's `getCWD()`).
    pub cwd: String,
    /// What the injector did: `baseline`, `unchanged` or `changed`; `null` when the round had no
    /// tool calls (the injector does not run).
    pub dynamic_context: Option<&'static str>,
    /// The role of the message the blocks were appended to (the newest one, whatever its role).
    pub appended_to: Option<&'static str>,
}

/// xbot's system message: the parts sorted by key (byte order, as Go sorts strings), empty ones
/// skipped, joined with one `\n`.
pub fn system_message(run: &Run) -> (String, SystemOut) {
    let mut keys: Vec<&String> = run.system_parts.keys().collect();
    keys.sort();
    let (mut parts, mut skipped, mut texts) = (Vec::new(), Vec::new(), Vec::new());
    for k in keys {
        let text = &run.system_parts[k];
        if text.is_empty() {
            skipped.push(k.clone());
        } else {
            parts.push(k.clone());
            texts.push(text.as_str());
        }
    }
    let out = SystemOut {
        parts,
        skipped,
        cache_hint: "static",
    };
    (texts.join("\n"), out)
}

/// Replays the loop. Never fails: the scene loader has checked the shapes.
pub fn replay(run: &Run) -> RunReport {
    let (system_text, system) = system_message(run);
    let mut system_msg = RunMessage::new(Role::System, system_text);
    system_msg.cache_hint = Some("static");
    let mut messages = vec![system_msg];
    let kept = run.history.iter().filter(|m| m.role != Role::System);
    messages.extend(kept.cloned());
    let dropped_system_messages = run.history.len() + 1 - messages.len();
    messages.push(run.user_message.clone());

    let mut injector = Injector::new();
    // The session's directory; xbot's getCWD falls back to the initial one when it is empty.
    let mut session_cwd = run.initial_cwd.clone();
    let mut meter = RequestMeter::default();
    let mut measured = 0;
    let mut iterations = Vec::new();
    let mut ended = false;
    for it in &run.iterations {
        let appended = messages[measured..]
            .iter()
            .map(|m| (m.role.as_str(), m.content.as_str()));
        let figures = meter.next(&messages[0].content, appended);
        measured = messages.len();
        let request_messages = measured;
        messages.push(it.assistant.clone());
        let tools: Vec<String> = it
            .assistant
            .tool_calls
            .iter()
            .map(|c| c.name.clone())
            .collect();
        if let Some(dir) = &it.cwd_after {
            session_cwd.clone_from(dir);
        }
        let cwd = if session_cwd.is_empty() {
            run.initial_cwd.clone()
        } else {
            session_cwd.clone()
        };
        let mut out = IterationOut {
            request_messages,
            injected: Vec::new(),
            cache: figures,
            assistant: it.assistant.clone(),
            tools,
            cwd,
            dynamic_context: None,
            appended_to: None,
        };
        if out.tools.is_empty() {
            // A text answer: the loop returns it; nothing is injected.
            iterations.push(out);
            ended = true;
            break;
        }
        messages.extend(it.tool_results.iter().cloned());
        let outcome = injector.inject_if_needed(&mut messages, &out.cwd);
        if outcome == Outcome::Changed {
            out.injected.push(dynamic_context::block(&out.cwd));
        }
        out.dynamic_context = Some(outcome.as_str());
        let names: Vec<&str> = out.tools.iter().map(String::as_str).collect();
        let block = reminder::build(&messages, &names, it.todo.as_deref());
        if let Some(last) = messages.last_mut() {
            last.content.push_str("\n\n");
            last.content.push_str(&block);
            out.appended_to = Some(last.role.as_str());
        }
        out.injected.push(block);
        iterations.push(out);
    }
    let ignored_iterations = run.iterations.len() - iterations.len();
    if ignored_iterations > 0 {
        tracing::warn!(
            ignored_iterations,
            "recorded rounds after the first round without tool calls are never reached"
        );
    }
    RunReport {
        initial_cwd: run.initial_cwd.clone(),
        system,
        next_request_messages: (!ended && !iterations.is_empty()).then_some(messages.len()),
        messages,
        iterations,
        ignored_iterations,
        dropped_system_messages,
        models: Vec::new(),
        diagnostics: Vec::new(),
    }
}
