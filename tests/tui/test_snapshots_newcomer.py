"""SVG snapshots of what a newcomer meets first: the demo (marked as such) at 80x24 and 120x40.

The demo state here is the `demo_home` fixture (the demo's bytes, fixed), shown with `demo=True`
as `--demo` does; after a change on purpose, look at the report, then `--snapshot-update`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.tui.pilot_support import recording_ready, until
from tui.app import OpenProgramTUI
from tui.screens.recordings import RecordingsScreen
from tui.screens.settings import SettingsScreen

SnapCompare = Callable[..., bool]
SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


async def demo_list_shown(pilot: Pilot[None]) -> None:
    await until(pilot, lambda: isinstance(pilot.app.screen, RecordingsScreen))
    screen = pilot.app.screen
    assert isinstance(screen, RecordingsScreen)
    await until(pilot, lambda: len(screen.summaries) == 2)
    await until(pilot, lambda: pilot.app.record_replay_status is not None)  # type: ignore[attr-defined]
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_demo_recordings_list(snap_compare: SnapCompare, demo_home: Path, size: str) -> None:
    app = OpenProgramTUI(demo=True)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=demo_list_shown)


@pytest.mark.parametrize("size", SIZES)
def test_demo_settings(
    snap_compare: SnapCompare,
    demo_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: str,
) -> None:
    monkeypatch.chdir(tmp_path)  # no project rules from the working directory

    async def run_before(pilot: Pilot[None]) -> None:
        await demo_list_shown(pilot)
        await pilot.press("s")
        await until(pilot, lambda: isinstance(pilot.app.screen, SettingsScreen))
        screen = pilot.app.screen
        await until(pilot, lambda: "Now:" in str(screen.query_one("#settings-status").render()))
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    app = OpenProgramTUI(demo=True)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


def test_help_at_80x24(snap_compare: SnapCompare, demo_file: Path) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await recording_ready(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    app = OpenProgramTUI([demo_file])
    assert snap_compare(app, terminal_size=SIZES["80x24"], run_before=run_before)


def test_find_in_events_kept_at_80x24(snap_compare: SnapCompare, demo_file: Path) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await recording_ready(pilot)
        await pilot.press("right_square_bracket", "enter", "slash", *"tool_call", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    app = OpenProgramTUI([demo_file])
    assert snap_compare(app, terminal_size=SIZES["80x24"], run_before=run_before)
