//! The OTLP/HTTP trace receiver (src/otlp/), over real HTTP against a spawned `collect` or
//! `serve`: protobuf bodies built with the `opentelemetry-proto` messages, JSON and gzip bodies,
//! partial success, and what a hostile sender can try (docs/security.md): gzip bombs, bodies over
//! 20 MiB declared or chunked, 10,000-deep values, huge attribute counts, a byte a second, a web
//! page's Origin and simple content types. `collect` stops on SIGTERM with every call on disk.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::{json, Value as Json};

use crate::http_support::{self, read_reply, spawn_serve, Reply};
use crate::support;

#[path = "../../examples/support/otlp_export.rs"]
mod otlp_export;
use otlp_export::{int, kv, text};

/// A running `collect`, killed (by its own process id) if the test ends without stopping it.
struct Collector {
    child: Child,
    port: u16,
    out: PathBuf,
}

impl Drop for Collector {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn collect(tag: &str) -> Collector {
    let out = support::tempdir("otlp", tag);
    let mut child = Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .args(["collect", "--otlp", "127.0.0.1:0", "--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start collect");
    let mut line = String::new();
    BufReader::new(child.stderr.as_mut().expect("stderr"))
        .read_line(&mut line)
        .expect("the address line");
    let port = line
        .strip_prefix("collecting on http://127.0.0.1:")
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    Collector { child, port, out }
}

impl Collector {
    /// SIGTERM, which it must answer with exit 0; then its folder and stdout.
    fn stop(mut self) -> (PathBuf, String) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill");
        assert!(sent.success());
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("wait") {
                break s;
            }
            assert!(Instant::now() < deadline, "collect did not stop on SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        };
        let read_all = |pipe: Option<&mut dyn Read>| {
            let mut text = String::new();
            let _ = pipe.expect("a piped stream").read_to_string(&mut text);
            text
        };
        let stdout = read_all(self.child.stdout.as_mut().map(|p| p as &mut dyn Read));
        let stderr = read_all(self.child.stderr.as_mut().map(|p| p as &mut dyn Read));
        assert_eq!(status.code(), Some(0), "stderr: {stderr}");
        (self.out.clone(), stdout)
    }
}

/// One `POST /v1/traces`; `headers` after the defaults (a `Host` of theirs instead of this
/// server's).
fn post(port: u16, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    http_support::request(port, "POST", "/v1/traces", headers, body)
}

/// One export of `spans` posted in protobuf.
fn post_spans(port: u16, spans: Vec<Span>) -> Reply {
    post(port, &[PROTOBUF], &export(spans).encode_to_vec())
}

/// The `partial_success` of a 200 answer in protobuf.
fn partial_success(reply: &Reply) -> Option<ExportTracePartialSuccess> {
    assert_eq!(reply.status, 200, "{}", reply.body);
    ExportTraceServiceResponse::decode(&reply.bytes[..])
        .expect("a protobuf answer")
        .partial_success
}

/// A refusal with `status` whose google.rpc.Status (in JSON) says `why`.
fn assert_refused(reply: &Reply, status: u16, why: &str) {
    assert_eq!(reply.status, status, "{}", reply.body);
    let message = reply.json()["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains(why), "{}", reply.body);
}

/// A 200 answer in protobuf that rejects exactly one span, with `why` in its message.
fn assert_one_rejected(reply: &Reply, why: &str) {
    let partial = partial_success(reply).expect("a partial success");
    assert_eq!(partial.rejected_spans, 1);
    assert!(
        partial.error_message.contains(why),
        "{}",
        partial.error_message
    );
}

const JSON: (&str, &str) = ("Content-Type", "application/json");
const PROTOBUF: (&str, &str) = ("Content-Type", "application/x-protobuf");

/// A chat span as opentelemetry-instrumentation-openai-v2 records one, in conversation `conv`.
fn chat_span(span_id: u8, conv: &str, system: &str, user: &str) -> Span {
    Span {
        trace_id: vec![0xab; 16],
        span_id: vec![span_id; 8],
        name: "chat gpt-4o-mini".to_owned(),
        kind: 3,
        start_time_unix_nano: 1_754_384_400_000_000_000,
        end_time_unix_nano: 1_754_384_400_500_000_000,
        attributes: vec![
            kv("gen_ai.operation.name", text("chat")),
            kv("gen_ai.provider.name", text("openai")),
            kv("gen_ai.request.model", text("gpt-4o-mini")),
            kv("gen_ai.conversation.id", text(conv)),
            kv(
                "gen_ai.system_instructions",
                text(&json!([{"type": "text", "content": system}]).to_string()),
            ),
            kv(
                "gen_ai.input.messages",
                text(
                    &json!([{"role": "user", "parts": [{"type": "text", "content": user}]}])
                        .to_string(),
                ),
            ),
            kv("gen_ai.usage.input_tokens", int(41)),
            kv("gen_ai.usage.output_tokens", int(7)),
        ],
        ..Span::default()
    }
}

/// A span of no LLM call (an HTTP client's).
fn http_span() -> Span {
    Span {
        trace_id: vec![0xab; 16],
        span_id: vec![0x99; 8],
        name: "GET /weather".to_owned(),
        attributes: vec![kv("http.request.method", text("GET"))],
        ..Span::default()
    }
}

/// An export of `spans` from the weather agent.
fn export(spans: Vec<Span>) -> ExportTraceServiceRequest {
    otlp_export::export("weather-agent", spans)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).expect("gzip");
    e.finish().expect("gzip")
}

/// The scene files of a folder, sorted.
fn scenes(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".scene.json"))
        .collect();
    out.sort();
    out
}

fn read_json(p: &Path) -> Json {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every text of a JSON tree, for "the scene holds what was sent".
fn texts(v: &Json, out: &mut Vec<String>) {
    match v {
        Json::String(s) => out.push(s.clone()),
        Json::Array(items) => items.iter().for_each(|i| texts(i, out)),
        Json::Object(m) => m.values().for_each(|i| texts(i, out)),
        _ => {}
    }
}

fn holds_text(scene: &Json, wanted: &str) -> bool {
    let mut all = Vec::new();
    texts(scene, &mut all);
    all.iter().any(|t| t.contains(wanted))
}

/// Protobuf, JSON and gzip exports of one conversation land as its numbered scenes and its
/// JSON-lines file, which `import` and `verify` read back; stdout has a line per call; SIGTERM
/// ends `collect` with exit 0.
#[test]
fn collect_writes_each_call_of_protobuf_json_and_gzip_exports() {
    let c = collect("encodings");
    let first = export(vec![
        chat_span(1, "trip-42", "You plan trips.", "Lisbon in May?"),
        http_span(),
    ]);
    let reply = post(c.port, &[PROTOBUF], &first.encode_to_vec());
    assert_eq!(reply.status, 200, "{}", reply.head);
    assert!(
        reply.head.contains("content-type: application/x-protobuf"),
        "{}",
        reply.head
    );
    assert_eq!(partial_success(&reply), None);

    // The same conversation in JSON, ids in hex, the second call gzip-compressed.
    let second = json!({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": [{
    "traceId": "abababababababababababababababab", "spanId": "0202020202020202",
    "name": "chat gpt-4o-mini", "kind": "SPAN_KIND_CLIENT", "someFutureField": {"x": 1},
    "startTimeUnixNano": "1754384401000000000",
    "attributes": [
        {"key": "gen_ai.provider.name", "value": {"stringValue": "openai"}},
        {"key": "gen_ai.request.model", "value": {"stringValue": "gpt-4o-mini"}},
        {"key": "gen_ai.conversation.id", "value": {"stringValue": "trip-42"}},
        {"key": "gen_ai.input.messages", "value": {"stringValue":
            "[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"And in June?\"}]}]"}},
        {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "55"}},
        {"key": "gen_ai.usage.output_tokens", "value": {"intValue": 9}}
    ]}]}]}]});
    let reply = post(
        c.port,
        &[JSON, ("Content-Encoding", "gzip")],
        &gzip(second.to_string().as_bytes()),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(reply.head.contains("content-type: application/json"));
    assert_eq!(reply.json(), json!({}));

    // A trace export without a conversation id is its trace's conversation (base64 ids taken).
    let fixture =
        std::fs::read_to_string(support::root().join("fixtures/import/otel/agent-trace.json"))
            .expect("fixture");
    let reply = post(c.port, &[JSON], fixture.as_bytes());
    assert_eq!(reply.status, 200, "{}", reply.body);

    let (out, stdout) = c.stop();
    let conversation = out.join("trip-42");
    let files = scenes(&conversation);
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "0001-chat-gpt-4o-mini.scene.json",
            "0002-chat-gpt-4o-mini.scene.json"
        ]
    );
    let first_scene = read_json(&files[0]);
    assert!(holds_text(&first_scene, "You plan trips."), "{first_scene}");
    assert!(holds_text(&first_scene, "Lisbon in May?"), "{first_scene}");
    assert_eq!(first_scene["recorded"]["model"], "gpt-4o-mini");
    assert!(holds_text(&read_json(&files[1]), "And in June?"));
    let trace = out.join("4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(scenes(&trace).len(), 2, "the fixture's two chat spans");
    // No folder for the HTTP span, none for the fixture's tool span.
    assert_eq!(std::fs::read_dir(&out).expect("out").count(), 2);

    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(
        lines[0].starts_with("trip-42/0001-chat-gpt-4o-mini.scene.json")
            && lines[0].contains("model gpt-4o-mini")
            && lines[0].contains("provider openai")
            && lines[0].contains("input 41")
            && lines[0].contains("output 7"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("input 55") && lines[1].contains("output 9"),
        "{}",
        lines[1]
    );

    // The JSON-lines file is read back by import (a conversation of two) and by verify.
    let jsonl = conversation.join("calls.jsonl");
    let again = support::tempdir("otlp", "encodings-again");
    let imported = support::run(&[
        "import",
        jsonl.to_str().unwrap(),
        "--out-dir",
        again.to_str().unwrap(),
    ]);
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    assert_eq!(scenes(&again).len(), 2);
    let verified = support::run(&["verify", trace.join("calls.jsonl").to_str().unwrap()]);
    assert_eq!(
        verified.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&verified.stderr)
    );
    assert!(String::from_utf8_lossy(&verified.stdout).contains("2 calls"));
}

/// Each line of `calls.jsonl` is on disk whole once its call is printed; a last line cut short
/// anyway (a power loss in the middle of its write) is named by `verify` and `import` with its
/// file and line, and neither aborts.
#[test]
fn a_torn_last_line_of_calls_jsonl_is_named_not_fatal() {
    let c = collect("torn");
    let reply = post_spans(
        c.port,
        vec![
            chat_span(1, "torn", "s", "first"),
            chat_span(2, "torn", "s", "second"),
        ],
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let (out, stdout) = c.stop();
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    let jsonl = out.join("torn").join("calls.jsonl");
    let written = std::fs::read_to_string(&jsonl).expect("calls.jsonl");
    assert!(written.ends_with('\n'), "{written}");
    for line in written.lines() {
        serde_json::from_str::<Json>(line).expect("a whole line");
    }

    let second = written.lines().nth(1).expect("a second line");
    let torn = format!(
        "{}\n{}",
        written.lines().next().unwrap(),
        &second[..second.len() / 2]
    );
    std::fs::write(&jsonl, torn).expect("tear the last line");
    let path = jsonl.to_str().unwrap();
    let verified = support::run(&["verify", path]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&verified.stdout),
        String::from_utf8_lossy(&verified.stderr)
    );
    assert_eq!(verified.status.code(), Some(2), "{said}");
    assert!(said.contains("calls.jsonl:2:"), "{said}");
    assert!(said.contains("cut short"), "{said}");
    let again = support::tempdir("otlp", "torn-again");
    let imported = support::run(&["import", path, "--out-dir", again.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&imported.stderr);
    assert!(!imported.status.success(), "{said}");
    assert_ne!(imported.status.code(), Some(101), "a panic: {said}");
    assert!(said.contains("calls.jsonl:2:"), "{said}");
    assert!(said.contains("cut short"), "{said}");
}

/// Spans that cannot be read are counted in `partial_success` with why, in the request's
/// encoding, while the readable ones of the same export are written.
#[test]
fn unreadable_spans_are_counted_and_the_rest_kept() {
    let c = collect("partial");
    let many: Vec<Json> = (0..2000)
        .map(|i| json!({"key": format!("k{i}"), "value": {"intValue": i}}))
        .collect();
    let good = json!({"traceId": "0123456789abcdef0123456789abcdef", "spanId": "0123456789abcdef",
        "name": "chat", "attributes": [
            {"key": "gen_ai.provider.name", "value": {"stringValue": "anthropic"}},
            {"key": "gen_ai.input.messages", "value": {"stringValue":
                "[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"kept\"}]}]"}}]});
    let bad_id = json!({"traceId": "not-an-id", "spanId": "0123456789abcdef", "name": "bad id",
        "attributes": []});
    let crowded = json!({"traceId": "0123456789abcdef0123456789abcdef", "spanId": "1123456789abcdef",
        "name": "crowded", "attributes": many});
    let body = json!({"resourceSpans": [{"scopeSpans": [{"spans": [bad_id, good, crowded]}]}]});
    let reply = post(c.port, &[JSON], body.to_string().as_bytes());
    assert_eq!(reply.status, 200);
    let answer = reply.json();
    assert_eq!(answer["partialSuccess"]["rejectedSpans"], "2", "{answer}");
    let message = answer["partialSuccess"]["errorMessage"].as_str().unwrap();
    assert!(message.contains("traceId"), "{message}");
    assert!(
        message.contains("2000 attributes") && message.contains("1024"),
        "{message}"
    );

    // In protobuf: a span whose messages are not JSON is rejected by the import, with its id.
    let mut broken = chat_span(7, "c-1", "sys", "hi");
    broken
        .attributes
        .push(kv("gen_ai.input.messages", text("[{not json")));
    broken.attributes.swap_remove(5);
    let reply = post_spans(c.port, vec![broken, chat_span(8, "c-1", "sys", "fine")]);
    assert_one_rejected(&reply, "0707070707070707");

    let (out, _) = c.stop();
    let kept = scenes(&out.join("0123456789abcdef0123456789abcdef"));
    assert_eq!(kept.len(), 1);
    assert!(holds_text(&read_json(&kept[0]), "kept"));
    let c1 = scenes(&out.join("c-1"));
    assert_eq!(c1.len(), 1);
    assert!(holds_text(&read_json(&c1[0]), "fine"));
}

/// What a browser page or a wrong client sends is refused, each with its status and a
/// google.rpc.Status body.
#[test]
fn browser_requests_and_wrong_types_are_refused() {
    let c = collect("browser");
    let body = export(vec![chat_span(1, "x", "s", "u")]).encode_to_vec();
    let from_page = post(
        c.port,
        &[PROTOBUF, ("Origin", "https://example.com")],
        &body,
    );
    assert_eq!(from_page.status, 403);
    for simple in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ] {
        let reply = post(c.port, &[("Content-Type", simple)], b"{}");
        assert_eq!(reply.status, 415, "{simple}");
        assert_eq!(reply.json()["code"], 12, "{simple}");
    }
    let rebound = post(
        c.port,
        &[PROTOBUF, ("Host", "attacker.example:4318")],
        &body,
    );
    assert_eq!(rebound.status, 403);
    let brotli = post(c.port, &[PROTOBUF, ("Content-Encoding", "br")], &body);
    assert_eq!(brotli.status, 415);
    let garbage = post(c.port, &[PROTOBUF], b"\xff\xff\xff\xff");
    assert_eq!(garbage.status, 400);
    let not_json = post(c.port, &[JSON], b"{\"resourceSpans\": [");
    assert_eq!(not_json.status, 400);
    assert_eq!(not_json.json()["code"], 3);
    let (out, _) = c.stop();
    assert_eq!(
        std::fs::read_dir(&out).expect("out").count(),
        0,
        "nothing written"
    );
}

/// A small gzip body that expands past the limit, a declared length over 20 MiB and a chunked
/// body that runs past it are refused with 413, and the receiver goes on.
#[test]
fn gzip_bombs_and_bodies_over_20_mib_are_refused() {
    let c = collect("large");
    let bomb = gzip(&vec![b' '; 64 * 1024 * 1024]);
    assert!(bomb.len() < 200 * 1024, "{}", bomb.len());
    let reply = post(c.port, &[JSON, ("Content-Encoding", "gzip")], &bomb);
    assert_refused(&reply, 413, "33554432");

    // Declared: refused on the head, before any of the body is read.
    let mut s = TcpStream::connect(("127.0.0.1", c.port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        20 * 1024 * 1024 + 1
    )
    .unwrap();
    assert_eq!(read_reply(&mut s).status, 413);

    // Chunked: cut off once 20 MiB have arrived.
    let mut s = TcpStream::connect(("127.0.0.1", c.port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(
        b"POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
          Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    // Read while writing: the answer comes while the body is still being sent.
    let mut reading = s.try_clone().expect("clone");
    let reader = std::thread::spawn(move || read_reply(&mut reading).status);
    let chunk = vec![b' '; 1024 * 1024];
    for _ in 0..24 {
        let sent = write!(s, "{:x}\r\n", chunk.len())
            .and_then(|()| s.write_all(&chunk))
            .and_then(|()| s.write_all(b"\r\n"));
        if sent.is_err() {
            break;
        }
    }
    let _ = s.write_all(b"0\r\n\r\n");
    assert_eq!(reader.join().expect("reader"), 413);

    let fine = post_spans(c.port, vec![chat_span(1, "after", "s", "still here")]);
    assert_eq!(fine.status, 200);
    c.stop();
}

/// A protobuf field header and length prefix, for bodies the prost types cannot build (a value
/// nested deeper than their own encoder recurses comfortably).
fn field(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    prost::encoding::encode_key(number, prost::encoding::WireType::LengthDelimited, out);
    prost::encoding::encode_varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

/// An ExportTraceServiceRequest around the encoded `span`: resource_spans(1), then its
/// scope_spans(2), then their spans(2).
fn request_of_span(span: &[u8]) -> Vec<u8> {
    let mut scope_spans = Vec::new();
    field(&mut scope_spans, 2, span);
    let mut resource_spans = Vec::new();
    field(&mut resource_spans, 2, &scope_spans);
    let mut request = Vec::new();
    field(&mut request, 1, &resource_spans);
    request
}

/// A kvlist inside a kvlist 10,000 deep, in JSON and in protobuf: a 400, no stack overflow,
/// and the receiver answers the next export.
#[test]
fn values_nested_10000_deep_are_refused_without_overflow() {
    let c = collect("deep");
    let depth = 10_000;
    let mut value = String::from("{\"stringValue\":\"bottom\"}");
    for _ in 0..depth {
        value = format!("{{\"kvlistValue\":{{\"values\":[{{\"key\":\"k\",\"value\":{value}}}]}}}}");
    }
    let body = format!(
        "{{\"resourceSpans\":[{{\"scopeSpans\":[{{\"spans\":[{{\"traceId\":\"0123456789abcdef0123456789abcdef\",\
         \"spanId\":\"0123456789abcdef\",\"name\":\"deep\",\"attributes\":[{{\"key\":\"gen_ai.input.messages\",\"value\":{value}}}]}}]}}]}}]}}"
    );
    let reply = post(c.port, &[JSON], body.as_bytes());
    assert_refused(&reply, 400, "recursion limit");

    // The same in protobuf: AnyValue{kvlist_value(6): KeyValueList{values(1): KeyValue{key(1),
    // value(2)}}}, wrapped in a span's attribute.
    let mut any = Vec::new();
    field(&mut any, 1, b"bottom");
    for _ in 0..depth {
        let mut kv_bytes = Vec::new();
        field(&mut kv_bytes, 1, b"k");
        field(&mut kv_bytes, 2, &any);
        let mut list = Vec::new();
        field(&mut list, 1, &kv_bytes);
        any.clear();
        field(&mut any, 6, &list);
    }
    let mut attribute = Vec::new();
    field(&mut attribute, 1, b"gen_ai.input.messages");
    field(&mut attribute, 2, &any);
    let mut span = Vec::new();
    field(&mut span, 1, &[1; 16]);
    field(&mut span, 2, &[2; 8]);
    field(&mut span, 9, &attribute);
    let request = request_of_span(&span);
    let reply = post(c.port, &[PROTOBUF], &request);
    assert_eq!(reply.status, 400);
    assert!(reply.head.contains("application/x-protobuf"));

    let fine = post_spans(c.port, vec![chat_span(3, "after", "s", "u")]);
    assert_eq!(fine.status, 200);
    c.stop();
}

/// The peak resident memory of a process, in KiB.
fn peak_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .expect("status")
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

/// 16 million empty attributes (2 bytes each, 32 KB gzipped; tens of bytes each once decoded)
/// and a JSON array of 10 million empty objects are counted before they are decoded and refused
/// with 413, in bounded memory.
#[test]
fn exports_of_many_tiny_values_are_refused_before_decoding() {
    let c = collect("tiny");
    let count = (32 * 1024 * 1024 - 200) / 2;
    let mut span = Vec::new();
    field(&mut span, 1, &[1; 16]);
    field(&mut span, 2, &[2; 8]);
    span.extend(std::iter::repeat_n([0x4a, 0x00], count).flatten());
    let request = request_of_span(&span);
    let reply = post(
        c.port,
        &[PROTOBUF, ("Content-Encoding", "gzip")],
        &gzip(&request),
    );
    assert_eq!(reply.status, 413);
    // A google.rpc.Status in protobuf: its message is UTF-8 as it is.
    assert!(reply.body.contains("more than 500000 values"));

    let objects = format!("{{\"resourceSpans\": [{}{{}}]}}", "{},".repeat(10_000_000));
    let reply = post(
        c.port,
        &[JSON, ("Content-Encoding", "gzip")],
        &gzip(objects.as_bytes()),
    );
    assert_refused(&reply, 413, "500000 values");
    let peak = peak_kib(c.child.id());
    assert!(peak < 300 * 1024, "peak {peak} KiB");
    c.stop();
}

/// A hundred thousand attributes on one protobuf span reject that span, not the receiver.
#[test]
fn huge_attribute_counts_are_bounded() {
    let c = collect("attributes");
    let mut crowded = chat_span(4, "crowd", "s", "u");
    crowded
        .attributes
        .extend((0..100_000).map(|i| kv(&format!("a{i}"), int(i))));
    let reply = post_spans(c.port, vec![crowded, chat_span(5, "crowd", "s", "calm")]);
    assert_one_rejected(&reply, "100008 attributes");
    let (out, _) = c.stop();
    assert_eq!(scenes(&out.join("crowd")).len(), 1);
}

/// A sender that trickles a byte a second is cut off by the body timeout (10 s) with 408, and
/// holds no one else up meanwhile.
#[test]
fn a_slow_sender_is_cut_off() {
    let c = collect("slow");
    let port = c.port;
    let started = Instant::now();
    let slow = std::thread::spawn(move || {
        let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_millis(900)))
            .unwrap();
        s.write_all(
            b"POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
              Content-Length: 1000\r\n\r\n",
        )
        .unwrap();
        let mut raw = Vec::new();
        for _ in 0..40 {
            if s.write_all(b" ").is_err() {
                break;
            }
            let mut buf = [0u8; 4096];
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    raw.extend_from_slice(&buf[..n]);
                    break;
                }
                Err(_) => {}
            }
        }
        String::from_utf8_lossy(&raw).into_owned()
    });
    std::thread::sleep(Duration::from_secs(1));
    let other = post_spans(port, vec![chat_span(6, "meanwhile", "s", "u")]);
    assert_eq!(other.status, 200);
    assert!(started.elapsed() < Duration::from_secs(5));
    let answer = slow.join().expect("slow sender");
    let waited = started.elapsed();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
    assert!(
        waited >= Duration::from_secs(9) && waited < Duration::from_secs(25),
        "{waited:?}"
    );
    c.stop();
}

/// `serve --otlp 127.0.0.1:0` prints the receiver's address; what it receives reaches the app
/// through `live_calls`, token-protected, page by page; a taken address leaves serve running and
/// `live_calls` says why.
#[test]
fn serve_receives_calls_for_live_calls() {
    let served = spawn_serve(&["--otlp", "127.0.0.1:0"], Stdio::null());
    let (api_port, token) = (served.port, served.token.as_str());
    let otlp_port = served.otlp_port();
    let reply = post_spans(
        otlp_port,
        vec![
            chat_span(1, "s-1", "You help.", "first"),
            chat_span(2, "s-1", "You help.", "second"),
        ],
    );
    assert_eq!(reply.status, 200);

    let unauthorised = api(api_port, "", r#"{"after": 0}"#);
    assert_eq!(unauthorised.status, 401);
    let page = api(api_port, token, r#"{"after": 0}"#).json();
    let calls = page["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), 2, "{page}");
    assert_eq!(calls[0]["seq"], 1);
    assert_eq!(calls[0]["conversation"], "s-1");
    assert_eq!(calls[0]["model"], "gpt-4o-mini");
    assert_eq!(calls[0]["provider"], "openai");
    assert_eq!(calls[1]["usage"]["input_total"], 41);
    let scene: Json = serde_json::from_str(calls[1]["scene"].as_str().unwrap()).unwrap();
    assert!(holds_text(&scene, "second"));
    assert_eq!(page["next"], 2);
    assert_eq!(page["dropped"], 0);
    assert_eq!(
        page["receiver"]["endpoint"],
        format!("http://127.0.0.1:{otlp_port}/v1/traces")
    );
    let later = api(api_port, token, r#"{"after": 2}"#).json();
    assert_eq!(later["calls"].as_array().unwrap().len(), 0);
    assert_eq!(later["next"], 2);
    drop(served);

    // The receiver's address taken: serve still serves, and says why there is no receiver.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = taken.local_addr().unwrap().to_string();
    let served = spawn_serve(&["--otlp", &addr], Stdio::null());
    assert!(
        served
            .otlp_line
            .starts_with(&format!("otlp off: cannot listen on {addr}")),
        "{:?}",
        served.otlp_line
    );
    let page = api(served.port, &served.token, "{}").json();
    assert!(page["receiver"]["error"]
        .as_str()
        .is_some_and(|e| e.contains(&addr)));
}

/// `POST /api/live_calls` with the token (none when empty).
fn api(port: u16, token: &str, body: &str) -> Reply {
    let bearer = format!("Bearer {token}");
    let mut headers = vec![JSON];
    if !token.is_empty() {
        headers.push(("Authorization", &bearer));
    }
    http_support::request(port, "POST", "/api/live_calls", &headers, body.as_bytes())
}
