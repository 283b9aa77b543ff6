"""Appending rows to a recording file safely from many threads and processes.

Every write holds a thread lock and an exclusive `flock`, writes whole lines, and never truncates.
The next `call_index` is kept in memory and re-checked under the lock by file size: when another
writer appended, only the bytes it added are read, so the cost of a call never grows with the file.
Each `call_end` is written and `fsync`ed before the call's terminal event reaches the caller
(docs/design-decisions.md says why inline).
"""

from __future__ import annotations

import enum
import errno
import fcntl
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openprogram.errors import OpenProgramError
from openprogram.providers.recording.errors import SYMLINK, RecordingFileError
from openprogram.providers.recording.file_policy import judge
from openprogram.providers.recording.request_references import referring_row
from openprogram.providers.recording.row_encoding import (
    RECORDING_FORMAT_VERSION,
    classify_row_tail,
    encode_row,
    migrate_command,
)
from openprogram.providers.recording.row_models import CallOutcome
from openprogram.providers.recording.store import locate_recording

FLUSH_BYTES = 64 * 1024
FLUSH_SECONDS = 0.1
"""Event rows of a call are buffered and appended together at most this long after the first."""


class RecordingWriteError(OpenProgramError, OSError):
    """Rows could not be appended (disk full, I/O error); the provider call is stopped."""

    def __init__(self, path: Path, cause: OSError) -> None:
        super().__init__(
            cause.errno,
            f"cannot write to recording {path}: {cause.strerror or cause}; "
            "the provider call was stopped so that nothing runs unrecorded",
        )
        self.path = path
        self.cause = cause


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def open_recording_for_append(path: Path) -> int:
    """Open (creating 0600) a recording for appending; never follows a symlink or truncates.

    The file opened is judged by the one file policy (`file_policy.judge`, on its `fstat`): a
    regular file, and 0600 when it is a managed recording (one given by path keeps its mode)."""
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        reason = SYMLINK if exc.errno == errno.ELOOP else exc.strerror
        raise RecordingFileError(path, None, None, f"cannot open for recording: {reason}") from None
    state = judge(locate_recording(os.path.abspath(path)), os.fstat(fd))
    if state.reason is not None:
        os.close(fd)
        raise RecordingFileError(path, None, None, f"cannot record into it: {state.reason}")
    return fd


class Now(enum.Enum):
    """`NOW`: a time field takes the moment the writer is called (the default)."""

    NOW = "now"


NOW = Now.NOW
TimeField = int | None | Now
"""A time to store: `NOW`, milliseconds already known (a copied call), or None (not recorded)."""


class _PendingRows:
    """The event rows of one call not yet appended, their size, when the first was added, and
    when the call began (monotonic seconds)."""

    __slots__ = ("rows", "since", "size", "started")

    def __init__(self, started: float) -> None:
        self.rows: list[bytes] = []
        self.size = 0
        self.since = started
        self.started = started


def _elapsed_ms(since: float, now: float) -> int:
    return max(0, round((now - since) * 1000))


class RecordingSink:
    """Appends header, request, event and call_end rows to one recording file.

    Thread-safe and process-safe. A crash leaves at most the unfinished calls, which the strict
    reader names. Every `call_end` is followed by an `fsync` before `end_call` returns, so no
    finished call is lost to a crash of the process or of the machine (a rewrite, whose file is
    renamed into place once whole, passes `durable=False`: one `fsync` when it is closed).

    Constructing one creates the file's folder (0700) and the file with its header (0600), or
    appends to the recording already there, so a path that cannot be recorded into fails here
    with a `RecordingFileError`, not at the first call.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        header: dict[str, Any] | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        durable: bool = True,
    ) -> None:
        self.path = Path(path)
        self._durable = durable
        """True: `fsync` after every `call_end`; False (a rewrite into a file renamed into place
        once whole): one `fsync` when closed."""
        self._clock = clock
        """Seconds, monotonic: the times stored (a fixed clock makes a demo file reproducible)."""
        self._header = {**(header or {}), "format_version": RECORDING_FORMAT_VERSION}
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._known_size = 0
        self._next_call = 0
        self._torn_tail = False
        self._pending: dict[int, _PendingRows] = {}
        self._opened = clock()
        """The session's start: request times are milliseconds after it."""
        self._previous: tuple[int, dict[str, Any]] | None = None
        """The last request this writer stored in this file (its index and stored form): the
        next request refers to it (docs/recording-format.md#references)."""
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            reason = f"cannot create its folder {self.path.parent}: {exc.strerror or exc}"
            raise RecordingFileError(self.path, None, None, reason) from None
        try:
            self.ensure_header()
        except BaseException:
            self.close()
            raise

    # -- file access, always under self._lock --

    def _open(self) -> int:
        if self._fd is None:
            self._fd = open_recording_for_append(self.path)
        return self._fd

    def _catch_up(self, fd: int) -> None:
        """Account for rows other writers appended since our last write (only those bytes)."""
        size = os.fstat(fd).st_size
        if size == self._known_size:
            return
        if size < self._known_size:  # replaced underneath us: start over
            self._known_size = self._next_call = 0
            self._previous = None
        added = os.pread(fd, size - self._known_size, self._known_size)
        if self._known_size == 0:
            self._check_header(added.split(b"\n", 1)[0])
        # A crashed writer may have left half a line; start ours on a fresh line.
        self._torn_tail = not added.endswith(b"\n")
        for line in added.split(b"\n"):
            kind = classify_row_tail(line)
            if kind is None and b'"request"' in line:
                try:
                    kind = json.loads(line).get("type")
                except (ValueError, AttributeError):
                    kind = None
            if kind == "request":
                self._next_call += 1
        self._known_size = size

    def _check_header(self, line: bytes) -> None:
        try:
            version = json.loads(line).get("format_version")
        except (ValueError, AttributeError):
            version = None
        if version != RECORDING_FORMAT_VERSION:
            raise RecordingFileError(
                self.path,
                1,
                None,
                f"cannot append to a recording with format_version {version!r} "
                f"(this openprogram writes {RECORDING_FORMAT_VERSION})"
                + (f"; run: {migrate_command(self.path)}" if version == 1 else ""),
            )

    def _append(self, rows: Callable[[], bytes], *, sync: bool = False) -> None:
        """Append whole lines under both locks; `rows` is built after catching up with others."""
        fd = self._open()
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            self._catch_up(fd)
            data = rows()
            if self._known_size == 0:
                data = encode_row({**self._header, "type": "header"}) + data
            elif self._torn_tail:
                data, self._torn_tail = b"\n" + data, False
            try:
                _write_all(fd, data)
                if sync:
                    os.fsync(fd)
            except OSError as exc:
                # Part of `data` may be on disk: forget what we knew and rescan on the next append.
                self._known_size = self._next_call = 0
                self._previous = None
                raise RecordingWriteError(self.path, exc) from exc
            self._known_size += len(data)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    # -- the rows --

    def ensure_header(self) -> None:
        """Write the header if the file has none yet (the constructor does; again is a no-op)."""
        with self._lock:
            self._append(lambda: b"", sync=True)

    def begin_call(self, request: dict[str, Any], *, start_ms: TimeField = NOW) -> int:
        """Append a request row for the next call and return its `call_index`.

        `request` is the stored (redacted) `{"model", "context", "options"}`; the row refers to the
        last request this writer stored where they agree. Raises `NonFiniteNumberError` (nothing
        written) for a NaN or infinite number."""
        with self._lock:
            call_index = -1
            now = self._clock()
            if start_ms is NOW:
                start_ms = _elapsed_ms(self._opened, now)

            def request_row() -> bytes:
                nonlocal call_index
                index = self._next_call
                base_index, base = self._previous or (None, None)
                row = referring_row(request, base_index, base)
                row.update(call_index=index, type="request")
                if start_ms is not None:
                    row["start_ms"] = start_ms
                data = encode_row(row)
                call_index, self._next_call = index, index + 1
                return data

            self._append(request_row)
            self._previous = (call_index, request)
            self._pending[call_index] = _PendingRows(now)
            return call_index

    def write_event(
        self, call_index: int, event_index: int, event: dict[str, Any], *, ms: TimeField = NOW
    ) -> None:
        """Add one event row; rows are appended in batches (by size or age) and at `end_call`.

        `ms` defaults to now after the call's start (the one clock read per event)."""
        now = self._clock()
        pending = self._pending[call_index]  # set by begin_call; `started` never changes
        row: dict[str, Any] = {
            "call_index": call_index,
            "event": event,
            "event_index": event_index,
            "type": "event",
        }
        if ms is NOW:
            ms = _elapsed_ms(pending.started, now)
        if ms is not None:
            row["ms"] = ms
        encoded = encode_row(row)
        with self._lock:
            if not pending.rows:
                pending.since = now
            pending.rows.append(encoded)
            pending.size += len(encoded)
            if pending.size >= FLUSH_BYTES or now - pending.since >= FLUSH_SECONDS:
                self._flush(call_index)

    def _flush(self, call_index: int, tail: bytes = b"", *, sync: bool = False) -> None:
        pending = self._pending[call_index]
        data = b"".join(pending.rows) + tail
        pending.rows, pending.size = [], 0
        if data:
            self._append(lambda: data, sync=sync)

    def end_call(
        self,
        call_index: int,
        event_count: int,
        outcome: CallOutcome,
        error: str | None = None,
        *,
        duration_ms: TimeField = NOW,
    ) -> None:
        """Append the call's remaining events and its `call_end` row, and `fsync` the file.

        A failed write or `fsync` raises `RecordingWriteError` naming the file.
        """
        row: dict[str, Any] = {
            "call_index": call_index,
            "event_count": event_count,
            "outcome": outcome,
            "type": "call_end",
        }
        if error is not None:
            row["error"] = error
        with self._lock:
            if duration_ms is NOW:
                duration_ms = _elapsed_ms(self._pending[call_index].started, self._clock())
            if duration_ms is not None:
                row["duration_ms"] = duration_ms
            self._flush(call_index, encode_row(row), sync=self._durable)
            del self._pending[call_index]

    def close(self) -> None:
        """Close the file descriptor (rows of calls still open are appended first)."""
        with self._lock:
            try:
                for call_index in list(self._pending):
                    self._flush(call_index)
                if not self._durable and self._fd is not None:
                    try:
                        os.fsync(self._fd)
                    except OSError as exc:
                        raise RecordingWriteError(self.path, exc) from exc
            finally:
                if self._fd is not None:
                    os.close(self._fd)
                    self._fd = None
