//! Which attributes Python's JSON types have, from a table generated with CPython 3.11
//! (`conformance/gen_attrs.py`), so that `{x.attr}` finds exactly what `getattr` finds.

use super::attr_table as t;

/// What `getattr(instance, name)` yields for an attribute that exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attr {
    /// A bound built-in method; the payload is the type named in its repr
    /// (`<built-in method upper of str object at 0x...>`; `type` for class methods).
    Method(&'static str),
    /// A slot wrapper bound to the instance (`<method-wrapper '__add__' of int object at 0x...>`).
    MethodWrapper(&'static str),
    /// `__class__`.
    Class,
    /// `__doc__`, the type's docstring.
    Doc,
    /// An attribute whose value is `None` (`list.__hash__`, `NoneType.__doc__`).
    NoneValue,
    /// `real`, `imag`, `numerator`, `denominator`: computed from the value.
    Data,
}

/// A type's attributes (sorted by name) and its docstring.
type Table = (&'static [(&'static str, Attr)], Option<&'static str>);

fn table(type_name: &str) -> Option<Table> {
    Some(match type_name {
        "NoneType" => (&t::NONE[..], t::NONE_DOC),
        "bool" => (&t::BOOL[..], t::BOOL_DOC),
        "int" => (&t::INT[..], t::INT_DOC),
        "float" => (&t::FLOAT[..], t::FLOAT_DOC),
        "str" => (&t::STR[..], t::STR_DOC),
        "list" => (&t::LIST[..], t::LIST_DOC),
        "dict" => (&t::DICT[..], t::DICT_DOC),
        _ => return None,
    })
}

/// The attribute `name` of an instance of `type_name` (one of the JSON types), with its name as
/// a `'static` string.
pub fn lookup(type_name: &str, name: &str) -> Option<(&'static str, Attr)> {
    let (entries, _) = table(type_name)?;
    let i = entries.binary_search_by(|(n, _)| (*n).cmp(name)).ok()?;
    entries.get(i).copied()
}

/// The docstring of a JSON type (`None` for `NoneType`).
pub fn doc(type_name: &str) -> Option<&'static str> {
    table(type_name).and_then(|(_, d)| d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_python_attributes() {
        // python3.11: repr('s'.upper) starts '<built-in method upper of str object',
        // repr((1).__add__) "<method-wrapper '__add__' of int object", and
        // repr('s'.maketrans) '<built-in method maketrans of type object'.
        assert_eq!(lookup("str", "upper"), Some(("upper", Attr::Method("str"))));
        assert_eq!(
            lookup("int", "__add__"),
            Some(("__add__", Attr::MethodWrapper("int")))
        );
        assert_eq!(
            lookup("str", "maketrans"),
            Some(("maketrans", Attr::Method("type")))
        );
        assert_eq!(lookup("bool", "real"), Some(("real", Attr::Data)));
        assert_eq!(
            lookup("list", "__hash__"),
            Some(("__hash__", Attr::NoneValue))
        );
        assert_eq!(lookup("float", "numerator"), None);
        assert_eq!(lookup("dict", "k"), None);
        assert!(doc("float").is_some_and(|d| d.starts_with("Convert a string")));
        assert_eq!(doc("NoneType"), None);
    }
}
