//! Rust values to Python objects through serde, with no JSON between: an operation's response
//! (a report holds a scene's every message) becomes the dicts, lists and strs `json.loads` of
//! its JSON would give, in one pass and without writing or parsing text.
//!
//! A struct's field names are `&'static str`s repeated in every element of a list, so their
//! Python strings are made once per conversion and shared, as `json.loads` does not.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, Hasher};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyString};
use pyo3::IntoPyObjectExt;
use serde::ser::{self, Serialize};

/// `value` as Python objects: maps and structs as `dict`, sequences and tuples as `list`,
/// `None` and unit as `None`, unit enum variants as their names, other variants as
/// `{variant: value}` (serde's externally tagged form, as in JSON).
pub fn to_python<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    let keys = FieldNames::default();
    value
        .serialize(ToPython { py, keys: &keys })
        .map_err(|e| e.0)
}

/// The Python strings of the field names seen so far, by the address of their static text.
#[derive(Default)]
struct FieldNames<'py> {
    made: RefCell<HashMap<(usize, usize), Bound<'py, PyString>, BuildAddressHasher>>,
}

/// Hashes a static text's address and length: distinct, so no need for SipHash's mixing.
#[derive(Default, Clone, Copy)]
struct BuildAddressHasher;

impl BuildHasher for BuildAddressHasher {
    type Hasher = AddressHasher;
    fn build_hasher(&self) -> AddressHasher {
        AddressHasher(0)
    }
}

struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (self.0.rotate_left(5) ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl<'py> FieldNames<'py> {
    fn get(&self, py: Python<'py>, name: &'static str) -> Bound<'py, PyString> {
        let key = (name.as_ptr() as usize, name.len());
        self.made
            .borrow_mut()
            .entry(key)
            .or_insert_with(|| PyString::new(py, name))
            .clone()
    }
}

#[derive(Debug)]
pub struct Error(PyErr);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        Error(PyValueError::new_err(msg.to_string()))
    }
}

impl From<PyErr> for Error {
    fn from(e: PyErr) -> Self {
        Error(e)
    }
}

#[derive(Clone, Copy)]
struct ToPython<'a, 'py> {
    py: Python<'py>,
    keys: &'a FieldNames<'py>,
}

type Out<'py> = Result<Bound<'py, PyAny>, Error>;

impl<'a, 'py> ToPython<'a, 'py> {
    fn object<T: IntoPyObject<'py>>(self, value: T) -> Out<'py> {
        Ok(value.into_bound_py_any(self.py)?)
    }

    fn list(self, items: Vec<Bound<'py, PyAny>>) -> Out<'py> {
        Ok(PyList::new(self.py, items)?.into_any())
    }

    /// A number from its JSON text, as `json.loads` reads it: `int` unless it has a fraction
    /// or an exponent.
    fn number(self, text: Option<Bound<'py, PyAny>>) -> Out<'py> {
        let Some(text) = text else {
            return Err(ser::Error::custom("a number without its text"));
        };
        let digits: String = text.extract()?;
        if digits.contains(['.', 'e', 'E']) {
            let value: f64 = digits
                .parse()
                .map_err(|_| <Error as ser::Error>::custom(format!("not a number: {digits}")))?;
            return self.object(value);
        }
        Ok(self.py.get_type::<PyInt>().call1((text,))?)
    }

    /// `{variant: value}`.
    fn tagged(self, variant: &'static str, value: Bound<'py, PyAny>) -> Out<'py> {
        let dict = PyDict::new(self.py);
        dict.set_item(self.keys.get(self.py, variant), value)?;
        Ok(dict.into_any())
    }
}

impl<'a, 'py> ser::Serializer for ToPython<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    type SerializeSeq = Seq<'a, 'py>;
    type SerializeTuple = Seq<'a, 'py>;
    type SerializeTupleStruct = Seq<'a, 'py>;
    type SerializeTupleVariant = Seq<'a, 'py>;
    type SerializeMap = Map<'a, 'py>;
    type SerializeStruct = Map<'a, 'py>;
    type SerializeStructVariant = Map<'a, 'py>;

    fn serialize_bool(self, v: bool) -> Out<'py> {
        self.object(v)
    }
    fn serialize_i8(self, v: i8) -> Out<'py> {
        self.object(v)
    }
    fn serialize_i16(self, v: i16) -> Out<'py> {
        self.object(v)
    }
    fn serialize_i32(self, v: i32) -> Out<'py> {
        self.object(v)
    }
    fn serialize_i64(self, v: i64) -> Out<'py> {
        self.object(v)
    }
    fn serialize_i128(self, v: i128) -> Out<'py> {
        self.object(v)
    }
    fn serialize_u8(self, v: u8) -> Out<'py> {
        self.object(v)
    }
    fn serialize_u16(self, v: u16) -> Out<'py> {
        self.object(v)
    }
    fn serialize_u32(self, v: u32) -> Out<'py> {
        self.object(v)
    }
    fn serialize_u64(self, v: u64) -> Out<'py> {
        self.object(v)
    }
    fn serialize_u128(self, v: u128) -> Out<'py> {
        self.object(v)
    }
    fn serialize_f32(self, v: f32) -> Out<'py> {
        self.object(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Out<'py> {
        self.object(v)
    }
    fn serialize_char(self, v: char) -> Out<'py> {
        self.object(v)
    }
    fn serialize_str(self, v: &str) -> Out<'py> {
        Ok(PyString::new(self.py, v).into_any())
    }
    fn serialize_bytes(self, v: &[u8]) -> Out<'py> {
        // As serde_json writes bytes: a list of ints.
        self.list(
            v.iter()
                .map(|b| self.object(*b))
                .collect::<Result<_, _>>()?,
        )
    }
    fn serialize_none(self) -> Out<'py> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Out<'py> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Out<'py> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Out<'py> {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Out<'py> {
        Ok(self.keys.get(self.py, variant).into_any())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Out<'py> {
        if name == RAW_VALUE_TOKEN {
            return Err(ser::Error::custom(
                "a response holds pre-written JSON; give it as a value",
            ));
        }
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Out<'py> {
        let inner = value.serialize(self)?;
        self.tagged(variant, inner)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq<'a, 'py>, Error> {
        Ok(Seq {
            to: self,
            items: Vec::with_capacity(len.unwrap_or(0)),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'a, 'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq<'a, 'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq<'a, 'py>, Error> {
        let mut seq = self.serialize_seq(Some(len))?;
        seq.variant = Some(variant);
        Ok(seq)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'a, 'py>, Error> {
        Ok(Map {
            to: self,
            dict: PyDict::new(self.py),
            key: None,
            variant: None,
            number: false,
        })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Map<'a, 'py>, Error> {
        let mut map = self.serialize_map(Some(len))?;
        map.number = name == NUMBER_TOKEN;
        Ok(map)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Map<'a, 'py>, Error> {
        let mut map = self.serialize_map(Some(len))?;
        map.variant = Some(variant);
        Ok(map)
    }
}

/// serde_json's name for an arbitrary-precision number (a struct of one field, the number's
/// JSON text): the core's integers beyond 64 bits serialise so.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// serde_json's name for `RawValue`'s newtype: pre-written JSON text, which this serializer
/// would turn into a `str` rather than the value the text holds.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

pub struct Seq<'a, 'py> {
    to: ToPython<'a, 'py>,
    items: Vec<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
}

impl<'a, 'py> Seq<'a, 'py> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(self.to)?);
        Ok(())
    }

    fn finish(self) -> Out<'py> {
        let list = self.to.list(self.items)?;
        match self.variant {
            Some(variant) => self.to.tagged(variant, list),
            None => Ok(list),
        }
    }
}

impl<'a, 'py> ser::SerializeSeq for Seq<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Out<'py> {
        self.finish()
    }
}

impl<'a, 'py> ser::SerializeTuple for Seq<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Out<'py> {
        self.finish()
    }
}

impl<'a, 'py> ser::SerializeTupleStruct for Seq<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Out<'py> {
        self.finish()
    }
}

impl<'a, 'py> ser::SerializeTupleVariant for Seq<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Out<'py> {
        self.finish()
    }
}

pub struct Map<'a, 'py> {
    to: ToPython<'a, 'py>,
    dict: Bound<'py, PyDict>,
    key: Option<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
    /// An arbitrary-precision number: its one field holds the number's text.
    number: bool,
}

impl<'a, 'py> Map<'a, 'py> {
    fn field<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) -> Result<(), Error> {
        if self.number {
            self.key = Some(value.serialize(self.to)?);
            return Ok(());
        }
        let key = self.to.keys.get(self.to.py, name);
        self.dict.set_item(key, value.serialize(self.to)?)?;
        Ok(())
    }

    fn finish(self) -> Out<'py> {
        if self.number {
            return self.to.number(self.key);
        }
        let dict = self.dict.into_any();
        match self.variant {
            Some(variant) => self.to.tagged(variant, dict),
            None => Ok(dict),
        }
    }
}

impl<'a, 'py> ser::SerializeMap for Map<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key.serialize(self.to)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let Some(key) = self.key.take() else {
            return Err(ser::Error::custom("a map value came before its key"));
        };
        self.dict.set_item(key, value.serialize(self.to)?)?;
        Ok(())
    }
    fn end(self) -> Out<'py> {
        self.finish()
    }
}

impl<'a, 'py> ser::SerializeStruct for Map<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(name, value)
    }
    fn end(self) -> Out<'py> {
        self.finish()
    }
}

impl<'a, 'py> ser::SerializeStructVariant for Map<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(name, value)
    }
    fn end(self) -> Out<'py> {
        self.finish()
    }
}
