"""SVG snapshots of finer diffs: a changed long token, an inserted message, output of a short run.

At 120x40 and 80x24, dark theme (and light for the string diff and the output boxes). After a change
that alters a picture on purpose, look at the report, then run
`pytest tests/tui/test_snapshots_finer_diffs.py --snapshot-update`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from openprogram.recordings import CheckResult
from tests.tui import check_support as fixtures
from tui.screens.check import CheckScreen
from tui.theme import DARK_THEME, LIGHT_THEME

SnapCompare = Callable[..., bool]
SIZES = {"120x40": (120, 40), "80x24": (80, 24)}


after_result = fixtures.after_result


def shot(
    snap_compare: SnapCompare, result: CheckResult, size: str, theme: str = DARK_THEME
) -> bool:
    app = fixtures.CheckHost(CheckScreen(Path("echo.jsonl"), result=result))
    app.theme = theme
    return snap_compare(app, terminal_size=SIZES[size], run_before=after_result())


@pytest.mark.parametrize("size", SIZES)
def test_long_token_changed_in_one_character(snap_compare: SnapCompare, size: str) -> None:
    assert shot(snap_compare, fixtures.long_token_mismatch(), size)


def test_long_token_light(snap_compare: SnapCompare) -> None:
    assert shot(snap_compare, fixtures.long_token_mismatch(), "120x40", LIGHT_THEME)


@pytest.mark.parametrize("size", SIZES)
def test_inserted_message(snap_compare: SnapCompare, size: str) -> None:
    assert shot(snap_compare, fixtures.inserted_message_mismatch(), size)


@pytest.mark.parametrize("size", SIZES)
def test_fewer_calls_with_stdout(snap_compare: SnapCompare, size: str) -> None:
    assert shot(snap_compare, fixtures.incomplete_with_output(), size)


def test_fewer_calls_with_stdout_light(snap_compare: SnapCompare) -> None:
    assert shot(snap_compare, fixtures.incomplete_with_output(), "80x24", LIGHT_THEME)
