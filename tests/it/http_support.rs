//! What the tests of `serve` and the OTLP receiver share: a `serve` started on port 0 in a child
//! process, and raw HTTP/1.1 requests over plain `TcpStream`s (so a test can send what no client
//! library would).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `serve`, killed (by its own process id) when the test ends.
pub struct Served {
    pub child: Child,
    /// The API's port and token, from `serving on http://127.0.0.1:PORT/?token=TOKEN`.
    pub port: u16,
    pub token: String,
    /// The receiver's line: `otlp on http://...`, `otlp off` or `otlp off: why`.
    pub otlp_line: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Served {
    /// The OTLP receiver's port, from its `otlp on http://127.0.0.1:PORT/v1/traces` line.
    pub fn otlp_port(&self) -> u16 {
        self.otlp_line
            .strip_prefix("otlp on http://127.0.0.1:")
            .and_then(|r| r.strip_suffix("/v1/traces"))
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("not a receiver's address: {:?}", self.otlp_line))
    }
}

/// `serve --port 0` with `args`, its stderr sent to `stderr`, once it has printed its two lines.
/// Without `--otlp` in `args` the receiver is off: never the default 4318, as tests run in
/// parallel beside whatever else listens there.
pub fn spawn_serve(args: &[&str], stderr: Stdio) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_prompt-inspector"))
        .args(["serve", "--port", "0"])
        .args(if args.contains(&"--otlp") {
            &[][..]
        } else {
            &["--otlp", "off"][..]
        })
        .args(args)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("start serve");
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    let mut lines = Vec::new();
    for _ in 0..2 {
        let mut line = String::new();
        reader.read_line(&mut line).expect("a line");
        lines.push(line.trim().to_owned());
    }
    let (port, token) = lines[0]
        .strip_prefix("serving on http://127.0.0.1:")
        .and_then(|url| url.split_once("/?token="))
        .unwrap_or_else(|| panic!("unexpected first line {:?}", lines[0]));
    Served {
        port: port.parse().expect("port"),
        token: token.to_owned(),
        otlp_line: lines[1].clone(),
        child,
    }
}

/// An answer read to the end: its status, its head and its body (as sent, and as text).
pub struct Reply {
    pub status: u16,
    pub head: String,
    pub bytes: Vec<u8>,
    /// The body as UTF-8, lossily.
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.bytes)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", self.head, self.body))
    }
}

/// One HTTP/1.1 request with `Connection: close` and a `Content-Length`, `headers` after them (a
/// `Host` of theirs instead of this server's); the reply is read to the end. The server may answer
/// (and close) before the whole body is in: a refusal is what is read.
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).expect("send head");
    let _ = s.write_all(body);
    read_reply(&mut s)
}

/// What the server sent on `s` until it closed the connection.
pub fn read_reply(s: &mut TcpStream) -> Reply {
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no reply head in {:?}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("status line of {head}"));
    let bytes = raw[split + 4..].to_vec();
    Reply {
        status,
        head,
        body: String::from_utf8_lossy(&bytes).into_owned(),
        bytes,
    }
}
