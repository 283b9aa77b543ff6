"""Each call's numbers (duration, first token, gap after, tokens, cost), read when first needed.

The numbers are the library's (`openprogram.recordings.call_stats`, as `recordings diff --json`
and the HTML report have them); this module only reads one call's rows from the index, with the
strict row parser: its request and end into the `RecordedCall` they take, its events one at a
time into the one fold (`stats_of_timed_events`), never held all at once. Every event is read (its
usage is folded from them), so a row's numbers are read in a worker, never while a frame is drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from pydantic import ValidationError

from openprogram.providers.accumulator import AccumulatorError, MessageAccumulator
from openprogram.providers.recording.format import CallEndRow, EventRow, parse_row
from openprogram.providers.recording.reader import RecordedCall
from openprogram.providers.types import AssistantMessage, AssistantMessageEvent
from openprogram.recordings.call_stats import (
    CallStats,
    SessionStats,
    session_stats,
    stats_of_timed_events,
)
from openprogram.recordings.prompt_cache import CallCache, PromptCacheReader, PromptCacheReport
from tui.model.recording_index import CallSpan, RecordingIndex
from tui.model.row_reading import read_call_end, reader_of


def read_call(index: RecordingIndex, span: CallSpan) -> RecordedCall | None:
    """The call's request and end as the library's `RecordedCall`, without its events (read them
    one at a time with `timed_events`); None when its request cannot be read.

    A call without `call_end` (unfinished, or still being written) has no duration."""
    reader = reader_of(index)
    request = reader.stored(span.ordinal)
    if isinstance(request, str):
        return None
    end = read_call_end(index, span)
    ended = end if isinstance(end, CallEndRow) else None
    return RecordedCall(
        call_index=request.call_index,
        stored=request,
        events=(),
        # Only the numbers are used from it; the list takes the call's outcome from its row.
        outcome=ended.outcome if ended is not None else "abandoned",
        error=ended.error if ended is not None else None,
        first_line=span.request_line,
        last_line=span.end_line if span.end_line is not None else span.request_line,
        start_ms=request.start_ms,
        duration_ms=ended.duration_ms if ended is not None else None,
        requests=reader.requests,
    )


def timed_events(
    index: RecordingIndex, span: CallSpan
) -> Iterator[tuple[AssistantMessageEvent, int | None]]:
    """The call's events with when each arrived, parsed by the strict row parser one at a time (a
    call of a million events is never held whole). Events that cannot be read are left out (the
    call's tabs say why)."""
    for line in span.event_lines:
        try:
            row = parse_row(index.line(line))
        except ValidationError:
            continue
        if isinstance(row, EventRow):
            yield row.event, row.ms


def start_ms(index: RecordingIndex, span: CallSpan) -> int | None:
    """When the call began (its request row's `start_ms`); None: not recorded, or the row cannot
    be read. Through the call reader, which keeps the row for that call's own numbers."""
    request = reader_of(index).stored(span.ordinal)
    return None if isinstance(request, str) else request.start_ms


Stamp = tuple[int, int | None, bool, bool]
"""What a call's numbers were read from: its event count, its `call_end` line, whether the next
call's start was known (a call still being written is read again once it grows), and whether it
was priced."""


class CallNumbers:
    """The numbers of the calls of one `RecordingIndex`, each read once (in a worker) and kept.

    `get` never reads: a row whose numbers are not in yet shows `…` and asks for them
    (`compute`); sorting and the session's totals need every call (`compute_all`)."""

    def __init__(self, index: RecordingIndex) -> None:
        self.index = index
        self._stats: dict[int, tuple[Stamp, CallStats | None]] = {}
        self._cache: dict[int, CallCache | None] = {}
        """Each read call's prompt-cache facts (read with its numbers, kept as long)."""
        self._cache_reader = PromptCacheReader(self._answer)
        self.priced = False
        """True once a cost is asked for (`need_prices`): the price table takes 10 MB to load, so
        calls are read without their cost until a cost is shown, sorted or summed."""

    def need_prices(self) -> bool:
        """Read costs from now on (calls read without them are read again); True if this changed."""
        if self.priced:
            return False
        self.priced = True
        return True

    def _stamp(self, ordinal: int) -> Stamp:
        calls = self.index.calls
        span = calls[ordinal]
        return (
            span.event_count,
            span.end_line,
            ordinal + 1 < len(calls) or self.index.complete,
            self.priced,
        )

    def cache(self, ordinal: int) -> CallCache | None:
        """The prompt-cache facts of call `ordinal`, if read already (with its numbers)."""
        return self._cache.get(ordinal)

    def cache_of(self, ordinal: int, *, priced: bool) -> CallCache | None:
        """Call `ordinal`'s prompt-cache facts read now, not kept: the library's, from the call
        and what the one reader remembers of its predecessor (its row's base, else the call
        before it; read whole first when it was not read yet). Calls read in order (sorting, the
        timeline) cost their own rows: no full request is built for a call that kept its prefix."""
        calls = self.index.calls
        call = read_call(self.index, calls[ordinal])
        if call is None:
            return None
        before = PromptCacheReader.predecessor_of(call)
        predecessor = None
        if 0 <= before < ordinal and not self._cache_reader.knows(before):
            predecessor = read_call(self.index, calls[before])
        return self._cache_reader.read(call, predecessor, priced=priced)

    def _answer(self, call: RecordedCall) -> AssistantMessage | None:
        """The call's answer, its events read and folded one at a time (never held all at once)."""
        calls = self.index.calls
        if not 0 <= call.call_index < len(calls):  # a damaged file's index (ordinals differ)
            return None
        accumulator = MessageAccumulator()
        try:
            for event, _ in timed_events(self.index, calls[call.call_index]):
                accumulator.apply(event)
        except AccumulatorError:
            return None
        return accumulator.message

    def get(self, ordinal: int) -> CallStats | None:
        """The numbers of call `ordinal`, if read already."""
        found = self._stats.get(ordinal)
        return found[1] if found is not None else None

    def known(self, ordinal: int) -> bool:
        """True once call `ordinal` was read as it is now (it may have no numbers: an unreadable
        request)."""
        found = self._stats.get(ordinal)
        return found is not None and found[0] == self._stamp(ordinal)

    def missing(self, ordinals: Iterable[int]) -> list[int]:
        """The calls among `ordinals` not read yet."""
        count = len(self.index.calls)
        return [n for n in ordinals if n < count and not self.known(n)]

    def compute(self, ordinal: int) -> CallStats | None:
        """Read call `ordinal` and keep its numbers."""
        stamp = self._stamp(ordinal)
        stats = self.stats_of(ordinal, priced=self.priced)
        self._cache[ordinal] = self.cache_of(ordinal, priced=self.priced)
        self._stats[ordinal] = (stamp, stats)
        return stats

    def stats_of(self, ordinal: int, *, priced: bool) -> CallStats | None:
        """Call `ordinal`'s numbers read now (with its cost when `priced`), not kept: the call's
        detail prices the call it shows without pricing the whole list."""
        calls = self.index.calls
        span = calls[ordinal]
        call = read_call(self.index, span)
        if call is None:
            return None
        following = calls[ordinal + 1] if ordinal + 1 < len(calls) else None
        next_start = start_ms(self.index, following) if following is not None else None
        events = timed_events(self.index, span)
        try:
            return stats_of_timed_events(call, events, next_start_ms=next_start, priced=priced)
        except AccumulatorError:
            return None  # events out of order (a damaged file): the call's tabs say why

    def is_last(self, ordinal: int) -> bool:
        """True for the last call of a fully indexed file (no call after it: no gap)."""
        return self.index.complete and ordinal == len(self.index.calls) - 1

    def compute_all(
        self,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] = bool,
    ) -> bool:
        """Read every call not read yet; `progress(done, total)` now and then. False if cancelled."""
        total = len(self.index.calls)
        for ordinal in range(total):
            if cancelled():
                return False
            if not self.known(ordinal):
                self.compute(ordinal)
            if progress is not None and ordinal % 16 == 15:
                progress(ordinal + 1, total)
        if progress is not None:
            progress(total, total)
        return True

    @property
    def complete(self) -> bool:
        """True when every call of a fully indexed file was read."""
        return self.index.complete and not self.missing(range(len(self.index.calls)))

    def session(self) -> SessionStats | None:
        """The session's totals, once every call was read."""
        if not self.complete:
            return None
        return session_stats(s for _, s in self._stats.values() if s is not None)

    def cache_session(self) -> PromptCacheReport | None:
        """The session's prompt-cache facts, once every call was read."""
        if not self.complete:
            return None
        return PromptCacheReport.of(fact for fact in self._cache.values() if fact is not None)
