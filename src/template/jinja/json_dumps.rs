//! Python's `json.dumps` on Jinja values, as the `tojson` filter calls it:
//! [`crate::py::json_dumps`] over the values' view in [`super::pyobject`].

use minijinja::value::Value as JValue;
use minijinja::Error;

/// `json.dumps(v, sort_keys=True, indent=indent)` with Python's defaults (ASCII output).
pub(crate) fn json_dumps(v: &JValue, indent: Option<&str>) -> Result<String, Error> {
    crate::py::json_dumps::json_dumps(v, indent)
}
