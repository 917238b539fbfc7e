//! Python methods on `str`, `dict` and `list` values (`name.upper()`, `d.items()`), which
//! Jinja2 exposes because its values are Python objects.

use minijinja::value::{Value as JValue, ValueKind};
use minijinja::{Error, ErrorKind as MjKind, State};

use super::errors::{type_error, undefined_error, value_error};
use super::filters::{arg, bind};
use super::objects::{DictView, ViewKind};
use super::pyops::{index_arg, py_eq, truthy};
use super::str_format::str_format;
use super::undefined::{py_type_name, type_repr};
use crate::py::str_methods as pystr;

pub(crate) fn call_method(
    state: &mut State,
    value: &JValue,
    method: &str,
    args: &[JValue],
) -> Result<JValue, Error> {
    if let Some(rv) = super::markup::call_method(state, value, method, args) {
        return rv;
    }
    let rv = match value.kind() {
        ValueKind::String => str_method(value, method, args),
        ValueKind::Map if py_type_name(value) == "dict" => dict_method(value, method, args),
        ValueKind::Seq if py_type_name(value) == "list" => list_method(value, method, args),
        ValueKind::Seq if value.is_tuple() && matches!(method, "count" | "index") => {
            list_method(value, method, args)
        }
        _ => None,
    };
    match rv {
        Some(r) => r,
        None => {
            // pycompat covers the rest of the str predicates (`isalnum`, ...).
            if value.kind() == ValueKind::String {
                match minijinja_contrib::pycompat::unknown_method_callback(
                    state, value, method, args,
                ) {
                    Err(e) if e.kind() == MjKind::UnknownMethod => {}
                    other => return other,
                }
            }
            if value.is_undefined() {
                return Err(super::errors::undefined_use(value));
            }
            Err(undefined_error(format!(
                "'{}' has no attribute '{method}'",
                type_repr(value)
            )))
        }
    }
}

fn strs(v: &JValue, what: &str) -> Result<String, Error> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| type_error(format!("{what} must be str, not {}", py_type_name(v))))
}

fn opt_chars(b: &[Option<JValue>], i: usize) -> Result<Option<String>, Error> {
    let v = arg(b, i, || JValue::from(()));
    if v.is_none() {
        Ok(None)
    } else {
        Ok(Some(v.as_str().map(str::to_owned).ok_or_else(|| {
            type_error(format!(
                "strip arg must be None or str, not {}",
                py_type_name(&v)
            ))
        })?))
    }
}

fn str_list(items: Vec<String>) -> JValue {
    JValue::from(items.into_iter().map(JValue::from).collect::<Vec<_>>())
}

/// Python's `str.split(sep, maxsplit)`.
fn py_split(s: &str, sep: Option<&str>, maxsplit: i64) -> Result<Vec<String>, Error> {
    let limit = if maxsplit < 0 {
        usize::MAX
    } else {
        maxsplit as usize
    };
    match sep {
        Some("") => Err(value_error("empty separator")),
        Some(sep) => {
            if limit == usize::MAX {
                Ok(s.split(sep).map(str::to_owned).collect())
            } else {
                Ok(s.splitn(limit.saturating_add(1), sep)
                    .map(str::to_owned)
                    .collect())
            }
        }
        None => {
            let mut out = Vec::new();
            let mut rest = s.trim_start_matches(pystr::is_space);
            while !rest.is_empty() {
                if out.len() == limit {
                    out.push(rest.to_owned());
                    break;
                }
                let end = rest.find(pystr::is_space).unwrap_or(rest.len());
                out.push(rest[..end].to_owned());
                rest = rest[end..].trim_start_matches(pystr::is_space);
            }
            Ok(out)
        }
    }
}

fn py_rsplit(s: &str, sep: Option<&str>, maxsplit: i64) -> Result<Vec<String>, Error> {
    if maxsplit < 0 {
        return py_split(s, sep, maxsplit);
    }
    match sep {
        Some("") => Err(value_error("empty separator")),
        Some(sep) => {
            let mut v: Vec<String> = s
                .rsplitn(maxsplit as usize + 1, sep)
                .map(str::to_owned)
                .collect();
            v.reverse();
            Ok(v)
        }
        None => {
            let mut out = Vec::new();
            let mut rest = s.trim_end_matches(pystr::is_space);
            while !rest.is_empty() {
                if out.len() as i64 == maxsplit {
                    out.push(rest.to_owned());
                    break;
                }
                let start = rest.rfind(pystr::is_space).map_or(0, |i| {
                    i + rest[i..].chars().next().map_or(1, char::len_utf8)
                });
                out.push(rest[start..].to_owned());
                rest = rest[..start].trim_end_matches(pystr::is_space);
            }
            out.reverse();
            Ok(out)
        }
    }
}

/// Character-index slice bounds the way `str.find(sub, start, end)` takes them.
fn char_bounds(s: &str, b: &[Option<JValue>], i: usize) -> Result<(usize, usize), Error> {
    let n = s.chars().count() as i64;
    let norm = |v: Option<JValue>, default: i64| -> Result<i64, Error> {
        match v {
            Some(v) if !v.is_none() => {
                let x = index_arg(&v, "")?;
                Ok(if x < 0 { (x + n).max(0) } else { x.min(n) })
            }
            _ => Ok(default),
        }
    };
    let start = norm(b.get(i).cloned().flatten(), 0)?;
    let end = norm(b.get(i + 1).cloned().flatten(), n)?;
    let to_byte = |ci: i64| {
        s.char_indices()
            .nth(ci as usize)
            .map_or(s.len(), |(bi, _)| bi)
    };
    Ok((to_byte(start), to_byte(end.max(start))))
}

fn prefix_test(s: &str, b: &[Option<JValue>], name: &str, ends: bool) -> Result<JValue, Error> {
    let (start, end) = char_bounds(s, b, 2)?;
    let hay = &s[start..end.max(start)];
    let probe = arg(b, 1, JValue::default);
    let check = |p: &str| {
        if ends {
            hay.ends_with(p)
        } else {
            hay.starts_with(p)
        }
    };
    if let Some(p) = probe.as_str() {
        return Ok(JValue::from(check(p)));
    }
    if probe.is_tuple() {
        for item in probe.try_iter()? {
            let p = strs(&item, "tuple for startswith")?;
            if check(&p) {
                return Ok(JValue::from(true));
            }
        }
        return Ok(JValue::from(false));
    }
    Err(type_error(format!(
        "{name} first arg must be str or a tuple of str, not {}",
        py_type_name(&probe)
    )))
}

fn char_pos(s: &str, byte: usize) -> i64 {
    s[..byte].chars().count() as i64
}

fn str_method(v: &JValue, method: &str, args: &[JValue]) -> Option<Result<JValue, Error>> {
    let s = v.as_str().unwrap_or_default();
    let one = |name: &str| bind(&format!("str.{name}"), args, &[], 0);
    let run = || -> Result<JValue, Error> {
        // `bind` counts the receiver as parameter 0, so prepend it.
        let mut full = vec![v.clone()];
        full.extend_from_slice(args);
        let bindp = |params: &[&str], required: usize| bind(method, &full, params, required);
        Ok(match method {
            "upper" => {
                bindp(&["self"], 1)?;
                JValue::from(s.to_uppercase())
            }
            "lower" => {
                bindp(&["self"], 1)?;
                JValue::from(s.to_lowercase())
            }
            "casefold" => {
                bindp(&["self"], 1)?;
                JValue::from(s.to_lowercase())
            }
            "swapcase" => {
                bindp(&["self"], 1)?;
                JValue::from(
                    s.chars()
                        .flat_map(|c| {
                            if c.is_uppercase() {
                                c.to_lowercase().collect::<Vec<_>>()
                            } else {
                                c.to_uppercase().collect::<Vec<_>>()
                            }
                        })
                        .collect::<String>(),
                )
            }
            "capitalize" => {
                bindp(&["self"], 1)?;
                JValue::from(pystr::capitalize(s))
            }
            "title" => {
                bindp(&["self"], 1)?;
                JValue::from(py_title(s))
            }
            "strip" | "lstrip" | "rstrip" => {
                let b = bindp(&["self", "chars"], 1)?;
                let chars = opt_chars(&b, 1)?;
                let (l, r) = match method {
                    "strip" => (true, true),
                    "lstrip" => (true, false),
                    _ => (false, true),
                };
                JValue::from(pystr::strip(s, chars.as_deref(), l, r))
            }
            "split" | "rsplit" => {
                let b = bindp(&["self", "sep", "maxsplit"], 1)?;
                let sep = arg(&b, 1, || JValue::from(()));
                let sep = if sep.is_none() {
                    None
                } else {
                    Some(strs(&sep, "must be str or None")?)
                };
                let maxsplit = index_arg(&arg(&b, 2, || JValue::from(-1)), "")?;
                let parts = if method == "split" {
                    py_split(s, sep.as_deref(), maxsplit)?
                } else {
                    py_rsplit(s, sep.as_deref(), maxsplit)?
                };
                str_list(parts)
            }
            "splitlines" => {
                let b = bindp(&["self", "keepends"], 1)?;
                str_list(pystr::splitlines(
                    s,
                    truthy(&arg(&b, 1, || JValue::from(false))),
                ))
            }
            "replace" => {
                let b = bindp(&["self", "old", "new", "count"], 3)?;
                let old = strs(&arg(&b, 1, JValue::default), "replace() argument 1")?;
                let new = strs(&arg(&b, 2, JValue::default), "replace() argument 2")?;
                let count = index_arg(&arg(&b, 3, || JValue::from(-1)), "")?;
                JValue::from(pystr::replace(s, &old, &new, count))
            }
            "startswith" | "endswith" => {
                let b = bindp(&["self", "prefix", "start", "end"], 2)?;
                prefix_test(s, &b, method, method == "endswith")?
            }
            "find" | "rfind" | "index" | "rindex" | "count" => {
                let b = bindp(&["self", "sub", "start", "end"], 2)?;
                let sub = strs(&arg(&b, 1, JValue::default), "must be str")?;
                let (start, end) = char_bounds(s, &b, 2)?;
                let hay = &s[start..end.max(start)];
                if method == "count" {
                    let n = if sub.is_empty() {
                        hay.chars().count() + 1
                    } else {
                        hay.matches(sub.as_str()).count()
                    };
                    return Ok(JValue::from(n));
                }
                let found = if method.starts_with('r') {
                    hay.rfind(sub.as_str())
                } else {
                    hay.find(sub.as_str())
                };
                match found {
                    Some(i) => JValue::from(char_pos(s, start + i)),
                    None if method.contains("index") => {
                        return Err(value_error("substring not found"))
                    }
                    None => JValue::from(-1),
                }
            }
            "join" => {
                let b = bindp(&["self", "iterable"], 2)?;
                let items = super::pyops::py_list(&arg(&b, 1, JValue::default))?;
                let mut parts = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item.as_str() {
                        Some(x) => parts.push(x.to_owned()),
                        None => {
                            return Err(type_error(format!(
                                "sequence item {i}: expected str instance, {} found",
                                py_type_name(item)
                            )))
                        }
                    }
                }
                JValue::from(parts.join(s))
            }
            "format" => {
                let (positional, kwargs) = match args.split_last() {
                    Some((last, rest)) if last.is_kwargs() => (rest, Some(last)),
                    _ => (args, None),
                };
                JValue::from(str_format(s, positional, kwargs)?)
            }
            "center" | "ljust" | "rjust" => {
                let b = bindp(&["self", "width", "fillchar"], 2)?;
                let width = index_arg(&arg(&b, 1, JValue::default), "")?;
                super::errors::checked_width(usize::try_from(width).unwrap_or(0))?;
                let fill = strs(&arg(&b, 2, || JValue::from(" ")), "fillchar")?;
                let mut fc = fill.chars();
                let (Some(fill), None) = (fc.next(), fc.next()) else {
                    return Err(type_error(
                        "The fill character must be exactly one character long",
                    ));
                };
                let len = s.chars().count() as i64;
                let pad = (width - len).max(0) as usize;
                let fills = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
                JValue::from(match method {
                    "center" => pystr::center(s, width, fill),
                    "ljust" => format!("{s}{}", fills(pad)),
                    _ => format!("{}{s}", fills(pad)),
                })
            }
            "zfill" => {
                let b = bindp(&["self", "width"], 2)?;
                let width = index_arg(&arg(&b, 1, JValue::default), "")?;
                super::errors::checked_width(usize::try_from(width).unwrap_or(0))?;
                let len = s.chars().count() as i64;
                let pad = (width - len).max(0) as usize;
                let (sign, digits) = match s.strip_prefix(['-', '+']) {
                    Some(d) => (&s[..1], d),
                    None => ("", s),
                };
                JValue::from(format!("{sign}{}{digits}", "0".repeat(pad)))
            }
            "partition" | "rpartition" => {
                let b = bindp(&["self", "sep"], 2)?;
                let sep = strs(&arg(&b, 1, JValue::default), "must be str")?;
                if sep.is_empty() {
                    return Err(value_error("empty separator"));
                }
                let found = if method == "partition" {
                    s.find(sep.as_str())
                } else {
                    s.rfind(sep.as_str())
                };
                let parts = match found {
                    Some(i) => [&s[..i], sep.as_str(), &s[i + sep.len()..]],
                    None if method == "partition" => [s, "", ""],
                    None => ["", "", s],
                };
                JValue::from(minijinja::value::Tuple::from(parts.map(JValue::from)))
            }
            "removeprefix" | "removesuffix" => {
                let b = bindp(&["self", "fix"], 2)?;
                let fix = strs(&arg(&b, 1, JValue::default), "must be str")?;
                JValue::from(if method == "removeprefix" {
                    s.strip_prefix(fix.as_str()).unwrap_or(s)
                } else {
                    s.strip_suffix(fix.as_str()).unwrap_or(s)
                })
            }
            "isspace" => {
                one(method)?;
                JValue::from(!s.is_empty() && s.chars().all(pystr::is_space))
            }
            _ => return Err(Error::from(MjKind::UnknownMethod)),
        })
    };
    match run() {
        Err(e) if e.kind() == MjKind::UnknownMethod => None,
        other => Some(other),
    }
}

/// Python's `str.title()`: a letter after a cased letter is lowered, otherwise raised.
fn py_title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_cased = false;
    for c in s.chars() {
        if prev_cased {
            out.extend(c.to_lowercase());
        } else {
            out.extend(c.to_uppercase());
        }
        prev_cased = c.is_lowercase()
            || c.is_uppercase()
            || (c.is_alphabetic() && !c.is_ascii() && c.to_uppercase().next() != Some(c));
    }
    out
}

fn dict_method(v: &JValue, method: &str, args: &[JValue]) -> Option<Result<JValue, Error>> {
    let mut full = vec![v.clone()];
    full.extend_from_slice(args);
    let view = |kind| -> Result<JValue, Error> {
        bind(&format!("dict.{method}"), &full, &["self"], 1)?;
        Ok(JValue::from_object(DictView {
            kind,
            map: v.clone(),
        }))
    };
    Some(match method {
        "items" => view(ViewKind::Items),
        "keys" => view(ViewKind::Keys),
        "values" => view(ViewKind::Values),
        "get" => (|| {
            let b = bind("get", &full, &["self", "key", "default"], 2)?;
            let key = arg(&b, 1, JValue::default);
            let found = v.get_item(&key).unwrap_or_default();
            Ok(if found.is_undefined() {
                arg(&b, 2, || JValue::from(()))
            } else {
                found
            })
        })(),
        "copy" => (|| {
            bind("copy", &full, &["self"], 1)?;
            Ok(v.clone())
        })(),
        _ => return None,
    })
}

fn list_method(v: &JValue, method: &str, args: &[JValue]) -> Option<Result<JValue, Error>> {
    let mut full = vec![v.clone()];
    full.extend_from_slice(args);
    Some(match method {
        "count" => (|| {
            let b = bind("count", &full, &["self", "value"], 2)?;
            let x = arg(&b, 1, JValue::default);
            Ok(JValue::from(v.try_iter()?.filter(|i| py_eq(i, &x)).count()))
        })(),
        "index" => (|| {
            let b = bind("index", &full, &["self", "value"], 2)?;
            let x = arg(&b, 1, JValue::default);
            match v.try_iter()?.position(|i| py_eq(&i, &x)) {
                Some(i) => Ok(JValue::from(i)),
                None if v.is_tuple() => Err(value_error("tuple.index(x): x not in tuple")),
                None => Err(value_error(format!(
                    "{} is not in list",
                    super::print::py_repr(&x)?
                ))),
            }
        })(),
        "copy" => Ok(v.clone()),
        _ => return None,
    })
}
