"""From a mismatch to ok in the check screen: `z` normalises, `i` ignores, the rerun runs again.

Real programs rerun for real: the dated agent (today's date in its system prompt, a tool writing
into a fresh temp dir) recorded one day and rerun the next, and the echo agent rerun with another
word. The rules land in the recording's header or the project's `pyproject.toml`.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, RadioSet

from openprogram.providers.recording.rules import NormalizeRule
from openprogram.providers.recording.rules_sources import rules_from_pyproject
from openprogram.recordings import record_command, rule_edits
from tests.recording_files import REPO_ROOT
from tests.tui import check_support as fixtures
from tests.tui.pilot_support import notifications, until
from tui.screens.check import CheckScreen
from tui.screens.rule_editor import RuleEditorScreen
from tui.screens.rules import RulesScreen
from tui.widgets.check.check_outcome import CheckOutcome
from tui.widgets.comparison.json_pane import JsonPane
from tui.widgets.comparison.mismatch_view import MismatchView
from tui.widgets.comparison.path_bar import PathBar

SIZE = (120, 40)


@pytest.fixture
def dated_project(tmp_path: Path, offline_children: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The dated agent in a project with no rules, recorded on 2026-12-01; now it is the 2nd."""
    project = tmp_path / "dated"
    project.mkdir()
    shutil.copy(REPO_ROOT / "examples" / "dated_agent" / "agent.py", project / "agent.py")
    (project / "pyproject.toml").write_text('# the project\n[project]\nname = "dated"\n')
    monkeypatch.setenv("OPENPROGRAM_EXAMPLE_TODAY", "2026-12-01")
    made = record_command([sys.executable, "agent.py"], name="dated", cwd=str(project))
    assert made.kept and made.path is not None, made
    monkeypatch.setenv("OPENPROGRAM_EXAMPLE_TODAY", "2026-12-02")
    return Path(made.path)


async def result_shown(pilot: Pilot[None], screen: CheckScreen, runs_before: int) -> str:
    """Wait for the run after `runs_before` to finish and be drawn; its status."""
    await until(pilot, lambda: screen.session.runs > runs_before and not screen.running)
    await until(pilot, lambda: bool(screen.query(MismatchView) or screen.query(CheckOutcome)))
    await pilot.pause()
    assert screen.result is not None
    return screen.result.status


async def rule_editor(pilot: Pilot[None]) -> RuleEditorScreen:
    await until(pilot, lambda: isinstance(pilot.app.screen, RuleEditorScreen))
    editor = pilot.app.screen
    assert isinstance(editor, RuleEditorScreen)
    return editor


def header_rules(recording: Path) -> dict[str, object]:
    header = json.loads(recording.read_bytes().split(b"\n", 1)[0])
    rules = header.get("rules", {})
    assert isinstance(rules, dict)
    return rules


async def test_z_normalises_the_date_into_the_header_then_the_temp_path_into_the_project(
    dated_project: Path, offline_children: Path, tmp_path: Path
) -> None:
    screen = CheckScreen(dated_project, edit_first=False)  # the recorded command, run at once
    async with fixtures.CheckHost(screen).run_test(size=SIZE) as pilot:
        assert await result_shown(pilot, screen, 0) == "mismatch"
        assert screen.query_one(PathBar).breadcrumb == "call 0 › context › system_prompt"

        await pilot.press("z")
        editor = await rule_editor(pilot)
        assert editor.query_one("#rule-pattern", Input).value == "iso-datetime"  # the preset fits
        assert [rule.describe() for rule in editor.rules] == [
            "normalize context.system_prompt iso-datetime"
        ]
        runs = screen.session.runs
        await pilot.press("enter")  # saved to this recording's header (the default)
        assert await result_shown(pilot, screen, runs) == "mismatch"
        assert header_rules(dated_project) == {
            "normalize": [{"path": "context.system_prompt", "preset": "iso-datetime"}]
        }

        # The next mismatch: the temp path in the tool result. The date is shown absorbed.
        bar = screen.query_one(PathBar)
        assert bar.breadcrumb == "call 1 › context › messages[2] › content[0] › text"
        incoming = screen.query_one("#incoming", JsonPane)
        assert incoming.absorbed == {("context", "system_prompt"): "≈ iso-datetime"}
        await pilot.press("n")  # the absorbed difference, with its rule and where it comes from
        assert bar.breadcrumb == "call 1 › context › system_prompt"
        assert "absorbed by normalize context.system_prompt iso-datetime  (recording header)" in (
            str(bar.render())
        )
        await pilot.press("N")

        await pilot.press("z")
        editor = await rule_editor(pilot)
        assert editor.query_one("#rule-pattern", Input).value == "tmp-path"
        scope = editor.query_one("#rule-scope", RadioSet)
        scope.focus()
        await pilot.press("down", "space")
        assert scope.pressed_index == 1
        await pilot.press("ctrl+t", "ctrl+t")  # to the recording and back to the project
        assert scope.pressed_index == 1
        runs = screen.session.runs
        await pilot.press("enter")
        assert await result_shown(pilot, screen, runs) == "ok"
        assert screen.query_one(CheckOutcome).kind == "ok"
        assert any(
            message.startswith("Added `normalize context.messages[*].content[*].text tmp-path`")
            and message.endswith("pyproject.toml. Running again…")
            for message in notifications(pilot.app)
        )

    pyproject = tmp_path / "dated" / "pyproject.toml"  # where the program runs
    assert pyproject.read_text().startswith('# the project\n[project]\nname = "dated"\n')
    assert [rule.describe() for rule in rules_from_pyproject(pyproject).all()] == [
        "normalize context.messages[*].content[*].text tmp-path"
    ]
    assert offline_children.read_text() == ""


async def test_i_ignores_the_field_with_every_index_as_a_star(offline_children: Path) -> None:
    made = record_command(
        [sys.executable, "examples/echo_agent.py", "hi"], name="echo", cwd=str(REPO_ROOT)
    )
    assert made.path is not None
    recording = Path(made.path)
    argv = [sys.executable, "examples/echo_agent.py", "bye"]
    screen = CheckScreen(recording, argv, cwd=str(REPO_ROOT))
    async with fixtures.CheckHost(screen).run_test(size=SIZE) as pilot:
        assert await result_shown(pilot, screen, 0) == "mismatch"
        await pilot.press("i")
        editor = await rule_editor(pilot)
        paths = editor.query_one("#rule-path", RadioSet)
        assert paths.has_focus
        await pilot.press("down", "space")
        assert [rule.describe() for rule in editor.rules] == [
            "ignore context.messages[*].content[*].text"
        ]
        runs = screen.session.runs
        await pilot.press("enter")
        assert await result_shown(pilot, screen, runs) == "ok"
    assert header_rules(recording) == {"ignore": ["context.messages[*].content[*].text"]}
    assert offline_children.read_text() == ""


async def test_the_editor_refuses_a_broken_expression_and_esc_writes_nothing(
    tmp_path: Path,
) -> None:
    recording = tmp_path / "echo.jsonl"
    recording.write_bytes(b"unchanged")
    screen = CheckScreen(recording, result=fixtures.content_mismatch())
    async with fixtures.CheckHost(screen).run_test(size=SIZE) as pilot:
        await until(pilot, lambda: bool(screen.query(MismatchView)))
        await pilot.press("z")
        editor = await rule_editor(pilot)
        pattern = editor.query_one("#rule-pattern", Input)
        pattern.value = "(unclosed"
        await pilot.pause()
        assert editor.rules == ()
        preview = str(editor.query_one("#rule-preview").render())
        assert preview.startswith("✗") and "regular expression" in preview
        await pilot.press("enter")  # refused: the dialog stays
        assert pilot.app.screen is editor
        await pilot.press("escape")
        await until(pilot, lambda: pilot.app.screen is screen)
    assert recording.read_bytes() == b"unchanged"


async def test_u_lists_the_rules_in_force_and_x_removes_one_then_the_check_runs_again(
    dated_project: Path,
) -> None:
    # Two presets saved into the header (as `z` writes them); one too many is removed from the TUI.
    for preset in ("iso-datetime", "uuid"):
        rule_edits.add_rule_to_header(
            dated_project, NormalizeRule(path="context.system_prompt", preset=preset)
        )  # type: ignore[arg-type]
    screen = CheckScreen(dated_project, edit_first=False)
    app = fixtures.CheckHost(screen)
    async with app.run_test(size=SIZE) as pilot:
        await result_shown(pilot, screen, 0)
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, RulesScreen))
        rules = app.screen
        assert isinstance(rules, RulesScreen)
        await until(pilot, lambda: len(rules.rules) == 2)
        await pilot.press("down", "x")  # the uuid rule
        await until(pilot, lambda: len(rules.rules) == 1)
        assert "Removed `normalize context.system_prompt uuid`." in notifications(app)
        await pilot.press("escape")  # closes, and the check runs again
        await result_shown(pilot, screen, 1)
    kept = [rule.describe() for rule in rule_edits.header_rules(dated_project).all()]
    assert kept == ["normalize context.system_prompt iso-datetime"]
