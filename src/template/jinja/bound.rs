//! Bound methods as values: Jinja2's `getattr(obj, name)` finds `'a'.upper`, `d.keys` or
//! `loop.cycle` without calling them, so they pass `is callable`, can be called later
//! (`(x|attr('upper'))()`) and print as Python's repr. minijinja only has methods at the point
//! of a call, so attributes named like a method go through `fix_attr` (see `rebuild.rs`).

use std::fmt;
use std::sync::Arc;

use minijinja::value::{Object, ObjectRepr, Value as JValue, ValueKind};
use minijinja::{Environment, Error, State};

use super::errors::type_error;
use super::objects::Cycler;
use super::undefined::py_type_name;
use crate::py::attrs::{lookup, Attr};

pub(crate) const FIX_ATTR: &str = "\u{0}getattr";
pub(crate) const CHECK_ITERABLE: &str = "\u{0}iter";

/// The repr of a builtin method carries a memory address in CPython, which varies per run.
const FAKE_ADDRESS: &str = "0x7f3a5c2e1d80";

/// Methods of minijinja's loop object and of our cycler, which Jinja2 exposes as attributes.
const LOOP_METHODS: [&str; 2] = ["cycle", "changed"];
const CYCLER_METHODS: [&str; 2] = ["next", "reset"];

/// A method bound to its object: calling it calls the method.
#[derive(Debug)]
pub(crate) struct BoundMethod {
    obj: JValue,
    name: String,
    /// The type named in the repr (`str`, `dict`, `LoopContext`, ...).
    of: &'static str,
    builtin: bool,
}

impl Object for BoundMethod {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn call(self: &Arc<Self>, state: &mut State<'_, '_>, args: &[JValue]) -> Result<JValue, Error> {
        self.obj.call_method(state, &self.name, args)
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.builtin {
            write!(
                f,
                "<built-in method {} of {} object at {FAKE_ADDRESS}>",
                self.name, self.of
            )
        } else {
            write!(
                f,
                "<bound method {}.{} of <{} object at {FAKE_ADDRESS}>>",
                self.of, self.name, self.of
            )
        }
    }
}

pub(crate) fn is_bound_method(v: &JValue) -> bool {
    v.downcast_object_ref::<BoundMethod>().is_some()
}

/// The Python type whose methods `v` has, for the JSON types (minijinja's own, our lazily
/// converted and our mutable lists and dicts; not ranges, views or the loop object).
fn method_type(v: &JValue) -> Option<&'static str> {
    use super::convert::{LazyDict, LazyList};
    use super::mutable::{PyDict, PyList};
    match v.kind() {
        ValueKind::String => Some("str"),
        ValueKind::Seq if v.is_tuple() => Some("tuple"),
        ValueKind::Seq
            if v.downcast_object_ref::<Vec<JValue>>().is_some()
                || v.downcast_object_ref::<LazyList>().is_some()
                || v.downcast_object_ref::<PyList>().is_some() =>
        {
            Some("list")
        }
        ValueKind::Map
            if v.downcast_object_ref::<indexmap::IndexMap<JValue, JValue>>()
                .is_some()
                || v.downcast_object_ref::<LazyDict>().is_some()
                || v.downcast_object_ref::<PyDict>().is_some() =>
        {
            Some("dict")
        }
        _ => None,
    }
}

fn builtin_method(ty: &str, name: &str) -> Option<(&'static str, &'static str)> {
    if name.starts_with('_') {
        return None;
    }
    if ty == "tuple" {
        return match name {
            "count" => Some(("count", "tuple")),
            "index" => Some(("index", "tuple")),
            _ => None,
        };
    }
    match lookup(ty, name)? {
        (n, Attr::Method(of)) => Some((n, of)),
        _ => None,
    }
}

/// Whether some value has a method called `name` (only those attributes are rewritten).
pub(crate) fn may_be_method(name: &str) -> bool {
    ["str", "list", "dict", "tuple"]
        .iter()
        .any(|ty| builtin_method(ty, name).is_some())
        || LOOP_METHODS.contains(&name)
        || CYCLER_METHODS.contains(&name)
}

/// The bound method `obj.name`, if `obj` has that method.
pub(crate) fn method_of(obj: &JValue, name: &str) -> Option<JValue> {
    let bound = |name: &str, of: &'static str, builtin: bool| {
        JValue::from_object(BoundMethod {
            obj: obj.clone(),
            name: name.to_owned(),
            of,
            builtin,
        })
    };
    if let Some(ty) = method_type(obj) {
        let (n, of) = builtin_method(ty, name)?;
        return Some(bound(n, of, true));
    }
    if obj.downcast_object_ref::<Cycler>().is_some() && CYCLER_METHODS.contains(&name) {
        return Some(bound(name, "Cycler", false));
    }
    if LOOP_METHODS.contains(&name) && obj.as_object().is_some() && is_loop(obj) {
        return Some(bound(name, "LoopContext", false));
    }
    None
}

/// minijinja's loop object is private; it renders as `<loop i/n>` (checked last: rendering a
/// big object is not free).
pub(crate) fn is_loop(v: &JValue) -> bool {
    v.as_object().is_some()
        && !matches!(v.kind(), ValueKind::Seq | ValueKind::Iterable)
        && method_type(v).is_none()
        && v.to_string().starts_with("<loop ")
}

/// `obj.name` where minijinja's lookup gave `attr`: Jinja2 tries `getattr` first, so a dict's
/// method wins over its key of that name, and a method is found where minijinja finds nothing.
fn fix_attr(obj: JValue, attr: JValue, name: JValue) -> Result<JValue, Error> {
    let Some(name) = name.as_str() else {
        return Ok(attr);
    };
    let is_dict = method_type(&obj) == Some("dict");
    if is_dict || attr.is_undefined() {
        if let Some(m) = method_of(&obj, name) {
            return Ok(m);
        }
    }
    Ok(attr)
}

/// Jinja2's `for` (and `loop(...)`) calls `iter()` on its iterable: `None`, numbers and
/// functions raise (an undefined value iterates as empty).
fn check_iterable(v: JValue) -> Result<JValue, Error> {
    let scalar = matches!(
        v.kind(),
        ValueKind::None | ValueKind::Bool | ValueKind::Number | ValueKind::Plain
    );
    if scalar {
        let name = py_type_name(&v);
        return Err(type_error(format!(
            "'{}' object is not iterable",
            name.rsplit('.').next().unwrap_or(name)
        )));
    }
    Ok(v)
}

pub(crate) fn register(env: &mut Environment<'static>) {
    env.add_function(FIX_ATTR, fix_attr);
    env.add_function(CHECK_ITERABLE, check_iterable);
}
