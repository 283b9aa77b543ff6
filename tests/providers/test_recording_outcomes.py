"""How a call ends is recorded (complete, error, cancelled, abandoned) and replayed faithfully."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from openprogram.providers import Context, Model, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.mismatch import ReplayMismatch
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.replayer import RecordedCallError, ReplayProvider
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.scripted import ScriptedProvider, TextStep
from openprogram.providers.types import AssistantMessageEvent, DoneEvent, StreamOptions

MODEL = Model(id="m", api="scripted", provider="scripted")
CONTEXT = Context(messages=[UserMessage(content="hello")])


class FailingProvider:
    """Streams `good` events of a scripted answer, then raises."""

    requires_credentials = False

    def __init__(self, good: int) -> None:
        self.good = good
        self.closed = False

    async def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        count = 0
        try:
            async for event in ScriptedProvider([[TextStep(text="one two three four")]]).stream(
                model, context
            ):
                if count == self.good:
                    raise ConnectionResetError("peer went away")
                count += 1
                yield event
        finally:
            self.closed = True

    stream_simple = stream


class NoAcloseStream:
    """An async iterable whose iterator has no aclose (not a generator)."""

    requires_credentials = False

    def __init__(self, events: list[AssistantMessageEvent]) -> None:
        self.events = events

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> NoAcloseStream:
        return self

    stream_simple = stream

    def __aiter__(self) -> NoAcloseStream:
        self.position = 0
        return self

    async def __anext__(self) -> AssistantMessageEvent:
        if self.position >= len(self.events):
            raise StopAsyncIteration
        self.position += 1
        return self.events[self.position - 1]


async def scripted_events() -> list[AssistantMessageEvent]:
    return [e async for e in ScriptedProvider([[TextStep(text="a b")]]).stream(MODEL, CONTEXT)]


async def test_a_provider_error_is_recorded_and_replayed_as_that_failure(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    source = FailingProvider(good=3)
    recorder = RecordingProvider(source, path)
    seen = []
    with pytest.raises(ConnectionResetError):
        async for event in recorder.stream(MODEL, CONTEXT):
            seen.append(event)
    assert source.closed
    call = read_recording(path).calls[0]
    assert (call.outcome, len(call.events)) == ("error", 3)
    assert call.error == "ConnectionResetError: peer went away"

    replayed = []
    with pytest.raises(
        RecordedCallError, match="recorded call 0 failed when it was recorded: ConnectionResetError"
    ):
        async for event in ReplayProvider(path).stream(MODEL, CONTEXT):
            replayed.append(event)
    assert replayed == seen


async def test_a_consumer_that_stops_early_records_abandoned_and_replay_flags_reading_past(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.jsonl"
    stream = RecordingProvider(ScriptedProvider([[TextStep(text="a b c d")]]), path).stream(
        MODEL, CONTEXT
    )
    got = [await stream.__anext__(), await stream.__anext__()]
    await stream.aclose()
    call = read_recording(path).calls[0]
    assert (call.outcome, len(call.events)) == ("abandoned", 2)

    replay = ReplayProvider(path).stream(MODEL, CONTEXT)
    assert [await replay.__anext__(), await replay.__anext__()] == got
    with pytest.raises(ReplayMismatch) as caught:
        await replay.__anext__()
    assert caught.value.event_index == 2
    assert (caught.value.kind, caught.value.field_path) == ("read_past_end", None)
    assert "at call 0, event 2" in str(caught.value)


async def test_a_cancelled_call_records_cancelled(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    waiting = asyncio.Event()

    class Slow:
        requires_credentials = False

        async def stream(
            self, model: Model, context: Context, options: StreamOptions | None = None
        ) -> AsyncIterator[AssistantMessageEvent]:
            events = await scripted_events()
            yield events[0]
            waiting.set()  # the first event reached the caller; the second never comes
            await asyncio.Event().wait()
            yield events[1]

        stream_simple = stream

    async def consume() -> None:
        async for _ in RecordingProvider(Slow(), path).stream(MODEL, CONTEXT):
            pass

    task = asyncio.create_task(consume())
    await waiting.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    call = read_recording(path).calls[0]
    assert (call.outcome, len(call.events)) == ("cancelled", 1)


async def test_a_source_without_aclose_works_and_a_second_terminal_event_is_dropped(
    tmp_path: Path,
) -> None:
    events = await scripted_events()
    done = events[-1]
    assert isinstance(done, DoneEvent)
    path = tmp_path / "r.jsonl"
    delivered = [
        e
        async for e in RecordingProvider(NoAcloseStream([*events, done]), path).stream(
            MODEL, CONTEXT
        )
    ]
    assert delivered == events
    call = read_recording(path).calls[0]
    assert (call.outcome, len(call.events)) == ("complete", len(events))


async def test_runtime_only_options_are_not_recorded_but_reach_the_provider(tmp_path: Path) -> None:
    seen: list[StreamOptions | None] = []

    class Spy:
        requires_credentials = False

        async def stream(
            self, model: Model, context: Context, options: StreamOptions | None = None
        ) -> AsyncIterator[AssistantMessageEvent]:
            seen.append(options)
            for event in await scripted_events():
                yield event

        stream_simple = stream

    signal = asyncio.Event()
    options = StreamOptions(temperature=0.5, signal=signal, on_payload=lambda body: None)
    path = tmp_path / "r.jsonl"
    [e async for e in RecordingProvider(Spy(), path).stream(MODEL, CONTEXT, options)]
    assert seen[0] is not None and seen[0].signal is signal
    text = path.read_text()
    assert "signal" not in text and "on_payload" not in text
    assert read_recording(path).calls[0].request.options["temperature"] == 0.5  # type: ignore[index]


class RefusingProvider:
    """Fails in `stream()` itself, before any event (a vendor client that refuses the request)."""

    requires_credentials = False

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        raise PermissionError("refused: key sk-proj-a1B2c3D4e5F6g7H8i9J0k1L2m3N4 is revoked")

    stream_simple = stream


async def test_a_provider_failing_before_its_first_event_is_recorded_and_replayed_as_that_failure(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.jsonl"
    with pytest.raises(PermissionError):
        async for _ in RecordingProvider(RefusingProvider(), path).stream(MODEL, CONTEXT):
            pass
    call = read_recording(path).calls[0]
    assert (call.outcome, len(call.events)) == ("error", 0)
    assert call.request.context["messages"][0]["content"] == "hello"
    assert call.error is not None and call.error.startswith("PermissionError: refused: key ")
    assert "sk-proj-a1B2" not in call.error and "is revoked" in call.error

    with pytest.raises(RecordedCallError, match="failed when it was recorded: PermissionError"):
        async for _ in ReplayProvider(path).stream(MODEL, CONTEXT):
            pass


class EventLog(RecordingSink):
    """A sink that also keeps every event row it is given (one write path: all pass here)."""

    def __init__(self, path: Path) -> None:
        self.events: list[dict[str, Any]] = []
        super().__init__(path)

    def write_event(self, call_index: int, event_index: int, event: dict[str, Any]) -> None:
        self.events.append(event)
        super().write_event(call_index, event_index, event)


async def test_every_event_row_goes_through_the_sink_s_one_write_path(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    sink = EventLog(path)
    answer = "a b c"
    async for _ in RecordingProvider(ScriptedProvider([[TextStep(text=answer)]]), sink).stream(
        MODEL, CONTEXT
    ):
        pass
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    stored = [row["event"] for row in rows if row["type"] == "event"]
    assert sink.events == stored and len(stored) == 7  # start, text start, 3 deltas, end, done
    written = [line for line in path.read_bytes().splitlines() if b'"type":"event"' in line]
    assert written == [
        json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        for row in rows
        if row["type"] == "event"
    ]
