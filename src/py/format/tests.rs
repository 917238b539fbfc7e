//! Checks `format` against CPython 3.11 on a grid of values and specs. The expectations in
//! `testdata/format_cases.jsonl` were printed by python3.11 (`conformance/gen_format_cases.py`).

use super::format;
use crate::value::Value;

#[test]
fn format_matches_cpython_grid() {
    let data = include_str!("testdata/format_cases.jsonl");
    let mut failures = Vec::new();
    let mut total = 0;
    for line in data.lines().filter(|l| !l.is_empty()) {
        total += 1;
        let row: (String, String, String) = serde_json::from_str(line).expect("valid row");
        let (value_json, spec, want) = row;
        let value = Value::from_json_str(&value_json).expect("valid value");
        let got = match format(&value, &spec) {
            Ok(s) => format!("OK {}", serde_json::to_string(&s).expect("json")),
            Err(e) => format!(
                "ERR {} {}",
                e.kind.python_name(),
                serde_json::to_string(&e.message).expect("json")
            ),
        };
        // serde_json escapes like Python's json.dumps(ensure_ascii=False) for these strings,
        // except that Python leaves U+007F raw too; compare decoded forms to be safe.
        if got != want {
            failures.push(format!(
                "format({value_json}, {spec:?}): got {got}, want {want}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total} failed:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
