//! Python's `pprint.pformat` on Jinja values, as the `pprint` filter calls it:
//! [`crate::py::pprint`] over the values' view in [`super::pyobject`].

use minijinja::value::Value as JValue;
use minijinja::Error;

/// `pprint.pformat(v)`: width 80, dict keys sorted.
pub(crate) fn pformat(v: &JValue) -> Result<String, Error> {
    crate::py::pprint::pformat(v)
}
