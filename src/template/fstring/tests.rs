//! Engine tests; every expectation was printed by python3.11 `template.format_map(vars)`.

use super::{compile, render};
use crate::template::ErrorKind;
use crate::value::Value;

fn run(template: &str, vars: &str) -> Result<String, (ErrorKind, String)> {
    let vars = Value::from_json_str(vars).expect("valid json");
    render(&compile(template), &vars).map_err(|e| (e.kind(), e.message().to_owned()))
}

fn ok(template: &str, vars: &str) -> String {
    run(template, vars).unwrap_or_else(|e| panic!("{template:?}: {e:?}"))
}

fn err(template: &str, vars: &str) -> (ErrorKind, String) {
    match run(template, vars) {
        Ok(s) => panic!("{template:?} rendered {s:?}"),
        Err((k, m)) => (k, m),
    }
}

#[test]
fn literals_and_escapes() {
    assert_eq!(ok("{{{x}}}", r#"{"x": 5}"#), "{5}");
    assert_eq!(ok("a}}b{{", "{}"), "a}b{");
    assert_eq!(ok("", "{}"), "");
}

#[test]
fn lookups() {
    let vars = r#"{"d": {"k": [1, "héllo"], "0": "zero"}, "s": "a😀b", "b": true, "f": 2.5}"#;
    assert_eq!(ok("{d[k][1][1]}", vars), "é");
    assert_eq!(ok("{s[1]}", vars), "😀");
    assert_eq!(ok("{b.real} {b.imag!r} {f.imag}", vars), "1 0 0.0");
    assert_eq!(ok("{d[k][0].denominator}", vars), "1");
    assert_eq!(
        ok("{d.__class__} {d.__class__.__name__}", vars),
        "<class 'dict'> dict"
    );
    // '{d[0]}' on a dict with the key "0": the index is the int 0, so KeyError: 0.
    assert_eq!(err("{d[0]}", vars), (ErrorKind::KeyError, "0".into()));
    assert_eq!(err("{nope}", vars), (ErrorKind::KeyError, "'nope'".into()));
    assert_eq!(
        err("{it's}", vars),
        (ErrorKind::KeyError, "\"it's\"".into())
    );
    assert_eq!(
        err("{d.k}", vars),
        (
            ErrorKind::AttributeError,
            "'dict' object has no attribute 'k'".into()
        )
    );
    assert_eq!(
        err("{s[x]}", vars),
        (
            ErrorKind::TypeError,
            "string indices must be integers, not 'str'".into()
        )
    );
    assert_eq!(
        err("{d[k][9]}", vars),
        (ErrorKind::IndexError, "list index out of range".into())
    );
    assert_eq!(
        err("{f.__class__:>5}", vars),
        (
            ErrorKind::TypeError,
            "unsupported format string passed to type.__format__".into()
        )
    );
}

#[test]
fn methods_print_with_a_fixed_address() {
    // CPython: '<built-in method upper of str object at 0x7f1a448fdd20>' (address varies).
    let got = ok("{s.upper}", r#"{"s": "x"}"#);
    assert!(
        got.starts_with("<built-in method upper of str object at 0x"),
        "{got}"
    );
    let got = ok("{i.__add__!r}", r#"{"i": 1}"#);
    assert!(
        got.starts_with("<method-wrapper '__add__' of int object at 0x"),
        "{got}"
    );
}

#[test]
fn syntax_errors_in_cpython_order() {
    let v = r#"{"x": 1, "c": "r"}"#;
    let value_error = |m: &str| (ErrorKind::ValueError, m.to_owned());
    assert_eq!(err("{x!}", v), value_error("unmatched '{' in format spec"));
    assert_eq!(
        err("{x!rr}", v),
        value_error("expected ':' after conversion specifier")
    );
    assert_eq!(
        err("{x!", v),
        value_error("end of string while looking for conversion specifier")
    );
    assert_eq!(
        err("{x!}}", v),
        value_error("Unknown conversion specifier }")
    );
    assert_eq!(
        err("{x!é}", v),
        value_error("Unknown conversion specifier \\xe9")
    );
    assert_eq!(
        err("{x!{c}}", v),
        value_error("expected ':' after conversion specifier")
    );
    assert_eq!(err("{x:{y:{z}}}", v), (ErrorKind::KeyError, "'y'".into()));
    assert_eq!(
        err("{x:{x:{z}}}", v),
        value_error("Max string recursion exceeded")
    );
    assert_eq!(
        err("{x:{{}}}", v),
        value_error("Invalid format specifier '{}' for object of type 'int'")
    );
    assert_eq!(
        err("{٣}", v),
        value_error("Format string contains positional fields")
    );
    assert_eq!(
        err("{missing} {", v),
        (ErrorKind::KeyError, "'missing'".into())
    );
    assert_eq!(
        err("{ {missing}", v),
        value_error("unexpected '{' in field name")
    );
    assert_eq!(
        err("{x[0]x}", v),
        (
            ErrorKind::TypeError,
            "'int' object is not subscriptable".into()
        )
    );
    assert_eq!(
        err("{x.}", v),
        value_error("Empty attribute in format string")
    );
    assert_eq!(
        err("{x[}]}", v),
        (
            ErrorKind::TypeError,
            "'int' object is not subscriptable".into()
        )
    );
}

#[test]
fn error_ranges_point_at_the_field() {
    let c = compile("ab {x:>5} {");
    let e = render(&c, &Value::from_json_str("{}").expect("json")).expect_err("missing key");
    assert_eq!(e.range(), Some(3..9));
    let syntax = c.syntax_error().expect("syntax error");
    assert_eq!(syntax.range(), Some(10..11));
}

#[test]
fn nested_specs() {
    let v = r#"{"x": 3.14159, "f": "*", "a": "^", "w": 12, "p": 3, "t": "f"}"#;
    assert_eq!(ok("[{x:{f}{a}{w}.{p}{t}}]", v), "[***3.142****]");
    assert_eq!(ok("[{x:{w!s}}]", v), "[     3.14159]");
}

#[test]
fn never_panics_on_odd_input() {
    let vars = Value::from_json_str(r#"{"x": [1, {"a": "é"}], "": 1}"#).expect("json");
    for t in [
        "{",
        "}",
        "{{",
        "}}",
        "{x[",
        "{x[0",
        "{x!",
        "{x!é",
        "{x:",
        "{x:{",
        "{é!é:é}",
        "{x[0]]}",
        "{x[1][a]:\u{0}^5}",
        "{x:{x:{x}}}",
        "{x.é}",
        "{x[1].é}",
        "{:}",
        "{!r}",
        "{x!r:{x[0]:}}",
        "é{x}é}",
        "{x:.99999999999999999999}",
        "{x[0]:999999999999}",
        "{x[0]:c}",
    ] {
        let c = compile(t);
        let _ = c.syntax_error();
        let _ = render(&c, &vars);
    }
}

#[test]
fn large_widths_are_bounded() {
    let e = err("{x:999999999}", r#"{"x": 1}"#);
    assert_eq!(e.0, ErrorKind::LimitExceeded);
}
