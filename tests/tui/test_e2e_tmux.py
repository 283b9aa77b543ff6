"""The real `openprogram-tui --demo` in a real terminal (tmux, 120x40), driven by keys."""

from __future__ import annotations

import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

DEADLINE = 20.0
_SERVERS = itertools.count()
"""Each terminal has its own tmux server: one just killed may still hold a reused socket name."""


def tui_command() -> list[str]:
    script = Path(sys.executable).with_name("openprogram-tui")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tui.app"]


def tui_line(openprogram_home: Path, *args: str, **extra: str) -> str:
    """The shell line that starts the TUI with only the environment a user would have (its size
    from tmux, not from variables inherited from pytest's shell)."""
    env = {
        "TERM": "xterm-256color",
        "TEXTUAL_ANIMATIONS": "none",
        "OPENPROGRAM_HOME": str(openprogram_home),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
        **extra,
    }
    return " ".join(
        ["exec", "env", "-u", "COLUMNS", "-u", "LINES"]
        + [f"{k}={shlex.quote(v)}" for k, v in env.items()]
        + [*tui_command(), *(shlex.quote(arg) for arg in args)]
    )


class Terminal:
    """One tmux session running a command, on a private tmux server (`tmux -L`) that the test
    owns: the user's own tmux sessions are never seen or touched. Every wait has a deadline."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.socket = f"{name}-{os.getpid()}-{next(_SERVERS)}"

    def tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = ["tmux", "-L", self.socket, *args]
        return subprocess.run(command, capture_output=True, text=True, check=False)

    def start(
        self, command: str, *, cwd: Path | None = None, size: tuple[int, int] = (120, 40)
    ) -> bool:
        """Start `command` (a shell line) in a detached session of `size`; True when it runs."""
        width, height = size
        where = ["-c", str(cwd)] if cwd is not None else []
        args = ["new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height)]
        return self.tmux(*args, *where, command).returncode == 0

    def close(self) -> None:
        """End the private server, and with it the session."""
        self.tmux("kill-server")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name).stdout

    def wait_for(self, *texts: str) -> str:
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            screen = self.screen()
            if all(text in screen for text in texts):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"{texts} not on screen after {DEADLINE}s:\n{self.screen()}")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def alive(self) -> bool:
        return self.tmux("has-session", "-t", self.name).returncode == 0


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    name = f"optui-e2e-{os.getpid()}"
    command = tui_line(tmp_path / "home", "--demo")
    term = Terminal(name)
    assert term.start(command)
    try:
        yield term
    finally:
        term.close()


def test_demo_browse_step_back_to_the_list_and_quit(terminal: Terminal) -> None:
    terminal.wait_for("echo-demo.jsonl", "#0", "scripted/echo-1", "complete", "▶ replay echo-demo")
    terminal.wait_for("format 2 · 5 calls · 115 events · ✓ valid")
    terminal.wait_for("System", "Tools offered", "Please echo 'hello world'")
    terminal.keys("]", "Enter", "j", "j", "j")
    screen = terminal.wait_for("Assembled from events 0–3 of 31 events")
    # The kind and the value are apart in a real terminal (a PNG of the SVG snapshots made with
    # rsvg-convert once showed `thinking_deltaonce`: see scripts/snapshot_pngs.py).
    assert re.search(r"\b3  .*\bthinking_delta  \S", screen), screen
    terminal.keys(":")
    terminal.wait_for("Go to a call")
    terminal.keys("4", "Enter")
    terminal.wait_for("Assembled from event 0 of 9 events")
    terminal.keys("]")
    screen = terminal.wait_for("Final message of call 4 · outcome error")
    assert "ConnectionResetError" in screen
    terminal.keys("q")
    terminal.wait_for("Recordings", "echo-demo-damaged", "● replay", "✗ invalid: line 95")
    terminal.keys("s")
    terminal.wait_for("apply on the next start", "Now: replay echo-demo")
    terminal.keys("Escape")
    terminal.wait_for("Recordings", "Created (UTC)")
    terminal.keys("?")
    terminal.wait_for("Help · Recordings", "Delete")
    terminal.keys("Escape", "C-q")
    deadline = time.monotonic() + DEADLINE
    while terminal.alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not terminal.alive(), "openprogram-tui did not exit on ctrl+q"
