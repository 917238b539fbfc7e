//! What the estimating providers (Anthropic, Gemini, DeepSeek) share: `o200k_base` counts scaled
//! by a ratio measured on recorded usage, and the JSON text a structured piece is counted as.

use serde_json::Value as Json;

use crate::tokens::{self, Encoding};

/// `text` counted with `o200k_base`, the tokenizer the estimates are scaled from.
pub(crate) fn o200k(text: &str) -> usize {
    tokens::count(text, Encoding::O200kBase)
}

/// `tokens` scaled by `ratio`, rounded to the nearest whole token.
pub(crate) fn scaled(tokens: usize, ratio: f64) -> usize {
    (tokens as f64 * ratio).round().max(0.0) as usize
}

/// A JSON value as text with its object keys sorted and Python's separators (`", "`, `": "`):
/// the form Claude's tool definitions are rendered in, and a stable form for any structured
/// piece (two values that differ only in key order give the same text).
pub(crate) fn sorted_json(value: &Json) -> String {
    let mut out = String::new();
    write_sorted(value, &mut out);
    out
}

fn write_sorted(value: &Json, out: &mut String) {
    match value {
        Json::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&Json::String(key.clone()).to_string());
                out.push_str(": ");
                write_sorted(&map[key.as_str()], out);
            }
            out.push('}');
        }
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_sorted(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The text of a content value that is a string or a list of `{"type": "text", "text": ...}`
/// blocks (Anthropic's `system` and `tool_result.content`, OpenAI's content parts): a string
/// and a list of one text block are the same text.
pub(crate) fn plain_text(content: &Json) -> String {
    match content {
        Json::String(s) => s.clone(),
        Json::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Json::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sorted_json_orders_keys_at_every_level_and_uses_pythons_separators() {
        let v = json!({"name": "f", "description": "d", "parameters": {"type": "object", "properties": {}}});
        assert_eq!(
            sorted_json(&v),
            r#"{"description": "d", "name": "f", "parameters": {"properties": {}, "type": "object"}}"#
        );
        assert_eq!(sorted_json(&json!([1, "a", null])), r#"[1, "a", null]"#);
    }

    #[test]
    fn a_string_and_a_list_of_one_text_block_are_the_same_text() {
        assert_eq!(
            plain_text(&json!("hi")),
            plain_text(&json!([{"type": "text", "text": "hi"}]))
        );
    }

    #[test]
    fn scaling_rounds_to_the_nearest_token() {
        assert_eq!(scaled(10, 1.14), 11);
        assert_eq!(scaled(10, 1.16), 12);
        assert_eq!(scaled(0, 1.5), 0);
    }
}
