"""The call table: one row per call (`#1  openai/gpt-4o-mini  143 ev  complete`), parsed on demand.

A row needs the call's request (for the model) and its `call_end` (for the outcome); both are read
with the strict row parser when the row is first shown, never for calls nobody looks at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import ValidationError

from openprogram.providers.recording_format import ROW_ADAPTER, CallEndRow, RequestRow
from tui.model.bounded_cache import BoundedCache
from tui.model.recording_index import CallSpan, RecordingIndex
from tui.model.text_preview import one_line, plural

if TYPE_CHECKING:
    from tui.model.verdict import Verdict

PENDING = "…"
"""The outcome shown while the index has not reached the call's end yet."""
UNFINISHED = "unfinished"
DAMAGED = "damaged"
BAD_OUTCOMES = frozenset({"error", "cancelled", "abandoned", UNFINISHED, DAMAGED})


def row_problem(exc: ValidationError) -> str:
    """A one-line reason for a row the strict row parser refused."""
    first = exc.errors()[0]
    location = ".".join(str(part) for part in first["loc"] if part not in ("request", "event"))
    message = first["msg"]
    return one_line(f"{location}: {message}" if location else message, 120)


@dataclass(frozen=True)
class CallSummary:
    """What the call list shows for one call."""

    ordinal: int
    call_index: int
    provider: str | None
    model: str | None
    event_count: int
    outcome: str
    """`complete`, `error`, `cancelled`, `abandoned`, `unfinished`, `damaged`, or `…` (indexing)."""
    error: str | None
    """The recorded error, or why the call's rows cannot be read."""

    @property
    def model_label(self) -> str:
        """`provider/model`, or `?` for parts that could not be read."""
        return f"{self.provider or '?'}/{self.model or '?'}"

    @property
    def failed(self) -> bool:
        """True for any outcome other than `complete` (and not still indexing)."""
        return self.outcome in BAD_OUTCOMES

    def text(self, index_width: int = 1) -> str:
        """The row as plain text: `#1  openai/gpt-4o-mini  143 ev  complete`."""
        number = f"#{self.call_index}".ljust(index_width + 1)
        return f"{number}  {self.model_label}  {self.event_count} ev  {self.outcome}"


def read_request(index: RecordingIndex, span: CallSpan) -> RequestRow | str:
    """The call's request row, or the reason it cannot be read."""
    try:
        row = ROW_ADAPTER.validate_json(index.line(span.request_line))
    except ValidationError as exc:
        return f"line {span.request_line + 1}: request row {row_problem(exc)}"
    return row if isinstance(row, RequestRow) else f"line {span.request_line + 1}: not a request"


def read_call_end(index: RecordingIndex, span: CallSpan) -> CallEndRow | str | None:
    """The call's `call_end` row, the reason it cannot be read, or None when there is none."""
    if span.end_line is None:
        return None
    try:
        row = ROW_ADAPTER.validate_json(index.line(span.end_line))
    except ValidationError as exc:
        return f"line {span.end_line + 1}: call_end row {row_problem(exc)}"
    return row if isinstance(row, CallEndRow) else f"line {span.end_line + 1}: not a call_end"


class CallTable:
    """The calls of a `RecordingIndex` as list rows, with the strict verdict's marks once known."""

    def __init__(self, index: RecordingIndex) -> None:
        self.index = index
        self.verdict: Verdict | None = None
        self._damaged: frozenset[int] = frozenset()
        self._rows: BoundedCache[int, CallSummary] = BoundedCache(4096)

    @property
    def count(self) -> int:
        """Calls that may be shown now."""
        return self.index.published_calls

    @property
    def index_width(self) -> int:
        """Digits of the largest call number, for aligned rows."""
        return len(str(max(self.count - 1, 0)))

    def set_verdict(self, verdict: Verdict) -> None:
        """Mark the calls the strict reader found damaged."""
        self.verdict = verdict
        self._damaged = verdict.damaged_calls()
        self._rows.clear()

    def refresh(self) -> None:
        """Forget rows of calls that were still being indexed."""
        self._rows.clear()

    def facts(self) -> tuple[str, bool]:
        """`format 1 · 5 calls · 115 events · ✓ valid`, and whether it reports a problem."""
        index = self.index
        events = sum(span.event_count for span in index.calls)
        version = index.header.format_version if index.header else "?"
        facts = f"format {version} · {plural(len(index.calls), 'call')} · {plural(events, 'event')}"
        if self.verdict is None:
            return f"{facts} · checking…", False
        if self.verdict.valid:
            return f"{facts} · ✓ valid", False
        return f"{facts} · ✗ {plural(len(self.verdict.problems), 'problem')}", True

    def ordinal_of(self, call_index: int) -> int | None:
        """The position of the call whose request says `call_index` (they agree in valid files)."""
        if not 0 <= call_index < self.count:
            return None
        if self.summary(call_index).call_index == call_index:
            return call_index
        found = (n for n in range(self.count) if self.summary(n).call_index == call_index)
        return next(found, None)

    def summary(self, ordinal: int) -> CallSummary:
        """The row of call `ordinal` (its position in the file)."""
        cached = self._rows.get(ordinal)
        if cached is not None:
            return cached
        span = self.index.calls[ordinal]
        request = read_request(self.index, span)
        end = read_call_end(self.index, span)
        call_index = request.call_index if isinstance(request, RequestRow) else ordinal
        model = request.model if isinstance(request, RequestRow) else {}
        error: str | None = request if isinstance(request, str) else None
        outcome: str
        if isinstance(end, CallEndRow):
            outcome, error = end.outcome, error or end.error
        elif isinstance(end, str):
            outcome, error = DAMAGED, error or end
        else:
            outcome = UNFINISHED if self.index.complete else PENDING
        if isinstance(request, str) or (call_index in self._damaged and outcome != UNFINISHED):
            outcome = DAMAGED
        summary = CallSummary(
            ordinal=ordinal,
            call_index=call_index,
            provider=_text(model.get("provider")),
            model=_text(model.get("id")),
            event_count=span.event_count,
            outcome=outcome,
            error=error,
        )
        # A call still being indexed may gain events; only settled rows are kept.
        if span.finished or self.index.complete:
            self._rows.put(ordinal, summary)
        return summary


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
