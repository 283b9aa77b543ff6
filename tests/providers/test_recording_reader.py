"""The strict reader refuses every malformed file with the right line, call and reason."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import read_header, read_recording, scan_recording
from tests.helpers import write_lines

HEADER = {"format_version": 2, "type": "header"}
MODEL = {"api": "scripted", "id": "m", "provider": "scripted"}


def request(call: int) -> dict[str, Any]:
    return {
        "call_index": call,
        "context": {"messages": []},
        "model": MODEL,
        "options": None,
        "type": "request",
    }


def event(call: int, index: int, kind: str = "text_start") -> dict[str, Any]:
    body: dict[str, Any] = {"content_index": 0, "type": kind}
    return {"call_index": call, "event": body, "event_index": index, "type": "event"}


def end(call: int, count: int, outcome: str = "complete") -> dict[str, Any]:
    return {"call_index": call, "event_count": count, "outcome": outcome, "type": "call_end"}


def good_rows() -> list[dict[str, Any] | str]:
    return [
        HEADER,
        request(0),
        event(0, 0),
        event(0, 1),
        end(0, 2),
        request(1),
        event(1, 0),
        end(1, 1),
    ]


def test_a_valid_file_reads_whole(tmp_path: Path) -> None:
    recording = read_recording(write_lines(tmp_path / "ok.jsonl", good_rows()))
    assert [c.call_index for c in recording.calls] == [0, 1]
    assert sum(len(call.events) for call in recording.calls) == 3
    assert recording.calls[0].first_line == 2 and recording.calls[0].last_line == 5


def test_interleaved_calls_from_concurrent_writers_are_valid(tmp_path: Path) -> None:
    rows: list[dict[str, Any] | str] = [
        HEADER,
        request(0),
        request(1),
        event(1, 0),
        event(0, 0),
        end(1, 1),
        end(0, 1),
    ]
    assert len(read_recording(write_lines(tmp_path / "ok.jsonl", rows)).calls) == 2


CASES: list[tuple[str, list[dict[str, Any] | str], int | None, int | None, str]] = [
    ("no header", [request(0), end(0, 0)], 1, None, "first row must be the header"),
    ("duplicate header", [HEADER, HEADER], 2, None, "duplicate header"),
    ("bad json", [HEADER, '{"type": "request", '], 2, None, "not valid JSON"),
    ("not an object", [HEADER, "[1, 2]"], 2, None, "must be a JSON object"),
    ("unknown row", [HEADER, {"type": "comment"}], 2, None, "unknown row type 'comment'"),
    ("orphan event", [HEADER, event(0, 0)], 2, 0, "no open request"),
    (
        "event gap",
        [HEADER, request(0), event(0, 0), event(0, 2), end(0, 2)],
        4,
        0,
        "event indexes must be contiguous (expected 1, found 2)",
    ),
    ("missing call_end", [HEADER, request(0), event(0, 0)], 2, 0, "has no call_end"),
    (
        "wrong event_count",
        [HEADER, request(0), event(0, 0), end(0, 5)],
        4,
        0,
        "event_count 5 does not match the 1 event recorded",
    ),
    (
        "unknown event type",
        [HEADER, request(0), event(0, 0, "telepathy"), end(0, 1)],
        3,
        0,
        "unknown event type 'telepathy'",
    ),
    ("request gap", [HEADER, request(1), end(1, 0)], 2, 1, "contiguous from 0 (expected 0)"),
    (
        "other version",
        [{"format_version": 3, "type": "header"}],
        1,
        None,
        "format_version 3 is not supported",
    ),
    (
        "version 1",
        [{"format_version": 1, "type": "header"}],
        1,
        None,
        "format_version 1 is not supported (this openprogram reads format_version 2); "
        "run: openprogram recordings migrate ",
    ),
    *(
        (
            f"format_version {value!r}",
            [{"format_version": value, "type": "header"}],
            1,
            None,
            "header row field format_version: Input should be a valid integer",
        )
        for value in ("1", 1.0, True)
    ),
    *(
        (
            f"call_index {value!r}",
            [HEADER, {**request(0), "call_index": value}],
            2,
            None,
            "request row field call_index: Input should be a valid integer",
        )
        for value in ("0", 0.0, False)
    ),
    (
        "event_index false",
        [HEADER, request(0), {**event(0, 0), "event_index": False}, end(0, 1)],
        3,
        0,
        "event row field event_index: Input should be a valid integer",
    ),
    (
        "event_count as text",
        [HEADER, request(0), {**end(0, 0), "event_count": "0"}],
        3,
        0,
        "call_end row field event_count: Input should be a valid integer",
    ),
    (
        "unknown key in a request",
        [HEADER, {**request(0), "prompt_cache": True}],
        2,
        0,
        "request row has an unknown key 'prompt_cache'",
    ),
    (
        "unknown key in an event",
        [HEADER, request(0), {**event(0, 0), "delay_ms": 3}, end(0, 1)],
        3,
        0,
        "event row has an unknown key 'delay_ms'",
    ),
    (
        "unknown key in a call_end",
        [HEADER, request(0), {**end(0, 0), "cost": 1}],
        3,
        0,
        "call_end row has an unknown key 'cost'",
    ),
    (
        "bad outcome",
        [HEADER, request(0), end(0, 0, "exploded")],
        3,
        0,
        "call_end row field outcome",
    ),
]


@pytest.mark.parametrize(
    ("rows", "line", "call", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_malformed_files_are_refused_with_line_call_and_reason(
    tmp_path: Path,
    rows: list[dict[str, Any] | str],
    line: int | None,
    call: int | None,
    reason: str,
) -> None:
    path = write_lines(tmp_path / "bad.jsonl", rows)
    with pytest.raises(RecordingFileError) as caught:
        read_recording(path)
    error = caught.value
    assert (error.line_number, error.call_index) == (line, call)
    assert reason in error.reason
    assert "\n" not in str(error)
    assert str(error).startswith(f"recording file {path} at line {line}")


def test_a_foreign_json_lines_file_is_named_as_such(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "app.log.jsonl", [{"ts": 1, "msg": "hello"}, {"ts": 2}])
    with pytest.raises(RecordingFileError) as caught:
        read_recording(path)
    assert caught.value.reason == 'not an OpenProgram recording (first row: {"msg":"hello","ts":1})'


def test_optional_header_metadata_is_still_ignored(tmp_path: Path) -> None:
    """Only the header may carry keys a reader does not know (metadata never bumps the version)."""
    header = {**HEADER, "recording_id": "x", "created_at": "2026-12-02T10:00:00Z", "future": [1]}
    rows: list[dict[str, Any] | str] = [header, request(0), end(0, 0)]
    assert len(read_recording(write_lines(tmp_path / "meta.jsonl", rows)).calls) == 1


def test_the_message_names_file_line_and_call_on_one_line(tmp_path: Path) -> None:
    rows = [HEADER, request(0), event(0, 0), end(0, 1), request(1), event(1, 1), end(1, 1)]
    path = write_lines(tmp_path / "x.jsonl", rows)
    with pytest.raises(RecordingFileError) as caught:
        read_recording(path)
    assert str(caught.value) == (
        f"recording file {path} at line 6 for call 1: event indexes must be contiguous "
        "(expected 0, found 1)"
    )


def test_empty_and_blank_files_are_refused(tmp_path: Path) -> None:
    for text in ("", "\n\n  \n"):
        path = tmp_path / "empty.jsonl"
        path.write_text(text)
        with pytest.raises(RecordingFileError, match="empty"):
            read_recording(path)


def test_a_truncated_last_line_is_refused_by_line_number(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", good_rows())
    with path.open("ab") as handle:
        handle.write(b'{"call_index":2,"context":')
    with pytest.raises(RecordingFileError) as caught:
        read_recording(path)
    assert caught.value.line_number == 9
    assert "truncated" in caught.value.reason


def test_invalid_utf8_is_named(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "u.jsonl", [HEADER])
    with path.open("ab") as handle:
        handle.write(b'{"type": "\xff\xfe"}\n')
    with pytest.raises(RecordingFileError, match="line 2: line is not valid UTF-8"):
        read_recording(path)


def test_directories_and_fifos_are_refused_without_hanging(tmp_path: Path) -> None:
    with pytest.raises(RecordingFileError, match="not a regular file"):
        read_recording(tmp_path)
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(RecordingFileError, match="not a regular file"):
        read_recording(fifo)
    with pytest.raises(RecordingFileError, match="file not found"):
        read_recording(tmp_path / "missing.jsonl")


def test_scan_reports_every_problem_and_keeps_the_whole_calls(tmp_path: Path) -> None:
    rows: list[dict[str, Any] | str] = [
        HEADER,
        request(0),
        event(0, 0),
        end(0, 1),
        request(1),
        "not json",
        event(1, 0),
        end(1, 1),
        request(2),
        event(2, 0),
        end(2, 3),
        request(3),
        event(3, 0),
    ]
    scan = scan_recording(write_lines(tmp_path / "damaged.jsonl", rows))
    assert not scan.valid
    assert [c.call_index for c in scan.calls] == [0, 1]
    assert [(p.line_number, p.call_index) for p in scan.problems] == [(6, None), (11, 2), (12, 3)]
    assert scan.facts.unfinished_calls == (3,)


def test_the_header_alone_is_read_without_the_rows_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`read_header` validates the header and stops: a damaged row after it is not read, and no
    row model is built for any row but the header."""
    from openprogram.providers.recording import reader

    header = {**HEADER, "entry": {"argv": ["python", "agent.py"], "cwd": "/w"}}
    path = write_lines(tmp_path / "r.jsonl", [header, request(0), "{not json", end(0, 0)])
    parsed: list[bytes] = []
    real_parse_row = reader.parse_row

    def counting_parse_row(line: bytes) -> Any:
        parsed.append(line)
        return real_parse_row(line)

    monkeypatch.setattr(reader, "parse_row", counting_parse_row)
    assert (read_header(path).model_extra or {})["entry"]["argv"] == ["python", "agent.py"]
    assert len(parsed) == 1
    with pytest.raises(RecordingFileError, match="line 3"):
        read_recording(path)


@pytest.mark.parametrize(
    "rows",
    [
        [],
        [{"format_version": 99, "type": "header"}],
        [request(0), HEADER],
        ['{"type": "header", "format_version": 2'],
    ],
    ids=["empty", "newer-format", "no-header", "truncated"],
)
def test_a_file_without_a_usable_header_is_refused_as_the_strict_reader_says(
    tmp_path: Path, rows: list[dict[str, Any] | str]
) -> None:
    path = tmp_path / "r.jsonl"
    if rows and rows[-1] == '{"type": "header", "format_version": 2':
        path.write_text(str(rows[-1]))  # no newline: a cut header
    else:
        write_lines(path, rows)
    with pytest.raises(RecordingFileError) as strict:
        read_recording(path)
    with pytest.raises(RecordingFileError) as header_only:
        read_header(path)
    assert str(header_only.value) == str(strict.value)
