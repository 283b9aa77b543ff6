"""`streamed_facts` reads a recording line by line and keeps no event: the same facts, the same
problems and messages as the whole-file scan, in memory bounded by a line."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import scan_recording, streamed_facts
from openprogram.providers.recording.scan_facts import MAX_PROBLEMS
from tests.recording_files import write_recording


def truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-7])


def event_out_of_order(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    events = [n for n, line in enumerate(lines) if b'"type":"event"' in line]
    lines[events[1]], lines[events[2]] = lines[events[2]], lines[events[1]]
    path.write_bytes(b"".join(lines))


def foreign(path: Path) -> None:
    path.write_bytes(b'{"role": "user", "content": "hi"}\n{"role": "assistant"}\n')


def typed_wrong(path: Path) -> None:
    path.write_bytes(path.read_bytes().replace(b'"format_version":2', b'"format_version":"2"', 1))


def no_call_end(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(line for line in lines if b'"type":"call_end"' not in line))


def blank_lines(path: Path) -> None:
    path.write_bytes(path.read_bytes().replace(b"\n", b"\n\n", 2))


@pytest.mark.parametrize(
    "damage",
    [None, truncated, event_out_of_order, foreign, typed_wrong, no_call_end, blank_lines],
)
def test_the_streaming_facts_equal_the_whole_file_scan(
    tmp_path: Path, damage: Callable[[Path], None] | None
) -> None:
    path = write_recording(tmp_path / "r.jsonl", said=("hi", "bye"))
    if damage is not None:
        damage(path)
    assert streamed_facts(path) == scan_recording(path).facts


def test_an_empty_file_and_a_directory(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert streamed_facts(empty) == scan_recording(empty).facts
    assert [p.reason for p in streamed_facts(empty).problems] == ["file is empty (no header)"]
    with pytest.raises(RecordingFileError, match=r": is not a regular file$"):
        streamed_facts(tmp_path)


def many_problems(path: Path) -> None:
    """Past `MAX_PROBLEMS` damaged rows: counted all, the first ones kept."""
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines) + b"not json\n" * (MAX_PROBLEMS + 25))


def test_problems_past_the_kept_ones_are_counted_the_same(tmp_path: Path) -> None:
    path = write_recording(tmp_path / "r.jsonl", said=("hi",))
    many_problems(path)
    streamed = streamed_facts(path)
    assert streamed == scan_recording(path).facts
    assert streamed.problem_count == MAX_PROBLEMS + 25
    assert len(streamed.problems) == MAX_PROBLEMS


def peak_bytes(path: Path) -> int:
    tracemalloc.start()
    try:
        streamed_facts(path)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def repeated(one_call: Path, path: Path, calls: int) -> Path:
    """`one_call`'s call written `calls` times (its call index changed): a valid recording."""
    header, *rows = one_call.read_bytes().splitlines(keepends=True)
    call = b"".join(rows)
    assert call.count(b'"call_index":0,') == len(rows)
    path.write_bytes(
        header
        + b"".join(call.replace(b'"call_index":0,', b'"call_index":%d,' % n) for n in range(calls))
    )
    return path


def test_memory_does_not_grow_with_the_number_of_calls(tmp_path: Path) -> None:
    """A file of 20 calls and one of 200 (each request ~20 KB, so the requests kept would take
    megabytes): the check's peak is the same within a few hundred KB (one call at a time)."""
    one = write_recording(tmp_path / "one.jsonl", said=["hi"])
    text = one.read_bytes()
    request = next(line for line in text.splitlines() if b'"type":"request"' in line)
    assert request.count(b'"hi"') == 1
    one.write_bytes(
        text.replace(request, request.replace(b'"hi"', b'"%s"' % (b"be brief " * 2_000)))
    )
    few, many = (
        repeated(one, tmp_path / "few.jsonl", 20),
        repeated(one, tmp_path / "many.jsonl", 200),
    )
    assert streamed_facts(many).valid and streamed_facts(many).calls == 200
    assert peak_bytes(many) - peak_bytes(few) < 1 << 20
