//! Python's printing of values: `str()`, `repr()`, `ascii()` and float formatting, shared by both
//! template engines so that every value prints as CPython would print it.

mod float;
mod strings;

pub use float::float_repr;
pub use strings::{ascii_str, is_printable, repr_str};
