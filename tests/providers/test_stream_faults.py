"""`ReplayProvider(path, fault=…)`: a recorded stream broken as a live one breaks.

The same vendor stream is recorded whole from a loopback server, then played live broken (the
connection dropped, a vendor error in the stream, a stall past the read timeout): the replayed
fault must end with the very event the live provider ended with.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from openprogram.providers import Context, Model, StreamOptions, UserMessage
from openprogram.providers.http.openai_completions import OpenAICompletionsProvider
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.replayer import ReplayProvider
from openprogram.providers.recording.stream_faults import (
    StreamFault,
    StreamFaultError,
    parse_fault,
)
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.types import AssistantMessageEvent, DoneEvent, ErrorEvent
from tests.providers.test_openai_completions import text_stream
from tests.sse_server import SSEServer, sse_event, sse_response

CONTEXT = Context(messages=[UserMessage(content="Say hello", timestamp=1)])
PIECES = ["one ", "two ", "three"]


def model_for(server: SSEServer) -> Model:
    return Model(id="gpt-test", api="openai-completions", provider="openai", base_url=server.url)


async def events_of(stream: object) -> list[AssistantMessageEvent]:
    return [event async for event in stream]  # type: ignore[attr-defined]


async def record_whole(
    server: SSEServer, path: Path, options: StreamOptions | None = None
) -> list[AssistantMessageEvent]:
    server.respond(sse_response(text_stream(PIECES)))
    sink = RecordingSink(path)
    recorder = RecordingProvider(OpenAICompletionsProvider(), sink)
    events = await events_of(recorder.stream(model_for(server), CONTEXT, options))
    sink.close()
    return events


def same_ending(replayed: ErrorEvent, live: ErrorEvent) -> None:
    """Both error events alike but for when they were made."""
    assert replayed.reason == live.reason
    assert replayed.error.model_dump(exclude={"timestamp"}) == live.error.model_dump(
        exclude={"timestamp"}
    )


async def test_a_cut_ends_as_a_dropped_connection_does(
    sse_server: SSEServer, tmp_path: Path
) -> None:
    path = tmp_path / "call.jsonl"
    whole = await record_whole(sse_server, path)
    assert [e.type for e in whole] == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    # Live: the connection drops after the role chunk and two pieces of text.
    sse_server.respond(sse_response(text_stream(PIECES), drop_after=3))
    live = await events_of(OpenAICompletionsProvider().stream(model_for(sse_server), CONTEXT))
    assert [e.type for e in live] == ["start", "text_start", "text_delta", "text_delta", "error"]

    replay = ReplayProvider(path, fault=StreamFault(kind="cut", call=0, event=3))
    replayed = await events_of(replay.stream(model_for(sse_server), CONTEXT))
    assert replayed[:-1] == whole[:4]
    assert isinstance(replayed[-1], ErrorEvent) and isinstance(live[-1], ErrorEvent)
    same_ending(replayed[-1], live[-1])


async def test_a_vendor_error_ends_as_the_vendors_error_event_does(
    sse_server: SSEServer, tmp_path: Path
) -> None:
    path = tmp_path / "call.jsonl"
    await record_whole(sse_server, path)
    error = {
        "message": "The server had an error while processing your request.",
        "type": "server_error",
    }
    sse_server.respond(sse_response([*text_stream(PIECES)[:3], sse_event({"error": error})]))
    live = await events_of(OpenAICompletionsProvider().stream(model_for(sse_server), CONTEXT))

    replay = ReplayProvider(path, fault=parse_fault("error@0:3"))
    replayed = await events_of(replay.stream(model_for(sse_server), CONTEXT))
    assert isinstance(replayed[-1], ErrorEvent) and isinstance(live[-1], ErrorEvent)
    same_ending(replayed[-1], live[-1])


async def test_a_stall_past_the_read_timeout_ends_as_a_live_timeout(
    sse_server: SSEServer, tmp_path: Path
) -> None:
    path = tmp_path / "call.jsonl"
    options = StreamOptions(timeout=0.3)
    await record_whole(sse_server, path, options)
    sse_server.respond(sse_response(text_stream(PIECES), delay=5))
    live = await events_of(
        OpenAICompletionsProvider().stream(model_for(sse_server), CONTEXT, options)
    )

    replay = ReplayProvider(path, fault=StreamFault(kind="stall", call=0, event=1, seconds=5))
    replayed = await events_of(replay.stream(model_for(sse_server), CONTEXT, options))
    assert isinstance(replayed[-1], ErrorEvent) and isinstance(live[-1], ErrorEvent)
    same_ending(replayed[-1], live[-1])


async def test_cancel_raises_where_the_consumer_awaits_and_a_retry_is_answered_whole(
    sse_server: SSEServer, tmp_path: Path
) -> None:
    path = tmp_path / "call.jsonl"
    whole = await record_whole(sse_server, path)
    replay = ReplayProvider(path, fault=parse_fault("cancel@0:2"))
    seen: list[AssistantMessageEvent] = []

    async def consume() -> None:
        async for event in replay.stream(model_for(sse_server), CONTEXT):
            seen.append(event)

    with pytest.raises(asyncio.CancelledError):
        await asyncio.create_task(consume())
    assert seen == whole[:3]
    assert replay.call_count == 0  # the broken call is not consumed
    again = await events_of(replay.stream(model_for(sse_server), CONTEXT))
    assert again == whole and isinstance(again[-1], DoneEvent)
    assert replay.call_count == 1
    replay.assert_consumed()


async def test_a_fault_outside_the_recording_is_refused_when_replay_starts(
    sse_server: SSEServer, tmp_path: Path
) -> None:
    path = tmp_path / "call.jsonl"
    await record_whole(sse_server, path)
    with pytest.raises(StreamFaultError, match=r"fault cut@1: .* has 1 call"):
        ReplayProvider(path, fault=parse_fault("cut@1"))
    with pytest.raises(StreamFaultError, match="can break after event 0–5 only, not 6"):
        ReplayProvider(path, fault=parse_fault("cut@0:6"))
    with pytest.raises(StreamFaultError, match="can break before event 1–6 only, not 0"):
        ReplayProvider(path, fault=parse_fault("stall@0:0"))
