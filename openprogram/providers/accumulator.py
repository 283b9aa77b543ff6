"""One fold from streamed events to the assistant message so far.

Vendor providers, the agent loop, replay and the TUI all use this, so a recording never needs a
cumulative snapshot in its delta events and every reader agrees on what event k means.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from openprogram.errors import OpenProgramError
from openprogram.providers.types import (
    AssistantMessage,
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingContent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)


class AccumulatorError(OpenProgramError, ValueError):
    """An event that cannot follow the events before it (e.g. a delta before its start)."""


def parse_partial_json(text: str) -> dict[str, Any]:
    """Best-effort parse of streamed tool arguments; `{}` until the JSON is complete."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


class MessageAccumulator:
    """Folds events into `message`, the assistant message as assembled so far.

    The first event must be `start`; its `partial` is copied, so the events themselves are never
    mutated and may be shared (replay hands out the same event objects it validated once).
    """

    def __init__(self) -> None:
        self.message: AssistantMessage | None = None
        self._tool_arguments: dict[int, str] = {}
        self.finished = False

    def apply(self, event: AssistantMessageEvent) -> AssistantMessage:
        """Apply one event and return the message so far."""
        if isinstance(event, StartEvent):
            self.message = event.partial.model_copy(deep=True)
            return self.message
        if isinstance(event, DoneEvent):
            self.message, self.finished = event.message, True
            return self.message
        if isinstance(event, ErrorEvent):
            self.message, self.finished = event.error, True
            return self.message
        message = self.message
        if message is None:
            raise AccumulatorError(f"{event.type} event before the start event")
        index = event.content_index
        if isinstance(event, TextStartEvent):
            self._put(message, index, TextContent(text=""))
        elif isinstance(event, ThinkingStartEvent):
            self._put(message, index, ThinkingContent(thinking=""))
        elif isinstance(event, ToolCallStartEvent):
            self._tool_arguments[index] = ""
            self._put(message, index, ToolCall(id=event.id, name=event.name, arguments={}))
        else:
            block = self._block(message, index, event.type)
            if isinstance(event, TextDeltaEvent) and isinstance(block, TextContent):
                block.text += event.delta
            elif isinstance(event, TextEndEvent) and isinstance(block, TextContent):
                block.text = event.content
                block.refusal = event.refusal
                block.signature = event.signature
            elif isinstance(event, ThinkingDeltaEvent) and isinstance(block, ThinkingContent):
                block.thinking += event.delta
            elif isinstance(event, ThinkingEndEvent) and isinstance(block, ThinkingContent):
                block.thinking = event.content
                block.signature = event.signature
                block.redacted = event.redacted
            elif isinstance(event, ToolCallDeltaEvent) and isinstance(block, ToolCall):
                buffer = self._tool_arguments.get(index, "") + event.delta
                self._tool_arguments[index] = buffer
                block.arguments = parse_partial_json(buffer)
            elif isinstance(event, ToolCallEndEvent) and isinstance(block, ToolCall):
                message.content[index] = event.tool_call.model_copy(deep=True)
                self._tool_arguments.pop(index, None)
            else:
                raise AccumulatorError(
                    f"{event.type} event at content_index {index} does not match a {block.type} block"
                )
        return message

    @staticmethod
    def _put(message: AssistantMessage, index: int, block: Any) -> None:
        if index == len(message.content):
            message.content.append(block)
        elif 0 <= index < len(message.content):
            message.content[index] = block
        else:
            raise AccumulatorError(
                f"content_index {index} skips ahead of {len(message.content)} blocks"
            )

    @staticmethod
    def _block(message: AssistantMessage, index: int, event_type: str) -> Any:
        if not 0 <= index < len(message.content):
            raise AccumulatorError(f"{event_type} event at content_index {index} has no block")
        return message.content[index]


def assemble_message(events: Iterable[AssistantMessageEvent]) -> AssistantMessage | None:
    """The message after folding `events` in order (None when there are none)."""
    accumulator = MessageAccumulator()
    message: AssistantMessage | None = None
    for event in events:
        message = accumulator.apply(event)
    return message
