"""A command stored in a recording from elsewhere runs only after a yes, and the yes is remembered
for that file and that exact command; real subprocesses, the file written as a download would be."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from openprogram.recordings.trust import trust_path
from tests.recording_files import REPO_ROOT, run_cli, subprocess_env


def downloaded(folder: Path, marker: Path, words: str = "ran") -> Path:
    """A recording (no calls) whose header stores a command that would create `marker`."""
    program = f"open({str(marker)!r}, 'w').write({words!r})"
    header = {
        "type": "header",
        "format_version": 2,
        "entry": {"argv": [sys.executable, "-c", program], "cwd": str(folder)},
    }
    path = folder / "downloaded.jsonl"
    path.write_text(json.dumps(header) + "\n")
    return path


def run_on_a_terminal(home: Path, answer: str, *args: str) -> tuple[int, str]:
    """`openprogram recordings ARGS…` with a terminal as stdin that types `answer`."""
    main, terminal = pty.openpty()
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "openprogram", "recordings", *args],
            env=subprocess_env(home),
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO_ROOT,
        )
        os.write(main, answer.encode() + b"\n")
        _, stderr = child.communicate(timeout=60)
    finally:
        os.close(main)
        os.close(terminal)
    return child.returncode, stderr


def test_a_stored_command_is_refused_without_a_terminal_and_runs_with_yes_then_is_trusted(
    openprogram_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    path = downloaded(tmp_path, marker)

    refused = run_cli(openprogram_home, "check", str(path))
    assert refused.returncode == 2 and not marker.exists()
    assert refused.stdout == ""
    assert f"command: {sys.executable} -c" in refused.stderr  # shown whole before the refusal
    assert str(marker) in refused.stderr
    errors = [line for line in refused.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "--yes" in errors[0]
    assert not trust_path().exists()
    as_json = run_cli(openprogram_home, "check", str(path), "--json")
    assert as_json.returncode == 2 and not marker.exists()
    assert json.loads(as_json.stdout)["status"] == "error" and "--yes" in as_json.stderr

    ran = run_cli(openprogram_home, "check", str(path), "--yes")
    assert ran.returncode == 0, ran.stderr
    assert marker.read_text() == "ran"
    assert trust_path().stat().st_mode & 0o777 == 0o600

    marker.unlink()
    again = run_cli(openprogram_home, "check", str(path), "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["status"] == "ok" and marker.exists()
    assert "stores a command" not in again.stderr  # trusted: no question


def test_a_changed_command_at_the_same_path_asks_again(
    openprogram_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    path = downloaded(tmp_path, marker)
    assert run_cli(openprogram_home, "check", str(path), "--yes").returncode == 0
    marker.unlink()
    downloaded(tmp_path, marker, words="another program")  # a pull brings a new header
    refused = run_cli(openprogram_home, "check", str(path))
    assert refused.returncode == 2 and not marker.exists()


@pytest.mark.parametrize("command", [["accept"], ["rerecord", "--from-call", "0"]])
def test_accept_and_rerecord_do_not_run_a_stored_command_without_a_yes(
    openprogram_home: Path, tmp_path: Path, command: list[str]
) -> None:
    marker = tmp_path / "marker"
    path = downloaded(tmp_path, marker)
    refused = run_cli(openprogram_home, command[0], str(path), *command[1:])
    assert refused.returncode == 2 and not marker.exists()
    assert "--yes" in refused.stderr and "command: " in refused.stderr


def test_on_a_terminal_the_stored_command_runs_only_after_yes(
    openprogram_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    path = downloaded(tmp_path, marker)
    code, stderr = run_on_a_terminal(openprogram_home, "n", "check", str(path))
    assert code == 2 and not marker.exists()
    assert "Run this command? [y/N]" in stderr and "not confirmed" in stderr
    code, stderr = run_on_a_terminal(openprogram_home, "y", "check", str(path))
    assert code == 0 and marker.read_text() == "ran", stderr
    marker.unlink()
    assert run_cli(openprogram_home, "check", str(path)).returncode == 0  # remembered
    assert marker.exists()


def test_a_command_the_user_gives_runs_and_one_recorded_here_is_trusted(
    openprogram_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    path = downloaded(tmp_path, marker)
    program = f"open({str(marker)!r}, 'w').write('mine')"
    given = run_cli(openprogram_home, "check", str(path), "--", sys.executable, "-c", program)
    assert given.returncode == 0, given.stderr
    assert marker.read_text() == "mine"

    made = run_cli(openprogram_home, "record", "--name", "here", "--", sys.executable, "-c", "0")
    assert made.returncode == 0, made.stderr
    check = run_cli(openprogram_home, "check", "here")
    assert check.returncode == 0, check.stderr
