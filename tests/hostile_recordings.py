"""Valid format-2 recordings of the shapes that made readers blow up (issue #39): small files whose
references, followed naively, rebuild far more than the file holds. Used by the tests and `bench/`.

- fan-out: call 0 holds `messages` short messages; every later call keeps all of them
  (`{"base": 0, "keep": messages}`) and adds nothing;
- chain: call i keeps every message of call i-1 and adds one (call i holds i + 1 messages).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

MODEL = {
    "api": "scripted",
    "base_url": "",
    "context_window": 128000,
    "headers": None,
    "id": "echo-1",
    "input": ["text"],
    "max_tokens": 4096,
    "name": "Echo",
    "provider": "scripted",
    "reasoning": False,
}


def _row(value: dict[str, Any]) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode() + b"\n"


def _message(n: int) -> dict[str, Any]:
    return {"content": f"m{n}", "role": "user", "timestamp": 1796429340000 + n}


def _end(call: int) -> bytes:
    row = {"call_index": call, "event_count": 0, "outcome": "complete", "type": "call_end"}
    return _row(row)


def _answer(call: int, answers: bool = True) -> Iterator[bytes]:
    """One `done` event and the call's end (the smallest whole call with an answer and usage), or
    without `answers` the end alone (the smallest whole call)."""
    if not answers:
        yield _end(call)
        return
    message = {
        "api": "scripted",
        "content": [{"text": f"ok {call}", "type": "text"}],
        "error_message": None,
        "model": "echo-1",
        "provider": "scripted",
        "role": "assistant",
        "stop_reason": "stop",
        "timestamp": 1796429340000 + call,
        "usage": {"cache_read": 0, "cache_write": 0, "input": 3, "output": 2, "total_tokens": 5},
    }
    event = {"message": message, "reason": "stop", "type": "done"}
    yield _row({"call_index": call, "event": event, "event_index": 0, "ms": 1, "type": "event"})
    yield _row(
        {
            "call_index": call,
            "duration_ms": 1,
            "event_count": 1,
            "outcome": "complete",
            "type": "call_end",
        }
    )


def _header() -> bytes:
    return _row({"format_version": 2, "type": "header"})


def _first_call(messages: int, answers: bool) -> Iterator[bytes]:
    """The header and call 0: a full request of `messages` messages."""
    yield _header()
    context = {
        "messages": [_message(n) for n in range(messages)],
        "system_prompt": None,
        "tools": None,
    }
    first = {"call_index": 0, "context": context, "model": MODEL, "options": None}
    yield _row({**first, "start_ms": 0, "type": "request"})
    yield from _answer(0, answers)


def fan_out_rows(calls: int, messages: int, answers: bool = True) -> Iterator[bytes]:
    yield from _first_call(messages, answers)
    for call in range(1, calls):
        row = {"base": 0, "call_index": call, "context": {}, "keep": messages}
        yield _row({**row, "start_ms": call, "type": "request"})
        yield from _answer(call, answers)


def chain_rows(calls: int, answers: bool = True) -> Iterator[bytes]:
    yield from _first_call(1, answers)
    for call in range(1, calls):
        row = {
            "base": call - 1,
            "call_index": call,
            "context": {"messages": [_message(call)]},
            "keep": call,
        }
        yield _row({**row, "start_ms": call, "type": "request"})
        yield from _answer(call, answers)


def write_rows(path: Path, rows: Iterator[bytes]) -> Path:
    """Write `rows` to a new private file at `path`."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.writelines(rows)
    return path


def write_fan_out(
    path: Path, calls: int = 3000, messages: int = 3000, answers: bool = True
) -> Path:
    return write_rows(path, fan_out_rows(calls, messages, answers))


def write_chain(path: Path, calls: int = 8000, answers: bool = True) -> Path:
    return write_rows(path, chain_rows(calls, answers))
