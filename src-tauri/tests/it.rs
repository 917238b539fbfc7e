//! The app's commands over real IPC messages on Tauri's mock runtime: no WebKit, no window. Each
//! test builds the app as `run()` does (same handler, plugins, state), with the real tauri.conf.json
//! and capabilities compiled in, so the ACL is the shipped one.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::OnceLock;
use std::time::Instant;

use prompt_inspector_app::close_guard::{Choice, Phase, Request};
use prompt_inspector_app::commands::{
    AppState, COMMANDS, DIALOG_PATH_ENV, GRANTED, WEBVIEW_OPERATIONS,
};
use serde_json::{json, Value};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, MockRuntime};
use tauri::webview::InvokeRequest;
use tauri::{Manager, WebviewUrl, WebviewWindow, WebviewWindowBuilder};

/// A scratch folder for this test binary, also used as the XDG data folder so nothing lands in
/// the real home directory.
fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("prompt-inspector-app-it");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the scratch folder");
        dir
    })
}

fn app() -> (tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
    // Each test's app runs its OTLP receiver on a port of its own, never on the 4318 a running app
    // or collector may hold.
    static OTLP_ON_ANY_PORT: std::sync::Once = std::sync::Once::new();
    OTLP_ON_ANY_PORT
        .call_once(|| std::env::set_var(prompt_inspector_app::receiver::OTLP_ENV, "127.0.0.1:0"));
    let app = prompt_inspector_app::app_builder(prompt_inspector_app::specta_builder!(MockRuntime))
        .build(tauri::generate_context!())
        .expect("build the app on the mock runtime");
    // The capability grants the window labelled "main"; the URL is the app's own (local) origin.
    let window = WebviewWindowBuilder::new(&app, "main", WebviewUrl::default())
        .build()
        .expect("open the main window");
    (app, window)
}

fn request(
    window: &WebviewWindow<MockRuntime>,
    cmd: &str,
    args: Value,
    url: &str,
) -> InvokeRequest {
    InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: url.parse().expect("a valid URL"),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        // Built with the app's own builder (not mock_builder), so the key is the random one.
        invoke_key: window.app_handle().invoke_key().to_owned(),
    }
}

/// Invokes a command from the app's own page; `Ok` is the command's JSON, `Err` the rejection.
fn invoke(window: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    get_ipc_response(window, request(window, cmd, args, "tauri://localhost"))
        .map(|body| body.deserialize::<Value>().expect("the response is JSON"))
}

/// What a dialog's answer does: the person chose the file (or folder), so the commands may reach it.
fn choose_file(window: &WebviewWindow<MockRuntime>, path: &Path) {
    window.state::<AppState>().reach.choose_file(path);
}

fn choose_folder(window: &WebviewWindow<MockRuntime>, path: &Path) {
    window.state::<AppState>().reach.choose_folder(path);
}

fn default_text(window: &WebviewWindow<MockRuntime>) -> String {
    let scene = invoke(window, "default_scene", json!({})).expect("default_scene");
    scene["text"].as_str().expect("text").to_owned()
}

#[test]
fn default_scene_is_the_embedded_tfnotes_scene() {
    let (_app, w) = app();
    let scene = invoke(&w, "default_scene", json!({})).expect("default_scene");
    assert_eq!(scene["path"], Value::Null);
    let text = scene["text"].as_str().expect("text");
    assert!(text.contains("prompt-inspector/scene@1"), "{text:.200}");
    assert!(text.contains("tf_notes") && text.contains("goal_rewriter"));
}

#[test]
fn render_returns_the_report_of_both_families() {
    let (_app, w) = app();
    let text = default_text(&w);
    for llm in ["chat", "desk"] {
        let r = invoke(&w, "render", json!({"req": {"text": text, "llm": llm}})).expect("render");
        let report = &r["report"];
        assert_eq!(report["llm"], llm);
        let segments = report["segments"].as_array().expect("segments");
        assert_eq!(segments.len(), 7, "{llm}: 7 segments");
        let tools = report["tools"].as_array().expect("tools");
        assert!(tools.iter().any(|t| t["name"] == "goal_rewriter"));
    }
    // Optional fields may be left out or null, as over HTTP.
    let r = invoke(
        &w,
        "render",
        json!({"req": {"text": text, "llm": "chat", "provider": "openai", "base_dir": null, "tokens": true}}),
    )
    .expect("render with a provider");
    assert!(
        r["report"]["request"].is_object(),
        "the OpenAI body is there"
    );
}

#[test]
fn errors_cross_ipc_as_code_message_and_position() {
    let (_app, w) = app();
    // A scene that does not load: load_error with line and column.
    let bad = "{\n  \"format\": \"prompt-inspector/scene@1\",\n  \"nam\": 1\n}\n";
    let err = invoke(&w, "render", json!({"req": {"text": bad, "llm": "chat"}}))
        .expect_err("a bad scene is an error");
    assert_eq!(err["code"], "load_error", "{err}");
    assert!(err["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert!(
        err["line"].as_u64().is_some() && err["column"].as_u64().is_some(),
        "{err}"
    );

    // A missing file in a folder the person chose: io_error naming the file.
    choose_folder(&w, scratch());
    let missing = scratch().join("no-such.scene.json");
    let err = invoke(&w, "open", json!({"req": {"path": missing}})).expect_err("missing file");
    assert_eq!(err["code"], "io_error");
    assert_eq!(err["file"], missing.display().to_string());

    // desk + provider: invalid_argument naming the field.
    let err = invoke(
        &w,
        "render",
        json!({"req": {"text": default_text(&w), "llm": "desk", "provider": "openai"}}),
    )
    .expect_err("provider with desk");
    assert_eq!(err["code"], "invalid_argument");
    assert_eq!(err["field"], "provider");
}

#[test]
fn save_is_atomic_and_reopens_the_same_text() {
    let (_app, w) = app();
    let path = scratch().join("saved.scene.json");
    choose_file(&w, &path);
    let text = default_text(&w).replace("工作笔记", "工作笔记 SAVED");
    let stat = invoke(&w, "save", json!({"req": {"path": path, "text": text}})).expect("save");
    assert_eq!(stat["size"].as_f64(), Some(text.len() as f64));
    assert!(stat["modified_ms"].as_f64().is_some_and(|ms| ms > 0.0));
    let opened = invoke(&w, "open", json!({"req": {"path": path}})).expect("open");
    assert_eq!(opened["text"], text);
    assert_eq!(opened["path"], path.display().to_string());
    let again = invoke(&w, "stat", json!({"req": {"path": path}})).expect("stat");
    assert_eq!(again, stat);

    // Text that does not load is refused and the file keeps its content.
    let err = invoke(&w, "save", json!({"req": {"path": path, "text": "{"}})).expect_err("refused");
    assert_eq!(err["code"], "load_error");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
}

#[test]
fn rules_validate_run_check_and_approve() {
    let (_app, w) = app();
    let rules = invoke(&w, "rules", json!({})).expect("rules");
    assert_eq!(rules["segments"].as_array().map(Vec::len), Some(14));
    assert_eq!(rules["rules"].as_array().map(Vec::len), Some(3));

    // The page reads validation from its live document (`validate` itself is not granted to it).
    let text = default_text(&w);
    let opened = invoke(&w, "live_open", json!({"req": {"text": text}})).expect("live_open");
    assert_eq!(opened["load_error"], Value::Null);
    let v = &opened["patch"][0]["value"]["validate"];
    let invalid: Vec<_> = v["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter(|t| t["valid"] == false)
        .collect();
    assert_eq!(invalid.len(), 1, "{v}");
    assert_eq!(invalid[0]["name"], "goal_rewriter");
    assert!(invalid[0]["rule"].is_string() && invalid[0]["rule_reason"].is_string());

    let err = invoke(&w, "run", json!({"req": {"text": text}})).expect_err("no run field");
    assert_eq!(err["code"], "no_run");

    // check → missing golden → approve → ok.
    let folder = scratch().join("replay");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::write(folder.join("a.scene.json"), &text).expect("write scene");
    choose_folder(&w, &folder);
    let c = invoke(&w, "check", json!({"req": {"folder": folder}})).expect("check");
    assert_eq!(c["scenes"][0]["status"], "missing_golden", "{c}");
    let a = invoke(
        &w,
        "approve",
        json!({"req": {"scene_path": folder.join("a.scene.json")}}),
    )
    .expect("approve");
    assert!(a["golden_path"]
        .as_str()
        .is_some_and(|p| p.ends_with("a.golden.json")));
    let c = invoke(&w, "check", json!({"req": {"folder": folder}})).expect("check again");
    assert_eq!(
        (c["passed"].as_u64(), c["failed"].as_u64()),
        (Some(1), Some(0)),
        "{c}"
    );
}

#[test]
fn dirty_flag_and_stubbed_dialogs() {
    let (app, w) = app();
    assert_eq!(
        invoke(
            &w,
            "set_dirty",
            json!({"dirty": true, "title": "● a.scene.json — Prompt Inspector"})
        ),
        Ok(Value::Null)
    );
    let state = app.state::<AppState>();
    assert!(state.dirty.load(Ordering::SeqCst));
    assert_eq!(
        invoke(
            &w,
            "set_dirty",
            json!({"dirty": false, "title": "a.scene.json — Prompt Inspector"})
        ),
        Ok(Value::Null)
    );
    assert!(!state.dirty.load(Ordering::SeqCst));
    // The title travels with the flag (the mock runtime keeps no title; the real-window journey
    // reads the X window's): a call without it is refused and leaves the flag alone.
    assert!(invoke(&w, "set_dirty", json!({"dirty": true})).is_err());
    assert!(!state.dirty.load(Ordering::SeqCst));

    // Under the e2e test the dialogs answer with a fixed path instead of showing a GTK chooser.
    let folder = scratch().join("dialogs");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let target = folder.join("dialog.scene.json");
    let text = default_text(&w);
    std::fs::write(&target, &text).expect("write");
    assert_eq!(
        invoke(&w, "open", json!({"req": {"path": target}})).map_err(|e| e["code"].clone()),
        Err(json!("path_not_chosen"))
    );
    std::env::set_var(DIALOG_PATH_ENV, &target);
    let picked = invoke(&w, "pick_save_path", json!({"suggested": null}));
    let opened = invoke(&w, "pick_open_path", json!({"suggested": null}));
    std::env::remove_var(DIALOG_PATH_ENV);
    assert_eq!(picked, Ok(json!(target.display().to_string())));
    assert_eq!(opened, Ok(json!(target.display().to_string())));
    // The dialog's answer opens; the scene joins the recent list and its folder is reachable.
    let scene = invoke(&w, "open", json!({"req": {"path": target}})).expect("open the pick");
    assert_eq!(scene["text"], text);
    assert_eq!(
        invoke(&w, "recent_files", json!({})),
        Ok(json!([target.display().to_string()]))
    );
    std::fs::write(folder.join("beside.scene.json"), &text).expect("write");
    let c = invoke(&w, "check", json!({"req": {"folder": folder}})).expect("check the folder");
    assert_eq!(c["scenes"].as_array().map(Vec::len), Some(2), "{c}");
    assert_eq!(invoke(&w, "clear_recent", json!({})), Ok(Value::Null));
    assert_eq!(invoke(&w, "recent_files", json!({})), Ok(json!([])));
}

/// The app confines file access: core file access on a thread that carries no confinement (a
/// worker spawned without `files::inherit`) is refused, not let through.
#[test]
fn a_thread_without_confinement_reaches_no_file_in_the_app() {
    let (_app, _w) = app();
    let file = scratch().join("plain.scene.json");
    std::fs::write(&file, "{}").expect("write");
    let outcome = std::thread::spawn(move || {
        prompt_inspector::files::read_regular(&file, 1024, "a scene").map(|b| b.len())
    })
    .join()
    .expect("the thread ends");
    let e = outcome.expect_err("refused");
    assert!(e.to_string().starts_with("file access refused"), "{e}");
}

#[test]
fn paths_the_person_did_not_choose_are_refused_alike_and_reveal_nothing() {
    let (_app, w) = app();
    let outside = scratch().join("not-chosen");
    std::fs::create_dir_all(&outside).expect("mkdir");
    let secret = outside.join("secret.scene.json");
    let text = default_text(&w).replace("工作笔记", "TOP-SECRET");
    std::fs::write(&secret, &text).expect("write");
    let missing = outside.join("missing.scene.json");

    let refusal = |cmd: &str, req: Value| {
        let e = invoke(&w, cmd, json!({ "req": req })).expect_err("refused");
        assert_eq!(e["code"], "path_not_chosen", "{cmd}: {e}");
        assert!(!e.to_string().contains("TOP-SECRET"), "{e}");
        e["message"].as_str().unwrap_or_default().to_owned()
    };
    // Reading an existing file and a missing one: the same answer.
    let existing = refusal("open", json!({"path": secret}));
    assert_eq!(refusal("open", json!({"path": missing})), existing);
    assert_eq!(refusal("stat", json!({"path": secret})), existing);
    assert_eq!(refusal("check", json!({"folder": outside})), existing);
    // Writes: refused before anything is written.
    refusal(
        "save",
        json!({"path": outside.join("new.scene.json"), "text": text}),
    );
    refusal("approve", json!({"scene_path": secret}));
    assert!(!outside.join("new.scene.json").exists());
    assert!(!outside.join("secret.golden.json").exists());
    // `..` out of a chosen folder leads nowhere.
    let chosen = scratch().join("chosen");
    std::fs::create_dir_all(&chosen).expect("mkdir");
    choose_folder(&w, &chosen);
    refusal(
        "open",
        json!({"path": chosen.join("../not-chosen/secret.scene.json")}),
    );

    // Images: a scene's attachments are read only from a chosen folder.
    let providers = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/providers");
    let desk = std::fs::read_to_string(providers.join("openai-desk.scene.json")).expect("read");
    let render = |w: &WebviewWindow<MockRuntime>| {
        invoke(
            w,
            "render",
            json!({"req": {"text": desk, "llm": "desk", "base_dir": providers, "tokens": false}}),
        )
        .expect("render")
    };
    let unreadable = |r: &Value| {
        r["report"]["diagnostics"].as_array().map_or(0, |d| {
            d.iter().filter(|d| d["code"] == "image_unreadable").count()
        })
    };
    let jpeg = std::fs::read(providers.join("start.jpg")).expect("read the jpeg");
    // The JPEG's first 120 bytes in base64, as a request body would carry them (the scene
    // itself holds the PNG as a data URL, but not this file).
    let b64_head = render_b64(&jpeg[..120.min(jpeg.len() / 3 * 3)]);
    let before = render(&w);
    assert_eq!(
        unreadable(&before),
        2,
        "{}",
        before["report"]["diagnostics"]
    );
    assert!(!before.to_string().contains(&b64_head));
    choose_folder(&w, &providers);
    let after = render(&w);
    assert_eq!(unreadable(&after), 0, "{}", after["report"]["diagnostics"]);
    assert!(after.to_string().contains(&b64_head));
}

/// `conversation` reads a folder only once the person chose it (the folder dialog): before, the
/// folder's scenes are refused as any other path is; after, its calls are blamed and priced.
#[test]
fn a_conversation_folder_is_read_only_once_chosen() {
    let (_app, w) = app();
    let folder = scratch().join("conversation");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/cache/system-notes");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for n in ["01", "02", "03"] {
        let name = format!("{n}.scene.json");
        std::fs::copy(fixtures.join(&name), folder.join(&name)).expect("copy");
    }
    let req = json!({"req": {"folder": folder, "models": ["anthropic/claude-sonnet-4-5"]}});
    let e = invoke(&w, "conversation", req.clone()).expect_err("not chosen yet");
    assert_eq!(e["code"], "path_not_chosen", "{e}");
    choose_folder(&w, &folder);
    let c = invoke(&w, "conversation", req).expect("chosen");
    assert_eq!(c["calls"].as_array().map(Vec::len), Some(3), "{c}");
    assert_eq!(c["zero_reads"][1]["cause"], "miss_system_changed", "{c}");
}

/// Standard base64, for the test's own check of what a request body carries.
fn render_b64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

#[test]
fn close_guard_done_closes_the_window_only_after_the_guards_save() {
    let (app, w) = app();
    let state = app.state::<AppState>();
    let dirty = || state.dirty.load(Ordering::SeqCst);
    state.dirty.store(true, Ordering::SeqCst);
    // Nothing asked the page to save: the call changes nothing (no page can close the window).
    assert_eq!(
        invoke(&w, "close_guard_done", json!({"saved": true})),
        Ok(Value::Null)
    );
    assert!(dirty());
    assert!(app.get_webview_window("main").is_some());
    // A close request with unsaved edits asks; the person chose Save; the save failed or was
    // cancelled: the edits stay, the guard is free for the next close request.
    assert!(matches!(
        state.close_guard.close_requested(dirty(), Instant::now()),
        Request::Ask { page_silent: None }
    ));
    assert_eq!(
        state.close_guard.close_requested(dirty(), Instant::now()),
        Request::Ignore,
        "a second close request while the dialog is open"
    );
    state.close_guard.answered(Choice::Save, Instant::now());
    assert!(
        invoke(&w, "close_guard_done", json!({})).is_err(),
        "saved is required"
    );
    assert!(matches!(state.close_guard.phase(), Phase::Saving { .. }));
    assert_eq!(
        invoke(&w, "close_guard_done", json!({"saved": false})),
        Ok(Value::Null)
    );
    assert!(dirty());
    assert_eq!(state.close_guard.phase(), Phase::Idle);
    // Asked again, and this time the page saved: clean, and the window is destroyed (the mock
    // runtime keeps no windows to see it go; the real-window journey does).
    assert!(matches!(
        state.close_guard.close_requested(dirty(), Instant::now()),
        Request::Ask { .. }
    ));
    state.close_guard.answered(Choice::Save, Instant::now());
    assert_eq!(
        invoke(&w, "close_guard_done", json!({"saved": true})),
        Ok(Value::Null)
    );
    assert!(!dirty(), "close_guard_done(saved) clears the unsaved flag");
    assert_eq!(state.close_guard.phase(), Phase::Idle);
    // Clean now: the next close request closes without asking.
    assert_eq!(
        state.close_guard.close_requested(dirty(), Instant::now()),
        Request::Close
    );
}

#[test]
fn app_info_and_log_lines_reach_the_panel() {
    let (_app, w) = app();
    // Setup (which installs the subscriber) only runs in a real event loop: install it here.
    let logs = scratch().join("logs");
    prompt_inspector_app::logging::init(Some(&logs), Box::new(|_| {}));
    let _ = invoke(
        &w,
        "open",
        json!({"req": {"path": scratch().join("log-probe.scene.json")}}),
    );
    let info = invoke(&w, "app_info", json!({})).expect("app_info");
    assert_eq!(info["version"], env!("CARGO_PKG_VERSION"));
    let lines = info["recent_logs"].as_array().expect("recent_logs");
    assert!(
        lines.iter().any(|l| l["message"]
            .as_str()
            .is_some_and(|m| m.contains("opening scene") && m.contains("log-probe"))),
        "{info}"
    );
    let file = info["log_file"].as_str().expect("a log file");
    let written = std::fs::read_to_string(file).expect("read the log file");
    assert!(written.contains("log-probe"), "{written}");
}

/// The `version` of a Cargo.toml's `[package]` table, read as text (an independent source for
/// the versions the app reports).
fn package_version(manifest: &Path) -> String {
    let text = std::fs::read_to_string(manifest).expect("read the manifest");
    // Each table starts a line; the first one may start the file.
    let package = format!("\n{text}")
        .split("\n[")
        .find(|table| table.starts_with("package]"))
        .expect("a [package] table")
        .to_owned();
    package
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .expect("a version line")
        .to_owned()
}

/// The About box's two versions: the app's is its crate's (tauri.conf.json names none, so the
/// .deb the bundler makes carries the crate's version too) and the core's is the core crate's.
#[test]
fn about_gives_the_app_and_core_versions() {
    let (app, w) = app();
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(
        app.config().version,
        None,
        "tauri.conf.json names no version"
    );
    let info = invoke(&w, "app_info", json!({})).expect("app_info");
    assert_eq!(
        info["version"],
        package_version(&crate_dir.join("Cargo.toml"))
    );
    let about = invoke(&w, "about", json!({})).expect("about");
    assert_eq!(
        about,
        json!({"name": "prompt-inspector", "version": package_version(&crate_dir.join("../Cargo.toml"))})
    );
}

#[test]
fn the_acl_grants_the_local_page_exactly_the_commands_the_ui_calls() {
    let (app, w) = app();
    // A remote page may not call any command, even one the local page may.
    let remote = get_ipc_response(
        &w,
        request(&w, "default_scene", json!({}), "https://example.com"),
    );
    let denied = remote.expect_err("a remote origin reached a command");
    assert!(denied.to_string().contains("not allowed"), "{denied}");
    // Nor may another window of the app: the capability names the main window only.
    let other = WebviewWindowBuilder::new(app.handle(), "other", WebviewUrl::default())
        .build()
        .expect("open a second window");
    let denied = get_ipc_response(
        &other,
        request(&other, "default_scene", json!({}), "tauri://localhost"),
    )
    .expect_err("a window other than main reached a command");
    assert!(denied.to_string().contains("not allowed"), "{denied}");
    // No plugin command is granted: the dialogs are shown by the app's own commands.
    let plugin = get_ipc_response(
        &w,
        request(
            &w,
            "plugin:dialog|open",
            json!({"options": {}}),
            "tauri://localhost",
        ),
    );
    let denied = plugin.expect_err("the dialog plugin's command was reachable");
    assert!(denied.to_string().contains("not allowed"), "{denied}");

    // An operation the UI does not call is refused to the page too, though the app has its command
    // (and serve its route).
    let refused: Vec<&str> = COMMANDS
        .iter()
        .copied()
        .filter(|c| !GRANTED.contains(c))
        .collect();
    assert!(!refused.is_empty(), "every command is granted");
    for op in refused {
        let denied = invoke(&w, op, json!({"req": {}})).expect_err(op);
        assert!(denied.to_string().contains("not allowed"), "{op}: {denied}");
    }

    // The capability build.rs writes grants each command the UI calls once (the web view's
    // operations and the shell's commands) and nothing else but event listening, to the main
    // window, local origin only.
    let cap: Value = serde_json::from_str(include_str!(concat!(
        env!("OUT_DIR"),
        "/capabilities/main.json"
    )))
    .expect("json");
    assert_eq!(cap["windows"], json!(["main"]));
    assert_eq!(cap["local"], json!(true));
    assert!(cap.get("remote").is_none(), "no remote origin may call in");
    let mut granted: Vec<String> = cap["permissions"]
        .as_array()
        .expect("permissions")
        .iter()
        .filter_map(|p| p.as_str().map(str::to_owned))
        .collect();
    granted.sort();
    let mut expected: Vec<String> = GRANTED
        .iter()
        .map(|c| format!("allow-{}", c.replace('_', "-")))
        .chain([
            "core:event:allow-listen".into(),
            "core:event:allow-unlisten".into(),
        ])
        .collect();
    expected.sort();
    assert_eq!(granted, expected);
    // The web view's operations are operations, each listed once.
    for op in WEBVIEW_OPERATIONS {
        assert!(prompt_inspector::api::OPERATIONS.contains(&op), "{op}");
    }
    assert_eq!(
        granted.len(),
        granted
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    );
    // The handler registers every command: the bindings invoke each one, and no other.
    let bindings = include_str!("../../ui/src/api/bindings.ts");
    for c in COMMANDS {
        assert!(
            bindings.contains(&format!("(\"{c}\"")),
            "no binding for {c}"
        );
    }
    let invocations =
        bindings.matches("__TAURI_INVOKE(").count() + bindings.matches("__TAURI_INVOKE<").count();
    assert_eq!(invocations, COMMANDS.len(), "one binding per command");
}

/// Every operation of the core's table (src/api/operations.rs) is a command the handler knows,
/// and so is nothing the core does not declare but the shell's own commands: the commands, the
/// specta builder and the command list are all expanded from that one table.
#[test]
fn the_commands_are_the_declared_operations_and_the_shell_commands() {
    let (_app, w) = app();
    let operations = prompt_inspector::api::OPERATIONS;
    assert_eq!(COMMANDS[..operations.len()], operations);
    for op in operations {
        // No arguments: the operations without a request answer, the others want `req`; the ACL
        // refuses those the page is not granted before they are looked up.
        if !WEBVIEW_OPERATIONS.contains(&op) {
            let e = invoke(&w, op, json!({})).expect_err(op).to_string();
            assert!(e.contains("not allowed"), "{op}: {e}");
            continue;
        }
        match invoke(&w, op, json!({})) {
            Ok(_) => assert!(
                matches!(op, "default_scene" | "rules" | "models" | "about"),
                "{op} ran without req"
            ),
            Err(e) => {
                let e = e.to_string();
                assert!(e.contains("req"), "{op}: {e}");
            }
        }
    }
    let e = invoke(&w, "nope", json!({})).expect_err("an undeclared command");
    assert!(!e.to_string().contains("req"), "{e}");
}

#[test]
fn committed_bindings_are_current() {
    let out = scratch().join("bindings.ts");
    prompt_inspector_app::specta_builder()
        .export(prompt_inspector_app::bindings_exporter(), &out)
        .expect("export the bindings");
    let fresh = std::fs::read_to_string(&out).expect("read");
    let committed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../ui/src/api/bindings.ts"
    ))
    .unwrap_or_default();
    assert!(
        fresh == committed,
        "ui/src/api/bindings.ts is stale: run `cargo run -p prompt-inspector-app --bin gen-bindings`"
    );
}

#[test]
fn live_documents_patch_the_board_and_refuse_stale_edits() {
    let (_app, w) = app();
    let text = default_text(&w);
    let opened = invoke(&w, "live_open", json!({"req": {"text": text}})).expect("live_open");
    assert_eq!(opened["load_error"], Value::Null);
    let (doc, revision) = (opened["doc"].clone(), opened["revision"].clone());
    // The first patch sets the whole tree: both reports and the template checks.
    let tree = &opened["patch"][0];
    assert_eq!(tree["op"], "set");
    assert_eq!(tree["value"]["chat"]["llm"], "chat");
    assert_eq!(tree["value"]["desk"]["llm"], "desk");
    assert!(tree["value"]["validate"]["templates"].is_array());
    // An edit inside the tf_notes template (UTF-16 offset: the scene's text is not all ASCII).
    let at = text
        .find("笔记")
        .expect("the default scene's TFNotes template");
    let start = text[..at].encode_utf16().count();
    let edit = json!({"req": {"doc": doc, "revision": revision,
        "edit": {"start": start, "delete": 0, "insert": "EDITED "}}});
    let edited = invoke(&w, "live_edit", edit.clone()).expect("live_edit");
    let patch = edited["patch"].to_string();
    assert!(patch.contains("EDITED "), "{patch:.400}");
    assert!(
        edited["patch"].as_array().map_or(0, Vec::len) < 40,
        "{patch:.400}"
    );
    // The same edit again names a revision the document has left behind.
    let stale = invoke(&w, "live_edit", edit).expect_err("stale");
    assert_eq!(stale["code"], "stale_document");
    invoke(&w, "live_close", json!({"req": {"doc": doc}})).expect("live_close");
}

/// The receiver the app starts (receiver.rs) feeds the store `live_calls` reads: an OTLP/JSON
/// export posted to its endpoint is a call there, and `clear` forgets it.
#[test]
fn the_apps_receiver_feeds_live_calls() {
    use std::io::{Read, Write};
    let (_app, w) = app();
    let started = Instant::now();
    let endpoint = loop {
        let page = invoke(&w, "live_calls", json!({"req": {"after": 0}})).expect("live_calls");
        if let Some(e) = page["receiver"]["endpoint"].as_str() {
            break e.to_owned();
        }
        assert!(
            started.elapsed().as_secs() < 10,
            "the receiver did not start: {page}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let authority = endpoint
        .strip_prefix("http://")
        .and_then(|r| r.strip_suffix("/v1/traces"))
        .expect("http://HOST:PORT/v1/traces");
    let export = json!({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": [{
    "traceId": "abababababababababababababababab", "spanId": "0202020202020202",
    "name": "chat gpt-4o-mini",
    "attributes": [
        {"key": "gen_ai.provider.name", "value": {"stringValue": "openai"}},
        {"key": "gen_ai.request.model", "value": {"stringValue": "gpt-4o-mini"}},
        {"key": "gen_ai.conversation.id", "value": {"stringValue": "trip-42"}},
        {"key": "gen_ai.input.messages", "value": {"stringValue":
            "[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"And in June?\"}]}]"}},
        {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "55"}}
    ]}]}]}]})
    .to_string();
    let mut s = std::net::TcpStream::connect(authority).expect("connect to the receiver");
    write!(
        s,
        "POST /v1/traces HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{export}",
        export.len()
    )
    .expect("send");
    let mut reply = String::new();
    s.read_to_string(&mut reply).expect("the reply");
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");

    let page = invoke(&w, "live_calls", json!({"req": {"after": 0}})).expect("live_calls");
    let calls = page["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), 1, "{page}");
    assert_eq!(calls[0]["conversation"], "trip-42");
    assert_eq!(calls[0]["model"], "gpt-4o-mini");
    assert!(calls[0]["scene"]
        .as_str()
        .is_some_and(|t| t.contains("And in June?")));
    assert_eq!(page["next"], calls[0]["seq"]);
    assert_eq!(page["dropped"], 0);

    let cleared = invoke(
        &w,
        "live_calls",
        json!({"req": {"after": 0, "clear": true}}),
    )
    .expect("live_calls clear");
    assert_eq!(cleared["calls"], json!([]));
}
