"""One-shot recordings being made now: `record -- COMMAND` stages its file in a private folder
(`<state>/.record-XXXX`) and holds that folder's lock (`flock`, released by the kernel when the
recorder ends in any way, even `kill -9`) while the program runs. `running_recordings` lists the
staged files whose recorder is alive, so `list` shows them and `openprogram-tui --follow ID`
follows one as it grows. A folder whose recorder died without cleaning up (`kill -9`, a power
cut) is an orphan: `adopt_orphans` moves what it recorded into the managed root (or removes it
when it holds no call), so nothing recorded is lost in a hidden folder.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from openprogram.providers.recording.config import state_dir
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import streamed_facts
from openprogram.providers.recording.store import (
    RECORDING_ID_PATTERN,
    RECORDING_SUFFIX,
    ensure_recordings_dir,
    managed_path,
    new_recording_id,
)

STAGING_PREFIX = ".record-"
"""The private folders (`<state>/.record-XXXX`) where one-shot recordings are made; each is
made under `.staging-XXXX`, locked, then renamed, so a `.record-` folder without a held lock is
always an orphan."""
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


def _staging_folders(alive: bool) -> list[Path]:
    """The `.record-*` folders whose recorder is (`alive`) or is not running."""
    try:
        entries = [e for e in os.scandir(state_dir()) if e.name.startswith(STAGING_PREFIX)]
    except OSError:
        return []
    return [
        Path(e.path)
        for e in entries
        if e.is_dir(follow_symlinks=False) and _recorder_alive(Path(e.path)) == alive
    ]


def _staged(folder: Path) -> list[RunningRecording]:
    found = []
    for staged in sorted((folder / "recordings").glob(f"*{RECORDING_SUFFIX}")):
        recording_id = staged.name[: -len(RECORDING_SUFFIX)]
        if RECORDING_ID_PATTERN.match(recording_id) and ".." not in recording_id:
            found.append(RunningRecording(recording_id, staged))
    return found


def running_recordings() -> list[RunningRecording]:
    """The one-shot recordings whose program is running now, by ID."""
    return [staged for folder in _staging_folders(alive=True) for staged in _staged(folder)]


def new_staging_folder() -> tuple[Path, int]:
    """A private staging folder (0700) and the descriptor holding its lock: made and locked
    under another name, then renamed to `.record-…`, so no one sees it unlocked."""
    making = Path(tempfile.mkdtemp(prefix=".staging-", dir=state_dir()))
    lock = hold_recorder_lock(making)
    home = making.with_name(STAGING_PREFIX + making.name.removeprefix(".staging-"))
    os.rename(making, home)
    return home, lock


def keep_staged(staged: Path, recording_id: str) -> tuple[str, Path]:
    """Link a staged recording into the managed root as `recording_id`, never replacing a file:
    when the name is taken, under a new ID. Returns the ID and the managed file."""
    ensure_recordings_dir()
    try:
        os.link(staged, managed_path(recording_id))
        return recording_id, managed_path(recording_id)
    except FileExistsError:
        fresh = new_recording_id()
        os.link(staged, managed_path(fresh))
        return fresh, managed_path(fresh)


def adopt_orphans() -> list[Path]:
    """Move what orphaned staging folders recorded (at least one call) into the managed root,
    then remove the folders; returns the managed files made."""
    adopted = []
    for folder in _staging_folders(alive=False):
        for staged in _staged(folder):
            try:
                calls = streamed_facts(staged.path).calls
            except (RecordingFileError, OSError):
                continue  # not a recording: nothing worth keeping
            if calls > 0:
                adopted.append(keep_staged(staged.path, staged.recording_id)[1])
        shutil.rmtree(folder, ignore_errors=True)
    return adopted


def running_recording(recording_id: str) -> Path | None:
    """The staged file of the running one-shot recording `recording_id`, or None."""
    return next((r.path for r in running_recordings() if r.recording_id == recording_id), None)


def hold_recorder_lock(home: Path) -> int:
    """Lock the staging folder's `RECORDER_LOCK` for as long as the returned descriptor is open."""
    lock = os.open(home / RECORDER_LOCK, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)
    return lock
