"""Accept and rerecord on a real disk: a temporary file lives beside the file it replaces (never in
`$TMPDIR`, which may be another filesystem), and a failed write (a full disk) leaves nothing behind:
no kept version, no temporary file, no lock, the recording byte for byte (issue #27, items 5, 9)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from openprogram.recordings.accept import run_accept
from openprogram.recordings.versions import list_versions, versions_dir, write_rewrite
from tests.recording_files import run_cli
from tests.recordings.test_accept import AGENT, recorded


@pytest.fixture
def agent(tmp_path: Path) -> list[str]:
    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    return [sys.executable, str(script)]


@pytest.fixture
def other_filesystem_tmpdir(tmp_path: Path) -> Iterator[Path]:
    """A temporary folder on another filesystem than `tmp_path` (`/dev/shm`), removed afterwards."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        pytest.skip("no writable /dev/shm on this machine")
    if shm.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("/dev/shm is on the same filesystem as the test's folder")
    folder = shm / f"openprogram-test-{uuid.uuid4().hex}"
    folder.mkdir(mode=0o700)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_accept_works_when_tmpdir_is_another_filesystem(
    openprogram_home: Path, other_filesystem_tmpdir: Path, tmp_path: Path
) -> None:
    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    agent = [sys.executable, str(script)]
    made = run_cli(openprogram_home, "record", "--name", "agent", "--", *agent)
    assert made.returncode == 0, made.stderr
    accepted = run_cli(
        openprogram_home,
        "accept",
        "agent",
        "--yes",
        "--json",
        AGENT_PROMPT="Reworded.",
        TMPDIR=str(other_filesystem_tmpdir),
    )
    assert accepted.returncode == 0, accepted.stderr
    assert json.loads(accepted.stdout)["status"] == "accepted"
    history = json.loads(run_cli(openprogram_home, "history", "agent", "--json").stdout)
    assert len(history["versions"]) == 1
    assert sorted(p.name for p in (openprogram_home / "recordings").iterdir()) == ["agent.jsonl"]
    assert list(other_filesystem_tmpdir.iterdir()) == []


def test_the_candidate_is_written_in_the_recordings_own_folder(
    openprogram_home: Path, agent: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = recorded(agent, monkeypatch)
    monkeypatch.setenv("AGENT_PROMPT", "Reworded.")
    run = run_accept("agent")
    assert run.candidate is not None and run.candidate.parent == path.parent
    assert run.candidate.name.startswith(".agent.jsonl.") and run.candidate.suffix == ".tmp"
    assert run.candidate.stat().st_mode & 0o777 == 0o600
    kept = write_rewrite(run, ["agent"])
    assert kept is not None and kept.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["agent.jsonl"]
    assert [p.name for p in versions_dir("agent").iterdir()] == [kept.name]


@pytest.mark.parametrize("full", ["versions", "recordings"])
def test_a_full_disk_during_accept_leaves_no_version_no_temporary_file_and_no_lock(
    openprogram_home: Path, agent: list[str], monkeypatch: pytest.MonkeyPatch, full: str
) -> None:
    path = recorded(agent, monkeypatch)
    before = path.read_bytes()
    monkeypatch.setenv("AGENT_PROMPT", "Reworded.")
    run = run_accept("agent")
    real_fsync = os.fsync

    def no_space_left(fd: int) -> None:
        # The OS's answer on a full disk: the data written to a file in `full` cannot be stored.
        if full in Path(os.readlink(f"/proc/self/fd/{fd}")).parent.parts[-2:]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", no_space_left)
    with pytest.raises(OSError, match="No space left on device"):
        write_rewrite(run, ["agent"])
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert path.read_bytes() == before
    assert list_versions("agent") == []
    assert sorted(p.name for p in path.parent.iterdir()) == ["agent.jsonl"]
    folder = versions_dir("agent")
    assert not folder.exists() or list(folder.iterdir()) == []
    again = run_accept("agent")  # the recording is free again
    assert write_rewrite(again, ["agent"]) is not None
