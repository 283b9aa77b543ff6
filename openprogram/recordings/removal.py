"""Deleting managed recordings: one by ID, or every one older than N days.

Only regular files directly inside the managed root are removed. The active recording, symlinks,
anything outside the root and files another process holds a lock on are refused. Nothing follows a
symlink: entries are checked with `lstat` and the open file is compared with the path it came from.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import stat
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.config import (
    ConfigError,
    RecordReplayConfig,
    read_record_replay_config,
)
from openprogram.providers.recording.file_policy import inspect, require_usable
from openprogram.providers.recording.store import (
    RECORDING_SUFFIX,
    RecordingLocation,
    RecordingSelectorError,
    locate_recording,
    recordings_dir,
)
from openprogram.recordings.summary import (
    RecordingSummary,
    active_mode,
    parse_timestamp,
    summarize_listed,
    summarize_recording,
)
from openprogram.recordings.versions import list_versions, old_versions, versions_dir
from openprogram.text import plural


class RecordingRemovalError(OpenProgramError, RuntimeError):
    """A recording that will not be removed; `path` and `reason` say why."""

    def __init__(self, path: Path, reason: str, action: str = "delete") -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot {action} {path}: {reason}")


@dataclass(frozen=True)
class DeletedRecording:
    """A recording that was removed."""

    recording_id: str
    path: Path
    size: int
    versions: int = 0
    """Kept previous versions (made by accept, rerecord, restore) removed with it."""


@dataclass(frozen=True)
class PruneFailure:
    """A matched recording that could not be removed, and why."""

    recording_id: str
    reason: str


@dataclass(frozen=True)
class PruneReport:
    """What `prune` matched, removed, skipped and failed on; `bytes` freed (or that would be)."""

    older_than_days: float
    cutoff: str
    dry_run: bool
    matched: tuple[str, ...]
    """IDs older than the cutoff that prune may remove."""
    deleted: tuple[str, ...]
    failed: tuple[PruneFailure, ...]
    skipped: tuple[PruneFailure, ...] = field(default=())
    """Old entries prune never removes: the active recording, symlinks, non-regular files."""
    bytes: int = 0
    versions: tuple[str, ...] = ()
    """Kept previous versions (made by accept or rerecord) removed too: those older than the
    cutoff, and every one of a recording removed."""

    def to_json(self) -> dict[str, Any]:
        """Stable JSON fields."""
        return {
            "older_than_days": self.older_than_days,
            "cutoff": self.cutoff,
            "dry_run": self.dry_run,
            "matched": list(self.matched),
            "deleted": list(self.deleted),
            "failed": [{"id": f.recording_id, "reason": f.reason} for f in self.failed],
            "skipped": [{"id": s.recording_id, "reason": s.reason} for s in self.skipped],
            "bytes": self.bytes,
            "versions": list(self.versions),
        }


def _managed_root() -> Path | None:
    """The managed root, None when it does not exist yet; refuses a symlinked root."""
    root = recordings_dir()
    try:
        info = root.lstat()
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise RecordingSelectorError(str(root), "the managed recordings root is a symlink")
    if not stat.S_ISDIR(info.st_mode):
        raise RecordingSelectorError(str(root), "the managed recordings root is not a directory")
    return root


def _active_config() -> RecordReplayConfig:
    # Without a readable configuration the active recording is unknown, so nothing is safe to remove.
    try:
        return read_record_replay_config()
    except ConfigError as exc:
        raise ConfigError(
            exc.path,
            f"{exc.reason}; cannot tell which recording is active, so nothing is deleted "
            "(run `openprogram recordings off` to reset it)",
        ) from None


def _refusal(location: RecordingLocation, config: RecordReplayConfig) -> str | None:
    """Why this entry is never removed, or None when it is a removable regular file."""
    state = inspect(location)
    if state.reason is not None and not state.too_wide:
        return state.reason
    mode = active_mode(location, config)
    if mode is not None:
        return (
            f"is the active {mode} recording; run `openprogram recordings off` "
            "(or select another) first"
        )
    return None


def _unlink_unlocked(path: Path) -> int:
    """Remove `path` while holding its lock, unless another process holds it; returns the size."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RecordingRemovalError(path, "is a symlink") from None
        raise RecordingRemovalError(path, exc.strerror or str(exc)) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RecordingRemovalError(
                path, "another process holds a lock on it (it is being written); try again later"
            ) from None
        opened, current = os.fstat(fd), path.lstat()
        if (opened.st_dev, opened.st_ino) != (current.st_dev, current.st_ino):
            raise RecordingRemovalError(path, "was replaced while being deleted")
        try:
            path.unlink()
        except OSError as exc:
            raise RecordingRemovalError(path, exc.strerror or str(exc)) from None
        return opened.st_size
    finally:
        os.close(fd)


def locate_managed(recording_id: str, action: str = "delete") -> RecordingLocation:
    """The location of a managed recording ID; refuses paths outside the managed root."""
    location = locate_recording(recording_id)
    if not location.managed:
        participle = {"delete": "deleted", "repair": "repaired"}.get(action, f"{action}ed")
        raise RecordingRemovalError(
            location.path,
            f"is outside the managed recordings directory; only managed recordings are "
            f"{participle} (give a managed ID, see `openprogram recordings list`)",
            action=action,
        )
    return location


def refusal_reason(location: RecordingLocation) -> str | None:
    """Why a managed recording must not be rewritten or removed now (active, symlink, ...)."""
    _managed_root()
    return _refusal(location, _active_config())


def plan_deletion(recording_id: str) -> RecordingSummary:
    """Check that `delete_recording` may remove this recording; its summary, for a confirmation."""
    location = locate_managed(recording_id)
    _managed_root()
    require_usable(location, view_only=True)  # missing: worded as every command words it
    config = _active_config()
    reason = _refusal(location, config)
    if reason is not None:
        raise RecordingRemovalError(location.path, reason)
    return summarize_recording(location.path, config)


def delete_recording(recording_id: str) -> DeletedRecording:
    """Delete one managed recording by ID (never the active one, a symlink or an external file)."""
    location = locate_managed(recording_id)
    _managed_root()
    require_usable(location, view_only=True)  # missing: worded as every command words it
    reason = _refusal(location, _active_config())
    if reason is not None:
        raise RecordingRemovalError(location.path, reason)
    assert location.recording_id is not None
    size = _unlink_unlocked(location.path)
    versions = _remove_versions(location.recording_id)
    return DeletedRecording(location.recording_id, location.path, size, versions)


def versions_note(recording_id: str) -> str:
    """` and its N kept previous versions` that `delete` would remove too, for a confirmation
    (empty when there are none)."""
    count = len(list_versions(recording_id))
    return f" and its {plural(count, 'kept previous version')}" if count else ""


def _remove_versions(recording_id: str) -> int:
    """Remove `versions/ID/` (a symlink there: only the link), so a new recording of the same name
    starts with no history; returns how many versions it held."""
    folder = versions_dir(recording_id)
    if folder.is_symlink():
        folder.unlink()
        return 0
    if not folder.is_dir():
        return 0
    count = len(list_versions(recording_id))
    shutil.rmtree(folder)
    return count


def _candidates(root: Path) -> list[RecordingLocation]:
    names = sorted(e.name for e in os.scandir(root) if e.name.endswith(RECORDING_SUFFIX))
    located = (locate_recording(str(root / name)) for name in names)
    return [location for location in located if location.managed]


def prune_recordings(
    older_than_days: float,
    dry_run: bool = False,
    only: Collection[str] | None = None,
    only_versions: Collection[str] | None = None,
) -> PruneReport:
    """Delete every managed recording last written more than `older_than_days` days ago.

    Age comes from the file's mtime, not the header's `created_at`: a recording appended to
    today is kept however old it is (read through the listing's summary cache: files unchanged
    since a listing are not read).
    With `dry_run` nothing is removed and `bytes` is what would be freed; `only` limits removal to
    those IDs (the ones a user confirmed after a dry run), `only_versions` the removal of kept
    previous versions (made by accept and rerecord) older than the cutoff to those paths. The
    versions of a recording removed go with it, as with `delete` (listed in `versions`).
    """
    if older_than_days < 0:
        raise ValueError("older_than_days must not be negative")
    root = _managed_root()
    config = _active_config()
    cutoff = datetime.now(UTC) - timedelta(days=older_than_days)
    locations = _candidates(root) if root is not None else []
    matched: list[str] = []
    deleted: list[str] = []
    failed: list[PruneFailure] = []
    skipped: list[PruneFailure] = []
    owned: list[Path] = []
    """The versions of the recordings removed: removed with them, as `delete` does."""
    freed = 0
    for location, summary in zip(locations, summarize_listed(locations, config), strict=True):
        assert location.recording_id is not None
        if only is not None and location.recording_id not in only:
            continue
        last_write = parse_timestamp(summary.modified_at)
        if last_write is None or last_write >= cutoff:
            continue
        reason = _refusal(location, config)
        if reason is not None:
            skipped.append(PruneFailure(location.recording_id, reason))
            continue
        matched.append(location.recording_id)
        history = list_versions(location.recording_id)  # goes with it, whatever its age
        if dry_run:
            freed += summary.facts.size + sum(version.stat().st_size for version in history)
            owned.extend(history)
            continue
        try:
            freed += _unlink_unlocked(location.path)
        except RecordingRemovalError as exc:
            failed.append(PruneFailure(location.recording_id, exc.reason))
        else:
            deleted.append(location.recording_id)
            freed += sum(version.stat().st_size for version in history)
            _remove_versions(location.recording_id)
            owned.extend(history)
    versions = [version for version in old_versions(cutoff.timestamp()) if version not in owned]
    if only_versions is not None:
        versions = [version for version in versions if str(version) in only_versions]
    for version in versions:
        freed += version.stat().st_size
        if not dry_run:
            version.unlink(missing_ok=True)
    return PruneReport(
        versions=tuple(str(v) for v in sorted([*owned, *versions])),
        older_than_days=older_than_days,
        cutoff=cutoff.strftime("%Y-%m-%dT%H:%M:%SZ"),
        dry_run=dry_run,
        matched=tuple(matched),
        deleted=tuple(deleted),
        failed=tuple(failed),
        skipped=tuple(skipped),
        bytes=freed,
    )
