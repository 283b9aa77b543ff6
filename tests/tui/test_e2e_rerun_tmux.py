"""The real `openprogram-tui` in tmux: rerun a recording against a changed command, find the path."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from openprogram.recordings import record_command
from tests.tui.test_e2e_tmux import Terminal, tui_command

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


def test_r_reruns_against_a_changed_command_and_shows_the_differing_path(
    openprogram_home: Path,
) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    made = record_command(
        [sys.executable, "examples/echo_agent.py", "hi"], name="echo", cwd=str(REPO)
    )
    assert made.exit_code == 0 and made.path is not None
    name = f"optui-rerun-{os.getpid()}"
    env = {
        "TERM": "xterm-256color",
        "TEXTUAL_ANIMATIONS": "none",
        "OPENPROGRAM_HOME": str(openprogram_home),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    command = " ".join(
        ["exec", "env", "-u", "COLUMNS", "-u", "LINES"]
        + [f"{k}={shlex.quote(v)}" for k, v in env.items()]
        + [*tui_command(), shlex.quote(made.path)]
    )
    started = subprocess.run(
        [
            "tmux",
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            "120",
            "-y",
            "40",
            "-c",
            str(REPO),
            command,
        ],
        check=False,
    )
    assert started.returncode == 0
    terminal = Terminal(name)
    try:
        terminal.wait_for("echo.jsonl", "scripted/echo-1")
        terminal.keys("r")
        terminal.wait_for("enter runs")
        terminal.keys("C-u")
        time.sleep(0.5)  # Textual drops keys that arrive in the same burst as the clearing one
        terminal.tmux("send-keys", "-t", name, "-l", f"{sys.executable} examples/echo_agent.py bye")
        terminal.keys("Enter")
        screen = terminal.wait_for(
            "call 1 › context › messages[2] › content[0] › text", "'echo:bye'"
        )
        assert "'echo:hi'" in screen
        assert "mismatch" in screen
        terminal.keys("C-q")
    finally:
        terminal.tmux("kill-session", "-t", name)
