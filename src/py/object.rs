//! What the printing code of `py` needs to know about a Python value, whatever engine holds it:
//! `%`-formatting ([`super::percent`]), `json.dumps` ([`super::json_dumps`]) and
//! `pprint.pformat` ([`super::pprint`]) walk values through [`PyObject`], which each engine
//! implements for its own values.

use std::cmp::Ordering;

use super::error::PyError;

/// The built-in type a value is, with the scalar it holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind<'a> {
    None,
    Bool(bool),
    /// An `int` within `i128`.
    Int(i128),
    /// An `int` beyond `i128`; its digits are its `str()`.
    BigInt,
    Float(f64),
    /// A `str`, or an instance of a subclass of it ([`PyObject::type_name`] tells which).
    Str(&'a str),
    List,
    Tuple,
    /// Another iterable that is no sequence (a generator).
    Iterable,
    Dict,
    /// Anything else (`Undefined`, `range`, a dict view, ...): known by its type name, `str`
    /// and `repr`.
    Other,
}

/// A Python value of one of the engines.
pub trait PyObject: Sized {
    /// The engine's error; every [`PyError`] converts into it.
    type Error: From<PyError>;

    fn kind(&self) -> Kind<'_>;
    /// `type(v).__name__`, module-qualified for types outside `builtins`
    /// (`markupsafe.Markup`).
    fn type_name(&self) -> &'static str;
    /// The elements of a list, tuple or other iterable.
    fn items(&self) -> Result<Vec<Self>, Self::Error>;
    /// The items of a dict, in its order.
    fn dict_items(&self) -> Result<Vec<(Self, Self)>, Self::Error>;
    /// `mapping[key]` for a str key; `None` when missing.
    fn get_str_key(&self, key: &str) -> Result<Option<Self>, Self::Error>;
    /// Appends `str(v)`.
    fn write_str(&self, out: &mut String) -> Result<(), Self::Error>;
    /// Appends `repr(v)`, `depth` containers deep.
    fn write_repr(&self, out: &mut String, depth: usize) -> Result<(), Self::Error>;
    /// `a < b` as an ordering, for sorting (`TypeError` between types that do not compare).
    fn compare(&self, other: &Self) -> Result<Ordering, Self::Error>;
}

/// `str(v)`.
pub fn str_of<V: PyObject>(v: &V) -> Result<String, V::Error> {
    let mut out = String::new();
    v.write_str(&mut out)?;
    Ok(out)
}

/// `repr(v)`.
pub fn repr_of<V: PyObject>(v: &V) -> Result<String, V::Error> {
    let mut out = String::new();
    v.write_repr(&mut out, 0)?;
    Ok(out)
}
