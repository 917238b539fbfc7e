//! `GET /api/ws`: the operations of `POST /api/<operation>` over one WebSocket the page keeps
//! open (docs/api.md, "WebSocket"). In Chromium a call over an open socket takes about a
//! millisecond and a `fetch` five to ten; a keystroke's answer has one frame to reach the board
//! (docs/performance.md).
//!
//! Each message is one call, `{"id", "op", "req"}`, answered by one message, `{"id", "status",
//! "body"}`: the status and JSON body `POST /api/<op>` would have answered. Calls on one socket
//! run concurrently (the answer names its call) through the same operation slots as HTTP ones.
//! The upgrade passes every check a POST does (Host, Origin, token) before anything else, and the
//! socket keeps limits of its own: a message size, an idle time, a write timeout, calls in flight
//! and sockets open at once (docs/security.md).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, CONNECTION, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY, UPGRADE};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use prompt_inspector::api::{ApiError, ErrorCode};
use prompt_inspector::http_server::header;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, Semaphore};
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::WebSocketStream;

use super::{HttpCode, Reply, State, LIMITS};

/// Sockets open at once; more upgrades are answered `503 busy` (the page then goes on over HTTP).
pub(super) const MAX_SOCKETS: usize = 16;
/// Calls of one socket running or queued at once; the socket is not read further until one ends.
const MAX_IN_FLIGHT: usize = 16;
/// A socket with no message for this long is closed (the page opens another when it next calls).
const IDLE: Duration = Duration::from_secs(600);
/// An answer the client does not take within this closes the socket.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// One call: the operation's name and its request, as `POST /api/<op>` would take them.
#[derive(Deserialize)]
struct Call<'a> {
    id: u64,
    op: String,
    #[serde(borrow)]
    req: &'a RawValue,
}

/// The id of a message that is not a whole call, when it has one.
#[derive(Deserialize)]
struct JustId {
    id: u64,
}

/// Accepts the upgrade of a request that passed the API's checks: the `101` to send, while the
/// socket itself is served by a task of its own once hyper hands the connection over.
pub(super) fn upgrade(state: &Arc<State>, mut request: Request<Incoming>) -> Reply {
    let bad = |message: &str| Reply::error(&ApiError::new(ErrorCode::BadRequest, message));
    let upgrade_to_websocket = header(&request, UPGRADE).is_some_and(|v| {
        v.split(',')
            .any(|t| t.trim().eq_ignore_ascii_case("websocket"))
    });
    let connection_upgrade = header(&request, CONNECTION).is_some_and(|v| {
        v.split(',')
            .any(|t| t.trim().eq_ignore_ascii_case("upgrade"))
    });
    if !upgrade_to_websocket || !connection_upgrade {
        return bad(
            "GET /api/ws opens a WebSocket: send `Connection: Upgrade` and `Upgrade: websocket`",
        );
    }
    if header(&request, hyper::header::SEC_WEBSOCKET_VERSION).map(str::trim) != Some("13") {
        return bad("only WebSocket version 13 is spoken: send `Sec-WebSocket-Version: 13`");
    }
    let Some(key) = header(&request, SEC_WEBSOCKET_KEY).map(str::trim) else {
        return bad("a WebSocket upgrade needs a `Sec-WebSocket-Key`");
    };
    let accept = derive_accept_key(key.as_bytes());
    let Ok(permit) = Arc::clone(&state.sockets).try_acquire_owned() else {
        return Reply::refused(
            HttpCode::Busy,
            format!(
                "{MAX_SOCKETS} WebSockets are open, the most serve keeps: call over HTTP \
                 (POST /api/<operation>) or close one"
            ),
        );
    };
    let taken = hyper::upgrade::on(&mut request);
    let state = Arc::clone(state);
    tokio::spawn(async move {
        match taken.await {
            Ok(connection) => {
                let socket = WebSocketStream::from_raw_socket(
                    TokioIo::new(connection),
                    Role::Server,
                    Some(config()),
                )
                .await;
                serve_socket(state, socket).await;
            }
            Err(e) => tracing::warn!("serve: a WebSocket upgrade failed: {e}"),
        }
        drop(permit);
    });
    let mut reply = Reply::new(101, "", Vec::new());
    reply.websocket_accept = Some(accept);
    reply
}

/// The `101 Switching Protocols` answer to an accepted upgrade.
pub(super) fn switching(accept: &str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = hyper::StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert(UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(CONNECTION, HeaderValue::from_static("Upgrade"));
    if let Ok(value) = HeaderValue::from_str(accept) {
        headers.insert(SEC_WEBSOCKET_ACCEPT, value);
    }
    response
}

/// A message may be as large as a request body; a frame's declared length over it is refused
/// before its payload is read.
fn config() -> WebSocketConfig {
    let max = usize::try_from(LIMITS.max_body_bytes).unwrap_or(usize::MAX);
    WebSocketConfig::default()
        .max_message_size(Some(max))
        .max_frame_size(Some(max))
        .read_buffer_size(16 * 1024)
        .write_buffer_size(0)
}

/// Reads calls until the socket closes, fails, or idles; each call runs as a task of its own and
/// its answer goes out through the one writer. When the socket ends, its calls still running are
/// cancelled (their templates stop at the next charge of fuel).
async fn serve_socket<S>(state: Arc<State>, socket: WebSocketStream<S>)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sink, mut stream) = socket.split();
    let (answers, mut outgoing) = mpsc::channel::<Message>(MAX_IN_FLIGHT + 1);
    let writer = tokio::spawn(async move {
        while let Some(message) = outgoing.recv().await {
            let closing = matches!(message, Message::Close(_));
            match tokio::time::timeout(WRITE_TIMEOUT, sink.send(message)).await {
                Ok(Ok(())) if !closing => {}
                _ => return,
            }
        }
        // The client closed: this completes the closing handshake.
        let _ = tokio::time::timeout(WRITE_TIMEOUT, sink.close()).await;
    });
    let cancelled = Arc::new(AtomicBool::new(false));
    let slots = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
    let close = loop {
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
            break None;
        };
        let message = match tokio::time::timeout(IDLE, stream.next()).await {
            Err(_) => break Some(close_frame(CloseCode::Away, "no message for 10 minutes")),
            Ok(None) => break None,
            Ok(Some(Err(e))) => break close_for(&e),
            Ok(Some(Ok(message))) => message,
        };
        let text = match message {
            Message::Text(text) => text.as_str().to_owned(),
            Message::Binary(bytes) => match String::from_utf8(bytes.to_vec()) {
                Ok(text) => text,
                Err(_) => break Some(close_frame(CloseCode::Invalid, "a message is not UTF-8")),
            },
            Message::Close(_) => break None,
            // tungstenite answers pings itself.
            Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => continue,
        };
        let state = Arc::clone(&state);
        let answers = answers.clone();
        let cancelled = Arc::clone(&cancelled);
        tokio::spawn(async move {
            let answer = state.answer(&text, cancelled).await;
            let _ = answers.send(Message::text(answer)).await;
            drop(slot);
        });
    };
    cancelled.store(true, Ordering::Relaxed);
    if let Some(frame) = close {
        let _ = answers.send(Message::Close(Some(frame))).await;
    }
    drop(answers);
    // The calls still running hold the channel open until they stop; they were just cancelled.
    let _ = tokio::time::timeout(WRITE_TIMEOUT, writer).await;
}

fn close_frame(code: CloseCode, reason: &str) -> CloseFrame {
    CloseFrame {
        code,
        reason: reason.into(),
    }
}

/// The close to send after a read failed, when the socket can still take one.
fn close_for(e: &WsError) -> Option<CloseFrame> {
    tracing::info!("serve: a WebSocket ended: {e}");
    match e {
        WsError::Capacity(why) => Some(close_frame(CloseCode::Size, &why.to_string())),
        WsError::Protocol(why) => Some(close_frame(CloseCode::Protocol, &why.to_string())),
        WsError::Utf8(_) => Some(close_frame(CloseCode::Invalid, "a message is not UTF-8")),
        _ => None,
    }
}

impl State {
    /// One call's answer, `{"id", "status", "body"}`: what `POST /api/<op>` would have answered.
    async fn answer(&self, text: &str, cancelled: Arc<AtomicBool>) -> String {
        let started = Instant::now();
        let (id, op, reply) = match serde_json::from_str::<Call>(text) {
            Ok(call) if !call.op.is_empty() => {
                let reply = self
                    .operation(call.op.clone(), call.req.get().to_owned(), cancelled)
                    .await;
                (Some(call.id), call.op, reply)
            }
            result => {
                let why = result.err().map_or_else(
                    || "`op` is empty".to_owned(),
                    |e| format!("not a call: {e}"),
                );
                let id = serde_json::from_str::<JustId>(text).ok().map(|j| j.id);
                let message = format!(
                    "a WebSocket message is one call, {{\"id\": number, \"op\": name, \"req\": \
                     request}}; this one is {why}"
                );
                let reply = Reply::error(&ApiError::new(ErrorCode::BadRequest, message));
                (id, String::new(), reply)
            }
        };
        tracing::info!(
            op,
            status = reply.status,
            bytes = reply.body.len(),
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "ws call"
        );
        let id = id.map_or_else(|| "null".to_owned(), |id| id.to_string());
        let body = String::from_utf8_lossy(&reply.body);
        let body = if body.trim().is_empty() {
            "null"
        } else {
            &body
        };
        format!(
            "{{\"id\":{id},\"status\":{},\"body\":{body}}}",
            reply.status
        )
    }
}
