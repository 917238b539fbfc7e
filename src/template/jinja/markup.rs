//! `{% autoescape %}` scopes and markupsafe's `Markup` (a minijinja safe string).
//!
//! Jinja2 decides how `{{ x }}` prints from the scope the tag sits in when the template is
//! compiled: inside `{% autoescape true %}` it prints `escape(x)`, elsewhere `str(x)`, whatever
//! the scope at run time (a macro defined outside a scope and called inside it does not escape;
//! `{% block %}` bodies are compiled outside every scope). Only when the tag's value is not a
//! constant does the choice wait for run time. Things that Jinja2 decides at run time (macro and
//! `caller()` results, `{% set %}` blocks, `join`, `replace`, `xmlattr`, `urlize`) read minijinja's
//! own auto-escape state, which follows the tags as they run.
//!
//! minijinja instead escapes wherever its run-time state says so, and reads the tag's value its
//! own way (`'none'` turns escaping off, other strings are errors). So the instruction streams
//! that contain a tag are rebuilt (`apply_scopes`): the tag's value goes through Python's
//! truthiness, the body gets a scope of its own (assignments inside do not leak, as in Jinja2),
//! and each `{{ }}` inside an escaping scope escapes its value before it is printed. The formatter
//! itself never escapes.

use super::machinery::{Instruction, Instructions};
use minijinja::value::{Value as JValue, ValueKind};
use minijinja::{AutoEscape, Environment, Error, State};

use super::filters::html_escape;
use super::print::py_str;
use super::pyops::{is_float, is_int, py_list, truthy};

/// `escape(x)`: compiled into `{{ }}` inside `{% autoescape <true constant> %}`.
const ESCAPE: &str = "\u{0}escape";
/// `escape(x)` if escaping is on at run time, else `x`: `{{ }}` inside a non-constant scope.
const ESCAPE_IF_ON: &str = "\u{0}escape_if_on";
/// The tag's value as a bool (minijinja reads strings as escape modes).
const AUTOESCAPE_VALUE: &str = "\u{0}autoescape_value";
/// Jinja2's `markup_join`, which `~` compiles to inside a constant escaping scope.
const MARKUP_JOIN: &str = "\u{0}markup_join";

pub(crate) fn register(env: &mut Environment<'static>) {
    env.add_function(ESCAPE, |v: JValue| -> Result<JValue, Error> { escape(&v) });
    env.add_function(
        ESCAPE_IF_ON,
        |state: &State, v: JValue| -> Result<JValue, Error> {
            if autoescape_on(state) {
                escape(&v)
            } else {
                Ok(v)
            }
        },
    );
    env.add_function(AUTOESCAPE_VALUE, |v: JValue| JValue::from(truthy(&v)));
    env.add_function(MARKUP_JOIN, markup_join);
}

/// Whether `eval_ctx.autoescape` is on where the template is running now.
pub(crate) fn autoescape_on(state: &State) -> bool {
    !matches!(state.auto_escape(), AutoEscape::None)
}

/// markupsafe's `escape`: Markup stays as it is, anything else is `str()`-ed and escaped.
pub(crate) fn escape(v: &JValue) -> Result<JValue, Error> {
    if v.is_safe() {
        return Ok(v.clone());
    }
    Ok(JValue::from_safe_string(html_escape(&py_str(v)?)))
}

/// `Markup(v)` without escaping (a string's character taken from a Markup).
pub(crate) fn mark_safe(v: &JValue) -> JValue {
    match v.as_str() {
        Some(s) => JValue::from_safe_string(s.to_owned()),
        None => v.clone(),
    }
}

/// The text of `escape(v)`.
pub(crate) fn escaped_text(v: &JValue) -> Result<String, Error> {
    if v.is_safe() {
        return py_str(v);
    }
    Ok(html_escape(&py_str(v)?))
}

/// Jinja2's `markup_join` for two operands: `soft_str` of each, and if either is Markup, the
/// other is escaped and the result is Markup.
fn markup_join(state: &State, a: JValue, b: JValue) -> Result<JValue, Error> {
    let (x, y) = if a.is_safe() || b.is_safe() {
        (escaped_text(&a)?, escaped_text(&b)?)
    } else {
        (py_str(&a)?, py_str(&b)?)
    };
    super::filters::ensure_size(state, x.len().saturating_add(y.len()))?;
    let s = x + &y;
    Ok(if a.is_safe() || b.is_safe() {
        JValue::from_safe_string(s)
    } else {
        JValue::from(s)
    })
}

/// `a + b` where at least one of two strings is Markup: `Markup.__add__`/`__radd__` escape the
/// other operand.
pub(crate) fn add(a: &JValue, b: &JValue) -> Result<JValue, Error> {
    Ok(JValue::from_safe_string(
        escaped_text(a)? + &escaped_text(b)?,
    ))
}

/// An argument of a Markup operation, escaped as markupsafe's helper does: strings and other
/// objects print escaped, numbers keep their type for `%d` and format specs.
fn escape_arg(v: &JValue) -> Result<JValue, Error> {
    if is_int(v) || is_float(v) || v.kind() == ValueKind::Bool || v.is_safe() {
        return Ok(v.clone());
    }
    Ok(JValue::from(html_escape(&py_str(v)?)))
}

/// `Markup % args`: the arguments (a tuple's items, a mapping's values, or the one value) are
/// escaped, then formatted with Python's `%`; the result is Markup.
pub(crate) fn percent(fmt: &str, args: &JValue) -> Result<JValue, Error> {
    let out = if args.kind() == ValueKind::Map {
        let mut pairs = Vec::new();
        for key in args.try_iter()? {
            let value = args.get_item(&key)?;
            pairs.push((key, escape_arg(&value)?));
        }
        super::percent::percent_format_map(fmt, &JValue::from_pairs(pairs))?
    } else if args.is_tuple() {
        let items = py_list(args)?
            .iter()
            .map(escape_arg)
            .collect::<Result<Vec<_>, _>>()?;
        super::percent::percent_format(fmt, &items)?
    } else {
        super::percent::percent_format(fmt, &[escape_arg(args)?])?
    };
    Ok(JValue::from_safe_string(out))
}

/// `Markup(...)` of the string `s` when escaping is on at run time, else plain `s`.
pub(crate) fn markup_if_on(state: &State, s: String) -> JValue {
    if autoescape_on(state) {
        JValue::from_safe_string(s)
    } else {
        JValue::from(s)
    }
}

/// Markup's own methods: `format` and `join` escape their arguments, `replace` its new text and
/// `center`/`ljust`/`rjust` their fill character, and the `str` methods that return strings
/// return Markup. `None` for the rest,
/// which behave as on `str`.
pub(crate) fn call_method(
    state: &mut State,
    value: &JValue,
    method: &str,
    args: &[JValue],
) -> Option<Result<JValue, Error>> {
    const WRAPPED: &[&str] = &[
        "format",
        "join",
        "upper",
        "lower",
        "title",
        "capitalize",
        "swapcase",
        "casefold",
        "strip",
        "lstrip",
        "rstrip",
        "center",
        "ljust",
        "rjust",
        "zfill",
        "expandtabs",
        "replace",
        "removeprefix",
        "removesuffix",
        "split",
        "rsplit",
        "splitlines",
        "partition",
        "rpartition",
    ];
    if !value.is_safe() || !WRAPPED.contains(&method) {
        return None;
    }
    Some((|| {
        let plain = JValue::from(py_str(value)?);
        let args = if method == "join" {
            let (items, rest) = args
                .split_first()
                .map_or((None, args), |(f, r)| (Some(f), r));
            let mut out = Vec::with_capacity(args.len());
            if let Some(items) = items {
                let escaped = py_list(items)?
                    .iter()
                    .map(|item| match item.as_str() {
                        // `str.join` refuses non-strings; leave them for its message.
                        Some(_) => escaped_text(item).map(JValue::from),
                        None => Ok(item.clone()),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                out.push(JValue::from(escaped));
            }
            out.extend(rest.iter().cloned());
            out
        } else {
            // markupsafe escapes `replace`'s new text and the fill characters only.
            let escaped_at = match method {
                "replace" | "center" | "ljust" | "rjust" => Some(1),
                _ => None,
            };
            args.iter()
                .enumerate()
                .map(|(i, a)| {
                    if method == "format" {
                        if a.is_kwargs() {
                            escape_kwargs(a)
                        } else {
                            escape_arg(a)
                        }
                    } else if Some(i) == escaped_at && a.kind() == ValueKind::String {
                        escaped_text(a).map(JValue::from)
                    } else {
                        Ok(a.clone())
                    }
                })
                .collect::<Result<Vec<_>, _>>()?
        };
        let rv = super::methods::call_method(state, &plain, method, &args)?;
        Ok(match rv.as_str() {
            Some(s) => JValue::from_safe_string(s.to_owned()),
            // `split` and `partition` give lists and tuples of Markup.
            None if rv.kind() == ValueKind::Seq => {
                let items: Vec<JValue> = py_list(&rv)?.iter().map(mark_safe).collect();
                if rv.is_tuple() {
                    JValue::from(minijinja::value::Tuple::from(items))
                } else {
                    JValue::from(items)
                }
            }
            None => rv,
        })
    })())
}

fn escape_kwargs(kwargs: &JValue) -> Result<JValue, Error> {
    let mut pairs = Vec::new();
    for key in kwargs.try_iter()? {
        let value = kwargs.get_item(&key)?;
        pairs.push((
            key.as_str().unwrap_or_default().to_owned(),
            escape_arg(&value)?,
        ));
    }
    Ok(JValue::from(minijinja::value::Kwargs::from_iter(pairs)))
}

/// The escaping state of a place in the template, as Jinja2's compiler knows it.
#[derive(Clone, Copy)]
struct Scope {
    /// `eval_ctx.autoescape` at compile time.
    on: bool,
    /// The tag's value was not a constant: printing decides at run time.
    volatile: bool,
}

/// Rebuilds every instruction stream that contains an `{% autoescape %}` tag (see the module
/// comment); others are left untouched.
pub(crate) fn apply_scopes<'s>(instrs: &mut Instructions<'s>) {
    let len = (0u32..).take_while(|&pc| instrs.get(pc).is_some()).count() as u32;
    if !(0..len).any(|pc| matches!(instrs.get(pc), Some(Instruction::PushAutoEscape))) {
        return;
    }
    let mut targets = vec![false; len as usize + 1];
    for pc in 0..len {
        if let Some(t) = instrs.get(pc).and_then(jump_target) {
            if let Some(slot) = targets.get_mut(t as usize) {
                *slot = true;
            }
        }
    }

    // Instructions to insert before each old instruction, and replacements.
    let mut before: Vec<Vec<Instruction<'static>>> = vec![Vec::new(); len as usize + 1];
    let mut replaced: Vec<Option<Instruction<'static>>> = vec![None; len as usize];
    let mut scopes = vec![Scope {
        on: false,
        volatile: false,
    }];
    for pc in 0..len {
        let Some(instr) = instrs.get(pc) else { break };
        let scope = *scopes.last().unwrap_or(&Scope {
            on: false,
            volatile: false,
        });
        match instr {
            Instruction::PushAutoEscape => {
                let constant = match pc.checked_sub(1).and_then(|p| instrs.get(p)) {
                    Some(Instruction::LoadConst(v)) if !targets[pc as usize] => Some(truthy(v)),
                    _ => None,
                };
                scopes.push(match constant {
                    Some(on) => Scope {
                        on,
                        volatile: scope.volatile,
                    },
                    None => Scope {
                        on: scope.on,
                        volatile: true,
                    },
                });
                before[pc as usize].push(Instruction::CallFunction(AUTOESCAPE_VALUE, Some(1)));
                before[pc as usize + 1].push(Instruction::PushWith);
            }
            Instruction::PopAutoEscape => {
                if scopes.len() > 1 {
                    scopes.pop();
                }
                before[pc as usize].push(Instruction::PopFrame);
            }
            Instruction::Emit if is_print(instrs, pc) => {
                // Jinja2 prints a constant as the compile-time setting says, even in a
                // non-constant scope (where that setting is the enclosing one).
                let constant = matches!(
                    pc.checked_sub(1).and_then(|p| instrs.get(p)),
                    Some(Instruction::LoadConst(_))
                ) && !targets[pc as usize];
                if scope.volatile && !constant {
                    before[pc as usize].push(Instruction::CallFunction(ESCAPE_IF_ON, Some(1)));
                } else if scope.on {
                    before[pc as usize].push(Instruction::CallFunction(ESCAPE, Some(1)));
                }
            }
            Instruction::StringConcat if scope.on && !scope.volatile => {
                replaced[pc as usize] = Some(Instruction::CallFunction(MARKUP_JOIN, Some(2)));
            }
            _ => {}
        }
    }

    // Where each old instruction's inserted group starts in the new stream: jumps land there.
    let mut start = Vec::with_capacity(len as usize + 1);
    let mut n = 0u32;
    for (pc, group) in before.iter().enumerate() {
        n += group.len() as u32;
        start.push(n - group.len() as u32 + pc as u32);
    }
    let mut rebuilt: Instructions<'s> = Instructions::new(instrs.name(), instrs.source());
    let add =
        |out: &mut Instructions<'s>, instr: Instruction<'s>, pc: u32| match instrs.get_span(pc) {
            Some(span) => out.add_with_span(instr, span),
            None => out.add_with_line(instr, instrs.get_line(pc).unwrap_or(0) as u16),
        };
    for pc in 0..len {
        for extra in &before[pc as usize] {
            add(&mut rebuilt, extra.clone(), pc);
        }
        let instr = match replaced[pc as usize].take() {
            Some(new) => new,
            None => match instrs.get(pc) {
                Some(old) => relocate(old.clone(), &start),
                None => break,
            },
        };
        add(&mut rebuilt, instr, pc);
    }
    *instrs = rebuilt;
}

/// Whether the `Emit` at `pc` prints a `{{ }}` expression (a `{% filter %}` or `{% call %}`
/// block's result is written as it is, in Jinja2 too).
fn is_print(instrs: &Instructions<'_>, pc: u32) -> bool {
    // The span is the expression's: look behind it for the `{{` (with its whitespace control).
    instrs.get_span(pc).is_some_and(|span| {
        instrs
            .source()
            .get(..span.start_offset as usize)
            .map(|before| before.trim_end().trim_end_matches(['-', '+']))
            .is_some_and(|before| before.ends_with("{{"))
    })
}

fn jump_target(instr: &Instruction<'_>) -> Option<u32> {
    match instr {
        Instruction::Jump(t)
        | Instruction::JumpIfFalse(t)
        | Instruction::JumpIfFalseOrPop(t)
        | Instruction::JumpIfTrueOrPop(t)
        | Instruction::Iterate(t)
        | Instruction::BuildMacro(_, t, _) => Some(*t),
        _ => None,
    }
}

fn relocate<'s>(instr: Instruction<'s>, start: &[u32]) -> Instruction<'s> {
    super::rebuild::retarget(instr, |t| start.get(t as usize).copied().unwrap_or(t))
}
