"""The real `openprogram-tui` in tmux on the recordings list: `recordings off` typed in another
shell changes the list's `●` mark with the badge (#42 item 14), never one without the other."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from openprogram.recordings import start_recording
from tests.recording_files import run_cli
from tests.tui.test_e2e_check_tmux import REPO
from tests.tui.test_e2e_follow_tmux import wait_until_gone
from tests.tui.test_e2e_tmux import Terminal, tui_line

pytestmark = pytest.mark.e2e


def test_recordings_off_in_another_shell_clears_the_lists_record_mark(
    openprogram_home: Path,
) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    start_recording("session")
    terminal = Terminal("optui-recordings-mode")
    assert terminal.start(tui_line(openprogram_home, "--light"), cwd=REPO, size=(120, 30))
    try:
        terminal.wait_for("● record", "session", "1 recording")
        assert run_cli(openprogram_home, "off").returncode == 0
        terminal.wait_for("○ off")
        screen = wait_until_gone(terminal, "● record")
        assert "session" in screen
        terminal.keys("C-q")
    finally:
        terminal.close()
