//! Jinja2's builtin tests (`jinja2/tests.py`), with Python's notion of each type.

use std::cmp::Ordering;

use minijinja::value::{Kwargs, Rest, Value as JValue, ValueKind};
use minijinja::{Environment, Error, State};

use super::errors::type_error;
use super::filters::{arg, bind, with_kwargs};
use super::print::py_str;
use super::pyops::{as_int, as_num, is_float, is_int, py_cmp, py_eq, py_list};
use super::undefined::py_type_name;

pub(crate) type TestFn = fn(&State, &[JValue]) -> Result<bool, Error>;

const TESTS: &[(&str, TestFn)] = &[
    ("!=", ne),
    ("<", lt),
    ("<=", le),
    ("==", eq),
    (">", gt),
    (">=", ge),
    ("boolean", boolean),
    ("callable", callable),
    ("defined", defined),
    ("divisibleby", divisibleby),
    ("eq", eq),
    ("equalto", eq),
    ("escaped", escaped),
    ("even", even),
    ("false", is_false),
    ("filter", filter),
    ("float", float),
    ("ge", ge),
    ("greaterthan", gt),
    ("gt", gt),
    ("in", is_in),
    ("integer", integer),
    ("iterable", iterable),
    ("le", le),
    ("lessthan", lt),
    ("lower", lower),
    ("lt", lt),
    ("mapping", mapping),
    ("ne", ne),
    ("none", none),
    ("number", number),
    ("odd", odd),
    ("sameas", sameas),
    ("sequence", sequence),
    ("string", string),
    ("test", test),
    ("true", is_true),
    ("undefined", undefined),
    ("upper", upper),
];

pub(crate) fn register(env: &mut Environment<'static>) {
    for &(name, f) in TESTS {
        env.add_test(
            name,
            move |state: &State, args: Rest<JValue>, kwargs: Kwargs| {
                f(state, &with_kwargs(args, kwargs))
            },
        );
    }
}

pub(crate) fn lookup(name: &str) -> Option<TestFn> {
    TESTS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

pub(crate) fn is_test_name(name: &str) -> bool {
    lookup(name).is_some()
}

fn one(name: &str, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind(name, args, &["value"], 1)?;
    Ok(arg(&b, 0, JValue::default))
}

fn two(name: &str, args: &[JValue], second: &str) -> Result<(JValue, JValue), Error> {
    let b = bind(name, args, &["value", second], 2)?;
    Ok((arg(&b, 0, JValue::default), arg(&b, 1, JValue::default)))
}

fn defined(_: &State, args: &[JValue]) -> Result<bool, Error> {
    Ok(!one("test_defined", args)?.is_undefined())
}

fn undefined(_: &State, args: &[JValue]) -> Result<bool, Error> {
    Ok(one("test_undefined", args)?.is_undefined())
}

fn none(_: &State, args: &[JValue]) -> Result<bool, Error> {
    Ok(one("test_none", args)?.is_none())
}

fn boolean(_: &State, args: &[JValue]) -> Result<bool, Error> {
    Ok(one("test_boolean", args)?.kind() == ValueKind::Bool)
}

fn is_true(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let v = one("test_true", args)?;
    Ok(v.kind() == ValueKind::Bool && v.is_true())
}

fn is_false(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let v = one("test_false", args)?;
    Ok(v.kind() == ValueKind::Bool && !v.is_true())
}

fn is_bigint(v: &JValue) -> bool {
    v.downcast_object_ref::<super::convert::BigIntObj>()
        .is_some()
}

fn integer(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let v = one("test_integer", args)?;
    Ok(is_int(&v) || is_bigint(&v))
}

fn float(_: &State, args: &[JValue]) -> Result<bool, Error> {
    Ok(is_float(&one("test_float", args)?))
}

fn number(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let v = one("test_number", args)?;
    Ok(matches!(v.kind(), ValueKind::Number | ValueKind::Bool) || is_bigint(&v))
}

fn string(_: &State, args: &[JValue]) -> Result<bool, Error> {
    Ok(one("test_string", args)?.kind() == ValueKind::String)
}

fn mapping(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let v = one("test_mapping", args)?;
    Ok(v.kind() == ValueKind::Map && !is_namespace_like(&v))
}

fn is_namespace_like(v: &JValue) -> bool {
    py_type_name(v) != "dict"
}

fn sequence(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let v = one("test_sequence", args)?;
    Ok(matches!(
        v.kind(),
        ValueKind::String | ValueKind::Seq | ValueKind::Map
    ))
}

fn iterable(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let v = one("test_iterable", args)?;
    Ok(matches!(
        v.kind(),
        ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Iterable
    ))
}

/// Python's `callable()`: functions, macros, bound methods, the loop object, joiners, and
/// Jinja2's `Undefined` (whose `__call__` raises).
fn callable(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let v = one("callable", args)?;
    if v.is_undefined() {
        return Ok(true);
    }
    if v.as_object().is_none() {
        return Ok(false);
    }
    if super::bound::is_bound_method(&v)
        || v.downcast_object_ref::<super::objects::Joiner>().is_some()
        || super::bound::is_loop(&v)
    {
        return Ok(true);
    }
    if v.kind() == ValueKind::Map && v.to_string().starts_with("<macro ") {
        return Ok(true);
    }
    // minijinja's functions are private plain objects; ours that are plain are not callable.
    Ok(v.kind() == ValueKind::Plain
        && v.downcast_object_ref::<super::objects::Cycler>().is_none()
        && v.downcast_object_ref::<super::convert::BigIntObj>()
            .is_none())
}

fn escaped(_: &State, args: &[JValue]) -> Result<bool, Error> {
    Ok(one("test_escaped", args)?.is_safe())
}

fn cased(s: &str, lower: bool) -> bool {
    let mut any = false;
    for c in s.chars() {
        if c.is_lowercase() || c.is_uppercase() {
            any = true;
            if (lower && c.is_uppercase()) || (!lower && c.is_lowercase()) {
                return false;
            }
        }
    }
    any
}

fn lower(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let s = py_str(&one("test_lower", args)?)?;
    super::work::touch(s.len())?;
    Ok(cased(&s, true))
}

fn upper(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let s = py_str(&one("test_upper", args)?)?;
    super::work::touch(s.len())?;
    Ok(cased(&s, false))
}

/// Python's `a % b == 0` for the parity and divisibility tests.
fn py_mod_zero(a: &JValue, b: &JValue) -> Result<bool, Error> {
    if let (Some(x), Some(y)) = (as_int(a), as_int(b)) {
        if y == 0 {
            return Err(super::errors::py_err(
                crate::template::ErrorKind::ZeroDivisionError,
                "integer division or modulo by zero",
            ));
        }
        return Ok(x.rem_euclid(y) == 0);
    }
    if let (Some(x), Some(y)) = (as_num(a), as_num(b)) {
        if y == 0.0 {
            return Err(super::errors::py_err(
                crate::template::ErrorKind::ZeroDivisionError,
                "float modulo",
            ));
        }
        return Ok(x % y == 0.0);
    }
    if a.kind() == ValueKind::String {
        return Err(type_error(
            "not all arguments converted during string formatting",
        ));
    }
    if a.is_undefined() {
        return Err(super::errors::undefined_use(a));
    }
    Err(type_error(format!(
        "unsupported operand type(s) for %: '{}' and '{}'",
        py_type_name(a),
        py_type_name(b)
    )))
}

fn even(_: &State, args: &[JValue]) -> Result<bool, Error> {
    py_mod_zero(&one("test_even", args)?, &JValue::from(2))
}

fn odd(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let v = one("test_odd", args)?;
    if let Some(i) = as_int(&v) {
        return Ok(i.rem_euclid(2) == 1);
    }
    if let Some(f) = as_num(&v) {
        return Ok(f.rem_euclid(2.0) == 1.0);
    }
    py_mod_zero(&v, &JValue::from(2)).map(|_| false)
}

fn divisibleby(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let (v, n) = two("test_divisibleby", args, "num")?;
    py_mod_zero(&v, &n)
}

fn eq(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let (a, b) = two("eq", args, "b")?;
    let eq = py_eq(&a, &b);
    super::work::check()?;
    Ok(eq)
}

fn ne(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let (a, b) = two("ne", args, "b")?;
    let eq = py_eq(&a, &b);
    super::work::check()?;
    Ok(!eq)
}

fn ordered(args: &[JValue], name: &str, op: &str, ok: fn(Ordering) -> bool) -> Result<bool, Error> {
    let (a, b) = two(name, args, "b")?;
    if a.is_undefined() || b.is_undefined() {
        let u = if a.is_undefined() { &a } else { &b };
        return Err(super::errors::undefined_use(u));
    }
    match py_cmp(&a, &b) {
        Ok(o) => Ok(ok(o)),
        Err(e) if e.kind() == minijinja::ErrorKind::OutOfFuel => Err(e),
        Err(_) => Err(type_error(format!(
            "'{op}' not supported between instances of '{}' and '{}'",
            py_type_name(&a),
            py_type_name(&b)
        ))),
    }
}

fn lt(_: &State, args: &[JValue]) -> Result<bool, Error> {
    ordered(args, "lt", "<", |o| o == Ordering::Less)
}

fn le(_: &State, args: &[JValue]) -> Result<bool, Error> {
    ordered(args, "le", "<=", |o| o != Ordering::Greater)
}

fn gt(_: &State, args: &[JValue]) -> Result<bool, Error> {
    ordered(args, "gt", ">", |o| o == Ordering::Greater)
}

fn ge(_: &State, args: &[JValue]) -> Result<bool, Error> {
    ordered(args, "ge", ">=", |o| o != Ordering::Less)
}

/// Python's `value in seq`, charged by the bytes and items it scans (`work.rs`).
pub(crate) fn py_contains(seq: &JValue, value: &JValue) -> Result<bool, Error> {
    let found = contains(seq, value)?;
    super::work::check()?;
    Ok(found)
}

fn contains(seq: &JValue, value: &JValue) -> Result<bool, Error> {
    match seq.kind() {
        ValueKind::String => match value.as_str() {
            Some(needle) => {
                let haystack = seq.as_str().unwrap_or_default();
                super::work::touch(haystack.len())?;
                Ok(haystack.contains(needle))
            }
            None => Err(type_error(format!(
                "'in <string>' requires string as left operand, not {}",
                // Python names the class without its module here.
                py_type_name(value).rsplit('.').next().unwrap_or_default()
            ))),
        },
        ValueKind::Map => Ok(seq.try_iter()?.any(|k| py_eq(&k, value))),
        ValueKind::Seq | ValueKind::Iterable => Ok(py_list(seq)?.iter().any(|k| py_eq(k, value))),
        ValueKind::Undefined => Err(type_error("argument of type 'Undefined' is not iterable")),
        _ => Err(type_error(format!(
            "argument of type '{}' is not iterable",
            py_type_name(seq)
        ))),
    }
}

fn is_in(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let (v, seq) = two("test_in", args, "seq")?;
    py_contains(&seq, &v)
}

fn sameas(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let (a, b) = two("test_sameas", args, "other")?;
    // Identity is only observable for singletons (None, True, False) and small ints.
    Ok(match (a.kind(), b.kind()) {
        (ValueKind::None, ValueKind::None) => true,
        (ValueKind::Bool, ValueKind::Bool) => a.is_true() == b.is_true(),
        (ValueKind::Number, ValueKind::Number) if is_int(&a) && is_int(&b) => {
            as_int(&a) == as_int(&b) && as_int(&a).is_some_and(|i| (-5..=256).contains(&i))
        }
        (ValueKind::Seq | ValueKind::Map, _) => {
            a.as_object().zip(b.as_object()).is_some_and(|(x, y)| {
                std::ptr::eq(x as *const _ as *const u8, y as *const _ as *const u8)
            })
        }
        _ => false,
    })
}

fn filter(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let v = one("test_filter", args)?;
    Ok(v.as_str()
        .is_some_and(|n| super::filters::lookup(n).is_some()))
}

fn test(_: &State, args: &[JValue]) -> Result<bool, Error> {
    let v = one("test_test", args)?;
    Ok(v.as_str().is_some_and(is_test_name))
}
