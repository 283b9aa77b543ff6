"""Pilot: the program's output on the result, an inserted message, a changed long token."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Static

from openprogram.providers.recording.differences import MISSING
from openprogram.recordings import CheckResult
from tests.tui import check_support as fixtures
from tests.tui.pilot_support import notifications, until
from tui.screens.check import CheckScreen
from tui.widgets.check.check_outcome import CheckOutcome
from tui.widgets.comparison.json_pane import JsonPane
from tui.widgets.comparison.mismatch_view import MismatchView
from tui.widgets.comparison.path_bar import PathBar
from tui.widgets.comparison.string_diff import StringDiffView

SIZE = (120, 40)


async def finished(pilot: Pilot[None]) -> CheckScreen:
    """Wait until the check screen on top shows its result."""
    await until(pilot, lambda: isinstance(pilot.app.screen, CheckScreen))
    screen = pilot.app.screen
    assert isinstance(screen, CheckScreen)
    await until(pilot, lambda: bool(screen.query(MismatchView) or screen.query(CheckOutcome)))
    await fixtures.marks_revealed(pilot)
    return screen


def shown_text(widget: Static) -> str:
    console = Console(width=200, record=True)
    console.print(widget.render())
    return console.export_text()


def app_for(result: CheckResult) -> fixtures.CheckHost:
    return fixtures.CheckHost(CheckScreen(Path("echo.jsonl"), result=result))


async def test_fewer_calls_shows_the_programs_stdout_tail() -> None:
    async with app_for(fixtures.incomplete_with_output()).run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        stdout = screen.query_one("#outcome-stdout", Static)
        assert stdout.has_class("-shown") and stdout.display
        assert stdout.border_title == "stdout · last 8 lines"
        assert "1 passed, 1 skipped in 0.21s" in shown_text(stdout)
        assert not screen.query_one("#outcome-stderr", Static).has_class("-shown")
        assert stdout.region.bottom <= SIZE[1]  # on screen, not below it


async def test_an_error_shows_stdout_and_stderr_and_ok_shows_neither() -> None:
    result = fixtures.error_result().model_copy(update={"stdout_tail": ["1 failed in 0.30s"]})
    async with app_for(result).run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        for stream, text in (("stdout", "1 failed in 0.30s"), ("stderr", "KeyError: 'gemini'")):
            box = screen.query_one(f"#outcome-{stream}", Static)
            assert box.has_class("-shown") and text in shown_text(box)
    async with app_for(fixtures.ok_result()).run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        assert not screen.query(".outcome-output.-shown")


async def test_an_inserted_message_is_one_difference_marked_on_each_side() -> None:
    async with app_for(fixtures.inserted_message_mismatch()).run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        bar = screen.query_one(PathBar)
        assert bar.breadcrumb == "call 1 › context › messages[0]"
        assert "inserted in the incoming request" in shown_text(bar)
        recorded = screen.query_one("#recorded", JsonPane)
        incoming = screen.query_one("#incoming", JsonPane)
        # The recording lacks the item: its side marks the list, not the message now at [0].
        assert recorded.marked is not None and recorded.marked.data is not None
        assert recorded.marked.data.path == ("context", "messages")
        assert incoming.marked is not None and incoming.marked.data is not None
        assert incoming.marked.data.path == ("context", "messages", 0)
        assert incoming.marked.data.value is not MISSING
        await pilot.press("n")
        assert "This is the only differing field." in notifications(pilot.app)


async def test_a_changed_long_token_shows_the_changed_character_in_view() -> None:
    async with app_for(fixtures.long_token_mismatch()).run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        view = screen.query_one(StringDiffView)
        assert view.diff is not None and view.has_class("-shown")
        changed = [t for line in view.diff.lines for t, kind in line.segments if kind == "changed"]
        assert changed == [fixtures.blob(8_000)[5_000], "#"]
        text = shown_text(view.query_one("#string-diff-lines", Static))
        assert "#" in text and "…4,940 characters…" in text
        # Both rows fit the view: nothing to scroll to find the change.
        assert view.max_scroll_y == 0


async def test_on_a_small_terminal_the_output_shows_its_last_lines() -> None:
    async with app_for(fixtures.incomplete_with_output()).run_test(size=(80, 24)) as pilot:
        screen = await finished(pilot)
        scroll = screen.query_one("#outcome-output", VerticalScroll)
        await until(pilot, lambda: scroll.max_scroll_y > 0)
        await until(pilot, lambda: scroll.scroll_y == scroll.max_scroll_y)
        headline = screen.query_one("#outcome-headline", Static)
        assert headline.region.y >= 0 and headline.region.height > 0  # still on screen
