"""`openprogram completion bash|zsh|fish` prints a working script, and completion answers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.recording_files import REPO_ROOT, subprocess_env

OPENPROGRAM = [sys.executable, "-m", "openprogram"]


def completion(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*OPENPROGRAM, "completion", *args],
        env=subprocess_env(home),
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("shell", "marker"),
    [
        ("bash", "complete -o"),
        ("zsh", "#compdef openprogram"),
        ("fish", "complete --command openprogram"),
    ],
)
def test_each_shell_gets_a_script_of_its_own(
    openprogram_home: Path, shell: str, marker: str
) -> None:
    done = completion(openprogram_home, shell)
    assert done.returncode == 0 and marker in done.stdout


def test_the_help_says_how_to_install_it(openprogram_home: Path) -> None:
    done = completion(openprogram_home, "--help")
    assert "~/.bashrc" in done.stdout and "completions/openprogram.fish" in done.stdout
    assert completion(openprogram_home, "tcsh").returncode == 2


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_sources_the_script_and_registers_openprogram(openprogram_home: Path) -> None:
    script = completion(openprogram_home, "bash").stdout
    done = subprocess.run(
        ["bash", "-c", f"{script}\ncomplete -p openprogram"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and "openprogram" in done.stdout


@pytest.mark.parametrize(
    ("typed", "expected"),
    [("openprogram rec", ["recordings"]), ("openprogram recordings ch", ["check"])],
)
def test_completion_answers_with_the_subcommands(
    openprogram_home: Path, tmp_path: Path, typed: str, expected: list[str]
) -> None:
    assert complete(openprogram_home, typed, tmp_path, REPO_ROOT) == expected
    assert os.environ.get("_ARGCOMPLETE") is None


def complete(home: Path, typed: str, scratch: Path, cwd: Path) -> list[str]:
    """What the shell would be offered for `typed` (argcomplete's protocol, a real process)."""
    answer = scratch / "answer"
    env = {
        **subprocess_env(home),
        "_ARGCOMPLETE": "1",
        "_ARGCOMPLETE_IFS": "\n",
        "COMP_LINE": typed,
        "COMP_POINT": str(len(typed)),
        "_ARGCOMPLETE_STDOUT_FILENAME": str(answer),
    }
    done = subprocess.run(OPENPROGRAM, env=env, capture_output=True, text=True, cwd=cwd, timeout=60)
    assert done.returncode == 0, done.stderr
    return [word.strip() for word in answer.read_text().splitlines()]


@pytest.mark.parametrize(
    "command", ["check", "show", "delete", "history", "rules", "diff echo-one"]
)
def test_a_recording_argument_completes_with_the_managed_ids(
    openprogram_home: Path, tmp_path: Path, command: str
) -> None:
    root = openprogram_home / "recordings"
    root.mkdir(parents=True)
    for name in ("echo-one", "echo-two", "other", ".partial-echo"):
        (root / f"{name}.jsonl").write_text("")
    typed = f"openprogram recordings {command} ec"
    assert sorted(complete(openprogram_home, typed, tmp_path, tmp_path)) == ["echo-one", "echo-two"]
