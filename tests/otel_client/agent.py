"""A real instrumented agent: the `openai` client, instrumented by
`opentelemetry-instrumentation-openai-v2`, against a small local stand-in for the OpenAI API, its
spans exported by the OpenTelemetry SDK over OTLP/HTTP in protobuf (the SDK's exporter) or proto3
JSON. Shared by client_test.py (collect and serve, checked from Python) and send.py (the sender the
browser and real-window journeys run against the Live view).
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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

ENCODINGS = ("protobuf", "json")
MODEL = "gpt-4o-mini"

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
    # The model the answer names: the request's, dated as the API names its snapshots.
    model: str


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
            answer = Answer(message, finish, 100 + 37 * n, 11 + 3 * n, 64 * n, body["model"] + "-2024-07-18")
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
                    "model": a.model,
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


def exporters_to(endpoint: str) -> dict[str, SpanExporter]:
    """An exporter of each encoding, to one OTLP/HTTP traces endpoint."""
    return {"protobuf": OTLPSpanExporter(endpoint=endpoint), "json": JsonSpanExporter(endpoint)}


@dataclass
class Export:
    """One batch sent: its encoding, how it went, its spans and when it finished (`time.time()`)."""

    encoding: str
    result: SpanExportResult
    spans: list[ReadableSpan]
    finished_at: float


class Switch(SpanExporter):
    """Sends each batch through the exporter of the encoding in use, and keeps what it sent and
    how each export went."""

    def __init__(self, by_encoding: dict[str, SpanExporter]) -> None:
        self.by_encoding = by_encoding
        self.encoding = next(iter(by_encoding))
        self.exports: list[Export] = []
        self.sent: list[ReadableSpan] = []

    def export(self, spans) -> SpanExportResult:
        self.sent.extend(spans)
        result = self.by_encoding[self.encoding].export(spans)
        self.exports.append(Export(self.encoding, result, list(spans), time.time()))
        return result

    def shutdown(self) -> None:
        for exporter in self.by_encoding.values():
            exporter.shutdown()


# ---------------------------------------------------------------------------------------------
# The instrumented client


def instrumented_client(
    stand_in_server: ThreadingHTTPServer, switches: list[Switch]
) -> tuple[openai.OpenAI, object, TracerProvider]:
    """The `openai` client against the stand-in, instrumented with a tracer provider that exports
    through each switch; the client, a tracer for the agent's own spans, and the provider.
    Nothing leaves before `provider.force_flush()`: a time to land is counted from the export."""
    provider = TracerProvider()
    for switch in switches:
        provider.add_span_processor(BatchSpanProcessor(switch, schedule_delay_millis=600_000))
    OpenAIInstrumentor().instrument(tracer_provider=provider)
    client = openai.OpenAI(
        base_url=f"http://127.0.0.1:{stand_in_server.server_address[1]}/v1",
        api_key="not-a-key",
        max_retries=0,
    )
    return client, provider.get_tracer("otel-client-test"), provider


def conversation(client: openai.OpenAI, tracer, city: str) -> str:
    """An agent's turn: the question with the tools, then the tool's result. Both calls under one
    parent span, so they share a trace (collect's conversation folder, the Live view's
    conversation). Returns the trace id."""
    with tracer.start_as_current_span(f"trip agent {city}") as parent:
        messages = [
            {"role": "system", "content": "You plan trips. Use the tools for live data."},
            {"role": "user", "content": f"What is the weather in {city}?"},
        ]
        first = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
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
        client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
        return format(parent.get_span_context().trace_id, "032x")


def chat_spans(spans: list[ReadableSpan]) -> list[ReadableSpan]:
    """The chat calls among exported spans, in call order (an agent's own span is not a call)."""
    return sorted((s for s in spans if s.name.startswith("chat ")), key=lambda s: s.start_time)


def left_out(span: ReadableSpan) -> list[str]:
    """What the stand-in received or answered that the instrumentation did not record on the span
    (opentelemetry-instrumentation-openai-v2 2.4b0's chat path records neither)."""
    attributes = span.attributes or {}
    missing = {
        "gen_ai.tool.definitions": "the tool definitions",
        "gen_ai.usage.cache_read.input_tokens": "the cached tokens",
    }
    return [what for key, what in missing.items() if key not in attributes]
