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

/// A Python exception from `crate::py`, carried like our own.
impl From<crate::py::PyError> for Error {
    fn from(e: crate::py::PyError) -> Error {
        py_err(e.kind.into(), e.message)
    }
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

/// The message of a render that used up its own fuel.
pub(crate) const OUT_OF_FUEL: &str = "the template did too much work (out of fuel)";

pub(crate) fn limit(message: impl Into<String>) -> Error {
    py_err(ErrorKind::LimitExceeded, message)
}

/// `w` when within [`crate::py::MAX_WIDTH`], else `LimitExceeded`.
pub(crate) fn checked_width(w: usize) -> Result<usize, Error> {
    crate::py::check_width(i64::try_from(w).unwrap_or(i64::MAX))?;
    Ok(w)
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
            // Unknown names outside `if` branches failed the compile (names.rs); one that
            // reaches the renderer sits in a branch, where Jinja2's stub raises this.
            MjKind::UnknownFilter => (
                ErrorKind::TemplateRuntimeError,
                format!("No filter named {} found.", unknown_name(detail)),
            ),
            MjKind::UnknownTest => (
                ErrorKind::TemplateRuntimeError,
                format!("No test named {} found.", unknown_name(detail)),
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
            MjKind::OutOfFuel => (ErrorKind::LimitExceeded, OUT_OF_FUEL.to_owned()),
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
            MjKind::InvalidOperation if detail.ends_with(" is not callable") => {
                (ErrorKind::TypeError, not_callable_message(detail))
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

/// [`map_error`] for an error from compiling `source` (the text minijinja parsed): the syntax
/// errors about a template's block structure get Jinja2's wording, which names the tags it was
/// looking for and the innermost block left open (Jinja2's `Parser.fail_eof` and
/// `fail_unknown_tag`); minijinja only says "unexpected end of input" or "unknown statement".
pub(crate) fn map_compile_error(err: &Error, source: &str) -> TemplateError {
    let mapped = map_error(err, |_| None);
    if mapped.kind() != ErrorKind::TemplateSyntaxError {
        return mapped;
    }
    let detail = err.detail().unwrap_or_default();
    let upto = err.range().map_or(source.len(), |r| r.start);
    if detail == "non-keyword arg after keyword arg" {
        // Jinja2 reports a misplaced argument at the call's opening parenthesis.
        if let Some(paren) = open_paren(source, upto) {
            return mapped.with_range(paren..paren + 1);
        }
    }
    if detail == "cannot assign to reserved variable name loop" {
        // Jinja2's compiler, not its parser, rejects this: its assertion-error subclass.
        let e = TemplateError::new(
            ErrorKind::TemplateAssertionError,
            "Can't assign to special loop variable in for-loop target",
        );
        return match mapped.range() {
            Some(range) => e.with_range(range),
            None => e,
        };
    }
    let message = match detail {
        "unexpected end of comment" => Some("Missing end of comment tag".to_owned()),
        "unexpected end of raw block" => Some("Missing end of raw directive".to_owned()),
        "unexpected end of input, expected end of variable block" => {
            Some("unexpected end of template, expected 'end of print statement'.".to_owned())
        }
        d if d.starts_with("unexpected end of input") => open_blocks(source, source.len())
            .filter(|scan| !scan.in_tag && !scan.frames.is_empty())
            .map(|scan| unclosed_message(None, &scan.frames)),
        d => d.strip_prefix("unknown statement ").and_then(|name| {
            open_blocks(source, upto).map(|scan| unclosed_message(Some(name), &scan.frames))
        }),
    };
    match (message, mapped.range()) {
        (Some(m), Some(range)) => TemplateError::new(mapped.kind(), m).with_range(range),
        (Some(m), None) => TemplateError::new(mapped.kind(), m),
        (None, _) => mapped,
    }
}

/// The byte offset of the innermost `(` still open at `upto`.
fn open_paren(source: &str, upto: usize) -> Option<usize> {
    use super::machinery::{tokenize, Token};
    let mut open = Vec::new();
    let syntax = super::env::base().syntax().clone();
    for item in tokenize(source, false, syntax) {
        let (token, span) = item.ok()?;
        if span.start_offset as usize >= upto {
            break;
        }
        match token {
            Token::ParenOpen => open.push(span.start_offset as usize),
            Token::ParenClose => {
                open.pop();
            }
            _ => {}
        }
    }
    open.pop()
}

/// A block left open, as Jinja2's parser keeps it: the tag that opened it and the end tokens the
/// parser is looking for inside it now (`for` looks for `endfor` or `else`, and for `endfor`
/// alone after its `else`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame {
    pub tag: &'static str,
    pub looking: &'static [&'static str],
}

pub(crate) struct Scan {
    pub frames: Vec<Frame>,
    /// The text ends inside a `{{ ... }}` or `{% ... %}` (the error is about that tag).
    pub in_tag: bool,
}

/// The tags that open a block, and what the parser then looks for.
fn opens(tag: &str) -> Option<Frame> {
    let (tag, looking): (&'static str, &'static [&'static str]) = match tag {
        "for" => ("for", &["endfor", "else"]),
        "if" => ("if", &["elif", "else", "endif"]),
        "macro" => ("macro", &["endmacro"]),
        "call" => ("call", &["endcall"]),
        "filter" => ("filter", &["endfilter"]),
        "set" => ("set", &["endset"]),
        "with" => ("with", &["endwith"]),
        "autoescape" => ("autoescape", &["endautoescape"]),
        "block" => ("block", &["endblock"]),
        _ => return None,
    };
    Some(Frame { tag, looking })
}

/// The blocks open at byte `upto` of `source` (only tags that end before it count), or `None`
/// when the text does not tokenize that far (the parser's own error is then the better one).
pub(crate) fn open_blocks(source: &str, upto: usize) -> Option<Scan> {
    use super::machinery::{tokenize, Token};
    let mut frames: Vec<Frame> = Vec::new();
    // The statement being read: its name, whether a `=` at its top level makes a `set` an
    // assignment rather than a block, and the bracket depth.
    let mut tag: Option<(Option<String>, bool, usize)> = None;
    let mut in_tag = false;
    let syntax = super::env::base().syntax().clone();
    for item in tokenize(source, false, syntax) {
        let (token, span) = item.ok()?;
        if span.start_offset as usize >= upto {
            break;
        }
        match token {
            Token::BlockStart => {
                tag = Some((None, false, 0));
                in_tag = true;
            }
            Token::VariableStart => in_tag = true,
            Token::VariableEnd => in_tag = false,
            Token::BlockEnd => {
                in_tag = false;
                if let Some((Some(name), assign, _)) = tag.take() {
                    statement(&mut frames, &name, assign);
                }
            }
            _ => {
                if let Some((name, assign, depth)) = &mut tag {
                    match token {
                        Token::Ident(n) if name.is_none() => *name = Some(n.to_owned()),
                        Token::ParenOpen | Token::BracketOpen | Token::BraceOpen => *depth += 1,
                        Token::ParenClose | Token::BracketClose | Token::BraceClose => {
                            *depth = depth.saturating_sub(1);
                        }
                        Token::Assign if *depth == 0 => *assign = true,
                        _ => {}
                    }
                }
            }
        }
    }
    Some(Scan { frames, in_tag })
}

/// One complete `{% name ... %}`: opens, continues or closes a block as Jinja2's parser does.
fn statement(frames: &mut Vec<Frame>, name: &str, assign: bool) {
    if let Some(top) = frames.last_mut() {
        if top.looking.contains(&name) {
            match (top.tag, name) {
                ("for", "else") => top.looking = &["endfor"],
                ("if", "else") => top.looking = &["endif"],
                (_, "elif") => {}
                _ => {
                    frames.pop();
                }
            }
            return;
        }
    }
    if name == "set" && assign {
        return;
    }
    if let Some(frame) = opens(name) {
        frames.push(frame);
    }
}

/// Jinja2's `Parser._fail_ut_eof`: at the end of the template (`tag` none) or at a tag it does
/// not know, what it was looking for and the innermost block that needs closing.
pub(crate) fn unclosed_message(tag: Option<&str>, frames: &[Frame]) -> String {
    let mut message = match tag {
        None => "Unexpected end of template.".to_owned(),
        Some(name) => format!("Encountered unknown tag '{name}'."),
    };
    if let Some(top) = frames.last() {
        let looking: Vec<String> = top.looking.iter().map(|t| format!("'{t}'")).collect();
        let looking = looking.join(" or ");
        let expected = |name: &str| frames.iter().any(|f| f.looking.contains(&name));
        match tag {
            Some(name) if expected(name) => message.push_str(&format!(
                " You probably made a nesting mistake. Jinja is expecting this tag, but currently looking for {looking}."
            )),
            _ => message.push_str(&format!(
                " Jinja was looking for the following tags: {looking}."
            )),
        }
        message.push_str(&format!(
            " The innermost block that needs to be closed is '{}'.",
            top.tag
        ));
    }
    message
}

fn plain(detail: &str) -> String {
    // minijinja appends where an undefined value came from; Jinja2 does not.
    detail.to_owned()
}

fn syntax_message(detail: &str) -> String {
    if detail.is_empty() {
        "invalid syntax".to_owned()
    } else if detail == "non-keyword arg after keyword arg" {
        // Jinja2's `parse_call_args` says this for every misplaced argument.
        "invalid syntax for function call expression".to_owned()
    } else {
        detail.to_owned()
    }
}

/// minijinja says "value of type number is not callable"; Python names the type.
fn not_callable_message(detail: &str) -> String {
    let kind = detail
        .strip_prefix("value of type ")
        .and_then(|r| r.strip_suffix(" is not callable"));
    let name = match kind {
        Some("none") => "NoneType",
        Some("bool") => "bool",
        Some("number") => "int",
        Some("string") => "str",
        Some("sequence") => "list",
        Some("map") => "dict",
        Some("iterator") => "generator",
        _ => return plain(detail),
    };
    format!("'{name}' object is not callable")
}

/// minijinja reports an unknown name as "filter f is unknown".
fn unknown_name(detail: &str) -> String {
    quoted_name(detail.strip_suffix(" is unknown").unwrap_or(detail))
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
