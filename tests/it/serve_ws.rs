//! `serve`'s WebSocket, `GET /api/ws` (docs/api.md, "WebSocket"): a real client (tungstenite)
//! against a `serve` in a child process. A call answers what `POST /api/<op>` answers; the
//! upgrade passes the same guards; a bad message is answered and the socket goes on; a message
//! over the limit closes the socket without taking the server down.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::time::Duration;

use tungstenite::client::IntoClientRequest;
use tungstenite::http::HeaderValue;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::{Message, WebSocket};

use crate::http_support::{self, spawn_serve, Served};

type Socket = WebSocket<TcpStream>;

/// Opens `/api/ws` with `token` (and `origin` when given); the refusal's status otherwise.
fn open(s: &Served, token: &str, origin: Option<&str>) -> Result<Socket, u16> {
    let url = format!("ws://127.0.0.1:{}/api/ws?token={token}", s.port);
    let mut request = url.into_client_request().expect("a request");
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("Origin", HeaderValue::from_str(origin).expect("a header"));
    }
    let stream = TcpStream::connect(("127.0.0.1", s.port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    match tungstenite::client(request, stream) {
        Ok((socket, _)) => Ok(socket),
        Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(response))) => {
            Err(response.status().as_u16())
        }
        Err(e) => panic!("the handshake failed otherwise: {e}"),
    }
}

/// Sends `text` and returns the next answer, as JSON.
fn call(ws: &mut Socket, text: &str) -> serde_json::Value {
    ws.send(Message::text(text)).expect("send");
    next_answer(ws)
}

/// `POST /api/<op>` with the session's bearer token and a JSON body.
fn post(s: &Served, op: &str, body: &[u8]) -> http_support::Reply {
    let bearer = format!("Bearer {}", s.token);
    http_support::request(
        s.port,
        "POST",
        &format!("/api/{op}"),
        &[
            ("Authorization", bearer.as_str()),
            ("Content-Type", "application/json"),
        ],
        body,
    )
}

fn next_answer(ws: &mut Socket) -> serde_json::Value {
    loop {
        match ws.read().expect("an answer") {
            Message::Text(t) => {
                return serde_json::from_str(t.as_str()).expect("an answer is JSON");
            }
            Message::Ping(_) | Message::Pong(_) => {}
            other => panic!("not an answer: {other:?}"),
        }
    }
}

fn serve() -> Served {
    spawn_serve(&[], Stdio::null())
}

#[test]
fn a_call_over_the_socket_answers_what_post_answers() {
    let s = serve();
    let mut ws = open(&s, &s.token, None).expect("the socket opens");
    let req = serde_json::json!({"text": prompt_inspector::scene::DEFAULT_SCENE, "llm": "chat"});
    let answer = call(
        &mut ws,
        &serde_json::json!({"id": 7, "op": "render", "req": req}).to_string(),
    );
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["status"], 200);
    let post = post(&s, "render", req.to_string().as_bytes());
    assert_eq!(post.status, 200, "{}", post.body);
    assert_eq!(answer["body"], post.json(), "the socket and POST disagree");
    assert!(answer["body"]["report"]["segments"].is_array());

    // An operation's error: its status and `{code, message}`, with the position fields.
    let bad = call(
        &mut ws,
        &serde_json::json!({"id": 8, "op": "render", "req": {"text": "{\n  \"nam\": 1\n}", "llm": "chat"}})
            .to_string(),
    );
    assert_eq!(bad["id"], 8);
    assert_eq!(bad["status"], 400);
    assert_eq!(bad["body"]["code"], "load_error", "{bad}");
    assert_eq!(bad["body"]["line"], 2, "{bad}");
    let unknown = call(&mut ws, r#"{"id": 9, "op": "no_such_op", "req": {}}"#);
    assert_eq!(unknown["status"], 404);
    assert_eq!(unknown["body"]["code"], "unknown_operation");
}

#[test]
fn live_edits_over_the_socket_follow_revisions() {
    let s = serve();
    let mut ws = open(&s, &s.token, None).expect("the socket opens");
    let text = r#"{"format": "prompt-inspector/scene@1", "context": {"user_input": {"input": "q"}},
      "tools": [{"name": "t", "prompt_position": ["system_msg_prompt", "system_prompt"],
        "format_2_prompt": {"returns": "str", "source": {"engine": "fstring", "templates": {"default": "hi"}}}}]}"#;
    let opened = call(
        &mut ws,
        &serde_json::json!({"id": 1, "op": "live_open", "req": {"text": text}}).to_string(),
    );
    assert_eq!(opened["status"], 200, "{opened}");
    let doc = &opened["body"]["doc"];
    let at = text.find("hi").expect("the template") + 2;
    let edit = |revision: &serde_json::Value, id: u32| {
        serde_json::json!({"id": id, "op": "live_edit", "req": {
            "doc": doc, "revision": revision,
            "edit": {"start": at, "delete": 0, "insert": "!"},
        }})
        .to_string()
    };
    let first = call(&mut ws, &edit(&opened["body"]["revision"], 2));
    assert_eq!(first["status"], 200, "{first}");
    assert!(
        first["body"]["patch"].to_string().contains("hi!"),
        "the patch carries the edit: {first}"
    );
    // The same edit again names a revision the document has left: 409, and the socket goes on.
    let stale = call(&mut ws, &edit(&opened["body"]["revision"], 3));
    assert_eq!(stale["status"], 409);
    assert_eq!(stale["body"]["code"], "stale_document");
    let second = call(&mut ws, &edit(&first["body"]["revision"], 4));
    assert_eq!(second["status"], 200, "{second}");
}

#[test]
fn a_message_that_is_not_a_call_is_answered_and_the_socket_goes_on() {
    let s = serve();
    let mut ws = open(&s, &s.token, None).expect("the socket opens");
    let answer = call(&mut ws, "not json");
    assert_eq!(answer["id"], serde_json::Value::Null);
    assert_eq!(answer["status"], 400);
    assert_eq!(answer["body"]["code"], "bad_request");
    let message = answer["body"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("one call"), "{message}");
    // The id is echoed when there is one, even when the rest is wrong.
    let no_op = call(&mut ws, r#"{"id": 5, "req": {}}"#);
    assert_eq!(no_op["id"], 5);
    assert_eq!(no_op["status"], 400);
    // A binary message is read as UTF-8 text (the page sends large requests as bytes).
    ws.send(Message::binary(
        br#"{"id": 6, "op": "about", "req": {}}"#.to_vec(),
    ))
    .expect("send");
    let about = next_answer(&mut ws);
    assert_eq!(about["id"], 6);
    assert_eq!(about["status"], 200);
    assert_eq!(about["body"]["name"], "prompt-inspector");
}

#[test]
fn the_upgrade_passes_the_api_guards() {
    let s = serve();
    assert_eq!(open(&s, "wrong", None).err(), Some(401));
    let own = format!("http://127.0.0.1:{}", s.port);
    assert!(open(&s, &s.token, Some(&own)).is_ok());
    assert_eq!(
        open(&s, &s.token, Some("http://evil.example")).err(),
        Some(403)
    );
    // A GET without the upgrade headers is told what to send.
    let reply = http_support::request(
        s.port,
        "GET",
        &format!("/api/ws?token={}", s.token),
        &[],
        b"",
    );
    assert_eq!(reply.status, 400);
    assert!(reply.body.contains("Upgrade: websocket"), "{}", reply.body);
}

#[test]
fn a_message_over_the_limit_closes_the_socket_and_the_server_goes_on() {
    let s = serve();
    let mut ws = open(&s, &s.token, None).expect("the socket opens");
    // A frame header declaring 1 TiB, masked, with no payload behind it: refused from the
    // header alone, before anything of that size is allocated.
    let mut raw = ws.get_mut().try_clone().expect("the stream");
    let mut frame = vec![0x81u8, 0xFF];
    frame.extend_from_slice(&(1u64 << 40).to_be_bytes());
    frame.extend_from_slice(&[1, 2, 3, 4]);
    raw.write_all(&frame).expect("write");
    let closed = loop {
        match ws.read() {
            Ok(Message::Close(frame)) => break frame,
            Ok(_) => {}
            Err(e) => panic!("the socket was not closed with a reason: {e}"),
        }
    };
    let frame = closed.expect("a close frame");
    assert_eq!(frame.code, CloseCode::Size, "{frame:?}");
    // The server still answers, over HTTP and over a new socket.
    let mut again = open(&s, &s.token, None).expect("a new socket opens");
    assert_eq!(
        call(&mut again, r#"{"id": 1, "op": "about", "req": {}}"#)["status"],
        200
    );
    let mut buf = [0u8; 1];
    raw.set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    assert!(
        matches!(raw.read(&mut buf), Ok(0) | Err(_)),
        "the refused socket is closed"
    );
}

#[test]
fn a_message_that_is_not_utf8_closes_the_socket_and_the_server_goes_on() {
    let s = serve();
    let mut ws = open(&s, &s.token, None).expect("the socket opens");
    ws.send(Message::binary(vec![b'{', 0xff, 0xfe, b'}']))
        .expect("send");
    let closed = loop {
        match ws.read() {
            Ok(Message::Close(frame)) => break frame,
            Ok(_) => {}
            Err(e) => panic!("the socket was not closed with a reason: {e}"),
        }
    };
    assert_eq!(closed.expect("a close frame").code, CloseCode::Invalid);
    let mut again = open(&s, &s.token, None).expect("a new socket opens");
    assert_eq!(
        call(&mut again, r#"{"id": 2, "op": "about", "req": {}}"#)["status"],
        200
    );
}

#[test]
fn sockets_beyond_the_cap_are_refused_and_http_goes_on() {
    let s = serve();
    let mut open_ones: Vec<Socket> = (0..16)
        .map(|i| open(&s, &s.token, None).unwrap_or_else(|e| panic!("socket {i}: {e}")))
        .collect();
    assert_eq!(open(&s, &s.token, None).err(), Some(503));
    let about = post(&s, "about", b"{}");
    assert_eq!(about.status, 200);
    // Closing one makes room for another.
    let mut first = open_ones.remove(0);
    first.close(None).expect("close");
    while first.read().is_ok() {}
    let reopened = (0..50).find_map(|_| {
        std::thread::sleep(Duration::from_millis(20));
        open(&s, &s.token, None).ok()
    });
    assert!(reopened.is_some(), "a closed socket frees its place");
    drop(open_ones);
}
