//! `%`, `json.dumps` and `pprint.pformat` over JSON values; expectations printed by python3.11.

use crate::py::json_dumps::json_dumps;
use crate::py::percent::{percent_format, PercentArgs};
use crate::py::pprint::pformat;
use crate::value::Value;

fn v(json: &str) -> Value {
    Value::from_json_str(json).expect("valid json")
}

const NESTED: &str =
    r#"{"b": [1, 2.5, "x", null, true], "a": {"k": "é\n"}, "c": 1000000000000000000000000000000}"#;

#[test]
fn json_dumps_sorts_keys_and_escapes() {
    assert_eq!(
        json_dumps(&v(NESTED), None),
        Ok(r#"{"a": {"k": "\u00e9\n"}, "b": [1, 2.5, "x", null, true], "c": 1000000000000000000000000000000}"#.to_owned())
    );
    assert_eq!(
        json_dumps(&v(NESTED), Some("  ")),
        Ok("{\n  \"a\": {\n    \"k\": \"\\u00e9\\n\"\n  },\n  \"b\": [\n    1,\n    2.5,\n    \"x\",\n    null,\n    true\n  ],\n  \"c\": 1000000000000000000000000000000\n}".to_owned())
    );
}

#[test]
fn pformat_wraps_at_80_columns() {
    assert_eq!(
        pformat(&v(NESTED)),
        Ok("{'a': {'k': 'é\\n'},\n 'b': [1, 2.5, 'x', None, True],\n 'c': 1000000000000000000000000000000}".to_owned())
    );
    let lists: Vec<String> = (0..8)
        .map(|i| {
            let items: Vec<String> = (0..i).map(|n| n.to_string()).collect();
            format!("\"k{i:02}\": [{}]", items.join(", "))
        })
        .collect();
    let big = v(&format!("{{{}}}", lists.join(", ")));
    assert_eq!(
        pformat(&big),
        Ok("{'k00': [],\n 'k01': [0],\n 'k02': [0, 1],\n 'k03': [0, 1, 2],\n 'k04': [0, 1, 2, 3],\n 'k05': [0, 1, 2, 3, 4],\n 'k06': [0, 1, 2, 3, 4, 5],\n 'k07': [0, 1, 2, 3, 4, 5, 6]}".to_owned())
    );
}

#[test]
fn percent_over_json_values() {
    let args = [
        v(r#"{"k": "é"}"#),
        v(r#""é""#),
        v("2.25"),
        v("7"),
        v("1000000000000000000000000000000"),
    ];
    assert_eq!(
        percent_format("%s|%r|%5.1f|%-4d|%x", PercentArgs::Tuple(&args)),
        Ok("{'k': 'é'}|'é'|  2.2|7   |c9f2c9cd04674edea40000000".to_owned())
    );
    assert_eq!(
        percent_format("%(b)s %(c)d", PercentArgs::Mapping(&v(NESTED))),
        Ok("[1, 2.5, 'x', None, True] 1000000000000000000000000000000".to_owned())
    );
}
