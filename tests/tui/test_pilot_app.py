"""The app's wiring: bindings with ids, the command line, the palette, the demo layout."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from textual.binding import Binding
from textual.command import CommandList, CommandPalette

import tui
from tests.tui.pilot_support import until
from tui.app import OpenProgramTUI, main
from tui.screens.recording import RecordingScreen
from tui.screens.recordings import RecordingsScreen
from tui.screens.settings import SettingsScreen


def tui_classes() -> list[type]:
    found = []
    for module_info in pkgutil.walk_packages(tui.__path__, "tui."):
        if module_info.name.endswith("__main__"):
            continue
        module = importlib.import_module(module_info.name)
        found += [
            c
            for _, c in inspect.getmembers(module, inspect.isclass)
            if c.__module__ == module.__name__
        ]
    return found


def test_every_binding_is_declared_once_with_an_id() -> None:
    checked = 0
    for cls in tui_classes():
        bindings = [b for b in cls.__dict__.get("BINDINGS", []) if isinstance(b, Binding)]
        assert len(bindings) == len(cls.__dict__.get("BINDINGS", [])), cls
        ids = [b.id for b in bindings]
        assert all(ids), f"{cls.__name__} has a binding without an id"
        assert len(set(ids)) == len(ids), f"{cls.__name__} declares an id twice"
        checked += len(bindings)
    assert checked > 30


def test_version_and_a_missing_path(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out.startswith("openprogram-tui ")
    assert main([str(tmp_path / "missing.jsonl")]) == 2
    assert "missing.jsonl: no such file" in capsys.readouterr().err


async def test_the_demo_opens_on_top_of_the_list(demo_home: Path) -> None:
    app = OpenProgramTUI(open_on_start=demo_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RecordingScreen))
        await pilot.press("q")
        assert isinstance(app.screen, RecordingsScreen)


async def test_the_palette_offers_settings(demo_home: Path) -> None:
    app = OpenProgramTUI([demo_home])
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RecordingScreen))
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"settings")
        await until(pilot, lambda: app.screen.query_one(CommandList).option_count > 0)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SettingsScreen))
        await pilot.press("escape")
        assert isinstance(app.screen, RecordingScreen)
        await pilot.press("ctrl+k")
        assert isinstance(app.screen, CommandPalette)
