"""SVG snapshots of a recording followed while a call is in progress, and of a file read again
after it was shortened on disk under the view (80x24 and 120x40, dark and light)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.tui.pilot_support import recording_ready, until
from tests.tui.test_snapshots import SnapCompare
from tests.tui.tui_rows import call_rows, event, header, request, text_events, write_rows
from tui.app import LIGHT_THEME, OpenProgramTUI


@pytest.fixture
def live_file(tmp_path: Path) -> Path:
    """One whole call, then a call whose writer is three events in (no `call_end` yet)."""
    events = text_events(["Hello ", "from ", "a live call"])
    rows = [header(), *call_rows(0, ["Done ", "before"]), request(1, "And now?")]
    rows += [event(1, n, events[n]) for n in range(4)]
    return write_rows(tmp_path / "live.jsonl", rows)


def following(*keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        screen = await recording_ready(pilot)
        await until(pilot, lambda: screen.verdict is not None and screen.verdict.following)
        await pilot.press(*keys)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    return run_before


def test_following_a_call_in_progress_80x24(snap_compare: SnapCompare, live_file: Path) -> None:
    app = OpenProgramTUI([live_file], follow=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=following())


def test_following_events_of_a_call_in_progress_light(
    snap_compare: SnapCompare, live_file: Path
) -> None:
    app = OpenProgramTUI([live_file], follow=True, theme=LIGHT_THEME)
    keys = ("j", "right_square_bracket", "enter", "G")
    assert snap_compare(app, terminal_size=(120, 40), run_before=following(*keys))


def test_a_shortened_file_read_again_80x24(snap_compare: SnapCompare, live_file: Path) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        screen = await recording_ready(pilot)
        os.truncate(live_file, live_file.stat().st_size - 40)
        await until(pilot, lambda: pilot.app.screen is not screen)
        await recording_ready(pilot)

    app = OpenProgramTUI([live_file])
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_a_replaced_file_light_80x24(snap_compare: SnapCompare, live_file: Path) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        screen = await recording_ready(pilot)
        other = write_rows(live_file.with_name("other.jsonl"), [header(), *call_rows(0, ["z"])])
        os.replace(other, live_file)
        await until(pilot, lambda: "replaced" in str(screen.query_one("#facts").render()))

    app = OpenProgramTUI([live_file], theme=LIGHT_THEME)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
