"""The real instrumented client as a sender, for the journeys that watch calls arrive in the Live
view (ui/e2e/live.mjs, src-tauri/e2e/journey.mjs, through sender.mjs).

    python send.py --endpoint http://127.0.0.1:4318/v1/traces [--encodings protobuf,json] [--wait]

Starts the stand-in for the OpenAI API (agent.py), then for each encoding: one conversation (the
question with a tool, the stand-in's tool call, the tool's result, the final answer: two real
`openai` chat-completions calls under one trace), exported to the endpoint in that encoding, and
one JSON line on stdout saying what was sent, what the stand-in answered and when the export
finished. With --wait it reads a line on stdin before each conversation (EOF ends it early), so a
journey checks one export before the next is sent. Exits 1, with the reason on stderr, when the
client cannot run or an export fails.
"""

from __future__ import annotations

import argparse
import json
import sys

from agent import (
    ENCODINGS,
    Switch,
    chat_spans,
    conversation,
    exporters_to,
    instrumented_client,
    left_out,
    start_stand_in,
)
from opentelemetry.sdk.trace.export import SpanExportResult

CITIES = ("Lisbon", "Tokyo", "Oslo", "Lima", "Nairobi", "Hanoi", "Quito", "Tallinn")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--endpoint", required=True, help="an OTLP/HTTP traces endpoint (…/v1/traces)")
    parser.add_argument("--encodings", default=",".join(ENCODINGS), help="protobuf,json: one export each")
    parser.add_argument("--wait", action="store_true", help="read a line on stdin before each export")
    args = parser.parse_args()
    encodings = args.encodings.split(",")
    unknown = [e for e in encodings if e not in ENCODINGS]
    if unknown:
        parser.error(f"--encodings: {', '.join(unknown)} is not one of {', '.join(ENCODINGS)}")

    server, stand_in = start_stand_in()
    switch = Switch(exporters_to(args.endpoint))
    client, tracer, provider = instrumented_client(server, [switch])
    try:
        for i, encoding in enumerate(encodings):
            if args.wait and not sys.stdin.readline():
                break
            switch.encoding = encoding
            first_call = len(stand_in.received)
            trace_id = conversation(client, tracer, CITIES[i % len(CITIES)])
            exports_before = len(switch.exports)
            if not provider.force_flush(10_000):
                print(f"{encoding}: the export to {args.endpoint} did not finish in 10 s", file=sys.stderr)
                return 1
            exports = switch.exports[exports_before:]
            failed = [e for e in exports if e.result != SpanExportResult.SUCCESS]
            if not exports or failed:
                print(f"{encoding}: the export to {args.endpoint} failed", file=sys.stderr)
                return 1
            spans = chat_spans([s for e in exports for s in e.spans])
            answered = range(first_call, len(stand_in.received))
            calls = []
            for n, span in zip(answered, spans, strict=True):
                sent, answer = stand_in.received[n], stand_in.answers[n]
                calls.append(
                    {
                        "span_id": format(span.get_span_context().span_id, "016x"),
                        "model": sent["model"],
                        "messages": sent["messages"],
                        "tools": [t["function"]["name"] for t in sent.get("tools", [])],
                        "answer": answer.message,
                        "answered_model": answer.model,
                        "usage": {
                            "input": answer.prompt_tokens,
                            "output": answer.completion_tokens,
                            "cache_read": answer.cached_tokens,
                        },
                        "not_on_span": left_out(span),
                    }
                )
            report = {
                "encoding": encoding,
                "endpoint": args.endpoint,
                "trace_id": trace_id,
                "calls": calls,
                # Seconds since the epoch when the last request of the export was answered: the
                # journeys count a call's arrival from here.
                "exported_at": max(e.finished_at for e in exports),
            }
            print(json.dumps(report), flush=True)
        return 0
    finally:
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
