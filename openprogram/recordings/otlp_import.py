"""`openprogram recordings import TRACE.json --name ID`: an OTLP/JSON trace as a recording.

Each inference span (`gen_ai.operation.name` `chat`, `text_completion` or `generate_content`)
becomes one call, in the order the spans started: its request rebuilt from the input messages,
system instructions, tool definitions and request parameters, its answer a stream of events made
from the output messages (what the providers' fold turns back into the answer). The calls are
written by the one writer (`RecordingSink`) after the recorder's own redaction and the project's
scrub rules. What a span does not hold (the tools offered, the options) is said per call, so
`recordings check ID -- CMD` is read knowing which differences come from the trace.

The trace is read once, streamed (`ijson`): each inference span is kept on a spool file beside
the recording with its start time in memory, so a trace of any size imports in memory bounded by
its largest span, and its calls are written in time order. docs/otlp.md has the mapping.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import ijson
from pydantic import ValidationError

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.errors import MISSING
from openprogram.providers.recording.recorder import StoredMessages, event_redactor
from openprogram.providers.recording.redaction import REDACTION_VERSION
from openprogram.providers.recording.row_models import CallOutcome
from openprogram.providers.recording.rules import MatchingRules, ScrubRule, validate_rules
from openprogram.providers.recording.store import (
    RecordingSelectorError,
    ensure_recordings_dir,
    managed_path,
    validate_recording_id,
)
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.types import (
    MAX_CALL_MS,
    MAX_SESSION_MS,
    MAX_UNIX_MS,
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    SimpleStreamOptions,
    StartEvent,
    StreamOptions,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingContent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    Tool,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    Usage,
)
from openprogram.recordings.otlp_mapping import (
    INFERENCE_OPERATIONS,
    STOP_REASONS,
    TraceContentError,
    answer_message,
    context_messages,
    plain_value,
    structured,
    system_text,
)
from openprogram.text import one_line, shorten

OUTCOMES: dict[str, CallOutcome] = {
    "complete": "complete",
    "error": "error",
    "cancelled": "cancelled",
    "abandoned": "abandoned",
}
SPANS_PATH = "resourceSpans.item.scopeSpans.item.spans.item"
MAX_TIME_DIGITS = 20
"""A `timeUnixNano` is a fixed64: at most 20 digits."""
MAX_ERROR_TEXT = 500
PROGRESS_BYTES = 8 << 20
"""How often (bytes read) the progress callback is called."""

Progress = Callable[[int, int], None]
"""Called with (bytes read, trace size) while the trace is read."""


class TraceImportError(OpenProgramError, ValueError):
    """A trace that cannot be imported: `path`, the `span` (id, when one is at fault), `reason`."""

    def __init__(self, path: Path, span: str | None, reason: str) -> None:
        self.path = path
        self.span = span
        self.reason = reason
        where = f" span {span}" if span else ""
        super().__init__(f"trace file {path}{where}: {reason}")


@dataclass(frozen=True)
class ImportedCall:
    """One call made from a span: its index, the span's id, and what the span did not hold."""

    call_index: int
    span_id: str
    missing: tuple[str, ...]


@dataclass(frozen=True)
class ImportReport:
    """What `import` wrote: the recording, and one entry per call."""

    recording_id: str
    path: str
    calls: tuple[ImportedCall, ...]
    spans_read: int


@dataclass(frozen=True)
class _SpooledSpan:
    start_ns: int
    order: int
    offset: int
    span_id: str


def import_trace(
    trace: Path,
    name: str,
    *,
    rules: MatchingRules | None = None,
    on_progress: Progress | None = None,
) -> ImportReport:
    """Turn the OTLP/JSON trace `trace` into the new managed recording `name`."""
    recording_id = validate_recording_id(name)
    final = managed_path(recording_id)
    ensure_recordings_dir()
    if final.exists() or final.is_symlink():
        raise RecordingSelectorError(
            recording_id, f"already exists ({final}); choose another --name"
        )
    scrub = validate_rules(rules or MatchingRules()).scrub
    spool_path = final.with_name(f".{final.name}.import-{os.getpid()}.spool")
    staged = final.with_name(f".{final.name}.import-{os.getpid()}.tmp")
    try:
        fd = os.open(spool_path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w+b") as spool:
            spans, read, base_ns = _spool_spans(trace, spool, on_progress)
            header: dict[str, Any] = {
                "recording_id": recording_id,
                "redaction_version": REDACTION_VERSION,
                "imported_from": "otlp",
            }
            if base_ns:  # the first span's start; a trace without times has no creation time
                header["created_at"] = _iso(base_ns)
            sink = RecordingSink(staged, header, durable=False)  # linked in once whole
            try:
                calls = _write_calls(trace, spool, spans, base_ns, sink, scrub)
            finally:
                sink.close()
        try:
            os.link(staged, final)
        except FileExistsError:
            raise RecordingSelectorError(
                recording_id, f"already exists ({final}); choose another --name"
            ) from None
        return ImportReport(recording_id, str(final), tuple(calls), read)
    finally:
        for temporary in (spool_path, staged):
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()


def _iso(ns: int) -> str:
    moment = datetime.fromtimestamp(ns // 1_000_000 / 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _open_trace(trace: Path) -> tuple[IO[bytes], int]:
    try:
        fd = os.open(trace, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise TraceImportError(trace, None, MISSING) from None  # worded as every command words it
    except OSError as exc:
        raise TraceImportError(trace, None, f"cannot open: {exc.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise TraceImportError(trace, None, "is not a regular file")
    return os.fdopen(fd, "rb"), info.st_size


def _spans(trace: Path, on_progress: Progress | None) -> Iterator[dict[str, Any]]:
    """Every span of the trace (one `ExportTraceServiceRequest`, or one per line), streamed."""
    source, size = _open_trace(trace)
    reported = 0
    with source:
        try:
            for span in ijson.items(source, SPANS_PATH, use_float=True, multiple_values=True):
                if on_progress is not None and source.tell() - reported >= PROGRESS_BYTES:
                    reported = source.tell()
                    on_progress(reported, size)
                if not isinstance(span, dict):
                    raise TraceImportError(trace, None, "a span is not a JSON object")
                yield span
        except ijson.JSONError as exc:
            raise TraceImportError(
                trace, None, f"is not OTLP/JSON ({one_line(exc, 200)})"
            ) from None
        except RecursionError:
            raise TraceImportError(trace, None, "is nested too deeply") from None
    if on_progress is not None:
        on_progress(size, size)


def _time_ns(span: dict[str, Any], key: str, trace: Path, span_id: str) -> int:
    value = span.get(key, "0")
    text = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""
    if not text.isdigit() or len(text) > MAX_TIME_DIGITS:
        raise TraceImportError(
            trace, span_id, f"{key} {shorten(one_line(value), 40)!r} is not a time"
        )
    return int(text)


def _span_id(span: dict[str, Any]) -> str:
    value = span.get("spanId")
    return shorten(one_line(value), 32) if isinstance(value, str) else "(no spanId)"


def _attributes(span: dict[str, Any], trace: Path, span_id: str) -> dict[str, Any]:
    attributes = span.get("attributes") or []
    if not isinstance(attributes, list):
        raise TraceImportError(trace, span_id, "attributes is not a list")
    found: dict[str, Any] = {}
    for entry in attributes:
        if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
            raise TraceImportError(trace, span_id, "an attribute is not {key, value}")
        key = entry["key"]
        try:
            found[key] = plain_value(entry.get("value"), f"attribute {key}")
        except TraceContentError as exc:
            raise TraceImportError(trace, span_id, str(exc)) from None
    return found


def _spool_spans(
    trace: Path, spool: IO[bytes], on_progress: Progress | None
) -> tuple[list[_SpooledSpan], int, int]:
    """Keep each inference span on `spool`; return them in time order, the number of spans
    read and the session's start (the first start of any span; 0 when none has a time)."""
    kept: list[_SpooledSpan] = []
    read, base = 0, 0
    for span in _spans(trace, on_progress):
        read += 1
        span_id = _span_id(span)
        start = _time_ns(span, "startTimeUnixNano", trace, span_id)
        if start and (not base or start < base):
            base = start
        operation = _attributes(span, trace, span_id).get("gen_ai.operation.name")
        if operation not in INFERENCE_OPERATIONS:
            continue
        try:
            line = json.dumps(span, ensure_ascii=False).encode() + b"\n"
        except RecursionError:
            raise TraceImportError(trace, span_id, "is nested too deeply") from None
        kept.append(_SpooledSpan(start, len(kept), spool.tell(), span_id))
        spool.write(line)
    if not kept:
        raise TraceImportError(trace, None, f"holds no inference span ({read} spans read)")
    kept.sort(key=lambda spooled: (spooled.start_ns, spooled.order))
    return kept, read, base


def _write_calls(
    trace: Path,
    spool: IO[bytes],
    spans: list[_SpooledSpan],
    base_ns: int,
    sink: RecordingSink,
    scrub: tuple[ScrubRule, ...],
) -> list[ImportedCall]:
    spool.flush()
    messages = StoredMessages(scrub)
    calls = []
    for spooled in spans:
        spool.seek(spooled.offset)
        span = json.loads(spool.readline())
        call = _call_of(span, trace, spooled.span_id, base_ns)
        payload = messages.payload(call.model, call.context, call.options)
        index = sink.begin_call(payload, start_ms=call.start_ms)
        blocks = event_redactor(scrub)
        rows = [row for event in call.events for row in blocks.rows_for(event)]
        rows += blocks.release_all()
        for number, row in enumerate(rows):
            sink.write_event(index, number, row, ms=None)
        sink.end_call(index, len(rows), call.outcome, call.error, duration_ms=call.duration_ms)
        calls.append(ImportedCall(index, spooled.span_id, call.missing))
    return calls


@dataclass
class _SpanCall:
    model: Model
    context: Context
    options: StreamOptions | None
    events: list[AssistantMessageEvent]
    outcome: CallOutcome
    error: str | None
    start_ms: int | None
    duration_ms: int | None
    missing: tuple[str, ...]


def _call_of(span: dict[str, Any], trace: Path, span_id: str, base_ns: int) -> _SpanCall:
    """One inference span as a call's request and answer."""
    attributes = _attributes(span, trace, span_id)
    start = _time_ns(span, "startTimeUnixNano", trace, span_id)
    end = _time_ns(span, "endTimeUnixNano", trace, span_id)
    start_ms = duration_ms = None
    if start:
        start_ms, duration_ms = (start - base_ns) // 1_000_000, (end - start) // 1_000_000
        if end < start or duration_ms > MAX_CALL_MS:
            raise TraceImportError(trace, span_id, f"ends {end - start} ns after its start")
        if start_ms > MAX_SESSION_MS:
            raise TraceImportError(trace, span_id, "starts more than a year after the session")
    try:
        return _request_and_answer(attributes, span, base_ns, start, end, start_ms, duration_ms)
    except TraceContentError as exc:
        raise TraceImportError(trace, span_id, str(exc)) from None
    except ValidationError as exc:
        problem = exc.errors()[0]
        field = ".".join(str(part) for part in problem["loc"])
        reason = f"{field}: {problem['msg']}" if field else problem["msg"]
        raise TraceImportError(trace, span_id, one_line(reason, 300)) from None


def _request_and_answer(
    attributes: dict[str, Any],
    span: dict[str, Any],
    base_ns: int,
    start: int,
    end: int,
    start_ms: int | None,
    duration_ms: int | None,
) -> _SpanCall:
    missing = []
    own_model = attributes.get("openprogram.request.model")
    if own_model is not None:
        model = Model.model_validate(structured(own_model, "openprogram.request.model"))
    else:
        model_id = attributes.get("gen_ai.request.model") or attributes.get("gen_ai.response.model")
        provider = attributes.get("gen_ai.provider.name") or attributes.get("gen_ai.system")
        model = Model(id=str(model_id or ""), api=str(provider or ""), provider=str(provider or ""))
        missing.append("the model's api and settings")
    own_options = attributes.get("openprogram.request.options", False)
    if own_options is not False:
        raw = structured(own_options, "openprogram.request.options")
        # `stream_simple`'s options dump `reasoning` too: validate with the class that holds it
        kind = (
            SimpleStreamOptions if isinstance(raw, dict) and "reasoning" in raw else StreamOptions
        )
        options = None if raw is None else kind.model_validate(raw)
    else:
        known = {
            key: attributes[f"gen_ai.request.{key}"]
            for key in ("temperature", "max_tokens")
            if f"gen_ai.request.{key}" in attributes
        }
        options = StreamOptions.model_validate(known) if known else None
        missing.append("options" + (" beside " + ", ".join(known) if known else ""))
    # the session's start, the same in every span: a message sent again stays the same message
    timestamp = min(base_ns // 1_000_000, MAX_UNIX_MS)
    defaults: dict[str, Any] = {
        "api": model.api,
        "provider": model.provider,
        "model": str(attributes.get("gen_ai.response.model") or model.id),
        "timestamp": timestamp,
    }
    if "gen_ai.input.messages" in attributes:
        items = structured(attributes["gen_ai.input.messages"], "gen_ai.input.messages")
        messages = context_messages(items, "gen_ai.input.messages", defaults)
        system_parts = [
            part
            for item in items
            if isinstance(item, dict) and item.get("role") == "system"
            for part in item.get("parts", [])
        ]
    else:
        messages, system_parts = [], []
        missing.append("input messages")
    if "gen_ai.system_instructions" in attributes:
        system = structured(attributes["gen_ai.system_instructions"], "gen_ai.system_instructions")
        system_prompt: str | None = system_text(system, "gen_ai.system_instructions")
    else:
        system_prompt = system_text(system_parts, "gen_ai.input.messages") if system_parts else None
    tools = None
    if "gen_ai.tool.definitions" in attributes:
        definitions = structured(attributes["gen_ai.tool.definitions"], "gen_ai.tool.definitions")
        if not isinstance(definitions, list):
            raise TraceContentError("gen_ai.tool.definitions", "is not a list")
        tools = [
            Tool.model_validate({k: v for k, v in d.items() if k != "type"})
            for d in definitions
            if isinstance(d, dict)
        ]
    elif own_model is None:  # our own export leaves the attribute out when no tools were offered
        missing.append("tools offered")
    context = Context(system_prompt=system_prompt, messages=messages, tools=tools)
    said = attributes.get("openprogram.call.outcome")
    outcome: CallOutcome = OUTCOMES.get(said, "complete") if isinstance(said, str) else "complete"
    status = span.get("status")
    status = status if isinstance(status, dict) else {}
    failed = status.get("code") in (2, "STATUS_CODE_ERROR")
    error_text = status.get("message") if isinstance(status.get("message"), str) else None
    error = shorten(one_line(error_text or "error"), MAX_ERROR_TEXT) if failed else None
    if "gen_ai.output.messages" in attributes:
        items = structured(attributes["gen_ai.output.messages"], "gen_ai.output.messages")
        if not isinstance(items, list) or not items:
            raise TraceContentError("gen_ai.output.messages", "is not a list of one message")
        answer_defaults = {
            **defaults,
            "timestamp": min(end // 1_000_000, MAX_UNIX_MS),
            "usage": _usage(attributes),
        }
        if "gen_ai.response.finish_reasons" in attributes:
            reasons = attributes["gen_ai.response.finish_reasons"]
            first = reasons[0] if isinstance(reasons, list) and reasons else reasons
            answer_defaults["stop_reason"] = STOP_REASONS.get(str(first), "stop")
        if failed and error_text:
            answer_defaults["error_message"] = error_text
        answer = answer_message(items[0], "gen_ai.output.messages[0]", answer_defaults)
        events = answer_events(answer, ended=outcome == "complete")
        error = error if outcome != "complete" else None
    else:
        if not failed:
            missing.append("the answer")
        events, outcome = [], "error"
        error = error or "the trace holds no answer for this call"
    if not start:
        missing.append("times")
    return _SpanCall(
        model, context, options, events, outcome, error, start_ms, duration_ms, tuple(missing)
    )


def _usage(attributes: dict[str, Any]) -> Usage:
    def tokens(key: str) -> int:
        value = attributes.get(key, 0)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    input_tokens, output_tokens = (
        tokens("gen_ai.usage.input_tokens"),
        tokens("gen_ai.usage.output_tokens"),
    )
    reasoning = attributes.get("gen_ai.usage.reasoning.output_tokens")
    return Usage(
        input=input_tokens,
        output=output_tokens,
        cache_read=tokens("gen_ai.usage.cache_read.input_tokens"),
        cache_write=tokens("gen_ai.usage.cache_creation.input_tokens"),
        total_tokens=input_tokens + output_tokens,
        reasoning=reasoning if isinstance(reasoning, int) else None,
    )


def answer_events(answer: AssistantMessage, *, ended: bool = True) -> list[AssistantMessageEvent]:
    """The stream of events the providers' fold turns into `answer`: each block whole in one
    delta, then `done` (or `error` for an answer that failed); no terminal event when not `ended`."""
    partial = AssistantMessage(
        api=answer.api, provider=answer.provider, model=answer.model, timestamp=answer.timestamp
    )
    events: list[AssistantMessageEvent] = [StartEvent(partial=partial)]
    for index, block in enumerate(answer.content):
        if isinstance(block, TextContent):
            events += [
                TextStartEvent(content_index=index),
                TextDeltaEvent(content_index=index, delta=block.text),
                TextEndEvent(
                    content_index=index,
                    content=block.text,
                    refusal=block.refusal,
                    signature=block.signature,
                ),
            ]
        elif isinstance(block, ThinkingContent):
            events += [
                ThinkingStartEvent(content_index=index),
                ThinkingDeltaEvent(content_index=index, delta=block.thinking),
                ThinkingEndEvent(
                    content_index=index,
                    content=block.thinking,
                    signature=block.signature,
                    redacted=block.redacted,
                ),
            ]
        else:
            arguments = json.dumps(block.arguments, ensure_ascii=False, sort_keys=True)
            events += [
                ToolCallStartEvent(content_index=index, id=block.id, name=block.name),
                ToolCallDeltaEvent(content_index=index, delta=arguments),
                ToolCallEndEvent(content_index=index, tool_call=block),
            ]
    if not ended:
        return events
    if answer.stop_reason in ("error", "aborted"):
        reason = "aborted" if answer.stop_reason == "aborted" else "error"
        events.append(ErrorEvent(reason=reason, error=answer))
    else:
        events.append(DoneEvent(reason=answer.stop_reason, message=answer))
    return events
