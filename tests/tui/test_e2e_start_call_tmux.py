"""The command the pytest plugin prints after a failure, `openprogram-tui FILE --call N --field
PATH`, in a real terminal on a 300-call file: it opens call N at that field, whatever N is
(issue #42, item 1: it opened call 7, or whichever call the list had reached, for N >= 8)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tui.test_e2e_tmux import Terminal, tui_line
from tests.tui.timed_session import record_timed_session

pytestmark = pytest.mark.e2e

CALLS = 300


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    return record_timed_session(tmp_path / "session.jsonl", calls=CALLS, slow_call=5)


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    try:
        yield opened
    finally:
        for terminal in opened:
            terminal.close()


@pytest.mark.parametrize("call", [299, 150])
def test_call_and_field_open_that_call_at_that_field(
    recording: Path, tmp_path: Path, terminals: list[Terminal], call: int
) -> None:
    field = "context.messages[0].content"
    command = tui_line(tmp_path / "home", str(recording), "--call", str(call), "--field", field)
    terminal = Terminal(f"optui-start-{os.getpid()}")
    terminals.append(terminal)
    assert terminal.start(command, size=(100, 30))
    terminal.wait_for(f"{CALLS} calls", "✓ valid")
    # The list's cursor row and the request's field, both of that call: the file's numbers
    # (`✓ valid`) come once it is wholly indexed, so the list has settled by then.
    screen = terminal.wait_for(f"#{call} ", f'content: "question {call}"')
    rows = [line.split()[0] for line in screen.splitlines() if line.lstrip().startswith("#")]
    assert f"#{call}" in rows, screen
    assert "question" not in screen.replace(f"question {call}", ""), screen
