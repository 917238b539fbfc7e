//! Predicted against billed (`prompt-inspector verify`, docs/cli.md): recorded calls, each with
//! the usage its provider billed, put against what the inspector predicts for the same request
//! body, per call and per conversation, and every recorded cache miss explained by one cause of a
//! fixed vocabulary (the `miss_…` diagnostic codes, docs/diagnostics.md).
//!
//! The engine works on [`Call`]s, whatever they were read from (`input`: the usage corpus's
//! one-call files). For each conversation it predicts the billed input (`billing::predict`), the
//! cache read and write from the provider's cache rule (`cache`: explicit breakpoints, or an
//! automatic prefix cache whose hit is a range, as it is not guaranteed), prices both
//! (`price`), and names the cause of every miss and of every disagreement (`cause`).

mod cache;
mod cause;
mod diff;
mod figures;
pub mod input;
pub mod prefix;
mod price;
mod report;
pub mod rule;
mod scenes;
mod time;

use serde_json::Value as Json;

use crate::pricing::Table;
use crate::usage::{Api, Usage};

pub use input::{load_paths, load_scenes, InputError, Loaded};
pub use report::{
    ApiSummary, CacheAgreement, CallResult, CauseCount, CauseOut, ConversationResult, CostFigure,
    Difference, InputFigure, ReadFigure, Summary, Totals, VerifyReport, WriteFigure,
};

/// One recorded call: the request body as sent and the usage its provider billed.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// What names the call to a person: its file's path.
    pub label: String,
    /// The conversation it belongs to; `None` for a call on its own.
    pub conversation: Option<String>,
    /// Its 1-based place in the conversation, when recorded.
    pub seq: Option<u32>,
    pub api: Api,
    /// The model the request named.
    pub model: String,
    pub body: Json,
    /// The body's bytes as sent, when known (then byte instability is found from them too).
    pub raw: Option<String>,
    pub usage: Usage,
    /// Whether the recorded usage reports cache reads at all (a usage without the field says
    /// nothing about the cache).
    pub cache_reported: bool,
    /// When the call was made (RFC 3339), when recorded.
    pub timestamp: Option<String>,
    /// Who wrote which text of the body, when the call was rebuilt from a scene.
    pub who: Vec<Author>,
}

/// Who wrote a range of one string of the body: a segment's configured prompt, a tool's text,
/// a recorded message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Author {
    /// The string's JSON pointer in the body (`/messages/2/content`).
    pub pointer: String,
    /// Bytes of the string.
    pub range: std::ops::Range<usize>,
    /// In words: `tool get_weather in after_input_msg_prompt`.
    pub who: String,
}

/// What verification is priced with: a models table, and the rows to use for a model the table
/// does not name (`--model`), before the table's default row of the call's provider.
#[derive(Clone, Debug)]
pub struct Options {
    pub table: Table,
    /// Row ids (or model names) tried, in order, for a model the table does not know.
    pub fallback: Vec<String>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            table: Table::builtin(),
            fallback: Vec::new(),
        }
    }
}

/// Puts each call's prediction against its billed usage: the calls grouped into conversations
/// (by `conversation`, in `seq` order; a call without one is a conversation of its own), in the
/// order their first call comes.
pub fn verify(calls: &[Call], options: &Options) -> Result<VerifyReport, String> {
    let fallback = price::fallback_rows(&options.table, &options.fallback)?;
    let mut conversations = Vec::new();
    for (name, members) in group(calls) {
        let priced = members
            .iter()
            .map(|c| price::row_for(&options.table, &fallback, c.api, &c.model))
            .collect::<Vec<_>>();
        conversations.push(figures::conversation(name, &members, &priced));
    }
    let summary = report::summarise(&conversations);
    Ok(VerifyReport {
        conversations,
        summary,
    })
}

/// Calls by conversation: each conversation's calls in `seq` order (calls without `seq` keep
/// their order), conversations in the order of their first call.
fn group(calls: &[Call]) -> Vec<(String, Vec<&Call>)> {
    let mut out: Vec<(Option<&str>, String, Vec<&Call>)> = Vec::new();
    for c in calls {
        let key = c.conversation.as_deref();
        match out.iter_mut().find(|(k, _, _)| key.is_some() && *k == key) {
            Some((_, _, members)) => members.push(c),
            None => out.push((key, key.unwrap_or(&c.label).to_owned(), vec![c])),
        }
    }
    out.into_iter()
        .map(|(_, name, mut members)| {
            // Stable: calls without a place keep their order, after the placed ones.
            members.sort_by_key(|c| c.seq.unwrap_or(u32::MAX));
            (name, members)
        })
        .collect()
}

#[cfg(test)]
mod tests;
