"""What a newcomer meets in the first hour: the find prompt shows what is typed, keys typed ahead
act where the cursor ends up, the list follows the settings, the demo says it is a demo."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Input, RadioButton, Static

from openprogram.recordings import managed_path
from tests.tui.pilot_support import (
    keys_at_once,
    notifications,
    recording_ready,
    screen_text,
    until,
)
from tests.tui.test_pilot_check import editor, finished
from tests.tui.test_pilot_recordings import cells, listed
from tests.tui.test_pilot_settings import save, settings_open
from tui.app import OpenProgramTUI
from tui.model.demo import DAMAGED_DEMO_ID, prepare_demo_home
from tui.model.navigation import GotoTarget
from tui.screens.help import HelpScreen
from tui.screens.recording import RecordingScreen
from tui.widgets.common.json_tree import JsonTree
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


async def test_a_query_typed_right_after_the_slash_is_the_query(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        keys_at_once(app, "slash", *"pong")  # typed fast: the bar opens while the keys wait
        find = screen.query_one("#find-input", Input)
        await until(pilot, lambda: find.value == "pong")
        await until(pilot, lambda: len(screen.query_one(CallList).matches) == 3)


async def test_a_target_typed_right_after_the_colon_is_gone_to(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        keys_at_once(app, "colon", "3", "enter")
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 3)


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


@pytest.fixture
def demo_path(openprogram_home: Path) -> Path:
    """What `--demo` prepares: the demo's state directory (here the test's own) and recording."""
    return prepare_demo_home(openprogram_home)


async def test_the_demo_says_it_is_the_demo_and_r_runs_its_program(
    demo_path: Path, offline_children: Path
) -> None:
    app = OpenProgramTUI(open_on_start=demo_path, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await recording_ready(pilot)
        await until(pilot, lambda: "demo ▶ replay echo-demo" in screen_text(app)[0])
        await pilot.press("q")
        recordings = await listed(pilot)
        top = screen_text(app)[0]
        assert "2 recordings · demo, removed on quit" in top
        assert "$OPENPROGRAM_HOME" not in "".join(screen_text(app))
        detail = str(recordings.query_one("#recording-detail", Static).render())
        assert "active in this demo (replay): r checks it with its program" in detail
        await pilot.press("r")
        command = (await editor(pilot)).query_one("#command-input", Input)
        assert command.value.endswith(" -m tui.demo_agent")
        await pilot.press("enter")
        rerun = await finished(pilot)
        assert rerun.result is not None and rerun.result.status == "ok"
    assert offline_children.read_text() == ""


async def test_help_fits_80_columns_and_names_what_a_user_sees(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file], start_at=GotoTarget(1), field=("context",))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await recording_ready(pilot)
        await until(pilot, lambda: isinstance(screen.focused, JsonTree))
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        panel = app.screen.query_one(VerticalScroll)
        assert panel.region.right <= 80 and panel.max_scroll_x == 0
        text = "\n".join(screen_text(app))
        assert "JSON tree" in text and "Json" not in text
        assert "Binding id" not in text and "tree.down" not in text


def find_row(app: OpenProgramTUI) -> str:
    """The find bar's row as drawn (it shows the query, the count and where n / N move)."""
    rows = [row for row in screen_text(app) if row.startswith(" / ")]
    return rows[0] if rows else ""


async def test_find_says_where_n_moves_and_stays_on_show(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        await pilot.press("slash", *"pong")
        calls = screen.query_one(CallList)
        await until(pilot, lambda: len(calls.matches) == 3)
        await pilot.press("enter", "n")
        await until(pilot, lambda: "2 / 3 across calls" in find_row(app))
        assert "pong" in find_row(app)
        await pilot.press("escape")
        await until(pilot, lambda: find_row(app) == "")
        await pilot.press("g", "right_square_bracket", "enter", "slash", *"tool_call", "enter")
        events = screen.query_one(EventList)
        await until(pilot, lambda: len(events.matches) > 0)
        await until(pilot, lambda: "1 / 1 in call 0" in find_row(app))


async def test_an_unfinished_call_lines_up_with_the_others(damaged_file: Path) -> None:
    app = OpenProgramTUI([damaged_file])
    async with app.run_test(size=SIZE) as pilot:
        await recording_ready(pilot)
        rows = [row for row in screen_text(app) if row.startswith(" #")]
        assert len(rows) == 4 and "unfinished" in rows[3]
        # The number columns took the event count's room at this width: the outcomes line up.
        outcomes = ("complete", "error", "unfinished")
        assert len({min(row.find(o) for o in outcomes if o in row) for row in rows}) == 1, rows
        assert len({row.index("#") for row in rows}) == 1, rows


def footer_text(app: OpenProgramTUI) -> str:
    return screen_text(app)[-1]


async def test_the_footer_says_q_quits_on_the_first_screen_and_goes_back_above_it(
    demo_home: Path,
) -> None:
    app = OpenProgramTUI(open_on_start=demo_home)
    async with app.run_test(size=SIZE) as pilot:
        await recording_ready(pilot)
        assert "q Back" in footer_text(app) and "q Quit" not in footer_text(app)
        await pilot.press("q")
        await listed(pilot)
        await until(pilot, lambda: "q Quit" in footer_text(app))
        assert "q Back" not in footer_text(app)
        await pilot.press("s")
        await until(pilot, lambda: "q Back" in footer_text(app))
        await pilot.press("escape")  # esc goes back too, never quits from a screen above
        await until(pilot, lambda: "q Quit" in footer_text(app))
        await pilot.press("q")
    assert app.return_code == 0 and not app.is_running


async def test_settings_say_once_when_changes_apply_and_off_names_no_file(demo_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        await listed(pilot)
        settings = await settings_open(pilot)
        notice = str(settings.query_one("#settings-notice", Static).render())
        assert notice.lower().count("next start") == 1
        settings.query_one("#mode-off", RadioButton).value = True
        saved_before = len(notifications(app))
        await save(pilot, settings)
        saved = notifications(app)[saved_before:]
        assert all(note.lower().count("next start") <= 1 for note in saved), saved
        status = settings.query_one("#settings-status", Static)
        await until(pilot, lambda: "Now: off" in str(status.render()))
        assert "Now: off\n" in str(status.render()) + "\n"


async def test_q_and_a_key_typed_together_act_in_order(demo_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        recordings = await listed(pilot)
        await pilot.press("j", "enter")
        await recording_ready(pilot)
        keys_at_once(app, "q", "k")  # back to the list, then up on the list
        table = recordings.query_one(DataTable)
        await until(pilot, lambda: app.screen is recordings and table.cursor_row == 0)


async def test_q_is_a_letter_in_a_field(demo_file: Path) -> None:
    app = OpenProgramTUI([demo_file])
    async with app.run_test(size=SIZE) as pilot:
        screen = await recording_ready(pilot)
        await pilot.press("slash", "q")
        assert app.screen is screen and "/ q" in find_row(app)
        assert "q Quit" not in footer_text(app)
        await pilot.press("escape", "q")
    assert not app.is_running
