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
from tests.tui.pilot_support import recording_ready, until
from tui.app import OpenProgramTUI, main
from tui.command_line import parse_arguments
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
    assert "missing.jsonl: file not found" in capsys.readouterr().err


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


async def test_call_and_field_open_the_request_at_that_field(demo_file: Path) -> None:
    from textual.widgets import TabbedContent

    from tui.model.navigation import GotoTarget
    from tui.widgets.common.json_tree import JsonTree
    from tui.widgets.recording.event_list import EventList

    app = OpenProgramTUI([demo_file], start_at=GotoTarget(1), field=("context", "messages", 2))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RecordingScreen))
        screen = app.screen
        assert isinstance(screen, RecordingScreen)
        await until(pilot, lambda: screen.loaded is not None and screen.loaded.call_index == 1)
        tree = screen.query_one(JsonTree)
        assert screen.query_one(TabbedContent).active == "tab-request" and tree.has_focus

        def at_field() -> bool:
            node = tree.cursor_node
            return (
                node is not None
                and node.data is not None
                and node.data.path[:2] == ("context", "messages")
            )

        await until(pilot, at_field)
        assert tree.cursor_node is not None and tree.cursor_node.data is not None
        assert tree.cursor_node.data.path == ("context", "messages", 2)
    app = OpenProgramTUI([demo_file], start_at=GotoTarget(3, 7))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await recording_ready(pilot)
        events = screen.query_one(EventList)
        await until(pilot, lambda: events.cursor == 7)


def test_call_and_field_are_checked(capsys: pytest.CaptureFixture[str], demo_file: Path) -> None:
    for argv, expected in (
        ([str(demo_file), "--call", "x"], "12.40"),
        ([str(demo_file), "--field", "a..b"], "expected a key name"),
        (["--call", "2"], "exactly one recording"),
    ):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2
        assert expected in capsys.readouterr().err


def test_follow_needs_one_recording(capsys: pytest.CaptureFixture[str], demo_file: Path) -> None:
    assert parse_arguments([str(demo_file), "--follow"]).follow
    assert not parse_arguments([str(demo_file)]).follow
    with pytest.raises(SystemExit) as exited:
        main(["--follow"])
    assert exited.value.code == 2
    assert "--follow needs exactly one recording" in capsys.readouterr().err
