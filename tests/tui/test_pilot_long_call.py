"""A call of 200,000 events (issue #28 item 7): every view of it shows what fits, at once."""

from __future__ import annotations

import re
from pathlib import Path

from tests.tui.long_call import write_long_call
from tests.tui.pilot_support import recording_ready, screen_text, until
from tui.app import OpenProgramTUI
from tui.widgets.recording.call_detail import CallDetail
from tui.widgets.recording.event_list import EventList
from tui.widgets.recording.transcript_entry import TranscriptEntryBox

SIZE = (120, 40)


async def test_a_call_of_200000_events_shows_its_start_its_end_and_quits(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    count = write_long_call(path, 200_000)
    app = OpenProgramTUI([path])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        detail = screen.query_one(CallDetail)

        detail.show_tab("tab-response")
        await pilot.pause()
        text = "\n".join(screen_text(app))
        assert "Final message of call 0" in text and "w0 w1 w2" in text
        box = detail.query_one("#response").query_one(TranscriptEntryBox)
        assert box.entry is not None
        assert (
            "more characters" in box.entry.parts[-1].text
        )  # at the end of the box: the cut is said

        detail.open_event(0)
        await pilot.pause()
        events = detail.query_one(EventList)
        text = "\n".join(screen_text(app))
        assert "text_delta" in text and f"event 0 of {count:,} events" in text

        await pilot.press("G")
        await pilot.pause()
        assert events.cursor == count - 1
        text = "\n".join(screen_text(app))
        # The row: index, arrival time, gap since the event before, type.
        assert re.search(rf"{count - 1}  +[0-9.]+s +\+[0-9.]+m?s  done", text)
        # The message at the last event needs every event folded: that runs off the UI thread
        # (saying "Assembling events…" meanwhile; it froze the app for minutes at a million
        # events), then shows the whole message.
        done = f"Assembled from events 0–{count - 1} of {count:,} events · done"
        await until(pilot, lambda: done in "\n".join(screen_text(app)))

        await pilot.press("ctrl+q")
    assert app.return_code == 0
