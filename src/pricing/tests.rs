use super::{Growth, Table, FORMAT, MAX_USD_PER_MTOK};

const ROW: &str = r#"{"id": "acme/a1", "models": ["a1", "a1-2026"], "default": true,
  "cache": {"min_tokens": 1024, "growth": "units", "unit_tokens": 128, "order": ["tools", "system", "messages"],
            "ttl": ["5m"], "writes_charged": false},
  "prices_per_mtok": {"input": 2.0, "cached_input": 0.5, "output": 8.0},
  "sources": ["https://example.com/pricing"], "read": "2026-12-01"}"#;

fn table(rows: &str) -> String {
    format!(r#"{{"format": "{FORMAT}", "models": [{rows}]}}"#)
}

#[test]
fn the_built_in_table_is_valid_and_every_row_says_where_it_comes_from() {
    let t = Table::builtin();
    assert!(!t.models.is_empty());
    for row in &t.models {
        assert!(
            row.sources.iter().all(|s| s.starts_with("https://")),
            "{}",
            row.id
        );
    }
    assert!(
        !t.select(&[]).expect("defaults").is_empty(),
        "some rows are the default set"
    );
}

#[test]
fn rows_are_chosen_by_id_or_model_name_and_unknown_ones_are_named() {
    let t = Table::parse(&table(ROW), "m.json").expect("parses");
    assert_eq!(t.models[0].cache.growth, Growth::Units);
    let ids = |v: &[&str]| -> Vec<String> { v.iter().map(|s| (*s).to_owned()).collect() };
    assert_eq!(
        t.select(&ids(&["acme/a1"])).expect("by id")[0].id,
        "acme/a1"
    );
    assert_eq!(
        t.select(&ids(&["a1-2026"])).expect("by model")[0].id,
        "acme/a1"
    );
    assert_eq!(t.select(&[]).expect("defaults").len(), 1);
    let e = t.select(&ids(&["acme/b2"])).expect_err("unknown");
    assert_eq!(e, "no model \"acme/b2\" in the table; it has acme/a1");
}

#[test]
fn bad_tables_say_file_line_column_or_field() {
    let e = Table::parse("{\"format\": 1}", "m.json").expect_err("bad type");
    assert_eq!((e.line, e.column), (Some(1), Some(12)));
    assert!(
        e.to_string().starts_with("m.json:1:12: invalid type"),
        "{e}"
    );
    let e = Table::parse(&table(&ROW.replace("\"default\"", "\"defualt\"")), "m.json")
        .expect_err("unknown field");
    assert!(e.message.contains("unknown field `defualt`"), "{e}");
    let cases = [
        (
            ROW.replace("128", "0"),
            "models[0] (acme/a1).cache.unit_tokens",
        ),
        (
            ROW.replace("\"acme/a1\"", "\"a1\""),
            "models[0] (a1).id: expected provider/family",
        ),
        (
            ROW.replace("\"writes_charged\": false", "\"writes_charged\": true"),
            "cache_write: writes are charged, but TTL \"5m\" has no price",
        ),
        (
            ROW.replace("[\"https://example.com/pricing\"]", "[]"),
            "models[0] (acme/a1).sources",
        ),
        (
            ROW.replace("2026-12-01", "December"),
            "models[0] (acme/a1).read",
        ),
    ];
    for (row, expected) in cases {
        let e = Table::parse(&table(&row), "m.json").expect_err(expected);
        assert!(e.message.contains(expected), "{e}");
        assert_eq!(e.line, None);
    }
    let twice = format!("{ROW}, {ROW}");
    let e = Table::parse(&table(&twice), "m.json").expect_err("twice");
    assert!(e.message.contains("a second row with this id"), "{e}");
    let e = Table::parse(r#"{"format": "x", "models": []}"#, "m.json").expect_err("format");
    assert!(e.message.starts_with("format: expected"), "{e}");
}

#[test]
fn the_docs_list_every_built_in_row_with_its_rule_and_prices() {
    let doc = include_str!("../../docs/models.md");
    for row in Table::builtin().models {
        let line = doc
            .lines()
            .find(|l| l.starts_with(&format!("| `{}`", row.id)))
            .unwrap_or_else(|| panic!("docs/models.md has no row for {}", row.id));
        let p = &row.prices_per_mtok;
        let cells: Vec<&str> = line.split(" | ").collect();
        assert_eq!(cells[4], format!("${}", p.input), "{line}");
        assert_eq!(cells[5], format!("${}", p.cached_input), "{line}");
        assert_eq!(
            cells[7].trim_end_matches(" |"),
            format!("${}", p.output),
            "{line}"
        );
        assert_eq!(
            cells[1].replace(',', ""),
            row.cache.min_tokens.to_string(),
            "{line}"
        );
        assert_eq!(row.default, cells[0].ends_with("(default)"), "{line}");
    }
}

/// The 1-based line and column where `needle` starts in `text`, found by searching the text
/// (not by the reader under test).
fn position_of(text: &str, needle: &str) -> (Option<usize>, Option<usize>) {
    let at = text.find(needle).expect("needle in the table");
    let line = text[..at].matches('\n').count() + 1;
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    (Some(line), Some(text[start..at].chars().count() + 1))
}

#[test]
fn prices_that_are_negative_absurd_or_not_finite_are_refused_at_their_number() {
    let cases = [
        (
            "\"input\": 2.0",
            "\"input\": -2.0",
            "-2.0",
            "prices_per_mtok.input: -2.0 is not",
        ),
        (
            "\"input\": 2.0",
            "\"input\": 1e308",
            "1e308",
            "prices_per_mtok.input: 1e308 is not",
        ),
        (
            "\"output\": 8.0",
            "\"output\": 1000000.5",
            "1000000.5",
            "prices_per_mtok.output: 1000000.5 is not",
        ),
        (
            "\"output\": 8.0",
            "\"output\": 8.0, \"cache_write\": {\"5m\": 3e10}",
            "3e10",
            "prices_per_mtok.cache_write.5m: 30000000000.0 is not",
        ),
    ];
    for (from, to, number, expected) in cases {
        let text = table(&ROW.replace(from, to));
        let e = Table::parse(&text, "m.json").expect_err(expected);
        assert!(e.message.contains(expected), "{e}");
        assert!(
            e.message.contains(&format!("from 0 to {MAX_USD_PER_MTOK}")),
            "{e}"
        );
        assert_eq!((e.line, e.column), position_of(&text, number), "{e}");
        assert!(e.to_string().starts_with("m.json:"), "{e}");
    }
    // A number no float holds is a JSON error on its line.
    let text = table(&ROW.replace("\"cached_input\": 0.5", "\"cached_input\": 1e400"));
    let e = Table::parse(&text, "m.json").expect_err("1e400");
    assert_eq!(e.line, position_of(&text, "1e400").0, "{e}");
    assert!(e.message.contains("out of range"), "{e}");
    // The bound itself is a price.
    let text = table(&ROW.replace("\"input\": 2.0", "\"input\": 1000000.0"));
    Table::parse(&text, "m.json").expect("the highest price is allowed");
    // Token counts past a usize are refused where they are written (serde_json's column is
    // the number's end).
    let huge = "99999999999999999999999";
    let text = table(&ROW.replace("1024", huge));
    let e = Table::parse(&text, "m.json").expect_err("huge min_tokens");
    let (line, column) = position_of(&text, huge);
    assert_eq!(e.line, line, "{e}");
    let (column, e_column) = (column.expect("column"), e.column.expect("a column"));
    assert!((column..=column + huge.len()).contains(&e_column), "{e}");
    assert!(e.message.contains("expected usize"), "{e}");
}
