"""The real `openprogram-tui` on a recorded 200-call session in tmux: `o` sorts by duration and
the deliberately slow call comes first; `t` shows the session's totals (issue #30)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tui.test_e2e_tmux import DEADLINE, Terminal, tui_line
from tests.tui.timed_session import record_timed_session

pytestmark = pytest.mark.e2e

SLOW = 137


@pytest.fixture
def session_terminal(tmp_path: Path) -> Iterator[Terminal]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    path = record_timed_session(tmp_path / "agent.jsonl", calls=200, slow_call=SLOW)
    command = tui_line(tmp_path / "home", str(path))
    term = Terminal(f"optui-numbers-{os.getpid()}")
    assert term.start(command, size=(80, 24))
    try:
        yield term
    finally:
        term.close()


def test_sorting_by_duration_puts_the_slow_call_first(session_terminal: Terminal) -> None:
    terminal = session_terminal
    terminal.wait_for("agent.jsonl", "200 calls", "✓ valid", "took")
    terminal.wait_for("#0 ", "80ms")  # the first rows' durations are read
    terminal.keys("o")
    screen = terminal.wait_for("took↓")
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        rows = [line for line in screen.splitlines() if line.lstrip().startswith("#")]
        if rows and rows[0].split()[0] == f"#{SLOW}":
            break
        time.sleep(0.05)
        screen = terminal.screen()
    rows = [line for line in screen.splitlines() if line.lstrip().startswith("#")]
    assert rows[0].split()[0] == f"#{SLOW}" and "30s" in rows[0], screen
    terminal.keys("t")
    terminal.wait_for("200 calls ·", "in the model", "between calls")
    terminal.keys("C-q")
    deadline = time.monotonic() + DEADLINE
    while terminal.alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not terminal.alive()
