"""The managed recordings root (`<state>/recordings`, 0700): IDs and paths.

A selector is a managed recording ID (`20261202T101500Z-1a2b3c4d`, or a name given with `--name`)
or a path to a recording file anywhere. Whether a file may be used is decided in one place,
`openprogram.providers.recording.file_policy`.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.state_files import ensure_private_dir, state_dir

RECORDING_SUFFIX = ".jsonl"
RECORDING_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}\Z")


class RecordingSelectorError(OpenProgramError, ValueError):
    """A recording ID or path that cannot be used; `selector` and `reason` say why.

    `file`: the selector is the file the file policy refused (missing, a symlink, not a regular
    file), worded as the reader words a file: `recording file PATH: file not found`."""

    def __init__(self, selector: str, reason: str, *, file: bool = False) -> None:
        self.selector = selector
        self.reason = reason
        super().__init__(
            f"recording file {selector}: {reason}" if file else f"recording {selector!r}: {reason}"
        )


def recordings_dir() -> Path:
    """The managed root: `<state>/recordings`."""
    return state_dir() / "recordings"


def ensure_recordings_dir() -> Path:
    """Create the managed root (and the state directory) 0700; refuse a symlinked root."""
    ensure_private_dir(state_dir())
    return ensure_private_dir(recordings_dir())


def new_recording_id(now: float | None = None) -> str:
    """A fresh ID: UTC time plus 8 random hex digits, e.g. `20261202T101500Z-1a2b3c4d`."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
    return f"{stamp}-{secrets.token_hex(4)}"


def validate_recording_id(recording_id: str) -> str:
    """Return the ID if it is a safe file name (ASCII letters, digits, `.`, `_`, `-`; no `..`)."""
    if not RECORDING_ID_PATTERN.match(recording_id) or ".." in recording_id:
        raise RecordingSelectorError(
            recording_id,
            "an ID may hold ASCII letters, digits, '.', '_' and '-' (up to 128, no '..')",
        )
    if recording_id.endswith(RECORDING_SUFFIX):
        recording_id = recording_id[: -len(RECORDING_SUFFIX)]
    return recording_id


def managed_path(recording_id: str) -> Path:
    """The file of a managed recording ID."""
    return recordings_dir() / f"{validate_recording_id(recording_id)}{RECORDING_SUFFIX}"


def looks_like_path(selector: str) -> bool:
    """True when a selector names a path rather than a managed ID."""
    return (
        os.sep in selector
        or selector.startswith((".", "~"))
        or (selector.endswith(RECORDING_SUFFIX) and Path(selector).exists())
    )


@dataclass(frozen=True)
class RecordingLocation:
    """Where a selector points: the file, and its ID when it lives in the managed root."""

    path: Path
    recording_id: str | None

    @property
    def managed(self) -> bool:
        """True for a file directly inside the managed root."""
        return self.recording_id is not None


def locate_recording(selector: str) -> RecordingLocation:
    """Resolve an ID or a path (no file needs to exist yet); `..` never escapes the managed root."""
    if not selector.strip():
        raise RecordingSelectorError(selector, "empty recording selector")
    if not looks_like_path(selector):
        return RecordingLocation(managed_path(selector), validate_recording_id(selector))
    path = Path(selector).expanduser()
    path = Path(os.path.abspath(path))  # normalise `..` without following symlinks
    root = Path(os.path.abspath(recordings_dir()))
    if path.parent == root and path.name.endswith(RECORDING_SUFFIX):
        stem = path.name[: -len(RECORDING_SUFFIX)]
        if RECORDING_ID_PATTERN.match(stem) and ".." not in stem:
            return RecordingLocation(path, stem)
    return RecordingLocation(path, None)
