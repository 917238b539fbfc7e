//! Python objects Jinja2 templates meet that minijinja has no native form for: `range`, dict
//! views, `groupby` tuples, `cycler` and `joiner`. Each renders as Python's `repr`.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use minijinja::value::{Enumerator, Object, ObjectRepr, Value as JValue};
use minijinja::{Error, State};

use super::errors::{limit, type_error, value_error};
use super::print::{py_repr, write_repr};

/// Ranges longer than this fail with `LimitExceeded`: `range(10**9)` would otherwise make
/// `|list` or a loop grind until fuel runs out.
pub(crate) const MAX_RANGE: i128 = 1_000_000;

/// Python's `range`, lazily indexed.
#[derive(Debug)]
pub(crate) struct Range {
    start: i128,
    stop: i128,
    step: i128,
    len: usize,
}

impl Range {
    pub(crate) fn new(start: i128, stop: i128, step: i128) -> Result<Range, Error> {
        if step == 0 {
            return Err(value_error("range() arg 3 must not be zero"));
        }
        let len = if step > 0 && start < stop {
            (stop - start - 1) / step + 1
        } else if step < 0 && start > stop {
            (start - stop - 1) / (-step) + 1
        } else {
            0
        };
        if len > MAX_RANGE {
            return Err(limit(format!(
                "range() of {len} items is larger than the limit of {MAX_RANGE}"
            )));
        }
        Ok(Range {
            start,
            stop,
            step,
            len: usize::try_from(len).unwrap_or(0),
        })
    }

    fn item(&self, idx: usize) -> JValue {
        JValue::from(self.start + self.step * idx as i128)
    }
}

impl Object for Range {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &JValue) -> Option<JValue> {
        let idx = i64::try_from(key.clone()).ok()?;
        let len = self.len as i64;
        let idx = if idx < 0 { idx + len } else { idx };
        (0..len).contains(&idx).then(|| self.item(idx as usize))
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(self.len)
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.step == 1 {
            write!(f, "range({}, {})", self.start, self.stop)
        } else {
            write!(f, "range({}, {}, {})", self.start, self.stop, self.step)
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ViewKind {
    Keys,
    Values,
    Items,
}

/// `dict.keys()`, `dict.values()`, `dict.items()`.
#[derive(Debug)]
pub(crate) struct DictView {
    pub kind: ViewKind,
    pub map: JValue,
}

impl DictView {
    fn items(&self) -> Vec<JValue> {
        let keys = self.map.try_iter().map(|i| i.collect::<Vec<_>>());
        keys.unwrap_or_default()
            .into_iter()
            .map(|k| {
                let v = self.map.get_item(&k).unwrap_or_default();
                match self.kind {
                    ViewKind::Keys => k,
                    ViewKind::Values => v,
                    ViewKind::Items => JValue::from(minijinja::value::Tuple::from([k, v])),
                }
            })
            .collect()
    }
}

impl Object for DictView {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Iterable
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(self.items())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        self.map.len()
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.kind {
            ViewKind::Keys => "dict_keys",
            ViewKind::Values => "dict_values",
            ViewKind::Items => "dict_items",
        };
        let mut out = String::new();
        for (i, item) in self.items().iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_repr(&mut out, item, 1).map_err(|_| fmt::Error)?;
        }
        write!(f, "{name}([{out}])")
    }
}

/// `groupby`'s `(grouper, list)` named tuple.
#[derive(Debug)]
pub(crate) struct GroupTuple {
    pub grouper: JValue,
    pub list: JValue,
}

impl Object for GroupTuple {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &JValue) -> Option<JValue> {
        if let Some(name) = key.as_str() {
            return match name {
                "grouper" => Some(self.grouper.clone()),
                "list" => Some(self.list.clone()),
                _ => None,
            };
        }
        match i64::try_from(key.clone()).ok()? {
            0 | -2 => Some(self.grouper.clone()),
            1 | -1 => Some(self.list.clone()),
            _ => None,
        }
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(2)
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = py_repr(&self.grouper).map_err(|_| fmt::Error)?;
        let l = py_repr(&self.list).map_err(|_| fmt::Error)?;
        write!(f, "({g}, {l})")
    }
}

/// Jinja2's `cycler(*items)`.
#[derive(Debug)]
pub(crate) struct Cycler {
    items: Vec<JValue>,
    pos: AtomicUsize,
}

impl Cycler {
    pub(crate) fn new(items: Vec<JValue>) -> Result<Cycler, Error> {
        if items.is_empty() {
            return Err(super::errors::runtime_error(
                "at least one item has to be provided",
            ));
        }
        Ok(Cycler {
            items,
            pos: AtomicUsize::new(0),
        })
    }

    fn current(&self) -> JValue {
        let pos = self.pos.load(Ordering::Relaxed);
        self.items.get(pos).cloned().unwrap_or_default()
    }
}

impl Object for Cycler {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn get_value(self: &Arc<Self>, key: &JValue) -> Option<JValue> {
        match key.as_str()? {
            "current" => Some(self.current()),
            "items" => Some(JValue::from(self.items.clone())),
            _ => None,
        }
    }

    fn call_method(
        self: &Arc<Self>,
        _state: &mut State<'_, '_>,
        method: &str,
        args: &[JValue],
    ) -> Result<JValue, Error> {
        if !args.is_empty() {
            return Err(type_error(format!(
                "Cycler.{method}() takes 1 positional argument but {} were given",
                args.len() + 1
            )));
        }
        match method {
            "next" | "__next__" => {
                let rv = self.current();
                let pos = self.pos.load(Ordering::Relaxed);
                self.pos
                    .store((pos + 1) % self.items.len().max(1), Ordering::Relaxed);
                Ok(rv)
            }
            "reset" => {
                self.pos.store(0, Ordering::Relaxed);
                Ok(JValue::from(()))
            }
            _ => Err(minijinja::Error::from(minijinja::ErrorKind::UnknownMethod)),
        }
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<jinja2.utils.Cycler object>")
    }
}

/// Jinja2's `joiner(sep=', ')`: returns '' on the first call and `sep` after.
#[derive(Debug)]
pub(crate) struct Joiner {
    sep: String,
    used: AtomicBool,
}

impl Joiner {
    pub(crate) fn new(sep: String) -> Joiner {
        Joiner {
            sep,
            used: AtomicBool::new(false),
        }
    }
}

impl Object for Joiner {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn call(
        self: &Arc<Self>,
        _state: &mut State<'_, '_>,
        args: &[JValue],
    ) -> Result<JValue, Error> {
        if !args.is_empty() {
            return Err(type_error(format!(
                "Joiner.__call__() takes 1 positional argument but {} were given",
                args.len() + 1
            )));
        }
        if self.used.swap(true, Ordering::Relaxed) {
            Ok(JValue::from(self.sep.clone()))
        } else {
            Ok(JValue::from(""))
        }
    }

    fn render(self: &Arc<Self>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<jinja2.utils.Joiner object>")
    }
}

/// Whether `v` is one of the objects above (they render as Python's `repr`).
pub(crate) fn is_own_object(v: &JValue) -> bool {
    own_type_name(v).is_some()
}

pub(crate) fn own_type_name(v: &JValue) -> Option<&'static str> {
    if v.downcast_object_ref::<Range>().is_some() {
        Some("range")
    } else if let Some(view) = v.downcast_object_ref::<DictView>() {
        Some(match view.kind {
            ViewKind::Keys => "dict_keys",
            ViewKind::Values => "dict_values",
            ViewKind::Items => "dict_items",
        })
    } else if v.downcast_object_ref::<GroupTuple>().is_some() {
        Some("jinja2.filters._GroupTuple")
    } else if v.downcast_object_ref::<Cycler>().is_some() {
        Some("jinja2.utils.Cycler")
    } else if v.downcast_object_ref::<Joiner>().is_some() {
        Some("jinja2.utils.Joiner")
    } else if super::bound::is_bound_method(v) {
        Some("builtin_function_or_method")
    } else if v
        .downcast_object_ref::<super::convert::BigIntObj>()
        .is_some()
    {
        Some("int")
    } else {
        None
    }
}
