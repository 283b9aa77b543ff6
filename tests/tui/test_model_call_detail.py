"""The selected call: final message, raw lines, problems; parsed only when asked."""

from __future__ import annotations

from pathlib import Path

from openprogram.providers.types import DoneEvent
from tui.model.call_detail import LoadedCall
from tui.model.recording_index import RecordingIndex
from tui.model.verdict import check_file


def calls_of(path: Path) -> tuple[RecordingIndex, list[LoadedCall]]:
    index = RecordingIndex.open(path)
    index.build()
    return index, [LoadedCall(index, span) for span in index.calls]


def test_final_message_is_the_recorded_done(demo_file: Path) -> None:
    _, calls = calls_of(demo_file)
    final = calls[2].final_message()
    last = calls[2].event(calls[2].event_count - 1)
    assert isinstance(last, DoneEvent)
    assert final.note is None and final.message == last.message
    assert [b.type for b in final.message.content] == ["thinking", "text", "toolCall", "toolCall"]


def test_a_broken_stream_is_assembled_with_a_note(demo_file: Path) -> None:
    _, calls = calls_of(demo_file)
    final = calls[4].final_message()
    assert final.message is not None
    assert final.note is not None and final.note.startswith("no done or error event (error)")


def test_raw_lines_are_the_stored_rows(demo_file: Path) -> None:
    _, calls = calls_of(demo_file)
    raw = calls[1].raw()
    stored = demo_file.read_text().splitlines()
    span = calls[1].span
    assert raw.contiguous and raw.shown_lines == raw.total_lines == span.event_count + 2
    assert raw.text.splitlines() == stored[span.request_line : span.end_line + 1]
    assert raw.first_line_number == span.request_line + 1


def test_raw_is_bounded(demo_file: Path) -> None:
    _, calls = calls_of(demo_file)
    raw = calls[0].raw(limit=2000)
    assert raw.shown_lines < raw.total_lines
    assert len(raw.text.encode()) <= 2000


def test_problems_name_the_damaged_call(damaged_file: Path) -> None:
    index, _ = calls_of(damaged_file)
    verdict = check_file(damaged_file)
    last = LoadedCall(index, index.calls[-1], verdict.problems)
    reasons = [p.reason for p in last.problems()]
    assert any("no call_end" in r for r in reasons)
    assert any("truncated" in r for r in reasons)
    assert LoadedCall(index, index.calls[0], verdict.problems).problems() == []
