//! The billed usage in a recorded response: a JSON body's `usage` (Gemini: `usageMetadata`), or,
//! for a stream (`text/event-stream`), the usage of its last event that carries one: OpenAI chat
//! completions' final chunk (sent with `stream_options.include_usage`), the Responses API's
//! `response.completed`, Anthropic's `message_start` usage updated by each `message_delta`, and
//! Gemini's last chunk's `usageMetadata`.

use serde_json::{Map, Value as Json};

use crate::json::{Json as Tree, Kind};
use crate::usage::{Api, Usage};

/// Where a JSON response body holds its usage: `usage`, Gemini's `usageMetadata` (in a Gemini
/// stream read without SSE, a JSON array of chunks, the last chunk's).
pub(crate) fn usage_node(api: Api, body: &Tree) -> Option<&Tree> {
    let usable = |t: &&Tree| matches!(t.kind, Kind::Object(_));
    match (api, &body.kind) {
        (Api::Gemini, Kind::Array(chunks)) => chunks
            .iter()
            .rev()
            .find_map(|c| c.get("usageMetadata").filter(usable)),
        (Api::Gemini, _) => body.get("usageMetadata").filter(usable),
        _ => body.get("usage").filter(usable),
    }
}

/// An event stream's usage. `Err((line, message))` for an event whose data is not JSON, with
/// the line of the body it starts on.
pub(crate) fn of_stream(api: Api, text: &str) -> Result<Option<Usage>, (usize, String)> {
    let mut usage: Option<Json> = None;
    for event in events(text) {
        if event.data.trim() == "[DONE]" {
            continue;
        }
        let data: Json = serde_json::from_str(&event.data).map_err(|e| {
            (
                event.line + e.line().saturating_sub(1),
                format!("an event's data is not JSON: {e}"),
            )
        })?;
        match api {
            Api::OpenaiChat => {
                if let Some(u) = data.get("usage").filter(|u| u.is_object()) {
                    usage = Some(u.clone());
                }
            }
            Api::OpenaiResponses => {
                if let Some(u) = data
                    .get("response")
                    .and_then(|r| r.get("usage"))
                    .filter(|u| u.is_object())
                {
                    usage = Some(u.clone());
                }
            }
            Api::Anthropic => {
                let kind = data.get("type").and_then(Json::as_str).unwrap_or(&event.name);
                let found = match kind {
                    "message_start" => data.get("message").and_then(|m| m.get("usage")),
                    "message_delta" => data.get("usage"),
                    _ => None,
                };
                if let Some(Json::Object(found)) = found {
                    let merged = usage.get_or_insert_with(|| Json::Object(Map::new()));
                    if let Json::Object(merged) = merged {
                        for (k, v) in found {
                            if !v.is_null() {
                                merged.insert(k.clone(), v.clone());
                            }
                        }
                    }
                }
            }
            Api::Gemini => {
                if let Some(u) = data.get("usageMetadata").filter(|u| u.is_object()) {
                    usage = Some(u.clone());
                }
            }
        }
    }
    Ok(usage.and_then(|u| Usage::from_response(api, &u)))
}

/// One dispatched server-sent event.
struct Event {
    name: String,
    data: String,
    /// The body's line its first field is on.
    line: usize,
}

/// The events of a stream as the HTML standard's event-stream parser dispatches them: `data`
/// lines joined with a newline, `event` naming it, comments (`:`) ignored, a blank line ending it.
fn events(text: &str) -> Vec<Event> {
    let mut out = Vec::new();
    let mut name = String::new();
    let mut data: Option<String> = None;
    let mut start = 0;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split('\n').enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            if let Some(d) = data.take() {
                out.push(Event {
                    name: std::mem::take(&mut name),
                    data: d,
                    line: start,
                });
            }
            name.clear();
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        if data.is_none() && name.is_empty() {
            start = i + 1;
        }
        match field {
            "data" => match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => data = Some(value.to_owned()),
            },
            "event" => name = value.to_owned(),
            _ => {}
        }
        if lines.peek().is_none() {
            // A stream cut before its last blank line still delivers its last event.
            if let Some(d) = data.take() {
                out.push(Event {
                    name: std::mem::take(&mut name),
                    data: d,
                    line: start,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_chat_takes_the_final_chunk() {
        let s = "data: {\"choices\":[],\"usage\":null}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3,\"prompt_tokens_details\":{\"cached_tokens\":0}}}\n\ndata: [DONE]\n\n";
        let u = of_stream(Api::OpenaiChat, s).expect("reads").expect("usage");
        assert_eq!((u.input_total, u.output), (12, 3));
    }

    #[test]
    fn anthropic_merges_message_start_and_delta() {
        let s = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":20,\"cache_read_input_tokens\":100,\"cache_creation_input_tokens\":0,\"output_tokens\":1}}}\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":57}}\n\n";
        let u = of_stream(Api::Anthropic, s).expect("reads").expect("usage");
        assert_eq!((u.input_total, u.uncached, u.cache_read, u.output), (120, 20, 100, 57));
    }

    #[test]
    fn responses_and_gemini_take_the_last_usage() {
        let s = "event: response.created\r\ndata: {\"type\":\"response.created\",\"response\":{\"usage\":null}}\r\n\r\nevent: response.completed\r\ndata: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":9,\"output_tokens\":4,\"input_tokens_details\":{\"cached_tokens\":0}}}}\r\n\r\n";
        let u = of_stream(Api::OpenaiResponses, s).expect("reads").expect("usage");
        assert_eq!((u.input_total, u.output), (9, 4));
        let g = "data: {\"usageMetadata\":{\"promptTokenCount\":5,\"candidatesTokenCount\":1}}\n\ndata: {\"usageMetadata\":{\"promptTokenCount\":5,\"candidatesTokenCount\":8}}";
        let u = of_stream(Api::Gemini, g).expect("reads").expect("usage");
        assert_eq!((u.input_total, u.output), (5, 8));
    }

    #[test]
    fn a_stream_without_usage_has_none_and_bad_data_names_its_line() {
        let s = "data: {\"choices\":[]}\n\ndata: [DONE]\n\n";
        assert_eq!(of_stream(Api::OpenaiChat, s), Ok(None));
        let bad = "data: {\"choices\":[]}\n\n: comment\ndata: {oops\n\n";
        let (line, message) = of_stream(Api::OpenaiChat, bad).expect_err("bad");
        assert_eq!(line, 4, "{message}");
    }

    #[test]
    fn multi_line_data_is_joined() {
        let s = "data: {\"usage\":\ndata: {\"prompt_tokens\": 2, \"completion_tokens\": 1}}\n\n";
        let u = of_stream(Api::OpenaiChat, s).expect("reads").expect("usage");
        assert_eq!(u.input_total, 2);
    }
}
