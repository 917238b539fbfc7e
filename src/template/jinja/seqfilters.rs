//! Jinja2's sequence and mapping filters. Jinja2 returns generators from several of these
//! (`map`, `select`, `batch`, ...); we return lists, which iterate and join identically.

use std::cmp::Ordering;

use minijinja::value::{Tuple, Value as JValue, ValueKind};
use minijinja::{Error, State};

use super::errors::{runtime_error, type_error};
use super::filters::{arg, bind, int_arg, FilterFn};
use super::objects::GroupTuple;
use super::print::py_str;
use super::pyops::{
    as_int, as_num, attribute_parts, ignore_case, lookup_path, not_iterable, py_cmp, py_eq,
    py_list, py_sort_by_key, truthy,
};
use super::undefined::py_type_name;

pub(crate) const FILTERS: &[(&str, FilterFn)] = &[
    ("attr", attr),
    ("batch", batch),
    ("dictsort", dictsort),
    ("first", first),
    ("groupby", groupby),
    ("items", items),
    ("join", join),
    ("last", last),
    ("list", list),
    ("map", map),
    ("max", max),
    ("min", min),
    ("random", random),
    ("reject", reject),
    ("rejectattr", rejectattr),
    ("reverse", reverse),
    ("select", select),
    ("selectattr", selectattr),
    ("slice", slice),
    ("sort", sort),
    ("sum", sum),
    ("unique", unique),
];

fn value0(b: &[Option<JValue>]) -> JValue {
    arg(b, 0, JValue::default)
}

fn first(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("sync_do_first", args, &["seq"], 1)?;
    let v = value0(&b);
    if let Some(s) = v.as_str() {
        return Ok(s.chars().next().map_or(JValue::UNDEFINED, JValue::from));
    }
    match v.kind() {
        ValueKind::Undefined => Ok(JValue::UNDEFINED),
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable => {
            Ok(v.try_iter()?.next().unwrap_or(JValue::UNDEFINED))
        }
        _ => Err(not_iterable(&v)),
    }
}

fn last(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_last", args, &["seq"], 1)?;
    let v = value0(&b);
    if v.is_undefined() {
        return Err(type_error("'Undefined' object is not reversible"));
    }
    match v.kind() {
        // `reversed()` indexes a string: a Markup's item is Markup.
        ValueKind::String if v.is_safe() => Ok(py_list(&v)?
            .pop()
            .map_or(JValue::UNDEFINED, |c| super::markup::mark_safe(&c))),
        ValueKind::String | ValueKind::Seq | ValueKind::Map => {
            Ok(py_list(&v)?.pop().unwrap_or(JValue::UNDEFINED))
        }
        _ => Err(type_error(format!(
            "'{}' object is not reversible",
            py_type_name(&v)
        ))),
    }
}

fn random(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_random", args, &["seq"], 1)?;
    let items = py_list(&value0(&b))?;
    if items.is_empty() {
        return Ok(JValue::UNDEFINED);
    }
    // Any element is a valid answer; the hasher's per-process seed makes it vary.
    use std::hash::{BuildHasher, RandomState};
    let pick = RandomState::new().hash_one(items.len()) as usize % items.len();
    Ok(items[pick].clone())
}

fn list(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("sync_do_list", args, &["value"], 1)?;
    Ok(JValue::from(py_list(&value0(&b))?))
}

fn reverse(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_reverse", args, &["value"], 1)?;
    let v = value0(&b);
    if let Some(s) = v.as_str() {
        // `value[::-1]`: a Markup slice is Markup.
        let r = s.chars().rev().collect::<String>();
        return Ok(if v.is_safe() {
            JValue::from_safe_string(r)
        } else {
            JValue::from(r)
        });
    }
    match v.kind() {
        ValueKind::Undefined => Ok(JValue::from(Vec::<JValue>::new())),
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable => {
            let mut items = py_list(&v)?;
            items.reverse();
            Ok(JValue::from(items))
        }
        _ => Err(runtime_error("argument must be iterable")),
    }
}

fn join(state: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("sync_do_join", args, &["value", "d", "attribute"], 1)?;
    let sep = arg(&b, 1, || JValue::from(""));
    let attribute = arg(&b, 2, || JValue::from(()));
    let parts = attribute_parts(&attribute);
    let items = py_list(&value0(&b))?
        .iter()
        .map(|item| {
            if attribute.is_none() {
                item.clone()
            } else {
                lookup_path(item, &parts, None)
            }
        })
        .collect::<Vec<_>>();
    // With autoescape on, Markup anywhere makes the result Markup, the rest escaped.
    let markup =
        super::markup::autoescape_on(state) && (sep.is_safe() || items.iter().any(JValue::is_safe));
    let text = |v: &JValue| {
        if markup {
            super::markup::escaped_text(v)
        } else {
            py_str(v)
        }
    };
    let d = text(&sep)?;
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(&d);
        }
        out.push_str(&text(item)?);
    }
    Ok(if markup {
        JValue::from_safe_string(out)
    } else {
        JValue::from(out)
    })
}

/// Key for sorting with `attribute` (comma separated paths) and case folding.
fn sort_key(item: &JValue, attrs: &[Vec<JValue>], case_sensitive: bool) -> JValue {
    let fold = |v: JValue| if case_sensitive { v } else { ignore_case(v) };
    if attrs.is_empty() {
        return fold(item.clone());
    }
    let keys: Vec<JValue> = attrs
        .iter()
        .map(|parts| fold(lookup_path(item, parts, None)))
        .collect();
    if keys.len() == 1 {
        return JValue::from(Tuple::from(keys));
    }
    JValue::from(Tuple::from(keys))
}

fn multi_attrs(attribute: &JValue) -> Vec<Vec<JValue>> {
    if attribute.is_none() || attribute.is_undefined() {
        return Vec::new();
    }
    match attribute.as_str() {
        Some(s) => s
            .split(',')
            .map(|p| attribute_parts(&JValue::from(p)))
            .collect(),
        None => vec![vec![attribute.clone()]],
    }
}

fn sort(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind(
        "do_sort",
        args,
        &["value", "reverse", "case_sensitive", "attribute"],
        1,
    )?;
    let reverse = truthy(&arg(&b, 1, || JValue::from(false)));
    let case_sensitive = truthy(&arg(&b, 2, || JValue::from(false)));
    let attrs = multi_attrs(&arg(&b, 3, || JValue::from(())));
    let mut keyed: Vec<(JValue, JValue)> = py_list(&value0(&b))?
        .into_iter()
        .map(|item| (sort_key(&item, &attrs, case_sensitive), item))
        .collect();
    sorted(&mut keyed, reverse)?;
    Ok(JValue::from(
        keyed.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
    ))
}

/// Python's `sorted(..., reverse=r)`: stable, and `reverse` keeps equal items in order.
fn sorted(keyed: &mut [(JValue, JValue)], reverse: bool) -> Result<(), Error> {
    if reverse {
        keyed.reverse();
        py_sort_by_key(keyed)?;
        keyed.reverse();
        Ok(())
    } else {
        py_sort_by_key(keyed)
    }
}

fn dictsort(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind(
        "do_dictsort",
        args,
        &["value", "case_sensitive", "by", "reverse"],
        1,
    )?;
    let v = value0(&b);
    let case_sensitive = truthy(&arg(&b, 1, || JValue::from(false)));
    let by = py_str(&arg(&b, 2, || JValue::from("key")))?;
    let pos = match by.as_str() {
        "key" => 0,
        "value" => 1,
        _ => {
            return Err(runtime_error(
                "You can only sort by either \"key\" or \"value\"",
            ))
        }
    };
    let reverse = truthy(&arg(&b, 3, || JValue::from(false)));
    let mut keyed = Vec::new();
    for (k, val) in mapping_items(&v)? {
        let key = if pos == 0 { k.clone() } else { val.clone() };
        let key = if case_sensitive {
            key
        } else {
            ignore_case(key)
        };
        keyed.push((key, JValue::from(Tuple::from([k, val]))));
    }
    sorted(&mut keyed, reverse)?;
    Ok(JValue::from(
        keyed.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
    ))
}

fn mapping_items(v: &JValue) -> Result<Vec<(JValue, JValue)>, Error> {
    if v.kind() != ValueKind::Map {
        return Err(type_error(format!(
            "'{}' object has no attribute 'items'",
            py_type_name(v)
        )));
    }
    let mut out = Vec::new();
    for k in v.try_iter()? {
        let val = v.get_item(&k)?;
        out.push((k, val));
    }
    Ok(out)
}

fn items(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_items", args, &["value"], 1)?;
    let v = value0(&b);
    if v.is_undefined() {
        return Ok(JValue::from(Vec::<JValue>::new()));
    }
    if v.kind() != ValueKind::Map {
        return Err(type_error("Can only get item pairs from a mapping."));
    }
    let pairs: Vec<JValue> = mapping_items(&v)?
        .into_iter()
        .map(|(k, v)| JValue::from(Tuple::from([k, v])))
        .collect();
    Ok(JValue::from(pairs))
}

fn unique(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind(
        "sync_do_unique",
        args,
        &["value", "case_sensitive", "attribute"],
        1,
    )?;
    let case_sensitive = truthy(&arg(&b, 1, || JValue::from(false)));
    let attribute = arg(&b, 2, || JValue::from(()));
    let parts = attribute_parts(&attribute);
    let mut seen: Vec<JValue> = Vec::new();
    let mut out = Vec::new();
    for item in py_list(&value0(&b))? {
        let key = lookup_path(&item, &parts, None);
        let key = if case_sensitive {
            key
        } else {
            ignore_case(key)
        };
        if !seen.iter().any(|s| py_eq(s, &key)) {
            seen.push(key);
            out.push(item);
        }
        super::work::check()?;
    }
    Ok(JValue::from(out))
}

fn min_or_max(fname: &str, args: &[JValue], want: Ordering) -> Result<JValue, Error> {
    let b = bind(fname, args, &["value", "case_sensitive", "attribute"], 1)?;
    let case_sensitive = truthy(&arg(&b, 1, || JValue::from(false)));
    let parts = attribute_parts(&arg(&b, 2, || JValue::from(())));
    let mut best: Option<(JValue, JValue)> = None;
    for item in py_list(&value0(&b))? {
        let key = lookup_path(&item, &parts, None);
        let key = if case_sensitive {
            key
        } else {
            ignore_case(key)
        };
        super::work::check()?;
        let better = match &best {
            None => true,
            Some((bk, _)) => py_cmp(&key, bk)? == want,
        };
        if better {
            best = Some((key, item));
        }
    }
    Ok(best.map_or(JValue::UNDEFINED, |(_, v)| v))
}

fn min(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    min_or_max("do_min", args, Ordering::Less)
}

fn max(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    min_or_max("do_max", args, Ordering::Greater)
}

fn sum(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("sync_do_sum", args, &["iterable", "attribute", "start"], 1)?;
    let attribute = arg(&b, 1, || JValue::from(()));
    let parts = attribute_parts(&attribute);
    let mut total = arg(&b, 2, || JValue::from(0));
    for item in py_list(&value0(&b))? {
        let item = if attribute.is_none() {
            item
        } else {
            lookup_path(&item, &parts, None)
        };
        total = py_add(&total, &item)?;
    }
    Ok(total)
}

/// Python `a + b` for `sum`: numbers (bools count as ints), lists; strings are refused.
fn py_add(a: &JValue, b: &JValue) -> Result<JValue, Error> {
    if let (Some(x), Some(y)) = (as_int(a), as_int(b)) {
        if let Some(s) = x.checked_add(y) {
            return Ok(JValue::from(s));
        }
    }
    if let (Some(x), Some(y)) = (as_num(a), as_num(b)) {
        return Ok(JValue::from(x + y));
    }
    if a.kind() == ValueKind::Seq && b.kind() == ValueKind::Seq && !a.is_tuple() && !b.is_tuple() {
        let mut items = py_list(a)?;
        items.extend(py_list(b)?);
        return Ok(JValue::from(items));
    }
    if a.kind() == ValueKind::Number && b.kind() == ValueKind::String {
        return Err(type_error(format!(
            "unsupported operand type(s) for +: '{}' and 'str'",
            py_type_name(a)
        )));
    }
    if b.is_undefined() {
        return Err(super::errors::undefined_use(b));
    }
    Err(type_error(format!(
        "unsupported operand type(s) for +: '{}' and '{}'",
        py_type_name(a),
        py_type_name(b)
    )))
}

fn attr(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_attr", args, &["obj", "name"], 2)?;
    let obj = value0(&b);
    let name = arg(&b, 1, JValue::default);
    let Some(n) = name.as_str() else {
        return Ok(JValue::UNDEFINED);
    };
    if let Some(m) = super::bound::method_of(&obj, n) {
        return Ok(m);
    }
    // Jinja2's `getattr` on a dict finds its methods, never its keys.
    if obj.kind() == ValueKind::Map {
        return Ok(JValue::UNDEFINED);
    }
    // The numeric attributes Python's int and float have.
    if let Some(i) = super::pyops::as_int(&obj).filter(|_| obj.kind() == ValueKind::Number) {
        return Ok(match n {
            "real" | "numerator" => JValue::from(i),
            "imag" => JValue::from(0),
            "denominator" => JValue::from(1),
            _ => JValue::UNDEFINED,
        });
    }
    if super::pyops::is_float(&obj) {
        return Ok(match n {
            "real" => obj,
            "imag" => JValue::from(0.0),
            _ => JValue::UNDEFINED,
        });
    }
    Ok(obj.get_attr(n).unwrap_or(JValue::UNDEFINED))
}

/// The bytes of a string argument, for `work.rs`: what a filter or test called from here scans.
fn str_bytes(v: Option<&JValue>) -> usize {
    v.and_then(JValue::as_str).map_or(0, str::len)
}

/// Calls a filter by name as `map`/`select` do. Only Jinja2's builtin filters exist here. The
/// string it works on and the one it makes are charged, as minijinja charges a filter it calls.
fn call_filter(state: &State, name: &str, args: &[JValue]) -> Result<JValue, Error> {
    let f = super::filters::lookup(name)
        .ok_or_else(|| runtime_error(format!("No filter named '{name}'.")))?;
    super::work::observe(state);
    super::work::touch(str_bytes(args.first()))?;
    let out = f(state, args)?;
    super::work::touch(str_bytes(Some(&out)))?;
    Ok(out)
}

fn call_test(state: &State, name: &str, args: &[JValue]) -> Result<bool, Error> {
    let f = super::tests_builtin::lookup(name)
        .ok_or_else(|| runtime_error(format!("No test named '{name}'.")))?;
    super::work::observe(state);
    super::work::touch(str_bytes(args.first()))?;
    f(state, args)
}

fn map(state: &State, args: &[JValue]) -> Result<JValue, Error> {
    let (positional, kwargs) = match args.split_last() {
        Some((last, rest)) if last.is_kwargs() => (rest, Some(last)),
        _ => (args, None),
    };
    let Some((value, rest)) = positional.split_first() else {
        return Err(type_error(
            "sync_do_map() missing 1 required positional argument: 'value'",
        ));
    };
    // Jinja2 maps only `if value:`: a falsy value (none, an empty string) gives nothing, before
    // the arguments are even looked at.
    if !truthy(value) {
        return Ok(JValue::from(Vec::<JValue>::new()));
    }
    let items = py_list(value)?;
    if rest.is_empty() {
        if let Some(kw) = kwargs {
            let attribute = kw.get_item(&JValue::from("attribute"))?;
            if !attribute.is_undefined() {
                let default = kw.get_item(&JValue::from("default"))?;
                let default = (!default.is_undefined()).then_some(default);
                let parts = attribute_parts(&attribute);
                let out: Vec<JValue> = items
                    .iter()
                    .map(|item| lookup_path(item, &parts, default.as_ref()))
                    .collect();
                return Ok(JValue::from(out));
            }
        }
        return Err(runtime_error("map requires a filter argument"));
    }
    let name = py_str(&rest[0])?;
    let extra = &rest[1..];
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let mut call_args = vec![item];
        call_args.extend_from_slice(extra);
        if let Some(kw) = kwargs {
            call_args.push(kw.clone());
        }
        out.push(call_filter(state, &name, &call_args)?);
    }
    Ok(JValue::from(out))
}

/// `select`/`reject`/`selectattr`/`rejectattr` share Jinja2's `select_or_reject`.
fn select_or_reject(
    state: &State,
    args: &[JValue],
    by_attr: bool,
    keep: bool,
    fname: &str,
) -> Result<JValue, Error> {
    let (positional, kwargs) = match args.split_last() {
        Some((last, rest)) if last.is_kwargs() => (rest, Some(last)),
        _ => (args, None),
    };
    let Some((value, rest)) = positional.split_first() else {
        return Err(type_error(format!(
            "{fname}() missing 1 required positional argument: 'value'"
        )));
    };
    // As `map`: Jinja2 selects only `if value:`.
    if !truthy(value) {
        return Ok(JValue::from(Vec::<JValue>::new()));
    }
    let (parts, rest) = if by_attr {
        let Some((a, r)) = rest.split_first() else {
            return Err(type_error("Missing parameter for attribute name"));
        };
        (Some(attribute_parts(a)), r)
    } else {
        (None, rest)
    };
    let test = match rest.split_first() {
        Some((name, extra)) => Some((py_str(name)?, extra)),
        None => None,
    };
    let mut out = Vec::new();
    for item in py_list(value)? {
        let probe = match &parts {
            Some(p) => lookup_path(&item, p, None),
            None => item.clone(),
        };
        let ok = match &test {
            Some((name, extra)) => {
                let mut call_args = vec![probe];
                call_args.extend_from_slice(extra);
                if let Some(kw) = kwargs {
                    call_args.push(kw.clone());
                }
                call_test(state, name, &call_args)?
            }
            None => truthy(&probe),
        };
        if ok == keep {
            out.push(item);
        }
    }
    Ok(JValue::from(out))
}

fn select(state: &State, args: &[JValue]) -> Result<JValue, Error> {
    select_or_reject(state, args, false, true, "sync_do_select")
}

fn reject(state: &State, args: &[JValue]) -> Result<JValue, Error> {
    select_or_reject(state, args, false, false, "sync_do_reject")
}

fn selectattr(state: &State, args: &[JValue]) -> Result<JValue, Error> {
    select_or_reject(state, args, true, true, "sync_do_selectattr")
}

fn rejectattr(state: &State, args: &[JValue]) -> Result<JValue, Error> {
    select_or_reject(state, args, true, false, "sync_do_rejectattr")
}

fn batch(state: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("do_batch", args, &["value", "linecount", "fill_with"], 2)?;
    let linecount = int_arg(&arg(&b, 1, JValue::default), "linecount")?;
    let fill = arg(&b, 2, || JValue::from(()));
    let items = py_list(&value0(&b))?;
    let mut out = Vec::new();
    let mut tmp: Vec<JValue> = Vec::new();
    for item in items {
        if tmp.len() as i64 == linecount {
            out.push(JValue::from(std::mem::take(&mut tmp)));
        }
        tmp.push(item);
    }
    if !tmp.is_empty() {
        if !fill.is_none() && (tmp.len() as i64) < linecount {
            let missing = (linecount - tmp.len() as i64) as u64;
            state.consume_fuel(missing / 16)?;
            tmp.extend(std::iter::repeat_n(fill, missing as usize));
        }
        out.push(JValue::from(tmp));
    }
    Ok(JValue::from(out))
}

fn slice(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind("sync_do_slice", args, &["value", "slices", "fill_with"], 2)?;
    let slices = int_arg(&arg(&b, 1, JValue::default), "slices")?;
    let fill = arg(&b, 2, || JValue::from(()));
    let seq = py_list(&value0(&b))?;
    if slices == 0 && !seq.is_empty() {
        return Err(super::errors::py_err(
            crate::template::ErrorKind::ZeroDivisionError,
            "integer division or modulo by zero",
        ));
    }
    if slices > super::objects::MAX_RANGE as i64 {
        return Err(super::errors::limit("too many slices"));
    }
    let length = seq.len() as i64;
    let (per, extra) = if slices > 0 {
        (length.div_euclid(slices), length.rem_euclid(slices))
    } else {
        (0, 0)
    };
    let mut offset = 0;
    let mut out = Vec::new();
    for n in 0..slices.max(0) {
        let start = offset + n * per;
        if n < extra {
            offset += 1;
        }
        let end = offset + (n + 1) * per;
        let s = start.clamp(0, length) as usize;
        let e = end.clamp(0, length) as usize;
        let mut tmp: Vec<JValue> = seq
            .get(s..e.max(s))
            .map(<[JValue]>::to_vec)
            .unwrap_or_default();
        if !fill.is_none() && n >= extra {
            tmp.push(fill.clone());
        }
        out.push(JValue::from(tmp));
    }
    Ok(JValue::from(out))
}

fn groupby(_: &State, args: &[JValue]) -> Result<JValue, Error> {
    let b = bind(
        "sync_do_groupby",
        args,
        &["value", "attribute", "default", "case_sensitive"],
        2,
    )?;
    let parts = attribute_parts(&arg(&b, 1, JValue::default));
    let default = arg(&b, 2, || JValue::from(()));
    let default = (!default.is_none()).then_some(default);
    let case_sensitive = truthy(&arg(&b, 3, || JValue::from(false)));
    let key_of = |item: &JValue| {
        let k = lookup_path(item, &parts, default.as_ref());
        if case_sensitive {
            k
        } else {
            ignore_case(k)
        }
    };
    let mut keyed: Vec<(JValue, JValue)> = py_list(&value0(&b))?
        .into_iter()
        .map(|item| (key_of(&item), item))
        .collect();
    py_sort_by_key(&mut keyed)?;
    let mut groups: Vec<(JValue, Vec<JValue>)> = Vec::new();
    for (key, item) in keyed {
        match groups.last_mut() {
            Some((k, items)) if py_eq(k, &key) => items.push(item),
            _ => groups.push((key, vec![item])),
        }
        super::work::check()?;
    }
    let out: Vec<JValue> = groups
        .into_iter()
        .map(|(key, items)| {
            let grouper = if case_sensitive {
                key
            } else {
                items
                    .first()
                    .map(|first| lookup_path(first, &parts, default.as_ref()))
                    .unwrap_or(key)
            };
            JValue::from_object(GroupTuple {
                grouper,
                list: JValue::from(items),
            })
        })
        .collect();
    Ok(JValue::from(out))
}
