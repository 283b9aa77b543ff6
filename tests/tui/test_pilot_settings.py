"""Settings: save through the library, refuse what it refuses, and work while things are broken."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, RadioButton, Select, Static

from openprogram.providers.recording.config import config_path, read_record_replay_config
from openprogram.providers.recording.rules import NormalizeRule
from openprogram.recordings import managed_path, turn_off
from openprogram.recordings.rule_edits import add_rule_to_header
from tests.tui.pilot_support import notifications, until
from tui.app import OpenProgramTUI
from tui.screens.settings import SettingsScreen
from tui.widgets.common.mode_badge import ModeBadge

SIZE = (120, 40)


async def settings_open(pilot: Pilot[None]) -> SettingsScreen:
    await pilot.press("s")
    await until(pilot, lambda: isinstance(pilot.app.screen, SettingsScreen))
    screen = pilot.app.screen
    assert isinstance(screen, SettingsScreen)
    await until(pilot, lambda: "Configuration" in text_of(screen, "#settings-status"))
    return screen


def text_of(screen: SettingsScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def save(pilot: Pilot[None], screen: SettingsScreen) -> str:
    before = len(notifications(pilot.app))
    await pilot.pause()  # let the form lay out after a change of mode
    await pilot.click("#save")
    await until(pilot, lambda: len(notifications(pilot.app)) > before)
    return text_of(screen, "#settings-result")


async def test_the_current_choice_is_shown_and_off_is_saved(demo_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        screen = await settings_open(pilot)
        assert "Now: replay echo-demo" in text_of(screen, "#settings-status")
        assert screen.query_one("#mode-replay", RadioButton).value
        assert screen.query_one("#replay-id", Select).value == "echo-demo"
        assert "apply on the next start" in text_of(screen, "#settings-notice")
        screen.query_one("#mode-off", RadioButton).value = True
        result = await save(pilot, screen)
        assert "record/replay is off" in result
        assert read_record_replay_config().mode == "off"
        await until(pilot, lambda: "off" in str(screen.query_one(ModeBadge).render()))


async def test_record_with_a_new_name(demo_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        screen = await settings_open(pilot)
        screen.query_one("#mode-record", RadioButton).value = True
        await pilot.pause()
        assert screen.query_one("#record-fields").display
        screen.query_one("#record-name", Input).value = "checkout"
        result = await save(pilot, screen)
        assert "records into checkout" in result
        assert managed_path("checkout").exists()
        assert read_record_replay_config().file == "checkout"


async def test_a_damaged_replay_file_is_refused(demo_home: Path) -> None:
    before = config_path().read_bytes()
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        screen = await settings_open(pilot)
        screen.query_one("#replay-path", Input).value = str(managed_path("echo-demo-damaged"))
        result = await save(pilot, screen)
        assert "last line is truncated" in result
        assert screen.query_one("#settings-result").has_class("-problem")
        assert "Not saved" in [n.title for n in app._notifications]
    assert config_path().read_bytes() == before


async def test_a_broken_config_is_explained_and_can_be_replaced(demo_home: Path) -> None:
    config_path().write_text("{oops")
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        screen = await settings_open(pilot)
        status = text_of(screen, "#settings-status")
        assert "cannot be read" in status and "corrupt" in status
        assert "config unreadable" in str(screen.query_one(ModeBadge).render())
        screen.query_one("#mode-replay", RadioButton).value = True
        await pilot.pause()
        screen.query_one("#replay-id", Select).value = "echo-demo"
        result = await save(pilot, screen)
        assert "replays echo-demo.jsonl" in result and "kept as config.json.corrupt-" in result
    assert read_record_replay_config().file == "echo-demo"


async def test_a_broken_configured_file_still_lets_you_switch(demo_home: Path) -> None:
    managed_path("echo-demo").write_bytes(b"garbage\n")
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        screen = await settings_open(pilot)
        assert "would block" in text_of(screen, "#settings-status")
        assert "blocked" in str(screen.query_one(ModeBadge).render())
        screen.query_one("#mode-off", RadioButton).value = True
        await save(pilot, screen)
        await pilot.press("escape")
        assert not isinstance(app.screen, SettingsScreen)
    assert read_record_replay_config().mode == "off"


async def test_the_rules_in_force_are_listed_with_where_each_comes_from(
    demo_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "agent"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[tool.openprogram.replay]\nignore = ["options.metadata.request_id"]\n'
    )
    monkeypatch.chdir(project / "src")  # found from the working directory upwards
    add_rule_to_header(
        managed_path("echo-demo"),
        NormalizeRule(path="context.system_prompt", preset="iso-datetime"),
    )
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:
        screen = await settings_open(pilot)
        await until(pilot, lambda: "•" in text_of(screen, "#settings-rules"))
        lines = text_of(screen, "#settings-rules").splitlines()
        assert lines[:2] == [
            f"• ignore options.metadata.request_id  {project / 'pyproject.toml'}",
            "• normalize context.system_prompt iso-datetime  recording header",
        ]

        # A rules table replay would refuse is named, file and key.
        (project / "pyproject.toml").write_text('[tool.openprogram.replay]\nignore = "x"\n')
        await pilot.press("escape")
        screen = await settings_open(pilot)
        await until(pilot, lambda: "⚠" in text_of(screen, "#settings-rules"))
        assert "pyproject.toml: tool.openprogram.replay.ignore: must be a list" in text_of(
            screen, "#settings-rules"
        )


async def test_the_badge_follows_a_mode_changed_in_another_shell(demo_home: Path) -> None:
    app = OpenProgramTUI()
    async with app.run_test(size=SIZE) as pilot:

        def badge() -> str:
            return str(app.screen.query_one(ModeBadge).render())

        await until(pilot, lambda: "replay echo-demo" in badge())
        turn_off()  # as `openprogram recordings off` in another shell does
        await until(pilot, lambda: "off (live)" in badge(), timeout=5)


async def test_the_diff_view_badge_says_what_the_next_start_does(
    demo_home: Path, tmp_path: Path
) -> None:
    app = OpenProgramTUI(diff=(demo_home, demo_home))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: bool(app.screen.query(ModeBadge)))
        await until(
            pilot, lambda: "replay echo-demo" in str(app.screen.query_one(ModeBadge).render())
        )
