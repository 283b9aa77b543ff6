"""Hostile paths: each is refused with one clear line, nothing is followed, nothing outside is chmod-ed."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from tests.recording_files import REPO_ROOT, run_cli, run_echo_program, write_recording


def one_error(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


@pytest.fixture
def symlinked_root(openprogram_home: Path, tmp_path: Path) -> Path:
    """`<state>/recordings` is a symlink to a directory elsewhere holding a valid recording."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    write_recording(elsewhere / "echo.jsonl")
    openprogram_home.mkdir(mode=0o700)
    (openprogram_home / "recordings").symlink_to(elsewhere)
    return elsewhere


@pytest.mark.parametrize(
    "args",
    [
        ("record", "--name", "new"),
        ("record", "--name", "new", "--", sys.executable, "-c", "pass"),
        ("replay", "echo"),
        ("check", "echo", "--", sys.executable, "-c", "pass"),
        ("delete", "echo", "--yes"),
        ("prune", "--older-than-days", "0", "--yes"),
        ("repair", "echo"),
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_a_symlinked_recordings_root_is_refused_by_every_command(
    args: tuple[str, ...], symlinked_root: Path, openprogram_home: Path
) -> None:
    before = sorted(p.name for p in symlinked_root.iterdir())
    result = run_cli(openprogram_home, *args)
    assert result.returncode == 1
    assert "symlink" in one_error(result.stderr)
    assert sorted(p.name for p in symlinked_root.iterdir()) == before
    assert not (openprogram_home / "config.json").exists()


def test_the_runtime_blocks_a_replay_through_a_symlinked_root(
    symlinked_root: Path, openprogram_home: Path
) -> None:
    config = openprogram_home / "config.json"
    config.write_text('{"record_replay": {"mode": "replay", "file": "echo"}}')
    report = run_echo_program(openprogram_home)
    assert report["mode"] == "blocked" and "symlink" in report["error"]
    assert report["socket_attempts"] == []


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_a_recording_that_is_a_directory_or_a_fifo_is_refused_without_hanging(
    kind: str, openprogram_home: Path, tmp_path: Path
) -> None:
    target = tmp_path / "odd.jsonl"
    if kind == "directory":
        target.mkdir()
    else:
        os.mkfifo(target, 0o600)
    for args in (("replay", str(target)), ("check", str(target), "--", "true")):
        result = run_cli(openprogram_home, *args)
        assert result.returncode == 1, args
        assert "not a regular file" in one_error(result.stderr)
    shown = run_cli(openprogram_home, "show", str(target))  # one line, as for a missing file
    assert shown.returncode == 1 and shown.stdout == ""
    assert one_error(shown.stderr).endswith("is not a regular file")


def test_another_users_file_is_never_chmodded(openprogram_home: Path, tmp_path: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("needs root to give a file to another user")
    root = openprogram_home / "recordings"
    root.mkdir(parents=True, mode=0o700)
    theirs = write_recording(root / "theirs.jsonl")
    theirs.chmod(0o644)
    os.chown(theirs, 65534, 65534)
    result = run_cli(openprogram_home, "replay", "theirs")
    assert result.returncode == 1 and "too wide" in one_error(result.stderr)
    assert stat.S_IMODE(theirs.stat().st_mode) == 0o644
    assert theirs.stat().st_uid == 65534


def test_dotdot_never_escapes_the_managed_root(openprogram_home: Path, tmp_path: Path) -> None:
    outside = write_recording(tmp_path / "outside.jsonl")
    for args in (
        ("delete", "../outside", "--yes"),
        ("repair", "../outside"),
    ):
        result = run_cli(openprogram_home, *args)
        assert result.returncode == 1, args
        one_error(result.stderr)
    named = run_cli(openprogram_home, "record", "--name", "../outside")
    assert named.returncode == 2 and "argument --name:" in named.stderr  # a usage error
    assert outside.exists()


def test_a_case_alias_is_a_different_id_not_the_same_file(openprogram_home: Path) -> None:
    root = openprogram_home / "recordings"
    root.mkdir(parents=True, mode=0o700)
    write_recording(root / "echo.jsonl")
    result = run_cli(openprogram_home, "replay", "ECHO")
    if (root / "ECHO.jsonl").exists():  # a case-insensitive file system: the same file, still valid
        assert result.returncode == 0
    else:
        assert result.returncode == 1 and "file not found" in one_error(result.stderr)
    assert REPO_ROOT.exists()
