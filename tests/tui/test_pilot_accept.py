"""`a` in the check's mismatch view: accept the new requests offline, review, write, compare."""

from __future__ import annotations

import sys
from pathlib import Path

from textual.pilot import Pilot

from openprogram.recordings import record_command
from openprogram.recordings.versions import list_versions
from tests.recording_files import REPO_ROOT
from tests.tui import check_support as fixtures
from tests.tui.pilot_support import until
from tui.screens.accept_review import AcceptReviewScreen
from tui.screens.check import CheckScreen
from tui.screens.confirm import ConfirmScreen
from tui.screens.diff import DiffScreen
from tui.widgets.check.check_outcome import CheckOutcome
from tui.widgets.comparison.mismatch_view import MismatchView

SIZE = (120, 40)
ECHO = [sys.executable, "examples/echo_agent.py"]


def echo_recording() -> Path:
    made = record_command([*ECHO, "hi"], name="echo", cwd=str(REPO_ROOT))
    assert made.path is not None
    return Path(made.path)


async def mismatch_shown(pilot: Pilot[None], screen: CheckScreen) -> None:
    await until(pilot, lambda: screen.result is not None and not screen.running)
    await until(pilot, lambda: bool(screen.query(MismatchView)))


async def review(pilot: Pilot[None]) -> AcceptReviewScreen:
    await until(pilot, lambda: isinstance(pilot.app.screen, AcceptReviewScreen))
    dialog = pilot.app.screen
    assert isinstance(dialog, AcceptReviewScreen)
    return dialog


async def test_a_accepts_after_review_and_ends_on_the_diff_of_old_and_new(
    offline_children: Path,
) -> None:
    recording = echo_recording()
    before = recording.read_bytes()
    screen = CheckScreen(recording, [*ECHO, "bye"], cwd=str(REPO_ROOT))
    async with fixtures.CheckHost(screen).run_test(size=SIZE) as pilot:
        await mismatch_shown(pilot, screen)
        await pilot.press("a")
        dialog = await review(pilot)
        listed = str(dialog.query_one("#accept-review").render())
        assert "call 1" in listed and "context.messages[2].content[0].text" in listed
        assert "'echo:hi'" in listed and "'echo:bye'" in listed
        assert recording.read_bytes() == before  # nothing written before the answer
        await pilot.press("y")
        await until(pilot, lambda: isinstance(pilot.app.screen, DiffScreen))
        diff = pilot.app.screen
        assert isinstance(diff, DiffScreen) and diff.b == recording
        assert diff.a.read_bytes() == before
        await pilot.press("escape")  # back: the rerun ran again on the new version
        await until(pilot, lambda: pilot.app.screen is screen)
        await until(pilot, lambda: not screen.running and bool(screen.query(CheckOutcome)))
        assert screen.result is not None and screen.result.status == "ok"
    assert len(list_versions("echo")) == 1 and list_versions("echo")[0].read_bytes() == before
    assert offline_children.read_text() == ""


async def test_n_on_the_review_writes_nothing(offline_children: Path) -> None:
    recording = echo_recording()
    before = recording.read_bytes()
    screen = CheckScreen(recording, [*ECHO, "bye"], cwd=str(REPO_ROOT))
    async with fixtures.CheckHost(screen).run_test(size=SIZE) as pilot:
        await mismatch_shown(pilot, screen)
        await pilot.press("a")
        await review(pilot)
        await pilot.press("n")
        await until(pilot, lambda: pilot.app.screen is screen)
        await mismatch_shown(pilot, screen)
    assert recording.read_bytes() == before and list_versions("echo") == []


async def test_R_records_again_from_the_diverging_call_after_naming_what_goes_live(
    offline_children: Path,
) -> None:
    recording = echo_recording()
    before = recording.read_bytes()
    screen = CheckScreen(recording, [*ECHO, "bye"], cwd=str(REPO_ROOT))
    async with fixtures.CheckHost(screen).run_test(size=SIZE) as pilot:
        await mismatch_shown(pilot, screen)
        await pilot.press("R")
        await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        question = str(pilot.app.screen.query_one("#confirm-question").render())
        assert "Record again from call 1: calls 0–0 replay from the recording" in question
        assert "LIVE to scripted/echo-1" in question and "credentials" in question
        assert recording.read_bytes() == before  # nothing ran yet
        await pilot.press("y")
        await until(pilot, lambda: isinstance(pilot.app.screen, DiffScreen))
        await pilot.press("escape")
        await until(pilot, lambda: pilot.app.screen is screen)
        await until(pilot, lambda: not screen.running and bool(screen.query(CheckOutcome)))
        assert screen.result is not None and screen.result.status == "ok"
    header = recording.read_bytes().split(b"\n", 1)[0]
    assert b'"how":"rerecord"' in header and b'"from_call":1' in header
    assert [p.read_bytes() for p in list_versions("echo")] == [before]
    assert offline_children.read_text() == ""


async def test_the_recording_view_names_its_versions(offline_children: Path) -> None:
    from openprogram.recordings.accept import run_accept
    from openprogram.recordings.versions import write_rewrite
    from tui.app import OpenProgramTUI
    from tui.screens.recording import RecordingScreen
    from tui.widgets.common.title_bar import TitleBar

    recording = echo_recording()
    write_rewrite(run_accept("echo", [*ECHO, "bye"], cwd=str(REPO_ROOT)), [*ECHO, "bye"])
    app = OpenProgramTUI([recording])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RecordingScreen))
        screen = app.screen
        assert isinstance(screen, RecordingScreen)
        await until(pilot, lambda: screen.verdict is not None)
        await pilot.pause()
        title = str(screen.query_one(TitleBar).query_one("#facts").render())
        assert "accepted 20" in title
        assert "1 earlier version kept (recordings history echo)" in title
