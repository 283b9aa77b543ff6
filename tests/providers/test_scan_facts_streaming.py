"""`scan_facts` reads a recording line by line and keeps no event: the same facts, the same
problems and messages as the whole-file scan, in memory bounded by a line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import scan_facts, scan_recording
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
    path.write_bytes(path.read_bytes().replace(b'"format_version":1', b'"format_version":"1"', 1))


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
    assert scan_facts(path) == scan_recording(path).facts()


def test_an_empty_file_and_a_directory(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert scan_facts(empty) == scan_recording(empty).facts()
    assert [p.reason for p in scan_facts(empty).problems] == ["file is empty (no header)"]
    with pytest.raises(RecordingFileError, match=r": not a regular file$"):
        scan_facts(tmp_path)
