"""Another tool's JSON lines opened in the TUI: said plainly, and its lines stay browsable."""

from __future__ import annotations

import re
from pathlib import Path

from textual.pilot import Pilot

from openprogram.providers.recording.row_encoding import RECORDING_FORMAT_VERSION
from tests.tui.foreign_files import write_log_file
from tests.tui.pilot_support import recording_ready, screen_text, until
from tui.app import OpenProgramTUI
from tui.screens.recording import RecordingScreen
from tui.widgets.recording.call_list import CallList
from tui.widgets.recording.raw_lines import RawLineList

SIZE = (100, 30)


async def lines_shown(pilot: Pilot[None]) -> RecordingScreen:
    """Wait until the file's lines are listed and the strict reader has said what it is."""
    await until(pilot, lambda: isinstance(pilot.app.screen, RecordingScreen))
    screen = pilot.app.screen
    assert isinstance(screen, RecordingScreen)
    await until(pilot, lambda: isinstance(screen.focused, RawLineList))  # keys go to the lines
    await until(pilot, lambda: screen.verdict is not None)
    await pilot.pause()
    return screen


def line_view(screen: RecordingScreen) -> str:
    return str(screen.query_one("#raw-line").render())


async def test_a_log_file_says_what_it_is_and_lists_its_lines(tmp_path: Path) -> None:
    app = OpenProgramTUI([write_log_file(tmp_path / "app.log.jsonl")])
    async with app.run_test(size=SIZE) as pilot:
        screen = await lines_shown(pilot)
        text = "\n".join(screen_text(app))
        assert "4 lines · not an OpenProgram recording" in text
        assert (
            'line 1: not an OpenProgram recording (first row: {"ts": "2026-01-05T09:30:00Z"' in text
        )
        assert not screen.query_one(CallList).display  # no empty call list beside the lines
        lines = screen.query_one(RawLineList)
        assert lines.has_focus and lines.row_count == 4
        assert '"msg": "server started",' in line_view(screen)  # line 1 in full, indented
        await pilot.press("G")
        await until(pilot, lambda: line_view(screen) == "plain text, not JSON")
        await pilot.press("k")
        await until(
            pilot, lambda: "a long line " + "x" * 300 in line_view(screen).replace("\n", "")
        )


async def test_enter_reads_the_line_and_escape_comes_back_to_the_list(tmp_path: Path) -> None:
    app = OpenProgramTUI([write_log_file(tmp_path / "app.log.jsonl")])
    async with app.run_test(size=SIZE) as pilot:
        screen = await lines_shown(pilot)
        await pilot.press("j", "enter")
        assert screen.focused is screen.query_one("#raw-line-view")
        assert '"ms": 1520' in line_view(screen)
        await pilot.press("escape")
        assert screen.query_one(RawLineList).has_focus
        await pilot.press("escape")  # and from the list, back out: the first screen quits
    assert app.return_code == 0


async def test_keys_for_calls_are_off_and_out_of_the_footer(tmp_path: Path) -> None:
    app = OpenProgramTUI([write_log_file(tmp_path / "app.log.jsonl")])
    async with app.run_test(size=SIZE) as pilot:
        screen = await lines_shown(pilot)
        footer = screen_text(app)[-1]
        assert "Check" not in footer and "Find" not in footer and "q Quit" in footer
        await pilot.press("slash", "colon", "r", "f")
        await pilot.pause()
        assert app.screen is screen and not screen.following  # no bar, no check, no follow
        assert screen.query_one(RawLineList).has_focus


async def test_a_newer_format_title_counts_what_the_list_shows(demo_file: Path) -> None:
    """A version-99 file: the strict reader stops at its header (0 calls) while the list shows the
    calls the index found; the title says the list's count and that the file was not checked
    (it said `0 calls`; issue #27 item 19)."""
    header, rest = demo_file.read_bytes().split(b"\n", 1)
    newer = demo_file.with_name("newer.jsonl")
    newer.write_bytes(
        re.sub(rb'"format_version":\d+', b'"format_version":99', header) + b"\n" + rest
    )
    app = OpenProgramTUI([newer])
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await recording_ready(pilot)
        calls = screen.query_one(CallList)
        title = screen_text(app)[0]
        assert f"format 99 · {calls.row_count} calls" in title and calls.row_count == 5
        assert (
            f"newer format (this openprogram reads {RECORDING_FORMAT_VERSION}): not checked"
            in title
        )
        assert "0 calls" not in title


async def test_a_newer_format_banner_says_what_the_title_says(demo_file: Path) -> None:
    """The banner under the title said `Invalid` where the title says `not checked`: a newer
    format is not a damaged file, and both lines say the same thing (issue #42 item 23)."""
    header, rest = demo_file.read_bytes().split(b"\n", 1)
    newer = demo_file.with_name("newer.jsonl")
    newer.write_bytes(
        re.sub(rb'"format_version":\d+', b'"format_version":99', header) + b"\n" + rest
    )
    app = OpenProgramTUI([newer])
    async with app.run_test(size=(120, 30)) as pilot:
        await recording_ready(pilot)
        title, banner = screen_text(app)[:2]
        assert "newer format" in title and "not checked" in title
        assert "invalid" not in banner.lower()
        assert "format 99, a newer format: not checked" in banner.lower()
        assert f"reads format {RECORDING_FORMAT_VERSION}" in banner
