"""The real `openprogram-tui --demo` in tmux, as a newcomer drives it: keys typed together act in
order, and `r` on the demo offers the demo's own program, which replays it cleanly."""

from __future__ import annotations

import pytest

from tests.tui.test_e2e_tmux import Terminal, terminal

pytestmark = pytest.mark.e2e
__all__ = ["terminal"]  # the fixture: the demo in a 120x40 tmux


def test_keys_sent_together_and_the_demo_rerun(terminal: Terminal) -> None:
    terminal.wait_for("echo-demo.jsonl", "#0", "demo ▶ replay echo-demo")
    terminal.keys("q")
    terminal.wait_for("Recordings", "2 recordings · demo, removed on quit", "q Quit")
    terminal.keys("j", "Enter")  # one write: j must move before enter opens
    terminal.wait_for("echo-demo-damaged.jsonl", "4 calls")
    terminal.keys("q", "k")
    terminal.wait_for("Recordings", "active in this demo")
    terminal.keys("r")
    terminal.wait_for("-m tui.demo_agent")
    terminal.keys("Enter")
    terminal.wait_for("replays this recording cleanly")


def test_a_query_typed_right_after_the_slash_lands_in_the_find_bar(terminal: Terminal) -> None:
    terminal.wait_for("echo-demo.jsonl", "#0", "✓")
    terminal.keys("/pong")  # one write: the bar must take the keys that follow the slash
    screen = terminal.wait_for("across calls")
    find_row = next(line for line in screen.splitlines() if "across calls" in line)
    assert "pong" in find_row and "1 / 3" in find_row
