"""Synthetic recording rows for TUI model tests, encoded the way the recorder writes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openprogram.providers.recording.row_encoding import encode_row
from openprogram.providers.types import (
    AssistantMessage,
    DoneEvent,
    StartEvent,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
)

MODEL = {"api": "openai-completions", "provider": "openai", "id": "gpt-4o-mini"}


def header() -> bytes:
    return encode_row({"type": "header", "format_version": 2, "created_at": "2026-01-01T00:00:00Z"})


def request(call_index: int, text: str = "hi") -> bytes:
    context = {
        "system_prompt": None,
        "messages": [{"role": "user", "content": text}],
        "tools": None,
    }
    return encode_row(
        {
            "type": "request",
            "call_index": call_index,
            "model": MODEL,
            "context": context,
            "options": None,
        }
    )


def text_events(words: list[str]) -> list[dict[str, Any]]:
    """start, a text block streamed word by word, done — as dumped event dicts."""
    partial = AssistantMessage(
        api="openai-completions", provider="openai", model="gpt-4o-mini", timestamp=0
    )
    events: list[Any] = [StartEvent(partial=partial), TextStartEvent(content_index=0)]
    events += [TextDeltaEvent(content_index=0, delta=w) for w in words]
    events.append(TextEndEvent(content_index=0, content="".join(words)))
    final = partial.model_copy(update={"content": [TextContent(text="".join(words))]})
    events.append(DoneEvent(reason="stop", message=final))
    return [e.model_dump(mode="json") for e in events]


def event(call_index: int, event_index: int, payload: dict[str, Any]) -> bytes:
    return encode_row(
        {"type": "event", "call_index": call_index, "event_index": event_index, "event": payload}
    )


def call_end(call_index: int, count: int, outcome: str = "complete") -> bytes:
    return encode_row(
        {"type": "call_end", "call_index": call_index, "event_count": count, "outcome": outcome}
    )


def call_rows(call_index: int, words: list[str], text: str = "hi") -> list[bytes]:
    """Every row of one whole call."""
    payloads = text_events(words)
    rows = [request(call_index, text)]
    rows += [event(call_index, n, p) for n, p in enumerate(payloads)]
    rows.append(call_end(call_index, len(payloads)))
    return rows


def write_rows(path: Path, rows: list[bytes]) -> Path:
    path.write_bytes(b"".join(rows))
    path.chmod(0o600)
    return path
