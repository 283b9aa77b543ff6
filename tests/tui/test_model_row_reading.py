"""The TUI's one call reader (issue #39): bounded by what it shows, not by the file's calls, and
still reading each request row a bounded number of times however the user walks the calls."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from openprogram.providers.recording.row_models import RequestRow
from tests.hostile_recordings import write_chain, write_fan_out
from tui.model.recording_index import RecordingIndex
from tui.model.row_reading import CallReader


def opened(path: Path) -> CallReader:
    index = RecordingIndex.open(path)
    index.build()
    return CallReader(index)


def test_walking_up_a_long_chain_session_reads_each_row_a_bounded_number_of_times(
    tmp_path: Path,
) -> None:
    # Call i keeps every message of call i-1 and adds one: a user walking up from the last call
    # shows each call's request and the one it is compared with (its base).
    calls = 1000
    reader = opened(write_chain(tmp_path / "session.jsonl", calls))
    for ordinal in range(calls - 1, -1, -1):
        span = reader.index.calls[ordinal]
        request = reader.request(span)
        assert isinstance(request, RequestRow)
        assert len(request.context["messages"]) == ordinal + 1
        if ordinal:
            base = reader.request(reader.index.calls[ordinal - 1])
            assert isinstance(base, RequestRow) and len(base.context["messages"]) == ordinal
    # Rows forgotten and no checkpoint: each call walked back to call 0 again (calls² / 2).
    assert reader.rows_parsed <= 3 * calls


def test_reading_every_call_of_a_fan_out_keeps_a_bounded_number_of_rows(tmp_path: Path) -> None:
    # Sorting by cost reads every call's row; a short reference parsed is ~15 times its line
    # (1.2 KB for `{"base": 0, "keep": 300}`), so keeping them all held more than the file.
    path = write_fan_out(tmp_path / "fan-out.jsonl", calls=3000, messages=300)
    reader = opened(path)
    tracemalloc.start()
    try:
        for span in reader.index.calls:
            assert isinstance(reader.stored(span.ordinal), RequestRow)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < path.stat().st_size / 2
