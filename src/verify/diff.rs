//! Where two request bodies differ, as a person reads it (the first differing value's JSON
//! pointer and the byte inside it), and whether two texts that differ are still the same JSON
//! value (key order, whitespace, number format: byte instability).

use serde_json::Value as Json;

/// The first place `now` differs from `before`, in `now`'s document order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// JSON pointer of the value (in the body, when `first_difference` starts at its root).
    pub pointer: String,
    /// Byte of the string where it differs (0 when the value is not a string on both sides).
    pub byte: usize,
    /// A few characters from there on, before and now (empty when the value is absent).
    pub before: String,
    pub now: String,
}

/// How many characters of each side a [`Divergence`] shows.
const EXCERPT_CHARS: usize = 40;

/// The first difference between `before` and `now` below `pointer` (which names where they are),
/// or `None` when they are the same value (numbers by value, objects whatever their key order).
pub fn first_difference(before: &Json, now: &Json, pointer: &str) -> Option<Divergence> {
    let here = |byte: usize, b: String, n: String| {
        Some(Divergence {
            pointer: pointer.to_owned(),
            byte,
            before: b,
            now: n,
        })
    };
    match (before, now) {
        (Json::String(a), Json::String(b)) => {
            if a == b {
                return None;
            }
            let k = common_prefix(a, b);
            here(k, excerpt(&a[k..]), excerpt(&b[k..]))
        }
        (Json::Array(a), Json::Array(b)) => {
            for i in 0..a.len().max(b.len()) {
                let at = format!("{pointer}/{i}");
                match (a.get(i), b.get(i)) {
                    (Some(x), Some(y)) => {
                        if let Some(d) = first_difference(x, y, &at) {
                            return Some(d);
                        }
                    }
                    (x, y) => return absent(at, x, y),
                }
            }
            None
        }
        (Json::Object(a), Json::Object(b)) => {
            for (key, y) in b {
                let at = format!("{pointer}/{}", escape(key));
                match a.get(key) {
                    Some(x) => {
                        if let Some(d) = first_difference(x, y, &at) {
                            return Some(d);
                        }
                    }
                    None => return absent(at, None, Some(y)),
                }
            }
            a.iter()
                .find(|(key, _)| !b.contains_key(*key))
                .and_then(|(key, x)| absent(format!("{pointer}/{}", escape(key)), Some(x), None))
        }
        _ if same_value(before, now) => None,
        _ => here(0, excerpt(&before.to_string()), excerpt(&now.to_string())),
    }
}

/// A value on one side only.
fn absent(pointer: String, before: Option<&Json>, now: Option<&Json>) -> Option<Divergence> {
    let text = |v: Option<&Json>| v.map(|v| excerpt(&v.to_string())).unwrap_or_default();
    Some(Divergence {
        pointer,
        byte: 0,
        before: text(before),
        now: text(now),
    })
}

/// Whether two JSON values are the same value: objects with the same members in any order,
/// numbers equal as numbers (`1.0`, `1` and `1e0` are one number).
pub fn same_value(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_value(v, w))
        }
        (Json::Number(x), Json::Number(y)) => {
            x == y
                || match (x.as_f64(), y.as_f64()) {
                    (Some(p), Some(q)) => p.is_finite() && p == q,
                    _ => false,
                }
        }
        _ => a == b,
    }
}

/// Bytes `a` and `b` share at their start, at a character boundary of both.
pub fn common_prefix(a: &str, b: &str) -> usize {
    let mut k = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(k) || !b.is_char_boundary(k) {
        k -= 1;
    }
    k
}

/// The first [`EXCERPT_CHARS`] characters of `text`, with `…` when there is more.
fn excerpt(text: &str) -> String {
    let mut chars = text.char_indices();
    match chars.nth(EXCERPT_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// A key as a JSON pointer token (RFC 6901).
pub fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_difference_names_the_value_and_the_byte() {
        let before = json!({"messages": [{"role": "user", "content": "Write me a haiku."}]});
        let now = json!({"messages": [{"role": "user", "content": "Write me a sonnet."}]});
        let d = first_difference(&before, &now, "").expect("differs");
        assert_eq!(d.pointer, "/messages/0/content");
        assert_eq!(d.byte, 11);
        assert_eq!((d.before.as_str(), d.now.as_str()), ("haiku.", "sonnet."));
        let longer = json!({"messages": [{"role": "user", "content": "Write me a haiku."}, {"role": "assistant"}]});
        let d = first_difference(&before, &longer, "").expect("appended");
        assert_eq!((d.pointer.as_str(), d.before.as_str()), ("/messages/1", ""));
        assert_eq!(first_difference(&before, &before.clone(), ""), None);
    }

    #[test]
    fn key_order_and_number_format_are_the_same_value() {
        let a: Json = serde_json::from_str(r#"{"a": 1.0, "b/c": [1, {"x": true, "y": null}]}"#)
            .expect("json");
        let b: Json = serde_json::from_str(r#"{"b/c": [1e0, {"y": null, "x": true}], "a": 1}"#)
            .expect("json");
        assert_ne!(a.to_string(), b.to_string(), "different bytes");
        assert!(same_value(&a, &b));
        assert_eq!(first_difference(&a, &b, ""), None);
        let c: Json = serde_json::from_str(r#"{"a": 1.5, "b/c": [1, {"x": true, "y": null}]}"#)
            .expect("json");
        assert!(!same_value(&a, &c));
        let d = first_difference(&c, &b, "").expect("differs");
        assert_eq!(d.pointer, "/a");
        assert_eq!(escape("b/c~"), "b~1c~0");
    }

    #[test]
    fn common_prefixes_end_at_character_boundaries() {
        assert_eq!(common_prefix("héllo", "hèllo"), 1);
        assert_eq!(common_prefix("abc", "abd"), 2);
        assert_eq!(common_prefix("", "x"), 0);
    }
}
