//! `format(*args, **kwargs)` numbering and the errors both modes raise, over a minimal object
//! model (JSON values, `[key]` on dicts only). Expectations printed by python3.11.

use super::{format, Args, Conversion, FieldValue, FormatString};
use crate::py::{PyError, PyErrorKind};
use crate::value::Value;

#[derive(Clone)]
struct V(Value);

impl FieldValue for V {
    type Error = PyError;
    fn get_attr(self, name: &str) -> Result<V, PyError> {
        Err(PyError::new(
            PyErrorKind::AttributeError,
            format!("'{}' object has no attribute '{name}'", self.0.type_name()),
        ))
    }
    fn get_key(self, key: &str) -> Result<V, PyError> {
        match &self.0 {
            Value::Dict(d) => d
                .get(key)
                .map(|v| V(v.clone()))
                .ok_or_else(|| PyError::new(PyErrorKind::KeyError, crate::py::repr_str(key))),
            _ => Err(PyError::type_error("not subscriptable")),
        }
    }
    fn get_index(self, index: i64) -> Result<V, PyError> {
        match &self.0 {
            Value::List(items) => usize::try_from(index)
                .ok()
                .and_then(|i| items.get(i))
                .map(|v| V(v.clone()))
                .ok_or_else(|| PyError::new(PyErrorKind::IndexError, "list index out of range")),
            _ => Err(PyError::type_error("not subscriptable")),
        }
    }
    fn convert(&self, conversion: Conversion) -> Result<String, PyError> {
        Ok(match conversion {
            Conversion::Str => crate::py::to_str(&self.0),
            Conversion::Repr => crate::py::repr(&self.0),
            Conversion::Ascii => crate::py::ascii(&self.0),
        })
    }
    fn format_into(&self, out: &mut String, spec: &str) -> Result<(), PyError> {
        crate::py::write_format(out, &self.0, spec)
    }
}

/// `format(*positional, **keywords)`, or `format_map(keywords)` when `positional` is `None`.
struct A {
    positional: Option<Vec<V>>,
    keywords: Value,
}

impl Args for A {
    type Value = V;
    fn keyword(&self, name: &str) -> Result<V, PyError> {
        V(self.keywords.clone()).get_key(name)
    }
    fn positional_count(&self) -> Option<usize> {
        self.positional.as_ref().map(Vec::len)
    }
    fn positional(&self, index: usize) -> V {
        self.positional
            .as_ref()
            .map_or(V(Value::None), |p| p[index].clone())
    }
}

fn run(fmt: &str, positional: Option<&str>, keywords: &str) -> Result<String, (String, String)> {
    let args = A {
        positional: positional.map(|p| match Value::from_json_str(p) {
            Ok(Value::List(items)) => items.iter().cloned().map(V).collect(),
            _ => panic!("positional arguments are a JSON list"),
        }),
        keywords: Value::from_json_str(keywords).expect("valid json"),
    };
    format(fmt, &args, 1 << 20).map_err(|e| (e.kind.python_name().to_owned(), e.message))
}

fn err(kind: &str, message: &str) -> Result<String, (String, String)> {
    Err((kind.to_owned(), message.to_owned()))
}

#[test]
fn automatic_and_manual_numbering() {
    let ok = |s: &str| Ok(s.to_owned());
    assert_eq!(run("{:{}}|{}", Some(r#"["a", 3, "b"]"#), "{}"), ok("a  |b"));
    assert_eq!(run("{1}{0}{1}", Some("[1, 2]"), "{}"), ok("212"));
    assert_eq!(run("{}{x}{}", Some("[1, 2]"), r#"{"x": 0}"#), ok("102"));
    assert_eq!(run("{0[1]:>{1}}", Some("[[1, 2], 3]"), "{}"), ok("  2"));
    let auto_to_manual =
        "cannot switch from automatic field numbering to manual field specification";
    let manual_to_auto =
        "cannot switch from manual field specification to automatic field numbering";
    assert_eq!(
        run("{}{0}", Some("[1]"), "{}"),
        err("ValueError", auto_to_manual)
    );
    assert_eq!(
        run("{0}{}", Some("[1]"), "{}"),
        err("ValueError", manual_to_auto)
    );
    assert_eq!(
        run("{:{0}}", Some("[1]"), "{}"),
        err("ValueError", auto_to_manual)
    );
    assert_eq!(
        run("{}{}", Some("[1]"), "{}"),
        err(
            "IndexError",
            "Replacement index 1 out of range for positional args tuple"
        )
    );
    assert_eq!(
        run("{99999999999}", Some("[1]"), "{}"),
        err(
            "IndexError",
            "Replacement index 99999999999 out of range for positional args tuple"
        )
    );
    assert_eq!(run("{a}{}", Some("[1]"), "{}"), err("KeyError", "'a'"));
    // The mapping of format_map gives no positional arguments.
    assert_eq!(
        run("{}", None, "{}"),
        err("ValueError", "Format string contains positional fields")
    );
}

#[test]
fn errors_point_at_the_field() {
    let args = A {
        positional: Some(vec![V(Value::Int(crate::value::PyInt::Small(1)))]),
        keywords: Value::from_json_str("{}").expect("json"),
    };
    let e = format("ab{0!x}", &args, 1 << 20).expect_err("unknown conversion");
    assert_eq!(e.message, "Unknown conversion specifier x");
    assert_eq!(e.range, Some(2..7));
    let e = format("ab{0:{x}}", &args, 1 << 20).expect_err("missing key");
    assert_eq!((e.kind, e.range), (PyErrorKind::KeyError, Some(5..8)));
    let e = format("{0:9}{0:9}", &args, 12).expect_err("limit");
    assert_eq!((e.kind, e.range), (PyErrorKind::LimitExceeded, Some(5..10)));
    let parsed = FormatString::parse("{x}{0!rr}");
    let e = parsed.static_error().expect("syntax error");
    assert_eq!(e.message, "expected ':' after conversion specifier");
}
