"""Choosing what the next start does: record into a new managed file, replay a file, or turn off.

Each function validates first and writes the configuration last, in one atomic write, so a failed
command changes nothing: `start_recording` removes the file it created when the write fails, and
`select_replay` strictly reads the whole file before touching the configuration.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Any

from openprogram.providers.recording.config import (
    ConfigError,
    RecordReplayConfig,
    read_record_replay_config,
    write_record_replay_config,
)
from openprogram.providers.recording.file_policy import inspect, require_usable
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.redaction import REDACTION_VERSION
from openprogram.providers.recording.store import (
    RecordingSelectorError,
    ensure_recordings_dir,
    locate_recording,
    managed_path,
    new_recording_id,
    validate_recording_id,
)
from openprogram.providers.recording.writer import RecordingSink
from openprogram.recordings.summary import utc_timestamp


def _configured_path(config: RecordReplayConfig) -> Path | None:
    if not config.file:
        return None
    try:
        return locate_recording(config.file).path
    except RecordingSelectorError:
        return None


def recording_into() -> Path | None:
    """The file the configuration records into (mode `record`), or None (another mode, no file,
    or a configuration that cannot be read): a recording a viewer should follow as it grows."""
    try:
        config = read_record_replay_config()
    except ConfigError:
        return None
    return _configured_path(config) if config.mode == "record" else None


def create_recording_file(
    path: Path,
    recording_id: str,
    entry: dict[str, Any] | None = None,
    now: float | None = None,
    *,
    appendable: bool = False,
) -> Path:
    """Create a new 0600 recording at `path` holding only its header; refuses anything already there.

    The header carries `recording_id`, `created_at`, `redaction_version` (and `entry` when given).
    `appendable` adds `--append` to the refusal's suggestions (for `record --name` without a command).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        os.close(os.open(path, flags, 0o600))
    except FileExistsError:
        append = ", add --append to record into it" if appendable else ""
        raise RecordingSelectorError(
            recording_id,
            f"already exists ({path}); choose another --name{append}, or remove it first with "
            f"`openprogram recordings delete {recording_id}`",
        ) from None
    header: dict[str, Any] = {
        "recording_id": recording_id,
        "created_at": utc_timestamp(time.time() if now is None else now),
        "redaction_version": REDACTION_VERSION,
    }
    if entry is not None:
        header["entry"] = entry
    sink = RecordingSink(path, header)
    try:
        sink.ensure_header()
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    finally:
        sink.close()
    return path


def start_recording(
    name: str | None = None, entry: dict[str, Any] | None = None, *, append: bool = False
) -> Path:
    """Create a new managed recording and make the next start record into it; returns its path.

    The ID is `name` (validated) or a fresh `YYYYMMDDTHHMMSSZ-xxxxxxxx`. The 0600 file starts with
    a header holding `recording_id`, `created_at`, `redaction_version` (and `entry` when given).
    An existing name is refused, naming the file; with `append` the next start records into the
    existing recording instead (it must be strictly valid), adding calls after its last one.
    """
    now = time.time()
    recording_id = validate_recording_id(name) if name is not None else new_recording_id(now)
    read_record_replay_config()  # a broken configuration fails before any file exists
    path = managed_path(recording_id)
    if append and (path.exists() or path.is_symlink()):
        require_usable(locate_recording(recording_id), tighten=True)
        read_recording(path)
        write_record_replay_config(RecordReplayConfig(mode="record", file=recording_id))
        return path
    ensure_recordings_dir()
    create_recording_file(path, recording_id, entry, now, appendable=name is not None)
    try:
        write_record_replay_config(RecordReplayConfig(mode="record", file=recording_id))
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        raise
    return path


def select_replay(selector: str) -> Path:
    """Make the next start replay from a managed ID or a path; returns the file's path.

    The file must be a regular file and strictly valid (a managed one also 0600: one of ours is
    tightened); only then is the configuration written. A file given by path is read whatever its
    mode and never chmod-ed.
    """
    location = locate_recording(selector)
    # Not a recording at all says more than its permissions: refuse what is not a regular file,
    # read it strictly, and only then insist on 0600.
    state = inspect(location)
    if state.reason is not None and not state.too_wide:
        raise RecordingSelectorError(str(location.path), state.reason, file=True)
    read_recording(location.path)
    require_usable(location, tighten=True)
    stored = location.recording_id if location.managed else str(location.path)
    write_record_replay_config(RecordReplayConfig(mode="replay", file=stored))
    return location.path


def turn_off() -> Path | None:
    """Make the next start live (mode `off`), keeping the last file in the configuration.

    An unreadable configuration is moved aside first; the backup's path is returned (else None).
    """
    try:
        last_file = read_record_replay_config().file
    except ConfigError:
        last_file = None
    return write_record_replay_config(
        RecordReplayConfig(mode="off", file=last_file), backup_corrupt=True
    )
