"""A call's times in the TUI (issue #33): recorded ones in ms, absent ones "not recorded", never 0."""

from __future__ import annotations

import itertools
from pathlib import Path

from openprogram.providers.recording.writer import RecordingSink
from tui.model.call_detail import LoadedCall
from tui.model.recording_index import RecordingIndex


def loaded(path: Path, *, timed: bool) -> LoadedCall:
    ticks = itertools.count()
    sink = RecordingSink(path, clock=lambda: next(ticks) * 0.25)
    time_field = {} if timed else {"ms": None}
    index = sink.begin_call({"model": {}, "context": {}, "options": None})
    sink.write_event(index, 0, {"type": "text_start", "content_index": 0}, **time_field)
    sink.end_call(index, 1, "complete", **({} if timed else {"duration_ms": None}))
    sink.close()
    recording = RecordingIndex.open(path)
    recording.build()
    return LoadedCall(recording, recording.calls[0])


def test_a_recorded_call_shows_its_duration_and_first_event(tmp_path: Path) -> None:
    # Clock readings 0.25 s apart: opened, begin_call, the event, end_call.
    call = loaded(tmp_path / "r.jsonl", timed=True)
    assert call.timing() == "took 500 ms · first event after 250 ms"


def test_a_call_without_times_says_not_recorded(tmp_path: Path) -> None:
    call = loaded(tmp_path / "r.jsonl", timed=False)
    assert call.timing() == "duration not recorded · first event time not recorded"
