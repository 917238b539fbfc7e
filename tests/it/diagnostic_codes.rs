//! The diagnostic codes are one enum (`report::DiagnosticCode`): docs/diagnostics.md lists
//! exactly its variants with their levels, and `--deny` takes only its codes.

use std::collections::BTreeMap;

use prompt_inspector::report::DiagnosticCode;

use crate::support::{cli, root};

/// Each row of the doc's tables whose header starts `| code | level |`: the code and the level,
/// with the line they are on.
fn documented() -> Vec<(String, String, usize)> {
    let doc =
        std::fs::read_to_string(root().join("docs/diagnostics.md")).expect("docs/diagnostics.md");
    let mut rows = Vec::new();
    let mut in_table = false;
    for (i, line) in doc.lines().enumerate() {
        if line.starts_with("| code | level |") {
            in_table = true;
            continue;
        }
        if !line.starts_with('|') {
            in_table = false;
            continue;
        }
        if !in_table || line.starts_with("| ---") {
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let code = cells[1].trim_matches('`');
        rows.push((code.to_owned(), cells[2].to_owned(), i + 1));
    }
    rows
}

#[test]
fn the_docs_tables_list_every_code_once_with_its_level() {
    let rows = documented();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (code, level, line) in &rows {
        if let Some(first) = seen.insert(code, *line) {
            panic!("docs/diagnostics.md:{line}: {code} is listed again (first on line {first})");
        }
        let parsed: DiagnosticCode = code
            .parse()
            .unwrap_or_else(|e| panic!("docs/diagnostics.md:{line}: {e}"));
        assert_eq!(
            level,
            parsed.level().as_str(),
            "docs/diagnostics.md:{line}: the level of {code}"
        );
    }
    for code in DiagnosticCode::ALL {
        assert!(
            seen.contains_key(code.as_str()),
            "{code} is missing from docs/diagnostics.md's tables"
        );
    }
    // The tables are the enum's order, so the doc reads like `--deny`'s list.
    let documented: Vec<&str> = rows.iter().map(|(c, _, _)| c.as_str()).collect();
    let declared: Vec<&str> = DiagnosticCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(documented, declared);
}

#[test]
fn an_unknown_deny_code_is_a_usage_error_listing_the_codes() {
    let scene = "fixtures/lint/volatile-values.scene.json";
    for args in [
        vec!["check", scene, "--deny", "tool_invlid"],
        vec!["cache", scene, "--deny", "tool_invlid"],
        vec![
            "run",
            "fixtures/run/long-goal.scene.json",
            "--deny",
            "tool_invlid",
        ],
    ] {
        let o = cli(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("unknown diagnostic code \"tool_invlid\""),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("tool_invalid, tool_raised, tool_format_2_prompt,"),
            "{args:?}: {err}"
        );
        assert!(err.contains("cache_below_minimum"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}: nothing ran");
    }
}

#[test]
fn a_known_code_that_is_not_the_lints_denies_a_scene_that_has_it() {
    // The fixture repeats a tool name: a `tool_duplicate` warning in both reports.
    let scene = "fixtures/scenes/duplicates-and-order.scene.json";
    assert_eq!(cli(&["check", scene]).status.code(), Some(0));
    let denied = cli(&["check", scene, "--deny", "tool_duplicate"]);
    assert_eq!(denied.status.code(), Some(1));
    let text = String::from_utf8_lossy(&denied.stdout);
    assert!(text.contains("DENIED chat tool_duplicate: "), "{text}");
}
