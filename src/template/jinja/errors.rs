//! Carrying Python exception classes through minijinja errors, and mapping minijinja errors to
//! [`TemplateError`]s named after what Jinja2 raises.

use std::error::Error as _;
use std::fmt;

use minijinja::{Error, ErrorKind as MjKind};

use crate::template::{ErrorKind, TemplateError};

/// The Python exception our own filters, tests and methods raise, attached to the minijinja
/// error as its source so that the mapping below can recover it exactly.
#[derive(Debug, Clone)]
pub(crate) struct PyExc {
    pub kind: ErrorKind,
    pub message: String,
}

impl fmt::Display for PyExc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

impl std::error::Error for PyExc {}

/// A minijinja error that maps back to the Python exception `kind` with `message`.
pub(crate) fn py_err(kind: ErrorKind, message: impl Into<String>) -> Error {
    let message = message.into();
    let mj_kind = match kind {
        ErrorKind::UndefinedError => MjKind::UndefinedError,
        _ => MjKind::InvalidOperation,
    };
    Error::new(mj_kind, message.clone()).with_source(PyExc { kind, message })
}

pub(crate) fn type_error(message: impl Into<String>) -> Error {
    py_err(ErrorKind::TypeError, message)
}

pub(crate) fn value_error(message: impl Into<String>) -> Error {
    py_err(ErrorKind::ValueError, message)
}

pub(crate) fn runtime_error(message: impl Into<String>) -> Error {
    py_err(ErrorKind::TemplateRuntimeError, message)
}

pub(crate) fn undefined_error(message: impl Into<String>) -> Error {
    py_err(ErrorKind::UndefinedError, message)
}

/// The error Jinja2's `Undefined` raises when used: minijinja's own undefined error, which
/// remembers the expression that produced `v` (turned into Jinja2's message by `map_error`).
pub(crate) fn undefined_use(v: &minijinja::Value) -> Error {
    match v.get_attr("__undefined__") {
        Err(e) => e,
        Ok(_) => undefined_error("'undefined' is undefined"),
    }
}

pub(crate) fn limit(message: impl Into<String>) -> Error {
    py_err(ErrorKind::LimitExceeded, message)
}

fn own_exception(err: &Error) -> Option<&PyExc> {
    let mut source = err.source();
    while let Some(s) = source {
        if let Some(exc) = s.downcast_ref::<PyExc>() {
            return Some(exc);
        }
        source = s.source();
    }
    None
}

/// Maps a minijinja error to the exception Jinja2 raises in the same situation. `undefined`
/// turns minijinja's description of an undefined expression into Jinja2's message.
pub(crate) fn map_error(err: &Error, undefined: impl Fn(&str) -> Option<String>) -> TemplateError {
    let detail = err.detail().unwrap_or_default();
    let (kind, message) = if let Some(exc) = own_exception(err) {
        (exc.kind, exc.message.clone())
    } else if let Some(expr) = undefined_expr(detail) {
        // An operation on an undefined value: Jinja2's `Undefined` raises UndefinedError.
        let message = undefined(expr).unwrap_or_else(|| format!("'{expr}' is undefined"));
        (ErrorKind::UndefinedError, message)
    } else {
        match err.kind() {
            MjKind::SyntaxError | MjKind::BadEscape | MjKind::InvalidDelimiter => {
                (ErrorKind::TemplateSyntaxError, syntax_message(detail))
            }
            MjKind::UnknownFilter => (
                ErrorKind::TemplateSyntaxError,
                format!("No filter named {}.", quoted_name(detail)),
            ),
            MjKind::UnknownTest => (
                ErrorKind::TemplateSyntaxError,
                format!("No test named {}.", quoted_name(detail)),
            ),
            MjKind::UnknownFunction => (
                ErrorKind::UndefinedError,
                match detail.strip_suffix(" is unknown") {
                    Some(name) => format!("'{name}' is undefined"),
                    None => undefined_message(detail, &undefined),
                },
            ),
            MjKind::UndefinedError => (
                ErrorKind::UndefinedError,
                undefined_message(detail, &undefined),
            ),
            MjKind::UnknownMethod => (
                ErrorKind::UndefinedError,
                undefined_message(detail, &undefined),
            ),
            MjKind::OutOfFuel => (
                ErrorKind::LimitExceeded,
                "the template did too much work (out of fuel)".to_owned(),
            ),
            MjKind::WriteFailure => (
                ErrorKind::LimitExceeded,
                "the template output grew past its size limit".to_owned(),
            ),
            MjKind::TemplateNotFound | MjKind::BadInclude => (
                ErrorKind::TypeError,
                "no loader for this environment specified".to_owned(),
            ),
            MjKind::CannotUnpack if detail.contains("not iterable") => (
                ErrorKind::TypeError,
                "cannot unpack non-iterable object".to_owned(),
            ),
            MjKind::CannotUnpack => (ErrorKind::ValueError, plain(detail)),
            MjKind::InvalidOperation
                if detail.starts_with("value of type undefined is not callable") =>
            {
                (ErrorKind::UndefinedError, "No caller defined".to_owned())
            }
            MjKind::InvalidOperation
                if detail.contains("recursion") || detail.contains("too deeply") =>
            {
                (ErrorKind::LimitExceeded, plain(detail))
            }
            MjKind::InvalidOperation if detail.contains("too large") => {
                (ErrorKind::LimitExceeded, plain(detail))
            }
            MjKind::InvalidOperation if is_zero_division(detail) => {
                (ErrorKind::ZeroDivisionError, zero_division_message(detail))
            }
            MjKind::InvalidOperation if detail.starts_with("unable to calculate") => (
                ErrorKind::LimitExceeded,
                format!("integer result too large ({detail})"),
            ),
            MjKind::InvalidOperation if detail.starts_with("tried to use ") => {
                (ErrorKind::TypeError, operator_message(detail))
            }
            MjKind::InvalidOperation
            | MjKind::NonKey
            | MjKind::NonPrimitive
            | MjKind::TooManyArguments
            | MjKind::MissingArgument => (ErrorKind::TypeError, plain(detail)),
            _ => (ErrorKind::TemplateRuntimeError, plain(detail)),
        }
    };
    let mut out = TemplateError::new(kind, message);
    if let Some(range) = err.range() {
        out = out.with_range(range);
    }
    out
}

fn plain(detail: &str) -> String {
    // minijinja appends where an undefined value came from; Jinja2 does not.
    detail.to_owned()
}

fn syntax_message(detail: &str) -> String {
    if detail.is_empty() {
        "invalid syntax".to_owned()
    } else {
        detail.to_owned()
    }
}

fn quoted_name(detail: &str) -> String {
    let name = detail
        .rsplit(' ')
        .next()
        .unwrap_or(detail)
        .trim_matches(|c| c == '\'' || c == '"' || c == '`');
    format!("'{name}'")
}

/// minijinja reports `1 / 0` as "unable to calculate 1 / 0".
fn is_zero_division(detail: &str) -> bool {
    let Some(rest) = detail.strip_prefix("unable to calculate ") else {
        return false;
    };
    let rhs = rest.rsplit(' ').next().unwrap_or_default();
    matches!(rhs, "0" | "0.0" | "-0.0")
}

fn zero_division_message(detail: &str) -> String {
    let rest = detail
        .strip_prefix("unable to calculate ")
        .unwrap_or_default();
    let parts: Vec<&str> = rest.split(' ').collect();
    let float = parts
        .iter()
        .any(|p| p.contains('.') || p.contains("inf") || p.contains("NaN"));
    let op = parts
        .get(parts.len().saturating_sub(2))
        .copied()
        .unwrap_or("/");
    match (op, float) {
        ("**", _) => "0.0 cannot be raised to a negative power".to_owned(),
        ("/", false) => "division by zero".to_owned(),
        ("/", true) => "float division by zero".to_owned(),
        ("//", true) => "float floor division by zero".to_owned(),
        ("%", true) => "float modulo".to_owned(),
        ("%", false) => "integer modulo by zero".to_owned(),
        _ => "integer division or modulo by zero".to_owned(),
    }
}

/// The expression minijinja names in "... (`expr` is undefined)".
fn undefined_expr(detail: &str) -> Option<&str> {
    let end = detail.find("` is undefined")?;
    let start = detail[..end].rfind('`')?;
    Some(&detail[start + 1..end])
}

/// minijinja describes an undefined value as "`expr` is undefined"; Jinja2 names either the
/// variable (`'x' is undefined`) or the failed lookup (`'dict object' has no attribute 'k'`).
fn undefined_message(detail: &str, undefined: &impl Fn(&str) -> Option<String>) -> String {
    if let Some(expr) = undefined_expr(detail) {
        if let Some(message) = undefined(expr) {
            return message;
        }
        return format!("'{expr}' is undefined");
    }
    if detail.is_empty() {
        "'undefined' is undefined".to_owned()
    } else {
        detail.to_owned()
    }
}

impl From<PyExc> for TemplateError {
    fn from(e: PyExc) -> TemplateError {
        TemplateError::new(e.kind, e.message)
    }
}

/// "tried to use + operator on unsupported types string and number" → Python's wording.
fn operator_message(detail: &str) -> String {
    let parse = || {
        let rest = detail.strip_prefix("tried to use ")?;
        let (op, rest) = rest.split_once(" operator on unsupported types ")?;
        let (a, b) = rest.split_once(" and ")?;
        Some((op, a, b))
    };
    let Some((op, a, b)) = parse() else {
        return detail.to_owned();
    };
    fn py(kind: &str) -> &str {
        match kind {
            "string" => "str",
            "number" => "int",
            "sequence" => "list",
            "map" => "dict",
            "none" => "NoneType",
            "bool" => "bool",
            "undefined" => "Undefined",
            other => other,
        }
    }
    let (a, b) = (py(a), py(b.split(' ').next().unwrap_or(b)));
    if op == "+" && a == "str" {
        return format!("can only concatenate str (not \"{b}\") to str");
    }
    if op == "+" && a == "list" {
        return format!("can only concatenate list (not \"{b}\") to list");
    }
    format!("unsupported operand type(s) for {op}: '{a}' and '{b}'")
}
