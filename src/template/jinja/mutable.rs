//! Mutable lists and dicts for templates that call `append`, `pop`, `update`, ... (Jinja2's
//! default environment lets them: its values are Python objects). minijinja's values are
//! immutable, so a template that can call such a method (`rebuild.rs` looks) builds its list and
//! dict literals as these objects and sees its context through [`MutableRoot`], which copies each
//! variable into them on first use. A change is visible through every reference, as in Python.
//! Every other template keeps minijinja's values.
//!
//! Locks are held only to read a snapshot or to apply one change, never while other values are
//! compared or iterated. A change that would make a list or dict contain itself fails with
//! `LimitExceeded` (Python allows it and prints `[...]`): comparing or printing such a value would
//! never end here.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use indexmap::IndexMap;
use minijinja::value::{Enumerator, Object, ObjectRepr, Rest, Value as JValue, ValueKind};
use minijinja::{Environment, Error, ErrorKind as MjKind, State};

use super::errors::{py_err, type_error, value_error};
use super::filters::{arg, bind};
use super::pyops::{index_arg, py_cmp, py_eq, py_list};
use crate::template::ErrorKind;

pub(crate) const COPY: &str = "\u{0}mutable";
pub(crate) const BUILD_LIST: &str = "\u{0}list";
pub(crate) const BUILD_DICT: &str = "\u{0}mdict";

/// Methods that change a list or dict in place.
const MUTATING: [&str; 11] = [
    "append",
    "extend",
    "insert",
    "remove",
    "pop",
    "clear",
    "reverse",
    "sort",
    "update",
    "setdefault",
    "popitem",
];

pub(crate) fn is_mutating_method(name: &str) -> bool {
    MUTATING.contains(&name)
}

/// A constant that becomes a mutable object when evaluated.
pub(crate) fn is_container(v: &JValue) -> bool {
    matches!(v.kind(), ValueKind::Seq | ValueKind::Map) && !v.is_kwargs()
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Python's `list`.
#[derive(Default)]
pub(crate) struct PyList {
    items: Mutex<Vec<JValue>>,
}

/// Python's `dict`.
#[derive(Default)]
pub(crate) struct PyDict {
    map: Mutex<IndexMap<JValue, JValue>>,
}

// Not derived: the contents may be large, and `Debug` is used to tell object types apart.
impl fmt::Debug for PyList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PyList")
    }
}

impl fmt::Debug for PyDict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PyDict")
    }
}

/// Fails if `target` (a list or dict, by address) can be reached from `v`, which would make
/// the container hold itself. Values are acyclic before the change, so the walk ends; it is
/// charged to the render's fuel.
fn check_no_cycle(state: &State, v: &JValue, target: *const ()) -> Result<(), Error> {
    let mut stack = vec![v.clone()];
    let mut seen = 0usize;
    while let Some(v) = stack.pop() {
        seen += 1;
        if let Some(l) = v.downcast_object_ref::<PyList>() {
            if std::ptr::eq(l as *const PyList as *const (), target) {
                return Err(cycle());
            }
            stack.extend(l.snapshot());
        } else if let Some(d) = v.downcast_object_ref::<PyDict>() {
            if std::ptr::eq(d as *const PyDict as *const (), target) {
                return Err(cycle());
            }
            stack.extend(lock(&d.map).values().cloned());
        } else if v.is_tuple() || v.kind() == ValueKind::Seq && is_plain_list(&v) {
            stack.extend(v.try_iter()?);
        } else if v.kind() == ValueKind::Map && is_plain_dict(&v) {
            for k in v.try_iter()? {
                stack.push(v.get_item(&k).unwrap_or_default());
            }
        }
    }
    charge(state, seen)
}

fn cycle() -> Error {
    super::errors::limit("a list or dict cannot be made to contain itself")
}

impl PyList {
    fn snapshot(&self) -> Vec<JValue> {
        lock(&self.items).clone()
    }

    fn addr(&self) -> *const () {
        self as *const PyList as *const ()
    }
}

impl PyDict {
    fn keys(&self) -> Vec<JValue> {
        lock(&self.map).keys().cloned().collect()
    }

    fn addr(&self) -> *const () {
        self as *const PyDict as *const ()
    }
}

fn list_value(items: Vec<JValue>) -> JValue {
    JValue::from_object(PyList {
        items: Mutex::new(items),
    })
}

fn dict_value(map: IndexMap<JValue, JValue>) -> JValue {
    JValue::from_object(PyDict {
        map: Mutex::new(map),
    })
}

/// A mutable copy of `v`, all the way down (tuples stay tuples; their items are copied).
pub(crate) fn deep_copy(v: &JValue, depth: usize) -> Result<JValue, Error> {
    if depth > 100 {
        return Err(super::errors::limit("value nested too deeply"));
    }
    if v.downcast_object_ref::<PyList>().is_some() || v.downcast_object_ref::<PyDict>().is_some() {
        return Ok(v.clone());
    }
    match v.kind() {
        ValueKind::Seq if v.is_tuple() => {
            let items = py_list(v)?
                .iter()
                .map(|i| deep_copy(i, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(JValue::from(minijinja::value::Tuple::from(items)))
        }
        ValueKind::Seq if is_plain_list(v) => Ok(list_value(
            v.try_iter()?
                .map(|i| deep_copy(&i, depth + 1))
                .collect::<Result<Vec<_>, _>>()?,
        )),
        ValueKind::Map if is_plain_dict(v) => {
            let mut map = IndexMap::new();
            for k in v.try_iter()? {
                let item = v.get_item(&k).unwrap_or_default();
                map.insert(k, deep_copy(&item, depth + 1)?);
            }
            Ok(dict_value(map))
        }
        _ => Ok(v.clone()),
    }
}

/// minijinja's own lists and our lazily converted ones (not ranges, views, ...).
fn is_plain_list(v: &JValue) -> bool {
    v.downcast_object_ref::<Vec<JValue>>().is_some()
        || v.downcast_object_ref::<super::convert::LazyList>()
            .is_some()
}

fn is_plain_dict(v: &JValue) -> bool {
    v.downcast_object_ref::<IndexMap<JValue, JValue>>()
        .is_some()
        || v.downcast_object_ref::<super::convert::LazyDict>()
            .is_some()
}

/// The arguments of a builtin method that takes `min` to `max` positional ones, with Python's
/// errors, shaped as `bind` gives them (slot 0 for the object itself).
fn positional(
    name: &str,
    args: &[JValue],
    min: usize,
    max: usize,
) -> Result<Vec<Option<JValue>>, Error> {
    let short = name.rsplit('.').next().unwrap_or(name);
    if args.iter().any(JValue::is_kwargs) {
        return Err(type_error(format!("{name}() takes no keyword arguments")));
    }
    let n = args.len();
    let plural = |k: usize| if k == 1 { "" } else { "s" };
    if max == 0 && n > 0 {
        return Err(type_error(format!(
            "{name}() takes no arguments ({n} given)"
        )));
    }
    if min == 1 && max == 1 && n != 1 {
        return Err(type_error(format!(
            "{name}() takes exactly one argument ({n} given)"
        )));
    }
    if n < min && min == max {
        return Err(type_error(format!(
            "{short} expected {min} argument{}, got {n}",
            plural(min)
        )));
    }
    if n < min {
        return Err(type_error(format!(
            "{short} expected at least {min} argument{}, got {n}",
            plural(min)
        )));
    }
    if n > max {
        return Err(type_error(format!(
            "{short} expected at most {max} argument{}, got {n}",
            plural(max)
        )));
    }
    let mut out: Vec<Option<JValue>> = vec![None; max + 1];
    for (slot, v) in out.iter_mut().skip(1).zip(args) {
        *slot = Some(v.clone());
    }
    Ok(out)
}

fn none() -> JValue {
    JValue::from(())
}

fn charge(state: &State, items: usize) -> Result<(), Error> {
    state.consume_fuel(items as u64)
}

impl Object for PyList {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &JValue) -> Option<JValue> {
        let idx = i64::try_from(key.clone()).ok()?;
        let items = lock(&self.items);
        let len = items.len() as i64;
        let idx = if idx < 0 { idx + len } else { idx };
        usize::try_from(idx)
            .ok()
            .and_then(|i| items.get(i).cloned())
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(self.snapshot())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(lock(&self.items).len())
    }

    fn call_method(
        self: &Arc<Self>,
        state: &mut State<'_, '_>,
        method: &str,
        args: &[JValue],
    ) -> Result<JValue, Error> {
        let me = JValue::from_dyn_object(self.clone());
        let mut full = vec![me];
        full.extend_from_slice(args);
        let name = format!("list.{method}");
        match method {
            "append" => {
                let b = positional(&name, args, 1, 1)?;
                let v = arg(&b, 1, none);
                check_no_cycle(state, &v, self.addr())?;
                lock(&self.items).push(v);
                Ok(none())
            }
            "extend" => {
                let b = positional(&name, args, 1, 1)?;
                let more = py_list(&arg(&b, 1, none))?;
                for v in &more {
                    check_no_cycle(state, v, self.addr())?;
                }
                lock(&self.items).extend(more);
                Ok(none())
            }
            "insert" => {
                let b = positional(&name, args, 2, 2)?;
                let idx = index_arg(&arg(&b, 1, none), "")?;
                let v = arg(&b, 2, none);
                check_no_cycle(state, &v, self.addr())?;
                let mut items = lock(&self.items);
                let len = items.len() as i64;
                let at = if idx < 0 {
                    (idx + len).max(0)
                } else {
                    idx.min(len)
                };
                items.insert(at as usize, v);
                Ok(none())
            }
            "pop" => {
                let b = positional(&name, args, 0, 1)?;
                let idx = match b.get(1).cloned().flatten() {
                    Some(i) => index_arg(&i, "")?,
                    None => -1,
                };
                let mut items = lock(&self.items);
                if items.is_empty() {
                    return Err(py_err(ErrorKind::IndexError, "pop from empty list"));
                }
                let len = items.len() as i64;
                let at = if idx < 0 { idx + len } else { idx };
                if !(0..len).contains(&at) {
                    return Err(py_err(ErrorKind::IndexError, "pop index out of range"));
                }
                Ok(items.remove(at as usize))
            }
            "remove" => {
                let b = positional(&name, args, 1, 1)?;
                let x = arg(&b, 1, none);
                let pos = self.snapshot().iter().position(|i| py_eq(i, &x));
                let mut items = lock(&self.items);
                match pos {
                    Some(p) if p < items.len() => {
                        items.remove(p);
                        Ok(none())
                    }
                    _ => Err(value_error("list.remove(x): x not in list")),
                }
            }
            "clear" => {
                positional(&name, args, 0, 0)?;
                lock(&self.items).clear();
                Ok(none())
            }
            "reverse" => {
                positional(&name, args, 0, 0)?;
                lock(&self.items).reverse();
                Ok(none())
            }
            "sort" => {
                // Python's `list.sort(*, key=None, reverse=False)`; only `reverse` here.
                if args.iter().any(|a| !a.is_kwargs()) {
                    return Err(type_error("sort() takes no positional arguments"));
                }
                let b = bind(&name, &full, &["self", "reverse"], 1)?;
                let reverse = arg(&b, 1, || JValue::from(false)).is_true();
                let mut items = self.snapshot();
                charge(state, items.len())?;
                let mut err = None;
                items.sort_by(|a, b| {
                    let (a, b) = if reverse { (b, a) } else { (a, b) };
                    py_cmp(a, b).unwrap_or_else(|e| {
                        err.get_or_insert(e);
                        std::cmp::Ordering::Equal
                    })
                });
                if let Some(e) = err {
                    return Err(e);
                }
                *lock(&self.items) = items;
                Ok(none())
            }
            "copy" => {
                positional(&name, args, 0, 0)?;
                Ok(list_value(self.snapshot()))
            }
            _ => Err(Error::from(MjKind::UnknownMethod)),
        }
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.snapshot()).finish()
    }
}

fn key_error(key: &JValue) -> Error {
    let shown = super::print::py_repr(key).unwrap_or_default();
    py_err(ErrorKind::KeyError, shown)
}

fn check_hashable(key: &JValue) -> Result<(), Error> {
    if matches!(key.kind(), ValueKind::Seq | ValueKind::Map) && !key.is_tuple() {
        return Err(type_error(format!(
            "unhashable type: '{}'",
            super::undefined::py_type_name(key)
        )));
    }
    Ok(())
}

impl Object for PyDict {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &JValue) -> Option<JValue> {
        lock(&self.map).get(key).cloned()
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(self.keys())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(lock(&self.map).len())
    }

    fn call_method(
        self: &Arc<Self>,
        state: &mut State<'_, '_>,
        method: &str,
        args: &[JValue],
    ) -> Result<JValue, Error> {
        let me = JValue::from_dyn_object(self.clone());
        let mut full = vec![me];
        full.extend_from_slice(args);
        let name = format!("dict.{method}");
        match method {
            "pop" => {
                let b = positional(&name, args, 1, 2)?;
                let key = arg(&b, 1, none);
                match lock(&self.map).shift_remove(&key) {
                    Some(v) => Ok(v),
                    None => b.get(2).cloned().flatten().ok_or_else(|| key_error(&key)),
                }
            }
            "popitem" => {
                positional(&name, args, 0, 0)?;
                match lock(&self.map).pop() {
                    Some((k, v)) => Ok(JValue::from(minijinja::value::Tuple::from([k, v]))),
                    None => Err(py_err(
                        ErrorKind::KeyError,
                        "'popitem(): dictionary is empty'",
                    )),
                }
            }
            "setdefault" => {
                let b = positional(&name, args, 1, 2)?;
                let key = arg(&b, 1, none);
                check_hashable(&key)?;
                let default = arg(&b, 2, none);
                check_no_cycle(state, &default, self.addr())?;
                let mut map = lock(&self.map);
                Ok(map.entry(key).or_insert(default).clone())
            }
            "update" => {
                let (positional, kwargs) = match args.split_last() {
                    Some((last, rest)) if last.is_kwargs() => (rest, Some(last)),
                    _ => (args, None),
                };
                if positional.len() > 1 {
                    return Err(type_error(format!(
                        "update expected at most 1 argument, got {}",
                        positional.len()
                    )));
                }
                let mut pairs = Vec::new();
                if let Some(other) = positional.first() {
                    pairs.extend(pairs_of(other)?);
                }
                if let Some(kw) = kwargs {
                    for k in kw.try_iter()? {
                        let v = kw.get_item(&k).unwrap_or_default();
                        pairs.push((k, v));
                    }
                }
                for (k, v) in &pairs {
                    check_hashable(k)?;
                    check_no_cycle(state, v, self.addr())?;
                }
                lock(&self.map).extend(pairs);
                Ok(none())
            }
            "clear" => {
                positional(&name, args, 0, 0)?;
                lock(&self.map).clear();
                Ok(none())
            }
            "copy" => {
                positional(&name, args, 0, 0)?;
                Ok(dict_value(lock(&self.map).clone()))
            }
            _ => Err(Error::from(MjKind::UnknownMethod)),
        }
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let map = lock(&self.map).clone();
        f.debug_map().entries(map).finish()
    }
}

/// `dict.update(other)`: a mapping's items, or an iterable of pairs.
fn pairs_of(other: &JValue) -> Result<Vec<(JValue, JValue)>, Error> {
    if other.kind() == ValueKind::Map {
        return Ok(other
            .try_iter()?
            .map(|k| {
                let v = other.get_item(&k).unwrap_or_default();
                (k, v)
            })
            .collect());
    }
    let mut out = Vec::new();
    for (i, item) in py_list(other)?.into_iter().enumerate() {
        let pair = py_list(&item).map_err(|_| {
            type_error(format!(
                "cannot convert dictionary update sequence element #{i} to a sequence"
            ))
        })?;
        match <[JValue; 2]>::try_from(pair) {
            Ok([k, v]) => out.push((k, v)),
            Err(p) => {
                return Err(value_error(format!(
                    "dictionary update sequence element #{i} has length {}; 2 is required",
                    p.len()
                )))
            }
        }
    }
    Ok(out)
}

/// The context of a template that mutates: each variable becomes a mutable copy when first
/// looked up, the same copy for the rest of the render.
#[derive(Debug)]
pub(crate) struct MutableRoot {
    vars: JValue,
    seen: Mutex<IndexMap<JValue, JValue>>,
}

impl MutableRoot {
    pub(crate) fn wrap(vars: &JValue) -> JValue {
        JValue::from_object(MutableRoot {
            vars: vars.clone(),
            seen: Mutex::new(IndexMap::new()),
        })
    }
}

impl Object for MutableRoot {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &JValue) -> Option<JValue> {
        if let Some(v) = lock(&self.seen).get(key) {
            return Some(v.clone());
        }
        let v = self.vars.get_item(key).ok().filter(|v| !v.is_undefined())?;
        let v = deep_copy(&v, 0).ok()?;
        lock(&self.seen).insert(key.clone(), v.clone());
        Some(v)
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        match self.vars.try_iter() {
            Ok(it) => Enumerator::Values(it.collect()),
            Err(_) => Enumerator::Empty,
        }
    }
}

fn copy(state: &State, v: JValue) -> Result<JValue, Error> {
    if let Ok(n) = super::pyops::py_len(&v) {
        charge(state, n)?;
    }
    deep_copy(&v, 0)
}

fn build_list(state: &State, items: Rest<JValue>) -> Result<JValue, Error> {
    charge(state, items.0.len())?;
    Ok(list_value(items.0))
}

fn build_dict(state: &State, args: Rest<JValue>) -> Result<JValue, Error> {
    let mut map = IndexMap::with_capacity(args.0.len() / 2);
    for pair in args.0.chunks(2) {
        let [key, value] = pair else { continue };
        check_hashable(key)?;
        map.insert(key.clone(), value.clone());
    }
    charge(state, map.len())?;
    Ok(dict_value(map))
}

pub(crate) fn register(env: &mut Environment<'static>) {
    env.add_function(COPY, copy);
    env.add_function(BUILD_LIST, build_list);
    env.add_function(BUILD_DICT, build_dict);
}
