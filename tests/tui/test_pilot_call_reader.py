"""The TUI's one call reader (issue #39): walking a long session reads each request row a bounded
number of times, whatever the session's length (counted, not timed)."""

from __future__ import annotations

from pathlib import Path

from tests.hostile_recordings import write_chain
from tests.tui_walk import walk

CALLS = 120


async def test_walking_every_call_of_a_long_session_reads_each_request_row_about_once(
    tmp_path: Path,
) -> None:
    # Call i sends the conversation so far: call i-1's messages and one more (format 2 stores one
    # message a row; each call's full request refers back through every earlier row).
    path = write_chain(tmp_path / "session.jsonl", CALLS)
    seen = await walk(path, every_call=True)
    assert seen["walked"] == CALLS - 1 and seen["last_call"] == CALLS - 1
    assert seen["messages"] == CALLS
    # Before the reader remembered rows, the walk parsed every earlier row again for each call
    # shown (CALLS² / 2 reads and more).
    assert seen["rows_parsed"] <= 2 * CALLS
