"""`t` on the check screen: the program run three times, its differences in two groups, and the
proposed rule written to the project after the user sees it and says yes."""

from __future__ import annotations

import tomllib
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import OptionList, Static

from openprogram.recordings.stability import StabilityReport
from tests.tui import check_support as fixtures
from tests.tui.runs_support import CHANGED, record_runs_agent, shown
from tui.model.check_runs import RulesQuestion, Sorted
from tui.screens.check import CheckScreen
from tui.screens.confirm import ConfirmScreen
from tui.widgets.check.stability_view import StabilityView
from tui.widgets.comparison.mismatch_view import MismatchView
from tui.widgets.comparison.path_bar import PathBar

SIZE = (120, 40)


def view_text(screen: CheckScreen) -> str:
    view = screen.query_one(StabilityView)
    summary = str(view.query_one("#runs-summary", Static).render())
    options = view.query_one(OptionList)
    prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
    return "\n".join([summary, *prompts])


def groups(text: str) -> dict[str, str]:
    """The view's text cut at its group headings."""
    parts: dict[str, str] = {}
    for title in ("ruled", "changes by itself", "the code changed"):
        if f"{title}  (" in text:
            parts[title] = text.split(f"{title}  (", 1)[1]
    for title, part in parts.items():
        for other in parts:
            if other != title and f"{other}  (" in part:
                part = part.split(f"{other}  (", 1)[0]
        parts[title] = part
    return parts


async def test_t_sorts_the_uuid_from_the_real_change_and_w_writes_the_rule(
    offline_children: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    recording = record_runs_agent(project)
    app = fixtures.CheckHost(CheckScreen(recording, CHANGED, cwd=str(project)))
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, lambda: isinstance(app.screen, CheckScreen))
        screen = app.screen
        assert isinstance(screen, CheckScreen)
        await shown(pilot, lambda: screen.result is not None and not screen.running)
        await pilot.press("t")
        # After two runs the runs wait: the UUID changes by itself, the user's words do not.
        await shown(pilot, lambda: bool(screen.query(StabilityView)))
        view = screen.query_one(StabilityView)
        assert isinstance(view.shown, RulesQuestion)
        found = groups(view_text(screen))
        assert "call 0  context.system_prompt" in found["changes by itself"]
        assert "rule:     normalize context.system_prompt uuid" in found["changes by itself"]
        assert "context.messages[0].content" not in found["changes by itself"]
        assert "call 0  context.messages[0].content" in found["the code changed"]
        assert "incoming: 'sell milk'   (every run)" in found["the code changed"]
        assert "context.system_prompt" not in found["the code changed"]
        pyproject = project / "pyproject.toml"
        assert not pyproject.exists()  # nothing is written before the yes

        await pilot.press("w")
        await shown(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = str(app.screen.query_one("#confirm-question", Static).render())
        assert "normalize context.system_prompt uuid" in question
        assert str(pyproject) in question
        await pilot.press("y")
        # The rule is written and the third run confirms what it leaves: the real change only.
        await shown(
            pilot,
            lambda: (
                bool(screen.query(StabilityView))
                and isinstance(screen.query_one(StabilityView).shown, Sorted)
            ),
        )
        final = groups(view_text(screen))
        assert "call 0  context.system_prompt" in final["ruled"]
        assert "changes by itself" not in final
        assert "call 0  context.messages[0].content" in final["the code changed"]
        assert "3 runs of 3" in view_text(screen)
        written = tomllib.loads(pyproject.read_text())["tool"]["openprogram"]["replay"]
        assert [(rule["path"], rule["preset"]) for rule in written["normalize"]] == [
            ("context.system_prompt", "uuid")
        ]

        # enter on the code's difference: the recorded request and the last run's, side by side.
        view = screen.query_one(StabilityView)
        highlighted = view.highlighted()
        assert highlighted is not None and highlighted.kind == "code_changed"
        await pilot.press("enter")
        await shown(pilot, lambda: bool(screen.query(MismatchView)))
        await shown(pilot, lambda: "sell milk" in str(screen.query_one(PathBar).render()))
        bar = str(screen.query_one(PathBar).render())
        assert "call 0 › context › messages[0] › content" in bar and "'buy milk'" in bar
        await pilot.press("escape")  # back to the runs, still on the check screen
        await shown(pilot, lambda: not screen.query(MismatchView))
        assert app.screen is screen and screen.query_one(OptionList).has_focus
        assert offline_children.read_text() == ""


async def test_esc_while_the_runs_ask_writes_nothing_and_shows_what_they_found(
    offline_children: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    recording = record_runs_agent(project)
    app = fixtures.CheckHost(CheckScreen(recording, CHANGED, cwd=str(project)))
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, lambda: isinstance(app.screen, CheckScreen))
        screen = app.screen
        assert isinstance(screen, CheckScreen)
        await shown(pilot, lambda: screen.result is not None and not screen.running)
        await pilot.press("t")
        await shown(pilot, lambda: bool(screen.query(StabilityView)))
        await pilot.press("escape")
        await shown(
            pilot,
            lambda: (
                bool(screen.query(StabilityView))
                and isinstance(screen.query_one(StabilityView).shown, Sorted)
            ),
        )
        found = groups(view_text(screen))
        assert "call 0  context.system_prompt" in found["changes by itself"]
        assert "call 0  context.messages[0].content" in found["the code changed"]
        assert "2 runs of 3 (stopped)" in view_text(screen)
        assert not (project / "pyproject.toml").exists()
        assert isinstance(app.screen, CheckScreen)  # esc stopped the runs, not the screen


async def test_runs_whose_program_failed_say_so_and_never_stable() -> None:
    failed = StabilityReport(
        recording="runs.jsonl",
        runs=2,
        runs_allowed=3,
        rules_written=[],
        rules_file=None,
        ruled=[],
        changes_by_itself=[],
        code_changed=[],
        last_run=fixtures.error_result(),
    )

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield StabilityView(Sorted(failed))

    async with Host().run_test(size=SIZE) as pilot:
        await pilot.pause()
        summary = str(pilot.app.query_one("#runs-summary", Static).render())
        assert "the last run failed: the program exited with code 1" in summary
        assert "stable" not in summary
