"""What the next start will do with the record/replay configuration, without starting anything.

`read_status()` reads the configuration and the configured file once and predicts, by the same
rules as `openprogram.providers.recording.activation`, whether the provider runtime would come up blocked.
It never repairs, creates or initializes anything, so it works while the configuration is broken.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from openprogram.providers.recording.config import (
    ConfigError,
    config_path,
    read_record_replay_config,
    state_dir,
)
from openprogram.providers.recording.errors import MISSING, RecordingFileError
from openprogram.providers.recording.file_policy import inspect
from openprogram.providers.recording.reader import streamed_facts
from openprogram.providers.recording.row_encoding import RECORDING_FORMAT_VERSION
from openprogram.providers.recording.scan_facts import ScanFacts
from openprogram.providers.recording.store import (
    RecordingLocation,
    RecordingSelectorError,
    locate_recording,
    recordings_dir,
)

APPLIES_ON_NEXT_START = "Changes apply on the next start of a program; running programs keep the mode they started with."


class RecordReplayStatus(BaseModel):
    """The configured mode and file, whether the file is usable, and whether the next start blocks.
    `status --json` is `model_dump(mode="json")`."""

    model_config = ConfigDict(frozen=True)

    mode: str | None
    """`off`, `record` or `replay`; None when the configuration cannot be read."""
    file: str | None
    """The configured selector (managed ID or path) as written in the configuration."""
    path: Path | None
    """Where that selector points."""
    managed: bool
    config_path: Path
    config_exists: bool
    config_error: str | None
    file_exists: bool | None
    """None when no file is configured."""
    file_valid: bool | None
    """Whether the strict reader accepts the file; None when it was not read."""
    format_version: int | None
    calls: int | None
    events: int | None
    reason: str | None
    """Why the next start blocks, or (when it does not) why the file is not valid."""
    note: str | None
    """Something the next start will fix by itself, e.g. tightening permissions to 0600."""
    would_block: bool
    """True when the next start would install the fail-closed provider for every api."""
    applies_on_next_start: str = APPLIES_ON_NEXT_START


@dataclass(frozen=True)
class _FileState:
    """The configured file as activation would find it: present, refused, and its scan's facts."""

    exists: bool
    facts: ScanFacts | None = None
    """What the strict reader found, when the file could be read."""
    refused: str | None = None
    """A reason the runtime refuses the file whatever the mode (symlink, not regular, perms)."""
    note: str | None = None

    @property
    def problem(self) -> str | None:
        """The first problem the strict reader found."""
        return self.facts.reason if self.facts else None


def _inspect(location: RecordingLocation) -> _FileState:
    if not os.path.lexists(location.path):
        return _FileState(exists=False, refused=MISSING)
    policy = inspect(location)
    note = None
    if policy.tightenable:
        assert policy.info is not None
        mode = stat.S_IMODE(policy.info.st_mode)
        note = f"permissions {mode:04o} will be tightened to 0600 on the next start"
    elif policy.reason is not None:
        return _FileState(exists=True, refused=policy.reason)
    try:
        facts = streamed_facts(location.path)
    except RecordingFileError as exc:
        return _FileState(exists=True, refused=exc.reason, note=note)
    return _FileState(exists=True, facts=facts, note=note)


def _blocking_reason(mode: str, location: RecordingLocation, state: _FileState) -> str | None:
    """Mirror activation: replay needs a strictly valid file; record a managed, appendable one."""
    if mode == "replay":
        return state.refused or state.problem
    if not location.managed:
        return f"record file {location.path} is outside the managed recordings directory"
    for directory in (state_dir(), recordings_dir()):
        if directory.is_symlink():
            return f"{directory} is a symlink; refusing to use it as a private directory"
    if not state.exists:
        return None  # record creates the file
    if state.refused or state.facts is None:
        return state.refused
    version = state.facts.format_version
    if state.facts.size and version != RECORDING_FORMAT_VERSION:
        found = "no header" if version is None else f"format_version {version}"
        detail = f" ({state.problem})" if state.problem else ""
        return f"cannot append to a recording with {found}{detail}"
    return None


def read_status() -> RecordReplayStatus:
    """The configuration as the next start will apply it, and whether that start would block."""
    path = config_path()
    base: dict[str, Any] = {"config_path": path, "config_exists": os.path.lexists(path)}
    empty: dict[str, Any] = {
        "path": None,
        "managed": False,
        "file_exists": None,
        "file_valid": None,
        "format_version": None,
        "calls": None,
        "events": None,
        "note": None,
    }
    try:
        config = read_record_replay_config(path)
    except ConfigError as exc:
        return RecordReplayStatus(
            **base,
            **empty,
            mode=None,
            file=None,
            config_error=str(exc),
            reason=str(exc),
            would_block=True,
        )
    base.update(mode=config.mode, file=config.file, config_error=None)
    if not config.file:
        blocked = config.mode != "off"
        reason = f"mode is {config.mode} but no file is configured" if blocked else None
        return RecordReplayStatus(**base, **empty, reason=reason, would_block=blocked)
    try:
        location = locate_recording(config.file)
    except RecordingSelectorError as exc:
        blocked = config.mode != "off"
        return RecordReplayStatus(**base, **empty, reason=str(exc), would_block=blocked)
    state = _inspect(location)
    blocking = None if config.mode == "off" else _blocking_reason(config.mode, location, state)
    note = state.note
    if state.exists:
        reason = blocking or state.refused or state.problem
    elif config.mode == "record" and blocking is None:
        reason, note = None, "the file will be created on the next start"
    else:
        reason = blocking or state.refused
    facts = state.facts
    return RecordReplayStatus(
        **base,
        path=location.path,
        managed=location.managed,
        file_exists=state.exists,
        file_valid=facts.valid if facts else (False if state.exists else None),
        format_version=facts.format_version if facts else None,
        calls=facts.calls if facts else None,
        events=facts.events if facts else None,
        reason=reason,
        note=note,
        would_block=blocking is not None,
    )
