//! Python's `json.dumps(v, sort_keys=True, indent=indent)` with its defaults otherwise (ASCII
//! output, `NaN` and `Infinity` allowed), as Jinja2's `tojson` filter calls it, over any
//! engine's values ([`PyObject`]).

use std::fmt::Write;

use super::error::{PyError, PyErrorKind};
use super::float::float_repr;
use super::object::{Kind, PyObject};

/// Containers nested deeper than this fail with `LimitExceeded` (Python's recursion limit
/// would stop it somewhere near 1000).
const MAX_DEPTH: usize = 200;

/// `json.dumps(v, sort_keys=True, indent=indent)`.
pub fn json_dumps<V: PyObject>(v: &V, indent: Option<&str>) -> Result<String, V::Error> {
    let mut out = String::new();
    json_write(&mut out, v, indent, 0)?;
    Ok(out)
}

fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn json_float(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str("NaN");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
    } else {
        out.push_str(&float_repr(f));
    }
}

/// A dict key as JSON has it: a string (numbers, booleans and None become their JSON text).
fn json_key<V: PyObject>(k: &V) -> Result<String, V::Error> {
    let mut out = String::new();
    match k.kind() {
        Kind::Str(s) => out.push_str(s),
        Kind::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Kind::None => out.push_str("null"),
        Kind::Float(f) => json_float(&mut out, f),
        Kind::Int(_) | Kind::BigInt => k.write_str(&mut out)?,
        _ => {
            return Err(PyError::type_error(format!(
                "keys must be str, int, float, bool or None, not {}",
                k.type_name()
            ))
            .into())
        }
    }
    Ok(out)
}

fn json_write<V: PyObject>(
    out: &mut String,
    v: &V,
    indent: Option<&str>,
    depth: usize,
) -> Result<(), V::Error> {
    if depth > MAX_DEPTH {
        return Err(PyError::new(
            PyErrorKind::LimitExceeded,
            "value nested too deeply for tojson",
        )
        .into());
    }
    let newline = |out: &mut String, d: usize| {
        if let Some(ind) = indent {
            out.push('\n');
            for _ in 0..d {
                out.push_str(ind);
            }
        }
    };
    let item_sep = if indent.is_some() { "," } else { ", " };
    match v.kind() {
        Kind::None => out.push_str("null"),
        Kind::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Kind::Float(f) => json_float(out, f),
        Kind::Int(_) | Kind::BigInt => v.write_str(out)?,
        Kind::Str(s) => json_str(out, s),
        Kind::List | Kind::Tuple | Kind::Iterable => {
            let items = v.items()?;
            if items.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                newline(out, depth + 1);
                json_write(out, item, indent, depth + 1)?;
            }
            newline(out, depth);
            out.push(']');
        }
        Kind::Dict => {
            let mut pairs = v.dict_items()?;
            if pairs.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            let mut err = None;
            pairs.sort_by(|a, b| {
                a.0.compare(&b.0).unwrap_or_else(|e| {
                    err.get_or_insert(e);
                    std::cmp::Ordering::Equal
                })
            });
            if let Some(e) = err {
                return Err(e);
            }
            out.push('{');
            for (i, (k, val)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                newline(out, depth + 1);
                json_str(out, &json_key(k)?);
                out.push_str(": ");
                json_write(out, val, indent, depth + 1)?;
            }
            newline(out, depth);
            out.push('}');
        }
        Kind::Other => {
            let name = v.type_name();
            let short = name.rsplit('.').next().unwrap_or(name);
            return Err(PyError::type_error(format!(
                "Object of type {short} is not JSON serializable"
            ))
            .into());
        }
    }
    Ok(())
}
