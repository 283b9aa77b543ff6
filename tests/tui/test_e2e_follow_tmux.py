"""The real `openprogram-tui` in tmux on the recording a running program is recording into: its
calls appear as the program makes them, without a key pressed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from openprogram.recordings import start_recording
from tests.recording_files import run_cli, subprocess_env
from tests.tui.test_e2e_check_tmux import REPO
from tests.tui.test_e2e_tmux import DEADLINE, Terminal, tui_line

pytestmark = pytest.mark.e2e


@pytest.fixture
def tmux_available() -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")


def wait_until_gone(terminal: Terminal, text: str) -> str:
    """The screen once `text` is no longer on it (fails after the deadline)."""
    deadline = time.monotonic() + DEADLINE
    while text in (screen := terminal.screen()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} still on screen after {DEADLINE}s:\n{screen}")
        time.sleep(0.05)
    return screen


def test_the_recording_being_written_shows_each_call_as_the_program_makes_it(
    openprogram_home: Path, tmux_available: None
) -> None:
    start_recording("live")  # the next start of any program records into `live`
    terminal = Terminal("optui-follow")
    assert terminal.start(tui_line(openprogram_home, "live", "--light"), cwd=REPO, size=(100, 30))
    program = subprocess.Popen(
        [sys.executable, "-m", "tests.tui.stepped_agent"],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert program.stdin is not None and program.stdout is not None

    def turn(words: str) -> None:
        assert program.stdin is not None and program.stdout is not None
        program.stdin.write(words + "\n")
        program.stdin.flush()
        assert program.stdout.readline().endswith("done\n")

    try:
        terminal.wait_for("live.jsonl", "● following", "no calls")  # followed without asking
        turn("hello")  # two calls: the tool call, then the answer
        terminal.wait_for("#0", "#1", "scripted/echo", "2 calls")
        turn("again")
        screen = terminal.wait_for("#3", "4 calls", "✓ valid so far")
        assert "unfinished" not in screen and "truncated" not in screen
        program.stdin.close()
        assert program.wait(timeout=20) == 0
        terminal.keys("f")  # stop following: checked as a finished file
        wait_until_gone(terminal, "● following")
        assert "so far" not in terminal.wait_for("4 calls", "✓ valid")
        terminal.keys("C-q")
    finally:
        if program.poll() is None:
            program.kill()
            program.wait()
        terminal.close()


def test_a_running_one_shot_recording_is_listed_and_followed_by_its_name(
    openprogram_home: Path, tmux_available: None
) -> None:
    """`record --name live -- COMMAND` makes its file in a private folder until the program ends;
    meanwhile `list` shows it as recording, with its calls so far, and `--follow live` opens it."""
    recorder = subprocess.Popen(
        [sys.executable, "-m", "openprogram", "recordings", "record", "--name", "live", "--",
         sys.executable, "-m", "tests.tui.stepped_agent"],
        cwd=REPO,
        env=subprocess_env(openprogram_home),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert recorder.stdin is not None and recorder.stdout is not None
    terminal = Terminal("optui-follow-oneshot")

    def turn(words: str) -> None:
        assert recorder.stdin is not None and recorder.stdout is not None
        recorder.stdin.write(words + "\n")
        recorder.stdin.flush()
        assert recorder.stdout.readline().endswith("done\n")

    try:
        turn("hello")  # two calls, in the staged file
        listed = run_cli(openprogram_home, "list", "--json")
        (running,) = json.loads(listed.stdout)["running"]
        assert (running["id"], running["calls"], running["valid"]) == ("live", 2, True)
        table = run_cli(openprogram_home, "list").stdout
        assert "live" in table and "recording (program running)" in table

        assert terminal.start(
            tui_line(openprogram_home, "--follow", "live", "--light"), cwd=REPO, size=(100, 30)
        )
        terminal.wait_for("live.jsonl", "● following", "2 calls")
        turn("again")
        terminal.wait_for("#3", "4 calls")
        terminal.keys("C-q")
        recorder.stdin.close()
        assert recorder.wait(timeout=20) == 0
        after = json.loads(run_cli(openprogram_home, "list", "--json").stdout)
        assert after["running"] == [] and [r["id"] for r in after["recordings"]] == ["live"]
    finally:
        if recorder.poll() is None:
            recorder.kill()
            recorder.wait()
        terminal.close()
