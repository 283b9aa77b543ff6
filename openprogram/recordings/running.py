"""One-shot recordings being made now: `record -- COMMAND` stages its file in a private folder
(`<state>/.record-XXXX`) and holds that folder's lock (`flock`, released by the kernel when the
recorder ends in any way, even `kill -9`) while the program runs. `running_recordings` lists the
staged files whose recorder is alive, so `list` shows them and `openprogram-tui --follow ID`
follows one as it grows.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path

from openprogram.providers.recording.config import state_dir
from openprogram.providers.recording.store import RECORDING_ID_PATTERN, RECORDING_SUFFIX

STAGING_PREFIX = ".record-"
"""The private folders (`<state>/.record-XXXX`) where one-shot recordings are made."""
RECORDER_LOCK = "recorder.lock"
"""The file in a staging folder the recorder holds locked while the program runs."""


@dataclass(frozen=True)
class RunningRecording:
    """A one-shot recording being made now: its ID and the staged file the program writes."""

    recording_id: str
    path: Path


def _recorder_alive(folder: Path) -> bool:
    """True while the recorder that staged `folder` holds its lock."""
    try:
        lock = os.open(folder / RECORDER_LOCK, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(lock)
    return False


def running_recordings() -> list[RunningRecording]:
    """The one-shot recordings whose program is running now, by ID."""
    try:
        folders = [e for e in os.scandir(state_dir()) if e.name.startswith(STAGING_PREFIX)]
    except OSError:
        return []
    found = []
    for folder in folders:
        if not folder.is_dir(follow_symlinks=False) or not _recorder_alive(Path(folder.path)):
            continue
        for staged in sorted((Path(folder.path) / "recordings").glob(f"*{RECORDING_SUFFIX}")):
            recording_id = staged.name[: -len(RECORDING_SUFFIX)]
            if RECORDING_ID_PATTERN.match(recording_id) and ".." not in recording_id:
                found.append(RunningRecording(recording_id, staged))
    return found


def running_recording(recording_id: str) -> Path | None:
    """The staged file of the running one-shot recording `recording_id`, or None."""
    return next((r.path for r in running_recordings() if r.recording_id == recording_id), None)


def hold_recorder_lock(home: Path) -> int:
    """Lock the staging folder's `RECORDER_LOCK` for as long as the returned descriptor is open."""
    lock = os.open(home / RECORDER_LOCK, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)
    return lock
