//! Documentation that stands on its own. Users have the docs, the help and the app, not the design
//! papers behind them, so:
//! - every doc path a user can meet (`docs/<name>.md`, `schemas/<path>`, a relative markdown link)
//!   in the command line's help, in the messages of `src/bin/`, `src/api/` and `src/segments.rs`,
//!   in the UI's sources or in the docs names a file that exists;
//! - no user-facing text cites what users cannot follow ("contract §4", "seed 000", "PRD v7", "§");
//! - docs/rules.md's segment table is the table of `src/segments.rs`.
//!
//! The scanners are tested on samples too (`scanners_*`), so a check that silently stopped finding
//! anything would fail.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cli(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .args(args)
        .output()
        .expect("run prompt-inspector");
    assert!(
        out.status.success(),
        "prompt-inspector {} failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The subcommands `--help` lists, read from its `Commands:` section so a new one is covered.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        // A command starts its line; a wrapped description is indented further.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

/// `(label, text)` for `--help` and every subcommand's `--help`.
fn help_texts() -> Vec<(String, String)> {
    let top = cli(&["--help"]);
    let mut out = Vec::new();
    for sub in subcommands(&top) {
        out.push((
            format!("`prompt-inspector {sub} --help`"),
            cli(&[&sub, "--help"]),
        ));
    }
    assert!(
        out.len() >= 5,
        "expected the subcommands in --help, found {out:?}"
    );
    out.insert(0, ("`prompt-inspector --help`".to_owned(), top));
    out
}

/// Files below `dir` (recursively, `node_modules` skipped) whose names end with one of `exts`.
fn files_under(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "node_modules") {
                    stack.push(p);
                }
            } else if p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| exts.iter().any(|x| n.ends_with(x)))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

/// The user's documentation: `docs/*.md`, `README.md` and `ui/README.md`.
fn doc_files() -> Vec<PathBuf> {
    let mut out = files_under(&root().join("docs"), &[".md"]);
    out.push(root().join("README.md"));
    out.push(root().join("ui/README.md"));
    out
}

/// The UI's sources: `ui/src/**/*.ts(x)` and `ui/index.html`.
fn ui_files() -> Vec<PathBuf> {
    let mut out = files_under(&root().join("ui/src"), &[".ts", ".tsx"]);
    out.push(root().join("ui/index.html"));
    out
}

/// Sources whose strings users read: the command line, the API, the segment table.
fn message_sources() -> Vec<PathBuf> {
    let mut out = files_under(&root().join("src/bin"), &[".rs"]);
    out.extend(files_under(&root().join("src/api"), &[".rs"]));
    out.push(root().join("src/segments.rs"));
    out
}

// ---- scanners ------------------------------------------------------------------------------------

fn line_of(text: &str, byte: usize) -> usize {
    text[..byte].matches('\n').count() + 1
}

/// Repository paths written in running text: `docs/<name>.md` and `schemas/<path>`, with the byte
/// offset where each starts. A path that continues another (`ui/docs/x.md`) is not one of ours.
fn repo_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for prefix in ["docs/", "schemas/"] {
        for (at, _) in text.match_indices(prefix) {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || "_-./".contains(c)) {
                continue;
            }
            let rest = &text[at + prefix.len()..];
            let tail: String = if prefix == "docs/" {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || "_-".contains(*c))
                    .collect();
                if name.is_empty() || !rest[name.len()..].starts_with(".md") {
                    continue;
                }
                format!("{name}.md")
            } else {
                let path: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || "_-./".contains(*c))
                    .collect();
                path.trim_end_matches(['.', '/']).to_owned()
            };
            if !tail.is_empty() {
                out.push((at, format!("{prefix}{tail}")));
            }
        }
    }
    out.sort();
    out
}

/// Relative link targets of markdown text (`[x](target)`, `![x](target)`, `[x]: target`), without
/// their `#fragment` or title; web addresses and in-page anchors are left out.
fn markdown_links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut push = |at: usize, raw: &str| {
        let raw = raw.trim().trim_start_matches('<');
        let target = raw.split([' ', '>']).next().unwrap_or("");
        let target = target.split('#').next().unwrap_or("");
        let external = ["http://", "https://", "mailto:", "tauri:", "data:"]
            .iter()
            .any(|s| target.starts_with(s));
        if !target.is_empty() && !external {
            out.push((at, target.to_owned()));
        }
    };
    for (at, _) in text.match_indices("](") {
        let rest = &text[at + 2..];
        if let Some(end) = rest.find(')') {
            push(at, &rest[..end]);
        }
    }
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with('[') && !t.starts_with("[[") {
            if let Some(close) = t.find("]:") {
                push(offset, &t[close + 2..]);
            }
        }
        offset += line.len();
    }
    out
}

/// Problems with the doc links in `text`: repository paths resolve from the repository root,
/// markdown links (when `markdown_dir` is given) from that folder.
fn broken_links(
    label: &str,
    text: &str,
    markdown_dir: Option<&Path>,
    exists: &dyn Fn(&Path) -> bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (at, path) in repo_paths(text) {
        if !exists(&root().join(&path)) {
            problems.push(format!(
                "{label}:{}: names `{path}`, which does not exist",
                line_of(text, at)
            ));
        }
    }
    if let Some(dir) = markdown_dir {
        for (at, target) in markdown_links(text) {
            if !exists(&dir.join(&target)) {
                problems.push(format!(
                    "{label}:{}: links to `{target}`, which does not exist (from {})",
                    line_of(text, at),
                    rel(dir)
                ));
            }
        }
    }
    problems
}

/// What user-facing text must not say: citations of the design papers behind the project.
const CITATIONS: [&str; 5] = ["contract §", "seed 00", "seed-00", "PRD v", "§"];

/// Citations in `text`, one problem per line (the first pattern that matches it).
fn citations(label: &str, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let lower = line.to_lowercase();
        if let Some(p) = CITATIONS.iter().find(|p| lower.contains(&p.to_lowercase())) {
            problems.push(format!("{label}:{}: cites {p:?}: {}", i + 1, line.trim()));
        }
    }
    problems
}

/// The string literals of Rust source, with the line each starts on: what a program can print.
/// Comments are skipped (they are for developers); raw strings and char literals are understood,
/// so a `'"'` does not start a string.
fn rust_strings(src: &str) -> Vec<(usize, String)> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    // Reads a string body from `j` (just after the opening quote) to its closing quote followed by
    // `hashes` hashes; returns the text and the index after the literal.
    let body = |mut j: usize, raw: bool, hashes: usize, line: &mut usize| {
        let mut s = String::new();
        while j < c.len() {
            if c[j] == '"' && (1..=hashes).all(|k| c.get(j + k) == Some(&'#')) {
                return (s, j + 1 + hashes);
            }
            if !raw && c[j] == '\\' && j + 1 < c.len() {
                s.push(c[j]);
                j += 1;
            }
            if c[j] == '\n' {
                *line += 1;
            }
            s.push(c[j]);
            j += 1;
        }
        (s, j)
    };
    while i < c.len() {
        match c[i] {
            '\n' => {
                line += 1;
                i += 1;
            }
            '/' if c.get(i + 1) == Some(&'/') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if c.get(i + 1) == Some(&'*') => {
                i += 2;
                while i < c.len() && !(c[i] == '*' && c.get(i + 1) == Some(&'/')) {
                    if c[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
                i += 2;
            }
            '\'' if c.get(i + 1) == Some(&'\\') => {
                i += 3; // past the escaped character, which may be a quote
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            }
            '\'' if c.get(i + 2) == Some(&'\'') => i += 3,
            '"' => {
                let start = line;
                let (s, next) = body(i + 1, false, 0, &mut line);
                out.push((start, s));
                i = next;
            }
            ch if ident(ch) => {
                let word_start = i;
                while i < c.len() && ident(c[i]) {
                    i += 1;
                }
                let word: String = c[word_start..i].iter().collect();
                if word == "r" || word == "br" {
                    let mut j = i;
                    while c.get(j) == Some(&'#') {
                        j += 1;
                    }
                    if c.get(j) == Some(&'"') {
                        let start = line;
                        let (s, next) = body(j + 1, true, j - i, &mut line);
                        out.push((start, s));
                        i = next;
                    }
                }
                // `b"…"`: the quote is read as a string on the next turn.
            }
            _ => i += 1, // a lifetime's quote, punctuation, white space
        }
    }
    out
}

// ---- the checks ----------------------------------------------------------------------------------

fn exists(p: &Path) -> bool {
    p.exists()
}

fn fail_on(problems: Vec<String>, what: &str) {
    assert!(
        problems.is_empty(),
        "{} {what}:\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}

#[test]
fn doc_links_in_help_sources_ui_and_docs_name_existing_files() {
    let mut problems = Vec::new();
    for (label, text) in help_texts() {
        problems.extend(broken_links(&label, &text, None, &exists));
    }
    let rules = cli(&["rules"]);
    assert!(
        rules.contains("docs/rules.md"),
        "`rules` points at the explanation:\n{rules}"
    );
    problems.extend(broken_links(
        "`prompt-inspector rules`",
        &rules,
        None,
        &exists,
    ));
    for p in message_sources().iter().chain(&ui_files()) {
        problems.extend(broken_links(&rel(p), &read(p), None, &exists));
    }
    for p in doc_files() {
        let dir = p.parent().unwrap_or(Path::new("."));
        problems.extend(broken_links(&rel(&p), &read(&p), Some(dir), &exists));
    }
    fail_on(problems, "doc links name files that do not exist");
}

#[test]
fn user_facing_text_cites_no_design_papers() {
    let mut problems = Vec::new();
    for (label, text) in help_texts() {
        problems.extend(citations(&label, &text));
    }
    // The segment uses and rule reasons, as the command line prints them.
    problems.extend(citations("`prompt-inspector rules`", &cli(&["rules"])));
    problems.extend(citations(
        "`prompt-inspector rules --format json`",
        &cli(&["rules", "--format", "json"]),
    ));
    for p in doc_files().iter().chain(&ui_files()) {
        problems.extend(citations(&rel(p), &read(p)));
    }
    // The segment table's file is user-facing text throughout, comments included.
    let segments = root().join("src/segments.rs");
    problems.extend(citations(&rel(&segments), &read(&segments)));
    // Elsewhere in the command line and the API, comments may cite the design for developers;
    // the strings are what users read.
    for p in message_sources() {
        for (line, s) in rust_strings(&read(&p)) {
            for problem in citations(&format!("{}:{line} (a string)", rel(&p)), &s) {
                problems.push(problem);
            }
        }
    }
    fail_on(problems, "citations users cannot follow");
}

/// What no file of the repository cites, comments included: documents a reader of the repository
/// does not have (the design papers, the interface contract, the machine notes beside it).
fn outside_citations(label: &str, text: &str) -> Vec<String> {
    let mut problems = citations(label, text);
    for (i, line) in text.lines().enumerate() {
        let lower = line.to_lowercase();
        let named = ["toolchain.md", "../shared", "shared/seeds", "shared/design"]
            .into_iter()
            .find(|p| lower.contains(p));
        // "contract" as a word ("the contract", "contract's"), not "contraction".
        let contract = lower.match_indices("contract").any(|(k, _)| {
            let before = lower[..k].chars().next_back();
            let after = lower[k + "contract".len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphabetic)
        });
        if let Some(p) = named.or(contract.then_some("contract")) {
            problems.push(format!("{label}:{}: cites {p:?}: {}", i + 1, line.trim()));
        }
    }
    problems
}

/// Every file a developer reads: sources, tests, scripts, manifests, examples and docs.
fn repository_texts() -> Vec<PathBuf> {
    let exts = [
        ".rs", ".ts", ".tsx", ".mjs", ".py", ".toml", ".md", ".sh", ".json", ".css", ".html",
    ];
    let mut out = Vec::new();
    for dir in [
        "src",
        "src-tauri/src",
        "src-tauri/e2e",
        "python/src",
        "python/prompt_inspector",
        "python/tests",
        "tests",
        "benches",
        "bench",
        "examples",
        "docs",
        "ui/src",
        "ui/test",
        "ui/e2e",
        "fuzz/fuzz_targets",
    ] {
        out.extend(
            files_under(&root().join(dir), &exts)
                .into_iter()
                .filter(|p| !p.components().any(|c| c.as_os_str() == "target")),
        );
    }
    out.extend(files_under(&root().join("scripts"), &[""]));
    for file in [
        "README.md",
        "Cargo.toml",
        "build.rs",
        "src-tauri/Cargo.toml",
        "src-tauri/build.rs",
        "python/Cargo.toml",
        "python/pyproject.toml",
        "ui/README.md",
        ".ci/run",
    ] {
        out.push(root().join(file));
    }
    // Files that hold the patterns on purpose: the scanners' own tests.
    let samples = [
        "tests/it/doc_links.rs",
        "ui/test/truth.test.ts",
        "ui/test/run.test.ts",
        "ui/e2e/journey.mjs",
    ];
    out.retain(|p| p.is_file() && !samples.iter().any(|s| root().join(s) == *p));
    out
}

#[test]
fn no_file_cites_documents_outside_the_repository() {
    let mut problems = Vec::new();
    for p in repository_texts() {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue; // not text
        };
        problems.extend(outside_citations(&rel(&p), &text));
    }
    fail_on(problems, "citations of documents outside the repository");
}

#[test]
fn scanners_find_outside_citations() {
    for cited in [
        "// as the contract prints it",
        "# one wheel (toolchain.md)",
        "//! the contract's exceptions",
        "see ../shared/design/product.md",
        "(seed 000 §3.1)",
    ] {
        assert_eq!(outside_citations("x", cited).len(), 1, "{cited}");
    }
    assert!(
        outside_citations("x", "contractions in both cases; contracted; (docs/cli.md)").is_empty()
    );
    assert!(
        repository_texts().len() > 100,
        "the scan reads the repository"
    );
}

/// docs/rules.md's segment table, as `prompt-inspector rules --format json` gives the segments.
fn segment_table(rules: &serde_json::Value) -> String {
    let mut out = String::new();
    let segments = rules["segments"].as_array().cloned().unwrap_or_default();
    for (family, class) in [("chat", "ChatLLM"), ("desk", "DeskLLM")] {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!(
            "**{class}**, in assembly order:\n\n| # | segment | tools | rule | cached prefix | use |\n| --- | --- | --- | --- | --- | --- |\n"
        ));
        let mut rows: Vec<&serde_json::Value> =
            segments.iter().filter(|s| s["family"] == family).collect();
        rows.sort_by_key(|s| s["order"].as_u64());
        for s in rows {
            let legal = s["legal"].as_bool() == Some(true);
            let rule = s["rule"]
                .as_str()
                .map(|r| format!(" `{r}` "))
                .unwrap_or_else(|| " ".to_owned());
            out.push_str(&format!(
                "| {} | `{}` | {} |{rule}| {} | {} |\n",
                s["order"].as_u64().unwrap_or(0) + 1,
                s["name"].as_str().unwrap_or(""),
                if legal { "may inject" } else { "forbidden" },
                if s["cached_prefix"].as_bool() == Some(true) {
                    "yes"
                } else {
                    "no"
                },
                s["purpose"].as_str().unwrap_or("").replace('|', "\\|"),
            ));
        }
    }
    out
}

/// The text between docs/rules.md's table markers.
fn table_in(doc: &str) -> Option<&str> {
    let begin = doc.find("<!-- BEGIN segment-table")?;
    let start = begin + doc[begin..].find("-->\n")? + 4;
    let end = start + doc[start..].find("<!-- END segment-table -->")?;
    Some(&doc[start..end])
}

#[test]
fn rules_doc_table_matches_src_segments() {
    let json = cli(&["rules", "--format", "json"]);
    let rules: serde_json::Value = serde_json::from_str(&json).expect("rules --format json");
    let expected = segment_table(&rules);
    assert_eq!(expected.matches("\n| ").count(), 14 + 4, "{expected}");
    let path = root().join("docs/rules.md");
    let doc = read(&path);
    let Some(found) = table_in(&doc) else {
        panic!("docs/rules.md: no <!-- BEGIN segment-table ... --> ... <!-- END segment-table --> block");
    };
    assert!(
        found == expected,
        "docs/rules.md's segment table differs from src/segments.rs; paste this between the \
         markers:\n\n{expected}"
    );
    // Each rule has a section headed with its id.
    for r in rules["rules"].as_array().cloned().unwrap_or_default() {
        let id = r["id"].as_str().unwrap_or("");
        assert!(
            doc.lines()
                .any(|l| l.starts_with("### ") && l.contains(&format!("(`{id}`)"))),
            "docs/rules.md has no section headed with (`{id}`)"
        );
    }
}

// ---- the scanners find what they should (so the checks above can fail) ---------------------------

#[test]
fn scanners_find_broken_links() {
    let text = "See docs/rules.md and docs/nope.md, [x](../docs/gone.md#a), [web](https://x.y), \
                [here](#top), schemas/none.schema.json. and ui/docs/other.md, docs/*.md.\n\
                [ref]: missing/file.md\n";
    let paths: Vec<String> = repo_paths(text).into_iter().map(|(_, p)| p).collect();
    assert_eq!(
        paths,
        ["docs/rules.md", "docs/nope.md", "schemas/none.schema.json"]
    );
    let links: Vec<String> = markdown_links(text).into_iter().map(|(_, p)| p).collect();
    assert_eq!(links, ["../docs/gone.md", "missing/file.md"]);
    let docs = root().join("docs");
    let problems = broken_links("sample.md", text, Some(&docs), &exists);
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(
        problems[0].contains("sample.md:1: names `docs/nope.md`"),
        "{problems:#?}"
    );
    assert!(
        problems[3].contains("sample.md:2: links to `missing/file.md`"),
        "{problems:#?}"
    );
    // Everything resolves when the files are there.
    assert!(broken_links("sample.md", text, Some(&docs), &|_| true).is_empty());
}

#[test]
fn scanners_find_citations() {
    for cited in [
        "the report of contract §4",
        "Seed 000's rules",
        "across seed-000 calls",
        "TFRobot's PRD v7",
        "as §3.5 says",
    ] {
        assert_eq!(citations("x", cited).len(), 1, "{cited}");
    }
    assert!(citations("x", "the JSON report (docs/cli.md), TFRobot's design").is_empty());
}

#[test]
fn scanners_read_rust_strings_not_comments() {
    let src = r####"//! contract §4 (a comment)
/// seed 002 (a doc comment)
fn f<'a>(x: &'a str) -> char {
    let q = '"'; let e = '\''; /* "not a string" */
    println!("error: no run (contract §5)");
    let r = r#"raw "quoted" seed 000"#;
    let b = b"bytes";
    for_each(br"raw bytes");
    '\u{1F600}'
}
"####;
    let strings: Vec<(usize, String)> = rust_strings(src);
    assert_eq!(
        strings,
        [
            (5, "error: no run (contract §5)".to_owned()),
            (6, "raw \"quoted\" seed 000".to_owned()),
            (7, "bytes".to_owned()),
            (8, "raw bytes".to_owned()),
        ]
    );
}
