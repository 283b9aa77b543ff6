"""A recording of one call with very many events, written through the library's writer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openprogram.providers.recording.writer import RecordingSink

MODEL = {"api": "openai-completions", "provider": "openai", "id": "gpt-4o-mini", "name": "GPT"}
PARTIAL: dict[str, Any] = {
    "role": "assistant",
    "content": [],
    "api": "openai-completions",
    "provider": "openai",
    "model": "gpt-4o-mini",
    "stop_reason": "stop",
    "timestamp": 0,
}


def write_long_call(path: Path, deltas: int, *, done: bool = True) -> int:
    """Record one call of `deltas` text deltas (`w0 `, `w1 `, …) between start/text_start and
    text_end/done (without `done`, the call ends `cancelled` after its deltas); returns the
    number of events."""
    sink = RecordingSink(path, {"entry": {"argv": ["long-call"]}})
    context = {"system_prompt": "You help.", "messages": [], "tools": None}
    call = sink.begin_call({"model": MODEL, "context": context, "options": None})
    count = 0

    def event(body: dict[str, Any]) -> None:
        nonlocal count
        sink.write_event(call, count, body)
        count += 1

    event({"type": "start", "partial": PARTIAL})
    event({"type": "text_start", "content_index": 0})
    for n in range(deltas):
        event({"type": "text_delta", "content_index": 0, "delta": f"w{n} "})
    if done:
        text = "".join(f"w{n} " for n in range(deltas))
        event({"type": "text_end", "content_index": 0, "content": text})
        content = [{"type": "text", "text": text}]
        event({"type": "done", "reason": "stop", "message": {**PARTIAL, "content": content}})
        sink.end_call(call, count, "complete")
    else:
        sink.end_call(call, count, "cancelled")
    sink.close()
    return count
