"""The pictures in `screenshots/` (the README shows them) are what `scripts/screenshots.py` renders
today: a screen that changed without new pictures fails here, naming the first row that differs."""

from __future__ import annotations

import asyncio
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from textual.widgets import Input

from tests.tui.svg_text import svg_rows
from tui.model.demo import prepare_demo_home

REPO = Path(__file__).resolve().parents[2]


def screenshots_script() -> ModuleType:
    name = "openprogram_screenshots_script"
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / "screenshots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


SCRIPT = screenshots_script()
NAMES = [item.name for item in SCRIPT.CAPTURES] + ["diff"]


# The demo's header names the folder it was made in, so its size moves with that folder's name.
_SIZE = re.compile(r"\b\d+(?:\.\d+)? (?:B|KiB|MiB)\b")


def first_difference(stored: list[str], rendered: list[str]) -> str | None:
    stored = [_SIZE.sub("<size>", row) for row in stored]
    rendered = [_SIZE.sub("<size>", row) for row in rendered]
    for row, (old, new) in enumerate(zip(stored, rendered, strict=False)):
        if old != new:
            return f"row {row}: stored {old!r}, rendered {new!r}"
    if len(stored) != len(rendered):
        return f"stored {len(stored)} rows, rendered {len(rendered)}"
    return None


@pytest.mark.parametrize("name", NAMES)
def test_the_stored_screenshot_is_what_the_script_renders(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)  # as the script: no blinking
    demo = prepare_demo_home(tmp_path / "home")
    if name == "diff":
        pair = tmp_path / "home" / "diff"  # as the script: inside the state folder
        pair.mkdir()
        rendered = asyncio.run(SCRIPT.capture_diff(pair))
    else:
        item = next(item for item in SCRIPT.CAPTURES if item.name == name)
        rendered = asyncio.run(SCRIPT.capture(item, demo))
    stored = (REPO / "screenshots" / f"{name}.svg").read_text(encoding="utf-8")
    difference = first_difference(svg_rows(stored), svg_rows(rendered))
    assert difference is None, (
        f"screenshots/{name}.svg is stale ({difference}): run `python scripts/screenshots.py`"
    )
