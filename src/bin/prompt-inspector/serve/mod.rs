//! `prompt-inspector serve`: the app API (docs/api.md) over HTTP for the browser build of the UI
//! and its tests. Local only: bound to 127.0.0.1, a per-launch token on every API request, and a
//! Host check against DNS rebinding. Requests are handled one at a time; the core is fast enough
//! that a queue of one user's edits never builds up.

mod static_files;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use prompt_inspector::api::{self, ApiError, ErrorCode};
use serde::Serialize;
use tiny_http::{Header, Method, Request, Response, Server};

/// Request bodies above this are refused: a scene is large, but not this large.
const MAX_BODY: u64 = 64 * 1024 * 1024;

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

pub fn run(port: u16, ui: Option<PathBuf>) -> ExitCode {
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
    let server = match listener(port).and_then(|l| Server::from_listener(l, None)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot listen on 127.0.0.1:{port}: {e}");
            return ExitCode::from(1);
        }
    };
    let Some(port) = server.server_addr().to_ip().map(|a| a.port()) else {
        eprintln!("error: the server is not on an IP address");
        return ExitCode::from(1);
    };
    // The one line on stdout: the URL the browser (or a test) opens.
    let mut stdout = std::io::stdout().lock();
    if writeln!(stdout, "serving on http://127.0.0.1:{port}/?token={token}")
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return ExitCode::from(1);
    }
    drop(stdout);
    tracing::info!(port, ui = ?ui.as_deref().map(Path::display), "serving");
    let server_state = State {
        port,
        token,
        ui,
        live: api::Live::new(),
    };
    for request in server.incoming_requests() {
        server_state.handle(request);
    }
    ExitCode::SUCCESS
}

struct State {
    port: u16,
    token: String,
    ui: Option<PathBuf>,
    /// The pages' live documents (`live_open`, `live_edit`).
    live: api::Live,
}

/// What a request turns into before it is written: status, content type and body.
struct Reply {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
}

impl Reply {
    fn json(status: u16, body: String) -> Reply {
        Reply {
            status,
            content_type: "application/json; charset=utf-8",
            body: body.into_bytes(),
        }
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
    /// The body is larger than [`MAX_BODY`].
    TooLarge,
    /// Not `POST` on `/api/...`, not `GET`/`HEAD` elsewhere.
    MethodNotAllowed,
    /// No such static file.
    NotFound,
}

impl HttpCode {
    fn status(self) -> u16 {
        match self {
            HttpCode::Unauthorized => 401,
            HttpCode::ForbiddenHost => 403,
            HttpCode::NotFound => 404,
            HttpCode::MethodNotAllowed => 405,
            HttpCode::TooLarge => 413,
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
        ErrorCode::LoadError
        | ErrorCode::IoError
        | ErrorCode::TemplateError
        | ErrorCode::NoRun
        | ErrorCode::InvalidArgument
        | ErrorCode::BadRequest => 400,
    }
}

impl State {
    fn handle(&self, mut request: Request) {
        let started = Instant::now();
        let method = request.method().clone();
        let url = request.url().to_owned();
        let (path, query) = url.split_once('?').unwrap_or((url.as_str(), ""));
        let reply = self.route(&mut request, &method, path, query);
        // The query is left out of the log: it may hold the token.
        tracing::info!(
            method = %method,
            path,
            status = reply.status,
            bytes = reply.body.len(),
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "request"
        );
        let mut response = Response::from_data(reply.body).with_status_code(reply.status);
        let headers = [
            ("Content-Type", reply.content_type),
            ("Content-Security-Policy", CSP),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("Cache-Control", "no-store"),
        ];
        for (name, value) in headers {
            // Built from constants, so this cannot fail; a failure would only drop the header.
            if let Ok(h) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
                response.add_header(h);
            }
        }
        if let Err(e) = request.respond(response) {
            tracing::warn!(error = %e, "the client went away before the response was sent");
        }
    }

    fn route(&self, request: &mut Request, method: &Method, path: &str, query: &str) -> Reply {
        if !self.host_ok(request) {
            return Reply::refused(
                HttpCode::ForbiddenHost,
                format!(
                    "the Host header must be 127.0.0.1:{0} or localhost:{0}",
                    self.port
                ),
            );
        }
        let Some(operation) = path.strip_prefix("/api/") else {
            if !matches!(method, Method::Get | Method::Head) {
                return Reply::refused(
                    HttpCode::MethodNotAllowed,
                    "only GET and HEAD serve the UI",
                );
            }
            return static_files::serve(self.ui.as_deref(), path);
        };
        if !self.token_ok(request, query) {
            return Reply::refused(
                HttpCode::Unauthorized,
                "missing or wrong token: send `Authorization: Bearer <token>` or `?token=<token>` \
                 (the token is in the URL serve printed)",
            );
        }
        if *method != Method::Post {
            return Reply::refused(
                HttpCode::MethodNotAllowed,
                "API operations take POST with a JSON body",
            );
        }
        let body = match read_body(request) {
            Ok(b) => b,
            Err(reply) => return reply,
        };
        // The core does not panic on any input it is tested with; should it ever, the server
        // answers 500 and goes on serving instead of taking the UI down with it.
        let result = std::panic::catch_unwind(|| api::dispatch(&self.live, operation, &body))
            .unwrap_or_else(|_| {
                Err(ApiError::new(
                    ErrorCode::Internal,
                    format!("the operation {operation:?} panicked; see the log"),
                ))
            });
        match result {
            Ok(json) => Reply::json(200, json),
            Err(e) => Reply::error(&e),
        }
    }

    fn host_ok(&self, request: &Request) -> bool {
        let host = header(request, "Host").unwrap_or_default();
        let Some((name, port)) = host.rsplit_once(':') else {
            return false;
        };
        port == self.port.to_string()
            && (name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost"))
    }

    fn token_ok(&self, request: &Request, query: &str) -> bool {
        let from_header = header(request, "Authorization")
            .and_then(|v| v.strip_prefix("Bearer ").map(|t| t.trim().to_owned()));
        let from_query = query
            .split('&')
            .find_map(|kv| kv.strip_prefix("token="))
            .map(str::to_owned);
        [from_header, from_query]
            .into_iter()
            .flatten()
            .any(|given| same_bytes(given.as_bytes(), self.token.as_bytes()))
    }
}

fn header(request: &Request, name: &'static str) -> Option<String> {
    request
        .headers()
        .iter()
        .find(|h| h.field.equiv(name))
        .map(|h| h.value.as_str().to_owned())
}

/// Compares without stopping at the first differing byte, so timing does not leak the token.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The body as UTF-8 text, at most [`MAX_BODY`] bytes; the refusal otherwise.
fn read_body(request: &mut Request) -> Result<String, Reply> {
    let too_large = || {
        Reply::refused(
            HttpCode::TooLarge,
            format!("the request body is larger than {MAX_BODY} bytes"),
        )
    };
    let bad = |message: String| Reply::error(&ApiError::new(ErrorCode::BadRequest, message));
    if request.body_length().is_some_and(|n| n as u64 > MAX_BODY) {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    request
        .as_reader()
        .take(MAX_BODY + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| bad(format!("reading the body: {e}")))?;
    if bytes.len() as u64 > MAX_BODY {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|_| bad("the request body is not UTF-8".to_owned()))
}

/// 32 random bytes from the OS, as 64 hex digits.
fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A listener on 127.0.0.1 with `TCP_NODELAY`, which Linux passes on to every accepted socket.
/// tiny_http writes a response's head and body separately; with Nagle's algorithm the body waited
/// for the client's delayed ACK, adding ~40 ms to every request from a browser or `fetch`.
fn listener(
    port: u16,
) -> Result<std::net::TcpListener, Box<dyn std::error::Error + Send + Sync + 'static>> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    socket.set_tcp_nodelay(true)?;
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    socket.bind(&addr.into())?;
    socket.listen(128)?;
    Ok(socket.into())
}
