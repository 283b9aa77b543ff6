"""One call of a recording, parsed on demand: request, events, the message at each event, raw lines."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from pydantic import ValidationError

from openprogram.providers.recording.row_models import CallEndRow, EventRow, RequestRow, parse_row
from openprogram.providers.types import (
    AssistantMessage,
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
)
from openprogram.recently_used import RecentlyUsed
from openprogram.text import plural
from openprogram.visible_text import visible
from tui.model.event_times import LongestGap, gap_ms, longest_gap, row_ms
from tui.model.events import EventFold, EventSummary, EventUnreadable, FoldStep, summarize_event
from tui.model.recording_index import CallSpan, RecordingIndex
from tui.model.row_reading import read_call_end, read_request, reader_of, row_problem
from tui.model.transcript import RequestNews, request_news

RAW_LIMIT = 512 * 1024
"""The Raw tab shows at most this many bytes of a call's lines."""


if TYPE_CHECKING:
    from openprogram.providers.recording.errors import RecordingProblem


@dataclass(frozen=True)
class FinalMessage:
    """The call's final message and, when it is not a recorded `done`/`error`, why."""

    message: AssistantMessage | None
    note: str | None


@dataclass(frozen=True)
class RawLines:
    """A call's lines as stored, bounded by `RAW_LIMIT`."""

    text: str
    first_line_number: int
    shown_lines: int
    total_lines: int
    contiguous: bool
    """False when other calls' rows sit between this call's rows (so numbering is per row)."""


class LoadedCall:
    """The selected call: its request and `call_end` rows read once, its events read as needed."""

    def __init__(
        self,
        index: RecordingIndex,
        span: CallSpan,
        problems: Sequence[RecordingProblem] = (),
    ) -> None:
        self.index = index
        self.span = span
        self.settled = index.settled(span)
        """False while the index may still add rows to this call (then it is loaded again)."""
        self._all_problems: tuple[RecordingProblem, ...] = ()
        self.problems_by_line: dict[int, RecordingProblem] = {}
        self.set_problems(problems)
        self._reader = reader_of(index)
        stored = self._reader.stored(span.ordinal)
        self.stored: RequestRow | None = stored if isinstance(stored, RequestRow) else None
        """The request row as the file holds it (what changed since its base, with format 2)."""
        self._request: RequestRow | str | None = None
        end = read_call_end(index, span)
        self.call_end: CallEndRow | None = end if isinstance(end, CallEndRow) else None
        self.call_end_problem = end if isinstance(end, str) else None
        self.call_index = self.stored.call_index if self.stored else span.ordinal
        self.event_count = span.event_count
        self._events: RecentlyUsed[int, AssistantMessageEvent | EventUnreadable] = RecentlyUsed(
            2048
        )
        self.fold = EventFold(self.event, self.event_count)
        self._news: RequestNews | None = None
        self._longest_gap: tuple[LongestGap | None] | None = None

    def _full_request(self) -> RequestRow | str:
        if self._request is None:
            self._request = self._reader.request(self.span)
        return self._request

    @property
    def request(self) -> RequestRow | None:
        """The full request (references followed), built once when first read; None when it
        cannot be read (`request_problem` says why)."""
        request = self._full_request()
        return request if isinstance(request, RequestRow) else None

    @property
    def request_problem(self) -> str | None:
        """Why the request cannot be read, or None."""
        request = self._full_request()
        return request if isinstance(request, str) else None

    def news(self) -> RequestNews:
        """What this call sent that the call before it in the file had not (read once, on use);
        the first call, or a call whose request cannot be read, is new as a whole."""
        if self._news is None:
            previous = None
            ordinal = self.span.ordinal
            if self.request is not None and 0 < ordinal <= len(self.index.calls):
                found = read_request(self.index, self.index.calls[ordinal - 1])
                previous = found if isinstance(found, RequestRow) else None
            base = previous.call_index if previous is not None else None
            self._news = (
                request_news(self.request, previous, base)
                if self.request is not None
                else RequestNews(None)
            )
        return self._news

    def set_problems(self, problems: Sequence[RecordingProblem]) -> None:
        """Use the strict reader's problems (they name lines and calls) to mark this call."""
        self._all_problems = tuple(problems)
        self.problems_by_line = {}
        for problem in problems:
            if problem.line_number is not None:
                self.problems_by_line.setdefault(problem.line_number, problem)

    def _line_problem(self, line: int, fallback: str) -> str:
        problem = self.problems_by_line.get(line + 1)
        return problem.reason if problem is not None else fallback

    def event(self, event_index: int) -> AssistantMessageEvent:
        """Event `event_index`, read with the strict row parser; raises `EventUnreadable`."""
        cached = self._events.get(event_index)
        if cached is None:
            cached = self._read_event(event_index)[0]
            self._events.put(event_index, cached)
        if isinstance(cached, EventUnreadable):
            raise cached
        return cached

    def _read_event(
        self, event_index: int
    ) -> tuple[AssistantMessageEvent | EventUnreadable, int | None]:
        line = self.span.event_lines[event_index]
        try:
            row = parse_row(self.index.line(line))
            if not isinstance(row, EventRow):
                raise EventUnreadable(event_index, line + 1, f"a {row.type} row")
            return row.event, row.ms
        except ValidationError as exc:
            reason = self._line_problem(line, f"event row {row_problem(exc)}")
            return EventUnreadable(event_index, line + 1, reason), None
        except EventUnreadable as exc:
            return exc, None

    def timed_events(self) -> tuple[list[AssistantMessageEvent], list[int | None]]:
        """Every event of the call and when each arrived (None: not recorded), each row parsed
        once (for a reader that needs them all: the diff view's answers and numbers); raises
        `EventUnreadable` at the first event that cannot be read."""
        events: list[AssistantMessageEvent] = []
        times: list[int | None] = []
        for n in range(self.event_count):
            event, ms = self._read_event(n)
            if isinstance(event, EventUnreadable):
                raise event
            events.append(event)
            times.append(ms)
        return events, times

    def timing(self) -> str:
        """`took 230 ms · first event after 212 ms`; a time the file does not hold (a migrated
        call, a call still open) is "not recorded", never 0."""
        took = self.call_end.duration_ms if self.call_end is not None else None
        first = self.event_ms(0) if self.event_count else None
        took_text = f"took {took} ms" if took is not None else "duration not recorded"
        first_text = (
            f"first event after {first} ms"
            if first is not None
            else "first event time not recorded"
        )
        return f"{took_text} · {first_text}"

    def event_summary(self, event_index: int) -> EventSummary:
        """The event list row of `event_index`, with its time and the gap since the event before."""
        line_number = self.span.event_lines[event_index] + 1
        try:
            event = self.event(event_index)
        except EventUnreadable as exc:
            return EventSummary(event_index, line_number, "?", "", exc.reason)
        ms = self.event_ms(event_index)
        previous = self.event_ms(event_index - 1) if event_index else None
        return replace(
            summarize_event(event_index, line_number, event),
            ms=ms,
            gap_ms=gap_ms(ms, previous, event_index == 0),
        )

    def event_ms(self, event_index: int) -> int | None:
        """When event `event_index` arrived, after the request (None: not recorded)."""
        return row_ms(self.index.line(self.span.event_lines[event_index]))

    @property
    def times_recorded(self) -> bool:
        """The call's events have times (format 2; not a version-1 or migrated call)."""
        return bool(self.event_count) and self.event_ms(0) is not None

    def longest_gap(self, stop: Callable[[], bool] | None = None) -> LongestGap | None:
        """The longest wait for an event of this call (one pass over its event lines, kept once
        done; `stop`: as for `event_times.longest_gap`). None: no time recorded."""
        if self._longest_gap is None or not self.settled:
            lines = self.span.event_lines
            times = (row_ms(self.index.line(lines[n])) for n in range(self.event_count))
            self._longest_gap = (longest_gap(times, stop),)
        return self._longest_gap[0]

    @property
    def gaps_measured(self) -> bool:
        """`longest_gap` is known (asking for it costs nothing)."""
        return self._longest_gap is not None and self.settled

    def message_at(self, event_index: int, stop: Callable[[], bool] | None = None) -> FoldStep:
        """The assistant message as assembled through `event_index` (see `EventFold.message_at`)."""
        return self.fold.message_at(event_index, stop)

    def final_fold_work(self) -> int:
        """Events `final_message` would fold (0 when the last event is a recorded `done`/`error`)."""
        if self.event_count == 0 or self._recorded_final() is not None:
            return 0
        return self.fold.fold_work(self.event_count - 1)

    def _recorded_final(self) -> AssistantMessage | None:
        try:
            last = self.event(self.event_count - 1)
        except EventUnreadable:
            return None
        if isinstance(last, DoneEvent):
            return last.message
        if isinstance(last, ErrorEvent):
            return last.error
        return None

    def final_message(self, stop: Callable[[], bool] | None = None) -> FinalMessage:
        """The recorded final message, else the fold of every event with a note saying why.

        `stop`: as for `message_at` (the fold may raise `FoldStopped`)."""
        if self.event_count == 0:
            return FinalMessage(None, "the call has no events")
        recorded = self._recorded_final()
        if recorded is not None:
            return FinalMessage(recorded, None)
        step = self.message_at(self.event_count - 1, stop)
        outcome = self.call_end.outcome if self.call_end else "no call_end"
        note = f"no done or error event ({outcome}); assembled from {plural(self.event_count, 'event')}"
        return FinalMessage(step.message, f"{note}; {step.error}" if step.error else note)

    def raw(self, limit: int = RAW_LIMIT) -> RawLines:
        """The call's lines as stored (request, events, damaged rows, `call_end`)."""
        span = self.span
        first, last, total = span.request_line, span.request_line, span.line_total
        if span.event_lines:  # in file order
            first, last = min(first, span.event_lines[0]), max(last, span.event_lines[-1])
        if span.stray_lines:
            first, last = min(first, *span.stray_lines), max(last, *span.stray_lines)
        if span.end_line is not None:
            first, last = min(first, span.end_line), max(last, span.end_line)
        contiguous = last - first + 1 == total  # the lines are distinct
        chunks: list[bytes] = []
        used = 0
        for number in span.iter_lines():  # only the lines shown are visited
            line = self.index.line(number)
            if chunks and used + len(line) > limit:
                break
            chunks.append(line[:limit])
            used += len(line) + 1
        text = visible(b"\n".join(chunks).decode("utf-8", errors="replace"))
        return RawLines(text, first + 1, len(chunks), total, contiguous)

    def problems(self) -> list[RecordingProblem]:
        """The strict reader's problems that name this call or fall on its lines."""
        return [
            p
            for p in self._all_problems
            if p.call_index == self.call_index
            or (p.line_number is not None and self.span.holds(p.line_number - 1))
        ]
