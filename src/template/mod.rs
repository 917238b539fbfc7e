//! Template engines: Python's `str.format_map` (`fstring`) and Jinja2 (`jinja2`).
//!
//! Both compile once into a [`Template`] and render many times over shared [`Vars`]; both report
//! failures as one [`TemplateError`] type carrying the Python exception name and a position.

pub mod budget;
mod error;
pub mod fstring;
pub mod jinja;
mod suggest;

use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, OnceLock};

pub use budget::Budget;
pub use error::{ErrorKind, TemplateError};

use crate::value::Value;

/// Which engine renders a template (`Template.engine` in a scene file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    Fstring,
    Jinja2,
}

impl Engine {
    /// Every engine, the names `from_str` accepts (and the scene schema's `Engine` enum).
    pub const ALL: [Engine; 2] = [Engine::Fstring, Engine::Jinja2];

    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Fstring => "fstring",
            Engine::Jinja2 => "jinja2",
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Engine {
    type Err = String;
    fn from_str(s: &str) -> Result<Engine, String> {
        Engine::ALL
            .into_iter()
            .find(|e| e.as_str() == s)
            .ok_or_else(|| {
                format!("unknown template engine {s:?}: expected \"fstring\" or \"jinja2\"")
            })
    }
}

/// Variables for rendering, converted once and shared by every template that renders over them.
///
/// The Jinja2 engine needs its own value representation; it is built lazily, once, the first
/// time a Jinja2 template renders over these variables. [`Vars::compose`] builds a dict of named
/// parts that reuses each part's conversion, so a tool's `{state, ctx}` does not convert the whole
/// context again for every tool.
pub struct Vars {
    value: Value,
    parts: Vec<(Arc<str>, Arc<Vars>)>,
    jinja: OnceLock<minijinja::Value>,
}

impl Vars {
    pub fn new(value: Value) -> Vars {
        Vars {
            value,
            parts: Vec::new(),
            jinja: OnceLock::new(),
        }
    }

    /// A dict whose entries are the given parts, in order, sharing their converted values.
    pub fn compose(parts: Vec<(Arc<str>, Arc<Vars>)>) -> Vars {
        let value = Value::Dict(Arc::new(
            parts
                .iter()
                .map(|(k, v)| (k.clone(), v.value.clone()))
                .collect(),
        ));
        Vars {
            value,
            parts,
            jinja: OnceLock::new(),
        }
    }

    pub fn value(&self) -> &Value {
        &self.value
    }

    pub(crate) fn jinja(&self) -> &minijinja::Value {
        self.jinja.get_or_init(|| {
            if self.parts.is_empty() {
                jinja::to_jinja_value(&self.value)
            } else {
                minijinja::Value::from_pairs(
                    self.parts
                        .iter()
                        .map(|(k, v)| (minijinja::Value::from(k.clone()), v.jinja().clone())),
                )
            }
        })
    }
}

impl From<Value> for Vars {
    fn from(value: Value) -> Vars {
        Vars::new(value)
    }
}

mod cache;

enum Compiled {
    Fstring(fstring::Compiled),
    Jinja2(jinja::Compiled),
}

/// A parsed template, reusable across renders.
pub struct Template {
    engine: Engine,
    source: Arc<str>,
    compiled: Compiled,
}

impl Template {
    /// Parses `source`.
    ///
    /// Jinja2 reports syntax errors here, as `Environment.from_string` does. Python's
    /// `str.format_map` parses as it renders, so an fstring syntax error is only raised when
    /// rendering reaches it (a missing key before it wins, as in CPython); editors can ask for it
    /// up front with [`Template::syntax_error`].
    pub fn compile(engine: Engine, source: &str) -> Result<Template, TemplateError> {
        let compiled = match engine {
            Engine::Fstring => Compiled::Fstring(fstring::compile(source)),
            Engine::Jinja2 => {
                Compiled::Jinja2(jinja::compile(source).map_err(|e| e.locate(source))?)
            }
        };
        Ok(Template {
            engine,
            source: Arc::from(source),
            compiled,
        })
    }

    /// [`Template::compile`] through a process-wide cache. A live document re-renders the same
    /// few hundred templates on every keystroke, and compiling them was a fifth of that work;
    /// compiling is a pure function of engine and source, so a compiled template can be shared.
    /// The cache is bounded: past its limits it is emptied and starts over.
    pub fn compile_shared(engine: Engine, source: &str) -> Result<Arc<Template>, TemplateError> {
        cache::compile(engine, source)
    }

    pub fn engine(&self) -> Engine {
        self.engine
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// The first syntax error in the template, if any, without rendering it.
    pub fn syntax_error(&self) -> Option<TemplateError> {
        match &self.compiled {
            Compiled::Fstring(c) => c.syntax_error().map(|e| e.locate(&self.source)),
            Compiled::Jinja2(_) => None,
        }
    }

    /// Renders over `vars` on its own (a budget of one scene render to itself); errors carry
    /// their line and column in this template.
    pub fn render(&self, vars: &Vars) -> Result<String, TemplateError> {
        self.render_with(vars, &Budget::scene())
    }

    /// Renders over `vars` as one of the templates of a scene render, within what `budget` has
    /// left and taking what it uses off it (see [`budget`]).
    pub fn render_with(&self, vars: &Vars, budget: &Budget) -> Result<String, TemplateError> {
        let result = match &self.compiled {
            Compiled::Fstring(c) => fstring::render_in(c, vars.value(), budget),
            Compiled::Jinja2(c) => jinja::render_in(c, vars.jinja(), budget),
        };
        result.map_err(|e| {
            let e = match (self.engine, e.range()) {
                // minijinja places an attribute or item lookup at its `.` or `[`: the error is
                // about the whole path (`ctx.user_inptu.input`), which starts at its name.
                (Engine::Jinja2, Some(r))
                    if matches!(self.source.as_bytes().get(r.start), Some(b'.' | b'[')) =>
                {
                    let start = suggest::path_start(&self.source, r.start);
                    e.with_range(start..r.end)
                }
                _ => e,
            };
            let e = e.locate(&self.source);
            let suggestions = suggest::for_error(self.engine, &self.source, &e, vars.value());
            e.with_suggestions(suggestions)
        })
    }
}

/// Escapes literal text for the `fstring` engine (`{` → `{{`, `}` → `}}`), so that it renders back
/// to exactly itself. This is what `format_2_prompt` does to a tool's string return.
pub fn escape_fstring(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(engine: Engine, source: &str) -> Result<String, TemplateError> {
        let vars = Vars::new(Value::from_json_str(r#"{"x": 7, "s": "ab"}"#).expect("json"));
        Template::compile(engine, source)?.render(&vars)
    }

    /// Both engines format through `crate::py`, so one width passes or fails in both, with the
    /// same error.
    #[test]
    fn both_engines_share_one_width_limit() {
        let max = crate::py::MAX_WIDTH;
        for spec in [format!(">{max}"), format!("0{max}d"), format!("^{max}")] {
            let value = if spec.ends_with('d') { "x" } else { "s" };
            let fstring = render(Engine::Fstring, &format!("{{{value}:{spec}}}")).expect("fits");
            let jinja = render(
                Engine::Jinja2,
                &format!("{{{{ '{{:{spec}}}'.format({value}) }}}}"),
            )
            .expect("fits");
            assert_eq!(fstring.chars().count() as i64, max);
            assert_eq!(fstring, jinja);
        }
        let over = max + 1;
        let fstring = render(Engine::Fstring, &format!("{{s:>{over}}}")).expect_err("too wide");
        let jinja = render(
            Engine::Jinja2,
            &format!("{{{{ '{{:>{over}}}'.format(s) }}}}"),
        )
        .expect_err("too wide");
        assert_eq!(fstring.kind(), ErrorKind::LimitExceeded);
        assert_eq!(
            fstring.message(),
            format!("width or precision {over} is larger than the limit of {max}")
        );
        assert_eq!(
            (jinja.kind(), jinja.message()),
            (fstring.kind(), fstring.message())
        );
    }
}
