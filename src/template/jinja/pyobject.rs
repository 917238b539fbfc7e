//! Minijinja values as [`PyObject`]s, so that `py`'s `%`-formatting, `json.dumps` and
//! `pprint.pformat` walk them as the Python objects Jinja2 would hold.

use std::cmp::Ordering;

use minijinja::value::{Value as JValue, ValueKind};
use minijinja::Error;

use super::convert::BigIntObj;
use super::print::write_repr;
use super::pyops::{as_int, as_num, py_cmp};
use super::undefined::py_type_name;
use crate::py::object::{Kind, PyObject};

impl PyObject for JValue {
    type Error = Error;

    fn kind(&self) -> Kind<'_> {
        match self.kind() {
            ValueKind::None => Kind::None,
            ValueKind::Bool => Kind::Bool(self.is_true()),
            ValueKind::Number if self.is_integer() => match as_int(self) {
                Some(i) => Kind::Int(i),
                // A u128 past i128.
                None => Kind::BigInt,
            },
            ValueKind::Number => Kind::Float(as_num(self).unwrap_or(0.0)),
            ValueKind::String => Kind::Str(self.as_str().unwrap_or_default()),
            ValueKind::Seq if self.is_tuple() => Kind::Tuple,
            ValueKind::Seq => Kind::List,
            ValueKind::Iterable => Kind::Iterable,
            ValueKind::Map => Kind::Dict,
            _ if self.downcast_object_ref::<BigIntObj>().is_some() => Kind::BigInt,
            _ => Kind::Other,
        }
    }

    fn type_name(&self) -> &'static str {
        py_type_name(self)
    }

    fn items(&self) -> Result<Vec<JValue>, Error> {
        Ok(self.try_iter()?.collect())
    }

    fn dict_items(&self) -> Result<Vec<(JValue, JValue)>, Error> {
        let mut items = Vec::new();
        for k in self.try_iter()? {
            let v = self.get_item(&k)?;
            items.push((k, v));
        }
        Ok(items)
    }

    fn get_str_key(&self, key: &str) -> Result<Option<JValue>, Error> {
        let v = self.get_item(&JValue::from(key))?;
        Ok((!v.is_undefined()).then_some(v))
    }

    fn write_str(&self, out: &mut String) -> Result<(), Error> {
        match self.as_str() {
            Some(s) => out.push_str(s),
            None if self.is_undefined() => {}
            None => write_repr(out, self, 0)?,
        }
        Ok(())
    }

    fn write_repr(&self, out: &mut String, depth: usize) -> Result<(), Error> {
        write_repr(out, self, depth)
    }

    fn compare(&self, other: &JValue) -> Result<Ordering, Error> {
        py_cmp(self, other)
    }
}
