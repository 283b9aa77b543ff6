"""The fsync after each call is done by a helper process, yet at most the last finished call waits for it.

The helper's `fsync` is the edge to the disk: where a test must hold it (to see who waits) or fail
it, the helper's program is given a gate or an error in front of that one call. Everything else,
the sink, its locks, the pipes, the helper process and the strict reader, is the real thing.
"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from openprogram.providers.recording import background_sync
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.writer import RecordingSink, RecordingWriteError
from tests.recording_files import REPO_ROOT

REQUEST = {"model": {"id": "m"}, "context": {"messages": []}, "options": None}
TEXT = {"content_index": 0, "delta": "hi", "type": "text_delta"}
REAL_FSYNC = "        os.fsync(fd)\n"
assert REAL_FSYNC in background_sync.HELPER


class Gate:
    """Holds every `fsync` of the helper until `open()` (a file the helper waits for)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def open(self) -> None:
        self.path.touch()


@pytest.fixture
def gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    held = Gate(tmp_path / "disk-may-go")
    wait = (
        "        import time\n"
        "        deadline = time.monotonic() + 30\n"
        f"        while not os.path.exists({str(held.path)!r}) and time.monotonic() < deadline:\n"
        "            time.sleep(0.005)\n"
    )
    monkeypatch.setattr(
        background_sync, "HELPER", background_sync.HELPER.replace(REAL_FSYNC, wait + REAL_FSYNC)
    )
    yield held
    held.open()


def new_sink(path: Path) -> RecordingSink:
    """A sink past its first call (whose fsync is always done in place): its helper is running."""
    sink = RecordingSink(path)
    record_call(sink)
    return sink


def record_call(sink: RecordingSink) -> int:
    call = sink.begin_call(REQUEST)
    sink.write_event(call, 0, TEXT)
    sink.end_call(call, 1, "complete")
    return call


def blocked(work: Callable[[], object]) -> threading.Thread:
    """Run `work` in a thread; it must still be running a moment later."""
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(0.5)
    assert thread.is_alive(), "it did not wait for the disk"
    return thread


def test_a_call_is_in_the_file_and_returns_before_its_fsync_is_done(
    tmp_path: Path, gate: Gate
) -> None:
    sink = new_sink(tmp_path / "r.jsonl")
    record_call(sink)  # returns while the helper's fsync is held
    assert [c.outcome for c in read_recording(sink.path).calls] == ["complete"] * 2
    gate.open()
    sink.close()


def test_the_next_call_end_waits_for_the_previous_call_s_fsync(tmp_path: Path, gate: Gate) -> None:
    sink = new_sink(tmp_path / "r.jsonl")
    record_call(sink)
    third = blocked(lambda: record_call(sink))
    gate.open()
    third.join(10)
    assert not third.is_alive()
    sink.close()
    assert len(read_recording(sink.path).calls) == 3


def test_close_waits_for_the_last_fsync(tmp_path: Path, gate: Gate) -> None:
    sink = new_sink(tmp_path / "r.jsonl")
    record_call(sink)
    closing = blocked(sink.close)
    gate.open()
    closing.join(10)
    assert not closing.is_alive()


def test_a_failed_fsync_stops_the_next_call_and_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = "        raise OSError(5, 'Input/output error')\n"
    monkeypatch.setattr(
        background_sync, "HELPER", background_sync.HELPER.replace(REAL_FSYNC, failing)
    )
    sink = new_sink(tmp_path / "r.jsonl")
    record_call(sink)
    call = sink.begin_call(REQUEST)
    with pytest.raises(RecordingWriteError) as caught:
        sink.end_call(call, 0, "complete")
    assert str(sink.path) in str(caught.value) and "Input/output error" in str(caught.value)
    sink.end_call(call, 0, "error", "the recording could not be synced")  # reported once
    with pytest.raises(RecordingWriteError):
        sink.close()  # the last fsync failed too


def helper_pids() -> set[int]:
    """The fsync helpers of this process (its children running the helper program)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and is_helper_of_ours(entry):
            found.add(int(entry.name))
    return found


def is_helper_of_ours(entry: Path) -> bool:
    try:
        if f"PPid:\t{os.getpid()}\n" not in (entry / "status").read_text():
            return False
        # Just after it was started its command line can still read empty for a moment.
        deadline = time.monotonic() + 2
        while not (command := (entry / "cmdline").read_bytes()) and time.monotonic() < deadline:
            time.sleep(0.01)
    except OSError:
        return False
    return b"os.fsync(fd)" in command


def test_a_killed_helper_is_done_without_and_every_call_still_reaches_the_file(
    tmp_path: Path,
) -> None:
    before = helper_pids()
    sink = new_sink(tmp_path / "r.jsonl")
    record_call(sink)
    (pid,) = helper_pids() - before
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    for _ in range(3):
        record_call(sink)  # the sink notices and syncs the file itself
    sink.close()
    assert len(read_recording(sink.path).calls) == 5
    assert helper_pids() - before == set()


def test_without_a_python_to_start_the_helper_the_sink_syncs_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(background_sync.sys, "executable", "")
    before = helper_pids()
    sink = new_sink(tmp_path / "r.jsonl")
    record_call(sink)
    record_call(sink)
    sink.close()
    assert len(read_recording(sink.path).calls) == 3 and helper_pids() - before == set()


def test_one_call_starts_no_helper_and_close_or_dropping_the_sink_stops_it(tmp_path: Path) -> None:
    before = helper_pids()
    single = RecordingSink(tmp_path / "one.jsonl")
    record_call(single)
    assert helper_pids() - before == set()
    single.close()
    closed = new_sink(tmp_path / "closed.jsonl")
    record_call(closed)
    assert len(helper_pids() - before) == 1
    closed.close()
    assert helper_pids() - before == set()
    dropped = new_sink(tmp_path / "dropped.jsonl")
    record_call(dropped)
    assert len(helper_pids() - before) == 1
    del dropped  # never closed: the helper still goes
    gc.collect()
    assert helper_pids() - before == set()


FORKED = textwrap.dedent(
    """
    import os, sys
    from openprogram.providers.recording.reader import read_recording
    from openprogram.providers.recording.writer import RecordingSink

    sink = RecordingSink(sys.argv[1])
    request = {"model": {"id": "m"}, "context": {"messages": []}, "options": None}

    def call():
        index = sink.begin_call(request)
        sink.end_call(index, 0, "complete")

    call()  # its fsync may still be running in the parent's helper
    pid = os.fork()
    if pid == 0:
        call()  # the child starts its own helper and never waits for the parent's
        sink.close()
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    call()
    sink.close()
    assert os.waitstatus_to_exitcode(status) == 0
    print(len(read_recording(sys.argv[1]).calls))
    """
)


def test_a_forked_child_records_with_its_own_helper(tmp_path: Path) -> None:
    child = subprocess.run(
        [sys.executable, "-c", FORKED, str(tmp_path / "r.jsonl")],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "3"
