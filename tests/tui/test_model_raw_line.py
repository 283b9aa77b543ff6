"""A file that is not a recording: told apart by its index, each line shown in full and bounded."""

from __future__ import annotations

from pathlib import Path

from tests.tui.conftest import write_private
from tests.tui.foreign_files import write_log_file
from tui.model.line_preview import raw_line
from tui.model.recording_index import RecordingIndex


def indexed(path: Path) -> RecordingIndex:
    index = RecordingIndex.open(path)
    index.build()
    return index


def test_another_tools_json_lines_are_foreign(tmp_path: Path) -> None:
    index = indexed(write_log_file(tmp_path / "app.log.jsonl"))
    assert index.foreign and index.line_count == 4 and not index.calls
    assert index.line(3) == b"plain text, not JSON"


def test_a_recording_is_not_foreign_even_before_its_first_call(
    tmp_path: Path, demo_file: Path
) -> None:
    assert not indexed(demo_file).foreign
    header = demo_file.read_bytes().split(b"\n", 1)[0] + b"\n"
    assert not indexed(write_private(tmp_path / "new.jsonl", header)).foreign  # being written


def test_an_empty_file_is_not_called_foreign(tmp_path: Path) -> None:
    assert not indexed(write_private(tmp_path / "empty.jsonl", b"")).foreign


def test_a_json_line_is_shown_indented_with_its_size() -> None:
    shown = raw_line(b'{"level":"info","n":[1,2]}', 7)
    assert shown.is_json
    assert shown.text.splitlines() == [
        "{",
        '  "level": "info",',
        '  "n": [',
        "    1,",
        "    2",
        "  ]",
        "}",
    ]
    assert shown.note == "line 7 · JSON · 26 B"


def test_text_is_shown_as_it_is_with_bad_bytes_replaced() -> None:
    shown = raw_line(b"caf\xe9 not json", 1)
    assert not shown.is_json and shown.text == "caf\ufffd not json"
    assert shown.note == "line 1 · text · 13 B"


def test_a_huge_line_is_cut_and_says_so() -> None:
    line = b'{"blob": "' + b"y" * 100_000 + b'"}'
    shown = raw_line(line, 2, limit=1024)
    assert not shown.is_json and len(shown.text) == 1024  # not parsed whole: only its start shown
    assert shown.note == "line 2 · text · 97.7 KiB · first 1.0 KiB shown"
