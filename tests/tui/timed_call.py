"""A recording of two calls through the library's writer: one with a stall of 3 s inside its
stream, one whose events hold no time (as a migrated version-1 call)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openprogram.providers.recording.writer import RecordingSink
from tests.tui.long_call import MODEL, PARTIAL

STALLED_TIMES = (120, 130, 140, 3140, 3150, 3160)
"""Event 3 arrives 3 s after event 2."""


def write_timed_calls(path: Path) -> Path:
    sink = RecordingSink(path, {"entry": {"argv": ["timed"]}})
    context = {"system_prompt": "You help.", "messages": [], "tools": None}
    for times in (STALLED_TIMES, (None,) * len(STALLED_TIMES)):
        call = sink.begin_call({"model": MODEL, "context": context, "options": None})
        words = ["a ", "b ", "c "]
        bodies: list[dict[str, Any]] = [
            {"type": "start", "partial": PARTIAL},
            {"type": "text_start", "content_index": 0},
            *({"type": "text_delta", "content_index": 0, "delta": w} for w in words),
            {"type": "text_end", "content_index": 0, "content": "".join(words)},
        ]
        for n, (body, ms) in enumerate(zip(bodies, times, strict=True)):
            sink.write_event(call, n, body, ms=ms)
        sink.end_call(call, len(bodies), "complete")
    sink.close()
    return path
