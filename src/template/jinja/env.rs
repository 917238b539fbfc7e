//! The shared base environment: Jinja2's default `Environment()` settings on minijinja, built
//! once per process and cloned (cheaply: its tables are shared) for each compiled template.

use std::borrow::Cow;
use std::sync::LazyLock;

use super::machinery::TemplateConfig;
use minijinja::value::{Kwargs, Rest, Value as JValue};
use minijinja::{AutoEscape, Environment, Error, State, UndefinedBehavior};

use super::errors::type_error;
use super::filters::{arg, bind, with_kwargs};
use super::objects::{Cycler, Joiner, Range};
use super::print::{py_str, write_str};
use super::pyops::{as_int, is_float};
use super::undefined::py_type_name;
use super::{filters, methods, tests_builtin};

/// Nesting of macros, loops and includes before rendering fails.
const RECURSION_LIMIT: usize = 200;

/// A template name no template has: every include, import and extends resolves to it, and
/// fails the way Jinja2 without a loader does.
const NO_LOADER: &str = "\u{0}no-loader";

/// Template syntax as Jinja2's defaults: no trim_blocks/lstrip_blocks, one trailing newline
/// stripped; autoescape off.
pub(crate) fn template_config() -> TemplateConfig {
    TemplateConfig {
        syntax_config: base().syntax().clone(),
        default_auto_escape: std::sync::Arc::new(|_| AutoEscape::None),
    }
}

static BASE: LazyLock<Environment<'static>> = LazyLock::new(build);

pub(crate) fn base() -> &'static Environment<'static> {
    &BASE
}

/// The base environment with less fuel: a render the scene's budget limits.
pub(crate) fn with_fuel(fuel: u64) -> Environment<'static> {
    let mut env = base().clone();
    env.set_fuel(Some(fuel));
    env
}

fn build() -> Environment<'static> {
    let mut env = Environment::new();
    // Debug mode records where undefined values came from, which Jinja2's messages need.
    env.set_debug(true);
    env.set_undefined_behavior(UndefinedBehavior::Lenient);
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env.set_formatter(format_output);
    env.set_fuel(Some(crate::template::budget::TEMPLATE_FUEL));
    env.set_recursion_limit(RECURSION_LIMIT);
    env.set_path_join_callback(|_, _| Cow::Borrowed(NO_LOADER));
    env.set_unknown_method_callback(methods::call_method);

    for name in env_filter_names(&env) {
        env.remove_filter(name);
    }
    for name in [
        "startingwith",
        "endingwith",
        "safe",
        "sameas",
        "filter",
        "test",
    ] {
        env.remove_test(name);
    }
    filters::register(&mut env);
    super::ops::register(&mut env);
    super::markup::register(&mut env);
    super::bound::register(&mut env);
    super::mutable::register(&mut env);
    tests_builtin::register(&mut env);

    env.remove_global("debug");
    env.add_function("range", range);
    env.add_function("cycler", |args: Rest<JValue>| -> Result<JValue, Error> {
        Ok(JValue::from_object(Cycler::new(args.0)?))
    });
    env.add_function(
        "joiner",
        |args: Rest<JValue>, kwargs: Kwargs| -> Result<JValue, Error> {
            let b = bind("joiner", &with_kwargs(args, kwargs), &["sep"], 0)?;
            Ok(JValue::from_object(Joiner::new(py_str(&arg(
                &b,
                0,
                || JValue::from(", "),
            ))?)))
        },
    );
    env
}

/// minijinja's own filters, all replaced by ours (or absent from Jinja2, like `split`).
fn env_filter_names(_env: &Environment<'static>) -> Vec<&'static str> {
    vec![
        "safe",
        "escape",
        "e",
        "lower",
        "upper",
        "title",
        "capitalize",
        "replace",
        "length",
        "count",
        "dictsort",
        "items",
        "reverse",
        "trim",
        "join",
        "split",
        "lines",
        "default",
        "d",
        "round",
        "abs",
        "int",
        "float",
        "attr",
        "first",
        "last",
        "min",
        "max",
        "sort",
        "list",
        "string",
        "bool",
        "batch",
        "slice",
        "sum",
        "indent",
        "select",
        "reject",
        "selectattr",
        "rejectattr",
        "map",
        "groupby",
        "unique",
        "chain",
        "zip",
        "pprint",
        "format",
        "json",
        "tojson",
        "urlencode",
    ]
}

/// `{{ x }}` writes `str(x)`.
fn format_output(
    out: &mut minijinja::Output,
    state: &mut State,
    value: &JValue,
) -> Result<(), Error> {
    super::work::observe(state);
    let mut s = String::new();
    write_str(&mut s, value)?;
    super::work::print(s.len())?;
    out.write_str(&s).map_err(|_| {
        Error::new(
            minijinja::ErrorKind::WriteFailure,
            "output size limit exceeded",
        )
    })
}

/// Python's `range(start, stop, step)`.
fn range(args: Rest<JValue>) -> Result<JValue, Error> {
    let ints: Vec<i128> = args
        .0
        .iter()
        .map(|v| {
            if v.is_kwargs() {
                return Err(type_error("range() takes no keyword arguments"));
            }
            as_int(v).ok_or_else(|| {
                let name = if is_float(v) {
                    "float"
                } else {
                    py_type_name(v)
                };
                type_error(format!(
                    "'{name}' object cannot be interpreted as an integer"
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    let r = match ints.as_slice() {
        [stop] => Range::new(0, *stop, 1)?,
        [start, stop] => Range::new(*start, *stop, 1)?,
        [start, stop, step] => Range::new(*start, *stop, *step)?,
        [] => return Err(type_error("range expected at least 1 argument, got 0")),
        more => {
            return Err(type_error(format!(
                "range expected at most 3 arguments, got {}",
                more.len()
            )))
        }
    };
    Ok(JValue::from_object(r))
}
