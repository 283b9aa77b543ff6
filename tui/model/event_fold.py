"""The assistant message as assembled up to event k, with the library's one accumulator.

Stepping forward applies only the new events; stepping back restarts from the nearest checkpoint
(a copy of the accumulator every `CHECKPOINT_EVERY` events), so any step costs a bounded number of
event applications however long the call is.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

from openprogram.providers.accumulator import AccumulatorError, MessageAccumulator
from openprogram.providers.types import AssistantMessage, AssistantMessageEvent

CHECKPOINT_EVERY = 256


class EventUnreadable(ValueError):
    """An event row that the strict row parser refused; `line_number` and `reason` say why."""

    def __init__(self, event_index: int, line_number: int, reason: str) -> None:
        self.event_index = event_index
        self.line_number = line_number
        self.reason = reason
        super().__init__(f"event {event_index} (line {line_number}): {reason}")


@dataclass(frozen=True)
class FoldStep:
    """The message after events 0..`event_index`, or why the fold stopped before it."""

    event_index: int
    message: AssistantMessage | None
    error: str | None = None
    """Set when an event up to `event_index` cannot be read or cannot follow the ones before it."""


class EventFold:
    """Folds a call's events (fetched by index with `event_at`) into the message at any event."""

    def __init__(self, event_at: Callable[[int], AssistantMessageEvent], count: int) -> None:
        self._event_at = event_at
        self.count = count
        self._accumulator = MessageAccumulator()
        self._applied = 0
        """Events folded into `_accumulator` so far."""
        self._checkpoints: dict[int, MessageAccumulator] = {}
        self._failure: tuple[int, str] | None = None

    def message_at(self, event_index: int) -> FoldStep:
        """The message as assembled through `event_index` (clamped to the events there are)."""
        target = min(max(event_index, 0), self.count - 1) + 1
        stopped: str | None = None
        if self._failure is not None and target > self._failure[0]:
            target, stopped = self._failure
        if target < self._applied:
            self._rewind(target)
        while self._applied < target:
            index = self._applied
            try:
                self._accumulator.apply(self._event_at(index))
            except EventUnreadable as exc:
                return self._fail(event_index, index, f"event {index} cannot be read: {exc.reason}")
            except AccumulatorError as exc:
                return self._fail(event_index, index, f"event {index} cannot be applied: {exc}")
            self._applied += 1
            if self._applied % CHECKPOINT_EVERY == 0 and self._applied not in self._checkpoints:
                self._checkpoints[self._applied] = copy.deepcopy(self._accumulator)
        return FoldStep(event_index, self._message(), stopped)

    def _fail(self, requested: int, at: int, reason: str) -> FoldStep:
        self._failure = (at, reason)
        return FoldStep(requested, self._message(), reason)

    def _rewind(self, target: int) -> None:
        start = max((n for n in self._checkpoints if n <= target), default=0)
        self._accumulator = (
            copy.deepcopy(self._checkpoints[start]) if start else MessageAccumulator()
        )
        self._applied = start

    def _message(self) -> AssistantMessage | None:
        # The accumulator mutates its message in place; callers keep what they were given.
        message = self._accumulator.message
        return message.model_copy(deep=True) if message is not None else None
