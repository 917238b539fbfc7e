//! The OTLP/HTTP listener: `POST /v1/traces` on a loopback address, served by
//! [`crate::http_server`] (hyper on tokio, each connection a task of its own) within [`LIMITS`]
//! (docs/security.md). What it receives
//! goes to a [`Sink`]: the app's and `serve`'s store, or `collect`'s folder. The export is
//! answered only once the sink has taken its calls, so an acknowledged call is kept.
//!
//! A web page must not be able to post traces: a browser's request carries `Origin` (refused,
//! 403), and only `application/x-protobuf` and `application/json` are taken, which a page can send
//! elsewhere only after a CORS preflight this server never answers (415 for the simple types).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, CONTENT_ENCODING, CONTENT_TYPE, HOST, ORIGIN};
use hyper::{Method, Request, Response, StatusCode};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceResponse,
};
use prost::Message;
use serde_json::json;

use super::decode::{self, BodyError, Encoding};
use super::{calls, ReceivedCall, MAX_BODY_BYTES};
use crate::http_server::{self, header, Limits};

/// Where received calls go; an error answers the export 503 (the exporter retries).
pub type Sink = Arc<dyn Fn(Vec<ReceivedCall>) -> Result<(), String> + Send + Sync>;

/// The OTLP/HTTP port when none is given.
pub const DEFAULT_PORT: u16 = 4318;

/// What a sender is allowed (docs/security.md): 20 MiB of body within 10 s (on loopback 20 MiB
/// takes milliseconds, a byte a second never gets there), 256 connections.
pub const LIMITS: Limits = Limits {
    name: "otlp",
    max_head_bytes: 64 * 1024,
    head_timeout: Duration::from_secs(10),
    max_body_bytes: MAX_BODY_BYTES,
    body_timeout: Duration::from_secs(10),
    connection_lifetime: Duration::from_secs(300),
    close_grace: Duration::from_secs(10),
    max_connections: 256,
};

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
    http_server::bind(addr)
}

/// Serves until `shutdown` turns true, then lets each connection finish its request (within
/// [`LIMITS`]' grace) and returns.
pub async fn serve(
    listener: tokio::net::TcpListener,
    sink: Sink,
    shutdown: tokio::sync::watch::Receiver<bool>,
) {
    let state = Arc::new(State {
        sink,
        decodes: Arc::new(tokio::sync::Semaphore::new(DECODES_AT_ONCE)),
    });
    let handle = move |request| {
        let state = Arc::clone(&state);
        async move { state.handle(request).await }
    };
    http_server::serve(listener, LIMITS, handle, shutdown).await;
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

/// At most [`MAX_BODY_BYTES`], declared or not, within the body timeout.
async fn read_body(request: Request<Incoming>) -> Result<Bytes, Refusal> {
    http_server::read_body(request, &LIMITS).await.map_err(|e| {
        let status = match e {
            http_server::BodyError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            http_server::BodyError::TimedOut { .. } => StatusCode::REQUEST_TIMEOUT,
            http_server::BodyError::BadLength | http_server::BodyError::Broken(_) => {
                StatusCode::BAD_REQUEST
            }
        };
        Refusal::new(status, e.to_string())
    })
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
