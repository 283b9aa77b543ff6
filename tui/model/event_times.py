"""When each streamed event arrived (format 2's `ms`), the gap since the one before, the longest gap.

A row's time is read from its last bytes (rows are compact JSON with sorted keys, so a row ends
`,"ms":1234,"type":"event"}`), without parsing the event: the longest gap of a call of a million
events is one pass over its lines. A row without `ms` (a version-1 or migrated call) has no time:
"not recorded", never 0. Never imports Textual.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

STALL_MS = 1000
"""A gap this long or longer between two events is marked (a stall inside the stream)."""

_TAIL = re.compile(rb',"ms":(\d+),"type":"event"\}\r?\n?$')
_TAIL_BYTES = 48


class GapsStopped(Exception):
    """The scan was stopped (the call shown changed)."""


def row_ms(line: bytes) -> int | None:
    """The `ms` of an event row as stored (None: the row holds no time)."""
    found = _TAIL.search(line, max(0, len(line) - _TAIL_BYTES))
    return int(found.group(1)) if found else None


def gap_ms(ms: int | None, previous_ms: int | None, first: bool) -> int | None:
    """The time since the event before (for the first event, since the request)."""
    if ms is None:
        return None
    if first:
        return ms
    return None if previous_ms is None else max(0, ms - previous_ms)


@dataclass(frozen=True)
class LongestGap:
    """The longest wait for an event of a call: `gap_ms` before event `event_index`."""

    gap_ms: int
    event_index: int


def longest_gap(
    times: Iterable[int | None], stop: Callable[[], bool] | None = None
) -> LongestGap | None:
    """The longest gap between events given each event's time in order (the first event's gap is
    its time since the request); None when no time is recorded. `stop` is asked every 10,000
    events: True raises `GapsStopped`."""
    best: LongestGap | None = None
    previous: int | None = None
    for n, ms in enumerate(times):
        if stop is not None and n % 10_000 == 0 and n and stop():
            raise GapsStopped
        gap = gap_ms(ms, previous, n == 0)
        if gap is not None and (best is None or gap > best.gap_ms):
            best = LongestGap(gap, n)
        previous = ms
    return best


def arrival_text(ms: int) -> str:
    """An event's time after the request, short: `0.41s`, `12.30s`."""
    return f"{ms / 1000:.2f}s"


def gap_text(ms: int) -> str:
    """A gap, short: `+12ms` under a second, else `+1.2s`."""
    return f"+{ms}ms" if ms < 1000 else f"+{ms / 1000:.1f}s"


def gap_caption(gap: LongestGap | None, timed: bool) -> str:
    """The Events tab's caption: the longest gap and where, or that times were not recorded."""
    if not timed or gap is None:
        return "Events · times not recorded"
    return f"Events · longest gap {gap_text(gap.gap_ms)[1:]} before event {gap.event_index}"
