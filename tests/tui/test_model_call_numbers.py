"""A call's numbers are the library's, folded from its events one at a time: the call list of a
call of a million events held every parsed event (805 MB for the whole app, issue #40 item 13)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openprogram.providers import UserMessage
from openprogram.providers.recording.reader import read_recording, scan_recording
from openprogram.recordings.call_stats import CallStats, call_stats, session_stats
from openprogram.recordings.prompt_cache import prompt_cache_report
from tests.hostile_recordings import write_fan_out
from tests.recordings.prompt_cache_sessions import record_session
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

KEPT_BY_NUMBERS = """
import gc, sys, tracemalloc
from tui.model.call_numbers import CallNumbers
from tui.model.recording_index import RecordingIndex

index = RecordingIndex.open(sys.argv[1])
index.build()
CallNumbers(index).compute_all()  # imports, and the call reader's memo of rows, filled
numbers = CallNumbers(index)
gc.collect()
tracemalloc.start()
numbers.compute_all()
gc.collect()
print(tracemalloc.get_traced_memory()[0] // len(index.calls))
"""


def edit_message_at(call: int) -> Callable[[int, list[Any]], None]:
    """A session whose call `call` sends an earlier message edited (its prefix breaks there)."""

    def edit(n: int, messages: list[Any]) -> None:
        if n == call:
            messages[2] = UserMessage(content="Next step 1, but shorter this time.")

    return edit


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


# A call's prompt-cache facts, read with its numbers (issue #39).


def opened(path: Path, remember: int) -> CallNumbers:
    index = RecordingIndex.open(path)
    index.build()
    return CallNumbers(index, remember=remember)


def test_prompt_cache_facts_read_with_the_numbers_are_the_librarys(tmp_path: Path) -> None:
    # The facts take the answer folded for the call's numbers (not folded again).
    path = record_session(tmp_path / "session.jsonl", 12, before_call=edit_message_at(7))
    numbers = opened(path, remember=256)
    assert numbers.compute_all()
    report = prompt_cache_report(read_recording(path).calls, priced=False)
    assert [numbers.cache(n) for n in range(12)] == list(report.calls)
    assert numbers.cache_session() == report and report.broken_calls == 1


def test_prompt_cache_facts_read_out_of_order_with_a_short_memory_are_the_same(
    tmp_path: Path,
) -> None:
    # The facts a later call needs of an earlier one are kept for a bounded number of calls (a
    # session of 100,000 calls kept them all); a call whose predecessor was forgotten reads it again.
    path = record_session(tmp_path / "session.jsonl", 12, before_call=edit_message_at(7))
    numbers = opened(path, remember=2)
    for ordinal in [11, 3, 7, 8, 0, 1, 2, 9, 10, 6, 5, 4]:
        numbers.compute(ordinal)
    report = prompt_cache_report(read_recording(path).calls, priced=False)
    assert [numbers.cache(n) for n in range(12)] == list(report.calls)
    assert report.broken_calls == 1


def test_every_calls_numbers_kept_are_a_few_hundred_bytes_a_call(tmp_path: Path) -> None:
    """Sorting and the timeline keep every call's numbers while the file is open: small beside the
    rows (#39: each kept its answer's pydantic `Usage`, 1.1 KB, where the fan-out file takes 613
    bytes a call)."""
    # More calls than the readers' memos keep (256): what grows with the calls is counted.
    path = write_fan_out(tmp_path / "fan-out.jsonl", 2000, 10)
    done = subprocess.run(
        [sys.executable, "-c", KEPT_BY_NUMBERS, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert int(done.stdout) < 1400  # about 1,060 (1,900 with a `Usage` each)
