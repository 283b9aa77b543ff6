"""Stepping: the message at event k is the library's fold of events 0..k, in any order of steps."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from openprogram.providers.accumulator import assemble_message
from openprogram.providers.recording.reader import scan_recording
from tests.tui.tui_rows import call_rows, header, write_rows
from tui.model import events as events_model
from tui.model.call_detail import LoadedCall
from tui.model.recording_index import RecordingIndex


def loaded_calls(path: Path) -> list[LoadedCall]:
    index = RecordingIndex.open(path)
    index.build()
    return [LoadedCall(index, span) for span in index.calls]


def test_every_step_of_every_demo_call_is_the_fold(demo_file: Path) -> None:
    scan = scan_recording(demo_file)
    for call, recorded in zip(loaded_calls(demo_file), scan.calls, strict=True):
        for k in range(call.event_count):
            step = call.message_at(k)
            assert step.error is None
            assert step.message == assemble_message(recorded.events[: k + 1])


def test_random_jumps_use_checkpoints_and_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(events_model, "CHECKPOINT_EVERY", 7)
    path = write_rows(
        tmp_path / "r.jsonl", [header(), *call_rows(0, [f"w{n} " for n in range(60)])]
    )
    call = loaded_calls(path)[0]
    events = scan_recording(path).calls[0].events
    order = list(range(call.event_count)) * 2
    random.Random(7).shuffle(order)
    for k in order:
        assert call.message_at(k).message == assemble_message(events[: k + 1])


def test_returned_messages_do_not_change_with_later_steps(demo_file: Path) -> None:
    call = loaded_calls(demo_file)[0]
    early = call.message_at(3).message
    snapshot = early.model_copy(deep=True) if early else None
    call.message_at(call.event_count - 1)
    assert early == snapshot


def test_an_unreadable_event_stops_the_fold_there(tmp_path: Path) -> None:
    rows = call_rows(0, ["a", "b", "c"])
    rows[4] = b'{"call_index":0,"event":{"type":"text_delta"},"event_index":3,"type":"event"}\n'
    call = loaded_calls(write_rows(tmp_path / "r.jsonl", [header(), *rows]))[0]
    before = call.message_at(2)
    assert before.error is None
    stopped = call.message_at(5)
    assert stopped.error is not None and stopped.error.startswith("event 3 cannot be read")
    assert stopped.message == before.message
    assert call.event_summary(3).error is not None


def test_an_event_that_cannot_follow_is_reported(tmp_path: Path) -> None:
    rows = call_rows(0, ["a"])
    del rows[2]  # drop text_start: the delta has no block to extend
    call = loaded_calls(write_rows(tmp_path / "r.jsonl", [header(), *rows]))[0]
    step = call.message_at(call.event_count - 2)
    assert step.error is not None and "cannot be applied" in step.error


def test_a_long_fold_holds_a_bounded_number_of_messages(tmp_path: Path) -> None:
    """Checkpoints hold the message so far: one every 256 events held 3,906 growing copies of a
    call of a million pieces (15 GB). Folding to the end holds a few copies, whatever the length."""
    import tracemalloc

    from tests.tui.long_call import write_long_call

    count = write_long_call(tmp_path / "long.jsonl", 60_000, done=False)
    call = loaded_calls(tmp_path / "long.jsonl")[0]
    tracemalloc.start()
    try:
        final = call.message_at(count - 1).message
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert final is not None
    text_size = sum(len(getattr(block, "text", "")) for block in final.content)
    assert peak < 16 * text_size
    back = call.message_at(count - 300).message  # a step back still folds from a checkpoint
    assert back == assemble_message([call.event(k) for k in range(count - 299)])


def test_a_fold_asked_to_stop_stops_and_resumes_later(tmp_path: Path) -> None:
    call = loaded_calls(
        write_rows(tmp_path / "r.jsonl", [header(), *call_rows(0, [f"w{n} " for n in range(5000)])])
    )[0]
    asked = []

    def stop() -> bool:
        asked.append(True)
        return len(asked) > 2

    with pytest.raises(events_model.FoldStopped):
        call.message_at(call.event_count - 1, stop=stop)
    # What was folded is kept:
    assert call.fold.fold_work(call.event_count - 1) < call.event_count - 1
    events = scan_recording(tmp_path / "r.jsonl").calls[0].events
    assert call.message_at(call.event_count - 1).message == assemble_message(events)
