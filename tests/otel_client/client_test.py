"""A real instrumented client, end to end (docs/cli.md, "`prompt-inspector collect`").

The `openai` client, instrumented by `opentelemetry-instrumentation-openai-v2`, talks to a small
local stand-in for the OpenAI API; the OpenTelemetry SDK exports its spans over OTLP/HTTP, once with
the SDK's protobuf exporter and once as proto3 JSON, to `prompt-inspector collect` and to
`prompt-inspector serve` at the same time. Each call must land, within a second of the export, as a
scene whose messages are the ones the stand-in received and whose usage is the one it answered: in
collect's folder (and its `calls.jsonl`, read back by `verify`) and in serve's `live_calls`.

Run by scripts/otel-client-test, which installs the pinned client (requirements.txt) and passes
the command line to test as PROMPT_INSPECTOR.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# The instrumentation reads these when it is imported: the latest GenAI conventions, with the
# messages recorded on the span as `gen_ai.input.messages` / `gen_ai.output.messages` (the
# attributes the receiver reads), not only as log events.
os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "span_only"

import openai  # noqa: E402
from google.protobuf.json_format import MessageToJson  # noqa: E402
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans  # noqa: E402
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: E402
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor  # noqa: E402
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import (  # noqa: E402
    BatchSpanProcessor,
    SpanExporter,
    SpanExportResult,
)

BINARY = os.environ.get("PROMPT_INSPECTOR", "target/debug/prompt-inspector")
# How long an export may take to show up, as the "done when" says.
WITHIN_SECONDS = 1.0

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather now in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


# ---------------------------------------------------------------------------------------------
# The stand-in for the OpenAI API


@dataclass
class Answer:
    """What the stand-in answered to one request: the assistant message and its usage."""

    message: dict
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int


@dataclass
class StandIn:
    """Records each chat-completions body it receives and what it answered."""

    received: list[dict] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, body: dict) -> Answer:
        with self.lock:
            n = len(self.received)
            self.received.append(body)
            last = body["messages"][-1]
            if last["role"] == "tool":
                # The follow-up carrying the tool's result gets the final text.
                message = {
                    "role": "assistant",
                    "content": f"It is {last['content']} there (answer {n + 1}).",
                }
                finish = "stop"
            else:
                city = last["content"].split()[-1].rstrip("?")
                message = {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"call_{n + 1}",
                            "type": "function",
                            "function": {
                                "name": "get_weather",
                                "arguments": json.dumps({"city": city}),
                            },
                        }
                    ],
                }
                finish = "tool_calls"
            # Distinct figures per call, so a call's usage cannot be taken for another's.
            answer = Answer(message, finish, 100 + 37 * n, 11 + 3 * n, 64 * n)
            self.answers.append(answer)
            return answer


def start_stand_in() -> tuple[ThreadingHTTPServer, StandIn]:
    stand_in = StandIn()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            if self.path != "/v1/chat/completions":
                self.send_error(404)
                return
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            a = stand_in.answer(body)
            reply = json.dumps(
                {
                    "id": f"chatcmpl-{len(stand_in.answers)}",
                    "object": "chat.completion",
                    "created": 1764720000,
                    "model": body["model"] + "-2024-07-18",
                    "choices": [{"index": 0, "message": a.message, "finish_reason": a.finish_reason}],
                    "usage": {
                        "prompt_tokens": a.prompt_tokens,
                        "completion_tokens": a.completion_tokens,
                        "total_tokens": a.prompt_tokens + a.completion_tokens,
                        "prompt_tokens_details": {"cached_tokens": a.cached_tokens},
                    },
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, stand_in


# ---------------------------------------------------------------------------------------------
# The inspector's two receivers


def read_lines(stream, into: queue.Queue) -> None:
    for line in stream:
        into.put(line.rstrip("\n"))


def wait_for_line(lines: queue.Queue, prefix: str, what: str) -> str:
    deadline = time.monotonic() + 30
    seen = []
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=deadline - time.monotonic())
        except queue.Empty:
            break
        seen.append(line)
        if line.startswith(prefix):
            return line
    raise AssertionError(f"{what}: no line starting {prefix!r} in {seen}")


def start(args: list[str]) -> tuple[subprocess.Popen, queue.Queue, queue.Queue]:
    child = subprocess.Popen(
        [BINARY, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out: queue.Queue = queue.Queue()
    err: queue.Queue = queue.Queue()
    threading.Thread(target=read_lines, args=(child.stdout, out), daemon=True).start()
    threading.Thread(target=read_lines, args=(child.stderr, err), daemon=True).start()
    return child, out, err


def endpoint_of(line: str, prefix: str) -> str:
    """`http://127.0.0.1:PORT/v1/traces` from a line `prefix<that> ...`."""
    url = line[len(prefix) :].split()[0]
    assert url.startswith("http://127.0.0.1:") and url.endswith("/v1/traces"), line
    return url


# ---------------------------------------------------------------------------------------------
# Exporters


class JsonSpanExporter(SpanExporter):
    """OTLP/HTTP with proto3 JSON, which the Python SDK does not ship: the spans encoded by the
    SDK's own encoder, posted as `MessageToJson` writes them (ids in base64, enums as integers)."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.replies: list[dict] = []

    def export(self, spans) -> SpanExportResult:
        body = MessageToJson(encode_spans(spans), use_integers_for_enums=True).encode()
        request = urllib.request.Request(
            self.endpoint,
            data=body,
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            assert reply.status == 200, reply.status
            assert reply.headers["Content-Type"].startswith("application/json")
            self.replies.append(json.loads(reply.read() or b"{}"))
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


class Switch(SpanExporter):
    """Sends each batch through the exporter of the encoding in use, and keeps what it sent and
    how each export went."""

    def __init__(self, by_encoding: dict[str, SpanExporter]) -> None:
        self.by_encoding = by_encoding
        self.encoding = next(iter(by_encoding))
        self.results: list[tuple[str, SpanExportResult]] = []
        self.sent: list[ReadableSpan] = []

    def export(self, spans) -> SpanExportResult:
        self.sent.extend(spans)
        result = self.by_encoding[self.encoding].export(spans)
        self.results.append((self.encoding, result))
        return result

    def shutdown(self) -> None:
        for exporter in self.by_encoding.values():
            exporter.shutdown()


# ---------------------------------------------------------------------------------------------
# What a received call must hold


def render_request(scene_text: str, where: str) -> dict:
    """The request the scene records, rebuilt by `render` (docs/cli.md): what the inspector shows."""
    with tempfile.NamedTemporaryFile("w", suffix=".scene.json", delete=False) as f:
        f.write(scene_text)
    try:
        done = subprocess.run(
            [BINARY, "render", f.name, "--format", "json", "--no-tokens"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        os.unlink(f.name)
    assert done.returncode == 0, f"{where}: render: {done.stderr}"
    report = json.loads(done.stdout)
    assert "request" in report, f"{where}: render's report has no request: {report.keys()}"
    return report["request"]


def as_sent(message: dict) -> dict:
    """A chat message reduced to what the conversation is: role, text, tool calls (name and
    parsed arguments), the tool result's call id."""
    out = {"role": message["role"], "content": message.get("content") or ""}
    if isinstance(out["content"], list):
        out["content"] = "".join(p.get("text", "") for p in out["content"])
    if message.get("tool_calls"):
        out["tool_calls"] = [
            (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
            for c in message["tool_calls"]
        ]
    if message.get("tool_call_id"):
        out["tool_call_id"] = message["tool_call_id"]
    return out


def check_call(
    scene_text: str, sent: dict, answer: Answer, usage: dict, span: ReadableSpan, where: str
) -> None:
    """A received call against what the stand-in received and answered. Where the instrumentation
    leaves something out of the span (see `left_out`), the call must not make it up either."""
    request = render_request(scene_text, where)
    got = [as_sent(m) for m in request["messages"]]
    want = [as_sent(m) for m in sent["messages"]]
    assert got == want, f"{where}: messages\n got  {got}\n want {want}"
    assert request["model"] == sent["model"], f"{where}: model {request['model']!r}"
    assert usage["input_total"] == answer.prompt_tokens, f"{where}: usage {usage}"
    assert usage["output"] == answer.completion_tokens, f"{where}: usage {usage}"
    attributes = span.attributes or {}
    cache_read = answer.cached_tokens if "gen_ai.usage.cache_read.input_tokens" in attributes else 0
    assert usage["cache_read"] == cache_read, f"{where}: usage {usage}"
    tools = [t["function"]["name"] for t in request.get("tools", [])]
    if "gen_ai.tool.definitions" in attributes:
        assert tools == [t["function"]["name"] for t in sent["tools"]], f"{where}: tools {tools}"
    else:
        assert tools == [], f"{where}: tools the span does not record: {tools}"


def left_out(span: ReadableSpan) -> list[str]:
    """What the stand-in received or answered that the instrumentation did not record on the span
    (opentelemetry-instrumentation-openai-v2 2.4b0's chat path records neither)."""
    attributes = span.attributes or {}
    missing = {
        "gen_ai.tool.definitions": "the tool definitions",
        "gen_ai.usage.cache_read.input_tokens": "the cached tokens",
    }
    return [what for key, what in missing.items() if key not in attributes]


# ---------------------------------------------------------------------------------------------


def api(port: str, token: str, op: str, body: dict) -> dict:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/{op}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


def wait_until(what: str, since: float, ready) -> float:
    """Polls `ready()` until it is true; the seconds since `since` it took. Fails past
    WITHIN_SECONDS."""
    while True:
        value = ready()
        elapsed = time.monotonic() - since
        if value:
            return elapsed
        if elapsed > WITHIN_SECONDS:
            raise AssertionError(f"{what}: not there {elapsed:.2f} s after the export")
        time.sleep(0.01)


def conversation(client: openai.OpenAI, tracer, city: str) -> str:
    """An agent's turn: the question with the tools, then the tool's result. Both calls under one
    parent span, so they share a trace (collect's conversation folder). Returns the trace id."""
    with tracer.start_as_current_span(f"trip agent {city}") as parent:
        messages = [
            {"role": "system", "content": "You plan trips. Use the tools for live data."},
            {"role": "user", "content": f"What is the weather in {city}?"},
        ]
        first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
        call = first.choices[0].message.tool_calls[0]
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {
                            "name": call.function.name,
                            "arguments": call.function.arguments,
                        },
                    }
                ],
            }
        )
        messages.append(
            {"role": "tool", "tool_call_id": call.id, "content": f"18 °C and light rain in {city}"}
        )
        client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
        return format(parent.get_span_context().trace_id, "032x")


@dataclass
class Rig:
    """The client, its exporters and the two receivers it exports to."""

    stand_in: StandIn
    client: openai.OpenAI
    tracer: object
    provider: TracerProvider
    to_collect: Switch
    to_serve: Switch
    out_dir: Path
    collect_out: queue.Queue
    api_port: str
    token: str


def collect_scenes(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.scene.json")) if folder.is_dir() else []


def round_trip(rig: Rig, encoding: str, city: str, live_seen: int) -> int:
    """One conversation exported in `encoding`, checked in collect's folder and in serve's
    `live_calls` (the calls after `live_seen`); the `next` to ask serve after."""
    rig.to_collect.encoding = rig.to_serve.encoding = encoding
    first_call = len(rig.stand_in.received)
    trace_id = conversation(rig.client, rig.tracer, city)
    calls = range(first_call, len(rig.stand_in.received))
    assert len(calls) == 2, f"the stand-in got {len(calls)} requests"

    exported_at = time.monotonic()
    assert rig.provider.force_flush(10_000), "force_flush timed out"
    for switch in (rig.to_collect, rig.to_serve):
        assert switch.results[-1] == (encoding, SpanExportResult.SUCCESS), switch.results
    # The chat spans the SDK exported, in call order (the parent span is not a call).
    chat_spans = sorted(
        (s for s in rig.to_collect.sent if s.name.startswith("chat ")),
        key=lambda s: s.start_time,
    )[-2:]

    folder = rig.out_dir / trace_id
    lines = folder / "calls.jsonl"

    def collect_has_both() -> bool:
        return (
            len(collect_scenes(folder)) == 2 and lines.is_file() and len(lines.read_text().splitlines()) == 2
        )

    live: dict = {}

    def live_has_both() -> bool:
        nonlocal live
        live = api(rig.api_port, rig.token, "live_calls", {"after": live_seen})
        return len(live["calls"]) == 2

    t_collect = wait_until(f"{encoding}: collect's {folder}", exported_at, collect_has_both)
    t_serve = wait_until(f"{encoding}: serve's live_calls", exported_at, live_has_both)
    for span in chat_spans:
        if left_out(span):
            print(f"{encoding}: {span.name}: not on the span: {', '.join(left_out(span))}")
    print(
        f"{encoding}: 2 calls in collect's folder after {t_collect * 1000:.0f} ms, "
        f"in serve's live_calls after {t_serve * 1000:.0f} ms"
    )

    # collect: one scene per call, numbered in call order, each what was sent and answered, and
    # a line per call on stdout.
    scenes = collect_scenes(folder)
    assert [p.name[:5] for p in scenes] == ["0001-", "0002-"], scenes
    for path, n, span in zip(scenes, calls, chat_spans, strict=True):
        where = f"{encoding}: {path.name}"
        usage = json.loads(path.read_text())["recorded"]["usage"]
        sent, answer = rig.stand_in.received[n], rig.stand_in.answers[n]
        check_call(path.read_text(), sent, answer, usage, span, where)
        line = rig.collect_out.get(timeout=5)
        assert line.startswith(f"{trace_id}/{path.name}"), line
        assert f"input {answer.prompt_tokens} " in line, line
        assert line.endswith(f"output {answer.completion_tokens}"), line
    # serve: the same calls, by the spans the SDK exported.
    assert [c["span_id"] for c in live["calls"]] == [
        format(s.get_span_context().span_id, "016x") for s in chat_spans
    ], live["calls"]
    for call, n, span in zip(live["calls"], calls, chat_spans, strict=True):
        where = f"{encoding}: live call {call['seq']}"
        assert call["trace_id"] == trace_id, f"{where}: {call['trace_id']}"
        assert call["conversation"] == trace_id, f"{where}: {call['conversation']}"
        assert call["provider"] == "openai", f"{where}: {call['provider']}"
        sent, answer = rig.stand_in.received[n], rig.stand_in.answers[n]
        check_call(call["scene"], sent, answer, call["usage"], span, where)
    assert live["dropped"] == 0, live["dropped"]

    # The JSON-lines file is what verify reads: the two calls, billed as answered; cache reads
    # the conversation's scenes in order.
    verified = subprocess.run(
        [BINARY, "verify", str(lines), "--format", "json"], capture_output=True, text=True, timeout=60
    )
    assert verified.returncode == 0, verified.stderr
    report = json.loads(verified.stdout)
    billed = [c["input"]["billed"] for conv in report["conversations"] for c in conv["calls"]]
    assert billed == [rig.stand_in.answers[n].prompt_tokens for n in calls], billed
    cached = subprocess.run([BINARY, "cache", *map(str, scenes)], capture_output=True, text=True, timeout=60)
    assert cached.returncode == 0, cached.stderr
    return live["next"]


def main() -> int:
    started = time.monotonic()
    server, stand_in = start_stand_in()
    out_dir = Path(tempfile.mkdtemp(prefix="otel-client-collect-"))
    collect, collect_out, collect_err = start(["collect", "--out", str(out_dir), "--otlp", "127.0.0.1:0"])
    serve, serve_out, _ = start(["serve", "--port", "0", "--otlp", "127.0.0.1:0"])
    try:
        collect_url = endpoint_of(wait_for_line(collect_err, "collecting on ", "collect"), "collecting on ")
        url_line = wait_for_line(serve_out, "serving on ", "serve")
        api_port, token = url_line.removeprefix("serving on http://127.0.0.1:").split("/?token=")
        serve_url = endpoint_of(wait_for_line(serve_out, "otlp on ", "serve"), "otlp on ")

        to_collect = Switch(
            {"protobuf": OTLPSpanExporter(endpoint=collect_url), "json": JsonSpanExporter(collect_url)}
        )
        to_serve = Switch(
            {"protobuf": OTLPSpanExporter(endpoint=serve_url), "json": JsonSpanExporter(serve_url)}
        )
        provider = TracerProvider()
        # Nothing leaves before force_flush: the time to land is counted from the export.
        for exporter in (to_collect, to_serve):
            provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=600_000))
        OpenAIInstrumentor().instrument(tracer_provider=provider)
        client = openai.OpenAI(
            base_url=f"http://127.0.0.1:{server.server_address[1]}/v1",
            api_key="not-a-key",
            max_retries=0,
        )
        rig = Rig(
            stand_in,
            client,
            provider.get_tracer("otel-client-test"),
            provider,
            to_collect,
            to_serve,
            out_dir,
            collect_out,
            api_port,
            token,
        )
        live_seen = round_trip(rig, "protobuf", "Lisbon", 0)
        round_trip(rig, "json", "Tokyo", live_seen)

        # Stopped, collect exits 0 with every call on disk.
        collect.terminate()
        assert collect.wait(timeout=30) == 0, "collect's exit status"
        written = sorted(p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*.scene.json"))
        assert len(written) == len(stand_in.received), written
        print(f"otel client test passed in {time.monotonic() - started:.1f} s")
        return 0
    finally:
        for child in (collect, serve):
            if child.poll() is None:
                child.kill()
                child.wait()
        server.shutdown()
        shutil.rmtree(out_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
