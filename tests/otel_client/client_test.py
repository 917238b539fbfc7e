"""A real instrumented client, end to end (docs/cli.md, "`prompt-inspector collect`").

The `openai` client, instrumented by `opentelemetry-instrumentation-openai-v2`, talks to a small
local stand-in for the OpenAI API; the OpenTelemetry SDK exports its spans over OTLP/HTTP, once with
the SDK's protobuf exporter and once as proto3 JSON, to `prompt-inspector collect` and to
`prompt-inspector serve` at the same time. Each call must land, within a second of the export, as a
scene whose messages are the ones the stand-in received and whose usage is the one it answered: in
collect's folder (and its `calls.jsonl`, read back by `verify`) and in serve's `live_calls`.

The client, the stand-in and the exporters are agent.py's (send.py, the journeys' sender, runs the
same). Run by scripts/otel-client-test, which installs the pinned client (requirements.txt, through
scripts/otel-client-venv) and passes the command line to test as PROMPT_INSPECTOR.
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
from dataclasses import dataclass
from pathlib import Path

import openai
from agent import (
    Answer,
    StandIn,
    Switch,
    chat_spans,
    conversation,
    exporters_to,
    instrumented_client,
    left_out,
    start_stand_in,
)
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SpanExportResult

BINARY = os.environ.get("PROMPT_INSPECTOR", "target/debug/prompt-inspector")
# How long an export may take to show up, as the "done when" says.
WITHIN_SECONDS = 1.0


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
        last = switch.exports[-1]
        assert (last.encoding, last.result) == (encoding, SpanExportResult.SUCCESS), switch.exports
    # The chat spans the SDK exported, in call order (the parent span is not a call).
    spans = chat_spans(rig.to_collect.sent)[-2:]

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
    for span in spans:
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
    for path, n, span in zip(scenes, calls, spans, strict=True):
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
        format(s.get_span_context().span_id, "016x") for s in spans
    ], live["calls"]
    for call, n, span in zip(live["calls"], calls, spans, strict=True):
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

        to_collect = Switch(exporters_to(collect_url))
        to_serve = Switch(exporters_to(serve_url))
        client, tracer, provider = instrumented_client(server, [to_collect, to_serve])
        rig = Rig(
            stand_in,
            client,
            tracer,
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
