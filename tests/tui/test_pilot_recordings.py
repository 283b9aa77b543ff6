"""The recordings screen: the managed list with its active marker, opening, deleting with care."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import ComposeResult
from textual.widgets import DataTable

from openprogram.recordings import managed_path
from tests.tui.pilot_support import notifications, screen_text, until
from tui.app import OpenProgramTUI
from tui.screens.confirm import ConfirmScreen
from tui.screens.diff import DiffScreen
from tui.screens.recording import RecordingScreen
from tui.screens.recordings import RecordingsScreen
from tui.widgets.recording.call_detail import CallDetail

SIZE = (120, 40)


async def listed(pilot: object) -> RecordingsScreen:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await until(pilot, lambda: isinstance(pilot.app.screen, RecordingsScreen))
    screen = pilot.app.screen
    assert isinstance(screen, RecordingsScreen)
    await until(pilot, lambda: bool(screen.summaries))
    return screen


def cells(screen: RecordingsScreen, row: int) -> list[str]:
    table = screen.query_one(DataTable)
    return [str(cell) for cell in table.get_row_at(row)]


async def test_list_shows_ids_counts_validity_and_the_active_one(demo_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        screen = await listed(pilot)
        assert cells(screen, 0)[:6] == [
            "● replay",
            "echo-demo",
            "2026-01-05 09:30",
            "5",
            "115",
            "21.9 KiB",
        ]
        assert cells(screen, 0)[6] == "✓ valid"
        damaged = cells(screen, 1)
        assert damaged[1] == "echo-demo-damaged" and damaged[0] == ""
        assert damaged[6].startswith("✗ invalid: line 95: last line is truncated")


async def test_at_80_columns_the_list_fits_and_the_reason_is_under_it(demo_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await listed(pilot)
        table = screen.query_one(DataTable)
        assert table.virtual_size.width <= table.size.width  # no scrolling sideways
        assert [str(column.label) for column in table.columns.values()][4:] == ["Size", "Status"]
        assert cells(screen, 1)[5] == "✗ invalid"
        await pilot.press("j")
        under = str(screen.query_one("#recording-detail").render())
        assert "✗ line 95: last line is truncated" in under
        await pilot.resize_terminal(120, 40)  # wide again: every column, the reason in the row
        await until(pilot, lambda: len(table.columns) == 7)
        assert cells(screen, 1)[6].startswith("✗ invalid: line 95: last line is truncated")


async def test_enter_opens_and_q_comes_back(demo_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        await listed(pilot)
        await pilot.press("j", "enter")
        await until(pilot, lambda: isinstance(app.screen, RecordingScreen))
        assert isinstance(app.screen, RecordingScreen)
        assert app.screen.path == managed_path("echo-demo-damaged")
        await pilot.press("q")
        assert isinstance(app.screen, RecordingsScreen)
        await pilot.press("q")
    assert app.return_code == 0


async def test_q_as_the_call_detail_comes_up_goes_back_cleanly(
    demo_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `q` typed right after the first rows: the screen starts closing while its call detail is
    # being built (its parts are never mounted), and the detail still announces itself.
    compose, shown = CallDetail.compose, []

    def go_back_then_compose(detail: CallDetail) -> ComposeResult:
        shown.append(detail)
        detail.app.action_go_back()
        yield from compose(detail)

    monkeypatch.setattr(CallDetail, "compose", go_back_then_compose)
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        await listed(pilot)
        for opened in (1, 2):  # and the list still opens recordings
            await pilot.press("enter")
            await until(pilot, lambda opened=opened: len(shown) == opened)
            await until(pilot, lambda: isinstance(app.screen, RecordingsScreen))
        await pilot.press("q")
    assert app.return_code == 0


async def test_the_active_recording_is_never_deleted(demo_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        await listed(pilot)
        await pilot.press("x")
        assert not isinstance(app.screen, ConfirmScreen)
        assert "active replay recording" in notifications(app)[-1]
    assert managed_path("echo-demo").exists()


async def test_delete_asks_first(demo_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        screen = await listed(pilot)
        await pilot.press("j", "x")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert managed_path("echo-demo-damaged").exists()
        await pilot.press("delete", "y")
        await until(pilot, lambda: len(screen.summaries) == 1)
        assert not managed_path("echo-demo-damaged").exists()
        assert "Deleted echo-demo-damaged" in notifications(app)[-1]


async def test_files_given_are_listed_with_the_managed_ones(
    demo_home: Path, demo_file: Path
) -> None:
    app = OpenProgramTUI([demo_file, demo_file.parent / "nope.jsonl"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await listed(pilot)
        await until(pilot, lambda: len(screen.summaries) == 4)
        names = [cells(screen, row)[1] for row in range(4)]
        assert names[:2] == ["echo-demo", "echo-demo-damaged"]
        assert names[2].endswith("files/echo-demo.jsonl")
        assert cells(screen, 3)[6] == "✗ invalid: file not found"
        await pilot.press("G", "x")
        assert "Only managed recordings" in notifications(app)[-1]


async def test_an_empty_root_explains_what_to_do(openprogram_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        screen = await listed_or_empty(pilot)
        note = str(screen.query_one("#recordings-note").render())
        assert "No recordings yet" in note


async def listed_or_empty(pilot: object) -> RecordingsScreen:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await until(pilot, lambda: isinstance(pilot.app.screen, RecordingsScreen))
    screen = pilot.app.screen
    assert isinstance(screen, RecordingsScreen)
    await until(pilot, lambda: "recordings" in str(screen.query_one("#recordings-note").render()))
    return screen


async def test_space_marks_two_and_d_compares_them(demo_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        screen = await listed(pilot)
        await pilot.press("d")
        assert "Mark two recordings with space" in notifications(app)[-1]
        await pilot.press("space", "j", "space")
        await pilot.pause()
        assert [cells(screen, row)[1] for row in range(2)] == [
            "[A] echo-demo",
            "[B] echo-demo-damaged",
        ]
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, DiffScreen))
        diff = app.screen
        assert isinstance(diff, DiffScreen)
        assert (diff.a, diff.b) == (managed_path("echo-demo"), managed_path("echo-demo-damaged"))


async def test_at_200_columns_the_status_is_whole(demo_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await listed(pilot)
        reason = screen.summaries[str(managed_path("echo-demo-damaged"))].facts.validity()
        assert cells(screen, 1)[6] == f"✗ {reason}"
        row = next(line for line in screen_text(app) if "echo-demo-damaged" in line)
        assert row.rstrip().endswith(reason)


async def test_help_on_the_list_documents_the_list_not_the_recording_view(
    demo_home: Path,
) -> None:
    """`?` on the recordings list explained `:` and `/` of the recording view (issue #42 item
    28): the help's introduction is the screen's own."""
    from tui.screens.help import HelpScreen

    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        await listed(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = " ".join(screen_text(app))
        assert "(call 12" not in text and "next / previous match" not in text
        assert "space marks" in text and "d compares" in text
        await pilot.press("escape", "enter")  # the recording view keeps its own
        await until(pilot, lambda: isinstance(app.screen, RecordingScreen))
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert "(call 12" in " ".join(screen_text(app))
