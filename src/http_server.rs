//! The HTTP/1.1 connection handling `serve` and the OTLP receiver share (feature `http-server`):
//! a loopback port any local process can reach, so nothing a client sends may crash, freeze or
//! bloat the process. Each connection is a task of its own (a slow or silent client holds only
//! itself), at most [`Limits::max_connections`] at once; the request line and headers are capped
//! in size and in time; a connection is asked to close after its lifetime; and [`read_body`]
//! takes a body through a limit, declared or chunked, within a timeout. What a request means is
//! the caller's handler; this module only keeps each one within its [`Limits`] (docs/security.md).

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderName, CONTENT_LENGTH};
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};

/// A response with its whole body in memory (the answers here are small, or already built).
pub type Answer = Response<Full<Bytes>>;

/// What one server allows a client.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Names the server in its log lines (`serve`, `otlp`).
    pub name: &'static str,
    /// The request line and headers together; more is refused with 431 (hyper's read buffer,
    /// which also bounds what one read of a body chunk holds).
    pub max_head_bytes: usize,
    /// The request line and headers must arrive within this; a connection that sends none is
    /// closed.
    pub head_timeout: Duration,
    /// A body larger than this, declared or not, is refused ([`BodyError::TooLarge`]).
    pub max_body_bytes: u64,
    /// The whole body must arrive within this once the head is in.
    pub body_timeout: Duration,
    /// A connection is asked to close after this (after the request in flight, if any), and
    /// dropped [`Limits::close_grace`] later whatever it is doing: a client that stops reading a
    /// response cannot hold its task and buffers for ever.
    pub connection_lifetime: Duration,
    pub close_grace: Duration,
    /// Connections open at once; more are closed as soon as they are accepted.
    pub max_connections: usize,
}

/// Headers at most per request.
const MAX_HEADERS: usize = 100;

/// A listener on `addr`, reusable at once after a restart.
pub fn bind(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(1024)
}

/// Serves `listener` with `handle` until `shutdown` turns true, then lets each connection finish
/// its request (within [`Limits::close_grace`]) and returns. A server that never stops keeps the
/// sender alive and never sends.
pub async fn serve<H, F>(
    listener: TcpListener,
    limits: Limits,
    handle: H,
    mut shutdown: watch::Receiver<bool>,
) where
    H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Answer> + Send + 'static,
{
    let name = limits.name;
    let connections = Arc::new(Semaphore::new(limits.max_connections));
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = shutdown.wait_for(|stop| *stop) => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors, most likely: wait for connections to end, go on.
                tracing::warn!("{name}: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&connections).try_acquire_owned() else {
            tracing::warn!(
                "{name}: {} connections open: closing a new one",
                limits.max_connections
            );
            drop(stream);
            continue;
        };
        // Requests and answers are small writes; Nagle's algorithm would hold the body back for
        // the client's delayed ACK (~40 ms per request).
        let _ = stream.set_nodelay(true);
        let handle = handle.clone();
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            connection(stream, limits, handle, shutdown).await;
            drop(permit);
        });
    }
    drop(listener);
    // Every connection returns its permit when it has ended.
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(limits.close_grace, connections.acquire_many(all)).await;
}

/// One connection, HTTP/1.1 with keep-alive, within `limits`.
async fn connection<H, F>(
    stream: TcpStream,
    limits: Limits,
    handle: H,
    mut shutdown: watch::Receiver<bool>,
) where
    H: Fn(Request<Incoming>) -> F + Send + Sync + 'static,
    F: Future<Output = Answer> + Send + 'static,
{
    let service = hyper::service::service_fn(move |request| {
        let answer = handle(request);
        async move { Ok::<_, Infallible>(answer.await) }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.head_timeout)
        .max_buf_size(limits.max_head_bytes)
        .max_headers(MAX_HEADERS)
        .serve_connection(TokioIo::new(stream), service)
        // A handler may take the connection over (serve's WebSocket): this connection's limits
        // end there, and the handler's own begin.
        .with_upgrades();
    let mut conn = std::pin::pin!(conn);
    let ended = tokio::select! {
        ended = tokio::time::timeout(limits.connection_lifetime, conn.as_mut()) => ended.is_ok(),
        _ = shutdown.wait_for(|stop| *stop) => false,
    };
    if !ended {
        conn.as_mut().graceful_shutdown();
        let _ = tokio::time::timeout(limits.close_grace, conn).await;
    }
}

/// Why a body was not taken; each caller answers it in its own error shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BodyError {
    /// Larger than the limit, as declared or as it arrived (413).
    TooLarge { limit: u64 },
    /// A `Content-Length` that is not a number (400).
    BadLength,
    /// Not all in within the body timeout (408).
    TimedOut { after: Duration },
    /// The connection failed while the body arrived (400).
    Broken(String),
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyError::TooLarge { limit } => {
                write!(f, "the request body is larger than {limit} bytes")
            }
            BodyError::BadLength => f.write_str("the Content-Length is not a number"),
            BodyError::TimedOut { after } => write!(
                f,
                "the request body did not arrive within {} s",
                after.as_secs()
            ),
            BodyError::Broken(why) => write!(f, "reading the body: {why}"),
        }
    }
}

/// The body, at most [`Limits::max_body_bytes`], within [`Limits::body_timeout`]. A declared
/// length over the limit is refused before anything is read, and the body is collected through
/// the limit, so a lying or chunked body stops there too.
pub async fn read_body(request: Request<Incoming>, limits: &Limits) -> Result<Bytes, BodyError> {
    let too_large = BodyError::TooLarge {
        limit: limits.max_body_bytes,
    };
    match header(&request, CONTENT_LENGTH).map(|v| v.trim().parse::<u64>()) {
        Some(Ok(n)) if n > limits.max_body_bytes => return Err(too_large),
        Some(Err(_)) => return Err(BodyError::BadLength),
        _ => {}
    }
    let limit = usize::try_from(limits.max_body_bytes).unwrap_or(usize::MAX);
    let collected = tokio::time::timeout(
        limits.body_timeout,
        Limited::new(request.into_body(), limit).collect(),
    )
    .await;
    match collected {
        Err(_) => Err(BodyError::TimedOut {
            after: limits.body_timeout,
        }),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(too_large),
        Ok(Err(e)) => Err(BodyError::Broken(e.to_string())),
        Ok(Ok(body)) => Ok(body.to_bytes()),
    }
}

/// A header's value as text; `None` when absent or not visible ASCII.
pub fn header<B>(request: &Request<B>, name: HeaderName) -> Option<&str> {
    request.headers().get(name).and_then(|v| v.to_str().ok())
}
