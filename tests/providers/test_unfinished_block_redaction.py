"""A content block that never ends (cut short by `length`, an error, a cancellation or a consumer
that stops) is redacted as a whole like any other block: no piece of a corpus shape reaches the
file however the stream split it, and the recorded deltas still fold to the recorded message."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Literal

import pytest

from openprogram.providers import (
    AssistantMessage,
    AssistantMessageEvent,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    StartEvent,
    StreamOptions,
    TextContent,
    TextDeltaEvent,
    TextStartEvent,
    ThinkingContent,
    ThinkingDeltaEvent,
    ThinkingStartEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallStartEvent,
    UserMessage,
)
from openprogram.providers.accumulator import assemble_message, parse_partial_json
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.redaction import remove_secret_values
from tests.providers.test_redaction_corpus import CORPUS, FIELD_NAMES, V, leaked

Kind = Literal["text", "thinking", "tool"]
Outcome = Literal["length", "error", "cancelled", "abandoned"]
MODEL = Model(id="m", api="scripted", provider="scripted")
CONTEXT = Context(messages=[UserMessage(content="go", timestamp=1)])


class CutShortProvider:
    """Streams one block in the pieces given and never ends it: then stops as `outcome` says."""

    requires_credentials = False

    def __init__(self, kind: Kind, pieces: list[str], outcome: Outcome) -> None:
        self.kind, self.pieces, self.outcome = kind, pieces, outcome

    async def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AsyncIterator[AssistantMessageEvent]:
        whole = "".join(self.pieces)
        partial = AssistantMessage(api="scripted", provider="scripted", model="m", timestamp=1)
        yield StartEvent(partial=partial)
        block: TextContent | ThinkingContent | ToolCall
        if self.kind == "text":
            yield TextStartEvent(content_index=0)
            for piece in self.pieces:
                yield TextDeltaEvent(content_index=0, delta=piece)
            block = TextContent(text=whole)
        elif self.kind == "thinking":
            yield ThinkingStartEvent(content_index=0)
            for piece in self.pieces:
                yield ThinkingDeltaEvent(content_index=0, delta=piece)
            block = ThinkingContent(thinking=whole)
        else:
            yield ToolCallStartEvent(content_index=0, id="call_1", name="login")
            for piece in self.pieces:
                yield ToolCallDeltaEvent(content_index=0, delta=piece)
            block = ToolCall(id="call_1", name="login", arguments=parse_partial_json(whole))
        message = partial.model_copy(update={"content": [block], "stop_reason": "length"})
        if self.outcome == "length":
            yield DoneEvent(reason="length", message=message)
        elif self.outcome == "error":
            failed = message.model_copy(update={"stop_reason": "error", "error_message": "reset"})
            yield ErrorEvent(reason="error", error=failed)
        else:
            await asyncio.Event().wait()  # the vendor goes quiet: the consumer cancels or stops

    stream_simple = stream


async def record(path: Path, provider: CutShortProvider) -> list[AssistantMessageEvent]:
    """Record one call as its outcome says; the events the caller received."""
    recorder = RecordingProvider(provider, path)
    stream = recorder.stream(MODEL, CONTEXT)
    received: list[AssistantMessageEvent] = []
    last_delta = asyncio.Event()

    async def consume() -> None:
        async for event in stream:
            received.append(event)
            if len(received) == 2 + len(provider.pieces):
                last_delta.set()
                if provider.outcome == "abandoned":
                    break
        await stream.aclose()  # type: ignore[attr-defined]

    try:
        if provider.outcome == "cancelled":
            task = asyncio.create_task(consume())
            await last_delta.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        else:
            await consume()
    finally:
        recorder.sink.close()
    return received


def unfinished_values(kind: Kind) -> list[str]:
    """Each corpus shape as the end of a block cut short (tool arguments: an open JSON string)."""
    if kind != "tool":
        return [f"ok:\n{text}" for text in CORPUS]
    notes = [json.dumps({"note": text})[:-2] for text in CORPUS]
    return [*notes, *(f'{{"{name}": "{V}' for name in ("password", *FIELD_NAMES))]


def assert_the_recorded_deltas_fold_to_the_recorded_message(
    path: Path, received: list[AssistantMessageEvent]
) -> None:
    """The fold of the recorded events is the redacted fold of the live ones, and the terminal."""
    (call,) = read_recording(path).calls
    events = [e for e in call.events if e.type not in ("done", "error")]
    folded = assemble_message(events)
    live = assemble_message(e for e in received if e.type not in ("done", "error"))
    assert folded is not None and live is not None
    recorded_blocks = [block.model_dump(mode="json") for block in folded.content]
    assert recorded_blocks == [
        remove_secret_values(block.model_dump(mode="json")) for block in live.content
    ]
    terminal = call.events[-1]
    if isinstance(terminal, DoneEvent | ErrorEvent):
        message = terminal.message if isinstance(terminal, DoneEvent) else terminal.error
        assert recorded_blocks == [block.model_dump(mode="json") for block in message.content]


@pytest.mark.parametrize("outcome", ["length", "error", "cancelled", "abandoned"])
@pytest.mark.parametrize("kind", ["text", "thinking", "tool"])
def test_an_unfinished_block_split_anywhere_leaves_no_piece_of_a_secret(
    tmp_path: Path, kind: Kind, outcome: Outcome
) -> None:
    for number, whole in enumerate(unfinished_values(kind)):
        for cut in range(1, len(whole)):
            path = tmp_path / f"{number}-{cut}.jsonl"
            provider = CutShortProvider(kind, [whole[:cut], whole[cut:]], outcome)
            received = asyncio.run(record(path, provider))
            assert leaked(path.read_text()) == [], (whole, cut)
            assert_the_recorded_deltas_fold_to_the_recorded_message(path, received)
            path.unlink()


async def test_the_reported_cut_password_is_removed_and_the_call_still_replays(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cut.jsonl"
    provider = CutShortProvider("tool", ['{"pass', f'word": "{V}'], "length")
    received = await record(path, provider)
    (call,) = read_recording(path).calls
    deltas = [e.delta for e in call.events if isinstance(e, ToolCallDeltaEvent)]
    assert deltas == ['{"password":"[secret removed]"']  # still cut short, as the vendor sent it
    assert call.outcome == "complete" and isinstance(call.events[-1], DoneEvent)
    assert call.events[-1].reason == "length"
    assert_the_recorded_deltas_fold_to_the_recorded_message(path, received)


def nested_unfinished_values() -> list[str]:
    """Each corpus shape and secret field name cut short inside a JSON string inside tool
    arguments, one and two levels down (`{"args": "{\\"password\\": \\"V`)."""
    inner = [json.dumps({"note": text})[:-2] for text in CORPUS]
    inner += [f'{{"{name}": "{V}' for name in ("password", *FIELD_NAMES)]
    once = [json.dumps({"args": text})[:-2] for text in inner]
    twice = [json.dumps({"args": json.dumps({"run": text})[:-2]})[:-2] for text in inner]
    return once + twice


@pytest.mark.parametrize("outcome", ["length", "abandoned"])
def test_a_secret_in_a_json_string_inside_arguments_cut_short_leaves_no_piece(
    tmp_path: Path, outcome: Outcome
) -> None:
    for number, whole in enumerate(nested_unfinished_values()):
        for cut in range(1, len(whole), 7):
            path = tmp_path / f"{number}-{cut}.jsonl"
            provider = CutShortProvider("tool", [whole[:cut], whole[cut:]], outcome)
            received = asyncio.run(record(path, provider))
            assert leaked(path.read_text()) == [], (whole, cut)
            assert_the_recorded_deltas_fold_to_the_recorded_message(path, received)
            path.unlink()
