//! Putting back what a scene kept in `recorded`: each carried value at its JSON pointer (array
//! items inserted at their index, shallowest first and in index order, so that every pointer means
//! what it meant in the recorded request; then object members set), and each cache breakpoint as
//! `cache_control` on the object at its pointer. A text content the pointer goes into is made a
//! list of one text part first, as the API reads a string content. Gemini's names are compared in
//! lowerCamelCase, the spelling the rebuilt body uses (Google's JSON reads snake_case alike).

use std::cmp::Ordering;

use serde_json::{json, Map, Value as Json};

use crate::scene::Recorded;
use crate::usage::Api;

/// Puts the carried values back; returns a message for each that found no place.
pub(super) fn carried(body: &mut Json, recorded: &Recorded) -> Vec<String> {
    let mut items: Vec<(Vec<String>, &Json, &str)> = recorded
        .carried
        .iter()
        .map(|c| (tokens(&c.at, recorded.api), &c.value, c.at.as_str()))
        .collect();
    // Insertions (a last token that is an index) before member sets; shallow before deep; in
    // document order, indexes compared as numbers.
    items.sort_by(|a, b| {
        let insert = |t: &[String]| t.last().is_some_and(|l| l.parse::<usize>().is_ok());
        insert(&b.0)
            .cmp(&insert(&a.0))
            .then(a.0.len().cmp(&b.0.len()))
            .then_with(|| compare_tokens(&a.0, &b.0))
    });
    let mut misses = Vec::new();
    for (tokens, value, at) in items {
        if let Err(why) = put(body, &tokens, value.clone(), recorded.api) {
            misses.push(format!(
                "the value carried at {at} is left out of the rebuilt request: {why}"
            ));
        }
    }
    misses
}

/// Sets `cache_control` where the request had its breakpoints; returns a message for each
/// that found no place.
pub(super) fn breakpoints(body: &mut Json, recorded: &Recorded) -> Vec<String> {
    let mut misses = Vec::new();
    for b in &recorded.cache_control {
        let tokens = tokens(&b.at, recorded.api);
        let mut cc = Map::new();
        cc.insert("type".into(), json!("ephemeral"));
        if let Some(ttl) = &b.ttl {
            cc.insert("ttl".into(), json!(ttl));
        }
        match walk(body, &tokens, recorded.api) {
            Ok(Json::Object(holder)) => {
                holder.insert("cache_control".into(), Json::Object(cc));
            }
            Ok(_) => misses.push(format!(
                "the cache breakpoint at {} is left out of the rebuilt request: the value there is not an object",
                b.at
            )),
            Err(why) => misses.push(format!(
                "the cache breakpoint at {} is left out of the rebuilt request: {why}",
                b.at
            )),
        }
    }
    misses
}

/// A JSON pointer's reference tokens, unescaped (RFC 6901); Gemini's in lowerCamelCase.
fn tokens(pointer: &str, api: Api) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|t| {
            let t = t.replace("~1", "/").replace("~0", "~");
            if api == Api::Gemini {
                camel(&t)
            } else {
                t
            }
        })
        .collect()
}

/// `thought_signature` → `thoughtSignature`.
pub(crate) fn camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' && !out.is_empty() {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn compare_tokens(a: &[String], b: &[String]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x.parse::<usize>(), y.parse::<usize>()) {
            (Ok(i), Ok(j)) => i.cmp(&j),
            _ => x.cmp(y),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

fn put(body: &mut Json, tokens: &[String], value: Json, api: Api) -> Result<(), String> {
    let Some((last, parents)) = tokens.split_last() else {
        return Err("the pointer names the whole body".to_owned());
    };
    // A top-level list the scene holds none of (`tools` of built-in tools only) is made again
    // for its first carried item.
    if let ([member], Json::Object(top)) = (parents, &mut *body) {
        if last == "0" && !top.contains_key(member) {
            top.insert(member.clone(), Json::Array(Vec::new()));
        }
    }
    let parent = walk(body, parents, api)?;
    match parent {
        Json::Array(items) => {
            let i: usize = last
                .parse()
                .map_err(|_| format!("{last:?} is not an index of the list there"))?;
            if i > items.len() {
                return Err(format!(
                    "the list there has {} item(s), not {i}",
                    items.len()
                ));
            }
            items.insert(i, value);
            Ok(())
        }
        Json::Object(members) => {
            members.insert(last.clone(), value);
            Ok(())
        }
        _ => Err("the value there is neither a list nor an object".to_owned()),
    }
}

/// The value at `tokens`, turning a text content on the way into a list of one text part.
fn walk<'a>(body: &'a mut Json, tokens: &[String], api: Api) -> Result<&'a mut Json, String> {
    let mut at = body;
    for (k, t) in tokens.iter().enumerate() {
        text_to_parts(at, t, api);
        at = match at {
            Json::Object(members) => members
                .get_mut(t)
                .ok_or_else(|| format!("no member {t:?} at /{}", tokens[..k].join("/")))?,
            Json::Array(items) => {
                let i: usize = t
                    .parse()
                    .map_err(|_| format!("{t:?} is not an index at /{}", tokens[..k].join("/")))?;
                let len = items.len();
                items.get_mut(i).ok_or_else(|| {
                    format!("no item {i} at /{} (it has {len})", tokens[..k].join("/"))
                })?
            }
            _ => return Err(format!("nothing inside /{}", tokens[..k].join("/"))),
        };
    }
    Ok(at)
}

/// When `holder` is a message (or tool result) whose content is text and `next` goes into that
/// content's parts, makes the content a list of one text part, as the API reads a string.
fn text_to_parts(holder: &mut Json, next: &str, api: Api) {
    let Json::Object(members) = holder else {
        return;
    };
    let role = members
        .get("role")
        .and_then(Json::as_str)
        .map(str::to_owned);
    for key in ["content", "output"] {
        let Some(Json::String(text)) = members.get(key) else {
            continue;
        };
        if next != key {
            continue;
        }
        let part = match api {
            Api::OpenaiResponses if role.as_deref() == Some("assistant") => {
                json!({"type": "output_text", "text": text})
            }
            Api::OpenaiResponses => json!({"type": "input_text", "text": text}),
            _ => json!({"type": "text", "text": text}),
        };
        let parts = if text.is_empty() { vec![] } else { vec![part] };
        members.insert(key.to_owned(), Json::Array(parts));
    }
}
