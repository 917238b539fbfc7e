//! Jinja2's messages for undefined values. minijinja tells us which expression produced the
//! undefined value (`d.missing`, `items[3]`, `x`); Jinja2's message depends on the object the
//! lookup failed on, so we evaluate that parent expression again over the root variables.

use minijinja::value::{Value as JValue, ValueKind};
use minijinja::Environment;

use super::print::py_repr;

/// Jinja2's `Undefined._undefined_message` for the undefined value `expr` produced.
pub(crate) fn describe(env: &Environment<'static>, vars: &JValue, expr: &str) -> Option<String> {
    let expr = expr.trim();
    let Some((parent, key)) = split_lookup(expr) else {
        return Some(format!("'{expr}' is undefined"));
    };
    let eval = |src: &str| -> Option<JValue> {
        let compiled = env.compile_expression(src).ok()?;
        compiled.eval(vars).ok()
    };
    // Locals (loop variables, `set`) are not visible from here; dicts are by far the most common
    // parent in JSON data, so assume one.
    let parent_value = eval(parent);
    let owner = match &parent_value {
        Some(v) if !v.is_undefined() => type_repr(v),
        _ => "dict object".to_owned(),
    };
    match key {
        Key::Attr(name) => Some(format!("'{owner}' has no attribute '{name}'")),
        Key::Item(src) => {
            let key = eval(src)?;
            match key.as_str() {
                Some(s) => Some(format!("'{owner}' has no attribute '{s}'")),
                None => Some(format!("{owner} has no element {}", py_repr(&key).ok()?)),
            }
        }
    }
}

enum Key<'a> {
    Attr(&'a str),
    Item(&'a str),
}

/// Splits `a.b.c` into (`a.b`, attr `c`) and `a[expr]` into (`a`, item `expr`).
fn split_lookup(expr: &str) -> Option<(&str, Key<'_>)> {
    if let Some(inner) = expr.strip_suffix(']') {
        let mut depth = 0usize;
        for (i, c) in inner.char_indices().rev() {
            match c {
                ']' => depth += 1,
                '[' if depth == 0 => {
                    let parent = &inner[..i];
                    return (!parent.is_empty()).then_some((parent, Key::Item(&inner[i + 1..])));
                }
                '[' => depth -= 1,
                _ => {}
            }
        }
        return None;
    }
    let dot = expr.rfind('.')?;
    let name = &expr[dot + 1..];
    let ident = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    (ident && dot > 0).then_some((&expr[..dot], Key::Attr(name)))
}

/// Jinja2's `object_type_repr`.
pub(crate) fn type_repr(v: &JValue) -> String {
    match v.kind() {
        ValueKind::None => "None".to_owned(),
        _ => format!("{} object", py_type_name(v)),
    }
}

/// Python's `type(v).__name__`, module-qualified outside builtins as `object_type_repr` does.
pub(crate) fn py_type_name(v: &JValue) -> &'static str {
    match v.kind() {
        ValueKind::Undefined => "jinja2.runtime.Undefined",
        ValueKind::None => "NoneType",
        ValueKind::Bool => "bool",
        ValueKind::Number if v.is_integer() => "int",
        ValueKind::Number => "float",
        ValueKind::String if v.is_safe() => "markupsafe.Markup",
        ValueKind::String => "str",
        ValueKind::Bytes => "bytes",
        ValueKind::Seq if v.is_tuple() => "tuple",
        ValueKind::Seq => "list",
        ValueKind::Map => "dict",
        ValueKind::Iterable => "generator",
        _ => super::objects::own_type_name(v).unwrap_or("object"),
    }
}
