"""The TUI's index and call loader open every mutated recording without crashing."""

from __future__ import annotations

import random
from pathlib import Path

from openprogram.providers.recording.errors import RecordingFileError
from tests.reliability.test_reader_fuzz import MUTATIONS, seed_lines  # noqa: F401 (fixture)
from tui.model.call_detail import LoadedCall
from tui.model.recording_index import RecordingIndex

CASES = 1000


def test_every_mutated_recording_indexes_and_every_call_loads(
    tmp_path: Path,
    seed_lines: list[bytes],  # noqa: F811
) -> None:
    rng = random.Random(11)
    path = tmp_path / "mutant.jsonl"
    opened = 0
    for case in range(CASES):
        path.write_bytes(b"".join(MUTATIONS[case % len(MUTATIONS)](seed_lines, rng)))
        try:
            index = RecordingIndex.open(path)
        except RecordingFileError:
            continue
        try:
            index.build()
            for line in range(index.line_count):
                index.line(line)
            for span in index.calls:
                call = LoadedCall(index, span)
                call.raw()
                call.final_message()
                for event_index in range(span.event_count):
                    call.event_summary(event_index)
                    call.message_at(event_index)
            opened += 1
        finally:
            index.close()
    assert opened > CASES // 2, f"only {opened} of {CASES} mutants could be opened at all"
