"""Keys before background work: an indexer asking for its turn waits while a key is handled."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.recording_files import write_recording
from tui.model.recording_index import KeyPriority, RecordingIndex


class Clock:
    """A clock that moves only when the waiting thread sleeps (and a key may arrive meanwhile)."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []
        self.during_sleep: list[object] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds
        if self.during_sleep:
            self.during_sleep.pop(0)()  # type: ignore[operator]


def test_no_key_no_wait() -> None:
    clock = Clock()
    keys = KeyPriority(clock, clock.sleep)
    keys.wait_turn()
    assert clock.sleeps == []


def test_a_key_holds_background_work_until_its_time_is_up() -> None:
    clock = Clock()
    keys = KeyPriority(clock, clock.sleep)
    keys.key_arrived(hold=0.15)
    clock.now += 0.05  # the indexer reaches its next turn 50 ms later
    keys.wait_turn()
    assert clock.sleeps == [0.1]
    keys.wait_turn()  # the hold is over: no more waiting
    assert clock.sleeps == [0.1]


def test_keys_arriving_while_it_waits_keep_it_waiting_from_the_last_key() -> None:
    clock = Clock()
    keys = KeyPriority(clock, clock.sleep)
    keys.key_arrived(hold=0.15)
    clock.during_sleep.append(lambda: keys.key_arrived(hold=0.15))  # another key, at 150 ms
    keys.wait_turn()
    assert clock.sleeps == [0.15, 0.15]
    assert clock.now == pytest.approx(100.3)


def test_the_index_does_not_advance_while_a_key_is_held(tmp_path: Path) -> None:
    """A real index in a real thread: held at its first turn, it goes on once the hold ends."""
    path = write_recording(tmp_path / "calls.jsonl", [f"call {n}" for n in range(40)])
    index = RecordingIndex.open(path)
    asked = threading.Event()
    release = threading.Event()

    def sleep(seconds: float) -> None:
        asked.set()
        release.wait(10)
        keys._until = 0.0  # the key was handled

    keys = KeyPriority(sleep=sleep)
    keys.key_arrived(hold=60)
    index.keys = keys
    builder = threading.Thread(target=index.build)
    builder.start()
    try:
        assert asked.wait(10)
        lines_while_held = index.line_count
        assert not index.complete
    finally:
        release.set()
        builder.join(10)
        index.close()
    assert lines_while_held <= 64  # it stopped at its first turn
    assert index.complete and index.line_count > lines_while_held
