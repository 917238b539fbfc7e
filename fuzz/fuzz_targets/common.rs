//! Arbitrary variables for the template fuzz targets: every JSON shape, including integers past
//! 64 bits, special floats and keys that templates are likely to name.

use std::sync::Arc;

use arbitrary::Arbitrary;
use num_bigint::BigInt;
use prompt_inspector::{PyInt, Value};

#[derive(Arbitrary, Debug)]
pub enum ArbValue {
    None,
    Bool(bool),
    Int(i64),
    /// Little-endian magnitude bytes and a sign: integers of any size.
    BigInt(bool, Vec<u8>),
    Float(f64),
    Str(String),
    List(Vec<ArbValue>),
    Dict(Vec<(ArbKey, ArbValue)>),
}

/// Keys drawn mostly from short names so that templates written by the fuzzer hit them.
#[derive(Arbitrary, Debug)]
pub enum ArbKey {
    Short(u8),
    Any(String),
}

impl ArbKey {
    fn name(&self) -> String {
        match self {
            ArbKey::Short(n) => {
                ["a", "b", "x", "0", "1", "items", "s", ""][(*n % 8) as usize].to_owned()
            }
            ArbKey::Any(s) => s.clone(),
        }
    }
}

impl ArbValue {
    pub fn to_value(&self) -> Value {
        match self {
            ArbValue::None => Value::None,
            ArbValue::Bool(b) => Value::Bool(*b),
            ArbValue::Int(i) => Value::Int(PyInt::Small(*i)),
            ArbValue::BigInt(neg, bytes) => {
                let sign = if *neg {
                    num_bigint::Sign::Minus
                } else {
                    num_bigint::Sign::Plus
                };
                Value::Int(PyInt::from_bigint(BigInt::from_bytes_le(sign, bytes)))
            }
            ArbValue::Float(f) => Value::Float(*f),
            ArbValue::Str(s) => Value::str(s),
            ArbValue::List(items) => {
                Value::List(Arc::new(items.iter().map(ArbValue::to_value).collect()))
            }
            ArbValue::Dict(pairs) => Value::Dict(Arc::new(
                pairs
                    .iter()
                    .map(|(k, v)| (Arc::from(k.name().as_str()), v.to_value()))
                    .collect(),
            )),
        }
    }
}

#[derive(Arbitrary, Debug)]
pub struct Input {
    pub template: String,
    pub vars: Vec<(ArbKey, ArbValue)>,
}

impl Input {
    /// The variables as a dict, the shape `format_map` and `render` take.
    pub fn vars(&self) -> Value {
        Value::Dict(Arc::new(
            self.vars
                .iter()
                .map(|(k, v)| (Arc::from(k.name().as_str()), v.to_value()))
                .collect(),
        ))
    }
}

/// Parses and renders the input with `engine`: nothing may panic, and every error's byte range
/// must lie inside the template on character boundaries.
pub fn compile_and_render(engine: prompt_inspector::Engine, input: &Input) {
    use prompt_inspector::{Template, TemplateError, Vars};
    fn check_range(e: &TemplateError, source: &str) {
        if let Some(r) = e.range() {
            assert!(
                r.start <= r.end && r.end <= source.len(),
                "range {r:?} outside the template"
            );
            assert!(source.is_char_boundary(r.start) && source.is_char_boundary(r.end));
        }
    }
    let vars = Vars::new(input.vars());
    let result = Template::compile(engine, &input.template).and_then(|t| {
        if let Some(e) = t.syntax_error() {
            check_range(&e, &input.template);
        }
        t.render(&vars)
    });
    if let Err(e) = result {
        check_range(&e, &input.template);
    }
}
