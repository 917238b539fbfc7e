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

/// The modules a source text names as `crate::<module>`, outside comments.
fn named_modules(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in source.lines() {
        let code = match line.find("//") {
            Some(k) => &line[..k],
            None => line,
        };
        let mut rest = code;
        while let Some(k) = rest.find("crate::") {
            let after = &rest[k + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // `$crate::` in a macro is the crate itself, not a module.
            let dollar = k > 0 && rest.as_bytes()[k - 1] == b'$';
            if !name.is_empty() && !dollar {
                out.push(name);
            }
            rest = after;
        }
    }
    out
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
            for used in named_modules(&text) {
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
    assert_eq!(named_modules(src), vec!["json", "value"]);
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
