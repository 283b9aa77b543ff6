"""The real `openprogram-tui` in tmux on a recorded session whose call 12 edited an early
message: the widened call list's `cache` column marks call 12 alone, its detail says why, and the
timeline's totals say the prefix broke once (issue #43)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openprogram.providers import UserMessage
from tests.recordings.prompt_cache_sessions import record_session
from tests.tui.test_e2e_tmux import Terminal, tui_line

pytestmark = pytest.mark.e2e


def _edit_at_12(call: int, messages: list[Any]) -> None:
    if call == 12:
        messages[2] = UserMessage(content="Next step 1, but shorter this time.")


@pytest.fixture
def cache_terminal(tmp_path: Path) -> Iterator[Terminal]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    path = record_session(tmp_path / "agent.jsonl", 14, before_call=_edit_at_12)
    term = Terminal(f"optui-cache-{os.getpid()}")
    assert term.start(tui_line(tmp_path / "home", str(path)), size=(200, 50))
    try:
        yield term
    finally:
        term.close()


def test_the_cache_column_marks_the_call_whose_prefix_broke(cache_terminal: Terminal) -> None:
    terminal = cache_terminal
    terminal.wait_for("agent.jsonl", "14 calls", "✓ valid")
    terminal.keys("w")  # widen the list: every number column
    screen = terminal.wait_for("cache", "#13", "⚠")
    rows = {line.split()[0]: line for line in screen.splitlines() if line.lstrip().startswith("#")}
    marked = [name for name, line in rows.items() if "⚠" in line]
    assert marked == ["#12"], screen
    assert "%" in rows["#11"]  # the share of input read from cache, for the calls that kept it
    terminal.keys("t")
    terminal.wait_for("14 calls ·", "prefix broke on 1 call")
    terminal.keys("C-q")
