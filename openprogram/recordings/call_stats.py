"""How much each call of a recording took: tokens by kind and cost, per call and for the session.

The one place the inspector's numbers come from (`recordings diff --json`, the HTML reports; the
TUI's columns): a call's usage is its answer's, folded from its events by the one accumulator; its
cost is priced by `cost.call_cost` (None when the model's price is unknown or the optional extra is
not installed).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from openprogram.providers.accumulator import assemble_message
from openprogram.providers.recording.reader import RecordedCall
from openprogram.providers.types import Usage
from openprogram.recordings.cost import call_cost


@dataclass(frozen=True)
class CallStats:
    """One call's numbers."""

    call_index: int
    model: str
    """`provider/id` as recorded."""
    outcome: str
    usage: Usage | None
    """None when the call has no answer (cut short before its first event)."""
    cost: Decimal | None

    def to_json(self) -> dict[str, Any]:
        return {
            "call_index": self.call_index,
            "model": self.model,
            "outcome": self.outcome,
            "tokens": None if self.usage is None else tokens_json(self.usage),
            "cost_usd": None if self.cost is None else str(self.cost),
        }


def tokens_json(usage: Usage) -> dict[str, int | None]:
    """Tokens by kind: in (not cached), out, cache read, cache write, reasoning (None: not said)."""
    return {
        "input": usage.input,
        "output": usage.output,
        "cache_read": usage.cache_read,
        "cache_write": usage.cache_write,
        "reasoning": usage.reasoning,
    }


def call_stats(call: RecordedCall) -> CallStats:
    model = call.request.model
    message = assemble_message(list(call.events))
    usage = message.usage if message is not None else None
    cost = call_cost(usage, model, message.timestamp) if usage is not None and message else None
    return CallStats(
        call.call_index,
        f"{model.get('provider')}/{model.get('id')}",
        call.outcome,
        usage,
        cost,
    )


@dataclass(frozen=True)
class SessionStats:
    """A session's totals: calls, tokens by kind, and the cost of the calls that could be priced."""

    calls: int
    usage: Usage
    cost: Decimal | None
    """The sum over the priced calls; None when no call could be priced."""
    unpriced: int
    """Calls with tokens whose model has no known price (their cost is not in `cost`)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "tokens": tokens_json(self.usage),
            "cost_usd": None if self.cost is None else str(self.cost),
            "unpriced_calls": self.unpriced,
        }


def session_stats(stats: Iterable[CallStats]) -> SessionStats:
    calls = list(stats)
    usages = [s.usage for s in calls if s.usage is not None]
    reasoning = [u.reasoning for u in usages if u.reasoning is not None]
    total = Usage(
        input=sum(u.input for u in usages),
        output=sum(u.output for u in usages),
        cache_read=sum(u.cache_read for u in usages),
        cache_write=sum(u.cache_write for u in usages),
        total_tokens=sum(u.total_tokens for u in usages),
        reasoning=sum(reasoning) if reasoning else None,
    )
    priced = [s.cost for s in calls if s.cost is not None]
    unpriced = sum(1 for s in calls if s.usage is not None and s.cost is None)
    return SessionStats(len(calls), total, sum(priced, Decimal(0)) if priced else None, unpriced)
