"""How much each call of a recording took: tokens by kind and cost, per call and for the session.

The one place the inspector's numbers come from (`recordings diff --json`, the HTML reports; the
TUI's columns): a call's usage is its answer's, folded from its events by the one accumulator; its
cost is priced by `cost.call_cost` (None when the model's price is unknown or the optional extra is
not installed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from itertools import pairwise
from typing import Any

from openprogram.providers.accumulator import (
    AccumulatorError,
    MessageAccumulator,
    assemble_message,
)
from openprogram.providers.recording.reader import RecordedCall
from openprogram.providers.types import AssistantMessage, AssistantMessageEvent
from openprogram.recordings.cost import TokenCounts, call_cost


@dataclass(frozen=True, slots=True)
class CallStats:
    """One call's numbers."""

    call_index: int
    model: str
    """`provider/id` as recorded."""
    outcome: str
    usage: TokenCounts | None
    """None when the call has no answer (cut short before its first event)."""
    cost: Decimal | None
    start_ms: int | None = None
    """When the call began, after the session's start; None: not recorded (a migrated call)."""
    duration_ms: int | None = None
    first_token_ms: int | None = None
    """When its first piece of answer (text, thinking or a tool call) arrived, after its start."""
    gap_after_ms: int | None = None
    """From its end to the next call's start: the time the program and its tools took."""

    def to_json(self) -> dict[str, Any]:
        return {
            "call_index": self.call_index,
            "model": self.model,
            "outcome": self.outcome,
            "tokens": None if self.usage is None else tokens_json(self.usage),
            "cost_usd": None if self.cost is None else str(self.cost),
            "duration_ms": self.duration_ms,
            "first_token_ms": self.first_token_ms,
            "gap_after_ms": self.gap_after_ms,
        }


def tokens_json(usage: TokenCounts) -> dict[str, int | None]:
    """Tokens by kind: in (not cached), out, cache read, cache write, reasoning (None: not said)."""
    return {
        "input": usage.input,
        "output": usage.output,
        "cache_read": usage.cache_read,
        "cache_write": usage.cache_write,
        "reasoning": usage.reasoning,
    }


_ANSWER_PIECES = frozenset({"text_delta", "thinking_delta", "toolcall_start", "toolcall_delta"})


def _first_token_ms(timed_events: Iterable[tuple[AssistantMessageEvent, int | None]]) -> int | None:
    for event, ms in timed_events:
        if event.type in _ANSWER_PIECES:
            return ms
    return None


def call_stats(
    call: RecordedCall,
    next_call: RecordedCall | None = None,
    *,
    next_start_ms: int | None = None,
    priced: bool = True,
) -> CallStats:
    """One call's numbers; `next_call` (the one after it in the file) gives the gap after it, or
    `next_start_ms`, its start, for a reader that has not read the next call whole (the TUI).
    `priced=False` leaves the cost out (None) without loading the price table (10 MB)."""
    message = assemble_message(list(call.events))
    return stats_of_answer(call, message, next_call, next_start_ms=next_start_ms, priced=priced)


def stats_of_answer(
    call: RecordedCall,
    message: AssistantMessage | None,
    next_call: RecordedCall | None = None,
    *,
    next_start_ms: int | None = None,
    priced: bool = True,
) -> CallStats:
    """`call_stats` for a call whose events were folded already into `message` (None: no
    answer), so a reader that folds them anyway (the TUI diff view) does it once."""
    first_token = _first_token_ms(zip(call.events, call.event_ms, strict=False))
    return _stats(call, message, first_token, next_call, next_start_ms, priced)


@dataclass(frozen=True)
class FoldedAnswer:
    """A call's answer folded from its events (None: no answer) and when its first piece arrived:
    what its numbers and its prompt-cache facts both read, folded once."""

    message: AssistantMessage | None
    first_token_ms: int | None


def fold_timed_events(
    timed_events: Iterable[tuple[AssistantMessageEvent, int | None]],
) -> FoldedAnswer:
    """The call's events (with when each arrived) read one at a time and folded as they come,
    never kept: one call can hold a million events. Raises `AccumulatorError` for events no
    stream makes."""
    accumulator = MessageAccumulator()
    first_token: int | None = None
    answered = False
    for event, ms in timed_events:
        if not answered and event.type in _ANSWER_PIECES:
            first_token, answered = ms, True
        accumulator.apply(event)
    return FoldedAnswer(accumulator.message, first_token)


def stats_of_folded(
    call: RecordedCall,
    folded: FoldedAnswer,
    *,
    next_start_ms: int | None = None,
    priced: bool = True,
) -> CallStats:
    """`call_stats` for a call whose events were folded already (`fold_timed_events`)."""
    return _stats(call, folded.message, folded.first_token_ms, None, next_start_ms, priced)


def _stats(
    call: RecordedCall,
    message: AssistantMessage | None,
    first_token_ms: int | None,
    next_call: RecordedCall | None,
    next_start_ms: int | None,
    priced: bool,
) -> CallStats:
    model = call.model  # no full request is built for its numbers
    usage = TokenCounts.of(message.usage) if message is not None else None
    cost = (
        call_cost(usage, model, message.timestamp)
        if priced and usage is not None and message
        else None
    )
    if next_call is not None:
        next_start_ms = next_call.start_ms
    gap = None
    if next_start_ms is not None and call.start_ms is not None and call.duration_ms is not None:
        gap = max(0, next_start_ms - call.start_ms - call.duration_ms)
    return CallStats(
        call.call_index,
        f"{model.get('provider')}/{model.get('id')}",
        call.outcome,
        usage,
        cost,
        call.start_ms,
        call.duration_ms,
        first_token_ms,
        gap,
    )


def calls_stats(calls: Sequence[RecordedCall]) -> list[CallStats]:
    """Every call's numbers, each with the gap before the next call of the file."""
    return with_gaps([folded_call_stats(call) for call in calls])


def with_gaps(stats: Sequence[CallStats]) -> list[CallStats]:
    """Calls' numbers (in call order) each with the gap from its end to the next one's start,
    where both times are recorded (for numbers read one call at a time)."""
    gapped = list(stats)
    for i, (call, after) in enumerate(pairwise(stats)):
        start, duration, next_start = call.start_ms, call.duration_ms, after.start_ms
        if start is not None and duration is not None and next_start is not None:
            gapped[i] = replace(call, gap_after_ms=max(0, next_start - start - duration))
    return gapped


def answer_of(call: RecordedCall) -> AssistantMessage | None:
    """The message `call`'s events fold into; None when they do not fold (a file may hold valid
    events in an order no stream makes): for the readers that show such a call without an answer."""
    try:
        return assemble_message(list(call.events))
    except AccumulatorError:
        return None


def folded_call_stats(call: RecordedCall, next_call: RecordedCall | None = None) -> CallStats:
    """`call_stats`, with no usage for a call whose events do not fold instead of
    `AccumulatorError`: for the reports."""
    return stats_of_answer(call, answer_of(call), next_call)


@dataclass(frozen=True)
class StatsDelta:
    """Two calls' numbers side by side (A, B: None where a side has no call) and B − A, where
    both sides know the value (`recordings diff --json` and the TUI diff view show these)."""

    a: CallStats | None
    b: CallStats | None

    @property
    def tokens_a(self) -> dict[str, int | None] | None:
        return None if self.a is None or self.a.usage is None else tokens_json(self.a.usage)

    @property
    def tokens_b(self) -> dict[str, int | None] | None:
        return None if self.b is None or self.b.usage is None else tokens_json(self.b.usage)

    @property
    def tokens_delta(self) -> dict[str, int | None] | None:
        """B − A by kind of token (None for a kind a side does not say)."""
        a, b = self.tokens_a, self.tokens_b
        if a is None or b is None:
            return None
        return {
            kind: None if a[kind] is None or b[kind] is None else b[kind] - a[kind]  # type: ignore[operator]
            for kind in a
        }

    @property
    def total_tokens_delta(self) -> int | None:
        a, b = self.a, self.b
        if a is None or b is None or a.usage is None or b.usage is None:
            return None
        return b.usage.total_tokens - a.usage.total_tokens

    @property
    def cost_delta(self) -> Decimal | None:
        a, b = self.a, self.b
        if a is None or b is None or a.cost is None or b.cost is None:
            return None
        return b.cost - a.cost

    def ms(self, name: str) -> tuple[int | None, int | None, int | None]:
        """A, B and B − A of `duration` or `first_token` (milliseconds; None: not recorded)."""
        value_a = None if self.a is None else getattr(self.a, f"{name}_ms")
        value_b = None if self.b is None else getattr(self.b, f"{name}_ms")
        delta = None if value_a is None or value_b is None else value_b - value_a
        return value_a, value_b, delta

    def to_json(self) -> dict[str, Any]:
        """Tokens by kind and cost of each side, times of each side, and B − A where both are known."""
        cost_a = None if self.a is None else self.a.cost
        cost_b = None if self.b is None else self.b.cost
        cost_delta = self.cost_delta
        times: dict[str, int | None] = {}
        for name in ("duration", "first_token"):
            times[f"{name}_a_ms"], times[f"{name}_b_ms"], times[f"{name}_delta_ms"] = self.ms(name)
        return {
            "tokens_delta": self.tokens_delta,
            "cost_a_usd": None if cost_a is None else str(cost_a),
            "cost_b_usd": None if cost_b is None else str(cost_b),
            "cost_delta_usd": None if cost_delta is None else str(cost_delta),
            **times,
        }


@dataclass(frozen=True)
class SessionStats:
    """A session's totals: calls, tokens by kind, and the cost of the calls that could be priced."""

    calls: int
    usage: TokenCounts
    cost: Decimal | None
    """The sum over the priced calls; None when no call could be priced."""
    unpriced: int
    """Calls with tokens whose model has no known price (their cost is not in `cost`)."""
    wall_ms: int | None = None
    """From the first call's start to the last call's end; None when times were not recorded."""
    model_ms: int | None = None
    """The calls' durations added up (time in the model); the rest of `wall_ms` is between calls."""

    def to_json(self) -> dict[str, Any]:
        between = (
            None if self.wall_ms is None or self.model_ms is None else self.wall_ms - self.model_ms
        )
        return {
            "calls": self.calls,
            "tokens": tokens_json(self.usage),
            "cost_usd": None if self.cost is None else str(self.cost),
            "unpriced_calls": self.unpriced,
            "wall_ms": self.wall_ms,
            "model_ms": self.model_ms,
            "between_calls_ms": between,
        }


def session_stats(stats: Iterable[CallStats]) -> SessionStats:
    calls = list(stats)
    total = TokenCounts.total(s.usage for s in calls)
    priced = [s.cost for s in calls if s.cost is not None]
    unpriced = sum(1 for s in calls if s.usage is not None and s.cost is None)
    spans = [
        (s.start_ms, s.start_ms + s.duration_ms)
        for s in calls
        if s.start_ms is not None and s.duration_ms is not None
    ]
    wall = model = None
    if calls and len(spans) == len(calls):
        wall = max(end for _, end in spans) - min(start for start, _ in spans)
        model = sum(end - start for start, end in spans)
    cost = sum(priced, Decimal(0)) if priced else None
    return SessionStats(len(calls), total, cost, unpriced, wall, model)
