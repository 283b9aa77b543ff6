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
    except (json.JSONDecodeError, RecursionError):  # nested deeper than json reads: no value
        return {}
    return value if isinstance(value, dict) else {}


JOIN_EVERY = 1024
"""How many deltas of one block are kept as pieces before they are joined into it."""


class MessageAccumulator:
    """Folds events into `message`, the assistant message as assembled so far.

    The first event must be `start`; its `partial` is copied, so the events themselves are never
    mutated and may be shared (replay hands out the same event objects it validated once).

    Deltas are kept as pieces and joined into their block when `message` is read, or every
    `JOIN_EVERY` pieces: a call of a million deltas folds in about a second (adding each delta to
    a model's string field copied the text so far every time, and re-parsed a tool call's whole
    arguments per delta: 107 s), and the pieces held stay few.
    """

    def __init__(self) -> None:
        self._message: AssistantMessage | None = None
        self._pending: dict[int, list[str]] = {}
        """Deltas of each block (by content index) not yet joined into it."""
        self._tool_arguments: dict[int, str] = {}
        """The streamed arguments of each open tool call, as joined so far."""
        self.finished = False

    @property
    def message(self) -> AssistantMessage | None:
        """The message as assembled through the last event applied (None before `start`)."""
        self._join_pending()
        return self._message

    def apply(self, event: AssistantMessageEvent) -> None:
        """Apply one event (read `message` for the message so far)."""
        if isinstance(event, StartEvent):
            self._message = event.partial.model_copy(deep=True)
            self._pending.clear()
            return
        if isinstance(event, DoneEvent | ErrorEvent):
            self._message = event.message if isinstance(event, DoneEvent) else event.error
            self._pending.clear()
            self.finished = True
            return
        message = self._message
        if message is None:
            raise AccumulatorError(f"{event.type} event before the start event")
        index = event.content_index
        if isinstance(event, TextStartEvent):
            self._put(message, index, TextContent(text=""))
        elif isinstance(event, ThinkingStartEvent):
            self._put(message, index, ThinkingContent(thinking=""))
        elif isinstance(event, ToolCallStartEvent):
            self._put(message, index, ToolCall(id=event.id, name=event.name, arguments={}))
            self._tool_arguments[index] = ""
        else:
            block = self._block(message, index, event.type)
            if isinstance(event, TextDeltaEvent) and isinstance(block, TextContent):
                self._add_piece(index, event.delta)
            elif isinstance(event, TextEndEvent) and isinstance(block, TextContent):
                self._pending.pop(index, None)
                block.text = event.content
                block.refusal = event.refusal
                block.signature = event.signature
            elif isinstance(event, ThinkingDeltaEvent) and isinstance(block, ThinkingContent):
                self._add_piece(index, event.delta)
            elif isinstance(event, ThinkingEndEvent) and isinstance(block, ThinkingContent):
                self._pending.pop(index, None)
                block.thinking = event.content
                block.signature = event.signature
                block.redacted = event.redacted
            elif isinstance(event, ToolCallDeltaEvent) and isinstance(block, ToolCall):
                self._add_piece(index, event.delta)
            elif isinstance(event, ToolCallEndEvent) and isinstance(block, ToolCall):
                self._pending.pop(index, None)
                message.content[index] = event.tool_call.model_copy(deep=True)
                self._tool_arguments.pop(index, None)
            else:
                raise AccumulatorError(
                    f"{event.type} event at content_index {index} does not match a {block.type} block"
                )

    def _add_piece(self, index: int, delta: str) -> None:
        pieces = self._pending.setdefault(index, [])
        pieces.append(delta)
        if len(pieces) >= JOIN_EVERY:
            self._join_pending()

    def _join_pending(self) -> None:
        """Join every block's pending deltas into it (a tool call's arguments parsed once)."""
        if self._message is None or not self._pending:
            return
        content = self._message.content
        for index, pieces in self._pending.items():
            block, joined = content[index], "".join(pieces)
            if isinstance(block, TextContent):
                block.text += joined
            elif isinstance(block, ThinkingContent):
                block.thinking += joined
            elif isinstance(block, ToolCall):
                arguments = self._tool_arguments.get(index, "") + joined
                self._tool_arguments[index] = arguments
                block.arguments = parse_partial_json(arguments)
        self._pending.clear()

    def _put(self, message: AssistantMessage, index: int, block: Any) -> None:
        """Start `block` at `index` (a new block, or one replacing the block there)."""
        self._pending.pop(index, None)
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
    for event in events:
        accumulator.apply(event)
    return accumulator.message
