//! The core's layers: docs/architecture.md writes the allowed directions down once (its
//! "layers" block, lowest line first); this test reads that block and every module of `src/`, and
//! fails when a module names one on its own line or a higher one (`crate::<module>` in code), or
//! when a module of `src/lib.rs` has no line. Doc comments and comments are not imports.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The layer of each module: the index of its line in the block between the markers.
fn layers(doc: &str) -> BTreeMap<String, usize> {
    let start = doc
        .find("<!-- BEGIN layers -->")
        .expect("docs/architecture.md has a layers block");
    let end = doc[start..]
        .find("<!-- END layers -->")
        .expect("the layers block ends")
        + start;
    let mut out = BTreeMap::new();
    let lines = doc[start..end]
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with("```") && !l.trim().is_empty());
    for (level, line) in lines.enumerate() {
        for module in line.split_whitespace() {
            assert!(
                out.insert(module.to_owned(), level).is_none(),
                "{module} is on two lines of the layers block"
            );
        }
    }
    out
}

/// The modules `src/lib.rs` declares.
fn declared_modules(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .filter_map(|l| l.strip_suffix(';'))
        .map(str::to_owned)
        .collect()
}

/// One token of Rust source, as far as paths go: comments, string and character literals are
/// dropped, so only code is left.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Dollar,
    Other,
}

/// Splits Rust source into [`Token`]s, skipping comments (nested block comments too), strings
/// (raw ones with their hashes), byte strings and character literals (a lifetime is not one).
fn tokens(source: &str) -> Vec<Token> {
    let b = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let ident_byte = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        let c = b[i];
        match c {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'"' => i = skip_string(b, i + 1),
            b'r' | b'b' if is_raw_string(b, i) => {
                let mut j = i + 1;
                if b[j] == b'r' {
                    j += 1;
                }
                let hashes = b[j..].iter().take_while(|&&c| c == b'#').count();
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                j += hashes + 1;
                while j < b.len() && !b[j..].starts_with(&close) {
                    j += 1;
                }
                i = j + close.len();
            }
            b'b' if b.get(i + 1) == Some(&b'"') => i = skip_string(b, i + 2),
            b'b' if b.get(i + 1) == Some(&b'\'') => i = skip_char(b, i + 1),
            b'\'' => {
                // `'a` followed by no closing quote is a lifetime or a label.
                let lifetime =
                    b.get(i + 1).is_some_and(|&c| ident_byte(c)) && b.get(i + 2) != Some(&b'\'');
                if lifetime {
                    i += 1;
                    while i < b.len() && ident_byte(b[i]) {
                        i += 1;
                    }
                } else {
                    i = skip_char(b, i);
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && ident_byte(b[i]) {
                    i += 1;
                }
                out.push(Token::Ident(source[start..i].to_owned()));
            }
            b':' if b.get(i + 1) == Some(&b':') => {
                out.push(Token::PathSep);
                i += 2;
            }
            b'{' => {
                out.push(Token::Open);
                i += 1;
            }
            b'}' => {
                out.push(Token::Close);
                i += 1;
            }
            b',' => {
                out.push(Token::Comma);
                i += 1;
            }
            b'$' => {
                out.push(Token::Dollar);
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                out.push(Token::Other);
                i += 1;
            }
        }
    }
    out
}

fn is_raw_string(b: &[u8], i: usize) -> bool {
    let mut j = i;
    if b[j] == b'b' {
        j += 1;
    }
    if b.get(j) != Some(&b'r') {
        return false;
    }
    // Not the tail of an identifier (`for"` cannot occur, but `bar#` neither).
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
        return false;
    }
    let hashes = b[j + 1..].iter().take_while(|&&c| c == b'#').count();
    b.get(j + 1 + hashes) == Some(&b'"')
}

/// The index after a string whose body starts at `i`.
fn skip_string(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// The index after a character literal whose opening quote is at `i`.
fn skip_char(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    if b.get(j) == Some(&b'\\') {
        j += 2;
    } else {
        j += 1;
    }
    while j < b.len() && b[j] != b'\'' {
        j += 1;
    }
    j + 1
}

/// The top-level modules a source text names, in code: `crate::<module>`, every first name of a
/// use tree `crate::{a, b::c, d as _}`, and `super::...` paths that climb to the crate root.
/// `depth` is how many modules deep the file is (`src/inject/mod.rs` and `src/inject.rs` are 1,
/// `src/inject/lint.rs` 2); an inline `mod name { ... }` adds one inside its braces.
fn named_modules(source: &str, depth: usize) -> Vec<String> {
    let toks = tokens(source);
    let mut out = Vec::new();
    // The brace depths at which inline modules opened.
    let mut inline_mods: Vec<usize> = Vec::new();
    let mut braces = 0usize;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Token::Open => {
                braces += 1;
                i += 1;
                continue;
            }
            Token::Close => {
                if inline_mods.last() == Some(&braces) {
                    inline_mods.pop();
                }
                braces = braces.saturating_sub(1);
                i += 1;
                continue;
            }
            Token::Ident(m) if m == "mod" => {
                if let (Some(Token::Ident(_)), Some(Token::Open)) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    inline_mods.push(braces + 1);
                }
                i += 1;
                continue;
            }
            _ => {}
        }
        let here = depth + inline_mods.len();
        let dollar = i > 0 && toks[i - 1] == Token::Dollar;
        let after_sep = i > 0 && toks[i - 1] == Token::PathSep;
        let root_at = match &toks[i] {
            Token::Ident(w) if w == "crate" && !dollar && !after_sep => {
                (toks.get(i + 1) == Some(&Token::PathSep)).then_some(i + 2)
            }
            Token::Ident(w) if w == "super" && !after_sep => {
                // Count the `super::` hops; reaching the root names a top-level module next.
                let mut j = i;
                let mut hops = 0;
                while toks.get(j) == Some(&Token::Ident("super".to_owned()))
                    && toks.get(j + 1) == Some(&Token::PathSep)
                {
                    hops += 1;
                    j += 2;
                }
                (hops == here).then_some(j)
            }
            _ => None,
        };
        if let Some(at) = root_at {
            match toks.get(at) {
                Some(Token::Ident(name)) => out.push(name.clone()),
                Some(Token::Open) => out.extend(use_group_heads(&toks[at..])),
                _ => {}
            }
        }
        i += 1;
    }
    out
}

/// The first name of each item of the use group that starts at `toks[0]` (`{`), skipping `self`.
fn use_group_heads(toks: &[Token]) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut expect_head = false;
    for t in toks {
        match t {
            Token::Open => {
                depth += 1;
                if depth == 1 {
                    expect_head = true;
                }
            }
            Token::Close => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Token::Comma if depth == 1 => expect_head = true,
            Token::Ident(name) if depth == 1 && expect_head => {
                if name != "self" {
                    out.push(name.clone());
                }
                expect_head = false;
            }
            _ => {
                if depth == 1 {
                    expect_head = false;
                }
            }
        }
    }
    out
}

/// How many modules deep a file under `src/` is.
fn module_depth(file: &Path) -> usize {
    let rel = file.strip_prefix(root().join("src")).unwrap_or(file);
    let parts = rel.components().count();
    let is_mod = rel.file_name().is_some_and(|n| n == "mod.rs");
    if is_mod {
        parts - 1
    } else {
        parts
    }
}

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .expect("read dir")
            .map(|e| e.expect("entry").path())
            .collect();
        entries.sort();
        for e in entries {
            rust_files(&e, out);
        }
    } else if path.is_file() && path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_path_buf());
    }
}

/// Every import against the layers: `(file, line's module, imported module)`.
fn violations(layer: &BTreeMap<String, usize>, modules: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for module in modules {
        let mut files = Vec::new();
        rust_files(&root().join("src").join(format!("{module}.rs")), &mut files);
        rust_files(&root().join("src").join(module), &mut files);
        let here = layer[module];
        for file in files {
            let text = std::fs::read_to_string(&file).expect("read source");
            for used in named_modules(&text, module_depth(&file)) {
                if &used == module {
                    continue;
                }
                match layer.get(&used) {
                    Some(&there) if there < here => {}
                    Some(_) => out.push(format!(
                        "{}: {module} uses {used}, which is not below it",
                        file.strip_prefix(root()).unwrap_or(&file).display()
                    )),
                    None => {}
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn every_module_imports_only_the_layers_below_it() {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).expect("architecture");
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).expect("lib.rs");
    let layer = layers(&doc);
    let modules = declared_modules(&lib);
    let missing: Vec<&String> = modules.iter().filter(|m| !layer.contains_key(*m)).collect();
    assert!(
        missing.is_empty(),
        "modules of src/lib.rs without a line in docs/architecture.md's layers: {missing:?}"
    );
    let stale: Vec<&String> = layer.keys().filter(|m| !modules.contains(m)).collect();
    assert!(
        stale.is_empty(),
        "layers naming no module of src/lib.rs: {stale:?}"
    );
    let bad = violations(&layer, &modules);
    assert!(
        bad.is_empty(),
        "imports against the layers:\n{}",
        bad.join("\n")
    );
}

/// The reader finds what a violation looks like, so the test above can fail.
#[test]
fn the_layer_reader_sees_imports_and_skips_comments() {
    let doc = "x\n<!-- BEGIN layers -->\n```text\nvalue json_out\njson\n```\n<!-- END layers -->\n";
    let layer = layers(doc);
    assert_eq!(layer["value"], 0);
    assert_eq!(layer["json_out"], 0);
    assert_eq!(layer["json"], 1);
    let src = "use crate::json::parse; // crate::api in a comment\n/// see [`crate::inject`]\nlet v = crate::value::Value::None;\n$crate::x!();";
    assert_eq!(named_modules(src, 1), vec!["json", "value"]);
    // Use trees name every module in their group, over several lines, renamed or not.
    let tree = "use crate::{api as _};\nuse crate::{\n    self as me,\n    json::{parse, Span},\n    report, // crate::html\n};";
    assert_eq!(named_modules(tree, 1), vec!["api", "json", "report"]);
    // Strings, raw strings and characters are not code; lifetimes are not characters.
    let text = "let s = \"crate::api\"; let r = r#\"crate::html\"#; let c = '{'; fn f<'a>(x: &'a str) { crate::check::run(); }";
    assert_eq!(named_modules(text, 1), vec!["check"]);
    // `super` climbs to the crate root from a file's depth, inline modules included.
    let sup = "use super::json;\nmod tests {\n    use super::super::api;\n    use super::x;\n}\nuse super::super::html;";
    assert_eq!(named_modules(sup, 1), vec!["json", "api"]);
    assert_eq!(named_modules(sup, 2), vec!["html"]);
    assert_eq!(
        declared_modules("pub mod api;\nmod private;\npub mod json;\n"),
        vec!["api", "json"]
    );
}

/// The files of `src/` that name `minijinja::machinery` (minijinja's unstable interface) in
/// code, comments aside, with the first line that does.
fn machinery_users(files: &[PathBuf]) -> Vec<String> {
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).expect("read source");
        let hit = text.lines().enumerate().find(|(_, line)| {
            let code = line.find("//").map_or(&line[..], |k| &line[..k]);
            // `minijinja :: machinery` with spaces would be odd but is the same path.
            let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
            squeezed.contains("minijinja::machinery")
        });
        if let Some((n, _)) = hit {
            let shown = file.strip_prefix(root()).unwrap_or(file);
            out.push(format!("{}:{}", shown.display(), n + 1));
        }
    }
    out
}

/// minijinja's `unstable_machinery` changes between releases; one module fences it, so an
/// upgrade (Cargo.toml pins the exact version) is reviewed in one place (docs/templates.md).
#[test]
fn only_the_machinery_module_names_minijinja_machinery() {
    let mut files = Vec::new();
    for dir in ["src", "python/src", "src-tauri/src"] {
        rust_files(&root().join(dir), &mut files);
    }
    let fence = root().join("src/template/jinja/machinery.rs");
    assert!(files.contains(&fence), "the fence module exists");
    files.retain(|f| f != &fence);
    let users = machinery_users(&files);
    assert!(
        users.is_empty(),
        "minijinja::machinery named outside src/template/jinja/machinery.rs: {users:?}"
    );
    // The check sees a use when there is one.
    assert_eq!(machinery_users(&[fence]).len(), 1);
}

/// Cargo.toml pins minijinja to one exact version, the one Cargo.lock holds.
#[test]
fn minijinja_is_pinned_to_the_locked_version() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).expect("Cargo.lock");
    for name in ["minijinja", "minijinja-contrib"] {
        let line = manifest
            .lines()
            .find(|l| l.starts_with(&format!("{name} = ")))
            .unwrap_or_else(|| panic!("{name} in Cargo.toml"));
        let locked = lock
            .split("[[package]]")
            .find(|p| p.contains(&format!("\nname = \"{name}\"\n")))
            .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or_else(|| panic!("{name} in Cargo.lock"));
        assert!(
            line.contains(&format!("version = \"={locked}\"")),
            "{name} is not pinned to ={locked}: {line}"
        );
    }
}
