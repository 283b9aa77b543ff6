"""What `list` learnt from strict scans, kept in `<state>/cache/recording-summaries.json`.

An entry holds the scan-derived facts of one file's summary (totals, validity, first problem) and is
trusted only while the file's `FileStamp` (device, inode, size, mtime and ctime of its `lstat`) is
exactly the one seen when it was scanned. A file changed within `RACY_WINDOW_NS` before the listing
began is never stored: timestamps are coarse, so it could change again without changing its stamp.

The cache is a cache: a missing, corrupt, foreign-version, unsafe or unwritable file only means
files are scanned again. Nothing here raises for it, prints, or follows a symlink (a symlinked
state directory, cache directory or cache file disables the cache). Only `list_recordings` uses it;
replay, `show`, `check` and the TUI's recording view always read the file itself.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from openprogram import __version__
from openprogram.providers.recording.config import atomic_write_text, ensure_private_dir, state_dir
from openprogram.providers.recording.row_encoding import RECORDING_FORMAT_VERSION
from openprogram.providers.recording.scan_facts import ScanFacts
from openprogram.recordings.file_stamp import FileStamp

CACHE_SCHEMA_VERSION = 3
"""Bump when the shape of the cache document or the meaning of its facts changes (3: `calls`
and `events` count what was found, whole or not)."""
CACHE_FILE_NAME = "recording-summaries.json"
RACY_WINDOW_NS = 2_000_000_000
"""A file whose mtime or ctime is this close to (or after) the listing's start is not cached."""
MAX_CACHE_BYTES = 16 * 1024 * 1024
"""A larger cache file is not read (about 300 bytes per recording are expected)."""

_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class _CachedScan(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    stamp: FileStamp
    facts: ScanFacts


class _CacheDocument(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    schema_version: int
    recording_format_version: int
    openprogram_version: str
    entries: dict[str, _CachedScan]


class _OnDisk(NamedTuple):
    usable: bool
    """False when the cache must be neither read nor written (symlinked, not ours)."""
    rewrite: bool
    """True when the file is there but not trusted: replace it even if no entry changed."""
    document: _CacheDocument | None


_DISABLED = _OnDisk(usable=False, rewrite=False, document=None)
_ABSENT = _OnDisk(usable=True, rewrite=False, document=None)
_UNTRUSTED = _OnDisk(usable=True, rewrite=True, document=None)


def cache_path() -> Path:
    """Where the cache lives: `<state>/cache/recording-summaries.json`."""
    return state_dir() / "cache" / CACHE_FILE_NAME


class SummaryCache:
    """The cached scans one listing may reuse, and the ones it keeps for the next listing.

    `load()` reads the cache once; `lookup` and `store` are called per file; `save()` writes what
    this listing saw (dropping files it did not see) if that differs from what was loaded.
    """

    def __init__(
        self, loaded: dict[str, _CachedScan], *, usable: bool, rewrite: bool, started_ns: int
    ) -> None:
        self._loaded = loaded
        self._kept: dict[str, _CachedScan] = {}
        self._usable = usable
        self._rewrite = rewrite
        self._started_ns = started_ns

    @classmethod
    def load(cls) -> SummaryCache:
        """The cache as it is on disk now (empty when absent or not trusted); never raises."""
        started_ns = time.time_ns()
        try:
            found = _read_document()
        except OSError:
            found = _DISABLED
        entries = dict(found.document.entries) if found.document is not None else {}
        return cls(entries, usable=found.usable, rewrite=found.rewrite, started_ns=started_ns)

    def lookup(self, path: Path, info: os.stat_result) -> ScanFacts | None:
        """The cached facts of the file at `path`, if its `lstat` is exactly as when scanned."""
        key = os.path.abspath(path)
        entry = self._loaded.get(key)
        if not self._usable or entry is None or entry.stamp != FileStamp.of(info):
            return None
        self._kept[key] = entry
        return entry.facts

    def store(self, path: Path, info: os.stat_result, facts: ScanFacts) -> None:
        """Keep the facts of a fresh scan of `path`, unless the file changed too recently."""
        key = os.path.abspath(path)
        latest_change = max(info.st_mtime_ns, info.st_ctime_ns)
        if self._usable and latest_change <= self._started_ns - RACY_WINDOW_NS and _is_text(key):
            self._kept[key] = _CachedScan(stamp=FileStamp.of(info), facts=facts)

    def save(self) -> None:
        """Write the kept entries atomically when they changed; a failure only means no cache."""
        if not self._usable or (self._kept == self._loaded and not self._rewrite):
            return
        document = _CacheDocument(
            schema_version=CACHE_SCHEMA_VERSION,
            recording_format_version=RECORDING_FORMAT_VERSION,
            openprogram_version=__version__,
            entries=self._kept,
        )
        with contextlib.suppress(OSError, ValueError):
            _write_document(document.model_dump_json())


def _is_text(key: str) -> bool:
    """False for a path that is not valid UTF-8 (JSON could not give it back unchanged)."""
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _read_document() -> _OnDisk:
    """What the cache file holds and whether it may be used; raises `OSError` for a state or
    cache directory that cannot be opened safely (a symlink, not a directory, unreadable)."""
    try:
        state_fd = os.open(state_dir(), _DIRECTORY_FLAGS)
    except FileNotFoundError:
        return _ABSENT
    try:
        directory_fd = os.open("cache", _DIRECTORY_FLAGS, dir_fd=state_fd)
    except FileNotFoundError:
        return _ABSENT
    finally:
        os.close(state_fd)
    try:
        directory = os.fstat(directory_fd)
        if directory.st_uid != os.getuid():
            return _DISABLED
        # O_NONBLOCK: a FIFO planted under the cache's name must not hang the listing.
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(CACHE_FILE_NAME, flags, dir_fd=directory_fd)
        except FileNotFoundError:
            return _ABSENT
        except OSError as exc:
            # A symlinked cache file is neither read nor replaced; anything else is rewritten.
            return _DISABLED if exc.errno == errno.ELOOP else _UNTRUSTED
    finally:
        os.close(directory_fd)
    try:
        document = _trusted_document(fd, private_directory=not directory.st_mode & 0o077)
    finally:
        os.close(fd)
    return (
        _UNTRUSTED if document is None else _OnDisk(usable=True, rewrite=False, document=document)
    )


def _trusted_document(fd: int, *, private_directory: bool) -> _CacheDocument | None:
    """The document in the open cache file, or None when it is unsafe, corrupt or of another
    version (schema, recording format or openprogram release)."""
    info = os.fstat(fd)
    if (
        not private_directory
        or not stat.S_ISREG(info.st_mode)
        or info.st_uid != os.getuid()
        or info.st_mode & 0o077
        or info.st_size > MAX_CACHE_BYTES
    ):
        return None
    try:
        document = _CacheDocument.model_validate_json(_read_all(fd))
    except (OSError, ValueError):
        return None
    current = (CACHE_SCHEMA_VERSION, RECORDING_FORMAT_VERSION, __version__)
    found = (
        document.schema_version,
        document.recording_format_version,
        document.openprogram_version,
    )
    return document if found == current else None


def _read_all(fd: int) -> bytes:
    """Every byte of the open file, up to `MAX_CACHE_BYTES` (more is cut off, hence invalid)."""
    chunks = []
    remaining = MAX_CACHE_BYTES
    while remaining > 0 and (chunk := os.read(fd, remaining)):
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _write_document(text: str) -> None:
    """Replace the cache file atomically in the 0700 cache directory (config.py's private writes).

    A symlinked state or cache directory is refused there; a symlinked cache file was found by
    `_read_document` and disables saving, so it is never replaced.
    """
    directory = ensure_private_dir(state_dir() / "cache")
    atomic_write_text(directory / CACHE_FILE_NAME, text)
