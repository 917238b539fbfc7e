//! The billed usage an OpenTelemetry span records, normalised (`usage::Usage`): the GenAI
//! conventions' `gen_ai.usage.*` (with the names earlier conventions and instrumentations used)
//! or OpenInference's `llm.token_count.*`.
//!
//! The conventions put cached tokens inside `gen_ai.usage.input_tokens`, Anthropic's spans
//! included (their Anthropic page: input = `input_tokens` + cache reads + cache writes), and
//! OpenInference's instrumentations do the same for `llm.token_count.prompt`. Some exporters
//! still pass Anthropic's own `input_tokens` through, which leaves the cached tokens out; on an
//! Anthropic span (`gen_ai.provider.name`, `gen_ai.system`, `llm.provider` or `llm.system`) an
//! input smaller than its cache reads and writes can only be that, and is read so.

use std::collections::BTreeMap;

use super::node::Node;
use super::ImportError;
use crate::json::{Json as Tree, Kind};
use crate::usage::Usage;

/// One reading of usage attributes: the names of each count, first found wins.
struct Names {
    input: &'static [&'static str],
    output: &'static [&'static str],
    cache_read: &'static [&'static str],
    cache_write: &'static [&'static str],
    reasoning: &'static [&'static str],
}

/// The GenAI conventions: current names first, then earlier ones (`prompt_tokens` before 1.27,
/// `cache_creation.input_tokens` before the rename to `cache_write`) and OpenLLMetry's.
const GEN_AI: Names = Names {
    input: &["gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"],
    output: &["gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"],
    cache_read: &[
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_read_input_tokens",
    ],
    cache_write: &[
        "gen_ai.usage.cache_write.input_tokens",
        "gen_ai.usage.cache_creation.input_tokens",
        "gen_ai.usage.cache_creation_input_tokens",
    ],
    reasoning: &[
        "gen_ai.usage.reasoning.output_tokens",
        "gen_ai.usage.reasoning_tokens",
    ],
};

/// OpenInference's span attributes.
const OPENINFERENCE: Names = Names {
    input: &["llm.token_count.prompt"],
    output: &["llm.token_count.completion"],
    cache_read: &["llm.token_count.prompt_details.cache_read"],
    cache_write: &["llm.token_count.prompt_details.cache_write"],
    reasoning: &["llm.token_count.completion_details.reasoning"],
};

const PROVIDER: [&str; 4] = [
    "gen_ai.provider.name",
    "gen_ai.system",
    "llm.provider",
    "llm.system",
];

/// Whether an attribute is one this reader turns into the recorded usage.
pub(crate) fn is_usage_key(key: &str) -> bool {
    [GEN_AI, OPENINFERENCE].iter().any(|n| {
        [n.input, n.output, n.cache_read, n.cache_write, n.reasoning]
            .iter()
            .any(|keys| keys.contains(&key))
    })
}

/// Whether an attribute names the provider, which decides how Anthropic's counts read.
pub(crate) fn is_provider_key(key: &str) -> bool {
    PROVIDER.contains(&key)
}

/// The span's usage, from its attributes as (key, value as JSON, the attribute's node for
/// errors); `None` when it records no input count.
pub(crate) fn read(attributes: &[(&str, Tree, Node<'_>)]) -> Result<Option<Usage>, ImportError> {
    let find = |keys: &[&str]| attributes.iter().find(|(k, _, _)| keys.contains(k));
    let count = |keys: &[&str]| -> Result<Option<u64>, ImportError> {
        find(keys).map(|(_, v, n)| tokens(v, n)).transpose()
    };
    let names = if find(GEN_AI.input).is_some() {
        GEN_AI
    } else {
        OPENINFERENCE
    };
    let Some(input) = count(names.input)? else {
        return Ok(None);
    };
    let read = count(names.cache_read)?.unwrap_or(0);
    let write = count(names.cache_write)?.unwrap_or(0);
    let anthropic = find(&PROVIDER).is_some_and(|(_, v, _)| {
        matches!(&v.kind, Kind::Str(s) if s.eq_ignore_ascii_case("anthropic"))
    });
    let (input_total, cache_read, written) =
        if anthropic && input < read.saturating_add(write) {
            (input + read + write, read, write)
        } else {
            let read = read.min(input);
            (input, read, write.min(input - read))
        };
    let mut cache_write = BTreeMap::new();
    if written > 0 {
        cache_write.insert("unspecified".to_owned(), written);
    }
    Ok(Some(Usage {
        input_total,
        uncached: input_total - cache_read - written,
        cache_read,
        cache_write,
        output: count(names.output)?.unwrap_or(0),
        reasoning: count(names.reasoning)?,
    }))
}

/// A token count: a non-negative integer (OTLP's `intValue`, or a whole `doubleValue`).
fn tokens(v: &Tree, node: &Node<'_>) -> Result<u64, ImportError> {
    let n = match &v.kind {
        Kind::Int(i) => i.as_i64().and_then(|i| u64::try_from(i).ok()),
        Kind::Float(f) if f.fract() == 0.0 && *f >= 0.0 && *f < 9e15 => Some(*f as u64),
        Kind::Str(s) => s.trim().parse().ok(),
        _ => None,
    };
    n.ok_or_else(|| node.err("expected a token count (a non-negative integer)"))
}
