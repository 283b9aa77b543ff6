"""What a newcomer meets in the first hour: the find prompt shows what is typed, keys typed ahead
act where the cursor ends up, the list follows the settings, the demo says it is a demo."""

from __future__ import annotations

from pathlib import Path

from tests.tui.pilot_support import recording_ready, screen_text, until
from tui.app import OpenProgramTUI
from tui.widgets.recording.call_list import CallList

SIZE = (120, 40)


async def test_find_prompt_shows_the_query_typed(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        await pilot.press("slash", *"pong")
        calls = screen.query_one(CallList)
        await until(pilot, lambda: len(calls.matches) == 3)
        await pilot.pause()
        find_row = next(row for row in screen_text(app) if "1 / 3" in row)
        assert "/ pong" in find_row
