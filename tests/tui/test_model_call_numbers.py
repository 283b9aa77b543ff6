"""A call's numbers are the library's, folded from its events one at a time: the call list of a
call of a million events held every parsed event (805 MB for the whole app, issue #40 item 13)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from openprogram.providers.recording.reader import scan_recording
from openprogram.recordings.call_stats import call_stats
from tests.tui.long_call import write_long_call
from tui.model.call_numbers import CallNumbers
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
