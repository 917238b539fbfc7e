//! "Did you mean": when a render fails on a name or key that is not there, the names that are,
//! written in the failing template's own syntax (`ctx[user_input][input]` for `fstring`,
//! `ctx.user_input.input` for `jinja2`).
//!
//! It works from the error's position, not its message: the field (fstring) or the expressions
//! (jinja2) at the error's range are read as paths (a name, then keys, indexes and attributes),
//! each path is walked through the variables, and where a step finds nothing the keys of the value
//! it stood on are ranked by closeness to the missing one. A key of that name elsewhere in the
//! variables (a context key read without its `ctx`) is offered too. Only the error path runs this,
//! so a render that succeeds pays nothing.

use crate::value::Value;

use super::{Engine, ErrorKind, TemplateError};

/// At most this many suggestions.
const MAX: usize = 3;
/// A container with at most this many keys has them all offered: "what exists".
const SMALL: usize = 5;
/// How deep, and over how many dicts, a key of the missing name is looked for elsewhere.
const SEARCH_DEPTH: usize = 5;
const SEARCH_NODES: usize = 2_000;

#[derive(Clone, Debug, PartialEq)]
enum Step {
    /// `[key]` (fstring), `.key` or `['key']` (jinja2).
    Key(String),
    /// `.name` in fstring: `getattr`, which on a dict never finds its keys.
    Attr(String),
    /// `[0]`.
    Index(usize),
}

/// The suggestions for a located render error over `vars`; empty when the error is not about a
/// missing name (or nothing is close).
pub(super) fn for_error(
    engine: Engine,
    source: &str,
    error: &TemplateError,
    vars: &Value,
) -> Vec<String> {
    let relevant = match engine {
        Engine::Fstring => matches!(
            error.kind(),
            ErrorKind::KeyError | ErrorKind::AttributeError
        ),
        Engine::Jinja2 => matches!(
            error.kind(),
            ErrorKind::UndefinedError | ErrorKind::TypeError | ErrorKind::AttributeError
        ),
    };
    let Some(range) = error.range().filter(|_| relevant) else {
        return Vec::new();
    };
    // Jinja2's range of an attribute lookup starts at its `.`: read the path from its name.
    let start = match engine {
        Engine::Fstring => range.start,
        Engine::Jinja2 => path_start(source, range.start),
    };
    let Some(text) = source.get(start..range.end) else {
        return Vec::new();
    };
    let paths = match engine {
        Engine::Fstring => fstring_field(text).into_iter().collect(),
        Engine::Jinja2 => {
            let locals = jinja_locals(source);
            jinja_paths(text)
                .into_iter()
                .filter(|(root, _)| !locals.iter().any(|l| l == root))
                .collect::<Vec<_>>()
        }
    };
    for (root, steps) in paths {
        let out = suggest(engine, vars, &root, &steps);
        if let Some(out) = out {
            return out;
        }
    }
    Vec::new()
}

/// Where the path expression that reaches `at` begins: back over names, `.` and `[...]`.
pub(super) fn path_start(source: &str, at: usize) -> usize {
    let head = source.get(..at).unwrap_or("");
    let mut start = head.len();
    let mut depth = 0usize;
    for (i, c) in head.char_indices().rev() {
        match c {
            ']' => depth += 1,
            '[' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            c if is_ident(c) || c == '.' => {}
            _ => break,
        }
        start = i;
    }
    start
}

/// The path of an fstring field `{name[key].attr!r:spec}`.
fn fstring_field(text: &str) -> Option<(String, Vec<Step>)> {
    let body = text.strip_prefix('{')?;
    let end = body.find(['.', '[', '!', ':', '}']).unwrap_or(body.len());
    let root = &body[..end];
    if root.is_empty() || root.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut steps = Vec::new();
    let mut rest = &body[end..];
    loop {
        if let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']')?;
            let key = &r[..close];
            steps.push(match key.parse::<usize>() {
                Ok(i) if key.bytes().all(|b| b.is_ascii_digit()) => Step::Index(i),
                _ => Step::Key(key.to_owned()),
            });
            rest = &r[close + 1..];
        } else if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[', '!', ':', '}']).unwrap_or(r.len());
            steps.push(Step::Attr(r[..end].to_owned()));
            rest = &r[end..];
        } else {
            break;
        }
    }
    Some((root.to_owned(), steps))
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Names a jinja2 template binds itself (`for x in`, `set x`, macro names): not variables.
fn jinja_locals(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let words: Vec<&str> = source
        .split(|c: char| !is_ident(c))
        .filter(|w| !w.is_empty())
        .collect();
    for pair in words.windows(2) {
        if matches!(pair[0], "for" | "set" | "macro" | "with" | "as") {
            out.push(pair[1].to_owned());
        }
    }
    // `for k, v in`: the second name too.
    for (i, _) in source.match_indices("for ") {
        let head = &source[i + 4..];
        let head = head.split(" in ").next().unwrap_or("");
        out.extend(
            head.split(',')
                .map(|n| n.trim().to_owned())
                .filter(|n| n.chars().all(is_ident)),
        );
    }
    out.extend(
        [
            "loop",
            "range",
            "dict",
            "lipsum",
            "cycler",
            "joiner",
            "namespace",
            "caller",
        ]
        .map(str::to_owned),
    );
    out
}

/// Every path expression (`name`, then `.attr`, `['key']`, `["key"]`, `[0]`) in a piece of jinja2
/// source, in order; filter and test names (after `|` and `is`) and string contents are skipped.
fn jinja_paths(text: &str) -> Vec<(String, Vec<Step>)> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let at = |i: usize| chars.get(i).map(|&(_, c)| c);
    let mut out = Vec::new();
    let mut i = 0;
    let mut prev_significant: Option<char> = None;
    let mut prev_word = String::new();
    while let Some(c) = at(i) {
        if c == '\'' || c == '"' {
            i += 1;
            while let Some(d) = at(i) {
                i += 1;
                if d == c {
                    break;
                }
            }
            prev_significant = Some(c);
            continue;
        }
        if is_ident_start(c) {
            let start = i;
            while at(i).is_some_and(is_ident) {
                i += 1;
            }
            let word: String = chars[start..i].iter().map(|&(_, c)| c).collect();
            let skip = matches!(prev_significant, Some('.') | Some('|'))
                || prev_word == "is"
                || is_keyword(&word);
            if skip {
                prev_significant = Some('a');
                prev_word = word;
                continue;
            }
            let mut steps = Vec::new();
            loop {
                if at(i) == Some('.') && at(i + 1).is_some_and(is_ident_start) {
                    let s = i + 1;
                    i += 1;
                    while at(i).is_some_and(is_ident) {
                        i += 1;
                    }
                    steps.push(Step::Key(chars[s..i].iter().map(|&(_, c)| c).collect()));
                } else if at(i) == Some('[') {
                    let mut j = i + 1;
                    while at(j) == Some(' ') {
                        j += 1;
                    }
                    let Some(q) = at(j) else { break };
                    let (step, after) = if q == '\'' || q == '"' {
                        let s = j + 1;
                        let mut e = s;
                        while at(e).is_some_and(|d| d != q) {
                            e += 1;
                        }
                        (
                            Step::Key(chars[s..e].iter().map(|&(_, c)| c).collect()),
                            e + 1,
                        )
                    } else if q.is_ascii_digit() {
                        let s = j;
                        let mut e = s;
                        while at(e).is_some_and(|d| d.is_ascii_digit()) {
                            e += 1;
                        }
                        let n: String = chars[s..e].iter().map(|&(_, c)| c).collect();
                        (Step::Index(n.parse().unwrap_or(usize::MAX)), e)
                    } else {
                        break;
                    };
                    let mut k = after;
                    while at(k) == Some(' ') {
                        k += 1;
                    }
                    if at(k) != Some(']') {
                        break;
                    }
                    steps.push(step);
                    i = k + 1;
                } else {
                    break;
                }
            }
            out.push((word.clone(), steps));
            prev_significant = Some('a');
            prev_word = word;
            continue;
        }
        if !c.is_whitespace() {
            prev_significant = Some(c);
            prev_word.clear();
        }
        i += 1;
    }
    out
}

fn is_keyword(w: &str) -> bool {
    matches!(
        w,
        "if" | "else"
            | "elif"
            | "endif"
            | "for"
            | "endfor"
            | "in"
            | "not"
            | "and"
            | "or"
            | "is"
            | "set"
            | "endset"
            | "true"
            | "false"
            | "none"
            | "True"
            | "False"
            | "None"
            | "macro"
            | "endmacro"
            | "call"
            | "endcall"
            | "filter"
            | "endfilter"
            | "with"
            | "endwith"
            | "block"
            | "endblock"
            | "raw"
            | "endraw"
            | "recursive"
    )
}

/// One step of a path through the variables, as the engine takes it.
fn step<'v>(engine: Engine, v: &'v Value, s: &Step) -> Option<&'v Value> {
    match (v, s) {
        (Value::Dict(d), Step::Key(k)) => d.get(k.as_str()),
        // A dict's keys are not its attributes in Python (`str.format`'s `.name` is getattr).
        (Value::Dict(_), Step::Attr(_)) => None,
        (Value::List(l), Step::Index(i)) => l.get(*i),
        // jinja2's subscript falls back to the attribute and back: `x.0` is `x[0]`.
        (Value::List(l), Step::Key(k)) if engine == Engine::Jinja2 => {
            k.parse::<usize>().ok().and_then(|i| l.get(i))
        }
        _ => None,
    }
}

fn walk<'v>(engine: Engine, mut v: &'v Value, steps: &[Step]) -> Option<&'v Value> {
    for s in steps {
        v = step(engine, v, s)?;
    }
    Some(v)
}

fn key_of(s: &Step) -> Option<&str> {
    match s {
        Step::Key(k) | Step::Attr(k) => Some(k),
        Step::Index(_) => None,
    }
}

/// `None` when the path resolves whole (the error is about something else); else the
/// suggestions (maybe none).
fn suggest(engine: Engine, vars: &Value, root: &str, steps: &[Step]) -> Option<Vec<String>> {
    let all: Vec<Step> = std::iter::once(Step::Key(root.to_owned()))
        .chain(steps.iter().cloned())
        .collect();
    let mut cur = vars;
    let mut failed = None;
    for (i, s) in all.iter().enumerate() {
        match step(engine, cur, s) {
            Some(v) => cur = v,
            None => {
                failed = Some(i);
                break;
            }
        }
    }
    let failed = failed?;
    let missing = key_of(&all[failed])?;
    let before = &all[..failed];
    let rest = &all[failed + 1..];
    // (resolves whole, distance, path): the best first.
    let mut found: Vec<(bool, usize, Vec<Step>)> = Vec::new();
    if let Value::Dict(d) = cur {
        let limit = (missing.chars().count() / 3).max(2);
        let dist = |k: &str| distance(&k.to_lowercase(), &missing.to_lowercase());
        // The close keys; when none is close, every key of a small dict ("what exists").
        let any_close = d.keys().any(|k| dist(k) <= limit);
        for k in d.keys() {
            let dist = dist(k);
            if dist > limit && (any_close || d.len() > SMALL) {
                continue;
            }
            let mut path = before.to_vec();
            path.push(Step::Key(k.to_string()));
            let resolves = d
                .get(k.as_ref())
                .is_some_and(|v| walk(engine, v, rest).is_some());
            path.extend(rest.iter().cloned());
            found.push((resolves, dist, path));
        }
    }
    for at in key_elsewhere(vars, missing) {
        if at.as_slice() == before_keys(before).as_slice() {
            continue;
        }
        let mut path: Vec<Step> = at.into_iter().map(Step::Key).collect();
        path.push(Step::Key(missing.to_owned()));
        let resolves = walk(engine, vars, &path).is_some_and(|v| walk(engine, v, rest).is_some());
        path.extend(rest.iter().cloned());
        found.push((resolves, 0, path));
    }
    // A path that reads through to the end beats one that would fail further on.
    if found.iter().any(|(resolves, ..)| *resolves) {
        found.retain(|(resolves, ..)| *resolves);
    }
    found.sort_by_key(|(resolves, dist, path)| (!resolves, *dist, path.len()));
    let mut out: Vec<String> = Vec::new();
    for (_, _, path) in found {
        if let Some(text) = write(engine, &path) {
            if !out.contains(&text) {
                out.push(text);
            }
        }
        if out.len() == MAX {
            break;
        }
    }
    Some(out)
}

fn before_keys(before: &[Step]) -> Vec<String> {
    before
        .iter()
        .filter_map(key_of)
        .map(str::to_owned)
        .collect()
}

/// The paths (as keys from the top) of the dicts holding a key `name`, nearest first.
fn key_elsewhere(vars: &Value, name: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut queue: std::collections::VecDeque<(Vec<String>, &Value)> =
        std::collections::VecDeque::from([(Vec::new(), vars)]);
    let mut seen = 0;
    while let Some((path, v)) = queue.pop_front() {
        let Value::Dict(d) = v else { continue };
        seen += 1;
        if seen > SEARCH_NODES {
            break;
        }
        if d.contains_key(name) {
            out.push(path.clone());
            if out.len() == MAX {
                break;
            }
        }
        if path.len() < SEARCH_DEPTH {
            for (k, child) in d.iter() {
                if matches!(child, Value::Dict(_)) {
                    let mut p = path.clone();
                    p.push(k.to_string());
                    queue.push_back((p, child));
                }
            }
        }
    }
    out
}

/// A path in the engine's syntax; `None` when a key cannot be written there.
fn write(engine: Engine, path: &[Step]) -> Option<String> {
    let (first, rest) = path.split_first()?;
    let mut out = key_of(first)?.to_owned();
    for s in rest {
        match (engine, s) {
            (_, Step::Index(i)) => out.push_str(&format!("[{i}]")),
            (Engine::Fstring, Step::Key(k)) => {
                // A field's key runs to the first `]`; an all-digit one would index.
                if k.contains(']') || k.is_empty() || k.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                out.push_str(&format!("[{k}]"));
            }
            (Engine::Fstring, Step::Attr(a)) => out.push_str(&format!(".{a}")),
            (Engine::Jinja2, Step::Key(k) | Step::Attr(k)) => {
                let plain = k.chars().next().is_some_and(is_ident_start)
                    && k.chars().all(is_ident)
                    && !is_dict_method(k);
                if plain {
                    out.push_str(&format!(".{k}"));
                } else {
                    out.push_str(&format!("[{k:?}]").replace('"', "'"));
                }
            }
        }
    }
    Some(out)
}

/// `d.items` is the method even when the dict has a key `items`: those are written `d['items']`.
fn is_dict_method(k: &str) -> bool {
    matches!(
        k,
        "items"
            | "keys"
            | "values"
            | "get"
            | "pop"
            | "update"
            | "copy"
            | "clear"
            | "setdefault"
            | "popitem"
            | "fromkeys"
    )
}

/// Edit distance with adjacent transpositions (optimal string alignment), in characters.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::template::{Template, Vars};

    fn tool_vars() -> Vars {
        let ctx = Value::from_json_str(
            r#"{"user_input": {"input": "hi", "additional_info": {"lang": "zh"}}, "turn": 3}"#,
        )
        .expect("json");
        let state = Value::from_json_str(r#"{"notes": ["a"], "limit": 2}"#).expect("json");
        Vars::compose(vec![
            (Arc::from("state"), Arc::new(Vars::new(state))),
            (Arc::from("ctx"), Arc::new(Vars::new(ctx))),
        ])
    }

    fn error(engine: Engine, source: &str) -> TemplateError {
        Template::compile(engine, source)
            .expect("compiles")
            .render(&tool_vars())
            .expect_err("fails")
    }

    #[test]
    fn a_misspelt_key_suggests_the_close_one_in_fstring_syntax() {
        let e = error(Engine::Fstring, "Hi\nYou: {ctx[user_input][inptu]}");
        assert_eq!(e.kind(), ErrorKind::KeyError);
        assert_eq!(e.message(), "'inptu'");
        assert_eq!(e.suggestions(), ["ctx[user_input][input]"]);
    }

    #[test]
    fn a_context_key_read_without_ctx_suggests_it_under_ctx() {
        let e = error(Engine::Fstring, "{user_input[input]}");
        assert_eq!(e.message(), "'user_input'");
        assert_eq!(e.suggestions(), ["ctx[user_input][input]"]);
    }

    #[test]
    fn an_attribute_on_a_dict_suggests_the_key() {
        let e = error(Engine::Fstring, "{ctx.turn}");
        assert_eq!(e.kind(), ErrorKind::AttributeError);
        assert_eq!(e.suggestions(), ["ctx[turn]"]);
    }

    #[test]
    fn a_small_dict_offers_what_it_has_even_when_nothing_is_close() {
        let e = error(Engine::Fstring, "{state[zzz]}");
        // "zzz" is 5 edits from both; the dict's order breaks the tie.
        assert_eq!(e.suggestions(), ["state[notes]", "state[limit]"]);
    }

    #[test]
    fn jinja_undefined_attribute_suggests_in_jinja_syntax() {
        let e = error(Engine::Jinja2, "A\n{{ ctx.user_inptu.input }}");
        assert_eq!(e.kind(), ErrorKind::UndefinedError, "{e:?}");
        // The whole path `ctx.user_inptu.input`: bytes 5 to 25 ("A\n{{ " is 5 bytes), line 2,
        // column 4.
        assert_eq!(
            (e.line(), e.column(), e.range()),
            (Some(2), Some(4), Some(5..25)),
            "{e:?}"
        );
        assert_eq!(e.suggestions(), ["ctx.user_input.input"]);
    }

    #[test]
    fn jinja_loop_variables_are_not_suggested_against() {
        let e = error(
            Engine::Jinja2,
            "{% for n in state.notes %}{{ n.x.y }}{% endfor %}",
        );
        assert!(e.suggestions().is_empty(), "{:?}", e.suggestions());
    }

    #[test]
    fn errors_that_are_not_about_a_name_suggest_nothing() {
        let e = error(Engine::Fstring, "{ctx[turn]:s}");
        assert_eq!(e.kind(), ErrorKind::ValueError);
        assert!(e.suggestions().is_empty());
    }

    #[test]
    fn paths_are_read_in_each_engines_syntax() {
        assert_eq!(
            fstring_field("{a[b][0].c!r:>4}"),
            Some((
                "a".to_owned(),
                vec![
                    Step::Key("b".into()),
                    Step::Index(0),
                    Step::Attr("c".into())
                ]
            ))
        );
        assert_eq!(
            jinja_paths("{{ a.b['c d'][1] | upper ~ e.f }}"),
            vec![
                (
                    "a".to_owned(),
                    vec![
                        Step::Key("b".into()),
                        Step::Key("c d".into()),
                        Step::Index(1)
                    ]
                ),
                ("e".to_owned(), vec![Step::Key("f".into())]),
            ]
        );
        assert_eq!(
            write(
                Engine::Jinja2,
                &[Step::Key("d".into()), Step::Key("items".into())]
            )
            .as_deref(),
            Some("d['items']")
        );
    }

    #[test]
    fn a_jinja_path_is_read_from_its_name() {
        let src = "{{ a['x y'].b.c }}";
        assert_eq!(path_start(src, src.find(".b").expect("at")), 3);
        assert_eq!(path_start("{{ f(x).y }}", 7), 7);
    }

    #[test]
    fn distance_counts_a_transposition_once() {
        assert_eq!(distance("inptu", "input"), 1);
        assert_eq!(distance("", "abc"), 3);
    }
}
