//! Python's `%` formatting on Jinja values: [`crate::py::percent`] over the values' view in
//! [`super::pyobject`].

use minijinja::value::Value as JValue;
use minijinja::Error;

use crate::py::percent::{self, PercentArgs};

/// `fmt % tuple(args)`.
pub(crate) fn percent_format(fmt: &str, args: &[JValue]) -> Result<String, Error> {
    percent::percent_format(fmt, PercentArgs::Tuple(args))
}

/// `fmt % mapping`.
pub(crate) fn percent_format_map(fmt: &str, map: &JValue) -> Result<String, Error> {
    percent::percent_format(fmt, PercentArgs::Mapping(map))
}
