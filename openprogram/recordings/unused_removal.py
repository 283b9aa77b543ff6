"""`prune --unused`: remove the recordings the last complete pytest run found no test using.

The pytest plugin (`--openprogram-unused`) leaves its last complete answer in pytest's cache
(`.pytest_cache/v/openprogram/unused`, under the project's root). This module finds that file from
the current directory upwards, and keeps only what is still there and still a recording: a regular
file (not a symlink) inside the project whose first row is a recording header.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from openprogram.errors import OpenProgramError
from openprogram.recordings.secret_scan import is_recording
from openprogram.recordings.unused import UNUSED_CACHE_KEY, UnusedCheck

CACHE_FILE = Path(".pytest_cache") / "v" / UNUSED_CACHE_KEY


class UnusedListMissing(OpenProgramError, FileNotFoundError):
    """No pytest run has left a complete list of unused recordings here."""


@dataclass(frozen=True)
class UnusedPlan:
    """What `prune --unused` would remove, from which pytest run, and what it leaves and why."""

    cache: Path
    made_at: str
    """When that pytest run wrote the list (the cache file's modification time, UTC)."""
    remove: tuple[Path, ...]
    left: tuple[tuple[Path, str], ...]


def find_unused_list(start: Path) -> Path:
    """The cache file of the nearest project (from `start` upwards) whose pytest run left one."""
    for folder in (start, *start.parents):
        candidate = folder / CACHE_FILE
        if candidate.is_file():
            return candidate
    raise UnusedListMissing(
        f"no list of unused recordings in {start} or above: run the whole suite once with "
        "`pytest --openprogram-unused=warn` first"
    )


def plan_unused(start: Path) -> UnusedPlan:
    cache = find_unused_list(start)
    project = cache.parent.parent.parent.parent.resolve()  # <project>/.pytest_cache/v/openprogram
    try:
        check = UnusedCheck.from_json(json.loads(cache.read_text(encoding="utf-8")))
    except (ValueError, AttributeError) as exc:
        raise UnusedListMissing(f"{cache}: not a list of unused recordings ({exc})") from None
    remove, left = [], []
    for path in check.unused:
        reason = _why_not(path, project)
        if reason is None:
            remove.append(path)
        else:
            left.append((path, reason))
    made_at = datetime.fromtimestamp(cache.stat().st_mtime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return UnusedPlan(cache, made_at, tuple(remove), tuple(left))


def _why_not(path: Path, project: Path) -> str | None:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return "gone already"
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if not path.resolve().is_relative_to(project):
        return f"outside the project {project}"
    if not is_recording(path):
        return "not a recording (no header row)"
    return None


def remove_unused(plan: UnusedPlan) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Remove the planned files, then each folder they leave empty (up to the project's root,
    never one holding anything); returns the removed files and the failures with their reason."""
    removed, failed = [], []
    for path in plan.remove:
        try:
            os.unlink(path)
        except OSError as exc:
            failed.append((path, exc.strerror or str(exc)))
        else:
            removed.append(path)
    project = plan.cache.parents[3].resolve()  # <project>/.pytest_cache/v/openprogram/unused
    for path in removed:
        _remove_emptied_folders(path.parent, project)
    return removed, failed


def _remove_emptied_folders(folder: Path, project: Path) -> None:
    """`rmdir` `folder` and its parents while they are empty and inside `project` (a folder
    holding anything, even a hidden file, stays: `rmdir` refuses it)."""
    while folder.resolve() != project and folder.resolve().is_relative_to(project):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
