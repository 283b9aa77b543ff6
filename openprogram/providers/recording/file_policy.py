"""The one policy for a usable recording file: `inspect` says whether and why not, `require_usable`
enforces it. Every command, the runtime, the reader and the TUI's arguments go through it.

- Never through a symlink, never anything but a regular file, wherever the file is.
- A managed recording (directly in `$OPENPROGRAM_HOME/recordings`) is 0600: one of ours with wider
  permissions is tightened when the caller asks (`tighten`), anyone else's is refused.
- A recording given by path is read whatever its mode: git checks files out 0644, and the file is
  the user's (we never chmod it). A file we rewrite keeps the mode it had (`openprogram.recordings.versions`).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from openprogram.providers.recording.errors import MISSING, NOT_REGULAR, SYMLINK
from openprogram.providers.recording.store import (
    RecordingLocation,
    RecordingSelectorError,
    locate_recording,
    recordings_dir,
)


def too_wide_reason(path: Path, mode: int) -> str:
    """Why a managed recording with permissions `mode` is refused, and the command that fixes it."""
    return (
        f"permissions {stat.S_IMODE(mode):04o} are too wide (recordings may hold "
        f"prompts and personal data); run: chmod 600 {path}"
    )


@dataclass(frozen=True)
class FileState:
    """What the policy found at a recording's path: its `lstat` (None when there is none) and
    `reason`, why it must not be used (None when it may)."""

    location: RecordingLocation
    info: os.stat_result | None
    reason: str | None
    too_wide: bool = False
    """A managed regular file refused only for its permissions (wider than 0600)."""

    @property
    def path(self) -> Path:
        """The file's path."""
        return self.location.path

    @property
    def exists(self) -> bool:
        """True when there is an entry (of any kind) at the path."""
        return self.info is not None

    @property
    def usable(self) -> bool:
        """True when the file may be read (and, when managed, written)."""
        return self.reason is None

    @property
    def tightenable(self) -> bool:
        """A managed file of ours refused only for its permissions: `require_usable(tighten=True)`
        makes it 0600 instead of refusing it."""
        return self.too_wide and self.info is not None and self.info.st_uid == os.getuid()


def _located(where: RecordingLocation | str | os.PathLike[str]) -> RecordingLocation:
    if isinstance(where, RecordingLocation):
        return where
    return locate_recording(os.path.abspath(where))


def inspect(where: RecordingLocation | str | os.PathLike[str]) -> FileState:
    """Whether the recording at `where` (a location, or a path) may be used, and why not."""
    location = _located(where)
    path = location.path
    if location.managed and recordings_dir().is_symlink():
        root = f"the managed recordings root {recordings_dir()} is a symlink; refusing it"
        return FileState(location, None, root)
    try:
        info = path.lstat()
    except FileNotFoundError:
        return FileState(location, None, MISSING)
    except OSError as exc:
        return FileState(location, None, f"cannot be inspected: {exc.strerror}")
    return judge(location, info)


def judge(location: RecordingLocation, info: os.stat_result) -> FileState:
    """The policy applied to what `lstat` (or `fstat` of a descriptor already open) says of the
    file at `location`: the writer judges the file it opened, so no swap of the path between a
    check and the open can lead it elsewhere."""
    if stat.S_ISLNK(info.st_mode):
        return FileState(location, info, SYMLINK)
    if not stat.S_ISREG(info.st_mode):
        return FileState(location, info, NOT_REGULAR)
    if location.managed and info.st_mode & 0o077:
        return FileState(location, info, too_wide_reason(location.path, info.st_mode), True)
    return FileState(location, info, None)


def require_usable(
    where: RecordingLocation | str | os.PathLike[str],
    *,
    tighten: bool = False,
    view_only: bool = False,
) -> os.stat_result:
    """The file's `lstat` when the policy allows it; else `RecordingSelectorError` with the reason.

    With `tighten`, a managed file of ours whose only fault is its permissions is made 0600.
    With `view_only` (a command that only shows the file: list, show) permissions do not matter.
    """
    state = inspect(where)
    if state.reason is None or (view_only and state.too_wide):
        assert state.info is not None
        return state.info
    if tighten and state.tightenable:
        state.path.chmod(0o600)
        return state.path.lstat()
    raise RecordingSelectorError(str(state.path), state.reason, file=True)
