//! `prompt-inspector serve`: the app API (docs/api.md) over HTTP for the browser build of the UI
//! and its tests. Local only: bound to 127.0.0.1, a per-launch token on every API request, a Host
//! check against DNS rebinding and an Origin check against other sites (docs/security.md).
//!
//! Any local process can connect, token or not, so nothing a client sends may crash, freeze or
//! bloat the server: the connections are the core's `http_server` within [`LIMITS`] (each a task
//! of its own, headers capped in size and in time, a cap on connections, a body capped before it
//! is allocated and in time), the token is checked before a body is read, and operations run on
//! the blocking pool so a long render never stalls other requests.

mod static_files;
mod ws;

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, AUTHORIZATION, CONTENT_TYPE, HOST, ORIGIN};
use hyper::{Method, Request, Response};
use prompt_inspector::api::{self, ApiError, ErrorCode};
use prompt_inspector::http_server::{self, header, BodyError};
use prompt_inspector::otlp::{self, receiver};
use prompt_inspector::template::budget;
use serde::Serialize;

/// What a client is allowed (docs/security.md). Request bodies above 64 MiB are refused: a scene
/// is large, but not this large.
const LIMITS: http_server::Limits = http_server::Limits {
    name: "serve",
    max_head_bytes: 64 * 1024,
    head_timeout: Duration::from_secs(10),
    max_body_bytes: 64 * 1024 * 1024,
    body_timeout: Duration::from_secs(30),
    connection_lifetime: Duration::from_secs(300),
    close_grace: Duration::from_secs(30),
    max_connections: 2048,
};

/// The page may load only its own scripts, styles and images and talk only to this server.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
                   img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; \
                   frame-ancestors 'none'; form-action 'none'";

/// The UI folder to serve: `--ui DIR` must hold an `index.html`; without the flag, `ui/dist` of the
/// working directory when it is built. With no UI the API is still served, and stderr says so at
/// start-up (a browser opening the URL would otherwise meet a bare "not found").
fn ui_folder(flag: Option<PathBuf>) -> Result<Option<PathBuf>, String> {
    if let Some(dir) = flag {
        if !dir.join("index.html").is_file() {
            return Err(format!(
                "--ui {}: no index.html there (build the UI with `cd ui && npm run build`; \
                 its output is ui/dist)",
                dir.display()
            ));
        }
        return Ok(Some(dir));
    }
    let default = PathBuf::from("ui/dist");
    if default.join("index.html").is_file() {
        return Ok(Some(default));
    }
    eprintln!(
        "note: serving the API only, with no browser UI: ui/dist/index.html is not in the working \
         directory. Build the UI with `cd ui && npm run build` and pass --ui ui/dist (or start serve \
         from the repository root)."
    );
    Ok(None)
}

/// How many operations run at once, and how long one waits for its turn.
pub struct Limits {
    operations: usize,
    queue_timeout: Duration,
}

impl Limits {
    /// `operations` (default: the number of cores), `queue_timeout` in seconds.
    pub fn new(operations: Option<u16>, queue_timeout: u64) -> Limits {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        Limits {
            operations: operations.map_or(cores, usize::from).max(1),
            queue_timeout: Duration::from_secs(queue_timeout),
        }
    }
}

pub fn run(port: u16, ui: Option<PathBuf>, limits: Limits, otlp: Option<SocketAddr>) -> ExitCode {
    // Logs go to stderr at `info` unless PROMPT_INSPECTOR_LOG already set up a subscriber.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("info"))
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .try_init();
    let ui = match ui_folder(ui) {
        Ok(ui) => ui,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let token = match new_token() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read random bytes for the access token: {e}");
            return ExitCode::from(1);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the server's runtime: {e}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(serve(port, ui, token, limits, otlp))
}

async fn serve(
    port: u16,
    ui: Option<PathBuf>,
    token: String,
    limits: Limits,
    otlp: Option<SocketAddr>,
) -> ExitCode {
    let listener = match http_server::bind(SocketAddr::from(([127, 0, 0, 1], port))) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: cannot listen on 127.0.0.1:{port}: {e}");
            return ExitCode::from(1);
        }
    };
    let port = match listener.local_addr() {
        Ok(addr) => addr.port(),
        Err(e) => {
            eprintln!("error: the server has no address: {e}");
            return ExitCode::from(1);
        }
    };
    let received = Arc::new(otlp::CallStore::default());
    let otlp_line = start_receiver(otlp, &received);
    // Two lines on stdout: the URL the browser (or a test) opens, then the OTLP receiver's, in
    // one write: a reader that takes the first line and closes the pipe must not fail the second.
    let mut stdout = std::io::stdout().lock();
    let lines = format!("serving on http://127.0.0.1:{port}/?token={token}\n{otlp_line}\n");
    if stdout
        .write_all(lines.as_bytes())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return ExitCode::from(1);
    }
    drop(stdout);
    tracing::info!(port, ui = ?ui.as_deref().map(Path::display), "serving");
    let state = Arc::new(State {
        port,
        token,
        ui,
        live: Arc::new(api::Live::with_received(received)),
        operations: Arc::new(tokio::sync::Semaphore::new(limits.operations)),
        queue_timeout: limits.queue_timeout,
        sockets: Arc::new(tokio::sync::Semaphore::new(ws::MAX_SOCKETS)),
    });
    let handle = move |request| {
        let state = Arc::clone(&state);
        async move { state.handle(request).await }
    };
    // Never told to stop: serve ends with the process.
    let (_never, shutdown) = tokio::sync::watch::channel(false);
    http_server::serve(listener, LIMITS, handle, shutdown).await;
    ExitCode::SUCCESS
}

struct State {
    port: u16,
    token: String,
    ui: Option<PathBuf>,
    /// The pages' live documents (`live_open`, `live_edit`).
    live: Arc<api::Live>,
    /// One permit per operation running on the blocking pool: the operations that run at once.
    operations: Arc<tokio::sync::Semaphore>,
    /// How long an operation waits for a permit before it is answered `busy`.
    queue_timeout: Duration,
    /// One permit per open WebSocket (`/api/ws`).
    sockets: Arc<tokio::sync::Semaphore>,
}

/// Sets its flag when dropped: the request's future went away before the operation answered.
struct CancelOnDrop(Option<Arc<AtomicBool>>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(flag) = &self.0 {
            flag.store(true, Ordering::Relaxed);
        }
    }
}

/// What a request turns into before it is written: status, content type and body.
struct Reply {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
    /// `Sec-WebSocket-Accept` of a `101 Switching Protocols` (`/api/ws`).
    websocket_accept: Option<String>,
}

impl Reply {
    fn new(status: u16, content_type: &'static str, body: Vec<u8>) -> Reply {
        Reply {
            status,
            content_type,
            body,
            websocket_accept: None,
        }
    }

    fn json(status: u16, body: String) -> Reply {
        Reply::new(status, "application/json; charset=utf-8", body.into_bytes())
    }

    fn error(e: &ApiError) -> Reply {
        Reply::json(status_of(e.code), error_json(e))
    }

    /// A request refused before it reaches an operation, as `{code, message}` like an [`ApiError`].
    fn refused(code: HttpCode, message: impl Into<String>) -> Reply {
        let body = error_json(&HttpError {
            code,
            message: message.into(),
        });
        Reply::json(code.status(), body)
    }
}

fn error_json(e: &impl Serialize) -> String {
    serde_json::to_string(e).unwrap_or_else(|_| {
        r#"{"code":"internal","message":"the error could not be serialised"}"#.to_owned()
    })
}

/// What only HTTP can go wrong with. The operations' own codes are [`ErrorCode`]; these join them on
/// the wire (docs/api.md, "Errors") in the same shape, and never reach another front end.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
enum HttpCode {
    /// Missing or wrong token.
    Unauthorized,
    /// The `Host` header is not this server's.
    ForbiddenHost,
    /// The body is larger than [`LIMITS`] allow.
    TooLarge,
    /// Not `POST` on `/api/...`, not `GET`/`HEAD` elsewhere.
    MethodNotAllowed,
    /// No such static file.
    NotFound,
    /// The `Origin` header names another site: a page elsewhere may not use a leaked token.
    ForbiddenOrigin,
    /// A state-changing call without `Content-Type: application/json` (what a cross-site form
    /// could send without asking first).
    UnsupportedMediaType,
    /// The body did not arrive in time.
    RequestTimeout,
    /// Every operation slot stayed taken for the queue timeout (`--max-operations`,
    /// `--queue-timeout`).
    Busy,
}

impl HttpCode {
    fn status(self) -> u16 {
        match self {
            HttpCode::Unauthorized => 401,
            HttpCode::ForbiddenHost | HttpCode::ForbiddenOrigin => 403,
            HttpCode::NotFound => 404,
            HttpCode::MethodNotAllowed => 405,
            HttpCode::RequestTimeout => 408,
            HttpCode::TooLarge => 413,
            HttpCode::UnsupportedMediaType => 415,
            HttpCode::Busy => 503,
        }
    }
}

/// The body of a [`Reply::refused`]: an [`ApiError`] with a code of serve's own.
#[derive(Serialize)]
struct HttpError {
    code: HttpCode,
    message: String,
}

fn status_of(code: ErrorCode) -> u16 {
    match code {
        ErrorCode::UnknownOperation => 404,
        ErrorCode::Internal => 500,
        ErrorCode::StaleDocument => 409,
        // serve confines nothing (docs/security.md); only the app's commands answer this.
        ErrorCode::PathNotChosen => 403,
        ErrorCode::LoadError
        | ErrorCode::IoError
        | ErrorCode::TemplateError
        | ErrorCode::NoRun
        | ErrorCode::InvalidArgument
        | ErrorCode::BadRequest => 400,
    }
}

impl State {
    async fn handle(self: Arc<Self>, request: Request<Incoming>) -> Response<Full<Bytes>> {
        let started = Instant::now();
        let method = request.method().clone();
        let path = request.uri().path().to_owned();
        let reply = self.route(request).await;
        // The query is left out of the log: it may hold the token.
        tracing::info!(
            method = %method,
            path,
            status = reply.status,
            bytes = reply.body.len(),
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "request"
        );
        if let Some(accept) = reply.websocket_accept {
            return ws::switching(&accept);
        }
        let mut response = Response::new(Full::new(Bytes::from(reply.body)));
        *response.status_mut() =
            hyper::StatusCode::from_u16(reply.status).unwrap_or(hyper::StatusCode::OK);
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(reply.content_type));
        for (name, value) in [
            ("content-security-policy", CSP),
            ("x-content-type-options", "nosniff"),
            ("referrer-policy", "no-referrer"),
            ("cache-control", "no-store"),
        ] {
            headers.insert(name, HeaderValue::from_static(value));
        }
        response
    }

    async fn route(self: &Arc<Self>, request: Request<Incoming>) -> Reply {
        if !self.host_ok(&request) {
            return Reply::refused(
                HttpCode::ForbiddenHost,
                format!(
                    "the Host header must be 127.0.0.1:{0} or localhost:{0}",
                    self.port
                ),
            );
        }
        if !self.origin_ok(&request) {
            return Reply::refused(
                HttpCode::ForbiddenOrigin,
                format!(
                    "requests from another site are refused: Origin must be http://127.0.0.1:{0} \
                     or http://localhost:{0} when it is sent",
                    self.port
                ),
            );
        }
        let method = request.method().clone();
        let Some(operation) = request
            .uri()
            .path()
            .strip_prefix("/api/")
            .map(str::to_owned)
        else {
            if !matches!(method, Method::GET | Method::HEAD) {
                return Reply::refused(
                    HttpCode::MethodNotAllowed,
                    "only GET and HEAD serve the UI",
                );
            }
            let ui = self.ui.clone();
            let path = request.uri().path().to_owned();
            // A file read is blocking work too.
            return tokio::task::spawn_blocking(move || static_files::serve(ui.as_deref(), &path))
                .await
                .unwrap_or_else(|_| Reply::error(&internal("serving a UI file")));
        };
        if !self.token_ok(&request) {
            return Reply::refused(
                HttpCode::Unauthorized,
                "missing or wrong token: send `Authorization: Bearer <token>` or `?token=<token>` \
                 (the token is in the URL serve printed)",
            );
        }
        if operation == "ws" && method == Method::GET {
            return ws::upgrade(self, request);
        }
        if method != Method::POST {
            return Reply::refused(
                HttpCode::MethodNotAllowed,
                "API operations take POST with a JSON body",
            );
        }
        if !json_content_type(&request) {
            return Reply::refused(
                HttpCode::UnsupportedMediaType,
                "API operations take `Content-Type: application/json`",
            );
        }
        let body = match read_body(request).await {
            Ok(b) => b,
            Err(reply) => return reply,
        };
        // Set when this future is dropped: hyper drops it when the client goes away, and the
        // operation's templates stop at their next charge of fuel.
        let flag = Arc::new(AtomicBool::new(false));
        let mut cancel = CancelOnDrop(Some(Arc::clone(&flag)));
        let reply = self.operation(operation, body, flag).await;
        // Answered: the guard has nothing left to cancel.
        cancel.0 = None;
        reply
    }

    /// Runs one operation within the operation slots, on the blocking pool: its reply. The
    /// operation stops at its templates' next charge of fuel once `cancelled` is set (the client
    /// went away).
    async fn operation(
        &self,
        operation: String,
        body: String,
        cancelled: Arc<AtomicBool>,
    ) -> Reply {
        // At most `operations` run at once; the permit goes with the work, so an operation whose
        // client left still counts until it has stopped.
        let permit = match tokio::time::timeout(
            self.queue_timeout,
            Arc::clone(&self.operations).acquire_owned(),
        )
        .await
        {
            Ok(Ok(permit)) => permit,
            _ => {
                return Reply::refused(
                    HttpCode::Busy,
                    format!(
                        "the server is busy: every operation slot stayed taken for {} s; try again",
                        self.queue_timeout.as_secs()
                    ),
                )
            }
        };
        let live = Arc::clone(&self.live);
        let name = operation.clone();
        let flag = cancelled;
        // On the blocking pool, so other connections go on while this one renders. A panic in
        // the operation is caught there (`api::guarded`) and answers this request with an
        // `internal` error; the join error is left for the pool itself failing.
        tokio::task::spawn_blocking(move || {
            let result = budget::with_cancel(Arc::clone(&flag), || {
                api::guarded(&name, || api::dispatch(&live, &name, &body))
            });
            if flag.load(Ordering::Relaxed) {
                tracing::info!(
                    operation = name,
                    "operation cancelled: the client went away"
                );
            }
            drop(permit);
            result
        })
        .await
        .unwrap_or_else(|_| Err(internal(&format!("the operation {operation:?}"))))
        .map_or_else(|e| Reply::error(&e), |json| Reply::json(200, json))
    }

    fn host_ok(&self, request: &Request<Incoming>) -> bool {
        let host = header(request, HOST).unwrap_or_default();
        let Some((name, port)) = host.rsplit_once(':') else {
            return false;
        };
        port == self.port.to_string()
            && (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost"))
    }

    /// No `Origin` (a same-origin GET, a test, curl) or this server's own.
    fn origin_ok(&self, request: &Request<Incoming>) -> bool {
        let Some(origin) = header(request, ORIGIN) else {
            return request.headers().get(ORIGIN).is_none();
        };
        let own = [
            format!("http://127.0.0.1:{}", self.port),
            format!("http://localhost:{}", self.port),
        ];
        own.iter().any(|o| o.eq_ignore_ascii_case(origin))
    }

    fn token_ok(&self, request: &Request<Incoming>) -> bool {
        let from_header = header(request, AUTHORIZATION)
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim);
        let from_query = request
            .uri()
            .query()
            .unwrap_or_default()
            .split('&')
            .find_map(|kv| kv.strip_prefix("token="));
        [from_header, from_query]
            .into_iter()
            .flatten()
            .any(|given| same_bytes(given.as_bytes(), self.token.as_bytes()))
    }
}

fn internal(what: &str) -> ApiError {
    ApiError::new(
        ErrorCode::Internal,
        format!("{what} panicked inside the server; see the log"),
    )
}

/// `application/json`, with or without parameters (`; charset=utf-8`).
fn json_content_type(request: &Request<Incoming>) -> bool {
    header(request, CONTENT_TYPE)
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// Compares without stopping at the first differing byte, so timing does not leak the token.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The body as UTF-8 text within [`LIMITS`]; the refusal otherwise (`http_server::read_body`).
async fn read_body(request: Request<Incoming>) -> Result<String, Reply> {
    let bad = |message: String| Reply::error(&ApiError::new(ErrorCode::BadRequest, message));
    let bytes = http_server::read_body(request, &LIMITS)
        .await
        .map_err(|e| match e {
            BodyError::TooLarge { .. } => Reply::refused(HttpCode::TooLarge, e.to_string()),
            BodyError::TimedOut { .. } => Reply::refused(HttpCode::RequestTimeout, e.to_string()),
            BodyError::BadLength | BodyError::Broken(_) => bad(e.to_string()),
        })?;
    String::from_utf8(bytes.to_vec()).map_err(|_| bad("the request body is not UTF-8".to_owned()))
}

/// Starts the OTLP receiver on `addr` (none: turned off), its calls going to `received`; the line
/// serve prints about it. An address that cannot be bound (another collector on 4318) leaves
/// serve running without it: a warning, and the `live_calls` answer says why.
fn start_receiver(addr: Option<SocketAddr>, received: &Arc<otlp::CallStore>) -> String {
    let Some(addr) = addr else {
        received.set_receiver(otlp::ReceiverStatus {
            endpoint: None,
            error: Some("turned off (--otlp off)".to_owned()),
        });
        return "otlp off".to_owned();
    };
    let listener = match receiver::bind(addr) {
        Ok(l) => l,
        Err(e) => {
            let why = format!("cannot listen on {addr}: {e}");
            tracing::warn!("otlp receiver not started: {why}");
            received.set_receiver(otlp::ReceiverStatus {
                endpoint: None,
                error: Some(why.clone()),
            });
            return format!("otlp off: {why}");
        }
    };
    let bound = listener.local_addr().unwrap_or(addr);
    let endpoint = receiver::endpoint(bound);
    received.set_receiver(otlp::ReceiverStatus {
        endpoint: Some(endpoint.clone()),
        error: None,
    });
    let store = Arc::clone(received);
    let sink: receiver::Sink = Arc::new(move |calls| {
        store.push(calls);
        Ok(())
    });
    // Never told to stop: it ends with the process.
    let (_stop, shutdown) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        let _keep_sender = _stop;
        receiver::serve(listener, sink, shutdown).await;
    });
    tracing::info!(%endpoint, "otlp receiver listening");
    format!("otlp on {endpoint}")
}

/// 32 random bytes from the OS, as 64 hex digits.
fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
