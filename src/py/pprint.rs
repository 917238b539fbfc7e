//! Python's `pprint.pformat`, as Jinja2's `pprint` filter calls it, over any engine's values
//! ([`PyObject`]).

use super::error::{PyError, PyErrorKind};
use super::object::{Kind, PyObject};
use super::str_methods::{is_space, splitlines};
use super::strings::repr_str;

/// Containers nested deeper than this fail with `LimitExceeded`.
const MAX_DEPTH: usize = 200;

/// `pprint.pformat(v)`: width 80, dict keys sorted.
pub fn pformat<V: PyObject>(v: &V) -> Result<String, V::Error> {
    let mut out = String::new();
    pp_format(&mut out, v, 0, 0, 1)?;
    Ok(out)
}

/// `pprint`'s `_safe_repr`: like repr but with sorted dict keys throughout.
fn safe_repr<V: PyObject>(v: &V, depth: usize) -> Result<String, V::Error> {
    if depth > MAX_DEPTH {
        return Err(PyError::new(
            PyErrorKind::LimitExceeded,
            "value nested too deeply for pprint",
        )
        .into());
    }
    let kind = v.kind();
    match kind {
        Kind::Dict => {
            let items = sorted_items(v)?;
            let parts: Result<Vec<String>, V::Error> = items
                .iter()
                .map(|(k, val)| {
                    Ok(format!(
                        "{}: {}",
                        safe_repr(k, depth + 1)?,
                        safe_repr(val, depth + 1)?
                    ))
                })
                .collect();
            Ok(format!("{{{}}}", parts?.join(", ")))
        }
        Kind::List | Kind::Tuple => {
            let items = v.items()?;
            let parts: Result<Vec<String>, V::Error> =
                items.iter().map(|i| safe_repr(i, depth + 1)).collect();
            let parts = parts?;
            if kind == Kind::Tuple {
                if parts.len() == 1 {
                    Ok(format!("({},)", parts[0]))
                } else {
                    Ok(format!("({})", parts.join(", ")))
                }
            } else {
                Ok(format!("[{}]", parts.join(", ")))
            }
        }
        _ => {
            let mut s = String::new();
            v.write_repr(&mut s, depth)?;
            Ok(s)
        }
    }
}

fn sorted_items<V: PyObject>(v: &V) -> Result<Vec<(V, V)>, V::Error> {
    let mut items = v.dict_items()?;
    // pprint's `_safe_key` falls back to ordering by type name when values do not compare.
    items.sort_by(|a, b| {
        a.0.compare(&b.0)
            .unwrap_or_else(|_| a.0.type_name().cmp(b.0.type_name()))
    });
    Ok(items)
}

const WIDTH: usize = 80;

fn pp_format<V: PyObject>(
    out: &mut String,
    v: &V,
    indent: usize,
    allowance: usize,
    level: usize,
) -> Result<(), V::Error> {
    let rep = safe_repr(v, 0)?;
    let max_width = WIDTH.saturating_sub(indent).saturating_sub(allowance);
    if rep.chars().count() <= max_width || level > 100 {
        out.push_str(&rep);
        return Ok(());
    }
    let kind = v.kind();
    match kind {
        Kind::Dict => {
            out.push('{');
            let items = sorted_items(v)?;
            let ind = indent + 1;
            let last_index = items.len().saturating_sub(1);
            for (i, (k, val)) in items.iter().enumerate() {
                let last = i == last_index;
                let krep = safe_repr(k, 0)?;
                out.push_str(&krep);
                out.push_str(": ");
                pp_format(
                    out,
                    val,
                    ind + krep.chars().count() + 2,
                    if last { allowance + 1 } else { 1 },
                    level + 1,
                )?;
                if !last {
                    out.push_str(",\n");
                    out.push_str(&" ".repeat(ind));
                }
            }
            out.push('}');
        }
        Kind::List | Kind::Tuple => {
            let items = v.items()?;
            let (open, close) = if kind == Kind::Tuple {
                ("(", if items.len() == 1 { ",)" } else { ")" })
            } else {
                ("[", "]")
            };
            out.push_str(open);
            let ind = indent + 1;
            let allowance = allowance + close.len();
            for (i, item) in items.iter().enumerate() {
                let last = i + 1 == items.len();
                if i > 0 {
                    out.push_str(",\n");
                    out.push_str(&" ".repeat(ind));
                }
                pp_format(out, item, ind, if last { allowance } else { 1 }, level + 1)?;
            }
            out.push_str(close);
        }
        // A str subclass (Markup) prints its own repr, which pprint does not split.
        Kind::Str(s) if v.type_name() == "str" => pp_str(out, s, indent, allowance, level),
        _ => out.push_str(&rep),
    }
    Ok(())
}

fn pp_str(out: &mut String, s: &str, indent: usize, allowance: usize, level: usize) {
    let repr = repr_str;
    if s.is_empty() {
        out.push_str(&repr(s));
        return;
    }
    let (indent, allowance) = if level == 1 {
        (indent + 1, allowance + 1)
    } else {
        (indent, allowance)
    };
    let lines = splitlines(s, true);
    let max_width = WIDTH.saturating_sub(indent);
    let mut max_width1 = max_width;
    let mut chunks = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let rep = repr(line);
        if i + 1 == lines.len() {
            max_width1 = max_width1.saturating_sub(allowance);
        }
        if rep.chars().count() <= max_width1 {
            chunks.push(rep);
        } else {
            let parts = split_space_runs(line);
            let mut max_width2 = max_width;
            let mut current = String::new();
            for (j, part) in parts.iter().enumerate() {
                let candidate = format!("{current}{part}");
                if j + 1 == parts.len() && i + 1 == lines.len() {
                    max_width2 = max_width2.saturating_sub(allowance);
                }
                if repr(&candidate).chars().count() > max_width2 {
                    if !current.is_empty() {
                        chunks.push(repr(&current));
                    }
                    current = part.clone();
                } else {
                    current = candidate;
                }
            }
            if !current.is_empty() {
                chunks.push(repr(&current));
            }
        }
    }
    if chunks.len() == 1 {
        out.push_str(&chunks[0]);
        return;
    }
    if level == 1 {
        out.push('(');
    }
    for (i, c) in chunks.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
        }
        out.push_str(c);
    }
    if level == 1 {
        out.push(')');
    }
}

/// `re.findall(r'\S*\s*', line)` without the trailing empty match.
fn split_space_runs(line: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut in_space = false;
    for c in line.chars() {
        let space = is_space(c);
        if !space && in_space {
            parts.push(std::mem::take(&mut cur));
            in_space = false;
        }
        if space {
            in_space = true;
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts
}
