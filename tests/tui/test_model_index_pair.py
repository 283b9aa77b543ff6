"""Two recordings indexed side by side: the first screen of calls first, then the rest."""

from __future__ import annotations

import time
from pathlib import Path

from tests.recordings.test_diff import record, text
from tui.model.recording_index import IndexPair


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
