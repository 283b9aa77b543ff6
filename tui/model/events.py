"""A call's streamed events: one row per event for the list (what each adds, previewed), the
assistant message as assembled up to event k, with the library's one accumulator, and the timeline
of the call a check stopped at (`event_timeline`: its events, read from that call's rows alone).

Stepping forward applies only the new events; stepping back restarts from the nearest checkpoint
(a copy of the accumulator every `CHECKPOINT_EVERY` events), so a step back costs a bounded number
of event applications. The checkpoints kept are bounded too, since each holds the message so far:
`FAR_CHECKPOINTS` spread evenly over the call and the `NEAR_CHECKPOINTS` made last. Keeping one
every 256 events made a call of 1,000,000 streamed words hold 3,906 copies of its growing message
(15 GB, issue #28 item 7).
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from openprogram.providers.accumulator import AccumulatorError, MessageAccumulator
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.row_models import CallEndRow, EventRow, parse_row
from openprogram.providers.types import (
    AssistantMessage,
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from tui.model.line_preview import preview_line
from tui.model.recording_index import RecordingIndex
from tui.model.row_reading import read_call_end


@dataclass(frozen=True)
class EventSummary:
    """What the event list shows for one event row."""

    event_index: int
    line_number: int
    """1-based, as the strict reader counts lines."""
    type: str
    preview: str
    error: str | None = None
    """Why the row cannot be read (then `type` is `?`)."""
    ms: int | None = None
    """When the event arrived, after the call's request (None: not recorded)."""
    gap_ms: int | None = None
    """The time since the event before (the first event: since the request); None: not recorded."""


def preview_event(event: AssistantMessageEvent) -> str:
    """The part of an event worth a glance: the delta, the tool, the stop reason."""
    if isinstance(event, TextDeltaEvent | ThinkingDeltaEvent | ToolCallDeltaEvent):
        return preview_line(event.delta)
    if isinstance(event, TextEndEvent | ThinkingEndEvent):
        return preview_line(event.content)
    if isinstance(event, ToolCallStartEvent):
        return preview_line(f"{event.name} ({event.id})")
    if isinstance(event, ToolCallEndEvent):
        arguments = json.dumps(event.tool_call.arguments, ensure_ascii=False, sort_keys=True)
        return preview_line(f"{event.tool_call.name} {arguments}")
    if isinstance(event, StartEvent):
        partial = event.partial
        return preview_line(f"{partial.provider}/{partial.model}")
    if isinstance(event, DoneEvent):
        usage = event.message.usage
        return f"{event.reason} · {usage.total_tokens} tokens"
    if isinstance(event, ErrorEvent):
        return preview_line(f"{event.reason}: {event.error.error_message or ''}".rstrip(": "))
    return ""


def summarize_event(
    event_index: int, line_number: int, event: AssistantMessageEvent
) -> EventSummary:
    """The list row of one readable event."""
    return EventSummary(event_index, line_number, event.type, preview_event(event))


@dataclass(frozen=True)
class EventTimeline:
    """The recorded events of the call whose stream a check's run read past, and where it stopped."""

    call_index: int
    outcome: str
    events: tuple[EventSummary, ...]
    stopped_at: int
    """The `event_index` the run asked for: one past the last recorded event."""


def event_timeline(recording: Path, call_index: int, stopped_at: int) -> EventTimeline | None:
    """The timeline of call `call_index`, or None when the file or one of that call's rows cannot
    be read. The line index finds the call's rows without parsing any (`RecordingIndex`); only
    its `call_end` and event rows are parsed, with the strict row parser."""
    try:
        index = RecordingIndex.open(recording)
    except RecordingFileError:
        return None
    try:
        index.build()
        if not 0 <= call_index < len(index.calls):
            return None
        span = index.calls[call_index]
        end = read_call_end(index, span)
        if not isinstance(end, CallEndRow) or end.call_index != call_index:
            return None
        events: list[EventSummary] = []
        for event_index, line in enumerate(span.event_lines):
            try:
                row = parse_row(index.line(line))
            except ValidationError:
                return None
            if not isinstance(row, EventRow) or row.call_index != call_index:
                return None
            events.append(summarize_event(event_index, line + 1, row.event))
        return EventTimeline(call_index, end.outcome, tuple(events), stopped_at)
    finally:
        index.close()


CHECKPOINT_EVERY = 256
STOP_CHECK_EVERY = 1024
"""Events applied between two looks at `message_at`'s `stop` (a fold of a million events stops
within milliseconds of being asked)."""
FAR_CHECKPOINTS = 4
"""Checkpoints kept at most at even spacing over the call (a far jump back starts at one)."""
NEAR_CHECKPOINTS = 2
"""Checkpoints kept at most among the latest (a step back of a few events starts at one)."""


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


class FoldStopped(Exception):
    """`message_at` was asked to stop (its `stop` returned True) before reaching the event."""


class EventFold:
    """Folds a call's events (fetched by index with `event_at`) into the message at any event."""

    def __init__(self, event_at: Callable[[int], AssistantMessageEvent], count: int) -> None:
        self._event_at = event_at
        self.count = count
        self._accumulator = MessageAccumulator()
        self._applied = 0
        """Events folded into `_accumulator` so far."""
        self._checkpoints: dict[int, MessageAccumulator] = {}
        """Copies of the accumulator after that many events, in the order they were made."""
        self._far_spacing = CHECKPOINT_EVERY * max(
            1, -(-count // (CHECKPOINT_EVERY * FAR_CHECKPOINTS))
        )
        self._failure: tuple[int, str] | None = None
        self._lock = threading.Lock()
        """Held while folding: a long fold runs in a worker thread."""

    def _target(self, event_index: int) -> int:
        return min(max(event_index, 0), self.count - 1) + 1

    def fold_work(self, event_index: int) -> int:
        """How many events `message_at(event_index)` would apply (its work, to run it inline or not)."""
        target = self._target(event_index)
        if self._failure is not None:
            target = min(target, self._failure[0])
        if target >= self._applied:
            return target - self._applied
        return target - max((n for n in self._checkpoints if n <= target), default=0)

    @property
    def busy(self) -> bool:
        """True while a fold runs (in a worker thread)."""
        return self._lock.locked()

    def message_at(self, event_index: int, stop: Callable[[], bool] | None = None) -> FoldStep:
        """The message as assembled through `event_index` (clamped to the events there are).

        `stop` is asked every `STOP_CHECK_EVERY` events; when it says True the fold raises
        `FoldStopped` (what was folded so far is kept for the next call)."""
        with self._lock:
            return self._message_at(event_index, stop)

    def _message_at(self, event_index: int, stop: Callable[[], bool] | None) -> FoldStep:
        target = self._target(event_index)
        stopped: str | None = None
        if self._failure is not None and target > self._failure[0]:
            target, stopped = self._failure
        if target < self._applied:
            self._rewind(target)
        while self._applied < target:
            index = self._applied
            if stop is not None and index % STOP_CHECK_EVERY == 0 and stop():
                raise FoldStopped(event_index)
            try:
                self._accumulator.apply(self._event_at(index))
            except EventUnreadable as exc:
                return self._fail(event_index, index, f"event {index} cannot be read: {exc.reason}")
            except AccumulatorError as exc:
                return self._fail(event_index, index, f"event {index} cannot be applied: {exc}")
            self._applied += 1
            if self._applied % CHECKPOINT_EVERY == 0 and self._applied not in self._checkpoints:
                self._keep_checkpoint()
        return FoldStep(event_index, self._message(), stopped)

    def _keep_checkpoint(self) -> None:
        """Copy the accumulator, and forget the oldest near checkpoint past `NEAR_CHECKPOINTS`."""
        self._checkpoints[self._applied] = copy.deepcopy(self._accumulator)
        near = [n for n in self._checkpoints if n % self._far_spacing]
        if len(near) > NEAR_CHECKPOINTS:
            del self._checkpoints[near[0]]

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
