//! Measures an OTLP receiver (`serve --otlp` or `collect`): posts one OTLP/HTTP protobuf export of
//! GenAI chat spans again and again and prints the spans per second it took in. docs/performance.md
//! ("OTLP receiver") gives the commands and the figures.
//!
//! `cargo run --release --example otlp_throughput -- ADDR [SPANS_PER_EXPORT] [EXPORTS] [CONTEXT_BYTES]`
//!
//! ADDR is the receiver's `127.0.0.1:PORT`; each span carries a system text, a user turn of
//! CONTEXT_BYTES (default 4,000) and usage, as opentelemetry-instrumentation-openai-v2 records a
//! call. Every export must be answered 200 with no span rejected.
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::json;

#[path = "support/otlp_export.rs"]
mod otlp_export;
use otlp_export::{int, kv, text};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(addr) = args.first() else {
        eprintln!("usage: otlp_throughput ADDR [SPANS_PER_EXPORT] [EXPORTS] [CONTEXT_BYTES]");
        return ExitCode::from(2);
    };
    let number = |i: usize, default: usize| -> Result<usize, String> {
        args.get(i).map_or(Ok(default), |a| {
            a.parse()
                .map_err(|e| format!("argument {}: {a:?}: {e}", i + 1))
        })
    };
    let (per_export, exports, context) = match (number(1, 100), number(2, 100), number(3, 4000)) {
        (Ok(p), Ok(e), Ok(c)) => (p, e, c),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let body = export(per_export, context).encode_to_vec();
    println!(
        "{exports} exports of {per_export} spans ({} bytes each, protobuf) to {addr}",
        body.len()
    );
    let started = Instant::now();
    let mut slowest = Duration::ZERO;
    for i in 0..exports {
        let sent = Instant::now();
        if let Err(e) = post(addr, &body) {
            eprintln!("error: export {}: {e}", i + 1);
            return ExitCode::from(1);
        }
        slowest = slowest.max(sent.elapsed());
    }
    let elapsed = started.elapsed().as_secs_f64();
    let spans = (per_export * exports) as f64;
    println!(
        "{spans} spans in {elapsed:.2} s: {:.0} spans/s, {:.1} MB/s of protobuf; slowest export {:.0} ms",
        spans / elapsed,
        (body.len() * exports) as f64 / elapsed / 1e6,
        slowest.as_secs_f64() * 1000.0
    );
    ExitCode::SUCCESS
}

/// One export: `count` chat spans of one trace, each a call of its own conversation turn.
fn export(count: usize, context: usize) -> ExportTraceServiceRequest {
    let turn: String = "The itinerary so far, with every booking and its price. "
        .chars()
        .cycle()
        .take(context)
        .collect();
    let spans = (0..count)
        .map(|i| {
            let mut span_id = [0u8; 8];
            span_id[..4].copy_from_slice(&(i as u32 + 1).to_be_bytes());
            Span {
                trace_id: vec![0x5a; 16],
                span_id: span_id.to_vec(),
                name: "chat gpt-4o-mini".to_owned(),
                kind: 3,
                start_time_unix_nano: 1_764_720_000_000_000_000 + i as u64 * 1_000_000_000,
                end_time_unix_nano: 1_764_720_000_500_000_000 + i as u64 * 1_000_000_000,
                attributes: vec![
                    kv("gen_ai.operation.name", text("chat")),
                    kv("gen_ai.provider.name", text("openai")),
                    kv("gen_ai.request.model", text("gpt-4o-mini")),
                    kv("gen_ai.response.model", text("gpt-4o-mini-2024-07-18")),
                    kv(
                        "gen_ai.input.messages",
                        text(
                            &json!([
                                {"role": "system", "parts": [{"type": "text",
                                    "content": "You plan trips. Use the tools for live data."}]},
                                {"role": "user", "parts": [{"type": "text", "content": turn}]},
                                {"role": "user", "parts": [{"type": "text",
                                    "content": format!("Question {i}: and the weather?")}]}
                            ])
                            .to_string(),
                        ),
                    ),
                    kv(
                        "gen_ai.output.messages",
                        text(
                            &json!([{"role": "assistant", "parts": [{"type": "text",
                                "content": "Sunny, 24 °C."}], "finish_reason": "stop"}])
                            .to_string(),
                        ),
                    ),
                    kv("gen_ai.usage.input_tokens", int(1200 + i as i64)),
                    kv("gen_ai.usage.output_tokens", int(12)),
                ],
                ..Span::default()
            }
        })
        .collect();
    otlp_export::export("trip-agent", spans)
}

/// `POST /v1/traces`, one connection per export; an error unless 200 with nothing rejected.
fn post(addr: &str, body: &[u8]) -> Result<(), String> {
    let mut s = TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(60)))
        .map_err(|e| e.to_string())?;
    write!(
        s,
        "POST /v1/traces HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-protobuf\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .and_then(|()| s.write_all(body))
    .map_err(|e| format!("send: {e}"))?;
    let mut reader = BufReader::new(s);
    let mut status = String::new();
    reader
        .read_line(&mut status)
        .map_err(|e| format!("status line: {e}"))?;
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        reader
            .read_line(&mut line)
            .map_err(|e| format!("header: {e}"))?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().map_err(|e| format!("{line}: {e}"))?;
            }
        }
    }
    let mut reply = vec![0; length];
    reader
        .read_exact(&mut reply)
        .map_err(|e| format!("body: {e}"))?;
    if !status.starts_with("HTTP/1.1 200") {
        return Err(format!(
            "{}: {}",
            status.trim_end(),
            String::from_utf8_lossy(&reply)
        ));
    }
    let answer = ExportTraceServiceResponse::decode(reply.as_slice())
        .map_err(|e| format!("the answer: {e}"))?;
    match answer.partial_success {
        Some(p) if p.rejected_spans > 0 => Err(format!(
            "{} span(s) rejected: {}",
            p.rejected_spans, p.error_message
        )),
        _ => Ok(()),
    }
}
