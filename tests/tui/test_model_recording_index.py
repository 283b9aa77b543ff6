"""The line index: offsets, kinds and call spans agree with the strict reader, without Textual;
its threads wait while a key is handled, and two indexes side by side wait after a screenful."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import scan_recording
from tests.recording_files import write_recording
from tests.recordings.test_diff import record, text
from tests.tui.tui_rows import call_end, call_rows, event, header, request, text_events, write_rows
from tui.model.recording_index import (
    KIND_BAD,
    KIND_BLANK,
    KIND_CALL_END,
    KIND_EVENT,
    KIND_HEADER,
    KIND_REQUEST,
    KIND_TRUNCATED,
    IndexPair,
    KeyPriority,
    RecordingIndex,
)


def built(path: Path) -> RecordingIndex:
    index = RecordingIndex.open(path)
    index.build()
    return index


def test_demo_spans_match_the_strict_reader(demo_file: Path) -> None:
    index = built(demo_file)
    scan = scan_recording(demo_file)
    assert index.complete and index.published_calls == len(scan.calls) == 5
    assert index.format_version == 2
    for span, call in zip(index.calls, scan.calls, strict=True):
        assert span.request_line + 1 == call.first_line
        assert span.end_line is not None and span.end_line + 1 == call.last_line
        assert span.event_count == len(call.events)
    assert index.kinds[0] == KIND_HEADER
    assert set(index.kinds) == {KIND_HEADER, KIND_REQUEST, KIND_EVENT, KIND_CALL_END}
    index.close()


def test_lines_are_returned_as_stored(demo_file: Path) -> None:
    index = built(demo_file)
    stored = demo_file.read_bytes().split(b"\n")
    assert [index.line(n) for n in range(index.line_count)] == stored[:-1]
    index.close()


def test_truncated_last_line_and_unfinished_call(damaged_file: Path) -> None:
    index = built(damaged_file)
    assert index.kinds[-1] == KIND_TRUNCATED
    last = index.calls[-1]
    assert not last.finished
    assert index.line_count - 1 in last.stray_lines
    assert all(span.finished for span in index.calls[:-1])
    index.close()


def test_blank_and_garbage_lines_are_kept_apart(tmp_path: Path) -> None:
    rows = [header(), *call_rows(0, ["a"]), b"\n", b"{not json}\n", *call_rows(1, ["b"])]
    index = built(write_rows(tmp_path / "r.jsonl", rows))
    assert KIND_BLANK in index.kinds and KIND_BAD in index.kinds
    assert len(index.calls) == 2 and index.calls[1].event_count == len(text_events(["b"]))
    assert index.stray_lines == [len(call_rows(0, ["a"])) + 2]


def test_garbage_inside_a_call_belongs_to_that_call(tmp_path: Path) -> None:
    rows = call_rows(0, ["a", "b"])
    rows.insert(3, b'{"call_index":0,"event":\n')
    index = built(write_rows(tmp_path / "r.jsonl", [header(), *rows]))
    assert index.calls[0].stray_lines == [4]
    assert 4 in index.calls[0].line_numbers()
    assert index.calls[0].holds(4) and index.calls[0].line_total == len(rows)


def test_unclassifiable_tail_falls_back_to_the_row_parser(tmp_path: Path) -> None:
    # An extra key sorting after "type" hides the type from the tail; the strict parser still knows.
    odd = request(0).replace(b'"type":"request"}', b'"type":"request","zz":1}')
    payloads = text_events(["x"])
    rows = [
        header(),
        odd,
        *(event(0, n, p) for n, p in enumerate(payloads)),
        call_end(0, len(payloads)),
    ]
    index = built(write_rows(tmp_path / "r.jsonl", rows))
    assert index.kinds[1] == KIND_REQUEST
    assert index.calls[0].event_count == len(payloads)


def test_interleaved_calls_are_told_apart_by_their_rows(tmp_path: Path) -> None:
    first, second = text_events(["a", "b"]), text_events(["c"])
    rows = [header(), request(0), request(1)]
    for n in range(max(len(first), len(second))):
        if n < len(first):
            rows.append(event(0, n, first[n]))
        if n < len(second):
            rows.append(event(1, n, second[n]))
    rows += [call_end(1, len(second)), call_end(0, len(first))]
    path = write_rows(tmp_path / "r.jsonl", rows)
    index = built(path)
    assert index.interleaved
    scan = scan_recording(path)
    assert scan.valid
    for span, call in zip(index.calls, scan.calls, strict=True):
        assert span.event_count == len(call.events)
        assert span.end_line is not None and span.end_line + 1 == call.last_line
    lines = [index.calls[0].line_numbers(), index.calls[1].line_numbers()]
    assert sorted(lines[0] + lines[1]) == list(range(1, len(rows)))  # each line in one call
    for span, own in zip(index.calls, lines, strict=True):
        assert own == sorted(own) and span.line_total == len(own)
        assert [n for n in range(len(rows)) if span.holds(n)] == own


def test_empty_file_is_complete_with_no_calls(tmp_path: Path) -> None:
    index = built(write_rows(tmp_path / "empty.jsonl", []))
    assert index.complete and index.calls == [] and index.line_count == 0


def test_missing_and_non_regular_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(RecordingFileError, match="file not found"):
        RecordingIndex.open(tmp_path / "nope.jsonl")
    with pytest.raises(RecordingFileError, match="not a regular file"):
        RecordingIndex.open(tmp_path)


def test_progress_publishes_calls_before_the_end(tmp_path: Path) -> None:
    rows = [header()]
    for n in range(40):
        rows += call_rows(n, ["w"] * 30)
    index = RecordingIndex.open(write_rows(tmp_path / "r.jsonl", rows))
    seen: list[tuple[int, bool]] = []
    index.build(lambda ix: seen.append((ix.published_calls, ix.complete)), interval=0.0)
    assert seen[0][0] >= 1 and not seen[0][1]
    assert seen[-1] == (40, True)
    assert [calls for calls, _ in seen] == sorted(calls for calls, _ in seen)


def test_close_while_building_stops_and_releases(tmp_path: Path) -> None:
    rows = [header()]
    for n in range(300):
        rows += call_rows(n, ["w"] * 40)
    index = RecordingIndex.open(write_rows(tmp_path / "r.jsonl", rows))
    started = threading.Event()
    worker = threading.Thread(
        target=index.build, args=(lambda ix: started.set(),), kwargs={"interval": 0}
    )
    worker.start()
    started.wait(5)
    index.close()
    worker.join(5)
    assert not worker.is_alive()
    assert index.line(0) == b""  # released


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    words=st.lists(
        st.lists(st.sampled_from(["a", "b c", "é", "\n", '"q"']), max_size=6), max_size=6
    )
)
def test_any_sequence_of_calls_indexes_like_the_reader(
    tmp_path: Path, words: list[list[str]]
) -> None:
    rows = [header()]
    for n, call_words in enumerate(words):
        rows += call_rows(n, call_words)
    path = write_rows(tmp_path / "h.jsonl", rows)
    index = built(path)
    scan = scan_recording(path)
    assert scan.valid
    assert [s.event_count for s in index.calls] == [len(c.events) for c in scan.calls]
    assert [s.request_line + 1 for s in index.calls] == [c.first_line for c in scan.calls]
    index.close()


# Keys before background work: an indexer asking for its turn waits while a key is handled.


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


# Two recordings indexed side by side: the first screen of calls first, then the rest.


async def many_calls(path: Path, count: int) -> Path:
    return await record(path, [(f"say {n}", text(f"answer {n}")) for n in range(count)])


def until_found(pair: IndexPair, calls: int) -> None:
    deadline = time.monotonic() + 30
    while pair.common_calls < calls:
        assert time.monotonic() < deadline, f"{pair.common_calls} calls found, not {calls}"
        pair.wait(0.1)


async def test_the_indexes_wait_after_a_screen_of_calls_until_resumed(tmp_path: Path) -> None:
    a = await many_calls(tmp_path / "a.jsonl", 150)
    b = await many_calls(tmp_path / "b.jsonl", 150)
    pair = IndexPair(a, b)
    try:
        pair.start(first_screen=5)
        until_found(pair, 5)
        # Each thread is waiting in its first progress report: neither file is indexed whole.
        assert not any(index.complete for index in pair.indexes.values())
        assert not pair.indexed
        pair.resume()
        pair.join()
        assert [len(index.calls) for index in pair.indexes.values()] == [150, 150]
        assert pair.common_calls == 150
    finally:
        pair.close()


async def test_closing_a_waiting_pair_lets_its_threads_end(tmp_path: Path) -> None:
    a = await many_calls(tmp_path / "a.jsonl", 150)
    pair = IndexPair(a, a)
    pair.start(first_screen=5)
    until_found(pair, 5)
    pair.close()
    pair.join()  # returns: closing resumes the threads, which stop
    assert pair.indexed
