"""Hypothesis strategies for recordings the strict reader accepts, however odd: numbers at and
near their bounds, empty and hostile strings, optional fields missing, every stop reason and
outcome, events in any order (the reader checks rows, not whether the events fold), and a model
the price table knows. For the property that every view is total over what the reader accepts
(issue #40, item 4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from openprogram.providers.types import (
    MAX_CALL_MS,
    MAX_COUNT,
    MAX_SESSION_MS,
    MAX_TOKENS,
    MAX_UNIX_MS,
)


def bounded(top: int) -> st.SearchStrategy[int]:
    """An integer in 0..top, its ends and their neighbours often."""
    return st.sampled_from([0, 1, top - 1, top]) | st.integers(0, top)


TEXT = st.sampled_from(["", " ", "\n", "[bold]x[/]", "\x1b]52;c;aGk=\x07", "é" * 3, "a" * 300])
TEXT |= st.text(max_size=12)
NUMBER = (
    st.integers(-(10**30), 10**30)
    | st.sampled_from([10**400, -(10**400)])
    | st.floats(allow_nan=False, allow_infinity=False)
)
JSON = st.recursive(
    st.none() | st.booleans() | NUMBER | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
MODEL = st.fixed_dictionaries(
    {},
    optional={
        "id": st.sampled_from(["gpt-4o", "claude-3-5-sonnet-latest", "m"]) | TEXT,
        "provider": st.sampled_from(["openai", "anthropic", "scripted"]) | TEXT,
        "api": TEXT,
        "base_url": st.sampled_from(["", "https://api.openai.com/v1"]),
        "context_window": NUMBER,
    },
)
MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "toolResult", "other"])},
    optional={"content": TEXT | JSON, "timestamp": NUMBER, "usage": JSON},
)
CONTEXT = st.fixed_dictionaries(
    {},
    optional={
        "messages": st.lists(MESSAGE, max_size=3) | JSON,
        "system_prompt": st.none() | TEXT,
        "tools": st.none() | st.lists(st.fixed_dictionaries({"name": TEXT}), max_size=2),
    },
)

USAGE = st.fixed_dictionaries(
    {},
    optional={
        kind: bounded(MAX_TOKENS)
        for kind in ("input", "output", "cache_read", "cache_write", "total_tokens", "reasoning")
    },
)
STOP_REASON = st.sampled_from(["stop", "length", "toolUse", "pauseTurn", "error", "aborted"])
ASSISTANT = st.fixed_dictionaries(
    {"api": TEXT, "provider": TEXT, "model": TEXT},
    optional={
        "content": st.lists(
            st.fixed_dictionaries({"type": st.just("text"), "text": TEXT})
            | st.fixed_dictionaries({"type": st.just("thinking"), "thinking": TEXT})
            | st.fixed_dictionaries(
                {"type": st.just("toolCall"), "id": TEXT, "name": TEXT},
                optional={"arguments": st.dictionaries(TEXT, JSON, max_size=2)},
            ),
            max_size=3,
        ),
        "usage": USAGE,
        "stop_reason": STOP_REASON,
        "error_message": st.none() | TEXT,
        "timestamp": bounded(MAX_UNIX_MS),
        "vendor_items": st.none() | st.lists(st.dictionaries(TEXT, JSON, max_size=2), max_size=2),
    },
)
INDEX = st.sampled_from([0, 1, 2]) | bounded(MAX_COUNT)


def _event(kind: str, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"type": st.just(kind), **fields})


EVENT = st.one_of(
    _event("start", partial=ASSISTANT),
    _event("text_start", content_index=INDEX),
    _event("text_delta", content_index=INDEX, delta=TEXT),
    _event("text_end", content_index=INDEX, content=TEXT),
    _event("thinking_start", content_index=INDEX),
    _event("thinking_delta", content_index=INDEX, delta=TEXT),
    _event("thinking_end", content_index=INDEX, content=TEXT),
    _event("toolcall_start", content_index=INDEX, id=TEXT, name=TEXT),
    _event("toolcall_delta", content_index=INDEX, delta=TEXT | st.just('{"a": [1e3')),
    _event(
        "toolcall_end",
        content_index=INDEX,
        tool_call=st.fixed_dictionaries(
            {"type": st.just("toolCall"), "id": TEXT, "name": TEXT},
            optional={"arguments": st.dictionaries(TEXT, JSON, max_size=2)},
        ),
    ),
    _event(
        "done",
        reason=st.sampled_from(["stop", "length", "toolUse", "pauseTurn"]),
        message=ASSISTANT,
    ),
    _event("error", reason=st.sampled_from(["aborted", "error"]), error=ASSISTANT),
)


def _folding_events(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A stream as a provider sends it: start, a few blocks, done or error."""
    events = [{"type": "start", "partial": draw(ASSISTANT)}]
    for index in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["text", "thinking"]))
        events.append({"type": f"{kind}_start", "content_index": index})
        events.append({"type": f"{kind}_delta", "content_index": index, "delta": draw(TEXT)})
        events.append({"type": f"{kind}_end", "content_index": index, "content": draw(TEXT)})
    ending = draw(st.sampled_from(["done", "error", "none"]))
    if ending == "done":
        events.append({"type": "done", "reason": "stop", "message": draw(ASSISTANT)})
    elif ending == "error":
        events.append({"type": "error", "reason": "error", "error": draw(ASSISTANT)})
    return events


@st.composite
def recording_lines(draw: st.DrawFn) -> list[dict[str, Any]]:
    """The rows of one recording the strict reader accepts (header first)."""
    header: dict[str, Any] = {"format_version": 2, "type": "header"}
    header |= draw(
        st.dictionaries(st.sampled_from(["note", "entry", "created_at"]), JSON, max_size=2)
    )
    rows: list[dict[str, Any]] = [header]
    messages: dict[int, int] = {}
    """How many messages each call has that a later one may refer to (a list of them)."""
    for call in range(draw(st.integers(0, 3))):
        request: dict[str, Any] = {"call_index": call, "type": "request"}
        if messages and draw(st.booleans()):
            base = draw(st.sampled_from(sorted(messages)))
            request.update(base=base, keep=draw(st.integers(0, messages[base])))
            request["context"] = {"messages": draw(st.lists(MESSAGE, max_size=2))}
            messages[call] = request["keep"] + len(request["context"]["messages"])
        else:
            request |= {"model": draw(MODEL), "context": draw(CONTEXT)}
            request["options"] = draw(st.none() | st.dictionaries(TEXT, JSON, max_size=2))
            listed = request["context"].get("messages")
            if isinstance(listed, list):
                messages[call] = len(listed)
        if draw(st.booleans()):
            request["start_ms"] = draw(bounded(MAX_SESSION_MS))
        rows.append(request)
        folding = draw(st.booleans())
        events = _folding_events(draw) if folding else draw(st.lists(EVENT, max_size=5))
        for index, event in enumerate(events):
            row = {"call_index": call, "event": event, "event_index": index, "type": "event"}
            if draw(st.booleans()):
                row["ms"] = draw(bounded(MAX_CALL_MS))
            rows.append(row)
        end: dict[str, Any] = {
            "call_index": call,
            "event_count": len(events),
            "outcome": draw(st.sampled_from(["complete", "error", "cancelled", "abandoned"])),
            "type": "call_end",
        }
        if draw(st.booleans()):
            end["error"] = draw(TEXT)
        if draw(st.booleans()):
            end["duration_ms"] = draw(bounded(MAX_CALL_MS))
        rows.append(end)
    return rows


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    """The rows as a recording file (compact, sorted keys, private)."""
    text = "".join(json.dumps(row, sort_keys=True, separators=(",", ":")) + "\n" for row in rows)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path
