"""The theme: `ctrl+t` or the settings screen switches it, the next start uses it, `--light` and
`--dark` win over it for one run, and a broken state file means the default, said on screen."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import RadioButton, Static

from tests.tui.pilot_support import until
from tests.tui.test_pilot_settings import settings_open
from tui.app import OpenProgramTUI
from tui.command_line import parse_arguments
from tui.model.state_dir import theme_state_path
from tui.theme import DARK_THEME, LIGHT_THEME, start_theme

SIZE = (120, 40)


def saved_document() -> object:
    return json.loads(theme_state_path().read_text(encoding="utf-8"))


async def test_ctrl_t_is_remembered_for_the_next_start(demo_home: Path) -> None:
    assert start_theme() == DARK_THEME, "nothing saved: dark"
    app = OpenProgramTUI(theme=start_theme())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+t")
        assert app.theme == LIGHT_THEME
        await until(pilot, theme_state_path().exists)
    assert saved_document() == {"theme": LIGHT_THEME}
    assert theme_state_path().stat().st_mode & 0o777 == 0o600

    again = OpenProgramTUI(theme=start_theme())
    async with again.run_test(size=SIZE):
        assert again.theme == LIGHT_THEME, "the next start is light"

    arguments = parse_arguments(["--dark"])
    assert start_theme(arguments.light, arguments.dark) == DARK_THEME, "--dark wins for one run"
    assert saved_document() == {"theme": LIGHT_THEME}, "and is not remembered"


@pytest.mark.parametrize(
    ("contents", "said"),
    [
        ("{not json", "is not valid JSON"),
        ('{"theme": "solarized"}', "field 'theme': 'solarized' is not one of"),
        ('["openprogram-light"]', "must hold a JSON object"),
    ],
)
async def test_a_broken_state_file_means_dark_and_the_settings_say_why(
    demo_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, contents: str, said: str
) -> None:
    monkeypatch.chdir(tmp_path)
    theme_state_path().write_text(contents, encoding="utf-8")
    assert start_theme() == DARK_THEME
    app = OpenProgramTUI(theme=start_theme())
    async with app.run_test(size=SIZE) as pilot:
        screen = await settings_open(pilot)
        note = screen.query_one("#settings-theme-note", Static)
        await until(pilot, lambda: "⚠" in str(note.render()))
        assert said in str(note.render()) and str(theme_state_path().name) in str(note.render())
        assert screen.query_one("#theme-openprogram-dark", RadioButton).value
        await pilot.click("#theme-openprogram-light")
        assert app.theme == LIGHT_THEME
        await until(pilot, lambda: theme_state_path().read_text(encoding="utf-8") != contents)
    assert saved_document() == {"theme": LIGHT_THEME}, "the switch replaced the broken file"


async def test_settings_show_the_theme_and_follow_ctrl_t(
    demo_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = OpenProgramTUI(theme=LIGHT_THEME)
    async with app.run_test(size=SIZE) as pilot:
        screen = await settings_open(pilot)
        light = screen.query_one("#theme-openprogram-light", RadioButton)
        assert light.value
        await pilot.press("ctrl+t")
        dark = screen.query_one("#theme-openprogram-dark", RadioButton)
        await until(pilot, lambda: dark.value and not light.value)
        note = str(screen.query_one("#settings-theme-note", Static).render())
        assert "tui.json" in note and "⚠" not in note


def test_light_and_dark_together_are_refused(demo_home: Path) -> None:
    command = [sys.executable, "-m", "tui.app", "--light", "--dark"]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert finished.returncode == 2
    assert "--dark: not allowed with argument --light" in finished.stderr
