//! Jinja2's `urlize` filter (`jinja2.utils.urlize` with the default policies: `rel="noopener"`,
//! no target, no extra schemes), ported step for step.

use std::sync::LazyLock;

use minijinja::value::Value as JValue;
use minijinja::{Error, State};
use regex::Regex;

use super::errors::py_err;
use super::filters::{arg, bind, html_escape};
use super::print::py_str;
use super::pyops::{as_int, truthy};
use crate::template::ErrorKind;

// The patterns are constants: a failure to compile one is a bug caught by every urlize test.
fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| panic!("urlize pattern {pattern:?}: {e}"))
}

static HTTP: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?ix)
    ^(
        (https?://|www\.)(([\w%-]+\.)+)?([a-z]{2,63}|xn--[\w%]{2,59})
      | ([\w%-]{2,63}\.)+(com|net|int|edu|gov|org|info|mil)
      | (https?://)((\d{1,3}(\.\d{1,3}){3})|(\[([\da-f]{0,4}:){2}([\da-f]{0,4}:?){1,6}\]))
    )
    (?::\d{1,5})?
    (?:[/?\#]\S*)?
    $")
});
static EMAIL: LazyLock<Regex> = LazyLock::new(|| re(r"^\S+@\w[\w.-]*\.\w+$"));
static SCHEME: LazyLock<Regex> = LazyLock::new(|| re(r"^[\w.+-]{2,}:/{0,2}$"));
static SPACE: LazyLock<Regex> = LazyLock::new(|| re(r"\s+"));
static HEAD: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:[(<]|&lt;)+"));
static TAIL: LazyLock<Regex> = LazyLock::new(|| re(r"(?:[)>.,\n]|&gt;)+$"));

pub(crate) fn urlize(state: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind(
        "do_urlize",
        args,
        &[
            "value",
            "trim_url_limit",
            "nofollow",
            "target",
            "rel",
            "extra_schemes",
        ],
        1,
    )?;
    let value = arg(&b, 0, || JValue::UNDEFINED);
    let limit = arg(&b, 1, JValue::default);
    let limit = if limit.is_none() || limit.is_undefined() {
        None
    } else {
        Some(as_int(&limit).unwrap_or(0).max(0) as usize)
    };
    let mut rel: Vec<String> = match arg(&b, 4, JValue::default) {
        v if v.is_none() || v.is_undefined() => Vec::new(),
        v => py_str(&v)?.split_whitespace().map(str::to_owned).collect(),
    };
    if truthy(&arg(&b, 2, || JValue::from(false))) {
        rel.push("nofollow".into());
    }
    rel.push("noopener".into()); // the default `urlize.rel` policy
    rel.sort();
    rel.dedup();
    let target = match arg(&b, 3, JValue::default) {
        v if v.is_none() || v.is_undefined() => None,
        v => Some(py_str(&v)?),
    };
    let schemes: Vec<String> = match arg(&b, 5, JValue::default) {
        v if v.is_none() || v.is_undefined() => Vec::new(),
        v => v
            .try_iter()?
            .map(|s| py_str(&s))
            .collect::<Result<_, _>>()?,
    };
    for s in &schemes {
        if !SCHEME.is_match(s) {
            return Err(py_err(
                ErrorKind::TemplateRuntimeError,
                format!(
                    "{} is not a valid URI scheme prefix.",
                    super::print::py_repr(&JValue::from(s.as_str()))?
                ),
            ));
        }
    }
    let text = if value.is_safe() {
        py_str(&value)?
    } else {
        html_escape(&py_str(&value)?)
    };
    let rel_attr = format!(" rel=\"{}\"", html_escape(&rel.join(" ")));
    let target_attr = target
        .filter(|t| !t.is_empty())
        .map(|t| format!(" target=\"{}\"", html_escape(&t)))
        .unwrap_or_default();
    let trim = |x: &str| -> String {
        match limit {
            Some(n) if x.chars().count() > n => {
                format!("{}...", x.chars().take(n).collect::<String>())
            }
            _ => x.to_owned(),
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for m in SPACE.find_iter(&text) {
        out.push_str(&word(
            &text[last..m.start()],
            &rel_attr,
            &target_attr,
            &schemes,
            &trim,
        ));
        out.push_str(m.as_str());
        last = m.end();
    }
    out.push_str(&word(
        &text[last..],
        &rel_attr,
        &target_attr,
        &schemes,
        &trim,
    ));
    Ok(super::markup::markup_if_on(state, out))
}

fn word(
    word: &str,
    rel_attr: &str,
    target_attr: &str,
    schemes: &[String],
    trim: &dyn Fn(&str) -> String,
) -> String {
    let (mut head, mut middle, mut tail) = ("", word.to_owned(), String::new());
    if let Some(m) = HEAD.find(word) {
        head = &word[..m.end()];
        middle = word[m.end()..].to_owned();
    }
    if let Some(m) = TAIL.find(&middle) {
        tail = middle[m.start()..].to_owned();
        middle.truncate(m.start());
    }
    // Prefer balancing parentheses in URLs to dropping a trailing one, as Jinja2 does.
    for (start, end) in [("(", ")"), ("<", ">"), ("&lt;", "&gt;")] {
        let starts = middle.matches(start).count();
        if starts <= middle.matches(end).count() {
            continue;
        }
        for _ in 0..starts.min(tail.matches(end).count()) {
            let Some(i) = tail.find(end) else { break };
            let cut = i + end.len();
            middle.push_str(&tail[..cut]);
            tail = tail[cut..].to_owned();
        }
    }
    let middle = if HTTP.is_match(&middle) {
        if middle.starts_with("https://") || middle.starts_with("http://") {
            format!(
                "<a href=\"{middle}\"{rel_attr}{target_attr}>{}</a>",
                trim(&middle)
            )
        } else {
            format!(
                "<a href=\"https://{middle}\"{rel_attr}{target_attr}>{}</a>",
                trim(&middle)
            )
        }
    } else if let Some(addr) = middle.strip_prefix("mailto:").filter(|a| EMAIL.is_match(a)) {
        format!("<a href=\"{middle}\">{addr}</a>")
    } else if middle.contains('@')
        && !middle.starts_with("www.")
        && !middle.starts_with('@')
        && !middle.contains(':')
        && EMAIL.is_match(&middle)
    {
        format!("<a href=\"mailto:{middle}\">{middle}</a>")
    } else {
        let mut m = middle;
        for scheme in schemes {
            if m != *scheme && m.starts_with(scheme.as_str()) {
                m = format!("<a href=\"{m}\"{rel_attr}{target_attr}>{m}</a>");
            }
        }
        m
    };
    format!("{head}{middle}{tail}")
}
