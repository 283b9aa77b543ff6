"""Sidebars take a share of the width: at 80 columns the detail pane gets most of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widget import Widget

from tests.tui.diff_fixtures import record_diff_pair
from tests.tui.pilot_support import recording_ready, screen_text, until
from tui.app import OpenProgramTUI
from tui.screens.diff import DiffScreen
from tui.widgets.comparison.path_bar import PathBar
from tui.widgets.recording.call_detail import CallDetail
from tui.widgets.recording.call_list import CallList


# From 150 columns the list takes about half, at most 84, for its number columns (#42 item 3).
@pytest.mark.parametrize(("columns", "calls_width"), [(80, 32), (120, 48), (150, 72), (200, 84)])
async def test_call_list_shrinks_and_the_detail_gets_the_rest(
    demo_file: Path, columns: int, calls_width: int
) -> None:
    async with OpenProgramTUI([demo_file]).run_test(size=(columns, 24)) as pilot:
        screen = await recording_ready(pilot)
        calls, detail = screen.query_one(CallList), screen.query_one(CallDetail)
        assert calls.outer_size.width == calls_width
        assert detail.outer_size.width == columns - calls_width
        assert detail.outer_size.width > calls.outer_size.width


@pytest.mark.parametrize(("columns", "outcome"), [(80, "✓"), (120, "complete")])
async def test_a_narrow_call_list_gives_the_model_name_the_room(
    demo_file: Path, columns: int, outcome: str
) -> None:
    async with OpenProgramTUI([demo_file]).run_test(size=(columns, 24)) as pilot:
        screen = await recording_ready(pilot)
        calls = screen.query_one(CallList)
        row = calls.render_row(0, calls.scrollable_content_region.width).plain
        assert "scripted/echo-1" in row  # the whole model name, at 80 columns too
        assert row.rstrip().endswith(outcome)
        failed = calls.render_row(4, calls.scrollable_content_region.width).plain
        assert failed.rstrip().endswith("✗" if columns == 80 else "error")


# Under 100 columns the list keeps index and mark only: the requests need the width (#42 item 10).
@pytest.mark.parametrize(("columns", "calls_width"), [(80, 12), (99, 12), (100, 36), (200, 36)])
async def test_diff_call_list_shrinks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, columns: int, calls_width: int
) -> None:
    monkeypatch.chdir(tmp_path)
    a, b = await record_diff_pair(tmp_path)
    async with OpenProgramTUI(diff=(a, b)).run_test(size=(columns, 24)) as pilot:
        await until(pilot, lambda: isinstance(pilot.app.screen, DiffScreen))
        screen = pilot.app.screen
        await until(pilot, lambda: screen.answers_done and bool(screen.query(PathBar)))  # type: ignore[attr-defined]
        calls: Widget = pilot.app.screen.query_one("#diff-calls")
        assert calls.outer_size.width == calls_width


@pytest.mark.parametrize("columns", [80, 120])
async def test_a_title_too_long_for_the_line_is_cut_with_an_ellipsis(
    demo_file: Path, tmp_path: Path, columns: int
) -> None:
    long_name = tmp_path / ("a-recording-with-a-name-much-longer-than-the-line-" * 3 + ".jsonl")
    long_name.write_bytes(demo_file.read_bytes())
    long_name.chmod(0o600)
    async with OpenProgramTUI([long_name]).run_test(size=(columns, 24)) as pilot:
        await recording_ready(pilot)
        title_row = screen_text(pilot.app)[0]
        assert "…" in title_row
        assert title_row.startswith(" a-recording-with-a-name")
