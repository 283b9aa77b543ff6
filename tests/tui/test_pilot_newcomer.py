"""What a newcomer meets in the first hour: the find prompt shows what is typed, keys typed ahead
act where the cursor ends up, the list follows the settings, the demo says it is a demo."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import RadioButton, Static

from openprogram.recordings import managed_path
from tests.tui.pilot_support import keys_at_once, recording_ready, screen_text, until
from tests.tui.test_pilot_recordings import cells, listed
from tests.tui.test_pilot_settings import save, settings_open
from tui.app import OpenProgramTUI
from tui.model.demo import DAMAGED_DEMO_ID
from tui.screens.recording import RecordingScreen
from tui.widgets.recording.call_list import CallList
from tui.widgets.recording.event_list import EventList

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


async def test_a_move_and_enter_arriving_together_open_the_row_moved_to(demo_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        await listed(pilot)
        keys_at_once(app, "j", "enter")
        await until(pilot, lambda: isinstance(app.screen, RecordingScreen))
        assert isinstance(app.screen, RecordingScreen)
        assert app.screen.path == managed_path(DAMAGED_DEMO_ID)


async def test_keys_typed_ahead_in_the_call_list_reach_the_call_moved_to(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        await pilot.press("right_square_bracket")  # the Events tab; the call list keeps the focus
        keys_at_once(app, "j", "j", "enter", "j")
        events = screen.query_one(EventList)
        await until(pilot, lambda: events.has_focus and events.cursor == 1)
        assert screen.loaded is not None and screen.loaded.call_index == 2


async def test_the_list_follows_a_mode_saved_in_settings(demo_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        recordings = await listed(pilot)
        assert cells(recordings, 0)[0] == "● replay"
        settings = await settings_open(pilot)
        settings.query_one("#mode-off", RadioButton).value = True
        assert "record/replay is off" in await save(pilot, settings)
        await pilot.press("q")
        assert app.screen is recordings
        await until(pilot, lambda: cells(recordings, 0)[0] == "")
        detail = str(recordings.query_one("#recording-detail", Static).render())
        assert "active" not in detail
