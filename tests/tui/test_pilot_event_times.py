"""The Events tab shows when each event arrived and the gap before it; a stall stands out."""

from __future__ import annotations

from pathlib import Path

from tests.tui.pilot_support import recording_ready, screen_text, until
from tests.tui.timed_call import write_timed_calls
from tui.app import OpenProgramTUI
from tui.widgets.recording.event_list import EventList

SIZE = (120, 30)


async def test_events_show_their_times_and_the_longest_gap(tmp_path: Path) -> None:
    app = OpenProgramTUI([write_timed_calls(tmp_path / "timed.jsonl")])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        await pilot.press("enter", "right_square_bracket")
        events = screen.query_one(EventList)
        await until(pilot, lambda: events.row_count == 6)
        await pilot.pause()
        rows = [line for line in screen_text(app) if "text_" in line or " start " in line]
        assert "0  0.12s +120ms  start" in rows[0]
        assert "3  3.14s  +3.0s  text_delta" in rows[3]
        assert events.border_title == "Events · longest gap 3.0s before event 3"

        await pilot.press("J")  # the call without times
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 1)
        await pilot.pause()
        assert events.border_title == "Events · times not recorded"
        text = "\n".join(screen_text(app))
        assert "0.00s" not in text and "+0ms" not in text
        assert any("start" in line and "0  start" in line for line in screen_text(app))
