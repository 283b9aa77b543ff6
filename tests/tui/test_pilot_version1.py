"""A version-1 recording opened in the TUI: its calls shown read-only, the migration offered."""

from __future__ import annotations

from pathlib import Path

import pytest

from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.row_encoding import RECORDING_FORMAT_VERSION
from tests.recordings.test_migrate import SAID, write_version1
from tests.tui.pilot_support import notifications, recording_ready, screen_text, until
from tui.app import OpenProgramTUI
from tui.screens.check import CheckScreen
from tui.widgets.recording.call_list import CallList


@pytest.fixture
def version1_file(tmp_path: Path) -> Path:
    return write_version1(tmp_path / "old.jsonl")


async def test_a_version_1_file_is_shown_read_only_and_m_migrates_it(version1_file: Path) -> None:
    path = version1_file
    app = OpenProgramTUI([path])
    async with app.run_test(size=(140, 30)) as pilot:
        screen = await recording_ready(pilot)
        text = "\n".join(screen_text(app))
        assert screen.query_one(CallList).row_count == len(SAID)
        assert "read-only: older format (m migrates it)" in screen_text(app)[0]
        assert "invalid" not in screen_text(app)[0] and "unknown format" not in text
        assert f"m migrates it to format {RECORDING_FORMAT_VERSION}" in text
        assert text.count("recordings migrate") == 1 and "ID-or-PATH" not in text
        unwrapped = "".join(text.replace("█", "").split())  # the banner wraps the long path
        assert "".join(f"run: openprogram recordings migrate {path}".split()) in unwrapped
        await pilot.press("r")  # read-only: no check
        await pilot.pause()
        assert not isinstance(app.screen, CheckScreen)

        await pilot.press("m")
        await until(pilot, lambda: any("Migrated" in n for n in notifications(app)))
        screen = await recording_ready(pilot)
        assert screen.verdict is not None and screen.verdict.valid
        assert "read-only" not in screen_text(app)[0] and "✓ valid" in screen_text(app)[0]
    assert len(read_recording(path).calls) == len(SAID)
    assert path.with_name("old.v1.jsonl").exists()
