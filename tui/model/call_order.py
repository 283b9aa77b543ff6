"""The order and the filter of the call list: sort by a number, keep the calls a filter accepts.

`&` types a filter (`outcome:error model:gpt slower:2 tokens:1000`), `o` cycles the sort key and
`O` flips its direction; the list then shows the calls `order_calls` returns, in that order.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from tui.model.call_rows import CallSummary

if TYPE_CHECKING:  # the list's first rows are drawn before the row models are loaded
    from openprogram.recordings.call_stats import CallStats


class SortKey(Enum):
    """What the call list is sorted by (`o` goes to the next one)."""

    FILE = "file order"
    DURATION = "duration"
    FIRST_TOKEN = "first token"
    GAP = "gap after"
    TOKENS_IN = "tokens in"
    TOKENS_OUT = "tokens out"
    COST = "cost"

    def next(self) -> SortKey:
        keys = list(SortKey)
        return keys[(keys.index(self) + 1) % len(keys)]

    def value_of(self, stats: CallStats | None) -> float | None:
        """The call's number for this key; None (not recorded, unknown) sorts last."""
        if stats is None:
            return None
        usage = stats.usage
        values = {
            SortKey.DURATION: stats.duration_ms,
            SortKey.FIRST_TOKEN: stats.first_token_ms,
            SortKey.GAP: stats.gap_after_ms,
            SortKey.TOKENS_IN: None if usage is None else usage.input,
            SortKey.TOKENS_OUT: None if usage is None else usage.output,
            SortKey.COST: None if stats.cost is None else float(stats.cost),
        }
        return values.get(self)


class FilterError(ValueError):
    """A filter that cannot be read; `reason` says which word and why."""

    def __init__(self, word: str, reason: str) -> None:
        super().__init__(f"{word}: {reason}")
        self.word = word
        self.reason = reason


def total_tokens(stats: CallStats | None) -> int | None:
    """Tokens of every kind the call used (in, out, cache read and write); None: no answer."""
    if stats is None or stats.usage is None:
        return None
    u = stats.usage
    return u.input + u.output + u.cache_read + u.cache_write


@dataclass(frozen=True)
class CallFilter:
    """Which calls the list shows: every condition given must hold."""

    outcome: str | None = None
    """The outcome shown in the row, e.g. `error`, `complete` (`failed`: any but complete)."""
    model: str | None = None
    """Part of `provider/model`, any case."""
    slower_than_ms: int | None = None
    more_tokens_than: int | None = None

    @classmethod
    def parse(cls, text: str) -> CallFilter:
        """`outcome:error model:gpt slower:2.5 tokens:1000`; a bare word is part of the model."""
        fields: dict[str, str] = {}
        for word in text.split():
            key, sep, value = word.partition(":")
            if not sep:
                key, value = "model", word
            if key not in ("outcome", "model", "slower", "tokens") or not value:
                raise FilterError(word, "use outcome:, model:, slower: (seconds) or tokens:")
            fields[key] = value
        slower = tokens = None
        if "slower" in fields:
            if not re.fullmatch(r"\d+(\.\d*)?", fields["slower"].removesuffix("s")):
                raise FilterError(f"slower:{fields['slower']}", "seconds, e.g. slower:2.5")
            slower = round(float(fields["slower"].removesuffix("s")) * 1000)
        if "tokens" in fields:
            if not fields["tokens"].isdigit():
                raise FilterError(f"tokens:{fields['tokens']}", "a count, e.g. tokens:1000")
            tokens = int(fields["tokens"])
        return cls(fields.get("outcome"), fields.get("model"), slower, tokens)

    @property
    def active(self) -> bool:
        return self != CallFilter()

    @property
    def needs_numbers(self) -> bool:
        """True when a condition is on a call's numbers (every call must be read)."""
        return self.slower_than_ms is not None or self.more_tokens_than is not None

    def text(self) -> str:
        """The filter as typed back: `outcome:error slower:2`."""
        words = []
        if self.outcome:
            words.append(f"outcome:{self.outcome}")
        if self.model:
            words.append(f"model:{self.model}")
        if self.slower_than_ms is not None:
            words.append(f"slower:{self.slower_than_ms / 1000:g}")
        if self.more_tokens_than is not None:
            words.append(f"tokens:{self.more_tokens_than}")
        return " ".join(words)

    def accepts(self, summary: CallSummary, stats: CallStats | None) -> bool:
        if self.outcome is not None:
            wanted = self.outcome.lower()
            if wanted == "failed" and not summary.failed:
                return False
            if wanted != "failed" and summary.outcome != wanted:
                return False
        if self.model is not None and self.model.lower() not in summary.model_label.lower():
            return False
        if self.slower_than_ms is not None:
            duration = stats.duration_ms if stats is not None else None
            if duration is None or duration <= self.slower_than_ms:
                return False
        if self.more_tokens_than is not None:
            tokens = total_tokens(stats)
            if tokens is None or tokens <= self.more_tokens_than:
                return False
        return True


@dataclass(frozen=True)
class CallOrder:
    """How the call list is sorted and filtered (the default shows every call in file order)."""

    key: SortKey = SortKey.FILE
    descending: bool = True
    """Biggest first (the slowest call, the most tokens); `O` flips it."""
    filter: CallFilter = CallFilter()

    @property
    def active(self) -> bool:
        return self.key is not SortKey.FILE or self.filter.active

    @property
    def needs_numbers(self) -> bool:
        """True when every call's numbers must be read before the list can be shown."""
        return self.key is not SortKey.FILE or self.filter.needs_numbers

    def describe(self) -> str:
        """`sorted by duration ↓ · filter slower:2`, what the list's header says."""
        parts = []
        if self.key is not SortKey.FILE:
            parts.append(f"by {self.key.value} {'↓' if self.descending else '↑'}")
        if self.filter.active:
            parts.append(f"filter {self.filter.text()}")
        return " · ".join(parts)


def order_calls(
    count: int,
    order: CallOrder,
    summary: Callable[[int], CallSummary],
    stats: Callable[[int], CallStats | None],
) -> array[int]:
    """The ordinals of the calls `order` shows, in its order (ties, and unknowns, in file order).
    Without a filter no call's row is read (`summary` parses it: a sort needs the numbers only)."""
    wanted = order.filter
    if wanted.active:
        kept = [n for n in range(count) if wanted.accepts(summary(n), stats(n))]
    else:
        kept = list(range(count))
    if order.key is not SortKey.FILE:
        values = {n: order.key.value_of(stats(n)) for n in kept}
        known = [n for n in kept if values[n] is not None]
        unknown = [n for n in kept if values[n] is None]
        sign = -1.0 if order.descending else 1.0
        known.sort(key=lambda n: sign * (values[n] or 0.0))  # stable: ties stay in file order
        kept = known + unknown
    return array("L", kept)
