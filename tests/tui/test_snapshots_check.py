"""SVG snapshots of the check screen, one per outcome: 120x40, dark theme, animations off.

Results are built with the library's own comparison on requests with fixed timestamps, and the
screen shows the recording's name only, so nothing depends on the clock or a temporary path.
After a change that alters a picture on purpose, look at the report, then run
`pytest tests/tui/test_snapshots_check.py --snapshot-update`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from openprogram.recordings import CheckResult
from tests.recording_files import write_recording
from tests.tui import check_support as fixtures
from tests.tui.pilot_support import until
from tui.screens.check import CheckScreen
from tui.screens.command_editor import CommandEditorScreen

SIZE = (120, 40)
SnapCompare = Callable[..., bool]
ECHO = Path("echo.jsonl")


after_result = fixtures.after_result


def shot(
    snap_compare: SnapCompare, result: CheckResult, recording: Path = ECHO, *keys: str
) -> bool:
    app = fixtures.CheckHost(CheckScreen(recording, result=result))
    return snap_compare(app, terminal_size=SIZE, run_before=after_result(*keys))


def test_content_mismatch_at_call_1(snap_compare: SnapCompare) -> None:
    assert shot(snap_compare, fixtures.content_mismatch())


def test_missing_key(snap_compare: SnapCompare) -> None:
    assert shot(snap_compare, fixtures.missing_key_mismatch())


def test_type_change(snap_compare: SnapCompare) -> None:
    assert shot(snap_compare, fixtures.type_change_mismatch())


def test_long_string_diff(snap_compare: SnapCompare) -> None:
    assert shot(snap_compare, fixtures.long_string_mismatch(), ECHO, "n")


def test_ok(snap_compare: SnapCompare) -> None:
    assert shot(snap_compare, fixtures.ok_result())


def test_incomplete(snap_compare: SnapCompare) -> None:
    assert shot(snap_compare, fixtures.incomplete_result())


def test_error(snap_compare: SnapCompare) -> None:
    assert shot(snap_compare, fixtures.error_result())


@pytest.fixture
def position_case(tmp_path: Path) -> tuple[Path, CheckResult]:
    recording = fixtures.record_abandoned_call(tmp_path / "stream.jsonl")
    return recording, fixtures.position_mismatch(recording)


@pytest.fixture
def past_end_case(tmp_path: Path) -> tuple[Path, CheckResult]:
    recording = fixtures.record_one_call(tmp_path / "one.jsonl")
    return recording, fixtures.past_end_mismatch(recording)


def test_position_divergence(
    snap_compare: SnapCompare, position_case: tuple[Path, CheckResult]
) -> None:
    recording, result = position_case
    assert shot(snap_compare, result, recording)


def test_call_past_the_end(
    snap_compare: SnapCompare, past_end_case: tuple[Path, CheckResult]
) -> None:
    recording, result = past_end_case
    assert shot(snap_compare, result, recording)


@pytest.mark.parametrize("size", [SIZE, (80, 24)], ids=["wide", "80x24"])
def test_command_editor(snap_compare: SnapCompare, tmp_path: Path, size: tuple[int, int]) -> None:
    # At 80 columns the dialog fits, and the whole command is shown wrapped under the field.
    argv = ["python", "examples/echo_agent.py", "--flag", "a-long-argument-past-the-field", "hi"]
    entry = {"argv": argv, "cwd": "/work/main"}
    recording = write_recording(tmp_path / "echo.jsonl", header={"entry": entry})
    app = fixtures.CheckHost(CheckScreen(recording))

    async def run_before(pilot: Pilot[None]) -> None:
        await until(pilot, lambda: isinstance(pilot.app.screen, CommandEditorScreen))
        await pilot.press("backspace", "backspace", *"bye")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_absorbed_difference_is_dimmed_with_its_rule(snap_compare: SnapCompare) -> None:
    assert shot(snap_compare, fixtures.absorbed_mismatch())


def test_absorbed_difference_stepped_to(snap_compare: SnapCompare) -> None:
    assert shot(snap_compare, fixtures.absorbed_mismatch(), ECHO, "n")


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from a folder of no project: the dialog shows the project file as a full path (the
    command's folder, fixed by the fixtures), not relative to where the tests run."""
    monkeypatch.chdir(tmp_path)


def test_rule_editor_normalise(snap_compare: SnapCompare, elsewhere: None) -> None:
    assert shot(snap_compare, fixtures.absorbed_mismatch(), ECHO, "z")


def test_rule_editor_ignore_at_80x24(snap_compare: SnapCompare, elsewhere: None) -> None:
    app = fixtures.CheckHost(CheckScreen(ECHO, result=fixtures.absorbed_mismatch()))
    assert snap_compare(app, terminal_size=(80, 24), run_before=after_result("i"))
