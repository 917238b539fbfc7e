//! Jinja2's string and scalar filters, written to its definitions (`jinja2/filters.py`) with
//! Python's string semantics. Sequence filters live in `seqfilters.rs`.

use minijinja::value::{Kwargs, Rest, Value as JValue, ValueKind};
use minijinja::{Environment, Error, State};

use super::errors::{checked_width, runtime_error, type_error, value_error};
use super::print::{as_f64, py_repr, py_str};
use super::pyops::{as_int, as_num, index_arg, is_float, is_int, py_len, truthy};
use super::undefined::py_type_name;
use super::{json_dumps, percent, pprint, seqfilters};
use crate::py::{float_repr, html, numbers, str_methods as pystr, textwrap};

pub(crate) type FilterFn = fn(&State, &[JValue]) -> Result<JValue, Error>;

/// Registers every Jinja2 builtin filter, replacing minijinja's where both exist.
pub(crate) fn register(env: &mut Environment<'static>) {
    for &(name, f) in STRING_FILTERS.iter().chain(seqfilters::FILTERS.iter()) {
        env.add_filter(
            name,
            move |state: &State, args: Rest<JValue>, kwargs: Kwargs| {
                f(state, &with_kwargs(args, kwargs))
            },
        );
    }
}

/// Our functions take Python-style argument lists: positional values, then the keyword
/// arguments (if any) as one trailing kwargs value.
pub(crate) fn with_kwargs(args: Rest<JValue>, kwargs: Kwargs) -> Vec<JValue> {
    let mut all = args.0;
    if kwargs.args().next().is_some() {
        all.push(JValue::from(kwargs));
    }
    all
}

/// A Jinja2 builtin filter by name (for `map`, and the compile-time name check).
pub(crate) fn lookup(name: &str) -> Option<FilterFn> {
    STRING_FILTERS
        .iter()
        .chain(seqfilters::FILTERS.iter())
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
}

const STRING_FILTERS: &[(&str, FilterFn)] = &[
    ("abs", abs),
    ("capitalize", capitalize),
    ("center", center),
    ("count", length),
    ("d", default),
    ("default", default),
    ("e", escape),
    ("escape", escape),
    ("filesizeformat", filesizeformat),
    ("float", float),
    ("forceescape", forceescape),
    ("format", format),
    ("indent", indent),
    ("int", int),
    ("length", length),
    ("lower", lower),
    ("pprint", pprint),
    ("replace", replace),
    ("safe", safe),
    ("string", string),
    ("striptags", striptags),
    ("title", title),
    ("tojson", tojson),
    ("trim", trim),
    ("truncate", truncate),
    ("upper", upper),
    ("urlencode", urlencode),
    ("urlize", super::urlize::urlize),
    ("wordcount", wordcount),
    ("wordwrap", wordwrap),
    ("round", round),
    ("xmlattr", xmlattr),
];

/// Binds positional and keyword arguments to Python-style parameters. `params[0]` is the filtered
/// value; the first `required` parameters must be given.
pub(crate) fn bind(
    fname: &str,
    args: &[JValue],
    params: &[&str],
    required: usize,
) -> Result<Vec<Option<JValue>>, Error> {
    let (positional, kwargs) = match args.split_last() {
        Some((last, rest)) if last.is_kwargs() => (rest, Some(last)),
        _ => (args, None),
    };
    if positional.len() > params.len() {
        let takes = if required == params.len() {
            format!("{}", params.len())
        } else {
            format!("from {} to {}", required, params.len())
        };
        let plural = if params.len() == 1 && required == 1 {
            ""
        } else {
            "s"
        };
        return Err(type_error(format!(
            "{fname}() takes {takes} positional argument{plural} but {} were given",
            positional.len()
        )));
    }
    let mut out: Vec<Option<JValue>> = vec![None; params.len()];
    for (slot, v) in out.iter_mut().zip(positional) {
        *slot = Some(v.clone());
    }
    if let Some(kwargs) = kwargs {
        for key in kwargs.try_iter()? {
            let name = key.as_str().unwrap_or_default();
            let value = kwargs.get_item(&key)?;
            match params.iter().position(|p| *p == name) {
                Some(i) if out[i].is_some() => {
                    return Err(type_error(format!(
                        "{fname}() got multiple values for argument '{name}'"
                    )))
                }
                Some(i) => out[i] = Some(value),
                None => {
                    return Err(type_error(format!(
                        "{fname}() got an unexpected keyword argument '{name}'"
                    )))
                }
            }
        }
    }
    let missing: Vec<&str> = params[..required.min(params.len())]
        .iter()
        .zip(&out)
        .filter(|(_, v)| v.is_none())
        .map(|(p, _)| *p)
        .collect();
    if let Some(first) = missing.first() {
        return Err(type_error(if missing.len() == 1 {
            format!("{fname}() missing 1 required positional argument: '{first}'")
        } else {
            format!(
                "{fname}() missing {} required positional arguments: {}",
                missing.len(),
                missing
                    .iter()
                    .map(|m| format!("'{m}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }));
    }
    Ok(out)
}

/// The bound value at `i`, or `default`.
pub(crate) fn arg(bound: &[Option<JValue>], i: usize, default: impl FnOnce() -> JValue) -> JValue {
    bound.get(i).cloned().flatten().unwrap_or_else(default)
}

/// `soft_str` of the filtered value.
fn sval(bound: &[Option<JValue>]) -> Result<String, Error> {
    py_str(&arg(bound, 0, || JValue::UNDEFINED))
}

fn keep_safety(input: &JValue, s: String) -> JValue {
    if input.is_safe() {
        JValue::from_safe_string(s)
    } else {
        JValue::from(s)
    }
}

/// An `int` argument (Python accepts bools too).
pub(crate) fn int_arg(v: &JValue, _name: &str) -> Result<i64, Error> {
    index_arg(v, "")
}

fn upper(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_upper", args, &["s"], 1)?;
    Ok(keep_safety(
        &arg(&b, 0, JValue::default),
        pystr::upper(&sval(&b)?),
    ))
}

fn lower(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_lower", args, &["s"], 1)?;
    Ok(keep_safety(
        &arg(&b, 0, JValue::default),
        pystr::lower(&sval(&b)?),
    ))
}

fn capitalize(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_capitalize", args, &["s"], 1)?;
    Ok(keep_safety(
        &arg(&b, 0, JValue::default),
        pystr::capitalize(&sval(&b)?),
    ))
}

/// Jinja2's title: words start after `-`, whitespace, `(`, `{`, `[` or `<`.
fn title(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_title", args, &["s"], 1)?;
    let s = sval(&b)?;
    let mut out = String::with_capacity(s.len());
    let mut at_start = true;
    for c in s.chars() {
        let sep = c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || c.is_whitespace();
        if sep {
            out.push(c);
            at_start = true;
        } else if at_start {
            out.extend(c.to_uppercase());
            at_start = false;
        } else {
            out.extend(c.to_lowercase());
        }
    }
    // Jinja2 joins the words with `"".join`: a plain str even for Markup.
    Ok(JValue::from(out))
}

fn trim(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_trim", args, &["value", "chars"], 1)?;
    let s = sval(&b)?;
    let chars = arg(&b, 1, || JValue::from(()));
    let chars = if chars.is_none() {
        None
    } else {
        Some(chars.as_str().map(str::to_owned).ok_or_else(|| {
            type_error(format!(
                "strip arg must be None or str, not {}",
                py_type_name(&chars)
            ))
        })?)
    };
    Ok(keep_safety(
        &arg(&b, 0, JValue::default),
        pystr::strip(&s, chars.as_deref(), true, true).to_owned(),
    ))
}

fn default(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind(
        "do_default",
        args,
        &["value", "default_value", "boolean"],
        1,
    )?;
    let value = arg(&b, 0, JValue::default);
    let boolean = truthy(&arg(&b, 2, || JValue::from(false)));
    if value.is_undefined() || (boolean && !truthy(&value)) {
        Ok(arg(&b, 1, || JValue::from("")))
    } else {
        Ok(value)
    }
}

fn length(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("len", args, &["obj"], 1)?;
    Ok(JValue::from(py_len(&arg(&b, 0, JValue::default))?))
}

fn string(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("soft_str", args, &["s"], 1)?;
    let v = arg(&b, 0, JValue::default);
    if v.kind() == ValueKind::String {
        return Ok(v);
    }
    Ok(JValue::from(py_str(&v)?))
}

fn safe(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_mark_safe", args, &["value"], 1)?;
    Ok(JValue::from_safe_string(sval(&b)?))
}

pub(crate) fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn escape(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("escape", args, &["s"], 1)?;
    let v = arg(&b, 0, JValue::default);
    if v.is_safe() {
        return Ok(v);
    }
    // markupsafe escapes `str(None)` as "None"; Undefined has no `__html__`, so "".
    Ok(JValue::from_safe_string(html_escape(&py_str(&v)?)))
}

fn forceescape(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_forceescape", args, &["value"], 1)?;
    Ok(JValue::from_safe_string(html_escape(&sval(&b)?)))
}

/// Refuses to build a string of `bytes` bytes past the limit, and pays fuel for it up front.
pub(crate) fn ensure_size(state: &State, bytes: usize) -> Result<(), Error> {
    const MAX_BUILT: usize = 32 * 1024 * 1024;
    if bytes > MAX_BUILT {
        return Err(super::errors::limit(format!(
            "result of {bytes} bytes is larger than the limit of {MAX_BUILT}"
        )));
    }
    state.consume_fuel((bytes / 64) as u64)
}

fn replace(state: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_replace", args, &["s", "old", "new", "count"], 3)?;
    let s = sval(&b)?;
    let old = py_str(&arg(&b, 1, JValue::default))?;
    let new = py_str(&arg(&b, 2, JValue::default))?;
    let count = arg(&b, 3, || JValue::from(()));
    let count = if count.is_none() {
        -1
    } else {
        int_arg(&count, "count")?
    };
    let hits = if old.is_empty() {
        s.chars().count() + 1
    } else {
        s.matches(old.as_str()).count()
    };
    ensure_size(
        state,
        s.len().saturating_add(hits.saturating_mul(new.len())),
    )?;
    let input = arg(&b, 0, JValue::default);
    if !super::markup::autoescape_on(state) {
        // `str(s).replace(str(old), str(new))`: Markup in, plain str out.
        return Ok(JValue::from(pystr::replace(&s, &old, &new, count)));
    }
    let (old_v, new_v) = (arg(&b, 1, JValue::default), arg(&b, 2, JValue::default));
    if input.is_safe() || old_v.is_safe() || new_v.is_safe() {
        // A plain `s` is escaped into Markup first; `Markup.replace` escapes the new text.
        let s = super::markup::escaped_text(&input)?;
        let new = super::markup::escaped_text(&new_v)?;
        return Ok(JValue::from_safe_string(pystr::replace(
            &s, &old, &new, count,
        )));
    }
    Ok(JValue::from(pystr::replace(&s, &old, &new, count)))
}

fn truncate(state: &State, args: &[JValue]) -> Result<JValue, Error> {
    let _ = state;
    let b = bind(
        "do_truncate",
        args,
        &["s", "length", "killwords", "end", "leeway"],
        1,
    )?;
    let s = sval(&b)?;
    let length = int_arg(&arg(&b, 1, || JValue::from(255)), "length")?;
    let killwords = truthy(&arg(&b, 2, || JValue::from(false)));
    let end = py_str(&arg(&b, 3, || JValue::from("...")))?;
    let leeway = arg(&b, 4, || JValue::from(()));
    let leeway = if leeway.is_none() {
        5
    } else {
        int_arg(&leeway, "leeway")?
    };
    let end_len = end.chars().count() as i64;
    if length < end_len {
        return Err(super::errors::py_err(
            crate::template::ErrorKind::TemplateRuntimeError,
            format!("expected length >= {end_len}, got {length}"),
        ));
    }
    if leeway < 0 {
        return Err(runtime_error(format!("expected leeway >= 0, got {leeway}")));
    }
    let input = arg(&b, 0, JValue::default);
    let chars: Vec<char> = s.chars().collect();
    if chars.len() as i64 <= length.saturating_add(leeway) {
        return Ok(keep_safety(&input, s));
    }
    // A Markup input stays Markup, and `Markup + end` escapes `end`.
    let end = if input.is_safe() {
        html_escape(&end)
    } else {
        end
    };
    let cut: String = chars[..(length - end_len) as usize].iter().collect();
    if killwords {
        return Ok(keep_safety(&input, cut + &end));
    }
    let kept = match cut.rfind(' ') {
        Some(i) => &cut[..i],
        None => &cut[..],
    };
    Ok(keep_safety(&input, format!("{kept}{end}")))
}

fn wordcount(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_wordcount", args, &["s"], 1)?;
    let s = sval(&b)?;
    let mut count = 0;
    let mut in_word = false;
    for c in s.chars() {
        let w = c.is_alphanumeric() || c == '_';
        if w && !in_word {
            count += 1;
        }
        in_word = w;
    }
    Ok(JValue::from(count))
}

fn center(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_center", args, &["value", "width"], 1)?;
    let s = sval(&b)?;
    let width = int_arg(&arg(&b, 1, || JValue::from(80)), "width")?;
    checked_width(usize::try_from(width).unwrap_or(0))?;
    Ok(keep_safety(
        &arg(&b, 0, JValue::default),
        pystr::center(&s, width, ' '),
    ))
}

fn indent(state: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_indent", args, &["s", "width", "first", "blank"], 1)?;
    let mut s = sval(&b)?;
    let width = arg(&b, 1, || JValue::from(4));
    let indention = match width.as_str() {
        Some(w) => w.to_owned(),
        None => " ".repeat(checked_width(
            usize::try_from(int_arg(&width, "width")?).unwrap_or(0),
        )?),
    };
    let first = truthy(&arg(&b, 2, || JValue::from(false)));
    let blank = truthy(&arg(&b, 3, || JValue::from(false)));
    s.push('\n');
    let lines = pystr::splitlines(&s, false);
    ensure_size(
        state,
        s.len()
            .saturating_add(lines.len().saturating_mul(indention.len())),
    )?;
    let mut rv = if blank {
        lines.join(&format!("\n{indention}"))
    } else {
        let mut it = lines.into_iter();
        let mut rv = it.next().unwrap_or_default();
        let rest: Vec<String> = it
            .map(|l| {
                if l.is_empty() {
                    l
                } else {
                    format!("{indention}{l}")
                }
            })
            .collect();
        if !rest.is_empty() {
            rv.push('\n');
            rv.push_str(&rest.join("\n"));
        }
        rv
    };
    if first {
        rv = format!("{indention}{rv}");
    }
    Ok(keep_safety(&arg(&b, 0, JValue::default), rv))
}

fn wordwrap(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind(
        "do_wordwrap",
        args,
        &[
            "s",
            "width",
            "break_long_words",
            "wrapstring",
            "break_on_hyphens",
        ],
        1,
    )?;
    let s = sval(&b)?;
    let width = int_arg(&arg(&b, 1, || JValue::from(79)), "width")?;
    let break_long = truthy(&arg(&b, 2, || JValue::from(true)));
    let wrapstring = arg(&b, 3, || JValue::from(()));
    let wrapstring = if wrapstring.is_none() {
        "\n".to_owned()
    } else {
        py_str(&wrapstring)?
    };
    let hyphens = truthy(&arg(&b, 4, || JValue::from(true)));
    if width <= 0 {
        return Err(value_error(format!("invalid width {width} (must be > 0)")));
    }
    let paragraphs: Vec<String> = pystr::splitlines(&s, false)
        .iter()
        .map(|line| textwrap::wrap(line, width as usize, break_long, hyphens).join(&wrapstring))
        .collect();
    Ok(JValue::from(paragraphs.join(&wrapstring)))
}

fn striptags(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_striptags", args, &["value"], 1)?;
    let value = sval(&b)?;
    let mut parts = String::new();
    let mut pos = 0;
    let mut found = false;
    while let Some(rel) = value[pos..].find('<') {
        let start = pos + rel;
        let end = if value[start..].starts_with("<!--") {
            match value[start + 4..].find("-->") {
                Some(e) => start + 4 + e + 3,
                None => break,
            }
        } else {
            match value[start..].find('>') {
                Some(e) => start + e + 1,
                None => break,
            }
        };
        parts.push_str(&value[pos..start]);
        pos = end;
        found = true;
    }
    let value = if found {
        parts.push_str(&value[pos..]);
        parts
    } else {
        value
    };
    let collapsed = value
        .split(pystr::is_space)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    Ok(JValue::from(html::unescape(&collapsed)))
}

fn urlencode(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_urlencode", args, &["value"], 1)?;
    let v = arg(&b, 0, JValue::default);
    match v.kind() {
        ValueKind::Map => {
            let mut parts = Vec::new();
            for k in v.try_iter()? {
                let item = v.get_item(&k)?;
                parts.push(format!(
                    "{}={}",
                    url_quote(&py_str(&k)?, true),
                    url_quote(&py_str(&item)?, true)
                ));
            }
            Ok(JValue::from(parts.join("&")))
        }
        ValueKind::Seq | ValueKind::Iterable => {
            let mut parts = Vec::new();
            for pair in v.try_iter()? {
                let items = super::pyops::py_list(&pair)?;
                let [k, item] = items.as_slice() else {
                    return Err(value_error(format!(
                        "too many values to unpack (expected 2, got {})",
                        items.len()
                    )));
                };
                parts.push(format!(
                    "{}={}",
                    url_quote(&py_str(k)?, true),
                    url_quote(&py_str(item)?, true)
                ));
            }
            Ok(JValue::from(parts.join("&")))
        }
        _ => Ok(JValue::from(url_quote(&py_str(&v)?, false))),
    }
}

/// `urllib.parse.quote` with `safe="/"` (or nothing, with spaces as `+`, for query strings).
fn url_quote(s: &str, for_qs: bool) -> String {
    let mut out = String::new();
    for &byte in s.as_bytes() {
        let c = byte as char;
        if c.is_ascii_alphanumeric() || "_.-~".contains(c) || (!for_qs && c == '/') {
            out.push(c);
        } else if for_qs && c == ' ' {
            out.push('+');
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn abs(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("abs", args, &["x"], 1)?;
    let v = arg(&b, 0, JValue::default);
    if let Some(i) = as_int(&v) {
        return Ok(JValue::from(i.abs()));
    }
    if let Some(f) = as_num(&v) {
        return Ok(JValue::from(f.abs()));
    }
    Err(type_error(format!(
        "bad operand type for abs(): '{}'",
        py_type_name(&v)
    )))
}

fn int(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_int", args, &["value", "default", "base"], 1)?;
    let v = arg(&b, 0, JValue::default);
    let default = arg(&b, 1, || JValue::from(0));
    let base = int_arg(&arg(&b, 2, || JValue::from(10)), "base")?;
    if let Some(s) = v.as_str() {
        if let Some(i) = u32::try_from(base)
            .ok()
            .filter(|b| *b == 0 || (2..=36).contains(b))
            .and_then(|b| numbers::parse_int(s, b))
        {
            return Ok(JValue::from(i));
        }
        return Ok(match numbers::parse_float(s) {
            Some(f) if f.is_finite() => float_to_int(f),
            _ => default,
        });
    }
    if let Some(i) = as_int(&v) {
        return Ok(JValue::from(i));
    }
    if is_float(&v) {
        return match as_f64(&v) {
            Some(f) if f.is_finite() => Ok(float_to_int(f)),
            // `int(inf)` raises OverflowError, which Jinja2's filter does not catch.
            Some(f) if f.is_infinite() => Err(super::errors::py_err(
                crate::template::ErrorKind::OverflowError,
                "cannot convert float infinity to integer",
            )),
            _ => Ok(default),
        };
    }
    if v.downcast_object_ref::<super::convert::BigIntObj>()
        .is_some()
    {
        return Ok(v);
    }
    Ok(default)
}

fn float_to_int(f: f64) -> JValue {
    let t = f.trunc();
    if t.abs() < 1.0e38 {
        JValue::from(t as i128)
    } else {
        super::convert::bigint_value(
            &num_bigint::BigInt::parse_bytes(format!("{t:.0}").as_bytes(), 10).unwrap_or_default(),
        )
    }
}

fn float(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_float", args, &["value", "default"], 1)?;
    let v = arg(&b, 0, JValue::default);
    let default = arg(&b, 1, || JValue::from(0.0));
    if let Some(s) = v.as_str() {
        return Ok(numbers::parse_float(s).map_or(default, JValue::from));
    }
    match as_num(&v) {
        Some(f) => Ok(JValue::from(f)),
        None => Ok(default),
    }
}

fn round(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_round", args, &["value", "precision", "method"], 1)?;
    let v = arg(&b, 0, JValue::default);
    let precision = int_arg(&arg(&b, 1, || JValue::from(0)), "precision")?;
    let method = py_str(&arg(&b, 2, || JValue::from("common")))?;
    if !matches!(method.as_str(), "common" | "ceil" | "floor") {
        return Err(runtime_error("method must be common, ceil or floor"));
    }
    if method == "common" {
        if let Some(i) = as_int(&v) {
            // round(int, n) stays an int.
            if precision >= 0 {
                return Ok(JValue::from(i));
            }
            let p = 10i128
                .checked_pow(precision.unsigned_abs() as u32)
                .unwrap_or(i128::MAX);
            let q = i.div_euclid(p);
            let r = i.rem_euclid(p);
            let q = if r * 2 > p || (r * 2 == p && q % 2 != 0) {
                q + 1
            } else {
                q
            };
            return Ok(JValue::from(q.saturating_mul(p)));
        }
        let Some(f) = as_num(&v) else {
            return Err(type_error(format!(
                "type {} doesn't define __round__ method",
                py_type_name(&v)
            )));
        };
        return Ok(JValue::from(numbers::round(f, precision)));
    }
    let Some(f) = as_num(&v) else {
        return Err(type_error(format!(
            "unsupported operand type(s) for *: '{}' and 'int'",
            py_type_name(&v)
        )));
    };
    let scale = 10f64.powi(precision.clamp(-400, 400) as i32);
    let scaled = f * scale;
    let r = if method == "ceil" {
        scaled.ceil()
    } else {
        scaled.floor()
    };
    Ok(JValue::from(r / scale))
}

fn filesizeformat(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_filesizeformat", args, &["value", "binary"], 1)?;
    let v = arg(&b, 0, JValue::default);
    let bytes = match v.as_str() {
        Some(s) => numbers::parse_float(s).ok_or_else(|| {
            value_error(format!(
                "could not convert string to float: {}",
                py_repr(&v).unwrap_or_default()
            ))
        })?,
        None => as_num(&v).ok_or_else(|| {
            type_error(format!(
                "float() argument must be a string or a real number, not '{}'",
                py_type_name(&v)
            ))
        })?,
    };
    let binary = truthy(&arg(&b, 1, || JValue::from(false)));
    let base: f64 = if binary { 1024.0 } else { 1000.0 };
    let prefixes = if binary {
        ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"]
    } else {
        ["kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"]
    };
    if bytes == 1.0 {
        return Ok(JValue::from("1 Byte"));
    }
    if bytes < base {
        let shown = if bytes.is_finite() {
            format!("{}", bytes.trunc() as i128)
        } else {
            float_repr(bytes)
        };
        return Ok(JValue::from(format!("{shown} Bytes")));
    }
    let mut unit = base;
    for (i, prefix) in prefixes.iter().enumerate() {
        unit = base.powi(i as i32 + 2);
        if bytes < unit {
            return Ok(JValue::from(format!("{:.1} {prefix}", base * bytes / unit)));
        }
    }
    Ok(JValue::from(format!(
        "{:.1} {}",
        base * bytes / unit,
        prefixes[7]
    )))
}

fn format(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let (positional, kwargs) = match args.split_last() {
        Some((last, rest)) if last.is_kwargs() => (rest, Some(last.clone())),
        _ => (args, None),
    };
    let Some((value, rest)) = positional.split_first() else {
        return Err(type_error(
            "do_format() missing 1 required positional argument: 'value'",
        ));
    };
    let has_kwargs = kwargs.as_ref().is_some_and(|k| k.len().unwrap_or(0) > 0);
    if !rest.is_empty() && has_kwargs {
        return Err(runtime_error(
            "can't handle positional and keyword arguments at the same time",
        ));
    }
    let fmt = py_str(value)?;
    if value.is_safe() {
        // `Markup % args` escapes the arguments.
        return match kwargs.filter(|_| has_kwargs) {
            Some(map) => super::markup::percent(&fmt, &map),
            None => super::markup::percent(
                &fmt,
                &JValue::from(minijinja::value::Tuple::from(rest.to_vec())),
            ),
        };
    }
    let out = match kwargs.filter(|_| has_kwargs) {
        Some(map) => percent::percent_format_map(&fmt, &map)?,
        None => percent::percent_format(&fmt, rest)?,
    };
    Ok(JValue::from(out))
}

fn pprint(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_pprint", args, &["value"], 1)?;
    Ok(JValue::from(pprint::pformat(&arg(&b, 0, JValue::default))?))
}

fn tojson(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_tojson", args, &["value", "indent"], 1)?;
    let indent = arg(&b, 1, || JValue::from(()));
    let indent = if indent.is_none() {
        None
    } else if let Some(s) = indent.as_str() {
        Some(s.to_owned())
    } else if is_int(&indent) || indent.kind() == ValueKind::Bool {
        Some(" ".repeat(checked_width(
            usize::try_from(int_arg(&indent, "indent")?).unwrap_or(0),
        )?))
    } else {
        Some(py_str(&indent)?)
    };
    let json = json_dumps::json_dumps(&arg(&b, 0, JValue::default), indent.as_deref())?;
    let safe = json
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\'', "\\u0027");
    Ok(JValue::from_safe_string(safe))
}

fn xmlattr(state: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_xmlattr", args, &["d", "autospace"], 1)?;
    let d = arg(&b, 0, JValue::default);
    let autospace = truthy(&arg(&b, 1, || JValue::from(true)));
    let mut items = Vec::new();
    for key in d.try_iter()? {
        let value = d.get_item(&key)?;
        if value.is_none() || value.is_undefined() {
            continue;
        }
        if key.kind() != ValueKind::String {
            // Jinja2 checks the key with a regex search, which refuses anything but a string
            // (the class's short name: `Undefined`, not its module path).
            let name = match key.kind() {
                ValueKind::Undefined => "Undefined",
                _ => py_type_name(&key),
            };
            return Err(type_error(format!(
                "expected string or bytes-like object, got '{name}'"
            )));
        }
        let k = py_str(&key)?;
        if k.is_empty() || k.chars().any(|c| c.is_whitespace() || "/>=".contains(c)) {
            return Err(value_error(format!(
                "Invalid character in attribute name: {}",
                py_repr(&key)?
            )));
        }
        items.push(format!(
            "{}=\"{}\"",
            html_escape(&k),
            html_escape(&py_str(&value)?)
        ));
    }
    let mut rv = items.join(" ");
    if autospace && !rv.is_empty() {
        rv.insert(0, ' ');
    }
    Ok(super::markup::markup_if_on(state, rv))
}
