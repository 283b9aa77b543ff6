"""Every number a recording holds is finite and within its bounds, or the strict reader refuses
the row with one line naming the field (issue #40, items 3 and 4)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.types import (
    MAX_CALL_MS,
    MAX_COUNT,
    MAX_SESSION_MS,
    MAX_TOKENS,
    MAX_UNIX_MS,
    AssistantMessage,
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    Usage,
)
from tests.helpers import write_lines
from tests.recording_files import run_cli

HEADER = {"format_version": 2, "type": "header"}
MODEL = {"api": "scripted", "id": "m", "provider": "scripted"}
USAGE = Usage(input=1, output=2, cache_read=3, cache_write=4, total_tokens=10, reasoning=5)


def _message(**fields: Any) -> AssistantMessage:
    return AssistantMessage(api="scripted", provider="scripted", model="m", timestamp=1, **fields)


CALL_EVENTS: tuple[tuple[AssistantMessageEvent, ...], ...] = (
    (
        StartEvent(partial=_message()),
        ThinkingStartEvent(content_index=0),
        ThinkingDeltaEvent(content_index=0, delta="hm"),
        ThinkingEndEvent(content_index=0, content="hm"),
        TextStartEvent(content_index=1),
        TextDeltaEvent(content_index=1, delta="hi"),
        TextEndEvent(content_index=1, content="hi"),
        ToolCallStartEvent(content_index=2, id="c", name="echo"),
        ToolCallDeltaEvent(content_index=2, delta="{}"),
        ToolCallEndEvent(content_index=2, tool_call=ToolCall(id="c", name="echo")),
        DoneEvent(reason="toolUse", message=_message(usage=USAGE, stop_reason="toolUse")),
    ),
    (
        StartEvent(partial=_message()),
        ErrorEvent(reason="error", error=_message(usage=USAGE, stop_reason="error")),
    ),
)
"""Every kind of event, each number in it set (usage with every kind of token)."""


def recording_rows() -> list[dict[str, Any]]:
    """Two calls, the second referring to the first, every optional number present."""
    rows: list[dict[str, Any]] = [HEADER]
    for call, events in enumerate(CALL_EVENTS):
        request: dict[str, Any] = {"call_index": call, "start_ms": 5 * call, "type": "request"}
        request["context"] = {"messages": [{"content": "hi", "role": "user", "timestamp": 1}]}
        if call:
            request.update(base=0, keep=1)
        else:
            request.update(model=MODEL, options={"temperature": 0.5})
        rows.append(request)
        for index, event in enumerate(events):
            dumped = event.model_dump(mode="json")
            rows.append(
                {
                    "call_index": call,
                    "event": dumped,
                    "event_index": index,
                    "ms": 1,
                    "type": "event",
                }
            )
        outcome = "complete" if call == 0 else "error"
        rows.append(
            {
                "call_index": call,
                "duration_ms": 2,
                "event_count": len(events),
                "outcome": outcome,
                "type": "call_end",
            }
        )
    return rows


FieldPath = tuple[str | int, ...]


def number_fields(value: Any, path: FieldPath = ()) -> Iterator[FieldPath]:
    """The path of every integer a row gives a meaning (not the request's stored JSON)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if len(path) == 0 and key in ("model", "context", "options", "format_version"):
                continue
            yield from number_fields(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from number_fields(item, (*path, index))
    elif isinstance(value, int) and not isinstance(value, bool):
        yield path


def _set(row: dict[str, Any], path: FieldPath, value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(row)
    target: Any = changed
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return changed


FIELDS = [(line, path) for line, row in enumerate(recording_rows()) for path in number_fields(row)]


def test_the_rows_hold_every_kind_of_number() -> None:
    names = {str(path[-1]) for _, path in FIELDS}
    assert names == {
        "call_index",
        "event_index",
        "event_count",
        "base",
        "keep",
        "start_ms",
        "ms",
        "duration_ms",
        "content_index",
        "timestamp",
        "input",
        "output",
        "cache_read",
        "cache_write",
        "total_tokens",
        "reasoning",
    }


def test_the_recording_reads_and_so_do_numbers_at_their_bounds(tmp_path: Path) -> None:
    assert len(read_recording(write_lines(tmp_path / "ok.jsonl", list(recording_rows()))).calls)
    bounds = {"start_ms": MAX_SESSION_MS, "ms": MAX_CALL_MS, "duration_ms": MAX_CALL_MS}
    bounds |= {"timestamp": MAX_UNIX_MS, "content_index": MAX_COUNT}
    bounds |= {kind: MAX_TOKENS for kind in ("input", "output", "cache_read", "cache_write")}
    bounds |= {"total_tokens": MAX_TOKENS, "reasoning": MAX_TOKENS}
    rows = recording_rows()
    for line, path in FIELDS:
        if path[-1] in bounds:
            rows[line] = _set(rows[line], path, bounds[str(path[-1])])
    calls = read_recording(write_lines(tmp_path / "far.jsonl", list(rows))).calls
    assert calls[1].duration_ms == MAX_CALL_MS and calls[1].start_ms == MAX_SESSION_MS


@pytest.mark.parametrize("value", [-1, 10**15, 10**400])
@pytest.mark.parametrize(
    ("line", "path"), FIELDS, ids=[f"{line}:{'.'.join(map(str, p))}" for line, p in FIELDS]
)
def test_every_number_out_of_bounds_is_refused_naming_its_field(
    tmp_path: Path, line: int, path: FieldPath, value: int
) -> None:
    rows = recording_rows()
    rows[line] = _set(rows[line], path, value)
    file = write_lines(tmp_path / "bad.jsonl", list(rows))
    with pytest.raises(RecordingFileError) as caught:
        read_recording(file)
    error = caught.value
    where = list(map(str, path))
    if path[0] == "event":  # the event's type names its class in the field's place
        where.insert(1, rows[line]["event"]["type"])
    assert error.line_number == line + 1
    assert error.reason.startswith(f"{rows[line]['type']} row field {'.'.join(where)}: Input")
    assert "\n" not in str(error)


OVERFLOWING = ["1e999", "-1e999", "1E400", "1e+400", "1" + "0" * 400 + ".5", "-" + "9" * 309 + ".0"]
FINITE = ["1e-400", "1.7e308", "0." + "0" * 400 + "1", "9" * 400, "1e99"]


def _with_number(rows: list[dict[str, Any]], literal: str) -> list[dict[str, Any] | str]:
    """The rows with `literal` as a tool call's argument, written as is in the event's line."""
    lines: list[dict[str, Any] | str] = list(rows)
    end = next(i for i, r in enumerate(rows) if r.get("event", {}).get("type") == "toolcall_end")
    row = _set(rows[end], ("event", "tool_call", "arguments"), {"n": "PLACE"})
    text = json.dumps(row, sort_keys=True, separators=(",", ":"))
    lines[end] = text.replace('"PLACE"', literal)
    return lines


@pytest.mark.parametrize("literal", OVERFLOWING, ids=lambda literal: literal[:12])
def test_a_number_too_large_for_a_float_is_refused_as_non_finite(
    tmp_path: Path, literal: str
) -> None:
    file = write_lines(tmp_path / "inf.jsonl", _with_number(recording_rows(), literal))
    with pytest.raises(RecordingFileError, match="beyond a float's range") as caught:
        read_recording(file)
    assert literal[:20] in caught.value.reason


@pytest.mark.parametrize("literal", ["NaN", "-Infinity", "1e999"])
@pytest.mark.parametrize(
    ("line", "path"), FIELDS, ids=[f"{line}:{'.'.join(map(str, p))}" for line, p in FIELDS]
)
def test_a_non_finite_literal_in_any_number_of_any_row_is_refused(
    tmp_path: Path, line: int, path: FieldPath, literal: str
) -> None:
    """Every row type, the ones the reader does not search for non-finite numbers included (their
    integers refuse a float), refuses the file at that line."""
    rows: list[dict[str, Any] | str] = list(recording_rows())
    text = json.dumps(_set(recording_rows()[line], path, "PLACE"), sort_keys=True)
    rows[line] = text.replace('"PLACE"', literal)
    with pytest.raises(RecordingFileError) as caught:
        read_recording(write_lines(tmp_path / "bad.jsonl", rows))
    assert caught.value.line_number == line + 1


@pytest.mark.parametrize("literal", FINITE, ids=lambda literal: literal[:12])
def test_large_finite_numbers_and_words_still_read(tmp_path: Path, literal: str) -> None:
    rows = recording_rows()
    rows[1]["context"]["messages"][0]["content"] = "1e999 and Infinity are words here"
    file = write_lines(tmp_path / "fine.jsonl", _with_number(rows, literal))
    assert len(read_recording(file).calls) == 2


def test_show_and_diff_refuse_a_file_holding_1e999(tmp_path: Path) -> None:
    good = write_lines(tmp_path / "good.jsonl", list(recording_rows()))
    bad = write_lines(tmp_path / "bad.jsonl", _with_number(recording_rows(), "1e999"))
    shown = run_cli(tmp_path / "home", "show", str(bad))
    assert shown.returncode == 1
    assert "status:    invalid: line 12, call 0: event row holds the number 1e999" in shown.stdout
    compared = run_cli(tmp_path / "home", "diff", "--json", str(good), str(bad))
    assert compared.returncode == 2 and compared.stdout == ""
    assert "line 12 for call 0: event row holds the number 1e999" in compared.stderr
    assert len(compared.stderr.strip().splitlines()) == 1
