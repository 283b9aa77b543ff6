"""`openprogram-tui --check FILE` on a recording from elsewhere: its stored command is shown whole in
the command dialog (80 columns, wrapped, nothing hidden) and runs only on an explicit enter, which
this machine then remembers; a command edited for a path warns again when the file at that path
now names another command or folder; a file that is not a recording is refused before the app
starts."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static
from textual.widgets._footer import FooterKey

from openprogram.recordings import CheckResult, RecordingEntry
from openprogram.recordings.trust import is_trusted
from tests.tui import check_support as fixtures
from tests.tui.pilot_support import until
from tests.tui.test_pilot_check import editor, finished, shown_text
from tui.app import OpenProgramTUI, main
from tui.screens.check import CheckScreen
from tui.screens.command_editor import CommandEditorScreen

LONG = [f"--option-{n}=value-{n}-{'x' * 12}" for n in range(8)]
ARGV = [sys.executable, "-c", "print('hi')", *LONG, "--last-argument-to-see"]


def downloaded(folder: Path, argv: list[str] = ARGV, *, cwd: Path | None = None) -> Path:
    """A recording with no calls whose header stores a long command (as a download would)."""
    entry = {"argv": argv, "cwd": str(cwd or folder)}
    header = {"type": "header", "format_version": 2, "entry": entry}
    path = folder / "downloaded.jsonl"
    path.write_text(json.dumps(header) + "\n")
    return path


@pytest.fixture
def folders() -> list[str | None]:
    """The folder of every command the check screen ran."""
    return []


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch, folders: list[str | None]) -> list[list[str]]:
    """Every command the check screen ran (the check itself stands in for the program)."""
    commands: list[list[str]] = []

    def run(recording: Path, argv: list[str], **kwargs: Any) -> CheckResult:
        commands.append(list(argv))
        folders.append(kwargs.get("cwd"))
        return fixtures.ok_result()

    monkeypatch.setattr("tui.model.check_session.run_tui_check", run)
    return commands


def footer_actions(pilot: Pilot[None]) -> set[str]:
    return {key.action for key in pilot.app.screen.query(FooterKey)}


async def test_a_stored_command_from_elsewhere_waits_for_enter_in_a_dialog_that_fits_80_columns(
    tmp_path: Path, ran: list[list[str]]
) -> None:
    path = downloaded(tmp_path)
    app = OpenProgramTUI(check=path)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await editor(pilot)
        await pilot.pause()
        assert ran == []  # nothing runs before enter
        assert dialog.query_one("#command-untrusted", Static).region.width > 0
        frame = dialog.query_one("Vertical")
        assert frame.region.x >= 0 and frame.region.right <= 80
        whole = " ".join(shown_text(dialog.query_one("#command-whole", Static)).split())
        for argument in ARGV[3:]:
            assert argument in whole  # every argument on view, wrapped
        # While the field has focus, letters type: the screen's e and s are not offered.
        assert not footer_actions(pilot) & {"edit", "settings"}
        field = dialog.query_one(Input)
        before = field.value
        await pilot.press("e", "s")
        assert field.value == before + "es"
        assert isinstance(pilot.app.screen, CommandEditorScreen)
        await pilot.press("backspace", "backspace", "enter")
        await finished(pilot)
        assert ran == [ARGV]
    assert is_trusted(path, RecordingEntry(argv=ARGV, cwd=str(tmp_path)))

    again = OpenProgramTUI(check=path)  # allowed now: runs at once, as `check` would
    async with again.run_test(size=(80, 24)) as pilot:
        screen = await finished(pilot)
        assert isinstance(screen, CheckScreen)
    assert ran == [ARGV, ARGV]


async def test_escape_in_the_dialog_runs_nothing_and_trusts_nothing(
    tmp_path: Path, ran: list[list[str]]
) -> None:
    path = downloaded(tmp_path)
    app = OpenProgramTUI(check=path)
    async with app.run_test(size=(80, 24)) as pilot:
        await editor(pilot)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(pilot.app.screen, CommandEditorScreen))
    assert ran == []
    assert not is_trusted(path, RecordingEntry(argv=ARGV, cwd=str(tmp_path)))


async def untrusted_note_shown(pilot: Pilot[None]) -> bool:
    dialog = await editor(pilot)
    await pilot.pause()
    return bool(dialog.query("#command-untrusted"))


async def test_an_edited_command_warns_again_when_the_file_at_its_path_names_another_folder(
    tmp_path: Path, ran: list[list[str]], folders: list[str | None]
) -> None:
    path = downloaded(tmp_path)
    edited = [*ARGV, "--edited"]
    async with fixtures.CheckHost(CheckScreen(path)).run_test(size=(80, 24)) as pilot:
        assert await untrusted_note_shown(pilot)  # a download: the file's command and folder
        await pilot.press(*" --edited", "enter")
        await finished(pilot)
    # The edit is offered again without the warning while the file names what it named then.
    async with fixtures.CheckHost(CheckScreen(path)).run_test(size=(80, 24)) as pilot:
        assert not await untrusted_note_shown(pilot)
        await pilot.press("escape")
    assert (ran, folders) == ([edited], [str(tmp_path)])

    # The file at that path is replaced (a pull, a download): another command, another folder.
    planted = tmp_path / "planted"
    planted.mkdir()
    downloaded(tmp_path, [sys.executable, "planted.py"], cwd=planted)
    async with fixtures.CheckHost(CheckScreen(path)).run_test(size=(80, 24)) as pilot:
        assert await untrusted_note_shown(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, CommandEditorScreen)
        assert f"Runs in {planted}" in " ".join(
            shown_text(note).replace("\n", " ") for note in dialog.query(Static)
        )
        assert ran == [edited]  # nothing runs before enter
        await pilot.press("enter")
        await finished(pilot)
    assert (ran, folders) == ([edited, edited], [str(tmp_path), str(planted)])
    assert not is_trusted(
        path, RecordingEntry(argv=[sys.executable, "planted.py"], cwd=str(planted))
    )

    # Entered once, that edit in that folder is remembered: no warning the next time.
    async with fixtures.CheckHost(CheckScreen(path)).run_test(size=(80, 24)) as pilot:
        assert not await untrusted_note_shown(pilot)
        await pilot.press("escape")


def test_check_of_a_file_that_is_not_a_recording_is_refused_before_the_app_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("just some notes\n")
    assert main(["--check", str(notes)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(notes) in err and "not a recording" in err
