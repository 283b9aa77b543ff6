"""The timeline's axis (`t`): it spans the session as its totals count it (#42 item 20)."""

from __future__ import annotations

from openprogram.recordings.call_stats import CallStats, session_stats
from tui.model.call_numbers import bar, time_axis


def timed(call_index: int, start_ms: int, duration_ms: int, gap_after_ms: int | None) -> CallStats:
    return CallStats(
        call_index, "scripted/echo", "complete", None, None, start_ms, duration_ms, 10, gap_after_ms
    )


def test_the_axis_starts_at_the_first_call_and_spans_the_sessions_wall_time() -> None:
    # The program ran 5 s before its first call: the totals leave that out, so does the axis.
    calls = [timed(0, 5_000, 1_000, 500), timed(1, 6_500, 1_500, None)]
    axis = time_axis(calls)
    assert axis is not None
    assert axis.length_ms == session_stats(calls).wall_ms == 3_000
    first, last = bar(calls[0], axis, 30), bar(calls[1], axis, 30)
    assert first is not None and first.start == 0 and first.model == 10 and first.gap == 5
    assert last is not None and last.start == 15 and last.start + last.model == 30


def test_calls_without_times_have_no_axis_and_no_bar() -> None:
    untimed = CallStats(0, "scripted/echo", "complete", None, None)
    assert time_axis([untimed, None]) is None
    axis = time_axis([timed(0, 0, 100, None)])
    assert axis is not None and bar(untimed, axis, 20) is None
