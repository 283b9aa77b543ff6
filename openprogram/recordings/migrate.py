"""`openprogram recordings migrate`: rewrite a version-1 recording in the current format.

A version-1 file's rows are full format-2 rows without times, so it is read by the strict reader
(its header's version aside) and written again call by call through the one writer, which makes
the references. A managed recording keeps its old bytes as a kept version (`versions.write_version`);
a file given by path keeps `NAME.v1.jsonl` beside it unless `backup=False`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.errors import RecordingFileError, open_for_reading
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.replayer import copy_call
from openprogram.providers.recording.row_encoding import RECORDING_FORMAT_VERSION, encode_row
from openprogram.providers.recording.store import (
    RECORDING_ID_PATTERN,
    RECORDING_SUFFIX,
    locate_recording,
    recordings_dir,
)
from openprogram.providers.recording.writer import RecordingSink
from openprogram.recordings.versions import RewriteLock, write_version

MIGRATES_FROM = 1


class MigrationError(OpenProgramError, ValueError):
    """A recording that cannot be migrated; the message names it and why."""


@dataclass(frozen=True)
class MigrationReport:
    """What `migrate` did (or, with `check`, would do) to one recording."""

    path: str
    recording_id: str | None
    from_version: int
    to_version: int
    changed: bool
    """False when the file is already in the current format (nothing to do)."""
    written: bool
    """True when the file was rewritten (False for `check` and for a file already current)."""
    calls: int
    size_before: int
    size_after: int | None
    kept: str | None
    """Where the old bytes are: the kept version, `NAME.v1.jsonl`, or None (`--no-backup`)."""

    def json_value(self) -> dict[str, Any]:
        """The report as `--json` prints it."""
        return asdict(self)


def header_version(path: Path) -> object:
    """The `format_version` of the file's first line (None when it has no header)."""
    fd, _ = open_for_reading(path)
    with os.fdopen(fd, "rb") as rows:
        first = rows.readline(1 << 20)
    try:
        header = json.loads(first)
    except (ValueError, RecursionError):
        return None
    return header.get("format_version") if isinstance(header, dict) else None


def managed_recordings() -> list[str]:
    """The IDs of every managed recording, sorted."""
    root = recordings_dir()
    if not root.is_dir():
        return []
    ids = []
    for path in root.iterdir():
        stem = path.name[: -len(RECORDING_SUFFIX)]
        if path.name.endswith(RECORDING_SUFFIX) and RECORDING_ID_PATTERN.match(stem):
            ids.append(stem)
    return sorted(ids)


def migrate_recording(
    selector: str, *, check: bool = False, backup: bool = True
) -> MigrationReport:
    """Migrate the recording `selector` (an ID or a path) to the current format."""
    location = locate_recording(selector)
    path = location.path
    version = header_version(path)
    size = path.stat().st_size
    report: dict[str, Any] = {
        "path": str(path),
        "recording_id": location.recording_id,
        "from_version": version,
        "to_version": RECORDING_FORMAT_VERSION,
        "size_before": size,
    }
    if version == RECORDING_FORMAT_VERSION:
        calls = len(read_recording(path).calls)
        return MigrationReport(
            **report, changed=False, written=False, calls=calls, size_after=size, kept=None
        )
    if version != MIGRATES_FROM or type(version) is not int:
        raise MigrationError(
            f"{path}: format_version {version!r} cannot be migrated "
            f"(migrate reads format_version {MIGRATES_FROM})"
        )
    backup_path = path.with_name(
        path.name.removesuffix(RECORDING_SUFFIX) + f".v1{RECORDING_SUFFIX}"
    )
    if not check and backup and not location.managed and backup_path.exists():
        raise MigrationError(
            f"{path}: {backup_path} already exists; move it away or use --no-backup"
        )
    lock = None if check else RewriteLock(path, "migrate")
    as_read = path.with_name(f".{path.name}.migrate-{os.getpid()}.read.tmp")
    candidate = path.with_name(f".{path.name}.migrate-{os.getpid()}.tmp")
    try:
        header = _current_header_copy(path, as_read)
        try:
            recording = read_recording(as_read)
        except RecordingFileError as exc:  # name the file the user gave, not our copy
            raise RecordingFileError(path, exc.line_number, exc.call_index, exc.reason) from None
        sink = RecordingSink(candidate, header, durable=False)  # renamed in once whole
        try:
            for call in recording.calls:
                copy_call(sink, call.request_payload(), call)
        finally:
            sink.close()
        after = candidate.stat().st_size
        kept: Path | None = None
        if not check:
            if location.managed:
                produced_by = {"by": "migrate", "from_format_version": MIGRATES_FROM}
                kept = write_version(path, location.recording_id, candidate, [], produced_by)
            else:
                if backup:
                    _copy_exclusive(path, backup_path)
                    kept = backup_path
                os.chmod(candidate, stat.S_IMODE(path.stat().st_mode))
                os.replace(candidate, path)
        return MigrationReport(
            **report,
            changed=True,
            written=not check,
            calls=len(recording.calls),
            size_after=after,
            kept=str(kept) if kept is not None else None,
        )
    finally:
        for temporary in (as_read, candidate):
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
        if lock is not None:
            lock.release()


def _current_header_copy(source: Path, target: Path) -> dict[str, Any]:
    """Copy `source` to `target` (0600) with its header saying the current version, so the strict
    reader reads its rows (a version-1 row is a full format-2 row without times); returns the
    header's metadata."""
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with open(source, "rb") as rows, os.fdopen(fd, "wb") as out:
        header = json.loads(rows.readline())
        metadata = {k: v for k, v in header.items() if k not in ("type", "format_version")}
        out.write(encode_row({**header, "format_version": RECORDING_FORMAT_VERSION}))
        shutil.copyfileobj(rows, out)
    return metadata


def _copy_exclusive(source: Path, target: Path) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with open(source, "rb") as rows, os.fdopen(fd, "wb") as out:
        shutil.copyfileobj(rows, out)
        out.flush()
        os.fsync(out.fileno())
