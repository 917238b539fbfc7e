//! The browser UI's files (`--ui DIR`): `/` is `index.html`, and nothing outside DIR is served.

use std::path::{Component, Path};

use super::{HttpCode, Reply};

/// The largest file `--ui DIR` serves (the built UI's largest is a few MB).
const MAX_UI_FILE_BYTES: u64 = 64 * 1024 * 1024;

pub fn serve(ui: Option<&Path>, path: &str) -> Reply {
    let not_found =
        |what: &str| Reply::refused(HttpCode::NotFound, format!("no such file: {what}"));
    let Some(root) = ui else {
        return not_found("no UI folder (build ui/ or pass --ui DIR)");
    };
    let relative = Path::new(path.trim_start_matches('/'));
    // Only plain names: no `..`, no root, no drive prefixes (percent-escapes are not decoded,
    // so `%2e%2e` stays a literal, missing name).
    if !relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
    {
        return not_found(path);
    }
    let mut file = root.join(relative);
    if file.is_dir() {
        file = file.join("index.html");
    }
    // A symlink inside DIR pointing out of it is refused too.
    let inside = match (file.canonicalize(), root.canonicalize()) {
        (Ok(f), Ok(r)) => f.starts_with(r),
        _ => false,
    };
    if !inside {
        return not_found(path);
    }
    // Regular files only, bounded: a FIFO or device under DIR must not stall or bloat the server.
    match prompt_inspector::files::read_regular(&file, MAX_UI_FILE_BYTES, "a UI file") {
        Ok(body) => Reply::new(200, content_type(&file), body),
        Err(_) => not_found(path),
    }
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "wasm" => "application/wasm",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}
