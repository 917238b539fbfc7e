//! The OTLP/HTTP listener: `POST /v1/traces` on a loopback address, hyper on tokio, each
//! connection a task of its own within the limits below (docs/security.md). What it receives
//! goes to a [`Sink`]: the app's and `serve`'s store, or `collect`'s folder. The export is
//! answered only once the sink has taken its calls, so an acknowledged call is kept.
//!
//! A web page must not be able to post traces: a browser's request carries `Origin` (refused,
//! 403), and only `application/x-protobuf` and `application/json` are taken, which a page can send
//! elsewhere only after a CORS preflight this server never answers (415 for the simple types).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, HOST, ORIGIN};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceResponse,
};
use prost::Message;
use serde_json::json;

use super::decode::{self, BodyError, Encoding};
use super::{calls, ReceivedCall, MAX_BODY_BYTES};

/// Where received calls go; an error answers the export 503 (the exporter retries).
pub type Sink = Arc<dyn Fn(Vec<ReceivedCall>) -> Result<(), String> + Send + Sync>;

/// The OTLP/HTTP port when none is given.
pub const DEFAULT_PORT: u16 = 4318;

/// The request line and headers together (hyper's read buffer, which also bounds one read of a
/// body chunk).
pub const MAX_HEAD_BYTES: usize = 64 * 1024;

/// The request line and headers must arrive within this.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);

/// The whole body must arrive within this once the head is in: 20 MiB takes milliseconds on
/// loopback, a byte a second never gets there.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection is asked to close after this, and dropped [`CLOSE_GRACE`] later.
pub const CONNECTION_LIFETIME: Duration = Duration::from_secs(300);
pub const CLOSE_GRACE: Duration = Duration::from_secs(10);

/// Connections open at once; more are closed as soon as they are accepted.
pub const MAX_CONNECTIONS: usize = 256;

/// Exports decoded at once (each holds up to [`super::MAX_DECODED_BYTES`] and what it decodes
/// to); more wait their turn.
pub const DECODES_AT_ONCE: usize = 2;

/// `--otlp ADDR`: `off`, a port (on 127.0.0.1), or a loopback `HOST:PORT`. `None` for `off`.
pub fn parse_addr(text: &str) -> Result<Option<SocketAddr>, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    let addr: SocketAddr = match text.parse::<u16>() {
        Ok(port) => SocketAddr::from(([127, 0, 0, 1], port)),
        Err(_) => text
            .replace("localhost:", "127.0.0.1:")
            .parse()
            .map_err(|_| {
                format!(
                    "--otlp {text}: expected `off`, a port, or HOST:PORT such as 127.0.0.1:4318"
                )
            })?,
    };
    if !addr.ip().is_loopback() {
        return Err(format!(
            "--otlp {text}: the receiver listens on a loopback address only (127.0.0.1 or ::1); \
             forward remote traffic through an OpenTelemetry Collector"
        ));
    }
    Ok(Some(addr))
}

/// The default address, 127.0.0.1:4318.
pub fn default_addr() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT))
}

/// The URL an exporter is pointed at.
pub fn endpoint(addr: SocketAddr) -> String {
    format!("http://{addr}/v1/traces")
}

/// A listener on `addr`, reusable at once after a restart.
pub fn bind(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(1024)
}

/// Serves until `shutdown` turns true, then lets each connection finish its request (within
/// [`CLOSE_GRACE`]) and returns.
pub async fn serve(
    listener: tokio::net::TcpListener,
    sink: Sink,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    let state = Arc::new(State {
        sink,
        decodes: Arc::new(tokio::sync::Semaphore::new(DECODES_AT_ONCE)),
    });
    let connections = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = shutdown.wait_for(|stop| *stop) => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                tracing::warn!("otlp: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&connections).try_acquire_owned() else {
            tracing::warn!("otlp: {MAX_CONNECTIONS} connections open: closing a new one");
            continue;
        };
        let _ = stream.set_nodelay(true);
        let state = Arc::clone(&state);
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            connection(stream, state, shutdown).await;
            drop(permit);
        });
    }
    drop(listener);
    // Every connection returns its permit when it has ended.
    let all = u32::try_from(MAX_CONNECTIONS).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(CLOSE_GRACE, connections.acquire_many(all)).await;
}

async fn connection(
    stream: tokio::net::TcpStream,
    state: Arc<State>,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    let service = hyper::service::service_fn(move |request| {
        let state = Arc::clone(&state);
        async move { Ok::<_, Infallible>(state.handle(request).await) }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT)
        .max_buf_size(MAX_HEAD_BYTES)
        .max_headers(100)
        .serve_connection(TokioIo::new(stream), service);
    let mut conn = std::pin::pin!(conn);
    let ended = tokio::select! {
        ended = tokio::time::timeout(CONNECTION_LIFETIME, conn.as_mut()) => ended.is_ok(),
        _ = shutdown.wait_for(|stop| *stop) => false,
    };
    if !ended {
        conn.as_mut().graceful_shutdown();
        let _ = tokio::time::timeout(CLOSE_GRACE, conn).await;
    }
}

struct State {
    sink: Sink,
    decodes: Arc<tokio::sync::Semaphore>,
}

/// A refusal: the HTTP status, the google.rpc.Status code and the message.
struct Refusal {
    status: StatusCode,
    code: i32,
    message: String,
}

impl Refusal {
    fn new(status: StatusCode, message: impl Into<String>) -> Refusal {
        // google.rpc.Code numbers, as OTLP/HTTP answers them.
        let code = match status {
            StatusCode::BAD_REQUEST => 3,
            StatusCode::NOT_FOUND => 5,
            StatusCode::FORBIDDEN => 7,
            StatusCode::PAYLOAD_TOO_LARGE => 8,
            StatusCode::SERVICE_UNAVAILABLE => 14,
            StatusCode::REQUEST_TIMEOUT => 4,
            StatusCode::UNSUPPORTED_MEDIA_TYPE | StatusCode::METHOD_NOT_ALLOWED => 12,
            _ => 13,
        };
        Refusal {
            status,
            code,
            message: message.into(),
        }
    }
}

impl From<BodyError> for Refusal {
    fn from(e: BodyError) -> Refusal {
        match e {
            BodyError::TooLarge(m) => Refusal::new(StatusCode::PAYLOAD_TOO_LARGE, m),
            BodyError::Invalid(m) => Refusal::new(StatusCode::BAD_REQUEST, m),
        }
    }
}

/// google.rpc.Status, the body of an OTLP/HTTP error (its `details` left empty).
#[derive(Clone, PartialEq, prost::Message)]
struct RpcStatus {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
}

/// Spans named at most in `partial_success.error_message`; the count says how many in all.
const REJECTIONS_NAMED: usize = 10;

impl State {
    async fn handle(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        let answer_in = content_type(&request)
            .and_then(Encoding::of_content_type)
            .unwrap_or(Encoding::Json);
        let (status, body) = match self.export(request).await {
            Ok(rejected) => (StatusCode::OK, success(&rejected, answer_in)),
            Err(refusal) => {
                tracing::info!(
                    status = refusal.status.as_u16(),
                    "otlp: refused: {}",
                    refusal.message
                );
                (refusal.status, failure(&refusal, answer_in))
            }
        };
        let mut response = Response::new(Full::new(Bytes::from(body)));
        *response.status_mut() = status;
        let media = match answer_in {
            Encoding::Protobuf => "application/x-protobuf",
            Encoding::Json => "application/json",
        };
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(media));
        response
    }

    /// Takes in one export; the rejected spans, each with why.
    async fn export(&self, request: Request<Incoming>) -> Result<Vec<String>, Refusal> {
        if request.uri().path() != "/v1/traces" {
            return Err(Refusal::new(
                StatusCode::NOT_FOUND,
                "this receiver takes traces only, at POST /v1/traces",
            ));
        }
        if request.method() != Method::POST {
            return Err(Refusal::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "POST an ExportTraceServiceRequest to /v1/traces",
            ));
        }
        if request.headers().contains_key(ORIGIN) {
            return Err(Refusal::new(
                StatusCode::FORBIDDEN,
                "requests from a web page (with an Origin header) are refused",
            ));
        }
        if !host_ok(&request) {
            return Err(Refusal::new(
                StatusCode::FORBIDDEN,
                "the Host header must name 127.0.0.1, localhost or [::1]",
            ));
        }
        let Some(encoding) = content_type(&request).and_then(Encoding::of_content_type) else {
            return Err(Refusal::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Content-Type must be application/x-protobuf or application/json",
            ));
        };
        let gzip = match header(&request, CONTENT_ENCODING).map(str::trim) {
            None | Some("") => false,
            Some(e) if e.eq_ignore_ascii_case("identity") => false,
            Some(e) if e.eq_ignore_ascii_case("gzip") => true,
            Some(other) => {
                return Err(Refusal::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    format!("Content-Encoding {other:?}: only gzip is taken"),
                ))
            }
        };
        let body = read_body(request).await?;
        let permit = Arc::clone(&self.decodes)
            .acquire_owned()
            .await
            .map_err(|_| Refusal::new(StatusCode::SERVICE_UNAVAILABLE, "shutting down"))?;
        let sink = Arc::clone(&self.sink);
        // Decoding and the sink's writes are blocking work: on the blocking pool, so other
        // connections go on. A panic there answers this request 500 and nothing else.
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let plain = if gzip {
                decode::gunzip(&body)?
            } else {
                body.to_vec()
            };
            let decoded = decode::decode(&plain, encoding)?;
            drop(plain);
            let received = calls::received_calls(decoded.spans, decoded.rejected, &now());
            tracing::info!(
                calls = received.calls.len(),
                rejected = received.rejected.len(),
                ignored = received.ignored,
                "otlp: export received"
            );
            if !received.calls.is_empty() {
                (sink)(received.calls).map_err(|e| {
                    Refusal::new(
                        StatusCode::SERVICE_UNAVAILABLE,
                        format!("the calls could not be kept: {e}"),
                    )
                })?;
            }
            Ok(received.rejected)
        })
        .await
        .unwrap_or_else(|_| {
            Err(Refusal::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "reading the export failed inside the receiver; see the log",
            ))
        })
    }
}

/// At most [`MAX_BODY_BYTES`], declared or not, within [`BODY_TIMEOUT`].
async fn read_body(request: Request<Incoming>) -> Result<Bytes, Refusal> {
    let too_large = || {
        Refusal::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is larger than {MAX_BODY_BYTES} bytes"),
        )
    };
    match header(&request, CONTENT_LENGTH).map(|v| v.trim().parse::<u64>()) {
        Some(Ok(n)) if n > MAX_BODY_BYTES => return Err(too_large()),
        Some(Err(_)) => {
            return Err(Refusal::new(
                StatusCode::BAD_REQUEST,
                "the Content-Length is not a number",
            ))
        }
        _ => {}
    }
    let limit = usize::try_from(MAX_BODY_BYTES).unwrap_or(usize::MAX);
    let collected = tokio::time::timeout(
        BODY_TIMEOUT,
        Limited::new(request.into_body(), limit).collect(),
    )
    .await;
    match collected {
        Err(_) => Err(Refusal::new(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {} s",
                BODY_TIMEOUT.as_secs()
            ),
        )),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Ok(Err(e)) => Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            format!("reading the body: {e}"),
        )),
        Ok(Ok(body)) => Ok(body.to_bytes()),
    }
}

fn success(rejected: &[String], encoding: Encoding) -> Vec<u8> {
    let partial = (!rejected.is_empty()).then(|| {
        let mut message = rejected
            .iter()
            .take(REJECTIONS_NAMED)
            .cloned()
            .collect::<Vec<_>>()
            .join("; ");
        if rejected.len() > REJECTIONS_NAMED {
            message.push_str(&format!("; and {} more", rejected.len() - REJECTIONS_NAMED));
        }
        ExportTracePartialSuccess {
            rejected_spans: i64::try_from(rejected.len()).unwrap_or(i64::MAX),
            error_message: message,
        }
    });
    match encoding {
        Encoding::Protobuf => ExportTraceServiceResponse {
            partial_success: partial,
        }
        .encode_to_vec(),
        Encoding::Json => {
            let body = match partial {
                // proto3 JSON writes an int64 as a decimal string.
                Some(p) => json!({"partialSuccess": {
                    "rejectedSpans": p.rejected_spans.to_string(),
                    "errorMessage": p.error_message,
                }}),
                None => json!({}),
            };
            body.to_string().into_bytes()
        }
    }
}

fn failure(refusal: &Refusal, encoding: Encoding) -> Vec<u8> {
    match encoding {
        Encoding::Protobuf => RpcStatus {
            code: refusal.code,
            message: refusal.message.clone(),
        }
        .encode_to_vec(),
        Encoding::Json => json!({"code": refusal.code, "message": refusal.message, "details": []})
            .to_string()
            .into_bytes(),
    }
}

fn header(request: &Request<Incoming>, name: hyper::header::HeaderName) -> Option<&str> {
    request.headers().get(name).and_then(|v| v.to_str().ok())
}

fn content_type(request: &Request<Incoming>) -> Option<&str> {
    header(request, CONTENT_TYPE)
}

/// No Host (HTTP/1.0) or a loopback name: a page on another name that rebinds its DNS to
/// 127.0.0.1 is refused.
fn host_ok(request: &Request<Incoming>) -> bool {
    let Some(host) = request.headers().get(HOST) else {
        return true;
    };
    let Ok(host) = host.to_str() else {
        return false;
    };
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    name == "127.0.0.1" || name == "[::1]" || name.eq_ignore_ascii_case("localhost")
}

/// Now, as RFC 3339 UTC.
fn now() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    crate::import::time::from_unix_nanos(nanos).unwrap_or_default()
}
