"""Each call's numbers (duration, first token, gap after, tokens, cost), read when first needed.

The numbers are the library's (`openprogram.recordings.call_stats`, as `recordings diff --json`
and the HTML report have them); this module only reads one call's rows from the index, with the
strict row parser: its request and end into the `RecordedCall` they take, its events one at a
time into the one fold (`fold_timed_events`), never held all at once. Every event is read (its
usage is folded from them), so a row's numbers are read in a worker, never while a frame is drawn.

The timeline (`t`) lays those numbers out: the session on one time axis, where each call's bar
starts, how long it is in the model and how long the program took after it, in columns of a given
width (`time_axis`, `bar`); and the session's totals (`session_line`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from openprogram.providers.accumulator import AccumulatorError
from openprogram.providers.recording.reader import RecordedCall
from openprogram.providers.recording.row_models import CallEndRow, EventRow, parse_row
from openprogram.providers.types import AssistantMessage, AssistantMessageEvent
from openprogram.recordings.call_stats import (
    CallStats,
    FoldedAnswer,
    SessionStats,
    fold_timed_events,
    session_stats,
    stats_of_folded,
)
from openprogram.recordings.prompt_cache import CallCache, PromptCacheReader, PromptCacheReport
from openprogram.text import plural
from tui.model.call_columns import format_cost_short, format_ms, format_tokens
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


CACHE_REMEMBERED = 256
"""The calls whose prompt-cache facts a later call may need (its model, settings, usage, answer)
are remembered for this many calls, the least recently used forgotten first: calls are read in
order (sorting, the timeline) or a screenful at a time, and a forgotten one is read again."""

Stamp = tuple[int, int | None, bool, bool]
"""What a call's numbers were read from: its event count, its `call_end` line, whether the next
call's start was known (a call still being written is read again once it grows), and whether it
was priced."""


class CallNumbers:
    """The numbers of the calls of one `RecordingIndex`, each read once (in a worker) and kept.

    `get` never reads: a row whose numbers are not in yet shows `…` and asks for them
    (`compute`); sorting and the session's totals need every call (`compute_all`)."""

    def __init__(self, index: RecordingIndex, remember: int = CACHE_REMEMBERED) -> None:
        self.index = index
        self._stats: dict[int, tuple[Stamp, CallStats | None]] = {}
        self._cache: dict[int, CallCache | None] = {}
        """Each read call's prompt-cache facts (read with its numbers, kept as long)."""
        self._cache_reader = PromptCacheReader(self._answer, remember=remember)
        self._folded: tuple[int, AssistantMessage | None] | None = None
        """The call whose events were folded last, and its answer (read by `_answer`, so its
        prompt-cache facts do not fold them again)."""
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
        call = read_call(self.index, self.index.calls[ordinal])
        return None if call is None else self._cache_facts(call, ordinal, priced=priced)

    def _cache_facts(
        self, call: RecordedCall, ordinal: int, *, priced: bool, answer: FoldedAnswer | None = None
    ) -> CallCache | None:
        """`cache_of` for a call read already; `answer`: its events folded already (not again)."""
        before = PromptCacheReader.predecessor_of(call)
        predecessor = None
        if 0 <= before < ordinal and not self._cache_reader.knows(before):
            predecessor = read_call(self.index, self.index.calls[before])
        if answer is not None and call.call_index == ordinal:  # else `_answer` reads its own
            self._folded = (call.call_index, answer.message)
        return self._cache_reader.read(call, predecessor, priced=priced)

    def _answer(self, call: RecordedCall) -> AssistantMessage | None:
        """The call's answer: the one just folded for its numbers, else its events read and
        folded one at a time (never held all at once)."""
        folded = self._folded
        if folded is not None and folded[0] == call.call_index:
            return folded[1]
        calls = self.index.calls
        if not 0 <= call.call_index < len(calls):  # a damaged file's index (ordinals differ)
            return None
        try:
            return fold_timed_events(timed_events(self.index, calls[call.call_index])).message
        except AccumulatorError:
            return None

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
        stats, cache = self.numbers_of(ordinal, priced=self.priced)
        self._cache[ordinal] = cache
        self._stats[ordinal] = (stamp, stats)
        return stats

    def numbers_of(
        self, ordinal: int, *, priced: bool
    ) -> tuple[CallStats | None, CallCache | None]:
        """Call `ordinal`'s numbers and prompt-cache facts read now, not kept: its rows read and
        its events folded once for both."""
        call = read_call(self.index, self.index.calls[ordinal])
        if call is None:
            return None, None
        answer = self._fold(ordinal)
        stats = None if answer is None else self._stats_of(call, ordinal, answer, priced)
        empty = FoldedAnswer(None, None)  # events out of order: no answer to compare
        return stats, self._cache_facts(call, ordinal, priced=priced, answer=answer or empty)

    def stats_of(self, ordinal: int, *, priced: bool) -> CallStats | None:
        """Call `ordinal`'s numbers read now (with its cost when `priced`), not kept."""
        call = read_call(self.index, self.index.calls[ordinal])
        answer = self._fold(ordinal) if call is not None else None
        if call is None or answer is None:
            return None
        return self._stats_of(call, ordinal, answer, priced)

    def _fold(self, ordinal: int) -> FoldedAnswer | None:
        """The call's events folded; None: events out of order (a damaged file: the call's tabs
        say why)."""
        try:
            return fold_timed_events(timed_events(self.index, self.index.calls[ordinal]))
        except AccumulatorError:
            return None

    def _stats_of(
        self, call: RecordedCall, ordinal: int, answer: FoldedAnswer, priced: bool
    ) -> CallStats:
        calls = self.index.calls
        following = calls[ordinal + 1] if ordinal + 1 < len(calls) else None
        next_start = start_ms(self.index, following) if following is not None else None
        return stats_of_folded(call, answer, next_start_ms=next_start, priced=priced)

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


@dataclass(frozen=True)
class Bar:
    """One call on the axis, in columns: `start` blank, `model` in the model, `gap` after it."""

    start: int
    model: int
    gap: int


@dataclass(frozen=True)
class TimeAxis:
    """The session on one axis: from the first call's start (`start_ms`, after the recording's
    start) for `length_ms`, as the totals count its wall time."""

    start_ms: int
    length_ms: int


def time_axis(stats: Sequence[CallStats | None]) -> TimeAxis | None:
    """The axis of the calls `stats`: the first start to the latest end of a call or of the gap
    after it; None: no times."""
    timed = [
        (s.start_ms, s.start_ms + s.duration_ms + (s.gap_after_ms or 0))
        for s in stats
        if s is not None and s.start_ms is not None and s.duration_ms is not None
    ]
    if not timed:
        return None
    start = min(begin for begin, _ in timed)
    return TimeAxis(start, max(end for _, end in timed) - start)


def bar(stats: CallStats | None, axis: TimeAxis, width: int) -> Bar | None:
    """Where call `stats` sits on `axis` drawn in `width` columns (a call takes at least one
    column, so a short one is still seen); None when its times were not recorded."""
    if stats is None or stats.start_ms is None or stats.duration_ms is None or width <= 0:
        return None
    scale = width / max(axis.length_ms, 1)
    start = min(max(0, int((stats.start_ms - axis.start_ms) * scale)), width - 1)
    model = max(1, round(stats.duration_ms * scale))
    model = min(model, width - start)
    gap = round((stats.gap_after_ms or 0) * scale)
    return Bar(start, model, max(0, min(gap, width - start - model)))


def session_line(
    session: SessionStats, prices: str | None, cache: PromptCacheReport | None = None
) -> str:
    """`200 calls · 1m52s: 16s in the model, 1m36s between calls · tokens 12k in, 3.1k out, …`,
    then the prompt cache (`cache 70% read, prefix broke on 1 call (744 lost)`)."""
    usage = session.usage
    parts = [plural(session.calls, "call")]
    if session.wall_ms is not None and session.model_ms is not None:
        between = session.wall_ms - session.model_ms
        parts.append(
            f"{format_ms(session.wall_ms)}: {format_ms(session.model_ms)} in the model, "
            f"{format_ms(between)} between calls"
        )
    else:
        parts.append("times not recorded")
    tokens = (
        f"tokens {format_tokens(usage.input)} in, {format_tokens(usage.output)} out, "
        f"{format_tokens(usage.cache_read)} cache read, {format_tokens(usage.cache_write)} cache "
        "write"
    )
    if usage.reasoning is not None:
        tokens += f", {format_tokens(usage.reasoning)} reasoning"
    parts.append(tokens)
    if prices is None:
        parts.append("no cost (prices: install the extra `openprogram[cost]`)")
    elif session.cost is None:
        parts.append(f"no known price ({prices})")
    else:
        unpriced = f", {plural(session.unpriced, 'call')} unpriced" if session.unpriced else ""
        parts.append(f"{format_cost_short(session.cost)}{unpriced} ({prices})")
    if cache is not None and cache.read_share is not None:
        said = f"cache {cache.read_share:.0%} read"
        if cache.broken_calls:
            lost = format_tokens(cache.total("lost_tokens"))
            calls = "call" if cache.broken_calls == 1 else "calls"
            said += f", prefix broke on {cache.broken_calls} {calls} ({lost} lost)"
        parts.append(said)
    return " · ".join(parts)
