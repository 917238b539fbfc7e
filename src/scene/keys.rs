//! The keys and names a scene file may use, object by object: the one list the loader checks
//! fields against, and that `tests/it/schema.rs` compares with `schemas/scene.schema.json`, so
//! the published schema cannot drift from what the loader reads.

use super::{ChatConfig, DeskConfig};

/// The scene document. `$schema` names a JSON Schema for editors; the loader checks that it is
/// a string and otherwise ignores it. It comes last so that an unknown-field error lists the
/// scene's own fields first.
pub const SCENE: &[&str] = &[
    "format",
    "name",
    "description",
    "context",
    "intermediate_msgs",
    "chat_llm",
    "desk_llm",
    "tools",
    "run",
    "recorded",
    "$schema",
];

/// A message of `intermediate_msgs`.
pub const MESSAGE: &[&str] = &["role", "content", "name", "tool_call_id", "tool_calls"];

/// A content part with `"type": "text"`.
pub const TEXT_PART: &[&str] = &["type", "text"];

/// A content part with `"type": "image"`.
pub const IMAGE_PART: &[&str] = &["type", "url", "path", "data_base64", "mime_type"];

/// The image sources, of which an image part has exactly one.
pub const IMAGE_SOURCES: &[&str] = &["url", "path", "data_base64"];

/// A template: its engine and one text per locale.
pub const TEMPLATE: &[&str] = &["engine", "templates", "active_language"];

/// A prompt with `"kind": "normalize"`.
pub const NORMALIZE_PROMPT: &[&str] = &["kind", "template", "attachments"];

/// A prompt with `"kind": "additional_info"`.
pub const ADDITIONAL_INFO_PROMPT: &[&str] = &["kind", "template"];

/// `chat_llm`: one prompt list per configurable chat segment.
pub const CHAT_LLM: &[&str] = &ChatConfig::FIELDS;

/// `desk_llm`: the adapter, the model, then one prompt list per desk segment.
pub const DESK_LLM: &[&str] = &[
    "adapter",
    "model",
    DeskConfig::FIELDS[0],
    DeskConfig::FIELDS[1],
    DeskConfig::FIELDS[2],
    DeskConfig::FIELDS[3],
    DeskConfig::FIELDS[4],
    DeskConfig::FIELDS[5],
    DeskConfig::FIELDS[6],
];

/// An entry of `tools`.
pub const TOOL: &[&str] = &[
    "name",
    "description",
    "parameters",
    "prompt_position",
    "state",
    "format_2_prompt",
];

/// `format_2_prompt` by its `returns` kind.
pub const RETURNS_STR: &[&str] = &["returns", "source"];
pub const RETURNS_PROMPT: &[&str] = &["returns", "prompt"];
pub const RETURNS_NONE: &[&str] = &["returns"];
pub const RETURNS_RAISE: &[&str] = &["returns", "error"];
pub const RETURNS_INVALID: &[&str] = &["returns", "value"];

/// `run`: a recorded tool-call loop.
pub const RUN: &[&str] = &[
    "initial_cwd",
    "system_parts",
    "history",
    "user_message",
    "iterations",
];

/// An entry of `run.iterations`.
pub const ITERATION: &[&str] = &["assistant", "tool_results", "cwd_after", "todo"];

/// A message of the run (`history`, an iteration's `assistant` and `tool_results`).
pub const RUN_MESSAGE: &[&str] = &["role", "content", "name", "tool_call_id", "tool_calls"];

/// A run message's tool call in the flat shape `{id, name, arguments}`.
pub const TOOL_CALL_FLAT: &[&str] = &["id", "name", "arguments"];

/// A run message's tool call in OpenAI's shape `{id, type, function}` (chosen by `function`).
pub const TOOL_CALL_OPENAI: &[&str] = &["id", "type", "function"];

/// The `function` of an OpenAI-shaped tool call.
pub const TOOL_CALL_FUNCTION: &[&str] = &["name", "arguments"];

/// `recorded`: what was recorded with an imported call.
pub const RECORDED: &[&str] = &[
    "api",
    "model",
    "params",
    "layout",
    "cache_control",
    "carried",
    "usage",
    "timestamp",
    "prompt",
    "reply",
];

/// `recorded.prompt`: the prompt template an instrumentation recorded the call was made from.
pub const PROMPT_TEMPLATE: &[&str] = &["name", "version", "template", "variables"];

/// `recorded.layout`: the request's form where its API allows several.
pub const LAYOUT: &[&str] = &["system", "input", "schema", "system_form", "input_form"];

/// An entry of `recorded.cache_control`.
pub const BREAKPOINT: &[&str] = &["at", "ttl"];

/// An entry of `recorded.carried`.
pub const CARRIED: &[&str] = &["at", "value"];

/// `recorded.usage`: the billed tokens in one shape for every provider (docs/models.md).
pub const USAGE: &[&str] = &[
    "input_total",
    "uncached",
    "cache_read",
    "cache_write",
    "output",
    "reasoning",
];

/// Every object the loader reads with a closed set of keys, by its name under the schema's
/// `$defs` (the scene document itself is the schema's root, named `""`).
pub const OBJECTS: &[(&str, &[&str])] = &[
    ("", SCENE),
    ("Message", MESSAGE),
    ("TextPart", TEXT_PART),
    ("ImagePart", IMAGE_PART),
    ("Template", TEMPLATE),
    ("NormalizePrompt", NORMALIZE_PROMPT),
    ("AdditionalInfoPrompt", ADDITIONAL_INFO_PROMPT),
    ("ChatLlm", CHAT_LLM),
    ("DeskLlm", DESK_LLM),
    ("Tool", TOOL),
    ("ReturnsStr", RETURNS_STR),
    ("ReturnsPrompt", RETURNS_PROMPT),
    ("ReturnsNone", RETURNS_NONE),
    ("ReturnsRaise", RETURNS_RAISE),
    ("ReturnsInvalid", RETURNS_INVALID),
    ("Run", RUN),
    ("Iteration", ITERATION),
    ("RunMessage", RUN_MESSAGE),
    ("ToolCallFlat", TOOL_CALL_FLAT),
    ("ToolCallOpenAi", TOOL_CALL_OPENAI),
    ("ToolCallFunction", TOOL_CALL_FUNCTION),
    ("Recorded", RECORDED),
    ("Layout", LAYOUT),
    ("CacheBreakpoint", BREAKPOINT),
    ("CarriedItem", CARRIED),
    ("Usage", USAGE),
    ("PromptTemplate", PROMPT_TEMPLATE),
];

/// A message's `role`.
pub const ROLES: &[&str] = &["system", "user", "assistant", "tool"];

/// A content part's `type`.
pub const PART_TYPES: &[&str] = &["text", "image"];

/// A prompt's `kind`.
pub const PROMPT_KINDS: &[&str] = &["normalize", "additional_info"];

/// What `format_2_prompt` says the tool returns.
pub const RETURNS_KINDS: &[&str] = &["str", "prompt", "none", "raise", "invalid"];

/// `recorded.layout`'s keys and the forms each names.
pub const LAYOUT_FORMS: &[(&str, &[&str])] = &[
    ("system", &["instructions", "input"]),
    ("input", &["items", "string"]),
    ("schema", &["parametersJsonSchema", "parameters"]),
    ("system_form", &["string", "parts"]),
    ("input_form", &["string", "parts"]),
];
