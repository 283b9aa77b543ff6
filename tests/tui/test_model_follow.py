"""Following a recording as it is written: the index grows from its last complete line, a
half-written line waits, and a changed file is told apart from one that only grew."""

from __future__ import annotations

import os
from pathlib import Path

from openprogram.recordings import stamp_of
from tests.tui.tui_rows import call_end, call_rows, event, header, request, text_events, write_rows
from tui.model.call_rows import IN_PROGRESS, UNFINISHED, CallTable
from tui.model.file_stamp import FileChange, compare
from tui.model.recording_index import KIND_EVENT, KIND_TRUNCATED, RecordingIndex
from tui.model.verdict import FILE_CHANGED, Verdict


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as handle:
        handle.write(data)


def test_extend_indexes_appended_rows_and_waits_for_a_half_written_line(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "live.jsonl", [header(), *call_rows(0, ["a", "b"])])
    index = RecordingIndex.open(path)
    index.build(follow=True)
    assert index.published_calls == 1 and index.pending_bytes == 0
    lines_before = index.line_count

    payloads = text_events(["x", "y"])
    second = request(1) + event(1, 0, payloads[0])
    half = event(1, 1, payloads[1])
    append(path, second + half[:20])  # the writer is half-way through event 1
    assert index.extend() == 2
    assert index.published_calls == 2 and index.pending_bytes == 20
    assert index.calls[1].event_count == 1 and not index.calls[1].finished
    assert KIND_TRUNCATED not in index.kinds  # waited for, not damage
    assert index.line(lines_before) == request(1).rstrip(b"\n")

    append(path, half[20:] + call_end(1, 2))
    assert index.extend() == 2
    assert index.pending_bytes == 0 and index.calls[1].finished
    assert index.calls[1].event_count == 2 and index.kinds[-2] == KIND_EVENT
    assert index.line(index.calls[1].end_line or 0) == call_end(1, 2).rstrip(b"\n")
    assert index.extend() == 0  # nothing new
    index.close()


def test_without_follow_a_last_line_without_newline_is_truncated(tmp_path: Path) -> None:
    rows = [header(), *call_rows(0, ["a"])]
    path = write_rows(tmp_path / "cut.jsonl", rows)
    append(path, request(1)[:30])
    index = RecordingIndex.open(path)
    index.build()
    assert index.kinds[-1] == KIND_TRUNCATED and index.truncated_tail
    append(path, request(1)[30:])
    assert index.extend() == 0  # read as cut off: following it means reading it again
    index.close()


def test_a_file_cut_short_is_not_read_past_its_end(tmp_path: Path) -> None:
    rows = [header(), *[row for n in range(40) for row in call_rows(n, ["word "] * 10)]]
    path = write_rows(tmp_path / "long.jsonl", rows)
    index = RecordingIndex.open(path)
    index.build()
    assert index.size > 4 * 4096
    os.truncate(path, 5000)  # reading the mapped pages past this would kill the process (SIGBUS)
    index.cut_short(5000)
    last = index.line_count - 1
    assert index.line(last) == b"" and index.line(0) == header().rstrip(b"\n")
    index.close()


def test_a_followed_call_without_call_end_is_in_progress_not_unfinished(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "live.jsonl", [header(), request(0)])
    index = RecordingIndex.open(path)
    index.growing = True
    index.build(follow=True)
    table = CallTable(index)
    assert table.summary(0).outcome == IN_PROGRESS and not table.summary(0).failed
    assert table.following_note().startswith("● following · call 0 in progress")
    index.growing = False
    table.refresh()
    assert table.summary(0).outcome == UNFINISHED
    index.close()


def test_file_changes_are_told_apart(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "r.jsonl", [header(), request(0)])
    read = stamp_of(path)
    assert read is not None
    assert compare(read, stamp_of(path)) is FileChange.SAME
    append(path, event(0, 0, text_events(["a"])[0]))
    assert compare(read, stamp_of(path)) is FileChange.GREW
    os.truncate(path, 10)
    assert compare(read, stamp_of(path)) is FileChange.SHRANK
    replacement = write_rows(tmp_path / "new.jsonl", [header()])
    os.replace(replacement, path)
    assert compare(read, stamp_of(path)) is FileChange.REPLACED
    path.unlink()
    assert compare(read, stamp_of(path)) is FileChange.REMOVED
    assert FileChange.REPLACED.invalidates and not FileChange.GREW.invalidates


def test_a_stopped_check_is_said_in_the_title_never_as_not_valid(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "live.jsonl", [header(), *call_rows(0, ["a"])])
    index = RecordingIndex.open(path)
    index.build()
    table = CallTable(index)
    table.set_verdict(Verdict.stopped_by(path, FILE_CHANGED))
    text, problem = table.facts()
    assert text.endswith("· check stopped: file changed") and not problem
    assert table.summary(0).outcome == "complete"
    table.forget_verdict("file was replaced on disk")
    assert table.facts()[0].endswith("· validity unknown (file was replaced on disk)")
    index.close()
