//! Python's printing of values (`str()`, `repr()`, `ascii()`, `format()`, float formatting) and
//! the standard-library text helpers templates reach (`str` methods, number parsing and
//! `round`, `textwrap`, `html.unescape`), shared by both template engines so that every value
//! prints as CPython would print it. It depends on nothing above it: its errors are [`PyError`]s,
//! which each engine wraps in its own.

mod attr_table;
pub mod attrs;
mod dtoa;
mod error;
mod float;
pub mod format;
pub mod html;
pub mod json_dumps;
pub mod numbers;
pub mod object;
pub mod percent;
pub mod pprint;
mod printable_table;
pub mod str_methods;
mod strings;
pub mod textwrap;
mod value_repr;

pub use dtoa::{double_to_string, DtoaFlags};
pub use error::{check_width, Locate, PyError, PyErrorKind, MAX_WIDTH};
pub use float::float_repr;
pub use format::{format, write_format};
pub use strings::{ascii_str, decimal_value, is_printable, repr_str};
pub use value_repr::{ascii, repr, to_str, write_ascii, write_repr, write_str};
