//! Python's operators, swapped in for minijinja's at compile time (see `rewrite`): exact integer
//! arithmetic of any size, Python's ordering errors, `str()` concatenation for `~`, and hashable
//! dict keys. Each is registered as a global function under a name templates cannot spell.

use std::cmp::Ordering;

use minijinja::value::{Rest, Value as JValue, ValueKind};
use minijinja::{Environment, Error, State};
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

use super::convert::{bigint_value, BigIntObj};
use super::errors::{limit, py_err, type_error, undefined_use};
use super::machinery::Instruction;
use super::print::{as_f64, py_str};
use super::pyops::{is_float, py_cmp, py_list};
use super::tests_builtin::py_contains;
use super::undefined::py_type_name;
use crate::template::ErrorKind;

/// Strings and lists built by `*` and `+` beyond this many bytes/items fail with LimitExceeded.
const MAX_BUILT: usize = 32 * 1024 * 1024;

/// Integer results beyond this many bits fail with LimitExceeded (`2 ** 10**9`).
const MAX_INT_BITS: u64 = 1 << 16;

const ADD: &str = "\u{0}add";
const SUB: &str = "\u{0}sub";
const MUL: &str = "\u{0}mul";
const DIV: &str = "\u{0}div";
const FLOORDIV: &str = "\u{0}floordiv";
const MOD: &str = "\u{0}mod";
const POW: &str = "\u{0}pow";
const LT: &str = "\u{0}lt";
const LE: &str = "\u{0}le";
const GT: &str = "\u{0}gt";
const GE: &str = "\u{0}ge";
const CONCAT: &str = "\u{0}concat";
const CONTAINS: &str = "\u{0}in";
const EQ: &str = "\u{0}eq";
const NE: &str = "\u{0}ne";
pub(crate) const BUILD_MAP: &str = "\u{0}dict";

/// The replacement for a minijinja instruction, if we have one.
pub(crate) fn replacement(instr: &Instruction<'_>) -> Option<Instruction<'static>> {
    let call = |name: &'static str| Some(Instruction::CallFunction(name, Some(2)));
    match instr {
        Instruction::Add => call(ADD),
        Instruction::Sub => call(SUB),
        Instruction::Mul => call(MUL),
        Instruction::Div => call(DIV),
        Instruction::IntDiv => call(FLOORDIV),
        Instruction::Rem => call(MOD),
        Instruction::Pow => call(POW),
        Instruction::Lt => call(LT),
        Instruction::Lte => call(LE),
        Instruction::Gt => call(GT),
        Instruction::Gte => call(GE),
        Instruction::StringConcat => call(CONCAT),
        Instruction::In => call(CONTAINS),
        // minijinja's own `==`, charged by the bytes it compares (`work.rs`).
        Instruction::Eq => call(EQ),
        Instruction::Ne => call(NE),
        Instruction::BuildMap(n) => {
            let args = u16::try_from(n.checked_mul(2)?).ok()?;
            Some(Instruction::CallFunction(BUILD_MAP, Some(args)))
        }
        _ => None,
    }
}

type BinOp = fn(&State, &JValue, &JValue) -> Result<JValue, Error>;

pub(crate) fn register(env: &mut Environment<'static>) {
    let ops: &[(&'static str, BinOp)] = &[
        (ADD, add),
        (SUB, sub),
        (MUL, mul),
        (DIV, div),
        (FLOORDIV, floordiv),
        (MOD, modulo),
        (POW, pow),
        (LT, |_, a, b| compare(a, b, "<", |o| o == Ordering::Less)),
        (LE, |_, a, b| {
            compare(a, b, "<=", |o| o != Ordering::Greater)
        }),
        (GT, |_, a, b| compare(a, b, ">", |o| o == Ordering::Greater)),
        (GE, |_, a, b| compare(a, b, ">=", |o| o != Ordering::Less)),
        (CONCAT, concat),
        (CONTAINS, |_, v, seq| {
            // Jinja2's Undefined iterates as empty, so nothing is in it.
            if seq.is_undefined() {
                return Ok(JValue::from(false));
            }
            py_contains(seq, v).map(JValue::from)
        }),
    ];
    let eq: BinOp = |_, a, b| {
        super::work::touch(super::pyops::eq_cost(a, b))?;
        Ok(JValue::from(a == b))
    };
    let ne: BinOp = |_, a, b| {
        super::work::touch(super::pyops::eq_cost(a, b))?;
        Ok(JValue::from(a != b))
    };
    for &(name, f) in ops.iter().chain(&[(EQ, eq), (NE, ne)]) {
        env.add_function(name, move |state: &State, a: JValue, b: JValue| {
            super::work::observe(state);
            f(state, &a, &b)
        });
    }
    env.add_function(BUILD_MAP, build_map);
}

fn check_defined(v: &JValue) -> Result<(), Error> {
    if v.is_undefined() {
        return Err(undefined_use(v));
    }
    Ok(())
}

/// An integral operand (int, bool, or our big integer) as a `BigInt`.
fn big(v: &JValue) -> Option<BigInt> {
    if let Some(b) = v.downcast_object_ref::<BigIntObj>() {
        return Some((*b.0).clone());
    }
    match v.kind() {
        ValueKind::Bool => Some(BigInt::from(u8::from(v.is_true()))),
        ValueKind::Number if v.is_integer() => i128::try_from(v.clone())
            .ok()
            .map(BigInt::from)
            .or_else(|| u128::try_from(v.clone()).ok().map(BigInt::from)),
        _ => None,
    }
}

/// A float operand (int or bool widened); big ints overflow as in Python.
fn float(v: &JValue) -> Result<Option<f64>, Error> {
    if let Some(b) = v.downcast_object_ref::<BigIntObj>() {
        return match b.0.to_f64().filter(|f| f.is_finite()) {
            Some(f) => Ok(Some(f)),
            None => Err(py_err(
                ErrorKind::OverflowError,
                "int too large to convert to float",
            )),
        };
    }
    Ok(match v.kind() {
        ValueKind::Bool => Some(if v.is_true() { 1.0 } else { 0.0 }),
        ValueKind::Number => as_f64(v),
        _ => None,
    })
}

fn int_result(b: BigInt) -> Result<JValue, Error> {
    if b.bits() > MAX_INT_BITS {
        return Err(limit("integer result too large"));
    }
    Ok(bigint_value(&b))
}

fn unsupported(op: &str, a: &JValue, b: &JValue) -> Error {
    if a.is_undefined() {
        return undefined_use(a);
    }
    if b.is_undefined() {
        return undefined_use(b);
    }
    type_error(format!(
        "unsupported operand type(s) for {op}: '{}' and '{}'",
        short_type(a),
        short_type(b)
    ))
}

fn short_type(v: &JValue) -> &'static str {
    match v.kind() {
        ValueKind::Undefined => "Undefined",
        _ => {
            let name = py_type_name(v);
            name.rsplit('.').next().unwrap_or(name)
        }
    }
}

fn is_list(v: &JValue) -> bool {
    v.kind() == ValueKind::Seq && py_type_name(v) == "list"
}

fn add(state: &State, a: &JValue, b: &JValue) -> Result<JValue, Error> {
    if let (Some(x), Some(y)) = (big(a), big(b)) {
        return int_result(x + y);
    }
    if let (Some(x), Some(y)) = (float(a)?, float(b)?) {
        return Ok(JValue::from(x + y));
    }
    if let (Some(x), Some(y)) = (a.as_str(), b.as_str()) {
        charge(state, x.len() + y.len())?;
        if a.is_safe() || b.is_safe() {
            return super::markup::add(a, b);
        }
        return Ok(JValue::from(format!("{x}{y}")));
    }
    if (is_list(a) && is_list(b)) || (a.is_tuple() && b.is_tuple()) {
        let mut items = py_list(a)?;
        items.extend(py_list(b)?);
        charge(state, items.len() * 16)?;
        return Ok(if a.is_tuple() {
            JValue::from(minijinja::value::Tuple::from(items))
        } else {
            JValue::from(items)
        });
    }
    if a.is_undefined() || b.is_undefined() {
        return Err(unsupported("+", a, b));
    }
    if a.kind() == ValueKind::String || is_list(a) {
        let kind = if is_list(a) { "list" } else { "str" };
        return Err(type_error(format!(
            "can only concatenate {kind} (not \"{}\") to {kind}",
            short_type(b)
        )));
    }
    Err(unsupported("+", a, b))
}

fn sub(_: &State, a: &JValue, b: &JValue) -> Result<JValue, Error> {
    if let (Some(x), Some(y)) = (big(a), big(b)) {
        return int_result(x - y);
    }
    if let (Some(x), Some(y)) = (float(a)?, float(b)?) {
        return Ok(JValue::from(x - y));
    }
    Err(unsupported("-", a, b))
}

fn charge(state: &State, bytes: usize) -> Result<(), Error> {
    if bytes > MAX_BUILT {
        return Err(limit(format!(
            "result of {bytes} bytes is larger than the limit of {MAX_BUILT}"
        )));
    }
    state.consume_fuel((bytes / 64) as u64)
}

fn repeat_count(n: &JValue) -> Option<usize> {
    if is_float(n) {
        return None;
    }
    let n = big(n)?;
    Some(if n.is_negative() {
        0
    } else {
        n.to_usize().unwrap_or(usize::MAX)
    })
}

fn mul(state: &State, a: &JValue, b: &JValue) -> Result<JValue, Error> {
    if let (Some(x), Some(y)) = (big(a), big(b)) {
        if x.bits() + y.bits() > MAX_INT_BITS {
            return Err(limit("integer result too large"));
        }
        return int_result(x * y);
    }
    if let (Some(x), Some(y)) = (float(a)?, float(b)?) {
        return Ok(JValue::from(x * y));
    }
    let (seq, n) = if a.kind() == ValueKind::String || a.kind() == ValueKind::Seq {
        (a, b)
    } else {
        (b, a)
    };
    if matches!(seq.kind(), ValueKind::String | ValueKind::Seq)
        && (is_list(seq) || seq.is_tuple() || seq.kind() == ValueKind::String)
    {
        let Some(count) = repeat_count(n) else {
            return Err(type_error(format!(
                "can't multiply sequence by non-int of type '{}'",
                short_type(n)
            )));
        };
        if let Some(s) = seq.as_str() {
            let total = s.len().saturating_mul(count);
            charge(state, total)?;
            let r = s.repeat(count);
            return Ok(if seq.is_safe() {
                JValue::from_safe_string(r)
            } else {
                JValue::from(r)
            });
        }
        let items = py_list(seq)?;
        let total = items.len().saturating_mul(count);
        charge(state, total.saturating_mul(16))?;
        let mut out = Vec::with_capacity(total);
        for _ in 0..count {
            out.extend(items.iter().cloned());
        }
        return Ok(if seq.is_tuple() {
            JValue::from(minijinja::value::Tuple::from(out))
        } else {
            JValue::from(out)
        });
    }
    Err(unsupported("*", a, b))
}

fn div(_: &State, a: &JValue, b: &JValue) -> Result<JValue, Error> {
    if let (Some(x), Some(y)) = (big(a), big(b)) {
        if y.is_zero() {
            return Err(py_err(ErrorKind::ZeroDivisionError, "division by zero"));
        }
        if let (Some(fx), Some(fy)) = (x.to_i64().and_then(|_| x.to_f64()), y.to_f64()) {
            if fx.abs() < 9.0e15 && fy.abs() < 9.0e15 {
                return Ok(JValue::from(fx / fy));
            }
        }
        // Python divides big integers exactly, then rounds once.
        let q = x.to_f64().unwrap_or(f64::INFINITY) / y.to_f64().unwrap_or(f64::INFINITY);
        if !q.is_finite() {
            return Err(py_err(
                ErrorKind::OverflowError,
                "integer division result too large for a float",
            ));
        }
        return Ok(JValue::from(q));
    }
    if let (Some(x), Some(y)) = (float(a)?, float(b)?) {
        if y == 0.0 {
            return Err(py_err(
                ErrorKind::ZeroDivisionError,
                "float division by zero",
            ));
        }
        return Ok(JValue::from(x / y));
    }
    Err(unsupported("/", a, b))
}

fn floor_div_rem(x: &BigInt, y: &BigInt) -> (BigInt, BigInt) {
    let q = x / y;
    let r = x - &q * y;
    if !r.is_zero() && (r.is_negative() != y.is_negative()) {
        (q - 1, r + y)
    } else {
        (q, r)
    }
}

fn float_div_rem(x: f64, y: f64) -> (f64, f64) {
    let mut m = x % y;
    let mut div = (x - m) / y;
    if m != 0.0 {
        if (y < 0.0) != (m < 0.0) {
            m += y;
            div -= 1.0;
        }
    } else {
        m = 0.0f64.copysign(y);
    }
    let floordiv = if div != 0.0 {
        let f = div.floor();
        if div - f > 0.5 {
            f + 1.0
        } else {
            f
        }
    } else {
        0.0f64.copysign(x / y)
    };
    (floordiv, m)
}

fn floordiv(_: &State, a: &JValue, b: &JValue) -> Result<JValue, Error> {
    if let (Some(x), Some(y)) = (big(a), big(b)) {
        if y.is_zero() {
            return Err(py_err(
                ErrorKind::ZeroDivisionError,
                "integer division or modulo by zero",
            ));
        }
        return int_result(floor_div_rem(&x, &y).0);
    }
    if let (Some(x), Some(y)) = (float(a)?, float(b)?) {
        if y == 0.0 {
            return Err(py_err(
                ErrorKind::ZeroDivisionError,
                "float floor division by zero",
            ));
        }
        return Ok(JValue::from(float_div_rem(x, y).0));
    }
    Err(unsupported("//", a, b))
}

fn modulo(_: &State, a: &JValue, b: &JValue) -> Result<JValue, Error> {
    if let (Some(x), Some(y)) = (big(a), big(b)) {
        if y.is_zero() {
            return Err(py_err(
                ErrorKind::ZeroDivisionError,
                "integer modulo by zero",
            ));
        }
        return int_result(floor_div_rem(&x, &y).1);
    }
    if let (Some(x), Some(y)) = (float(a)?, float(b)?) {
        if y == 0.0 {
            return Err(py_err(ErrorKind::ZeroDivisionError, "float modulo"));
        }
        return Ok(JValue::from(float_div_rem(x, y).1));
    }
    if let Some(fmt) = a.as_str() {
        if a.is_safe() {
            return super::markup::percent(fmt, b);
        }
        // `"%s" % x` is Python's printf operator.
        let args = if b.is_tuple() {
            py_list(b)?
        } else {
            vec![b.clone()]
        };
        return if b.kind() == ValueKind::Map {
            super::percent::percent_format_map(fmt, b).map(JValue::from)
        } else {
            super::percent::percent_format(fmt, &args).map(JValue::from)
        };
    }
    Err(unsupported("%", a, b))
}

fn pow(_: &State, a: &JValue, b: &JValue) -> Result<JValue, Error> {
    if let (Some(x), Some(y)) = (big(a), big(b)) {
        if y.is_negative() {
            if x.is_zero() {
                return Err(py_err(
                    ErrorKind::ZeroDivisionError,
                    "0.0 cannot be raised to a negative power",
                ));
            }
            let (fx, fy) = (float(a)?.unwrap_or(0.0), float(b)?.unwrap_or(0.0));
            return Ok(JValue::from(fx.powf(fy)));
        }
        let e = y.to_u64().unwrap_or(u64::MAX);
        let magnitude = x.abs();
        if magnitude > BigInt::from(1) && (magnitude.bits().saturating_mul(e) > MAX_INT_BITS) {
            return Err(limit("integer result too large"));
        }
        let e = u32::try_from(e).unwrap_or(if magnitude <= BigInt::from(1) {
            2 + (e % 2) as u32
        } else {
            u32::MAX
        });
        return int_result(x.pow(e));
    }
    if let (Some(x), Some(y)) = (float(a)?, float(b)?) {
        if x == 0.0 && y < 0.0 {
            return Err(py_err(
                ErrorKind::ZeroDivisionError,
                "0.0 cannot be raised to a negative power",
            ));
        }
        let r = x.powf(y);
        if r.is_infinite() && x.is_finite() && y.is_finite() {
            return Err(py_err(
                ErrorKind::OverflowError,
                "(34, 'Numerical result out of range')",
            ));
        }
        return Ok(JValue::from(r));
    }
    Err(unsupported("** or pow()", a, b))
}

fn compare(a: &JValue, b: &JValue, op: &str, ok: fn(Ordering) -> bool) -> Result<JValue, Error> {
    check_defined(a)?;
    check_defined(b)?;
    if let (Some(x), Some(y)) = (big(a), big(b)) {
        return Ok(JValue::from(ok(x.cmp(&y))));
    }
    if let (Some(x), Some(y)) = (float(a).ok().flatten(), float(b).ok().flatten()) {
        // NaN makes every ordering false.
        return Ok(JValue::from(x.partial_cmp(&y).is_some_and(ok)));
    }
    match py_cmp(a, b) {
        Ok(o) => Ok(JValue::from(ok(o))),
        Err(e) if e.kind() == minijinja::ErrorKind::OutOfFuel => Err(e),
        Err(_) => Err(type_error(format!(
            "'{op}' not supported between instances of '{}' and '{}'",
            short_type(a),
            short_type(b)
        ))),
    }
}

fn concat(state: &State, a: &JValue, b: &JValue) -> Result<JValue, Error> {
    let s = format!("{}{}", py_str(a)?, py_str(b)?);
    charge(state, s.len())?;
    Ok(JValue::from(s))
}

fn build_map(args: Rest<JValue>) -> Result<JValue, Error> {
    let mut pairs = Vec::with_capacity(args.0.len() / 2);
    for pair in args.0.chunks(2) {
        let [key, value] = pair else { continue };
        if matches!(key.kind(), ValueKind::Seq | ValueKind::Map) && !key.is_tuple() {
            return Err(type_error(format!(
                "unhashable type: '{}'",
                short_type(key)
            )));
        }
        pairs.push((key.clone(), value.clone()));
    }
    Ok(JValue::from_pairs(pairs))
}
