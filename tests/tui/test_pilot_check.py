"""The check screen driven with keys: edit and run a real check, step through differences, cancel."""

from __future__ import annotations

import io
import shlex
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.style import Style
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Static

from openprogram.providers.recording.differences import MISSING
from openprogram.recordings import CheckProgress, CheckResult, record_command
from tests.recording_files import REPO_ROOT
from tests.tui import check_support as fixtures
from tests.tui.pilot_support import notifications, until
from tui.model.check_commands import commands_path, remember_command, remembered_command
from tui.screens.check import CheckScreen
from tui.screens.command_editor import CommandEditorScreen
from tui.widgets.check.check_outcome import CheckOutcome
from tui.widgets.check.event_timeline import EventTimelineView
from tui.widgets.comparison.json_pane import JsonPane
from tui.widgets.comparison.mismatch_view import MismatchView
from tui.widgets.comparison.path_bar import PathBar
from tui.widgets.comparison.string_diff import StringDiffView

ECHO = [sys.executable, "examples/echo_agent.py"]
SIZE = (120, 40)


@pytest.fixture
def echo_recording(offline_children: Path) -> Path:
    """`examples/echo_agent.py hi`, recorded by the library with its command in the header."""
    result = record_command([*ECHO, "hi"], name="echo", cwd=str(REPO_ROOT))
    assert result.kept and result.path is not None, result
    return Path(result.path)


@pytest.fixture
def position_case(tmp_path: Path) -> tuple[Path, CheckResult]:
    """A recording whose stream was abandoned, and a real replay that read past it."""
    recording = fixtures.record_abandoned_call(tmp_path / "stream.jsonl")
    return recording, fixtures.position_mismatch(recording)


@pytest.fixture
def past_end_case(tmp_path: Path) -> tuple[Path, CheckResult]:
    """A one-call recording, and a real replay that made a second call."""
    recording = fixtures.record_one_call(tmp_path / "one.jsonl")
    return recording, fixtures.past_end_mismatch(recording)


@pytest.fixture
def plain_recording(tmp_path: Path) -> Path:
    """A recording without a command in its header."""
    from tests.recording_files import write_recording

    return write_recording(tmp_path / "plain.jsonl")


def host(screen: CheckScreen) -> fixtures.CheckHost:
    return fixtures.CheckHost(screen)


async def finished(pilot: Pilot[None]) -> CheckScreen:
    """Wait until the check screen on top shows a result."""
    await until(pilot, lambda: isinstance(pilot.app.screen, CheckScreen))
    screen = pilot.app.screen
    assert isinstance(screen, CheckScreen)
    await until(pilot, lambda: screen.result is not None and not screen.running)
    await until(pilot, lambda: bool(screen.query(MismatchView) or screen.query(CheckOutcome)))
    await fixtures.marks_revealed(pilot)
    return screen


async def editor(pilot: Pilot[None]) -> CommandEditorScreen:
    await until(pilot, lambda: isinstance(pilot.app.screen, CommandEditorScreen))
    screen = pilot.app.screen
    assert isinstance(screen, CommandEditorScreen)
    await until(pilot, lambda: bool(screen.query(Input)))  # composed, not only pushed
    return screen


def path_bar(screen: CheckScreen) -> PathBar:
    return screen.query_one(PathBar)


# -- a real rerun --


async def test_r_edits_the_recorded_command_reruns_it_and_shows_the_mismatch(
    echo_recording: Path, offline_children: Path
) -> None:
    app = host(CheckScreen(echo_recording))
    async with app.run_test(size=SIZE) as pilot:
        dialog = await editor(pilot)
        field = dialog.query_one(Input)
        assert parse(field.value) == [*ECHO, "hi"]
        assert dialog.command.cwd == str(REPO_ROOT)
        await pilot.press("backspace", "backspace", *"bye", "enter")
        screen = await finished(pilot)
        assert screen.result is not None and screen.result.status == "mismatch"
        bar = path_bar(screen)
        assert bar.breadcrumb == "call 1 › context › messages[2] › content[0] › text"
        recorded, incoming = (
            screen.query_one("#recorded", JsonPane),
            screen.query_one("#incoming", JsonPane),
        )
        assert recorded.marked is not None and recorded.marked.data is not None
        assert recorded.marked.data.value == "echo:hi"
        assert incoming.marked is not None and incoming.marked.data is not None
        assert incoming.marked.data.value == "echo:bye"
        assert remembered_command(echo_recording) == [*ECHO, "bye"]

        # The edit is offered next time; putting the recorded command back and running it is ok.
        await pilot.press("e")
        dialog = await editor(pilot)
        assert dialog.command.source == "remembered"
        assert parse(dialog.query_one(Input).value) == [*ECHO, "bye"]
        await pilot.press("ctrl+r", "enter")
        await until(pilot, lambda: screen.running or screen.result is None)
        await until(pilot, lambda: not screen.running)
        screen = await finished(pilot)
        assert screen.result is not None and screen.result.status == "ok"
        outcome = screen.query_one(CheckOutcome)
        assert outcome.kind == "ok"
        assert remembered_command(echo_recording) is None
    assert offline_children.read_text() == ""


async def test_progress_is_shown_while_the_program_runs_and_esc_cancels_it(
    echo_recording: Path,
) -> None:
    slow = [sys.executable, "-c", "import time; time.sleep(30)"]
    app = host(CheckScreen(echo_recording, slow, cwd=str(REPO_ROOT)))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, CheckScreen))
        running = app.screen
        assert isinstance(running, CheckScreen)
        await pilot.pause(0.2)
        assert running.running
        assert "starting the program" in str(running.query_one("#check-progress-text").render())
        await pilot.press("escape")
        screen = await finished(pilot)
        outcome = screen.query_one(CheckOutcome)
        assert outcome.kind == "cancelled"
        assert screen.result is not None and screen.result.duration_seconds < 10
        assert remembered_command(echo_recording) is None  # given on the command line: not an edit


async def test_progress_counts_the_calls_consumed_so_far(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()

    def run(recording: Path, argv: list[str], **kwargs: Any) -> CheckResult:
        kwargs["on_progress"](CheckProgress(calls_consumed=1, calls_recorded=2))
        release.wait(10)
        return fixtures.ok_result()

    monkeypatch.setattr("tui.model.check_session.run_tui_check", run)
    app = host(CheckScreen(Path("echo.jsonl"), ["python", "agent.py"]))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: bool(app.screen.query("#check-progress-text")))
        progress = app.screen.query_one("#check-progress-text")
        await until(pilot, lambda: "1/2 calls consumed" in str(progress.render()))
        release.set()
        screen = await finished(pilot)
        assert screen.query_one(CheckOutcome).kind == "ok"


# -- the mismatch view --


async def test_n_and_N_step_through_every_differing_field() -> None:
    app = host(CheckScreen(Path("echo.jsonl"), result=fixtures.long_string_mismatch()))
    async with app.run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        view = screen.query_one(MismatchView)
        bar, diff = path_bar(screen), screen.query_one(StringDiffView)
        assert view.position == 0 and diff.diff is None
        assert bar.breadcrumb.endswith("messages[2] › content[0] › text")
        await pilot.press("n")
        assert view.position == 1 and bar.breadcrumb == "call 1 › context › system_prompt"
        assert diff.diff is not None and diff.has_class("-shown")
        assert [line.kind for line in diff.diff.lines].count("removed") == 1
        await pilot.press("n")
        assert bar.breadcrumb == "call 1 › context › tools[0] › description"
        await pilot.press("n")
        assert view.position == 0
        await pilot.press("N")
        assert view.position == 2
        for pane in screen.query(JsonPane):
            assert pane.marked is not None and pane.marked.data is not None
            assert pane.marked.data.path == ("context", "tools", 0, "description")


async def test_a_missing_key_is_a_ghost_node_on_the_side_lacking_it() -> None:
    app = host(CheckScreen(Path("echo.jsonl"), result=fixtures.missing_key_mismatch()))
    async with app.run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        recorded = screen.query_one("#recorded", JsonPane)
        incoming = screen.query_one("#incoming", JsonPane)
        assert recorded.marked is not None and recorded.marked.data is not None
        assert recorded.marked.data.value == ["text"]
        assert incoming.marked is not None and incoming.marked.data is not None
        assert incoming.marked.data.value is MISSING
        shown = incoming.render_label(incoming.marked, Style(), Style()).plain
        assert shown == "required: ⟨missing⟩"
        siblings = [c.data.key for c in incoming.marked.parent.children if c.data]  # type: ignore[union-attr]
        assert siblings == ["properties", "required", "type"]  # where it would be
        assert "missing in the incoming request" in str(path_bar(screen).render())


async def test_a_type_change_is_named_in_the_path_bar() -> None:
    app = host(CheckScreen(Path("echo.jsonl"), result=fixtures.type_change_mismatch()))
    async with app.run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        text = str(path_bar(screen).render())
        assert "type changed: number → string" in text
        assert "recorded  3" in text and "incoming  '3'" in text
        await pilot.press("n")
        assert "This is the only differing field." in notifications(app)


async def test_y_copies_the_path_and_o_asks_to_open_the_call_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = host(CheckScreen(Path("echo.jsonl"), result=fixtures.content_mismatch()))
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=SIZE) as pilot:
        await finished(pilot)
        await pilot.press("y")
        assert copied == ["context.messages[2].content[0].text"]
        assert "context.messages[2].content[0].text" in notifications(app)
        await pilot.press("o")
        await pilot.pause()
        (opened,) = app.opened
        assert (opened.recording, opened.call_index) == (Path("echo.jsonl"), 1)
        assert opened.path_tokens == ("context", "messages", 2, "content", 0, "text")
        assert opened.event_index is None


def tall_mismatch() -> CheckResult:
    extra = [fixtures.UserMessage(content=f"turn {n}", timestamp=fixtures.CLOCK) for n in range(40)]
    recorded = fixtures.echo_request()
    incoming = fixtures.echo_request()
    for request in (recorded, incoming):
        request["context"]["messages"][1:1] = [m.model_dump(mode="json") for m in extra]
    incoming["context"]["messages"][-1]["content"][0]["text"] = "echo:bye"
    return fixtures.check_result("mismatch", fixtures.mismatch_of(recorded, incoming))


async def test_scrolling_one_pane_keeps_the_marked_rows_level() -> None:
    app = host(CheckScreen(Path("echo.jsonl"), result=tall_mismatch()))
    async with app.run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        recorded = screen.query_one("#recorded", JsonPane)
        incoming = screen.query_one("#incoming", JsonPane)
        assert recorded.marked is not None and incoming.marked is not None
        assert recorded.max_scroll_y > 0
        top = recorded.marked.line - recorded.scroll_offset.y
        assert 0 <= top < recorded.size.height  # scrolled into view
        recorded.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        assert incoming.scroll_y == pytest.approx(recorded.scroll_y)
        await pilot.press("tab")  # to the incoming pane
        incoming.scroll_to(y=10, animate=False, immediate=True)
        await pilot.pause()
        assert recorded.scroll_y == pytest.approx(10)


async def test_opening_a_node_on_one_side_opens_it_on_the_other() -> None:
    app = host(CheckScreen(Path("echo.jsonl"), result=fixtures.content_mismatch()))
    async with app.run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        recorded = screen.query_one("#recorded", JsonPane)
        incoming = screen.query_one("#incoming", JsonPane)

        def model_node(pane: JsonPane) -> Any:
            return next(n for n in pane.root.children if n.data and n.data.key == "model")

        assert not model_node(recorded).is_expanded
        model_node(recorded).expand()
        await pilot.pause()
        await pilot.pause()
        assert model_node(incoming).is_expanded
        model_node(incoming).collapse()
        await pilot.pause()
        await pilot.pause()
        assert not model_node(recorded).is_expanded


# -- the other outcomes --


async def test_a_position_divergence_shows_the_timeline_and_where_the_run_read_past(
    position_case: tuple[Path, CheckResult],
) -> None:
    recording, result = position_case
    app = host(CheckScreen(recording, result=result))
    async with app.run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        assert screen.query_one(CheckOutcome).kind == "position"
        timeline = screen.query_one(EventTimelineView)
        text = shown_text(timeline.query_one("#event-timeline-rows", Static))
        assert "the run asked for event 3" in text
        await pilot.press("o")
        await pilot.pause()
        (opened,) = app.opened
        assert (opened.call_index, opened.event_index) == (0, 2)


async def test_a_call_past_the_end_shows_the_extra_request(
    past_end_case: tuple[Path, CheckResult],
) -> None:
    recording, result = past_end_case
    app = host(CheckScreen(recording, result=result))
    async with app.run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        assert screen.query_one(CheckOutcome).kind == "past_end"
        extra = screen.query_one("#extra", JsonPane)
        assert extra.marked is not None and extra.marked.data is not None
        assert extra.marked.data.value["content"] == "and again"


async def test_incomplete_names_the_calls_never_made_and_o_opens_the_first() -> None:
    app = host(CheckScreen(Path("echo.jsonl"), result=fixtures.incomplete_result()))
    async with app.run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        facts = shown_text(screen.query_one("#outcome-facts", Static))
        assert "never requested  calls 1, 2, 3" in facts
        await pilot.press("o")
        await pilot.pause()
        assert [m.call_index for m in app.opened] == [1]


async def test_an_error_shows_the_exit_code_and_the_stderr_tail() -> None:
    app = host(CheckScreen(Path("echo.jsonl"), result=fixtures.error_result()))
    async with app.run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        stderr = screen.query_one("#outcome-stderr")
        assert stderr.has_class("-shown")
        assert "KeyError: 'gemini'" in str(stderr.render())
        await pilot.press("o")
        assert app.opened == []


async def test_a_failure_of_the_rerun_itself_is_a_result_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: object, **kwargs: object) -> CheckResult:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("tui.model.check_session.run_tui_check", broken)
    app = host(CheckScreen(Path("echo.jsonl"), ["true"]))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: bool(app.screen.query(CheckOutcome)))
        await until(pilot, lambda: app.screen.query_one(CheckOutcome).kind == "error")
        facts = shown_text(app.screen.query_one("#outcome-facts", Static))
        assert "RuntimeError: disk on fire" in facts


# -- the editor --


async def test_the_editor_refuses_a_broken_command_and_esc_leaves(plain_recording: Path) -> None:
    below = Screen[None]()
    app = fixtures.CheckHost(CheckScreen(plain_recording), below=below)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await editor(pilot)
        assert dialog.command.source == "none"
        assert dialog.query_one(Input).value == ""
        await pilot.press(*'python "x', "enter")
        error = dialog.query_one("#command-error")
        assert error.has_class("-shown") and "a quote is not closed" in str(error.render())
        assert isinstance(app.screen, CommandEditorScreen)
        await pilot.press("ctrl+r")
        assert "This recording stores no command." in notifications(app)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is below)
    assert not commands_path().exists()


async def test_an_ok_the_rules_made_names_the_rule_and_what_it_absorbed() -> None:
    """Issue #42, item 13: "ok … with the same request" hid that a rule absorbed a difference;
    the outcome says it as `openprogram recordings check` does, and which difference it was."""
    absorbed = fixtures.absorbed_mismatch()
    ok = absorbed.model_copy(update={"status": "ok", "mismatch": None, "calls_consumed": 2})
    app = host(CheckScreen(Path("echo.jsonl"), result=ok))
    async with app.run_test(size=SIZE) as pilot:
        screen = await finished(pilot)
        outcome = screen.query_one(CheckOutcome)
        assert outcome.kind == "ok"
        explanation = str(outcome.query_one("#outcome-explanation", Static).render())
        assert "with the same request once the rules below absorbed what differs" in explanation
        facts = " ".join(shown_text(outcome.query_one("#outcome-facts", Static)).split())
        rule = "normalize context.system_prompt iso-datetime"
        assert f"rule {rule} (/work/agent/pyproject.toml)" in facts
        assert "absorbed 1 difference in 1 call by the rules" in facts
        assert f"call 1 · context.system_prompt · {rule}" in facts


async def test_esc_on_a_result_goes_back(tmp_path: Path) -> None:
    app = host(CheckScreen(Path("echo.jsonl"), result=fixtures.ok_result()))
    async with app.run_test(size=SIZE) as pilot:
        await finished(pilot)
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_code == 0


def parse(text: str) -> list[str]:
    return shlex.split(text)


def shown_text(widget: Static) -> str:
    """What a `Static` shows, as plain text."""
    console = Console(width=200, file=io.StringIO(), record=True)
    console.print(widget.content)
    return console.export_text()


async def test_run_at_once_uses_the_recorded_command_as_check_does(
    echo_recording: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remember_command(echo_recording, ["python", "edited.py"])
    ran: list[list[str]] = []

    def run(recording: Path, argv: list[str], **kwargs: Any) -> CheckResult:
        ran.append(argv)
        return fixtures.ok_result()

    monkeypatch.setattr("tui.model.check_session.run_tui_check", run)
    app = host(CheckScreen(echo_recording, edit_first=False))
    async with app.run_test(size=SIZE) as pilot:
        await finished(pilot)
    assert ran == [[*ECHO, "hi"]]
