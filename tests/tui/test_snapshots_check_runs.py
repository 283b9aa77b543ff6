"""SVG snapshots of `check --runs` on the check screen (`t`): the runs waiting on the rule they
propose, and the end, at 120x40 and 80x24 (dark theme, animations off).

The runs are fixed (`runs_support.fixed_runs`: the values a real run of the UUID program shows,
with fixed UUIDs), so nothing depends on the clock or a temporary path. After a change that
alters a picture on purpose, look at the report, then run
`pytest tests/tui/test_snapshots_check_runs.py --snapshot-update`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.tui import check_support as fixtures
from tests.tui.runs_support import fixed_runs, shown
from tui.model.check_runs import Sorted
from tui.screens.check import CheckScreen
from tui.widgets.check.stability_view import StabilityView

SnapCompare = Callable[..., bool]
SIZES = [(120, 40), (80, 24)]
IDS = ["wide", "80x24"]
RULES_FILE = Path("/work/project/pyproject.toml")


def shot(snap_compare: SnapCompare, size: tuple[int, int], *keys: str) -> bool:
    app = fixtures.CheckHost(CheckScreen(Path("runs.jsonl"), result=fixtures.ok_result()))

    async def run_before(pilot: Pilot[None]) -> None:
        await shown(pilot, lambda: isinstance(pilot.app.screen, CheckScreen))
        screen = pilot.app.screen
        assert isinstance(screen, CheckScreen)
        await shown(pilot, lambda: screen.result is not None and not screen.running)
        await screen.launch("runs", "running the program 3 times…", fixed_runs(RULES_FILE))
        await shown(pilot, lambda: bool(screen.query(StabilityView)))
        if keys:
            await pilot.press(*keys)
            await shown(
                pilot,
                lambda: (
                    bool(screen.query(StabilityView))
                    and isinstance(screen.query_one(StabilityView).shown, Sorted)
                ),
            )
        await pilot.pause()

    return snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_runs_ask_to_write_the_rule(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    assert shot(snap_compare, size)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_runs_end_with_the_real_change_left(
    snap_compare: SnapCompare, size: tuple[int, int]
) -> None:
    assert shot(snap_compare, size, "w", "y")
