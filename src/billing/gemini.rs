//! Gemini's `generateContent` requests as billed: an estimate (docs/models.md, "Predicted billed
//! input: Anthropic, Gemini, DeepSeek" says why the exact Gemma 3 tokenizer is not used).
//!
//! Gemini bills the content's tokens with no per-turn framing ("Say this is a test" is billed 5,
//! as its text counts). Text is `o200k_base` scaled by the ratio the Gemma 3 tokenizer gave
//! against `o200k_base` on the texts of `corpora/usage`; function declarations, calls, responses
//! and response schemas are counted as their JSON; images are priced by `image`; the thought
//! signatures of the current turn (which Gemini 3 restores as the thoughts they carry) by their
//! size.

use base64::Engine as _;
use serde_json::Value as Json;

use super::estimate::{o200k, scaled, sorted_json};
use super::image::{self, ImageRef, Margin};
use super::{BilledPart, BillingError, PartKind};
use crate::usage::{Api, Provenance};

/// Gemma 3 tokens per `o200k_base` token (median over the corpus's request texts).
const TEXT_RATIO: f64 = 1.03;
/// Bytes of a thought signature per thought token it restores (the one recorded call that
/// carries signatures in its current turn).
const SIGNATURE_BYTES_PER_TOKEN: f64 = 3.5;
/// Measured on 4 recorded calls only (docs/models.md).
pub const BOUND_PERCENT: f64 = 15.0;

pub(super) fn generate_content(
    model: &str,
    body: &Json,
) -> Result<(Vec<BilledPart>, Provenance), BillingError> {
    if !body.is_object() {
        return Err(BillingError::at(
            "",
            "a generateContent request body is a JSON object",
        ));
    }
    let mut parts = Vec::new();
    let mut media = Margin::default();
    tools(body, &mut parts);
    if let Some((key, system)) = field(body, &["systemInstruction", "system_instruction"]) {
        for (j, p) in system
            .get("parts")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let text = p.get("text").and_then(Json::as_str).unwrap_or("");
            parts.push(text_part(
                PartKind::System,
                format!("/{key}/parts/{j}"),
                text,
            ));
        }
    }
    let config = field(body, &["generationConfig", "generation_config"]);
    if let Some((config_key, config)) = config {
        let schema_keys = [
            "responseSchema",
            "response_schema",
            "responseJsonSchema",
            "response_json_schema",
        ];
        if let Some((key, schema)) = field(config, &schema_keys) {
            let text = sorted_json(schema);
            let tokens = scaled(o200k(&text), TEXT_RATIO);
            parts.push(BilledPart::new(
                PartKind::Schema,
                format!("/{config_key}/{key}"),
                text,
                tokens,
            ));
        }
    }
    let contents = match body.get("contents") {
        None => &[][..],
        Some(Json::Array(c)) => c.as_slice(),
        Some(_) => {
            return Err(BillingError::at(
                "/contents",
                "expected an array of contents",
            ))
        }
    };
    let turn = current_turn(contents);
    for (i, content) in contents.iter().enumerate() {
        let role = content.get("role").and_then(Json::as_str).unwrap_or("user");
        let items = content.get("parts").and_then(Json::as_array);
        for (j, p) in items.into_iter().flatten().enumerate() {
            let at = format!("/contents/{i}/parts/{j}");
            content_part(model, p, at, role, i >= turn, &mut parts, &mut media);
        }
    }
    let predicted: usize = parts.iter().map(|p| p.tokens).sum();
    let estimate = Provenance::Estimate {
        bound_percent: BOUND_PERCENT,
    };
    Ok((parts, estimate.combine(&media.provenance(predicted))))
}

/// The first of `keys` that `v` has (the API takes camelCase and snake_case alike).
fn field<'a>(v: &'a Json, keys: &[&'static str]) -> Option<(&'static str, &'a Json)> {
    keys.iter().find_map(|k| Some((*k, v.get(*k)?)))
}

fn text_part(kind: PartKind, pointer: String, text: &str) -> BilledPart {
    BilledPart::new(
        kind,
        pointer,
        text.to_owned(),
        scaled(o200k(text), TEXT_RATIO),
    )
}

fn tools(body: &Json, out: &mut Vec<BilledPart>) {
    for (i, tool) in body
        .get("tools")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        match field(tool, &["functionDeclarations", "function_declarations"]) {
            Some((key, Json::Array(decls))) => {
                for (j, d) in decls.iter().enumerate() {
                    let text = declaration(d);
                    let tokens = scaled(o200k(&text), TEXT_RATIO);
                    out.push(BilledPart::new(
                        PartKind::Tool,
                        format!("/tools/{i}/{key}/{j}"),
                        text,
                        tokens,
                    ));
                }
            }
            _ => {
                let text = sorted_json(tool);
                let tokens = scaled(o200k(&text), TEXT_RATIO);
                out.push(BilledPart::new(
                    PartKind::Tool,
                    format!("/tools/{i}"),
                    text,
                    tokens,
                ));
            }
        }
    }
}

/// A function declaration as JSON of its description, name and parameters, keys sorted.
fn declaration(d: &Json) -> String {
    let mut def = serde_json::Map::new();
    for (key, names) in [
        ("description", &["description"][..]),
        ("name", &["name"][..]),
        (
            "parameters",
            &[
                "parameters",
                "parametersJsonSchema",
                "parameters_json_schema",
            ][..],
        ),
    ] {
        if let Some((_, v)) = field(d, names) {
            def.insert(key.to_owned(), v.clone());
        }
    }
    sorted_json(&Json::Object(def))
}

/// Where the current turn starts: the last user content that is not only function responses.
/// Thought signatures before it belong to earlier turns, whose thoughts Gemini drops.
fn current_turn(contents: &[Json]) -> usize {
    contents
        .iter()
        .rposition(|c| {
            let role = c.get("role").and_then(Json::as_str).unwrap_or("user");
            let parts = c.get("parts").and_then(Json::as_array);
            role == "user"
                && parts
                    .into_iter()
                    .flatten()
                    .any(|p| field(p, &["functionResponse", "function_response"]).is_none())
        })
        .unwrap_or(0)
}

fn content_part(
    model: &str,
    p: &Json,
    at: String,
    role: &str,
    in_current_turn: bool,
    out: &mut Vec<BilledPart>,
    media: &mut Margin,
) {
    if let Some(text) = p.get("text").and_then(Json::as_str) {
        let kind = if p.get("thought").and_then(Json::as_bool) == Some(true) {
            PartKind::Reasoning
        } else {
            PartKind::Message
        };
        out.push(text_part(kind, at.clone(), text));
    } else if let Some((_, call)) = field(p, &["functionCall", "function_call"]) {
        let name = call.get("name").and_then(Json::as_str).unwrap_or("");
        let args = call.get("args").map(sorted_json).unwrap_or_default();
        let tokens = scaled(o200k(name) + o200k(&args), TEXT_RATIO);
        out.push(BilledPart::new(
            PartKind::Message,
            at.clone(),
            format!("{role}: call {name} {args}"),
            tokens,
        ));
    } else if let Some((_, response)) = field(p, &["functionResponse", "function_response"]) {
        let name = response.get("name").and_then(Json::as_str).unwrap_or("");
        let body = response
            .get("response")
            .map(sorted_json)
            .unwrap_or_default();
        let tokens = scaled(o200k(name) + o200k(&body), TEXT_RATIO);
        out.push(BilledPart::new(
            PartKind::Message,
            at.clone(),
            format!("{role}: result {name} {body}"),
            tokens,
        ));
    } else if let Some((_, inline)) = field(p, &["inlineData", "inline_data"]) {
        let mime = field(inline, &["mimeType", "mime_type"]).and_then(|(_, m)| m.as_str());
        let data = inline.get("data").and_then(Json::as_str).unwrap_or("");
        out.push(media_part(model, mime, Some(data), at.clone(), media));
    } else if let Some((_, file)) = field(p, &["fileData", "file_data"]) {
        let mime = field(file, &["mimeType", "mime_type"]).and_then(|(_, m)| m.as_str());
        out.push(media_part(model, mime, None, at.clone(), media));
    }
    let signature =
        field(p, &["thoughtSignature", "thought_signature"]).and_then(|(_, s)| s.as_str());
    if let (Some(sig), true) = (signature, in_current_turn) {
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(sig.trim_end_matches('='))
            .or_else(|_| base64::engine::general_purpose::STANDARD.decode(sig))
            .map(|b| b.len())
            .unwrap_or(sig.len() * 3 / 4);
        let tokens = (bytes as f64 / SIGNATURE_BYTES_PER_TOKEN).round() as usize;
        out.push(BilledPart::new(
            PartKind::Reasoning,
            format!("{at}/thoughtSignature"),
            String::new(),
            tokens,
        ));
    }
}

/// An image priced by `image`; audio, video and documents, whose length the body does not
/// give, count nothing here and leave the estimate unbounded.
fn media_part(
    model: &str,
    mime: Option<&str>,
    data: Option<&str>,
    at: String,
    media: &mut Margin,
) -> BilledPart {
    let mime = mime.unwrap_or("");
    if mime.starts_with("image/") {
        let size = data.and_then(image::pixel_size_base64);
        let (tokens, p) = image::tokens(
            Api::Gemini,
            model,
            &ImageRef {
                size,
                ..Default::default()
            },
        );
        media.add(tokens, &p);
        return BilledPart::new(PartKind::Image, at, format!("<{mime}>"), tokens);
    }
    tracing::debug!(pointer = %at, mime, "media of unknown length: not counted");
    media.input_percent = media.input_percent.max(100.0);
    BilledPart::new(PartKind::Image, at, format!("<{mime}>"), 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_is_billed_with_no_framing() {
        let body =
            json!({"contents": [{"role": "user", "parts": [{"text": "Say this is a test"}]}]});
        let (parts, provenance) = generate_content("gemini-2.5-pro", &body).unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(
            parts[0].tokens,
            scaled(o200k("Say this is a test"), TEXT_RATIO)
        );
        assert_eq!(parts[0].pointer, "/contents/0/parts/0");
        assert_eq!(provenance.bound(), BOUND_PERCENT);
    }

    #[test]
    fn system_tools_schema_calls_and_responses_are_counted_in_both_spellings() {
        let camel = json!({
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "tools": [{"functionDeclarations": [{"name": "f", "description": "d", "parameters": {"type": "OBJECT"}}]}],
            "generationConfig": {"responseSchema": {"type": "OBJECT"}},
            "contents": [
                {"role": "user", "parts": [{"text": "Hi"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"a": "b"}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"r": 1}}}]}]});
        let snake = json!({
            "system_instruction": {"parts": [{"text": "Be brief."}]},
            "tools": [{"function_declarations": [{"name": "f", "description": "d", "parameters_json_schema": {"type": "OBJECT"}}]}],
            "generation_config": {"response_schema": {"type": "OBJECT"}},
            "contents": [
                {"role": "user", "parts": [{"text": "Hi"}]},
                {"role": "model", "parts": [{"function_call": {"name": "f", "args": {"a": "b"}}}]},
                {"role": "user", "parts": [{"function_response": {"name": "f", "response": {"r": 1}}}]}]});
        let kinds = |b: &Json| {
            let (parts, _) = generate_content("gemini-2.5-pro", b).unwrap();
            parts.iter().map(|p| (p.kind, p.tokens)).collect::<Vec<_>>()
        };
        let k = kinds(&camel);
        assert_eq!(k, kinds(&snake));
        let order: Vec<PartKind> = k.iter().map(|(kind, _)| *kind).collect();
        assert_eq!(
            order,
            [
                PartKind::Tool,
                PartKind::System,
                PartKind::Schema,
                PartKind::Message,
                PartKind::Message,
                PartKind::Message
            ]
        );
        assert!(k.iter().all(|(_, t)| *t > 0));
    }

    #[test]
    fn thought_signatures_count_only_in_the_current_turn() {
        let sig = base64::engine::general_purpose::STANDARD.encode([7u8; 350]);
        let call = json!({"functionCall": {"name": "f", "args": {}}, "thoughtSignature": sig});
        let result = json!({"functionResponse": {"name": "f", "response": {}}});
        let in_loop = json!({"contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [call]},
            {"role": "user", "parts": [result]}]});
        let (parts, _) = generate_content("gemini-3-flash-preview", &in_loop).unwrap();
        let thought = parts
            .iter()
            .find(|p| p.kind == PartKind::Reasoning)
            .unwrap();
        assert_eq!(thought.tokens, 100);
        assert_eq!(thought.pointer, "/contents/1/parts/0/thoughtSignature");

        let next_turn = json!({"contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [call]},
            {"role": "user", "parts": [result]},
            {"role": "user", "parts": [{"text": "and now?"}]}]});
        let (parts, _) = generate_content("gemini-3-flash-preview", &next_turn).unwrap();
        assert!(parts.iter().all(|p| p.kind != PartKind::Reasoning));
    }

    #[test]
    fn media_of_unknown_length_counts_nothing_and_unbounds_the_estimate() {
        let body = json!({"contents": [{"role": "user", "parts": [
            {"fileData": {"fileUri": "https://example.com/a.mp3", "mimeType": "audio/mpeg"}}]}]});
        let (parts, provenance) = generate_content("gemini-2.5-pro", &body).unwrap();
        assert_eq!(parts[0].tokens, 0);
        assert_eq!(provenance.bound(), 100.0);
    }

    #[test]
    fn malformed_bodies_are_refused_with_a_pointer() {
        assert!(generate_content("gemini-2.5-pro", &json!("x")).is_err());
        let e = generate_content("gemini-2.5-pro", &json!({"contents": {}})).unwrap_err();
        assert_eq!(e.pointer, "/contents");
    }
}
