"""The TUI's one call reader: a call's request and `call_end` rows, read with the library's strict
row parser, and its full request rebuilt through the library's `RequestChain`.

One `CallReader` per index (`reader_of`) remembers, within bounds, the last request rows it
parsed and the full requests it built (the last few and the chain's checkpoints), so a user
walking a long session reads each request row a bounded number of times: the list, the call
detail, the numbers and the diff all read through it. A row it let go is read again from the
index (`RecordingIndex.line`).
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from pydantic import ValidationError

from openprogram.providers.recording.request_references import (
    RequestChain,
    RequestReferenceError,
)
from openprogram.providers.recording.row_models import CallEndRow, RequestRow, parse_row
from openprogram.recently_used import RecentlyUsed
from tui.model.line_preview import preview_line
from tui.model.recording_index import CallSpan, RecordingIndex

STORED_ROWS = 256
"""The request rows a reader keeps parsed, the last used: a parsed short reference is about
fifteen times its line (1.2 KB), so keeping every row of a 3,000-call fan-out held 2× the file."""

STORED_BYTES = 64 << 20
"""The bytes of the lines those rows are parsed from, at most (a session of 1,000 calls with 4 KB
tool results holds about 5 MB of them)."""

CHECKPOINTS = 128
"""The chain keeps the full request of every 128th call down a chain of references, so building
any call reads at most 128 rows (`RequestChain`), half the rows kept parsed: a user walking up a
chain finds the rows of the last walk among them. A chain of N calls adding a message each keeps
N²/256 message references in checkpoints (2 MB for 8,000 calls; 8 MB every 32nd call)."""


def row_problem(exc: ValidationError) -> str:
    """A one-line reason for a row the strict row parser refused."""
    first = exc.errors()[0]
    location = ".".join(str(part) for part in first["loc"] if part not in ("request", "event"))
    message = first["msg"]
    return preview_line(f"{location}: {message}" if location else message, 120)


class CallReader:
    """The calls of one `RecordingIndex` as the library's rows, the last `stored_rows` request
    rows used kept parsed (within `stored_bytes` of lines) and full requests built through one
    `RequestChain` with checkpoints."""

    def __init__(
        self,
        index: RecordingIndex,
        stored_rows: int = STORED_ROWS,
        stored_bytes: int = STORED_BYTES,
    ) -> None:
        self.index = index
        self._stored: RecentlyUsed[int, RequestRow | str] = RecentlyUsed(
            stored_rows, weight_limit=stored_bytes
        )
        self.requests = RequestChain(self._stored_row, checkpoints=CHECKPOINTS)
        self.rows_parsed = 0
        """Request rows parsed so far (for tests that count reads, not time)."""

    def stored(self, ordinal: int) -> RequestRow | str:
        """Call `ordinal`'s request row as stored, or the reason it cannot be read."""
        found = self._stored.get(ordinal)
        if found is not None:
            return found
        span = self.index.calls[ordinal]
        line = self.index.line(span.request_line)
        self.rows_parsed += 1
        row = _parse_request(line, span)
        # The list's workers and the UI thread read through one reader (`RecentlyUsed` locks).
        return self._stored.put(ordinal, row, weight=len(line))

    def _stored_row(self, call_index: int) -> RequestRow | None:
        if call_index >= len(self.index.calls):
            return None
        row = self.stored(call_index)
        return row if isinstance(row, RequestRow) else None

    def request(self, span: CallSpan) -> RequestRow | str:
        """The call's full request (its references followed), or the reason it cannot be read."""
        row = self.stored(span.ordinal)
        if isinstance(row, str) or row.base is None:
            return row
        try:
            return self.requests.full(row.call_index)
        except RequestReferenceError as exc:
            return f"line {span.request_line + 1}: {exc}"


_READERS: WeakKeyDictionary[RecordingIndex, CallReader] = WeakKeyDictionary()


def reader_of(index: RecordingIndex) -> CallReader:
    """The one `CallReader` of `index`."""
    reader = _READERS.get(index)
    if reader is None:
        reader = _READERS[index] = CallReader(index)
    return reader


def read_request(index: RecordingIndex, span: CallSpan) -> RequestRow | str:
    """The call's full request (its references followed), or the reason it cannot be read."""
    return reader_of(index).request(span)


def _parse_request(line: bytes, span: CallSpan) -> RequestRow | str:
    try:
        row = parse_row(line)
    except ValidationError as exc:
        return f"line {span.request_line + 1}: request row {row_problem(exc)}"
    return row if isinstance(row, RequestRow) else f"line {span.request_line + 1}: not a request"


def read_call_end(index: RecordingIndex, span: CallSpan) -> CallEndRow | str | None:
    """The call's `call_end` row, the reason it cannot be read, or None when there is none."""
    if span.end_line is None:
        return None
    try:
        row = parse_row(index.line(span.end_line))
    except ValidationError as exc:
        return f"line {span.end_line + 1}: call_end row {row_problem(exc)}"
    return row if isinstance(row, CallEndRow) else f"line {span.end_line + 1}: not a call_end"
