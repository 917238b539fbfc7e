//! `prompt-inspector serve`: started on port 0 in a child process, spoken to over plain
//! `TcpStream`s: the token, the Host and Origin guards, an operation, bad JSON and the static UI,
//! and what a hostile local process can send without the token (docs/security.md).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::http_support::{self, spawn_serve, Reply, Served};

fn serve(ui: &std::path::Path) -> Served {
    serve_with(ui, &[], Stdio::null())
}

/// `serve` on a free port with `flags` before `--ui`, its stderr sent to `stderr`.
fn serve_with(ui: &std::path::Path, flags: &[&str], stderr: Stdio) -> Served {
    let ui = ui.to_str().expect("a UTF-8 path");
    let args: Vec<&str> = flags.iter().copied().chain(["--ui", ui]).collect();
    spawn_serve(&args, stderr)
}

/// One request as the UI sends it: `Content-Type: application/json` on a POST unless `headers`
/// give their own (a test of its absence does).
fn request(port: u16, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let typed = headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
    let mut all = headers.to_vec();
    if method == "POST" && !typed {
        all.push(("Content-Type", "application/json"));
    }
    http_support::request(port, method, path, &all, body.as_bytes())
}

/// A UI folder of the test's own: tests run in parallel, and one rewriting a shared
/// index.html while another's server reads it made the read come back empty.
fn ui_dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pi-serve-ui-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("ui dir");
    std::fs::write(
        d.join("index.html"),
        "<!doctype html><title>Prompt Inspector</title>",
    )
    .expect("index");
    d
}

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

#[test]
fn serve_guards_the_api_and_answers_operations() {
    let ui = ui_dir("serve_guards_the_api_and_answers_operations");
    let s = serve(&ui);
    let bearer = format!("Bearer {}", s.token);
    let auth = [("Authorization", bearer.as_str())];
    let render_body = serde_json::json!({
        "text": prompt_inspector::scene::DEFAULT_SCENE,
        "llm": "chat",
    })
    .to_string();

    // No token, or a wrong one: 401 with {code, message}.
    let r = request(s.port, "POST", "/api/render", &[], &render_body);
    assert_eq!(r.status, 401, "{}", r.body);
    assert_eq!(json(&r.body)["code"], "unauthorized");
    let r = request(
        s.port,
        "POST",
        "/api/render",
        &[("Authorization", "Bearer 00")],
        &render_body,
    );
    assert_eq!(r.status, 401);

    // A foreign Host is refused even with the token (DNS rebinding).
    let r = request(
        s.port,
        "POST",
        "/api/render",
        &[("Host", "evil.example:80"), ("Authorization", &bearer)],
        &render_body,
    );
    assert_eq!(r.status, 403);
    assert_eq!(json(&r.body)["code"], "forbidden_host");
    let other_port = format!("127.0.0.1:{}", s.port.wrapping_add(1));
    let r = request(s.port, "GET", "/", &[("Host", &other_port)], "");
    assert_eq!(r.status, 403);

    // A good render: the report of the default scene.
    let r = request(s.port, "POST", "/api/render", &auth, &render_body);
    assert_eq!(r.status, 200, "{}", r.body);
    let report = &json(&r.body)["report"];
    assert_eq!(report["llm"], "chat");
    assert_eq!(report["segments"].as_array().map(Vec::len), Some(7));
    assert!(r
        .head
        .to_ascii_lowercase()
        .contains("content-type: application/json"));

    // The token also works in the query, with localhost as the host.
    let localhost = format!("localhost:{}", s.port);
    let path = format!("/api/rules?token={}", s.token);
    let r = request(s.port, "POST", &path, &[("Host", &localhost)], "");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(json(&r.body)["segments"].as_array().map(Vec::len), Some(14));

    // Bad JSON: 400 with {code, message}; an operation error keeps its position fields.
    let r = request(s.port, "POST", "/api/render", &auth, "{\"text\": ");
    assert_eq!(r.status, 400);
    let e = json(&r.body);
    assert_eq!(e["code"], "bad_request");
    assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()));
    let bad = serde_json::json!({"text": "{\n  \"format\": 1\n}", "llm": "chat"}).to_string();
    let r = request(s.port, "POST", "/api/render", &auth, &bad);
    assert_eq!(r.status, 400);
    let e = json(&r.body);
    assert_eq!(
        (e["code"].as_str(), e["line"].as_u64()),
        (Some("load_error"), Some(2)),
        "{e}"
    );
    let r = request(s.port, "POST", "/api/nope", &auth, "{}");
    assert_eq!(r.status, 404);
    assert_eq!(json(&r.body)["code"], "unknown_operation");
    let r = request(s.port, "GET", "/api/rules", &auth, "");
    assert_eq!(r.status, 405);

    // The static UI, with a strict Content-Security-Policy, and nothing outside its folder.
    let r = request(s.port, "GET", "/", &[], "");
    assert_eq!(r.status, 200);
    assert!(r.body.contains("<title>Prompt Inspector</title>"));
    let head = r.head.to_ascii_lowercase();
    assert!(head.contains("content-type: text/html"), "{head}");
    assert!(
        head.contains("content-security-policy: default-src 'self'"),
        "{head}"
    );
    let r = request(s.port, "GET", "/../Cargo.toml", &[], "");
    assert_eq!(r.status, 404);
    let r = request(s.port, "GET", "/missing.js", &[], "");
    assert_eq!(r.status, 404);

    // Still serving after all of that.
    let r = request(s.port, "POST", "/api/default_scene", &auth, "{}");
    assert_eq!(r.status, 200);
    assert_eq!(json(&r.body)["path"], serde_json::Value::Null);
}

#[test]
fn serve_refuses_bodies_over_the_limit() {
    let ui = ui_dir("serve_refuses_bodies_over_the_limit");
    let s = serve(&ui);
    // Only the header claims the size: the server refuses before reading the body.
    let mut stream = TcpStream::connect(("127.0.0.1", s.port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let head = format!(
        "POST /api/render HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        s.port,
        s.token,
        65 * 1024 * 1024
    );
    stream.write_all(head.as_bytes()).expect("send");
    let mut raw = String::new();
    let _ = stream.read_to_string(&mut raw);
    assert!(raw.starts_with("HTTP/1.1 413"), "{raw}");
    assert!(raw.contains("too_large"), "{raw}");
}

/// Started where there is no built UI and without `--ui`, serve still answers the API but says
/// at start-up, on stderr, that there is no UI and which flag gives one.
#[test]
fn serve_without_a_ui_says_so_on_stderr() {
    let cwd = std::env::temp_dir().join(format!("pi-serve-no-ui-{}", std::process::id()));
    std::fs::create_dir_all(&cwd).expect("cwd");
    let mut child = Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .args(["serve", "--port", "0", "--otlp", "off"])
        .current_dir(&cwd)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the URL line");
    assert!(line.starts_with("serving on http://127.0.0.1:"), "{line}");
    let _ = child.kill();
    let _ = child.wait();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("stderr text");
    assert!(
        stderr.contains("serving the API only") && stderr.contains("--ui ui/dist"),
        "stderr: {stderr}"
    );
}

/// `--ui DIR` without an index.html is a mistake named at once (exit 2), not a server whose every
/// page is "not found".
#[test]
fn serve_refuses_a_ui_folder_without_index_html() {
    let empty = std::env::temp_dir().join(format!("pi-serve-empty-ui-{}", std::process::id()));
    std::fs::create_dir_all(&empty).expect("dir");
    let out = Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .args(["serve", "--port", "0", "--otlp", "off", "--ui"])
        .arg(&empty)
        .output()
        .expect("run serve");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no index.html") && stderr.contains(&*empty.to_string_lossy()),
        "stderr: {stderr}"
    );
    assert!(out.stdout.is_empty(), "no URL is printed");
}

/// serve routes exactly the operations of the core's table (src/api/operations.rs): each one is
/// there (a bad body is the operation's `bad_request`, never a 404), any other name is 404. What
/// only HTTP refuses has serve's own codes, in the same `{code, message}` shape.
#[test]
fn serve_routes_exactly_the_declared_operations() {
    let ui = ui_dir("serve_routes_exactly_the_declared_operations");
    let s = serve(&ui);
    let bearer = format!("Bearer {}", s.token);
    let auth = [("Authorization", bearer.as_str())];
    for op in prompt_inspector::api::OPERATIONS {
        let r = request(s.port, "POST", &format!("/api/{op}"), &auth, "{not json");
        if matches!(op, "default_scene" | "rules" | "models" | "about") {
            assert_eq!(r.status, 200, "{op} takes no request: {}", r.body);
        } else {
            assert_eq!(r.status, 400, "{op}: {}", r.body);
            assert_eq!(json(&r.body)["code"], "bad_request", "{op}");
        }
    }
    for undeclared in ["nope", "dispatch", "op", "pick_folder", "app_info"] {
        let r = request(s.port, "POST", &format!("/api/{undeclared}"), &auth, "{}");
        assert_eq!(r.status, 404, "{undeclared}");
        assert_eq!(json(&r.body)["code"], "unknown_operation", "{undeclared}");
    }
    let shape = |r: &Reply| {
        let e = json(&r.body);
        let mut keys: Vec<&str> = e
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(keys, ["code", "message"], "{}", r.body);
        e["code"].as_str().expect("code").to_owned()
    };
    let r = request(s.port, "POST", "/api/rules", &[], "");
    assert_eq!((r.status, shape(&r).as_str()), (401, "unauthorized"));
    let r = request(
        s.port,
        "POST",
        "/api/rules",
        &[("Host", "evil.example:80")],
        "",
    );
    assert_eq!((r.status, shape(&r).as_str()), (403, "forbidden_host"));
    let r = request(s.port, "GET", "/api/rules", &auth, "");
    assert_eq!((r.status, shape(&r).as_str()), (405, "method_not_allowed"));
    let r = request(s.port, "DELETE", "/", &[], "");
    assert_eq!((r.status, shape(&r).as_str()), (405, "method_not_allowed"));
    let r = request(s.port, "GET", "/missing.js", &[], "");
    assert_eq!((r.status, shape(&r).as_str()), (404, "not_found"));
}

/// The server's resident memory, from /proc (Linux).
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// `GET /` answers within a few seconds: the server is neither down nor frozen.
fn still_serving(s: &Served) {
    let started = std::time::Instant::now();
    let r = request(s.port, "GET", "/", &[], "");
    assert_eq!(r.status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "GET / took {:?}",
        started.elapsed()
    );
}

/// Without the token: a Content-Length of 9e18 is refused before anything is read or allocated
/// (the token is checked first, then the declared size), and the server goes on serving.
#[test]
fn a_huge_declared_length_neither_aborts_nor_allocates() {
    let s = serve(&ui_dir("a_huge_declared_length"));
    for (auth, expected) in [(false, "401"), (true, "413")] {
        let mut stream = TcpStream::connect(("127.0.0.1", s.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let token = if auth {
            format!("Authorization: Bearer {}\r\n", s.token)
        } else {
            String::new()
        };
        let head = format!(
            "POST /api/render HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{token}Content-Type: application/json\r\nContent-Length: 9000000000000000000\r\n\r\n",
            s.port
        );
        stream.write_all(head.as_bytes()).expect("send");
        let mut raw = [0u8; 512];
        let n = stream.read(&mut raw).expect("an answer");
        let text = String::from_utf8_lossy(&raw[..n]);
        assert!(text.starts_with(&format!("HTTP/1.1 {expected}")), "{text}");
    }
    assert!(rss_kib(s.child.id()) < 200 * 1024, "the server grew");
    still_serving(&s);
}

/// A client that sends half a body and stops holds only its own connection: other requests,
/// `GET /` and an operation, are answered meanwhile.
#[test]
fn a_slow_partial_body_blocks_no_one_else() {
    let s = serve(&ui_dir("a_slow_partial_body"));
    let mut slow = TcpStream::connect(("127.0.0.1", s.port)).expect("connect");
    let head = format!(
        "POST /api/rules HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"a\":",
        s.port, s.token
    );
    slow.write_all(head.as_bytes()).expect("send");
    std::thread::sleep(Duration::from_millis(200));
    still_serving(&s);
    let bearer = format!("Bearer {}", s.token);
    let r = request(
        s.port,
        "POST",
        "/api/rules",
        &[("Authorization", &bearer)],
        "",
    );
    assert_eq!(r.status, 200, "{}", r.body);
}

/// A header that never ends is cut off at the head limit (431 or a closed connection) with the
/// server's memory unchanged, however much the client goes on sending (128 MB here).
#[test]
fn a_128_mb_header_is_cut_off() {
    let s = serve(&ui_dir("a_128_mb_header"));
    let before = rss_kib(s.child.id());
    let mut stream = TcpStream::connect(("127.0.0.1", s.port)).expect("connect");
    stream
        .set_write_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let start = format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nX-Big: ", s.port);
    stream.write_all(start.as_bytes()).expect("send");
    let chunk = vec![b'a'; 1024 * 1024];
    let mut sent = 0usize;
    while sent < 128 * 1024 * 1024 {
        match stream.write(&chunk) {
            Ok(n) => sent += n,
            Err(_) => break, // the server closed the connection: what it should do
        }
    }
    assert!(sent < 128 * 1024 * 1024, "the server took a 128 MB header");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw);
    assert!(
        text.is_empty() || text.starts_with("HTTP/1.1 431"),
        "{text}"
    );
    let after = rss_kib(s.child.id());
    assert!(after < before + 32 * 1024, "RSS {before} → {after} KiB");
    still_serving(&s);
}

/// A thousand connections that send nothing: the server still answers at once, and closes an idle
/// connection after its head timeout.
#[test]
fn a_thousand_idle_connections_freeze_nothing() {
    let s = serve(&ui_dir("a_thousand_idle_connections"));
    let idle: Vec<TcpStream> = (0..1000)
        .map(|_| TcpStream::connect(("127.0.0.1", s.port)).expect("connect"))
        .collect();
    still_serving(&s);
    let mut first = &idle[0];
    first
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let started = std::time::Instant::now();
    let mut buf = [0u8; 16];
    let n = first.read(&mut buf).unwrap_or(0);
    assert_eq!(n, 0, "an idle connection got data");
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "idle connection kept open {:?}",
        started.elapsed()
    );
    drop(idle);
    still_serving(&s);
}

/// A page of another site may not use a leaked token: a foreign `Origin` is refused, and so is a
/// call without `Content-Type: application/json` (what a cross-site form can send unasked).
#[test]
fn other_sites_are_refused_even_with_the_token() {
    let s = serve(&ui_dir("other_sites_are_refused"));
    let bearer = format!("Bearer {}", s.token);
    for origin in ["https://evil.example", "null", "http://127.0.0.1:1"] {
        let r = request(
            s.port,
            "POST",
            "/api/rules",
            &[("Authorization", &bearer), ("Origin", origin)],
            "",
        );
        assert_eq!(r.status, 403, "{origin}: {}", r.body);
        assert_eq!(json(&r.body)["code"], "forbidden_origin");
    }
    let own = format!("http://localhost:{}", s.port);
    let r = request(
        s.port,
        "POST",
        "/api/rules",
        &[("Authorization", &bearer), ("Origin", &own)],
        "",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    ] {
        let r = request(
            s.port,
            "POST",
            "/api/rules",
            &[("Authorization", &bearer), ("Content-Type", content_type)],
            "",
        );
        assert_eq!(r.status, 415, "{content_type}: {}", r.body);
        assert_eq!(json(&r.body)["code"], "unsupported_media_type");
    }
    let r = request(
        s.port,
        "POST",
        "/api/rules",
        &[
            ("Authorization", &bearer),
            ("Content-Type", "application/json; charset=utf-8"),
        ],
        "",
    );
    assert_eq!(r.status, 200, "{}", r.body);
}

/// A 20,000-long Jinja2 chain sent to the template operation once overflowed the stack of the
/// blocking pool's thread and aborted the server; it is the request's error now, and the server
/// answers the next request.
#[test]
fn a_long_template_chain_is_an_error_and_the_server_goes_on() {
    let ui = ui_dir("a_long_template_chain_is_an_error_and_the_server_goes_on");
    let s = serve(&ui);
    let bearer = format!("Bearer {}", s.token);
    let auth = [("Authorization", bearer.as_str())];
    let body = |template: String| {
        serde_json::json!({ "engine": "jinja2", "template": template, "vars": { "x": -3 } })
            .to_string()
    };
    let chain = format!("{{{{ x{} }}}}", "|abs".repeat(20_000));
    let r = request(s.port, "POST", "/api/template", &auth, &body(chain));
    let e = json(&r.body);
    assert_eq!(e["code"], "template_error", "{}", r.body);
    assert_eq!(e["kind"], "LimitExceeded", "{}", r.body);
    assert_eq!(
        (e["line"].as_u64(), e["column"].as_u64()),
        (Some(1), Some(1))
    );
    let r = request(
        s.port,
        "POST",
        "/api/template",
        &auth,
        &body("{{ x|abs }}".into()),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(json(&r.body)["text"], "3");
    still_serving(&s);
}

#[cfg(unix)]
#[test]
fn serve_save_and_golden_refuse_a_link_to_a_fifo() {
    let ui = ui_dir("serve_save_and_golden_refuse_a_link_to_a_fifo");
    let s = serve(&ui);
    let bearer = format!("Bearer {}", s.token);
    let auth = [("Authorization", bearer.as_str())];
    let fifo = ui.join("pipe");
    let _ = std::fs::remove_file(&fifo);
    super::writes::mkfifo(&fifo);
    let scene = ui.join("s.scene.json");
    let golden = ui.join("s.golden.json");
    for l in [&scene, &golden] {
        let _ = std::fs::remove_file(l);
        std::os::unix::fs::symlink(&fifo, l).expect("symlink");
    }
    let text = prompt_inspector::scene::DEFAULT_SCENE;
    let save = serde_json::json!({"path": scene.display().to_string(), "text": text});
    let bless = serde_json::json!({
        "text": text,
        "golden_path": golden.display().to_string(),
        "bless": true,
    });
    for (op, body) in [("/api/save", save), ("/api/golden", bless)] {
        let r = request(s.port, "POST", op, &auth, &body.to_string());
        assert_ne!(r.status, 200, "{op}: {}", r.body);
        let message = json(&r.body)["message"].as_str().unwrap_or("").to_owned();
        assert!(
            message.contains(&format!(
                "a symbolic link to {}, which is a FIFO",
                fifo.display()
            )),
            "{op}: {}",
            r.body
        );
        assert!(super::writes::is_fifo(&fifo), "{op}: the FIFO was replaced");
    }
}

/// Asks for `rules` until the answer is `want` (200 or 503; the other is the only other answer
/// allowed), for at most 20 s: the answer, or a failure saying `never`.
fn rules_until(port: u16, auth: &[(&str, &str)], want: u16, never: &str) -> Reply {
    let asked = std::time::Instant::now();
    loop {
        let r = request(port, "POST", "/api/rules", auth, "");
        if r.status == want {
            return r;
        }
        assert_eq!(r.status, if want == 200 { 503 } else { 200 }, "{}", r.body);
        assert!(asked.elapsed() < Duration::from_secs(20), "{never}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Operations run at most `--max-operations` at once (more wait `--queue-timeout`, then `503
/// busy`); an operation whose client goes away is cancelled and frees its slot; a template past
/// its budget answers with the budget's `{code, message}`.
#[test]
fn operations_are_limited_and_cancelled_when_the_client_goes_away() {
    let dir = std::env::temp_dir().join(format!("pi-serve-cancel-{}", std::process::id()));
    let scenes = dir.join("scenes");
    std::fs::create_dir_all(&scenes).expect("scenes dir");
    // 400 scenes whose 200 tools each use up their fuel: each scene spends its whole render
    // budget (about 30 ms on an idle core), so without cancellation the check holds the one slot
    // for many seconds, far past the one-second queue timeout below.
    let tool = |i: usize| {
        format!(
            r#"{{ "name": "t{i}", "prompt_position": ["system_msg_prompt", "system_prompt"],
                 "format_2_prompt": {{ "returns": "str", "source": {{ "engine": "jinja2",
                 "templates": {{ "default": "{{% for i in range(1000000) %}}{{% endfor %}}" }} }} }} }}"#
        )
    };
    let tools: Vec<String> = (0..200).map(tool).collect();
    let scene = format!(
        r#"{{ "format": "prompt-inspector/scene@1", "name": "heavy",
             "context": {{ "user_input": {{ "input": "hi" }} }}, "tools": [{}] }}"#,
        tools.join(",")
    );
    for i in 0..400 {
        std::fs::write(scenes.join(format!("s{i}.scene.json")), &scene).expect("scene");
    }
    let log_path = dir.join("serve.log");
    let log = std::fs::File::create(&log_path).expect("log");
    let s = serve_with(
        &ui_dir("operations_are_limited"),
        &["--max-operations", "1", "--queue-timeout", "1"],
        Stdio::from(log),
    );
    let bearer = format!("Bearer {}", s.token);
    let auth = [("Authorization", bearer.as_str())];

    // A template past its fuel answers with the budget's error.
    let r = request(
        s.port,
        "POST",
        "/api/template",
        &auth,
        r#"{"engine": "jinja2", "template": "{% for i in range(1000000) %}{% endfor %}", "vars": {}}"#,
    );
    assert_eq!(r.status, 400, "{}", r.body);
    let body = json(&r.body);
    assert_eq!(body["code"], "template_error");
    assert_eq!(body["kind"], "LimitExceeded");
    assert_eq!(
        body["message"],
        "the template did too much work (out of fuel)"
    );

    // The long check takes the one slot.
    let mut long = TcpStream::connect(("127.0.0.1", s.port)).expect("connect");
    let check = format!(r#"{{"folder": {:?}}}"#, scenes.display().to_string());
    let head = format!(
        "POST /api/check HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: {bearer}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{check}",
        s.port,
        check.len()
    );
    long.write_all(head.as_bytes()).expect("send");
    // Another operation waits its turn, then is answered busy. Until the server has read the
    // check and given it the slot, the other operation still gets it: ask again.
    let busy = rules_until(s.port, &auth, 503, "the check never took the slot");
    assert_eq!(json(&busy.body)["code"], "busy");

    // The client goes away: the check is cancelled and its slot freed within seconds.
    drop(long);
    rules_until(
        s.port,
        &auth,
        200,
        "the slot stayed taken: the check was not cancelled",
    );
    let log = std::fs::read_to_string(&log_path).expect("log");
    assert!(
        log.contains("operation cancelled: the client went away"),
        "{log}"
    );
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serve_verifies_a_recorded_pair_with_provenance() {
    let ui = ui_dir("serve_verifies_a_recorded_pair_with_provenance");
    let s = serve(&ui);
    let bearer = format!("Bearer {}", s.token);
    let auth = [("Authorization", bearer.as_str())];
    // Anthropic's cache write: billed input_tokens 4 + cache_creation_input_tokens 1,163.
    let pair = crate::support::root().join(
        "corpora/usage/openllmetry/001-anthropic-test-anthropic-prompt-caching-legacy-c1.json",
    );
    let body = serde_json::json!({"paths": [pair]}).to_string();
    let r = request(s.port, "POST", "/api/verify", &auth, &body);
    assert_eq!(r.status, 200, "{}", r.body);
    let answer = json(&r.body);
    assert_eq!(answer["errors"], serde_json::json!([]));
    let call = &answer["report"]["conversations"][0]["calls"][0];
    assert_eq!(call["billed"]["input_total"], 1167);
    assert_eq!(call["input"]["provenance"]["kind"], "estimate");
    assert_eq!(call["cache_write"]["provenance"]["kind"], "estimate");
}
