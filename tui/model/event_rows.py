"""One row per streamed event: `event_index`, type and a preview of what the event adds."""

from __future__ import annotations

import json
from dataclasses import dataclass

from openprogram.providers.types import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from tui.model.line_preview import preview_line


@dataclass(frozen=True)
class EventSummary:
    """What the event list shows for one event row."""

    event_index: int
    line_number: int
    """1-based, as the strict reader counts lines."""
    type: str
    preview: str
    error: str | None = None
    """Why the row cannot be read (then `type` is `?`)."""
    ms: int | None = None
    """When the event arrived, after the call's request (None: not recorded)."""
    gap_ms: int | None = None
    """The time since the event before (the first event: since the request); None: not recorded."""


def preview_event(event: AssistantMessageEvent) -> str:
    """The part of an event worth a glance: the delta, the tool, the stop reason."""
    if isinstance(event, TextDeltaEvent | ThinkingDeltaEvent | ToolCallDeltaEvent):
        return preview_line(event.delta)
    if isinstance(event, TextEndEvent | ThinkingEndEvent):
        return preview_line(event.content)
    if isinstance(event, ToolCallStartEvent):
        return preview_line(f"{event.name} ({event.id})")
    if isinstance(event, ToolCallEndEvent):
        arguments = json.dumps(event.tool_call.arguments, ensure_ascii=False, sort_keys=True)
        return preview_line(f"{event.tool_call.name} {arguments}")
    if isinstance(event, StartEvent):
        partial = event.partial
        return preview_line(f"{partial.provider}/{partial.model}")
    if isinstance(event, DoneEvent):
        usage = event.message.usage
        return f"{event.reason} · {usage.total_tokens} tokens"
    if isinstance(event, ErrorEvent):
        return preview_line(f"{event.reason}: {event.error.error_message or ''}".rstrip(": "))
    return ""


def summarize_event(
    event_index: int, line_number: int, event: AssistantMessageEvent
) -> EventSummary:
    """The list row of one readable event."""
    return EventSummary(event_index, line_number, event.type, preview_event(event))
