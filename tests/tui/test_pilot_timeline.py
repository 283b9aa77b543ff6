"""`t`: the session on a time axis with its totals; enter on a bar opens the call (issue #30)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.pilot_support import recording_ready, until
from tests.tui.timed_session import record_timed_session
from tui.app import OpenProgramTUI
from tui.widgets.recording.call_list import CallList
from tui.widgets.recording.timeline import CallTimeline

SLOW = 23


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return record_timed_session(tmp_path / "s.jsonl", calls=40, slow_call=SLOW)


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_the_timeline_shows_every_call_and_enter_opens_one(
    session: Path, size: tuple[int, int]
) -> None:
    async with OpenProgramTUI([session]).run_test(size=size) as pilot:
        screen = await recording_ready(pilot)
        calls = screen.query_one(CallList)
        await pilot.press("t")
        await until(pilot, lambda: bool(screen.query(CallTimeline)))
        timeline = screen.query_one(CallTimeline)
        await until(pilot, lambda: timeline.row_count == 40 and timeline.has_focus)
        summary = str(screen.query_one("#session-summary").render())
        assert "40 calls" in summary and "in the model" in summary and "between calls" in summary
        width = timeline.scrollable_content_region.width
        bars = [timeline.render_row(n, width).plain.count("█") for n in range(40)]
        assert max(bars) == bars[SLOW] and bars[SLOW] > bars[0] >= 1  # the slow call stands out
        assert "░" in timeline.render_row(0, width).plain  # the program's time after a call
        await pilot.press("j", "j", "j")
        await until(pilot, lambda: calls.cursor_ordinal == 3)  # the selected call is the list's
        await pilot.press("enter")
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 3)
        assert not timeline.has_focus and not calls.has_focus  # in the call's detail
        await pilot.press("t")  # hidden again
        await until(pilot, lambda: not screen.query(CallTimeline))


async def test_t_on_a_late_call_keeps_it_in_view_in_the_list_and_the_timeline(
    session: Path,
) -> None:
    """#42 item 2: `G` then `t` showed bars #0–#11 and scrolled the list's cursor out of view."""
    async with OpenProgramTUI([session]).run_test(size=(80, 24)) as pilot:
        screen = await recording_ready(pilot)
        calls = screen.query_one(CallList)
        await pilot.press("G")
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 39)
        await pilot.press("t")
        await until(pilot, lambda: bool(screen.query(CallTimeline)))
        timeline = screen.query_one(CallTimeline)
        await until(pilot, lambda: timeline.row_count == 40 and timeline.has_focus)
        await pilot.pause()

        def in_view(rows: CallList | CallTimeline) -> bool:
            top, height = rows.scroll_offset.y, rows.scrollable_content_region.height
            return top <= rows.cursor < top + height

        assert timeline.cursor == 39 and in_view(timeline)
        assert calls.cursor_ordinal == 39 and in_view(calls)
