"""OTLP export and import (issue #44): checked against the real schema (opentelemetry-proto through
protobuf's JSON parser) and against a trace the OpenTelemetry SDK itself made."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes
from opentelemetry.trace import SpanKind, Status, StatusCode

from openprogram.providers import Context, UserMessage
from openprogram.providers.accumulator import MessageAccumulator
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.reader import RecordedCall, read_recording
from openprogram.providers.recording.store import managed_path
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.scripted import (
    ScriptedProvider,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
)
from openprogram.providers.types import (
    AssistantMessage,
    Model,
    SimpleStreamOptions,
    StreamOptions,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
)
from openprogram.recordings.otlp_export import export_recording
from openprogram.recordings.otlp_import import TraceImportError, import_trace
from openprogram.recordings.otlp_mapping import SCHEMA_URL

MODEL = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")


def parsed(path: Path) -> ExportTraceServiceRequest:
    """The file as the real schema reads it (unknown fields refused)."""
    return json_format.Parse(path.read_text(), ExportTraceServiceRequest())


def attributes(span: Any) -> dict[str, Any]:
    found = {}
    for entry in span.attributes:
        kind = entry.value.WhichOneof("value")
        found[entry.key] = getattr(entry.value, kind)
    return found


def record_session(path: Path, calls: list[dict[str, Any]], *, simple: bool = False) -> Path:
    """Record each call (context, options, scripted answer) through the real recorder."""
    responses = [call["answer"] for call in calls]
    sink = RecordingSink(path, {"recording_id": "s", "created_at": "2026-12-01T10:00:00Z"})
    provider = RecordingProvider(ScriptedProvider(responses), sink)

    async def run() -> None:
        for call in calls:
            entry = provider.stream_simple if simple else provider.stream
            async for _ in entry(call.get("model", MODEL), call["context"], call.get("options")):
                pass

    asyncio.run(run())
    sink.close()
    return path


def answer_of(call: RecordedCall) -> AssistantMessage | None:
    terminal = call.events[-1] if call.events else None
    if terminal is not None and terminal.type == "done":
        return terminal.message
    if terminal is not None and terminal.type == "error":
        return terminal.error
    return None


def folded(call: RecordedCall) -> AssistantMessage | None:
    accumulator = MessageAccumulator()
    for event in call.events:
        accumulator.apply(event)
    return accumulator.message


def assert_same_calls(original: Path, imported: Path) -> None:
    before, after = read_recording(original).calls, read_recording(imported).calls
    assert len(after) == len(before)
    for old, new in zip(before, after, strict=True):
        assert new.request_payload() == old.request_payload()
        assert answer_of(new) == answer_of(old)
        assert folded(new) == answer_of(old)  # the imported stream folds to the answer
        assert (new.outcome, new.error) == (old.outcome, old.error)
        assert (new.start_ms, new.duration_ms) == (old.start_ms, old.duration_ms)


def test_an_export_is_an_export_trace_service_request_with_one_inference_span_per_call(
    tmp_path: Path,
) -> None:
    tool = Tool(name="echo", description="Echo.", parameters={"type": "object"})
    context = Context(
        system_prompt="Be brief.", messages=[UserMessage(content="hi", timestamp=1)], tools=[tool]
    )
    path = record_session(
        tmp_path / "s.jsonl",
        [
            {
                "context": context,
                "options": StreamOptions(temperature=0.5, max_tokens=64),
                "answer": [
                    ThinkingStep(thinking="use it"),
                    ToolCallStep(name="echo", arguments={"text": "hi"}),
                ],
            },
            {"context": context, "answer": [TextStep(text="echo:hi")]},
        ],
    )
    target = tmp_path / "trace.json"
    report = export_recording(str(path), target)
    trace = parsed(target)
    scope = trace.resource_spans[0].scope_spans[0]
    assert scope.schema_url == SCHEMA_URL == "https://opentelemetry.io/schemas/gen-ai/1.42.0"
    session, first, second = scope.spans
    assert report.calls == 2 and session.name == "session s"
    assert [first.name, second.name] == ["chat echo-1", "chat echo-1"]
    assert first.parent_span_id == second.parent_span_id == session.span_id
    assert first.start_time_unix_nano >= session.start_time_unix_nano > 0
    assert first.end_time_unix_nano >= first.start_time_unix_nano
    found = attributes(first)
    assert found["gen_ai.operation.name"] == "chat"
    assert found["gen_ai.provider.name"] == "scripted"
    assert found["gen_ai.request.temperature"] == 0.5
    assert found["gen_ai.request.max_tokens"] == 64
    assert found["gen_ai.response.finish_reasons"].values[0].string_value == "tool_call"
    assert found["gen_ai.usage.input_tokens"] > 0
    assert found["gen_ai.usage.cache_read.input_tokens"] == 0
    assert json.loads(found["gen_ai.system_instructions"]) == [
        {"type": "text", "content": "Be brief."}
    ]
    (message,) = json.loads(found["gen_ai.input.messages"])
    assert message["role"] == "user" and message["parts"] == [{"type": "text", "content": "hi"}]
    (output,) = json.loads(found["gen_ai.output.messages"])
    assert output["finish_reason"] == "tool_call"
    assert [part["type"] for part in output["parts"]] == ["reasoning", "tool_call"]
    assert output["parts"][1]["arguments"] == {"text": "hi"}
    assert json.loads(found["gen_ai.tool.definitions"])[0]["name"] == "echo"


def test_every_gen_ai_attribute_exported_is_one_the_conventions_define(tmp_path: Path) -> None:
    defined = {
        value
        for name, value in vars(gen_ai_attributes).items()
        if name.startswith("GEN_AI_") and isinstance(value, str)
    }
    context = Context(system_prompt="s", messages=[UserMessage(content="hi", timestamp=1)])
    tools = Context(messages=context.messages, tools=[Tool(name="echo")])
    path = record_session(
        tmp_path / "s.jsonl",
        [
            {
                "context": context,
                "options": StreamOptions(temperature=1.0, max_tokens=9),
                "answer": [TextStep(text="a")],
            },
            {"context": tools, "answer": [ToolCallStep(name="echo", arguments={})]},
        ],
    )
    target = tmp_path / "trace.json"
    export_recording(str(path), target)
    used = {
        key
        for span in parsed(target).resource_spans[0].scope_spans[0].spans
        for key in attributes(span)
        if key.startswith("gen_ai.")
    }
    assert "gen_ai.response.time_to_first_chunk" in used and "gen_ai.tool.definitions" in used
    assert used <= defined, used - defined


def test_a_call_without_recorded_times_has_none_in_the_trace(tmp_path: Path) -> None:
    path = tmp_path / "migrated.jsonl"
    sink = RecordingSink(path)
    request = {
        "model": MODEL.model_dump(mode="json"),
        "context": Context().model_dump(mode="json"),
        "options": None,
    }
    index = sink.begin_call(request, start_ms=None)
    sink.end_call(index, 0, "error", "RuntimeError: refused", duration_ms=None)
    sink.close()
    target = tmp_path / "trace.json"
    assert export_recording(str(path), target).untimed_calls == 1
    span = parsed(target).resource_spans[0].scope_spans[0].spans[1]
    assert span.start_time_unix_nano == span.end_time_unix_nano == 0
    found = attributes(span)
    assert found["openprogram.call.times"] == "not recorded"
    assert found["error.type"] == "RuntimeError"
    assert span.status.code == 2 and span.status.message == "RuntimeError: refused"
    report = import_trace(target, "back")
    (call,) = read_recording(Path(report.path)).calls
    assert (call.start_ms, call.duration_ms, call.outcome) == (None, None, "error")
    assert call.error == "RuntimeError: refused" and call.events == ()


TEXT = st.text(alphabet="ab é\n\"'{}", max_size=8)
STEP = st.one_of(
    st.builds(TextStep, text=TEXT),
    st.builds(ThinkingStep, thinking=TEXT),
    st.builds(
        ToolCallStep,
        name=st.sampled_from(["echo", "ls"]),
        arguments=st.dictionaries(TEXT, TEXT | st.integers(), max_size=2),
    ),
)


OPTIONS = st.none() | st.builds(
    StreamOptions, temperature=st.none() | st.floats(0, 2), max_tokens=st.none() | st.integers(1, 9)
)
OPTIONS |= st.builds(SimpleStreamOptions, reasoning=st.sampled_from([None, "low", "high"]))


@st.composite
def sessions(draw: st.DrawFn) -> dict[str, Any]:
    """A recorded agent session: the conversation grows by each answer and a tool's result; the
    system prompt, tools, model and options change now and then."""
    messages: list[Any] = [UserMessage(content=draw(TEXT), timestamp=draw(st.integers(0, 10**13)))]
    calls = []
    for _ in range(draw(st.integers(1, 5))):
        answer: ScriptedResponse = draw(st.lists(STEP, max_size=3))
        calls.append(
            {
                "context": Context(
                    system_prompt=draw(st.none() | TEXT),
                    messages=list(messages),
                    tools=draw(st.none() | st.just([Tool(name="echo", description="e")])),
                ),
                "options": draw(OPTIONS),
                "model": draw(st.sampled_from([MODEL, MODEL.model_copy(update={"id": "echo-2"})])),
                "answer": answer,
            }
        )
        said = [ToolCall(id="c1", name="echo", arguments={"t": draw(TEXT)})]
        messages.append(
            AssistantMessage(
                content=said, api="scripted", provider="scripted", model="echo-1", timestamp=5
            )
        )
        content = draw(st.lists(st.builds(TextContent, text=TEXT), max_size=2))
        messages.append(
            ToolResultMessage(
                tool_call_id="c1",
                tool_name="echo",
                content=content,
                is_error=draw(st.booleans()),
                timestamp=7,
            )
        )
    return {"calls": calls, "simple": draw(st.booleans())}


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(session=sessions())
def test_export_then_import_gives_back_the_same_calls_requests_and_answers(
    tmp_path_factory: pytest.TempPathFactory, session: dict[str, Any]
) -> None:
    folder = tmp_path_factory.mktemp("round-trip")
    original = record_session(folder / "s.jsonl", session["calls"], simple=session["simple"])
    target = folder / "trace.json"
    export_recording(str(original), target)
    parsed(target)
    name = folder.name.replace("_", "-")
    report = import_trace(target, name)
    assert [call.missing for call in report.calls] == [()] * len(session["calls"])
    assert_same_calls(original, Path(report.path))


def sdk_trace(path: Path) -> Path:
    """A production trace of the echo agent as the OpenTelemetry SDK makes it: an agent span and
    two inference spans with the GenAI attributes (messages as JSON strings), written as
    OTLP/JSON by the SDK's own protobuf encoder. The spans end in the opposite order they began."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("my-agent")
    base = 1_796_000_000_000_000_000
    user = {"role": "user", "parts": [{"type": "text", "content": "hi"}]}
    call = {"type": "tool_call", "id": "call_1", "name": "echo", "arguments": {"text": "hi"}}
    asked = {"role": "assistant", "parts": [call], "finish_reason": "tool_call"}
    result = {
        "role": "tool",
        "parts": [{"type": "tool_call_response", "id": "call_1", "response": "echo:hi"}],
    }
    answer = {
        "role": "assistant",
        "parts": [{"type": "text", "content": "echo:hi"}],
        "finish_reason": "stop",
    }
    agent = tracer.start_span("invoke_agent echo", start_time=base)
    spans = []
    for number, (inputs, output) in enumerate((([user], asked), ([user, asked, result], answer))):
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.request.temperature": 0.2,
            "gen_ai.usage.input_tokens": 12 + number,
            "gen_ai.usage.output_tokens": 5,
            "gen_ai.response.finish_reasons": [output["finish_reason"]],
            "gen_ai.system_instructions": json.dumps([{"type": "text", "content": "Be brief."}]),
            "gen_ai.input.messages": json.dumps(inputs),
            "gen_ai.output.messages": json.dumps([output]),
        }
        spans.append(
            tracer.start_span(
                "chat gpt-4o-mini",
                kind=SpanKind.CLIENT,
                attributes=attributes,
                start_time=base + (1 + number) * 10**9,
            )
        )
    for number, span in reversed(list(enumerate(spans))):
        span.end(end_time=base + (1 + number) * 10**9 + 250_000_000)
    failed = tracer.start_span("execute_tool echo", start_time=base + 5 * 10**9)
    failed.set_status(Status(StatusCode.ERROR, "\x1b]52;c;aGk=\x07boom"))
    failed.end(end_time=base + 6 * 10**9)
    agent.end(end_time=base + 7 * 10**9)
    provider.shutdown()
    path.write_text(json_format.MessageToJson(encode_spans(exporter.get_finished_spans())))
    return path


def test_a_trace_the_sdk_made_imports_as_one_call_per_inference_span_in_time_order(
    tmp_path: Path,
) -> None:
    report = import_trace(sdk_trace(tmp_path / "prod.json"), "prod")
    assert report.spans_read == 4
    assert [call.missing for call in report.calls] == [
        ("the model's api and settings", "options beside temperature", "tools offered")
    ] * 2
    first, second = read_recording(Path(report.path)).calls
    assert (first.start_ms, first.duration_ms, second.start_ms) == (1000, 250, 2000)
    request = second.request_payload()
    assert request["model"]["id"] == "gpt-4o-mini" and request["options"]["temperature"] == 0.2
    assert request["context"]["system_prompt"] == "Be brief."
    assert [m["role"] for m in request["context"]["messages"]] == [
        "user",
        "assistant",
        "toolResult",
    ]
    assert request["context"]["messages"][2]["content"] == [{"type": "text", "text": "echo:hi"}]
    asked, told = folded(first), folded(second)
    assert asked is not None and told is not None
    assert asked.stop_reason == "toolUse"
    assert asked.content == [ToolCall(id="call_1", name="echo", arguments={"text": "hi"})]
    assert told.content == [TextContent(text="echo:hi")] and told.usage.input == 13


def test_an_imported_answer_is_redacted_by_the_recorders_redaction(tmp_path: Path) -> None:
    trace = sdk_trace(tmp_path / "prod.json")
    leaked = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 2
    trace.write_text(trace.read_text().replace("echo:hi", f"key {leaked}"))
    report = import_trace(trace, "prod")
    text = Path(report.path).read_text()
    assert leaked not in text and "[secret removed]" in text


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            lambda s: s.replace(
                '"startTimeUnixNano": "1796000001000000000"', '"startTimeUnixNano": "-5"'
            ),
            "is not a time",
        ),
        (
            lambda s: s.replace(
                '"gen_ai.input.messages", "value": {"stringValue": "',
                '"gen_ai.input.messages", "value": {"stringValue": "' + "[" * 100_000,
            ),
            "nested deeper than",
        ),
        (
            lambda s: s.replace('"intValue": "13"', '"intValue": "1' + "0" * 30 + '"'),
            "less than or equal to 1000000000000",
        ),
        (lambda s: s[: len(s) // 2], "is not OTLP/JSON"),
        (
            lambda s: s.replace(
                '\\"finish_reason\\": \\"stop\\"',
                '\\"openprogram\\": {\\"content\\": 1, \\"model\\": []}',
            ),
            "model: Input should be a valid string",
        ),
    ],
    ids=["negative time", "deep nesting", "huge token count", "cut short", "odd own facts"],
)
def test_a_hostile_trace_is_refused_with_one_line_naming_file_and_span(
    tmp_path: Path, change: Any, reason: str
) -> None:
    trace = sdk_trace(tmp_path / "prod.json")
    text = json.dumps(json.loads(trace.read_text()), indent=None, separators=(", ", ": "))
    altered = change(text)
    assert altered != text
    trace.write_text(altered)
    with pytest.raises(TraceImportError) as refused:
        import_trace(trace, "prod")
    message = str(refused.value)
    assert "\n" not in message and reason in message and str(trace) in message
    assert not managed_path("prod").exists()


def structured_value(value: Any) -> dict[str, Any]:
    """`value` as OTLP's structured AnyValue (kvlist for objects), as some exporters send messages."""
    if isinstance(value, dict):
        entries = [{"key": k, "value": structured_value(v)} for k, v in value.items()]
        return {"kvlistValue": {"values": entries}}
    if isinstance(value, list):
        return {"arrayValue": {"values": [structured_value(item) for item in value]}}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    return {"stringValue": value}


def test_messages_as_structured_values_import_as_messages_as_json_strings(tmp_path: Path) -> None:
    context = Context(messages=[UserMessage(content="hi", timestamp=3)])
    original = record_session(
        tmp_path / "s.jsonl",
        [
            {
                "context": context,
                "answer": [ToolCallStep(name="echo", arguments={"n": [1, {"a": 2}]})],
            }
        ],
    )
    target = tmp_path / "trace.json"
    export_recording(str(original), target)
    trace = json.loads(target.read_text())
    for span in trace["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for entry in span["attributes"]:
            if entry["key"] in ("gen_ai.input.messages", "gen_ai.output.messages"):
                entry["value"] = structured_value(json.loads(entry["value"]["stringValue"]))
    target.write_text(json.dumps(trace))
    parsed(target)
    assert_same_calls(original, Path(import_trace(target, "structured").path))


def test_a_call_that_failed_mid_stream_comes_back_failed_with_what_it_had_said(
    tmp_path: Path,
) -> None:
    path = tmp_path / "failed.jsonl"
    sink = RecordingSink(path, {"created_at": "2026-12-01T10:00:00Z"})
    request = {
        "model": MODEL.model_dump(mode="json"),
        "context": Context(messages=[UserMessage(content="hi", timestamp=3)]).model_dump(
            mode="json"
        ),
        "options": None,
    }
    index = sink.begin_call(request, start_ms=40)
    partial = AssistantMessage(api="scripted", provider="scripted", model="echo-1", timestamp=9)
    said = [
        {"type": "start", "partial": partial.model_dump(mode="json")},
        {"type": "text_start", "content_index": 0},
        {"type": "text_delta", "content_index": 0, "delta": "half an ans"},
    ]
    for number, event in enumerate(said):
        sink.write_event(index, number, event, ms=5 * number)
    sink.end_call(index, 3, "error", "ConnectionResetError: peer went away", duration_ms=70)
    sink.close()
    target = tmp_path / "trace.json"
    export_recording(str(path), target)
    span = parsed(target).resource_spans[0].scope_spans[0].spans[1]
    assert span.status.message == "ConnectionResetError: peer went away"
    assert attributes(span)["error.type"] == "ConnectionResetError"
    (old,) = read_recording(path).calls
    (new,) = read_recording(Path(import_trace(target, "failed").path)).calls
    assert (new.outcome, new.error, new.start_ms, new.duration_ms) == (
        "error",
        "ConnectionResetError: peer went away",
        40,
        70,
    )
    assert new.request_payload() == old.request_payload()
    assert folded(new) == folded(old)
    assert not any(event.type in ("done", "error") for event in new.events)


JSON_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
PART = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["text", "reasoning", "tool_call", "tool_call_response", "blob", "x"]
        )
    },
    optional={
        "content": JSON_VALUE,
        "id": JSON_VALUE,
        "name": JSON_VALUE,
        "arguments": JSON_VALUE,
        "response": JSON_VALUE,
        "mime_type": JSON_VALUE,
        "openprogram": st.dictionaries(
            st.sampled_from(["signature", "refusal", "redacted", "timestamp", "usage", "blocks"]),
            JSON_VALUE,
        ),
    },
)
MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system", "x"])},
    optional={"parts": st.lists(PART, max_size=3) | JSON_VALUE, "finish_reason": JSON_VALUE},
)
MESSAGES = st.lists(MESSAGE, max_size=3) | JSON_VALUE


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(inputs=MESSAGES, outputs=MESSAGES, tools=st.none() | JSON_VALUE, status=JSON_VALUE)
def test_any_message_shape_in_a_span_imports_or_is_one_trace_import_error(
    tmp_path_factory: pytest.TempPathFactory, inputs: Any, outputs: Any, tools: Any, status: Any
) -> None:
    """A trace is untrusted: whatever its attributes hold, the import writes a recording the strict
    reader accepts or refuses with a `TraceImportError`, never another exception."""
    folder = tmp_path_factory.mktemp("fuzz")
    values = {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": json.dumps(inputs),
        "gen_ai.output.messages": json.dumps(outputs),
    }
    if tools is not None:
        values["gen_ai.tool.definitions"] = json.dumps(tools)
    span = {
        "spanId": "01",
        "startTimeUnixNano": "1000000000",
        "endTimeUnixNano": "2000000000",
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in values.items()],
        "status": status,
    }
    trace = folder / "trace.json"
    trace.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    try:
        report = import_trace(trace, folder.name.replace("_", "-"))
    except TraceImportError as refused:
        assert "\n" not in str(refused)
    else:
        assert len(read_recording(Path(report.path)).calls) == 1
