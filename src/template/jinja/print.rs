//! Python's `str()` and `repr()` of template values, so that `{{ x }}`, `string`, `join` and
//! friends print exactly what Jinja2 prints.

use std::fmt::Write;

use minijinja::value::{Value as JValue, ValueKind};
use minijinja::Error;

use super::convert::BigIntObj;
use super::errors::limit;
use crate::py::{float_repr, repr_str};

/// Python prints self-referencing containers as `[...]`; we cannot detect cycles cheaply, so a
/// depth bound stops a namespace that contains itself (and keeps the stack small).
const MAX_DEPTH: usize = 200;

/// Printing a value that grows past this many bytes fails (a namespace holding itself twice
/// would otherwise print exponentially).
const MAX_PRINTED: usize = 32 * 1024 * 1024;

/// `str(v)` as Jinja2 computes it (`Undefined` prints as nothing).
pub(crate) fn py_str(v: &JValue) -> Result<String, Error> {
    if let Some(s) = v.as_str() {
        return Ok(s.to_owned());
    }
    let mut out = String::new();
    match v.kind() {
        ValueKind::Undefined => {}
        _ => write_repr(&mut out, v, 0)?,
    }
    Ok(out)
}

/// `str(v)` written straight into `out` (the formatter's path, avoiding a copy for strings).
pub(crate) fn write_str(out: &mut String, v: &JValue) -> Result<(), Error> {
    match v.as_str() {
        Some(s) => out.push_str(s),
        None if v.is_undefined() => {}
        None => write_repr(out, v, 0)?,
    }
    Ok(())
}

/// `repr(v)`.
pub(crate) fn py_repr(v: &JValue) -> Result<String, Error> {
    let mut out = String::new();
    write_repr(&mut out, v, 0)?;
    Ok(out)
}

/// A Python float from a minijinja number (ints widen as Python's `float()` would).
pub(crate) fn as_f64(v: &JValue) -> Option<f64> {
    f64::try_from(v.clone()).ok()
}

/// Writes an integer or float value as Python does; `false` when `v` is no number.
fn write_number(out: &mut String, v: &JValue) -> bool {
    if v.is_integer() {
        if let Ok(i) = i128::try_from(v.clone()) {
            let _ = write!(out, "{i}");
            return true;
        }
        if let Ok(u) = u128::try_from(v.clone()) {
            let _ = write!(out, "{u}");
            return true;
        }
    }
    match as_f64(v) {
        Some(f) => {
            out.push_str(&float_repr(f));
            true
        }
        None => false,
    }
}

pub(crate) fn write_repr(out: &mut String, v: &JValue, depth: usize) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        return Err(limit("value nested too deeply to print"));
    }
    if out.len() > MAX_PRINTED {
        return Err(limit("value too large to print"));
    }
    match v.kind() {
        ValueKind::Undefined => out.push_str("Undefined"),
        ValueKind::None => out.push_str("None"),
        ValueKind::Bool => out.push_str(if v.is_true() { "True" } else { "False" }),
        ValueKind::Number => {
            if !write_number(out, v) {
                let _ = write!(out, "{v}");
            }
        }
        ValueKind::String => {
            let s = v.as_str().unwrap_or_default();
            if v.is_safe() {
                // Jinja2's `Markup.__repr__`.
                out.push_str("Markup(");
                out.push_str(&repr_str(s));
                out.push(')');
            } else {
                out.push_str(&repr_str(s));
            }
        }
        ValueKind::Bytes => {
            let _ = write!(out, "{v:?}");
        }
        ValueKind::Seq if v.is_tuple() => {
            out.push('(');
            let mut n = 0;
            for (i, item) in v.try_iter()?.enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, &item, depth + 1)?;
                n += 1;
            }
            if n == 1 {
                out.push(',');
            }
            out.push(')');
        }
        ValueKind::Seq if is_native(v) => write_list(out, v, depth)?,
        ValueKind::Map if is_native_map(v) => write_dict(out, v, depth)?,
        ValueKind::Map if is_namespace(v) => {
            out.push_str("<Namespace ");
            write_dict(out, v, depth)?;
            out.push('>');
        }
        ValueKind::Map if v.is_kwargs() => write_dict(out, v, depth)?,
        _ => write_object(out, v, depth)?,
    }
    Ok(())
}

fn write_list(out: &mut String, v: &JValue, depth: usize) -> Result<(), Error> {
    out.push('[');
    for (i, item) in v.try_iter()?.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_repr(out, &item, depth + 1)?;
    }
    out.push(']');
    Ok(())
}

pub(crate) fn write_dict(out: &mut String, v: &JValue, depth: usize) -> Result<(), Error> {
    out.push('{');
    for (i, key) in v.try_iter()?.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_repr(out, &key, depth + 1)?;
        out.push_str(": ");
        let item = v.get_item(&key).unwrap_or_default();
        write_repr(out, &item, depth + 1)?;
    }
    out.push('}');
    Ok(())
}

/// Objects that are not plain containers: our own (which render as Python would) and
/// minijinja's loop, macro and iterator objects (renamed to what Jinja2 shows).
fn write_object(out: &mut String, v: &JValue, depth: usize) -> Result<(), Error> {
    if let Some(b) = v.downcast_object_ref::<BigIntObj>() {
        let _ = write!(out, "{}", b.0);
        return Ok(());
    }
    if super::objects::is_own_object(v) {
        let _ = write!(out, "{v}");
        return Ok(());
    }
    let shown = v.to_string();
    if let Some((idx, len)) = shown
        .strip_prefix("<loop ")
        .and_then(|r| r.strip_suffix('>'))
        .and_then(|r| r.split_once('/'))
    {
        // minijinja's loop counts from 0, Jinja2's `LoopContext` repr from 1.
        let idx = idx.parse::<usize>().map_or(0, |i| i + 1);
        let _ = write!(out, "<LoopContext {idx}/{len}>");
    } else if let Some(name) = shown
        .strip_prefix("<macro ")
        .and_then(|r| r.strip_suffix('>'))
    {
        let _ = write!(out, "<Macro {}>", repr_str(name));
    } else {
        match v.kind() {
            // Lazily produced sequences (a generator in Jinja2) print their items.
            ValueKind::Seq | ValueKind::Iterable => write_list(out, v, depth)?,
            ValueKind::Map => write_dict(out, v, depth)?,
            _ => out.push_str(&shown),
        }
    }
    Ok(())
}

fn is_native(v: &JValue) -> bool {
    v.downcast_object_ref::<Vec<JValue>>().is_some()
        || v.downcast_object_ref::<super::convert::LazyList>()
            .is_some()
}

fn is_native_map(v: &JValue) -> bool {
    v.downcast_object_ref::<indexmap::IndexMap<JValue, JValue>>()
        .is_some()
        || v.downcast_object_ref::<super::convert::LazyDict>()
            .is_some()
}

/// minijinja's `Namespace` type is private; its debug form starts with its name. Only that
/// prefix is formatted: a namespace may contain itself.
fn is_namespace(v: &JValue) -> bool {
    struct Prefix(String);
    impl Write for Prefix {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            let room = 9usize.saturating_sub(self.0.len());
            self.0.extend(s.chars().take(room));
            if self.0.len() >= 9 {
                Err(std::fmt::Error)
            } else {
                Ok(())
            }
        }
    }
    let Some(o) = v.as_object() else {
        return false;
    };
    let mut p = Prefix(String::new());
    let _ = write!(p, "{o:?}");
    p.0.starts_with("Namespace")
}
