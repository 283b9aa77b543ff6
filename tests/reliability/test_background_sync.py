"""The fsync after each call runs off the caller's path, yet at most the last finished call waits for it.

`os.fsync` is the edge to the disk, so it is the one thing replaced here (by a gate the test opens):
the sink, its locks, the rows and the strict reader are the real ones.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from openprogram.providers import background_sync
from openprogram.providers.recording_reader import read_recording
from openprogram.providers.recording_sink import RecordingSink, RecordingWriteError
from tests.recording_files import REPO_ROOT

REQUEST = {"model": {"id": "m"}, "context": {"messages": []}, "options": None}
TEXT = {"content_index": 0, "delta": "hi", "type": "text_delta"}


class Disk:
    """`os.fsync` held until `release()`; records the descriptors it was asked to sync."""

    def __init__(self) -> None:
        self.synced: list[int] = []
        self.started = threading.Semaphore(0)
        self.gate = threading.Event()
        self.error: OSError | None = None

    def fsync(self, fd: int) -> None:
        os.fstat(fd)  # the descriptor is still open while it is synced
        self.started.release()
        assert self.gate.wait(10), "the test never released the disk"
        self.synced.append(fd)
        if self.error is not None:
            raise self.error

    def release(self) -> None:
        self.gate.set()


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[Disk]:
    held = Disk()
    monkeypatch.setattr(background_sync.os, "fsync", held.fsync)
    yield held
    held.release()


def record_call(sink: RecordingSink) -> int:
    call = sink.begin_call(REQUEST)
    sink.write_event(call, 0, TEXT)
    sink.end_call(call, 1, "complete")
    return call


def in_thread(work: object) -> threading.Thread:
    thread = threading.Thread(target=work, daemon=True)  # type: ignore[arg-type]
    thread.start()
    return thread


def test_a_call_is_in_the_file_before_its_fsync_finishes(tmp_path: Path, disk: Disk) -> None:
    sink = RecordingSink(tmp_path / "r.jsonl")
    record_call(sink)  # returns although the disk has not finished
    assert disk.started.acquire(timeout=10)
    assert [c.outcome for c in read_recording(sink.path).calls] == ["complete"]
    disk.release()
    sink.close()
    assert len(disk.synced) == 1


def test_the_next_call_end_waits_for_the_previous_call_s_fsync(tmp_path: Path, disk: Disk) -> None:
    sink = RecordingSink(tmp_path / "r.jsonl")
    record_call(sink)
    assert disk.started.acquire(timeout=10)
    second = in_thread(lambda: record_call(sink))
    second.join(0.3)
    assert second.is_alive(), "call 1 ended while call 0 was not yet on disk"
    disk.release()
    second.join(10)
    assert not second.is_alive()
    sink.close()
    assert len(disk.synced) == 2
    assert len(read_recording(sink.path).calls) == 2


def test_close_waits_for_the_last_fsync_before_closing_the_file(tmp_path: Path, disk: Disk) -> None:
    sink = RecordingSink(tmp_path / "r.jsonl")
    record_call(sink)
    assert disk.started.acquire(timeout=10)
    closing = in_thread(sink.close)
    closing.join(0.3)
    assert closing.is_alive(), "close() returned before the last call was on disk"
    disk.release()
    closing.join(10)
    assert not closing.is_alive() and len(disk.synced) == 1


def test_a_failed_fsync_stops_the_next_call_and_names_the_file(tmp_path: Path, disk: Disk) -> None:
    disk.error = OSError(errno.EIO, "Input/output error")
    disk.release()
    sink = RecordingSink(tmp_path / "r.jsonl")
    record_call(sink)
    call = sink.begin_call(REQUEST)
    with pytest.raises(RecordingWriteError) as caught:
        sink.end_call(call, 0, "complete")
    assert str(sink.path) in str(caught.value) and "Input/output error" in str(caught.value)
    sink.end_call(call, 0, "error", "the recording could not be synced")  # reported once
    with pytest.raises(RecordingWriteError):
        sink.close()  # the last fsync failed too


FORKED = textwrap.dedent(
    """
    import os, sys
    from openprogram.providers.recording_reader import read_recording
    from openprogram.providers.recording_sink import RecordingSink

    sink = RecordingSink(sys.argv[1])
    request = {"model": {"id": "m"}, "context": {"messages": []}, "options": None}

    def call():
        index = sink.begin_call(request)
        sink.end_call(index, 0, "complete")

    call()  # its fsync may still be running in the parent's helper thread
    pid = os.fork()
    if pid == 0:
        call()  # the child starts its own helper thread and never waits for the parent's
        sink.close()
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    call()
    sink.close()
    assert os.waitstatus_to_exitcode(status) == 0
    print(len(read_recording(sys.argv[1]).calls))
    """
)


def test_a_forked_child_records_with_its_own_fsync_thread(tmp_path: Path) -> None:
    child = subprocess.run(
        [sys.executable, "-c", FORKED, str(tmp_path / "r.jsonl")],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "3"
