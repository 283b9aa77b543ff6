"""A line index of a recording file: byte offsets, row kinds and the calls, built without parsing.

Rows are compact JSON with sorted keys, so the library's `classify_row_tail` reads a row's type from
its last bytes; only rows it cannot classify are decoded, as plain JSON (`line_preview`: indexing
needs no row models, and judges no row: the strict reader's verdict does). The index is filled by
one thread while the UI reads the parts already published (`published_calls`); arrays
only ever grow, so a reader never sees a torn entry.

A file still being written is followed with `extend`: the bytes appended since are indexed from
the last complete line on. While following, a last line without its newline is `pending` (the
writer is half-way through it), not a truncated row.

Keys before background work (`KeyPriority`): Python runs one thread at a time. A thread indexing a
large file holds the interpreter for slices of 5 ms, and the UI thread waits for one at every step
of a key's journey (read from the terminal, handled, drawn, written out): dozens of waits, a
quarter of a second behind each key. So the indexers ask for their turn between batches of lines
(`wait_turn`), and every key arriving holds them back for `HOLD_SECONDS` (what a key's work and its
frame take), counted from the last key: while keys come, they alone run; when they stop, indexing
goes on where it was.

Two recordings indexed side by side (`IndexPair`), each by its own thread, are what the diff view
reads first: the line index only (no row models, no rules), so the diff screen can list the calls
both files have while the comparison's modules (`tui.model.diff`) are still being imported.
"""

from __future__ import annotations

import bisect
import heapq
import math
import mmap
import os
import threading
import time
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from openprogram.providers.recording.errors import open_for_reading
from openprogram.providers.recording.row_encoding import ROW_TYPES, classify_row_tail
from openprogram.recordings import FileStamp
from tui.model.line_preview import int_field, peek_row

KIND_HEADER, KIND_REQUEST, KIND_EVENT, KIND_CALL_END = 0, 1, 2, 3
KIND_BLANK, KIND_BAD, KIND_TRUNCATED = 4, 5, 6
_KIND_OF_TYPE = {
    "header": KIND_HEADER,
    "request": KIND_REQUEST,
    "event": KIND_EVENT,
    "call_end": KIND_CALL_END,
}
TAIL_BYTES = max(len(f'"type":"{kind}"}}') for kind in ROW_TYPES)
"""The longest row-type suffix (`"type":"call_end"}`): enough for `classify_row_tail`, and short
enough that the tails of a file take few distinct values, so their classification is memoised."""
MEMO_LIMIT = 4096
RELEASE_BYTES = 16 << 20
"""Scanned pages are handed back to the page cache in windows of this size (keeps RSS flat)."""

ProgressCallback = Callable[["RecordingIndex"], None]

HOLD_SECONDS = 0.15
"""How long background work waits after a key (its handling and the frame drawn after it)."""


class KeyPriority:
    """Where keys tell background threads to wait (`key_arrived`) and threads wait (`wait_turn`)."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._clock, self._sleep = clock, sleep
        self._until = 0.0

    def key_arrived(self, hold: float = HOLD_SECONDS) -> None:
        """A key is being handled: background work waits for `hold` seconds from now."""
        self._until = self._clock() + hold

    def wait_turn(self) -> None:
        """Called by background threads between batches: return once no key is being handled."""
        while (left := self._until - self._clock()) > 0:
            self._sleep(left)  # a key that arrives meanwhile moves the end further on


KEYS = KeyPriority()
"""The one instance: the app reports keys to it, indexers wait on it."""


class Throttle:
    """At most one report per interval, for a worker that finds results faster than a screen
    redraws: `due()` is True at most once per `interval` seconds, counted from creation (or from
    `restart`); `first_due`: the first call is due at once (a progress bar shown from the start)."""

    def __init__(self, interval: float, *, first_due: bool = False) -> None:
        self.interval = interval
        self._since = -math.inf if first_due else time.monotonic()

    def due(self) -> bool:
        """True when `interval` has passed since the last report (which this one then is)."""
        if time.monotonic() - self._since < self.interval:
            return False
        self.restart()
        return True

    def restart(self) -> None:
        """A report was made now: the next is due one interval later."""
        self._since = time.monotonic()


@dataclass(eq=False)
class CallSpan:
    """Where one call's rows are: its request line, event lines and `call_end` line (0-based)."""

    ordinal: int
    """Position among the file's requests; equals `call_index` in any valid file."""
    request_line: int
    event_lines: array[int] = field(default_factory=lambda: array("L"))
    end_line: int | None = None
    stray_lines: list[int] = field(default_factory=list)
    """Rows that could not be read while this call was the open one."""

    @property
    def event_count(self) -> int:
        """Event rows found for this call."""
        return len(self.event_lines)

    @property
    def finished(self) -> bool:
        """True when the call has its `call_end` row."""
        return self.end_line is not None

    def line_numbers(self) -> list[int]:
        """Every line of this call in file order (request, events, damaged rows, `call_end`)."""
        return list(self.iter_lines())

    def iter_lines(self) -> Iterator[int]:
        """The lines of `line_numbers`, one at a time (a call may have a million events)."""
        end = [] if self.end_line is None else [self.end_line]
        return heapq.merge([self.request_line], self.event_lines, sorted(self.stray_lines), end)

    @property
    def line_total(self) -> int:
        """How many lines `line_numbers` has."""
        return 1 + len(self.event_lines) + len(self.stray_lines) + (self.end_line is not None)

    def holds(self, line: int) -> bool:
        """True when `line` (0-based) is one of this call's lines (event lines are in file order)."""
        if line == self.request_line or line == self.end_line or line in self.stray_lines:
            return True
        at = bisect.bisect_left(self.event_lines, line)
        return at < len(self.event_lines) and self.event_lines[at] == line


class RecordingIndex:
    """Byte offsets and kinds of every line of one recording file, and the calls they form.

    Open it with `RecordingIndex.open(path)` (raises `RecordingFileError` for a missing or
    non-regular file), then `build()` it, usually in a thread; `line(n)` returns one stored line.
    """

    keys: KeyPriority = KEYS
    """Where the scan waits for its turn while a key is handled (every 64 lines)."""

    def __init__(self, path: Path, fd: int, stamp: FileStamp) -> None:
        self.path = path
        self.stamp = stamp
        """The file as it was when opened (its inode says whether the name now holds another)."""
        size = stamp.size
        self.size = size
        """Bytes of the file mapped so far (grows with `extend`)."""
        self._fd = fd
        self._map: mmap.mmap | None = mmap.mmap(fd, size, prot=mmap.PROT_READ) if size > 0 else None
        self.line_starts: array[int] = array("Q")
        self.kinds = bytearray()
        self.calls: list[CallSpan] = []
        self.stray_lines: list[int] = []
        """Rows outside any open call, or damaged before the first request."""
        self.format_version: int | None = None
        """The header's `format_version`, when line 1 is a header that has one."""
        self.bytes_indexed = 0
        self.published_calls = 0
        """Calls a reader may look at: whole spans, or the one still being filled at the end."""
        self.complete = False
        """True once every byte mapped so far is indexed (a pending last line aside)."""
        self.growing = False
        """True while the file is followed: its last calls may still gain rows (in progress)."""
        self.pending_bytes = 0
        """Bytes after the last newline left for later (a line the writer has not finished)."""
        self.truncated_tail = False
        """True when a last line without newline was indexed as a truncated row."""
        self._scanned_to = 0
        self._readable: int | None = None
        """Set when the file was cut short: no byte past it is read (it would raise SIGBUS)."""
        self.interleaved = False
        """True when two calls were open at once (their rows were parsed to tell them apart)."""
        self._open_calls: dict[int, CallSpan] = {}
        self._open_call: CallSpan | None = None
        self._lock = threading.Lock()
        self._building = False
        self._closing = False

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> RecordingIndex:
        """Open `path` read-only for indexing; refuses missing and non-regular files."""
        fd, info = open_for_reading(path)
        return cls(Path(path), fd, FileStamp.of(info))

    def close(self) -> None:
        """Release the file; while `build` runs in another thread it stops and releases it itself."""
        with self._lock:
            self._closing = True
            if self._building:
                return
            self._release_file()

    def _release_file(self) -> None:
        if self._map is not None:
            self._map.close()
            self._map = None
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    @property
    def line_count(self) -> int:
        """Lines indexed so far."""
        return len(self.line_starts)

    @property
    def foreign(self) -> bool:
        """Indexed whole, it has lines but no header on line 1 and no call: another tool's file
        (or one damaged from its first byte), whose lines can only be shown as they are stored."""
        return (
            self.complete and bool(self.kinds) and self.kinds[0] != KIND_HEADER and not self.calls
        )

    def line(self, number: int) -> bytes:
        """The stored bytes of line `number` (0-based), without its newline."""
        if self._map is None:
            return b""
        start = self.line_starts[number]
        end = self.line_starts[number + 1] - 1 if number + 1 < len(self.line_starts) else None
        readable = self._readable
        if readable is not None:
            if start >= readable:
                return b""
            end = min(end if end is not None else readable, readable)
        if end is None:
            end = self._map.find(b"\n", start)
            end = self.size if end < 0 else end
        return self._map[start:end]

    def cut_short(self, size: int) -> None:
        """The file now has only `size` bytes: read nothing past them any more (the mapped pages
        past the end of a file cannot be read: the process would get SIGBUS)."""
        self._readable = size if self._readable is None else min(size, self._readable)

    def settled(self, span: CallSpan) -> bool:
        """True when no row can be added to `span` any more (it ended, or the file is whole)."""
        return span.finished or (self.complete and not self.growing)

    def call_bytes(self, ordinal: int) -> bytes:
        """A call's request and `call_end` lines as stored (what finding calls searches)."""
        span = self.calls[ordinal]
        end = self.line(span.end_line) if span.end_line is not None else b""
        return self.line(span.request_line) + b"\n" + end

    def build(
        self, progress: ProgressCallback | None = None, interval: float = 0.1, follow: bool = False
    ) -> None:
        """Index the whole file; `progress` is called soon after the first call and then periodically.

        With `follow`, a last line without newline is left pending for `extend`, not indexed."""
        self._run_scan(0, progress, interval, follow)

    def extend(self, progress: ProgressCallback | None = None, interval: float = 0.1) -> int:
        """Index what was appended since the last scan (the file is followed); returns new lines."""
        with self._lock:
            if self._closing or self._fd < 0 or self.truncated_tail:
                return 0
            size = os.fstat(self._fd).st_size
            if size <= self.size:
                return 0
            # The old map is not closed: the UI thread may be reading a line from it right now;
            # it is released when the last reference goes.
            self._map = mmap.mmap(self._fd, size, prot=mmap.PROT_READ)
            self.size = size
        before = self.line_count
        self._run_scan(self._scanned_to, progress, interval, True)
        return self.line_count - before

    def _run_scan(
        self, start: int, progress: ProgressCallback | None, interval: float, follow: bool
    ) -> None:
        with self._lock:
            if self._closing or self._map is None:
                mm = None
            else:
                mm, self._building = self._map, True
        try:
            if mm is not None:
                self._scan(mm, start, progress, interval, follow)
        finally:
            with self._lock:
                self._building = False
                if self._closing:
                    self._release_file()
        if self._closing:
            return
        self.published_calls = len(self.calls)
        self.bytes_indexed = self.size - self.pending_bytes
        self.complete = True
        if progress is not None:
            progress(self)

    def _scan(
        self,
        mm: mmap.mmap,
        start: int,
        progress: ProgressCallback | None,
        interval: float,
        follow: bool,
    ) -> None:
        find, size = mm.find, self.size
        can_release = hasattr(mmap, "MADV_DONTNEED")
        released = start - start % mmap.PAGESIZE
        reported_at = 0.0
        pos = start
        tail_kinds: dict[bytes, int] = {}
        wait_turn = self.keys.wait_turn
        while pos < size and not self._closing:
            if self._readable is not None:  # cut short meanwhile: stop before the lost bytes
                size = min(size, self._readable)
                if pos >= size:
                    break
            end = find(b"\n", pos, size)
            if end < 0:
                if follow:
                    break  # the writer is half-way through this line: wait for the rest
                end, kind = size, KIND_TRUNCATED
                self.truncated_tail = True
            else:
                tail = mm[end - TAIL_BYTES if end - pos > TAIL_BYTES else pos : end]
                kind = tail_kinds.get(tail, -1)
                if kind < 0:
                    kind = self._kind(mm, pos, end, tail, tail_kinds)
            self._place(mm, pos, end, kind)
            pos = end + 1
            if can_release and pos - released >= RELEASE_BYTES:
                released = self._release(mm, released, pos)
            if len(self.kinds) & 63 == 0:
                wait_turn()  # a key is being handled: it goes first
            if progress is not None and self.calls and len(self.kinds) & 63 == 0:
                now = time.monotonic()
                if now - reported_at >= interval or not self.published_calls:
                    self.published_calls = len(self.calls)
                    self.bytes_indexed = pos
                    reported_at = now
                    progress(self)
        self._scanned_to = min(pos, size)
        self.pending_bytes = size - self._scanned_to
        if can_release:
            self._release(mm, released, size)

    @staticmethod
    def _kind(mm: mmap.mmap, start: int, end: int, tail: bytes, memo: dict[bytes, int]) -> int:
        kind = _KIND_OF_TYPE.get(classify_row_tail(tail) or "", -1)
        if kind >= 0:
            if len(memo) < MEMO_LIMIT:
                memo[tail] = kind
            return kind
        line = mm[start:end]
        return KIND_BLANK if not line.strip() else RecordingIndex._classify_slow(line)

    def _place(self, mm: mmap.mmap, start: int, end: int, kind: int) -> None:
        """Record line `len(self.kinds)` and attach it to the call it belongs to."""
        number = len(self.kinds)
        self.line_starts.append(start)
        self.kinds.append(kind)
        if kind == KIND_REQUEST:
            span = CallSpan(len(self.calls), number)
            if self._open_calls:
                self.interleaved = True
            self.calls.append(span)
            self._open_calls[span.ordinal] = span
            self._open_call = span
        elif kind in (KIND_EVENT, KIND_CALL_END):
            open_calls = self._open_calls
            owner = (
                self._open_call if len(open_calls) <= 1 else self._owner(mm, start, end, open_calls)
            )
            if owner is None:
                self.stray_lines.append(number)
            elif kind == KIND_EVENT:
                owner.event_lines.append(number)
            else:
                owner.end_line = number
                open_calls.pop(owner.ordinal, None)
                self._open_call = next(reversed(open_calls.values()), None)
        elif kind == KIND_HEADER and number == 0:
            header = peek_row(mm[start:end])
            self.format_version = int_field(header, "format_version") if header else None
        elif kind != KIND_BLANK:
            target = self._open_call if len(self._open_calls) == 1 else None
            (target.stray_lines if target else self.stray_lines).append(number)

    @staticmethod
    def _classify_slow(line: bytes) -> int:
        row = peek_row(line)
        return KIND_BAD if row is None else _KIND_OF_TYPE[row["type"]]

    def _owner(
        self, mm: mmap.mmap, start: int, end: int, open_calls: dict[int, CallSpan]
    ) -> CallSpan | None:
        """With several calls open, only the row itself says which call it belongs to."""
        row = peek_row(mm[start:end])
        call_index = int_field(row, "call_index") if row is not None else None
        return open_calls.get(call_index) if call_index is not None else None

    @staticmethod
    def _release(mm: mmap.mmap, start: int, end: int) -> int:
        """Drop scanned pages from this process (they stay in the page cache); returns the new start."""
        page_start = start - start % mmap.PAGESIZE
        page_end = end - end % mmap.PAGESIZE
        if page_end > page_start:
            mm.madvise(mmap.MADV_DONTNEED, page_start, page_end - page_start)
        return page_end


Side = Literal["a", "b"]
FIRST_ROWS_INTERVAL = 0.02
"""How often (seconds) an index tells its progress: the first rows wait for it."""
FIRST_SCREEN_CALLS = 100
"""Calls an index finds before it waits for `resume`, unless told otherwise: a screenful."""


class IndexPair:
    """The line indexes of recordings `a` and `b` (raises `RecordingFileError` for a file that
    cannot be opened); `start` builds both in threads."""

    def __init__(self, a: Path, b: Path) -> None:
        first = RecordingIndex.open(a)
        try:
            second = RecordingIndex.open(b)
        except BaseException:
            first.close()
            raise
        self.indexes: dict[Side, RecordingIndex] = {"a": first, "b": second}
        self._changed = threading.Condition()
        self._resumed = threading.Event()
        self._threads: list[threading.Thread] = []
        self._errors: list[BaseException] = []
        self._ended = 0

    def start(
        self, progress: Callable[[], None] | None = None, first_screen: int = FIRST_SCREEN_CALLS
    ) -> None:
        """Index both files, one thread each; `progress()` is called (from those threads) as calls
        are found. Each waits after `first_screen` calls until `resume()`: the first screen is
        drawn and the first call compared without two threads reading big files beside them.
        A second call does nothing."""
        if self._threads:
            return

        def build(index: RecordingIndex) -> None:
            def told(told_by: RecordingIndex) -> None:
                self._notify()
                if progress is not None:
                    progress()
                if told_by.published_calls >= first_screen:
                    self._resumed.wait()

            try:
                index.build(told, FIRST_ROWS_INTERVAL)
            except BaseException as exc:
                self._errors.append(exc)
            finally:
                self._ended += 1
                self._notify()
                if progress is not None:
                    progress()

        self._threads = [
            threading.Thread(target=build, args=(index,), daemon=True)
            for index in self.indexes.values()
        ]
        for thread in self._threads:
            thread.start()

    def resume(self) -> None:
        """Let both indexes go on past their first screen of calls."""
        self._resumed.set()

    def _notify(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def published(self, side: Side) -> int:
        """Calls of one side a reader may look at by now."""
        index = self.indexes[side]
        return len(index.calls) if index.complete else index.published_calls

    @property
    def common_calls(self) -> int:
        """Calls both sides have by now (the rows that can be compared by index)."""
        return min(self.published("a"), self.published("b"))

    @property
    def indexed(self) -> bool:
        """True once both threads have ended (`join` then says whether they failed)."""
        return bool(self._threads) and not any(thread.is_alive() for thread in self._threads)

    @property
    def ended(self) -> bool:
        """True once a thread has ended (its file indexed, or failed)."""
        return self._ended > 0

    def wait(self, timeout: float) -> None:
        """Until an index tells progress or ends, at most `timeout` seconds."""
        with self._changed:
            self._changed.wait(timeout)

    def join(self) -> None:
        """Wait for both threads; raise what stopped one of them."""
        for thread in self._threads:
            thread.join()
        if self._errors:
            raise self._errors[0]

    def failure(self) -> BaseException | None:
        """What stopped an index thread so far, if anything."""
        return self._errors[0] if self._errors else None

    def truncation_warnings(self) -> list[str]:
        """One line per file whose last line has no newline (`recordings diff` refuses those; the
        view compares what is there): `⚠ B b.jsonl: line 7: last line is truncated, …`."""
        from openprogram.providers.recording.errors import TRUNCATED_LAST_LINE_REASON
        from openprogram.visible_text import visible_line

        return [
            f"⚠ {side.upper()} {visible_line(index.path.name)}: line {index.line_count}: "
            f"{TRUNCATED_LAST_LINE_REASON}, compared without it"
            for side, index in self.indexes.items()
            if index.truncated_tail
        ]

    def close(self) -> None:
        """Release both files (builds still running stop)."""
        self._resumed.set()
        for index in self.indexes.values():
            index.close()
