//! Python's `json.dumps`, as Jinja2's `tojson` filter calls it (sorted keys, ASCII output).

use minijinja::value::{Value as JValue, ValueKind};
use minijinja::Error;

use super::errors::type_error;
use super::print::py_str;
use super::pyops::{as_num, is_float, py_cmp};
use super::undefined::py_type_name;
use crate::py::float_repr;

/// `json.dumps(v, sort_keys=True, indent=indent)` with Python's defaults (ASCII output).
pub(crate) fn json_dumps(v: &JValue, indent: Option<&str>) -> Result<String, Error> {
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
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn json_float(f: f64) -> String {
    if f.is_nan() {
        "NaN".to_owned()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else {
        float_repr(f)
    }
}

fn json_key(k: &JValue) -> Result<String, Error> {
    Ok(match k.kind() {
        ValueKind::String => k.as_str().unwrap_or_default().to_owned(),
        ValueKind::Bool => if k.is_true() { "true" } else { "false" }.to_owned(),
        ValueKind::None => "null".to_owned(),
        ValueKind::Number if is_float(k) => json_float(as_num(k).unwrap_or(0.0)),
        ValueKind::Number => py_str(k)?,
        _ => {
            return Err(type_error(format!(
                "keys must be str, int, float, bool or None, not {}",
                py_type_name(k)
            )))
        }
    })
}

fn json_write(
    out: &mut String,
    v: &JValue,
    indent: Option<&str>,
    depth: usize,
) -> Result<(), Error> {
    if depth > 200 {
        return Err(super::errors::limit("value nested too deeply for tojson"));
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
        ValueKind::None => out.push_str("null"),
        ValueKind::Bool => out.push_str(if v.is_true() { "true" } else { "false" }),
        ValueKind::Number if is_float(v) => out.push_str(&json_float(as_num(v).unwrap_or(0.0))),
        ValueKind::Number => out.push_str(&py_str(v)?),
        ValueKind::String => json_str(out, v.as_str().unwrap_or_default()),
        ValueKind::Seq | ValueKind::Iterable if py_type_name(v) != "range" => {
            let items: Vec<JValue> = v.try_iter()?.collect();
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
        ValueKind::Map if py_type_name(v) == "dict" => {
            let mut pairs: Vec<(JValue, JValue)> = Vec::new();
            for k in v.try_iter()? {
                let val = v.get_item(&k)?;
                pairs.push((k, val));
            }
            if pairs.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            let mut err = None;
            pairs.sort_by(|a, b| {
                py_cmp(&a.0, &b.0).unwrap_or_else(|e| {
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
        _ => {
            let name = match v.kind() {
                ValueKind::Undefined => "Undefined",
                _ => py_type_name(v),
            };
            let short = name.rsplit('.').next().unwrap_or(name);
            return Err(type_error(format!(
                "Object of type {short} is not JSON serializable"
            )));
        }
    }
    Ok(())
}
