"""`openprogram recordings export ID --otlp OUT.json`: a recording as one OTLP/JSON trace.

The trace is an `ExportTraceServiceRequest` in protobuf's JSON mapping: a session span, and under
it one `gen_ai.client.inference` span per call with the attributes of the GenAI conventions
(`otlp_mapping.SCHEMA_URL`). Everything comes from the file (already redacted): the times from
its `created_at`, `start_ms` and `duration_ms`, the ids from a hash of its bytes. A call whose
times were not recorded (a migrated one) has no times in the trace either: its span's start and
end are 0 and `openprogram.call.times` says `not recorded`. docs/otlp.md has the whole mapping.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from openprogram.providers.accumulator import AccumulatorError, MessageAccumulator
from openprogram.providers.recording.errors import open_for_reading
from openprogram.providers.recording.reader import RecordedCall, Recording, read_recording
from openprogram.providers.recording.store import locate_recording
from openprogram.providers.types import AssistantMessage, Context, Message
from openprogram.recordings.otlp_mapping import (
    FINISH_REASONS,
    SCHEMA_URL,
    attribute,
    json_attribute,
    message_form,
    output_form,
)

OPERATION = "chat"
SPAN_KIND_INTERNAL = 1
SPAN_KIND_CLIENT = 3
STATUS_ERROR = 2
NOT_RECORDED = "not recorded"


@dataclass(frozen=True)
class ExportReport:
    """What `export` wrote: the file, how many call spans, and how many lack recorded times."""

    path: str
    calls: int
    untimed_calls: int
    trace_id: str


def export_recording(selector: str, target: Path) -> ExportReport:
    """Write recording `selector` (an ID or a path) to `target` as one OTLP/JSON trace.

    The spans are written one by one: a trace repeats each call's whole conversation, so it is
    many times the recording's size and is never held whole."""
    path = locate_recording(selector).path
    recording = read_recording(path)
    digest = _file_digest(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(target, flags, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        head, tail = json.dumps(envelope([_SPANS]), separators=(",", ":")).split(json.dumps(_SPANS))
        out.write(head)
        for number, span in enumerate(spans_of(recording, digest)):
            out.write("," if number else "")
            json.dump(span, out, ensure_ascii=False, separators=(",", ":"))
        out.write(tail + "\n")
    untimed = sum(1 for call in recording.calls if call.start_ms is None)
    return ExportReport(str(target), len(recording.calls), untimed, digest[:16].hex())


_SPANS = "(the spans)"
"""Where the spans go in the envelope (written one by one in its place)."""


def _file_digest(path: Path) -> bytes:
    fd, _ = open_for_reading(path)
    digest = hashlib.sha256()
    with os.fdopen(fd, "rb") as rows:
        for block in iter(lambda: rows.read(1 << 20), b""):
            digest.update(block)
    return digest.digest()


def _session_start_ns(recording: Recording) -> int:
    created = (recording.header.model_extra or {}).get("created_at")
    if isinstance(created, str):
        try:
            return int(datetime.fromisoformat(created).timestamp() * 1000) * 1_000_000
        except ValueError:
            pass
    return 0


def envelope(spans: list[Any]) -> dict[str, Any]:
    """The `ExportTraceServiceRequest` holding `spans`: one resource, one scope, the schema."""
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [attribute("service.name", "openprogram")]},
                "scopeSpans": [
                    {
                        "scope": {"name": "openprogram.recordings", "version": "1"},
                        "spans": spans,
                        "schemaUrl": SCHEMA_URL,
                    }
                ],
                "schemaUrl": SCHEMA_URL,
            }
        ]
    }


def spans_of(recording: Recording, digest: bytes) -> Iterator[dict[str, Any]]:
    """The session span, then one span per call; `digest` (of the file's bytes) makes the ids."""
    trace_id, session_id = digest[:16].hex(), digest[16:24].hex()
    base = _session_start_ns(recording)
    ends = [
        base + (call.start_ms + call.duration_ms) * 1_000_000
        for call in recording.calls
        if call.start_ms is not None and call.duration_ms is not None
    ]
    recording_id = (recording.header.model_extra or {}).get("recording_id")
    name = recording_id if isinstance(recording_id, str) else recording.path.stem
    yield {
        "traceId": trace_id,
        "spanId": session_id,
        "name": f"session {name}",
        "kind": SPAN_KIND_INTERNAL,
        "startTimeUnixNano": str(base),
        "endTimeUnixNano": str(max(ends, default=base)),
        "attributes": [
            attribute("openprogram.recording.id", name),
            attribute("openprogram.recording.calls", len(recording.calls)),
        ],
    }
    for call in recording.calls:
        yield call_span(call, trace_id, session_id, base, _span_id(digest, call.call_index))


def _span_id(digest: bytes, call_index: int) -> str:
    span = hashlib.sha256(digest + call_index.to_bytes(8, "big")).digest()[:8]
    return span.hex() if any(span) else "0000000000000001"


def _answer(call: RecordedCall) -> AssistantMessage | None:
    """The call's answer as the providers' fold makes it (None when no event started one)."""
    for event in reversed(call.events):
        if event.type == "done":
            return event.message
        if event.type == "error":
            return event.error
    accumulator = MessageAccumulator()
    try:
        for event in call.events:
            accumulator.apply(event)
    except AccumulatorError:  # a stream cut short may not fold: its answer is unknown
        return None
    return accumulator.message


def call_span(
    call: RecordedCall, trace_id: str, parent_id: str, base_ns: int, span_id: str
) -> dict[str, Any]:
    """One `gen_ai.client.inference` span for a recorded call."""
    request = call.request_payload()
    model, options = request["model"], request["options"]
    model_id = str(model.get("id", "")) if isinstance(model, dict) else ""
    attributes = [
        attribute("gen_ai.operation.name", OPERATION),
        attribute("gen_ai.request.model", model_id),
        attribute("openprogram.call.index", call.call_index),
        attribute("openprogram.call.outcome", call.outcome),
    ]
    if isinstance(model, dict) and isinstance(model.get("provider"), str):
        attributes.append(attribute("gen_ai.provider.name", model["provider"]))
    if isinstance(options, dict):
        for key, name in (("temperature", "temperature"), ("max_tokens", "max_tokens")):
            value = options.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                attributes.append(attribute(f"gen_ai.request.{name}", value))
    attributes += [
        json_attribute("openprogram.request.model", model),
        json_attribute("openprogram.request.options", options),
    ]
    attributes += _context_attributes(request["context"])
    answer = _answer(call)
    if answer is not None:
        attributes += _answer_attributes(answer)
    first_chunk = next(
        (
            ms
            for event, ms in zip(call.events, call.event_ms, strict=False)
            if event.type != "start"
        ),
        None,
    )
    if first_chunk is not None:  # seconds, as the conventions count it
        attributes.append(attribute("gen_ai.response.time_to_first_chunk", first_chunk / 1000))
    span: dict[str, Any] = {
        "traceId": trace_id,
        "spanId": span_id,
        "parentSpanId": parent_id,
        "name": f"{OPERATION} {model_id}",
        "kind": SPAN_KIND_CLIENT,
    }
    if call.start_ms is None or call.duration_ms is None:
        span["startTimeUnixNano"] = span["endTimeUnixNano"] = "0"
        attributes.append(attribute("openprogram.call.times", NOT_RECORDED))
    else:
        start = base_ns + call.start_ms * 1_000_000
        span["startTimeUnixNano"] = str(start)
        span["endTimeUnixNano"] = str(start + call.duration_ms * 1_000_000)
    span["attributes"] = attributes
    error = call.error or (answer.error_message if answer is not None else None)
    if call.outcome != "complete" or (answer is not None and answer.stop_reason == "error"):
        kind = (error or call.outcome).split(":", 1)[0]
        attributes.append(attribute("error.type", kind or call.outcome))
        span["status"] = {"code": STATUS_ERROR, "message": error or call.outcome}
    return span


def _context_attributes(context: Any) -> list[dict[str, Any]]:
    try:
        parsed = Context.model_validate(context)
    except ValidationError:  # not a conversation our types hold: keep it as stored
        return [json_attribute("openprogram.request.context", context)]
    attributes = []
    if parsed.system_prompt is not None:
        parts = [{"type": "text", "content": parsed.system_prompt}]
        attributes.append(json_attribute("gen_ai.system_instructions", parts))
    messages: list[Message] = parsed.messages
    attributes.append(json_attribute("gen_ai.input.messages", [message_form(m) for m in messages]))
    if parsed.tools is not None:
        tools = [{"type": "function", **tool.model_dump(mode="json")} for tool in parsed.tools]
        attributes.append(json_attribute("gen_ai.tool.definitions", tools))
    return attributes


def _answer_attributes(answer: AssistantMessage) -> list[dict[str, Any]]:
    usage = answer.usage
    attributes = [
        attribute("gen_ai.response.model", answer.model),
        attribute(
            "gen_ai.response.finish_reasons",
            [FINISH_REASONS.get(answer.stop_reason, answer.stop_reason)],
        ),
        attribute("gen_ai.usage.input_tokens", usage.input),
        attribute("gen_ai.usage.output_tokens", usage.output),
        attribute("gen_ai.usage.cache_read.input_tokens", usage.cache_read),
        attribute("gen_ai.usage.cache_creation.input_tokens", usage.cache_write),
        json_attribute("gen_ai.output.messages", [output_form(answer)]),
    ]
    if usage.reasoning is not None:
        attributes.append(attribute("gen_ai.usage.reasoning.output_tokens", usage.reasoning))
    return attributes
