"""`recordings repair` keeps what it salvages whole, times included."""

from __future__ import annotations

import itertools
from pathlib import Path

from openprogram.providers.recording.reader import read_recording, scan_recording
from openprogram.providers.recording.writer import RecordingSink
from openprogram.recordings import repair_recording


def test_repair_keeps_the_times_of_every_call_it_keeps(openprogram_home: Path) -> None:
    root = openprogram_home / "recordings"
    root.mkdir(parents=True, mode=0o700)
    path = root / "timed.jsonl"
    ticks = itertools.count()
    sink = RecordingSink(path, clock=lambda: next(ticks) * 0.037)
    messages: list[dict[str, str]] = []
    for number in range(4):
        messages.append({"role": "user", "content": f"call {number}"})
        request = {"model": {"id": "m"}, "context": {"messages": list(messages)}, "options": None}
        index = sink.begin_call(request)
        for event in range(3):
            sink.write_event(
                index, event, {"type": "text_delta", "content_index": 0, "delta": f"{event}"}
            )
        if number < 3:  # the last call never ends: the file needs repair
            sink.end_call(index, 3, "complete")
    sink.close()
    before = scan_recording(path).calls
    assert len(before) == 3 and all(call.duration_ms for call in before)

    report = repair_recording("timed")

    assert not report.already_valid and report.kept_calls == 3
    after = read_recording(path).calls
    assert [c.request_payload() for c in after] == [c.request_payload() for c in before]
    assert [(c.start_ms, c.duration_ms, c.event_ms) for c in after] == [
        (c.start_ms, c.duration_ms, c.event_ms) for c in before
    ]
    assert all(ms is not None for call in after for ms in call.event_ms)
