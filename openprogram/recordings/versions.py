"""Versions of a recording: a new one put in place safely, the previous ones kept.

`write_version` checks a candidate file with the strict reader, notes in its header what made it
(`produced_by`), keeps the previous version (a managed recording: in the state dir, listed by
`list_versions`, put back by `restore_version`; a file given by path: beside it only until the
replace has succeeded, git being its history) and replaces the recording atomically. Used by
`accept` and `rerecord` (one `RewriteRun` with its `how`, put in place by `write_rewrite`) and by the
pytest plugin's accept and rerecord; a failure leaves the recording byte for byte.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import shutil
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.config import ensure_private_dir, state_dir
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.file_policy import inspect, require_usable
from openprogram.providers.recording.reader import read_recording, read_recording_bytes
from openprogram.providers.recording.row_encoding import encode_row
from openprogram.providers.recording.store import managed_path, validate_recording_id
from openprogram.recordings.check import AcceptedCall, CheckResult
from openprogram.recordings.entry import entry_scrub_rules, kept_command, rewritten_entry
from openprogram.recordings.open_writers import being_written

T = TypeVar("T")

VERSIONS = "versions"
"""Under the state dir: `versions/ID/<UTC time>.jsonl`, the previous versions of a managed recording."""


class VersionError(OpenProgramError, ValueError):
    """A version that cannot be found or restored; the message names it."""


def refuse_while_written(recording: Path) -> None:
    """Raise `VersionError` while another process records into `recording` (`open_writers`)."""
    reason = being_written(recording)
    if reason is not None:
        raise VersionError(f"{recording}: {reason}")


class RewriteLock:
    """One accept or rerecord of a recording at a time: an exclusive lock beside the file,
    holding the pid of its owner so a second attempt is refused naming it."""

    def __init__(self, recording: Path, what: str) -> None:
        refuse_while_written(recording)
        self.path = recording.with_name(f".{recording.name}.rewrite.lock")
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.read(fd, 200).decode("utf-8", errors="replace").strip() or "?"
            os.close(fd)
            raise VersionError(
                f"{recording}: already being rewritten ({owner}); try again once it ends"
            ) from None
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{what} by process {os.getpid()}".encode())
        except OSError:  # a full disk: no lock left behind
            self.path.unlink(missing_ok=True)
            os.close(fd)
            raise
        self._fd: int | None = fd

    def release(self) -> None:
        """Let the next accept or rerecord start (idempotent)."""
        if self._fd is not None:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            os.close(self._fd)
            self._fd = None


def versions_dir(recording_id: str) -> Path:
    """Where the previous versions of managed recording `recording_id` are kept."""
    return state_dir() / VERSIONS / validate_recording_id(recording_id)


def _private_versions_dir(recording_id: str) -> Path:
    """`versions/ID`, created 0700 with `versions/` itself (and the state dir) 0700; a symlink at
    any of them is refused."""
    for folder in (state_dir(), state_dir() / VERSIONS):
        ensure_private_dir(folder)
    return ensure_private_dir(versions_dir(recording_id))


def list_versions(recording_id: str) -> list[Path]:
    """The kept previous versions of a managed recording, oldest first: regular files only,
    never through a symlinked `versions/` folder or a symlinked version."""
    folder = versions_dir(recording_id)
    for directory in (folder.parent, folder):
        if directory.is_symlink():
            raise VersionError(f"{directory} is a symlink; refusing to read versions through it")
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.glob("*.jsonl") if inspect(path).usable)


def _version_name() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + f"-{time.time_ns() % 1_000_000:06d}"


def beside(destination: Path, what: str) -> Path:
    """A private name for a temporary file in `destination`'s own folder: renamed over it, it never
    crosses a filesystem (`$TMPDIR` may be another one), and a hidden `.tmp` is never listed."""
    return destination.with_name(f".{destination.name}.{what}-{secrets.token_hex(4)}.tmp")


def keep_version(path: Path, recording_id: str) -> Path:
    """Copy `path` into `versions/ID/` as a new kept version (0600); returns where it went."""
    folder = _private_versions_dir(recording_id)
    kept = folder / f"{_version_name()}.jsonl"
    _copy_private(path, kept)
    return kept


def _copy_private(source: Path, target: Path) -> None:
    """Copy `source` (never through a symlink) into a new 0600 `target`: written beside it under a
    private name and renamed into place, so a failed write (a full disk) leaves no `target`."""
    data = read_recording_bytes(source)
    temporary = beside(target, "copy")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temporary, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.link(temporary, target)  # never replaces a version that exists
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def write_version(
    recording: Path,
    recording_id: str | None,
    candidate: Path,
    command: Sequence[str],
    produced_by: dict[str, Any],
    *,
    check_command: Sequence[str] = (),
) -> Path | None:
    """Put `candidate` in place of `recording`; returns where the previous version is kept (None
    for a file given by path). Raises `RecordingFileError` when the candidate is not a valid
    recording; the recording is then left as it was. `command` produced the candidate;
    `check_command` (default `command`) is what a later check runs (the pytest plugin's accept is
    `pytest --openprogram-record=accept …`, its check `python -m pytest NODE_ID`)."""
    read_recording(candidate)  # the same strict reader replay uses
    final = beside(recording, "final")
    previous = beside(recording, "previous")
    kept: Path | None = None
    try:
        # The same rows: checked above.
        _with_provenance(candidate, final, command, produced_by, check_command or command)
        mode = stat.S_IMODE(require_usable(recording).st_mode)  # a rewrite keeps the file's mode
        os.link(recording, previous)  # the old bytes stay reachable until the end
        kept = keep_version(previous, recording_id) if recording_id is not None else None
        os.chmod(final, mode)
        refuse_while_written(recording)  # a program may have started recording during the run
        os.replace(final, recording)
    except BaseException:
        if kept is not None:  # the recording was not replaced: no version was made
            kept.unlink(missing_ok=True)
        raise
    finally:
        for temporary in (final, previous):
            temporary.unlink(missing_ok=True)
    return kept


def restore_version(recording_id: str, version: str) -> Path:
    """Put version `version` (a name `list_versions` shows, or a path) back in place of the managed
    recording; the version replaced is kept too. Returns the recording's path."""
    candidates = [p for p in list_versions(recording_id) if version in (p.stem, p.name, str(p))]
    if not candidates:
        known = ", ".join(p.stem for p in list_versions(recording_id)) or "none kept"
        raise VersionError(f"{recording_id}: no version {version!r} (versions: {known})")
    source = candidates[0]
    read_recording(source)
    target = managed_path(recording_id)
    temporary = beside(target, "restore")
    kept: Path | None = None
    _copy_private(source, temporary)
    try:
        if target.exists():
            refuse_while_written(target)
            kept = keep_version(target, recording_id)
        os.replace(temporary, target)
    except BaseException:
        if kept is not None:
            kept.unlink(missing_ok=True)
        raise
    finally:
        temporary.unlink(missing_ok=True)
    return target


def _with_provenance(
    source: Path,
    target: Path,
    command: Sequence[str],
    produced_by: dict[str, Any],
    check_command: Sequence[str],
) -> None:
    """`source` with its header saying what produced this version (optional header metadata)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    with source.open("rb") as rows, os.fdopen(os.open(target, flags, 0o600), "wb") as out:
        header = json.loads(rows.readline())
        if not isinstance(header, dict) or header.get("type") != "header":
            raise RecordingFileError(source, 1, None, "the first row is not a header")
        entry = header.get("entry")
        cwd = entry.get("cwd") if isinstance(entry, dict) else None
        scrub = entry_scrub_rules(cwd if isinstance(cwd, str) else None, header, str(source))
        argv = kept_command(command, scrub)
        if isinstance(entry, dict):
            # The requests are now the ones this command makes: a plain `check` runs it.
            header["entry"] = rewritten_entry(entry, check_command, scrub)
        header["produced_by"] = {
            **produced_by,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "command": argv,
        }
        out.write(encode_row(header))
        shutil.copyfileobj(rows, out)
        out.flush()
        os.fsync(out.fileno())


def old_versions(cutoff: float) -> list[Path]:
    """Every kept version (of any recording) last modified before `cutoff` (a Unix time)."""
    root = state_dir() / VERSIONS
    if not root.is_dir():
        return []
    return sorted(
        path
        for path in root.glob("*/*.jsonl")
        if path.is_file() and not path.is_symlink() and path.stat().st_mtime < cutoff
    )


def run_into_candidate(
    recording: Path,
    what: str,
    run: Callable[[Path], T],
    refusal: Callable[[T, Path], str | None],
) -> tuple[T, Path | None, str | None, RewriteLock | None]:
    """Hold the recording's rewrite lock and `run(candidate)` with a private temporary name for
    the new version, in the recording's own folder (see `beside`). Returns the run's result, the candidate (None when `refusal` names a
    reason, which is returned too) and the lock, still held while a candidate is kept."""
    require_usable(recording, view_only=True)  # a missing file: the policy's words, no stray lock
    lock = RewriteLock(recording, what)
    candidate = beside(recording, what)
    try:
        result = run(candidate)
        reason = refusal(result, candidate)
    except BaseException:
        discard_candidate(candidate, lock)
        raise
    if reason is not None:
        discard_candidate(candidate, lock)
        return result, None, reason, None
    return result, candidate, None, lock


def discard_candidate(candidate: Path | None, lock: RewriteLock | None) -> None:
    """Forget a candidate file and release the recording (nothing was written to it)."""
    if candidate is not None:
        candidate.unlink(missing_ok=True)
    if lock is not None:
        lock.release()


class RewriteRefused(OpenProgramError, RuntimeError):
    """Accept or rerecord makes no new version: nothing to do, a live answer is needed, or the
    program failed (the message says which)."""


@dataclass(frozen=True)
class RewriteRun:
    """A finished accept or rerecord run: the check's result and, unless refused, the candidate."""

    how: Literal["accept", "rerecord"]
    recording: Path
    recording_id: str | None
    result: CheckResult
    candidate: Path | None
    """The new version, written by the run, not yet checked nor in place (None: refused)."""
    refusal: str | None
    lock: RewriteLock | None = None
    """Held from the run until the candidate is written or discarded."""
    from_call: int | None = None
    """Rerecord: the first call that went live."""

    @property
    def accepted(self) -> list[AcceptedCall]:
        """Accept: each call whose new request would be kept, with its differences."""
        return self.result.accepted

    def produced_by(self) -> dict[str, Any]:
        """What the new version's header says produced it."""
        if self.how == "accept":
            return {"how": "accept", "accepted_calls": len(self.accepted)}
        return {"how": "rerecord", "from_call": self.from_call}

    def discard(self) -> None:
        """Forget the candidate and release the recording (nothing was written to it)."""
        discard_candidate(self.candidate, self.lock)


def write_rewrite(run: RewriteRun, command: Sequence[str]) -> Path | None:
    """Put the candidate in place of the recording (`write_version`); returns where the previous
    version is kept (None for a file given by path).

    Raises `RewriteRefused` for a refused run and `RecordingFileError` when the candidate is not a
    valid recording; the recording is then left as it was.
    """
    if run.candidate is None:
        nothing = "nothing to accept" if run.how == "accept" else "nothing written"
        raise RewriteRefused(f"{run.recording}: {nothing}: {run.refusal}")
    try:
        return write_version(
            run.recording, run.recording_id, run.candidate, command, run.produced_by()
        )
    finally:
        run.discard()
