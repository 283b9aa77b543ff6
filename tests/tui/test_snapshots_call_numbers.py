"""SVG snapshots of the call list's number columns (widened with `w`) and of the timeline (`t`),
at 80x24 and 200x60, dark and light, on the demo recording (times from a fixed clock)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.test_snapshots import LARGE_AND_SMALL, SnapCompare, after_ready
from tui.app import OpenProgramTUI
from tui.theme import DARK_THEME, LIGHT_THEME

VIEWS = {"wide-call-list": ("w",), "timeline": ("t",)}


@pytest.mark.parametrize("size", LARGE_AND_SMALL)
@pytest.mark.parametrize("theme", [DARK_THEME, LIGHT_THEME])
@pytest.mark.parametrize("view", VIEWS)
def test_numbers_and_timeline(
    snap_compare: SnapCompare,
    demo_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    view: str,
    theme: str,
    size: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    app = OpenProgramTUI([demo_file], theme=theme)
    keys = ("j", "j", *VIEWS[view])
    assert snap_compare(app, terminal_size=LARGE_AND_SMALL[size], run_before=after_ready(*keys))
