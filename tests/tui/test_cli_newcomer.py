"""The real `openprogram-tui` command line, as a newcomer first types it: refusals come before
the app starts, a managed ID opens like a path, and `--help` shows examples."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.recording_files import write_recording
from tests.tui.test_e2e_tmux import tui_command


def run_tui(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """The command with no terminal: anything that would start the app times out instead."""
    env = {**os.environ, "OPENPROGRAM_HOME": str(home)}
    return subprocess.run(
        [*tui_command(), *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.mark.parametrize("option", [[], ["--check"]])
def test_a_directory_is_refused_before_anything_starts(
    tmp_path: Path, openprogram_home: Path, option: list[str]
) -> None:
    folder = tmp_path / "some_dir"
    folder.mkdir()
    done = run_tui(*option, str(folder), home=openprogram_home)
    assert done.returncode == 2
    assert done.stderr == f"openprogram-tui: {folder}: is a directory, not a recording file\n"


@pytest.mark.parametrize("option", [[], ["--check"]])
def test_a_symlinked_recording_is_refused_before_anything_starts(
    tmp_path: Path, openprogram_home: Path, option: list[str]
) -> None:
    """The library's file policy: never through a symlink, in the TUI as in the CLI."""
    link = tmp_path / "link.jsonl"
    link.symlink_to(write_recording(tmp_path / "target.jsonl"))
    done = run_tui(*option, str(link), home=openprogram_home)
    assert done.returncode == 2
    assert (
        done.stderr
        == f"openprogram-tui: recording file {link}: is a symlink; refusing to follow it\n"
    )


@pytest.mark.parametrize("option", [[], ["--check"]])
def test_an_unknown_name_is_neither_a_file_nor_a_managed_id(
    openprogram_home: Path, option: list[str]
) -> None:
    done = run_tui(*option, "nosuch", home=openprogram_home)
    assert done.returncode == 2
    missing = openprogram_home / "recordings" / "nosuch.jsonl"
    assert done.stderr == f"openprogram-tui: recording file {missing}: file not found\n"


def test_help_shows_the_command_form_and_examples(openprogram_home: Path) -> None:
    done = run_tui("--help", home=openprogram_home)
    assert done.returncode == 0
    usage, _, rest = done.stdout.partition("\n\n")
    assert "--check PATH [-- COMMAND ...]" in usage
    assert "openprogram-tui diff A B" in usage  # the third form is said where the others are
    examples = rest[rest.index("examples:") :]
    for line in ("openprogram-tui --demo", "openprogram-tui --check echo -- python"):
        assert line in examples
