"""The diff view driven with keys: the call list by status, requests side by side, answers."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList, Static, TabbedContent

from tests.recording_files import REPO_ROOT
from tests.recordings.test_diff import BASE, record, text
from tests.tui.pilot_support import until
from tui.app import OpenProgramTUI
from tui.screens.diff import DiffScreen
from tui.screens.recording import RecordingScreen
from tui.widgets.common.title_bar import TitleBar
from tui.widgets.comparison.json_pane import JsonPane
from tui.widgets.comparison.path_bar import PathBar

SIZE = (120, 40)


async def diff_shown(pilot: Pilot[None]) -> DiffScreen:
    await until(pilot, lambda: isinstance(pilot.app.screen, DiffScreen))
    screen = pilot.app.screen
    assert isinstance(screen, DiffScreen)
    await until(pilot, lambda: screen.answers_done and bool(screen.query(PathBar)))
    await pilot.pause()
    return screen


def rows(screen: DiffScreen, changes: bool = False) -> list[str]:
    """The call list's rows: index and status (with `changes`, the change in time and tokens and
    the largest-change marks after them too: recorded with a real clock, they vary by run)."""
    calls = screen.query_one("#diff-calls", OptionList)
    prompts = [str(calls.get_option_at_index(n).prompt) for n in range(calls.option_count)]
    if changes:
        return prompts
    return [re.sub(r"  [-+]\S+.*$", "", p.replace("◆", " ")) for p in prompts]


async def test_the_list_says_what_changed_and_the_answer_tab_shows_the_words(
    tmp_path: Path,
) -> None:
    a = await record(tmp_path / "a.jsonl", BASE)
    b = await record(
        tmp_path / "b.jsonl",
        [BASE[0], ("two!", text("second")), ("three", text("third, now longer"))],
    )
    app = OpenProgramTUI(diff=(a, b))
    async with app.run_test(size=SIZE) as pilot:
        screen = await diff_shown(pilot)
        assert rows(screen) == ["#0  = same", "#1  ≠ request (1 field)", "#2  ≠ answer"]
        assert screen.row == 1  # opened on the first call that differs
        bar = screen.query_one(PathBar)
        assert bar.breadcrumb == "call 1 › context › messages[0] › content"
        said = str(bar.render()).splitlines()  # the two sides are A and B, as the panes say
        assert said[-2:] == ["A  'two'", "B  'two!'"]
        recorded, incoming = (
            screen.query_one("#recorded", JsonPane),
            screen.query_one("#incoming", JsonPane),
        )
        assert recorded.border_title == "A · call #1" and incoming.border_title == "B · call #1"
        assert recorded.marked is not None and recorded.marked.data is not None
        assert (recorded.marked.data.value, incoming.marked.data.value) == ("two", "two!")  # type: ignore[union-attr]

        await pilot.press("down")  # the call whose answer alone changed
        await until(pilot, lambda: screen.row == 2)
        await pilot.press("right_square_bracket")
        assert screen.query_one(TabbedContent).active == "diff-tab-answer"
        answer = screen.query_one("#diff-answer", Static).render()
        assert "third, now longer" in str(answer)
        assert "Usage (tokens)" in str(answer)
        assert any("strike" in str(span.style) for span in answer.spans)  # type: ignore[attr-defined]


async def test_n_walks_the_differences_across_calls_and_o_opens_the_call(tmp_path: Path) -> None:
    a = await record(tmp_path / "a.jsonl", BASE)
    b = await record(tmp_path / "b.jsonl", BASE, model_id="echo-2")
    app = OpenProgramTUI(diff=(a, b))
    async with app.run_test(size=SIZE) as pilot:
        screen = await diff_shown(pilot)
        seen = []
        for _ in range(4):
            seen.append(screen.query_one(PathBar).breadcrumb)
            await pilot.press("n")
            await pilot.pause()
        assert seen == [
            "call 0 › model › id",
            "call 0 › model › name",
            "call 1 › model › id",
            "call 1 › model › name",
        ]
        await pilot.press("N")
        await until(pilot, lambda: screen.query_one(PathBar).breadcrumb == "call 1 › model › name")
        await pilot.press("N", "N")
        await until(pilot, lambda: screen.query_one(PathBar).breadcrumb == "call 0 › model › name")

        await pilot.press("O")  # this call in B
        await until(pilot, lambda: isinstance(pilot.app.screen, RecordingScreen))
        opened = pilot.app.screen
        assert isinstance(opened, RecordingScreen) and opened.path == b


async def test_a_recording_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    a = await record(tmp_path / "a.jsonl", BASE)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"type": "header", "format_version": "1"}\n')
    app = OpenProgramTUI(diff=(a, broken))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(pilot.app.screen, DiffScreen))
        screen = pilot.app.screen
        await until(pilot, lambda: bool(screen.query("#diff-problem")))
        problem = str(screen.query_one("#diff-problem", Static).render())
        assert problem.startswith("✗ recording file") and "broken.jsonl" in problem
        assert "line 1" in problem


def test_the_command_line_refuses_a_missing_recording_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tui.app", "diff", str(tmp_path / "nope.jsonl"), "x.jsonl"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"openprogram-tui diff: recording file {tmp_path / 'nope.jsonl'}: file not found"
    ]


async def test_more_calls_than_a_screen_against_an_empty_recording_are_all_listed(
    tmp_path: Path,
) -> None:
    # The indexes wait after a screen of calls until the first row is shown; with nothing to
    # compare (B has no call), they must go on by themselves.
    a = await record(tmp_path / "a.jsonl", [(f"say {n}", text(f"answer {n}")) for n in range(40)])
    b = tmp_path / "b.jsonl"  # a recording with no call: A's header alone
    b.write_bytes(a.read_bytes().splitlines(keepends=True)[0])
    app = OpenProgramTUI(diff=(a, b))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(pilot.app.screen, DiffScreen))
        screen = pilot.app.screen
        assert isinstance(screen, DiffScreen)
        await until(pilot, lambda: screen.answers_done)
        listed = rows(screen)
        assert len(listed) == 40 and all(row.endswith("− only in A") for row in listed)


async def test_a_call_only_one_side_has_is_said_so_not_called_the_same(tmp_path: Path) -> None:
    a = await record(tmp_path / "a.jsonl", BASE[:2])
    b = await record(tmp_path / "b.jsonl", BASE)
    app = OpenProgramTUI(diff=(a, b))
    async with app.run_test(size=SIZE) as pilot:
        screen = await diff_shown(pilot)
        assert rows(screen)[-1].endswith("only in B")
        screen.query_one("#diff-calls", OptionList).highlighted = 2
        await until(pilot, lambda: screen.row == 2)
        await pilot.pause()
        said = str(screen.query_one(PathBar).render())
        assert "Only one side has this call (B · call #2)" in said
        assert "The requests are the same." not in said


async def test_g_and_shift_g_go_to_the_first_and_last_call(tmp_path: Path) -> None:
    a = await record(tmp_path / "a.jsonl", BASE)
    b = await record(tmp_path / "b.jsonl", [BASE[0], ("two!", text("second")), BASE[2]])
    app = OpenProgramTUI(diff=(a, b))
    async with app.run_test(size=SIZE) as pilot:
        screen = await diff_shown(pilot)
        assert screen.row == 1  # opened on the first call that differs
        await pilot.press("G")
        await until(pilot, lambda: screen.row == 2)
        await pilot.press("g")
        await until(pilot, lambda: screen.row == 0)


async def test_a_truncated_file_is_said_so_in_one_line_naming_file_and_line(
    tmp_path: Path,
) -> None:
    """`recordings diff` refuses a file whose last line has no newline (exit 2); the view compares
    what is there and says so (issue #27 item 16)."""
    a = await record(tmp_path / "a.jsonl", BASE)
    b = await record(tmp_path / "b.jsonl", BASE)
    data = b.read_bytes()
    b.write_bytes(data[: len(data) - 10])  # a crash in the middle of the last row
    last_line = data[: len(data) - 10].count(b"\n") + 1
    app = OpenProgramTUI(diff=(a, b))
    async with app.run_test(size=SIZE) as pilot:
        screen = await diff_shown(pilot)
        warning = str(screen.query_one("#diff-warning", Static).render())
        assert screen.query_one("#diff-warning").display
        assert warning.count("\n") == 0
        assert f"B b.jsonl: line {last_line}: last line is truncated" in warning
        assert "a.jsonl" not in warning


async def test_whole_files_have_no_truncation_warning(tmp_path: Path) -> None:
    a = await record(tmp_path / "a.jsonl", BASE)
    b = await record(tmp_path / "b.jsonl", BASE[:2])
    app = OpenProgramTUI(diff=(a, b))
    async with app.run_test(size=SIZE) as pilot:
        screen = await diff_shown(pilot)
        assert not screen.query_one("#diff-warning").display


async def test_each_pair_and_the_totals_show_the_changes_the_biggest_marked(
    tmp_path: Path,
) -> None:
    from tests.tui.diff_fixtures import record_diff_pair

    a, b = await record_diff_pair(tmp_path)  # fixed clocks: B's ticks are 63 ms, A's 41 ms
    app = OpenProgramTUI(diff=(a, b))
    async with app.run_test(size=(200, 40)) as pilot:
        screen = await diff_shown(pilot)
        assert rows(screen, changes=True) == [
            "#0◆ ≠ request (1 field)  +220ms +1 tok",
            "#1  ≠ answer  +198ms",
            "#2◆ ≠ answer  +239ms +1 tok",
            "#3  + only in B",
        ]
        totals = str(screen.query_one("#diff-totals", Static).render())
        assert totals == (
            "A → B  in the model 1.11s → 2.14s (+1.03s) · tokens 16 → 21 (+5) · "
            "cost no price · ◆ biggest change: time #2 (+239ms), tokens #0 (+1)"
        )
        await pilot.press("down", "down", "right_square_bracket")  # call #2: the slowest change
        await until(pilot, lambda: screen.row == 2)
        answer = str(screen.query_one("#diff-answer", Static).render())
        assert "duration    0.33s → 0.57s (+239ms)  ◆ the biggest time change" in answer
        assert "cost        no price" in answer


async def test_the_title_counts_up_while_comparing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #42, item 29: the title said the calls the indexes found (300), then the rows
    compared so far (128, 192…): the count went backwards. Every title while comparing counts
    up."""
    calls = [(f"say {n} " + "words " * 4000, text(f"answer {n}")) for n in range(300)]
    a = await record(tmp_path / "a.jsonl", calls)
    b = await record(tmp_path / "b.jsonl", calls, model_id="echo-2")
    said: list[str] = []
    set_facts = TitleBar.set_facts

    def seen(bar: TitleBar, facts: str, problem: bool = False) -> None:
        said.append(facts)  # each title the screen shows, in order
        set_facts(bar, facts, problem)

    monkeypatch.setattr(TitleBar, "set_facts", seen)
    app = OpenProgramTUI(diff=(a, b))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(pilot.app.screen, DiffScreen))
        screen = pilot.app.screen
        assert isinstance(screen, DiffScreen)
        await until(pilot, lambda: screen.answers_done)
    progress = [
        [int(n) for n in re.findall(r"\d+", facts.replace(",", ""))]
        for facts in said
        if facts.startswith("comparing…") and re.search(r"\d", facts)
    ]
    assert len(progress) >= 2, said
    for before, after in itertools.pairwise(progress):
        assert all(x <= y for x, y in zip(before, after, strict=True)), said
    assert said[-1].startswith("300 calls · 300 request changed · tokens")


async def test_the_answer_word_diff_reads_without_colour(tmp_path: Path) -> None:
    """Issue #42, item 25: the removed and the added words ran together (`echo:hiecho:bye`)
    where strike and underline do not show; they are enclosed as `recordings diff` does."""
    a = await record(tmp_path / "a.jsonl", [("say", text("you said echo:hi today"))])
    b = await record(tmp_path / "b.jsonl", [("say", text("you said echo:bye today"))])
    app = OpenProgramTUI(diff=(a, b))
    async with app.run_test(size=SIZE) as pilot:
        screen = await diff_shown(pilot)
        await pilot.press("right_square_bracket")
        answer = str(screen.query_one("#diff-answer", Static).render())
        assert "you said [-echo:hi-]{+echo:bye+} today" in answer


async def test_at_80_columns_the_requests_show_the_values_that_differ(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #42, item 10: at 80x24 the call list took 28 columns and each request pane ~24, so
    the differing value was cut (`content: "hello`). The list narrows to index and mark."""
    from tests.tui.diff_fixtures import record_diff_pair
    from tests.tui.svg_text import svg_rows

    monkeypatch.chdir(tmp_path)  # the file names take one line, as in the snapshots
    a, b = await record_diff_pair(tmp_path)  # call 0: 'hello' in A, 'hello there' in B
    app = OpenProgramTUI(diff=(Path(a.name), Path(b.name)))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await diff_shown(pilot)
        assert screen.row == 0 and screen.query_one(TabbedContent).active == "diff-tab-request"
        shown = svg_rows(app.export_screenshot())
    assert any('content: "hello"' in row and 'content: "hello there"' in row for row in shown)
    assert any(row.startswith("│#3") and "+" in row for row in shown)  # each call's mark stays
