"""A call's numbers are the library's, folded from its events one at a time: the call list of a
call of a million events held every parsed event (805 MB for the whole app, issue #40 item 13)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from openprogram.providers.recording.reader import scan_recording
from openprogram.recordings.call_stats import CallStats, call_stats, session_stats
from tests.tui.long_call import write_long_call
from tui.model.call_numbers import CallNumbers, bar, time_axis
from tui.model.recording_index import RecordingIndex

PEAK_OF_NUMBERS = """
import sys, tracemalloc
from tui.model.call_numbers import CallNumbers
from tui.model.recording_index import RecordingIndex

index = RecordingIndex.open(sys.argv[1])
index.build()
numbers = CallNumbers(index)
tracemalloc.start()
assert numbers.compute(0) is not None
print(tracemalloc.get_traced_memory()[1])
"""


def peak_bytes(path: Path) -> int:
    """The peak of Python allocations while the numbers of the file's one call are read, in a
    fresh interpreter (nothing else the test process holds is counted)."""
    done = subprocess.run(
        [sys.executable, "-c", PEAK_OF_NUMBERS, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def test_a_calls_numbers_are_the_librarys(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    write_long_call(path, 3_000)
    index = RecordingIndex.open(path)
    index.build()
    recorded = scan_recording(path).calls[0]
    numbers = CallNumbers(index)
    assert numbers.compute(0) == call_stats(recorded, priced=False)
    assert numbers.stats_of(0, priced=True) == call_stats(recorded)


def test_memory_does_not_grow_with_the_events_of_a_call(tmp_path: Path) -> None:
    """A call of 5,000 events and one of 50,000: reading the numbers peaks within 4 MB of each
    other (holding the events took about 30 MB more; the folded text grows by 0.3 MB)."""
    few, many = tmp_path / "few.jsonl", tmp_path / "many.jsonl"
    write_long_call(few, 5_000)
    write_long_call(many, 50_000)
    assert peak_bytes(many) - peak_bytes(few) < 4 << 20


# The timeline's axis (`t`): it spans the session as its totals count it (#42 item 20).


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
