"""Go-to targets (`12` or `12.40`) and incremental search over stored rows."""

from __future__ import annotations

import bisect
import re
import threading
from array import array
from collections.abc import Callable
from dataclasses import dataclass


class GotoError(ValueError):
    """Text that does not name a call (`12`) or an event of a call (`12.40`)."""


@dataclass(frozen=True)
class GotoTarget:
    """A call index, and optionally an event index within it."""

    call_index: int
    event_index: int | None = None


_GOTO = re.compile(r"\s*#?(\d+)(?:\s*[.:/]\s*(\d+))?\s*\Z")


def parse_goto(text: str) -> GotoTarget:
    """Parse `12` (call 12) or `12.40` (call 12, event 40); `#12` and `12:40` work too."""
    match = _GOTO.match(text)
    if match is None:
        raise GotoError("type a call number like 12, or a call and event like 12.40")
    call, event = match.groups()
    return GotoTarget(int(call), int(event) if event is not None else None)


def compile_query(query: str) -> re.Pattern[bytes] | None:
    """A case-insensitive literal pattern over stored bytes, or None for an empty query."""
    if not query.strip():
        return None
    return re.compile(re.escape(query.strip().encode("utf-8")), re.IGNORECASE)


def find_rows(
    count: int,
    row_bytes: Callable[[int], bytes],
    pattern: re.Pattern[bytes],
    cancelled: threading.Event | None = None,
) -> array[int]:
    """The rows (0..count-1) whose stored bytes match `pattern`, in order."""
    found: array[int] = array("L")
    for row in range(count):
        if cancelled is not None and row % 256 == 0 and cancelled.is_set():
            break
        if pattern.search(row_bytes(row)):
            found.append(row)
    return found


def next_match(matches: array[int] | list[int], current: int, forward: bool = True) -> int | None:
    """The match after (or before) row `current`, wrapping around; None when there are none."""
    if not matches:
        return None
    if forward:
        after = bisect.bisect_right(matches, current)
        return matches[after] if after < len(matches) else matches[0]
    before = bisect.bisect_left(matches, current)
    return matches[before - 1] if before > 0 else matches[-1]
