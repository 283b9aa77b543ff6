"""The one fold from streamed events to the message so far, read at any point of a long stream."""

from __future__ import annotations

import json

from openprogram.providers.accumulator import JOIN_EVERY, MessageAccumulator, assemble_message
from openprogram.providers.types import (
    AssistantMessage,
    AssistantMessageEvent,
    StartEvent,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingContent,
    ThinkingDeltaEvent,
    ThinkingStartEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallStartEvent,
)


def start() -> StartEvent:
    partial = AssistantMessage(content=[], api="a", provider="p", model="m", timestamp=0)
    return StartEvent(partial=partial)


def test_the_message_read_after_any_delta_holds_every_delta_so_far() -> None:
    """Read mid-stream (the TUI's "message so far"), across the points where pieces are joined."""
    accumulator = MessageAccumulator()
    for event in (start(), TextStartEvent(content_index=0), ThinkingStartEvent(content_index=1)):
        accumulator.apply(event)
    words = [f"w{n} " for n in range(3 * JOIN_EVERY + 5)]
    for number, word in enumerate(words):
        accumulator.apply(TextDeltaEvent(content_index=0, delta=word))
        accumulator.apply(ThinkingDeltaEvent(content_index=1, delta=word.upper()))
        if number % 997 == 0 or number == len(words) - 1:
            message = accumulator.message
            assert message is not None
            text, thinking = message.content
            assert isinstance(text, TextContent) and isinstance(thinking, ThinkingContent)
            assert text.text == "".join(words[: number + 1])
            assert thinking.thinking == "".join(words[: number + 1]).upper()


def test_an_end_event_replaces_the_pieces_not_yet_joined() -> None:
    events: list[AssistantMessageEvent] = [start(), TextStartEvent(content_index=0)]
    events += [TextDeltaEvent(content_index=0, delta="draft ") for _ in range(10)]
    events.append(TextEndEvent(content_index=0, content="final"))
    message = assemble_message(events)
    assert message is not None and message.content == [TextContent(text="final")]


def test_a_tool_calls_arguments_parse_once_complete_whatever_the_piece_count() -> None:
    arguments = json.dumps({"items": [f"item {n}" for n in range(2 * JOIN_EVERY)]})
    events: list[AssistantMessageEvent] = [
        start(),
        ToolCallStartEvent(content_index=0, id="c1", name="collect"),
    ]
    events += [ToolCallDeltaEvent(content_index=0, delta=ch) for ch in arguments]
    accumulator = MessageAccumulator()
    for event in events[:-1]:
        accumulator.apply(event)
    partial = accumulator.message
    assert partial is not None and isinstance(partial.content[0], ToolCall)
    assert partial.content[0].arguments == {}  # not complete JSON yet
    accumulator.apply(events[-1])
    whole = accumulator.message
    assert whole is not None and isinstance(whole.content[0], ToolCall)
    assert whole.content[0].arguments == json.loads(arguments)
