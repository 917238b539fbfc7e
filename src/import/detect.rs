//! What a request body is, when `--from` does not say, and why: detected from the fields only one
//! API has, and from the response's usage when the body alone does not tell.

use super::node::Node;
use super::{otel, ImportError, Source};

/// What a request body is, and why: OpenTelemetry data by its shape, Gemini by `contents`, the
/// Responses API by `input`, and among bodies with `messages` the fields only one of OpenAI and
/// Anthropic has.
pub(crate) fn detect(root: &Node<'_>) -> Result<(Source, String), ImportError> {
    let interactions = root
        .get("interactions")
        .or_else(|| root.get("http_interactions"));
    if interactions.is_some_and(|i| i.is_array()) {
        return Ok((
            Source::Vcr,
            "a VCR cassette (\"interactions\" of requests and responses)".to_owned(),
        ));
    }
    if root
        .get("log")
        .is_some_and(|l| l.get("entries").is_some_and(|e| e.is_array()))
    {
        return Ok((Source::Har, "a HAR file (\"log\".\"entries\")".to_owned()));
    }
    detect_with_usage(root, None)
}

/// [`detect`] of a request body, with the response's usage to tell OpenAI's chat completions
/// from Anthropic when the body alone cannot (`prompt_tokens` is OpenAI's, `input_tokens`
/// Anthropic's).
pub(crate) fn detect_with_usage(
    root: &Node<'_>,
    usage: Option<&serde_json::Value>,
) -> Result<(Source, String), ImportError> {
    if otel::looks_like(root) {
        return Ok((
            Source::Otel,
            "OpenTelemetry data (resourceSpans, a span's attributes, or gen_ai.*, llm.* or openinference.* keys)".to_owned(),
        ));
    }
    if let Some(refusal) = not_a_chat_request(root) {
        return Err(refusal);
    }
    if root.get("messages").is_none() {
        if let Some(n) = root.get("contents") {
            return Ok((Source::Gemini, format!("{} is Gemini's", n.ptr)));
        }
        if let Some(n) = root.get("input").or_else(|| root.get("instructions")) {
            return Ok((
                Source::OpenaiResponses,
                format!(
                    "{} is the Responses API's, and there is no \"messages\"",
                    n.ptr
                ),
            ));
        }
        return Err(root.err(
            "not a request this command knows: expected \"messages\" (OpenAI chat completions, Anthropic Messages), \"input\" (OpenAI Responses), \"contents\" (Gemini), a recorded call {\"request\", \"response\"}, OpenTelemetry data (resourceSpans, attributes, gen_ai.*, llm.* or openinference.* keys), a VCR cassette (interactions) or a HAR file (log.entries)",
        ));
    }
    let anthropic = evidence(root, true);
    let openai = evidence(root, false);
    let usage_says = |key: &str| usage.is_some_and(|u| u.get(key).is_some());
    match (anthropic, openai) {
        (Some(a), Some(o)) if usage_says("prompt_tokens") => Ok((
            Source::OpenaiChat,
            format!("{o} is OpenAI chat completions', and so is the response's usage (prompt_tokens), though {a} is Anthropic's"),
        )),
        (Some(a), Some(o)) if usage_says("input_tokens") => Ok((
            Source::Anthropic,
            format!("{a} is Anthropic's, and so is the response's usage (input_tokens), though {o} is OpenAI chat completions'"),
        )),
        (Some(a), Some(o)) => Err(root.err(format!(
            "both OpenAI's and Anthropic's fields: {o} is OpenAI chat completions', {a} Anthropic's; pass --from"
        ))),
        (Some(a), None) => Ok((Source::Anthropic, format!("{a} is Anthropic's"))),
        (None, Some(o)) => Ok((Source::OpenaiChat, format!("{o} is OpenAI chat completions'"))),
        (None, None) if usage_says("prompt_tokens") => Ok((
            Source::OpenaiChat,
            "\"messages\", and the response's usage has prompt_tokens, which is OpenAI chat completions'".to_owned(),
        )),
        (None, None) if usage_says("input_tokens") => Ok((
            Source::Anthropic,
            "\"messages\", and the response's usage has input_tokens, which is Anthropic's".to_owned(),
        )),
        (None, None) => Ok((
            Source::OpenaiChat,
            "\"messages\" with nothing only Anthropic has (both APIs read such a body alike)".to_owned(),
        )),
    }
}

/// A body of a request that is neither chat nor generation, refused at the field that tells:
/// an embeddings or moderation body (`input` with `encoding_format` or `dimensions`, a model
/// named for embedding or moderation, or `input` as a list of strings or token ids, which no
/// Responses request sends), or a legacy completions body (`prompt`, no `messages`). Their
/// `input` would otherwise read as a Responses request.
pub(crate) fn not_a_chat_request(root: &Node<'_>) -> Option<ImportError> {
    if root.get("messages").is_some() || root.get("contents").is_some() {
        return None;
    }
    let refuse = |n: &Node<'_>, what: &str| {
        Some(n.err(format!(
            "{what}: not a chat or generation request, which is all this command reads"
        )))
    };
    if let Some(prompt) = root.get("prompt").filter(|_| root.get("input").is_none()) {
        return refuse(
            &prompt,
            "a legacy completions request (\"prompt\", no \"messages\")",
        );
    }
    let input = root.get("input")?;
    for key in ["encoding_format", "dimensions"] {
        if let Some(n) = root.get(key) {
            return refuse(&n, &format!("an embeddings request ({key:?})"));
        }
    }
    if let Some(model) = root.get("model") {
        let name = model.as_str().unwrap_or("").to_ascii_lowercase();
        if name.contains("embed") {
            return refuse(&model, "an embeddings request (an embedding model)");
        }
        if name.contains("moderation") {
            return refuse(&model, "a moderation request (a moderation model)");
        }
    }
    let items = input.array()?;
    let bare = |n: &Node<'_>| !(n.is_object() || n.is_null());
    if !items.is_empty() && items.iter().all(bare) {
        return refuse(
            &input,
            "an embeddings or moderation request (\"input\" is a list of texts or token ids, not Responses items)",
        );
    }
    None
}

/// The pointer of the first field that only Anthropic's (or only OpenAI's) chat body has.
fn evidence(root: &Node<'_>, anthropic: bool) -> Option<String> {
    const ANTHROPIC_TOP: [&str; 4] = ["system", "stop_sequences", "top_k", "thinking"];
    const OPENAI_TOP: [&str; 6] = [
        "max_completion_tokens",
        "response_format",
        "functions",
        "logprobs",
        "frequency_penalty",
        "n",
    ];
    const ANTHROPIC_BLOCKS: [&str; 5] =
        ["tool_use", "tool_result", "image", "thinking", "document"];
    const OPENAI_PARTS: [&str; 3] = ["image_url", "input_audio", "file"];
    const OPENAI_ROLES: [&str; 4] = ["system", "developer", "tool", "function"];
    let top = if anthropic {
        &ANTHROPIC_TOP[..]
    } else {
        &OPENAI_TOP[..]
    };
    if let Some(n) = top.iter().find_map(|k| root.get(k)) {
        return Some(n.ptr);
    }
    // With Anthropic's top-level `system`, a `system` message is its beta endpoint's, not OpenAI's.
    let anthropic_system = root.get("system").is_some();
    for m in root.get("messages")?.array()? {
        if !anthropic {
            if let Some(r) = m.get("role").filter(|r| {
                r.as_str().is_some_and(|s| {
                    OPENAI_ROLES.contains(&s) && !(s == "system" && anthropic_system)
                })
            }) {
                return Some(r.ptr);
            }
            if let Some(tc) = m.get("tool_calls") {
                return Some(tc.ptr);
            }
        }
        let Some(content) = m.get("content") else {
            continue;
        };
        for p in content.array().unwrap_or_default() {
            let ty = p
                .get("type")
                .and_then(|t| t.as_str().map(|s| (s, t.ptr.clone())));
            if let Some((ty, ptr)) = ty {
                let theirs = if anthropic {
                    &ANTHROPIC_BLOCKS[..]
                } else {
                    &OPENAI_PARTS[..]
                };
                if theirs.contains(&ty) {
                    return Some(ptr);
                }
            }
        }
    }
    for t in root.get("tools")?.array()? {
        let key = if anthropic {
            "input_schema"
        } else {
            "function"
        };
        if let Some(n) = t.get(key) {
            return Some(n.ptr);
        }
    }
    None
}
