"""The real `openprogram-tui` in tmux: ended by a signal, SIGTERM (kill) and SIGHUP (the terminal
closed) leave the terminal as it was and no demo state directory behind; a managed ID opens."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tui.test_e2e_tmux import DEADLINE, Terminal, tui_command, tui_line

pytestmark = pytest.mark.e2e


@pytest.fixture
def tmux_available() -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")


def demo_line(tmp: Path) -> str:
    """A shell that runs the demo (its temporary directory under `tmp`), says how it ended, and
    stays, so the pane's terminal modes can be read after the app is gone."""
    env = {
        "TERM": "xterm-256color",
        "TEXTUAL_ANIMATIONS": "none",
        "TMPDIR": str(tmp),
        "OPENPROGRAM_HOME": str(tmp / "home"),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    tui = " ".join(
        ["env", "-u", "COLUMNS", "-u", "LINES"]
        + [f"{k}={shlex.quote(v)}" for k, v in env.items()]
        + [*map(shlex.quote, tui_command()), "--demo"]
    )
    return f"sh -c {shlex.quote(f'{tui}; echo exited with $?; exec cat')}"


def tui_pid(terminal: Terminal) -> int:
    """The app's process: the only child of the pane's shell."""
    shell = int(terminal.tmux("display", "-p", "-t", terminal.name, "#{pane_pid}").stdout)
    children = Path(f"/proc/{shell}/task/{shell}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


def demo_dirs(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("openprogram-tui-demo-*"))


def test_sigterm_restores_the_terminal_and_removes_the_demo(
    tmp_path: Path, tmux_available: None
) -> None:
    terminal = Terminal("optui-sigterm")
    assert terminal.start(demo_line(tmp_path), size=(100, 30))
    try:
        terminal.wait_for("echo-demo.jsonl", "#0", "Tools offered")  # the app settled
        assert demo_dirs(tmp_path)
        modes = terminal.tmux("display", "-p", "-t", terminal.name, "#{alternate_on}")
        assert modes.stdout.strip() == "1"
        os.kill(tui_pid(terminal), signal.SIGTERM)
        terminal.wait_for(f"exited with {128 + signal.SIGTERM}")
        modes = terminal.tmux(
            "display", "-p", "-t", terminal.name, "#{alternate_on} #{mouse_any_flag} #{cursor_flag}"
        )
        assert modes.stdout.split() == ["0", "0", "1"]  # main screen, no mouse, cursor shown
        assert demo_dirs(tmp_path) == []
    finally:
        terminal.close()


def test_closing_the_terminal_removes_the_demo(tmp_path: Path, tmux_available: None) -> None:
    terminal = Terminal("optui-sighup")
    assert terminal.start(demo_line(tmp_path), size=(100, 30))
    try:
        terminal.wait_for("echo-demo.jsonl", "#0", "Tools offered")  # the app settled
        pid = tui_pid(terminal)
        assert demo_dirs(tmp_path)
        terminal.tmux("kill-session", "-t", terminal.name)  # the pane's terminal goes: SIGHUP
        wait_until(lambda: not Path(f"/proc/{pid}").exists())
        assert demo_dirs(tmp_path) == []
    finally:
        terminal.close()


def test_a_managed_id_opens_like_a_path(
    demo_home: Path, openprogram_home: Path, tmux_available: None
) -> None:
    terminal = Terminal("optui-id")
    assert terminal.start(tui_line(openprogram_home, "echo-demo-damaged"), size=(100, 30))
    try:
        terminal.wait_for("echo-demo-damaged.jsonl", "4 calls", "#0")
        terminal.keys("C-q")
        wait_until(lambda: not terminal.alive())
    finally:
        terminal.close()
