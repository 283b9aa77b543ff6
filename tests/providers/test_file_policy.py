"""The one policy for a usable recording file (`openprogram.providers.recording.file_policy`):
managed recordings stay 0600, a recording given by path is read whatever its mode, nothing is
ever read through a symlink, and a rewritten file keeps its mode."""

from __future__ import annotations

import json
import shutil
import stat
import sys
from pathlib import Path

import pytest

from openprogram.providers.recording.config import ConfigError, state_dir
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.file_policy import inspect, require_usable
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.store import (
    RecordingSelectorError,
    ensure_recordings_dir,
    locate_recording,
)
from openprogram.recordings.versions import (
    VersionError,
    list_versions,
    restore_version,
    versions_dir,
    write_version,
)
from tests.recording_files import run_cli, write_recording

ECHO = [sys.executable, "examples/echo_agent.py"]


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_0644_recording_given_by_path_is_checked_accepted_and_replayed(
    openprogram_home: Path, tmp_path: Path
) -> None:
    """Git checks files out 0644: check, accept and replay of such a path work, and the
    rewritten file keeps its mode (it is never chmod-ed)."""
    made = run_cli(openprogram_home, "record", "--name", "echo", "--", *ECHO, "hi")
    assert made.returncode == 0, made.stderr
    clone = tmp_path / "clone"
    clone.mkdir()
    shared = clone / "echo.jsonl"
    shutil.copyfile(openprogram_home / "recordings" / "echo.jsonl", shared)
    shared.chmod(0o644)

    # A teammate's file: its stored command runs after their yes (docs/cli.md).
    check = run_cli(openprogram_home, "check", str(shared), "--json", "--yes")
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout)["status"] == "ok"

    accepted = run_cli(
        openprogram_home, "accept", str(shared), "--json", "--yes", "--", *ECHO, "bye"
    )
    assert accepted.returncode == 0, accepted.stderr
    assert json.loads(accepted.stdout)["status"] == "accepted"
    assert mode_of(shared) == 0o644

    replay = run_cli(openprogram_home, "replay", str(shared))
    assert replay.returncode == 0, replay.stderr
    assert mode_of(shared) == 0o644


def test_a_managed_0644_recording_is_refused_with_the_existing_message() -> None:
    path = write_recording(ensure_recordings_dir() / "ours.jsonl")
    path.chmod(0o644)
    location = locate_recording("ours")
    message = (
        r"permissions 0644 are too wide \(recordings may hold prompts and personal data\); "
        r"run: chmod 600 "
    )
    with pytest.raises(RecordingSelectorError, match=message):
        require_usable(location)
    assert mode_of(path) == 0o644
    state = inspect(location)
    assert state.too_wide and state.tightenable and not state.usable
    require_usable(location, tighten=True)  # what activation does to a file of ours
    assert mode_of(path) == 0o600


def test_a_recording_given_by_path_is_never_read_through_a_symlink(tmp_path: Path) -> None:
    target = write_recording(tmp_path / "target.jsonl")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert inspect(link).reason == "is a symlink; refusing to follow it"
    with pytest.raises(RecordingFileError, match="is a symlink; refusing to follow it"):
        read_recording(link)


@pytest.mark.parametrize("command", ["diff", "rerecord"])
def test_diff_and_rerecord_do_not_read_through_a_symlinked_recording(
    command: str, openprogram_home: Path, tmp_path: Path
) -> None:
    target = write_recording(tmp_path / "target.jsonl")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    before = target.read_bytes()
    args = (
        ("diff", str(link), str(target))
        if command == "diff"
        else ("rerecord", str(link), "--yes", "--", *ECHO, "bye")
    )
    done = run_cli(openprogram_home, *args)
    assert done.returncode != 0
    assert "is a symlink; refusing to follow it" in done.stderr
    assert target.read_bytes() == before and link.is_symlink()


def test_restore_never_follows_a_symlinked_kept_version(tmp_path: Path) -> None:
    recording = write_recording(ensure_recordings_dir() / "echo.jsonl", said=["mine"])
    before = recording.read_bytes()
    elsewhere = write_recording(tmp_path / "elsewhere.jsonl", said=["not mine"])
    folder = versions_dir("echo")
    folder.mkdir(parents=True, mode=0o700)
    (folder / "v1.jsonl").symlink_to(elsewhere)

    assert list_versions("echo") == []  # `history` does not list it
    with pytest.raises(VersionError, match="no version 'v1'"):
        restore_version("echo", "v1")
    assert recording.read_bytes() == before


def test_kept_versions_live_in_a_0700_versions_folder(tmp_path: Path) -> None:
    recording = write_recording(ensure_recordings_dir() / "echo.jsonl", said=["old"])
    candidate = write_recording(tmp_path / "candidate.jsonl", said=["new"])
    kept = write_version(recording, "echo", candidate, ["agent"], {"how": "accept"})
    assert kept is not None and mode_of(kept) == 0o600
    assert mode_of(state_dir() / "versions") == 0o700
    assert mode_of(versions_dir("echo")) == 0o700
    assert mode_of(recording) == 0o600


def test_a_symlinked_versions_folder_is_refused(tmp_path: Path) -> None:
    recording = write_recording(ensure_recordings_dir() / "echo.jsonl", said=["old"])
    before = recording.read_bytes()
    candidate = write_recording(tmp_path / "candidate.jsonl", said=["new"])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (state_dir() / "versions").symlink_to(elsewhere)

    with pytest.raises(ConfigError, match="symlink"):
        write_version(recording, "echo", candidate, ["agent"], {"how": "accept"})
    with pytest.raises(VersionError, match="symlink"):
        list_versions("echo")
    assert list(elsewhere.iterdir()) == []
    assert recording.read_bytes() == before


def test_a_rewritten_file_given_by_path_keeps_its_mode(tmp_path: Path) -> None:
    recording = write_recording(tmp_path / "shared.jsonl", said=["old"])
    recording.chmod(0o644)
    candidate = write_recording(tmp_path / "candidate.jsonl", said=["new"])
    assert write_version(recording, None, candidate, ["agent"], {"how": "accept"}) is None
    assert mode_of(recording) == 0o644
    produced_by = (read_recording(recording).header.model_extra or {})["produced_by"]
    assert produced_by["how"] == "accept"
