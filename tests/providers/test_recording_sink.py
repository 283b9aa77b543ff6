"""Appends from many threads and processes stay strictly valid; files are private and linear."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from openprogram.providers import Context, Model, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.scripted import ScriptedProvider, TextStep
from tests.recording_files import append_concurrently

REPO = Path(__file__).resolve().parents[2]


def test_three_processes_two_threads_twenty_calls_each_stay_strictly_valid(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    append_concurrently(path, processes=3, threads=2, calls=20)
    recording = read_recording(path)
    assert [call.call_index for call in recording.calls] == list(range(120))
    prompts = {call.request.context["messages"][0]["content"] for call in recording.calls}
    assert len(prompts) == 120, "every call of every worker is in the file exactly once"
    assert all(call.outcome == "complete" for call in recording.calls)


async def test_a_two_thousand_delta_stream_records_linearly_under_one_megabyte(
    tmp_path: Path,
) -> None:
    path = tmp_path / "long.jsonl"
    text = "word " * 2000
    model = Model(id="m", api="scripted", provider="scripted")
    recorder = RecordingProvider(ScriptedProvider([[TextStep(text=text)]]), path)
    events = [
        e async for e in recorder.stream(model, Context(messages=[UserMessage(content="go")]))
    ]
    assert sum(e.type == "text_delta" for e in events) == 2000
    size = path.stat().st_size
    assert size < 1_000_000
    # no cumulative snapshot: per delta row, a fixed envelope plus the delta itself
    assert size / 2000 < 250, f"{size / 2000:.0f} bytes per delta"


def test_new_files_are_private_and_existing_ones_are_appended_never_truncated(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.jsonl"
    sink = RecordingSink(path)
    sink.ensure_header()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    call = sink.begin_call({"model": {}, "context": {}, "options": None})
    sink.end_call(call, 0, "complete")
    sink.close()
    before = path.read_bytes()
    second = RecordingSink(path)
    assert second.begin_call({"model": {}, "context": {}, "options": None}) == 1
    second.end_call(1, 0, "complete")
    assert path.read_bytes().startswith(before)
    assert [c.call_index for c in read_recording(path).calls] == [0, 1]


def test_symlinks_wide_permissions_and_foreign_files_are_refused(
    tmp_path: Path, openprogram_home: Path
) -> None:
    """The one file policy, applied to the file the writer opened: no symlink, a regular file,
    0600 when managed (a file given by path keeps its mode: git checks files out 0644)."""
    target = tmp_path / "target.jsonl"
    target.write_text("precious\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    with pytest.raises(RecordingFileError, match="is a symlink; refusing to follow it"):
        RecordingSink(link).ensure_header()
    assert target.read_text() == "precious\n"

    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(RecordingFileError, match="cannot record into it: is not a regular file"):
        RecordingSink(fifo).ensure_header()

    managed = openprogram_home / "recordings" / "wide.jsonl"
    managed.parent.mkdir(parents=True)
    managed.write_text('{"format_version":2,"type":"header"}\n')
    managed.chmod(0o644)
    with pytest.raises(RecordingFileError, match=r"permissions 0644 are too wide .* chmod 600"):
        RecordingSink(managed).ensure_header()

    committed = tmp_path / "committed.jsonl"  # given by path, as git checked it out
    RecordingSink(committed).ensure_header()
    committed.chmod(0o644)
    sink = RecordingSink(committed)
    sink.end_call(sink.begin_call({"model": {}, "context": {}, "options": None}), 0, "complete")
    sink.close()
    assert len(read_recording(committed).calls) == 1
    assert stat.S_IMODE(committed.stat().st_mode) == 0o644

    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text('{"format_version":9,"type":"header"}\n')
    foreign.chmod(0o600)
    with pytest.raises(RecordingFileError, match="format_version 9"):
        RecordingSink(foreign).begin_call({"model": {}, "context": {}, "options": None})
    assert foreign.read_text() == '{"format_version":9,"type":"header"}\n'


async def test_every_finished_call_is_on_disk_before_its_last_event_is_delivered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No finished call is left unsynced: `done` reaches the caller only after the fsync that
    covers its `call_end` (the disk is the edge: fsync is observed, not replaced)."""
    import os as os_module

    path = tmp_path / "synced.jsonl"
    synced_sizes: list[int] = []
    real_fsync = os_module.fsync

    def observed_fsync(fd: int) -> None:
        real_fsync(fd)
        synced_sizes.append(os_module.fstat(fd).st_size)

    monkeypatch.setattr(os_module, "fsync", observed_fsync)
    model = Model(id="m", api="scripted", provider="scripted")
    script = ScriptedProvider([[TextStep(text="one two")], [TextStep(text="three")]])
    recorder = RecordingProvider(script, path)
    for said in ("first", "second"):
        async for event in recorder.stream(model, Context(messages=[UserMessage(content=said)])):
            if event.type == "done":
                assert synced_sizes and synced_sizes[-1] == path.stat().st_size
                assert path.read_bytes().rstrip(b"\n").endswith(b'"type":"call_end"}')
    assert len(read_recording(path).calls) == 2


async def test_a_failed_fsync_fails_the_call_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import os as os_module

    from openprogram.providers.recording import RecordingWriteError

    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    path = tmp_path / "eio.jsonl"
    recorder = RecordingProvider(ScriptedProvider([[TextStep(text="hi")]]), path)
    recorder.sink.ensure_header()
    monkeypatch.setattr(os_module, "fsync", failing_fsync)
    model = Model(id="m", api="scripted", provider="scripted")
    delivered: list[str] = []
    with pytest.raises(RecordingWriteError) as caught:
        async for event in recorder.stream(model, Context(messages=[UserMessage(content="go")])):
            delivered.append(event.type)
    assert str(path) in str(caught.value) and "done" not in delivered


def test_a_sink_creates_its_folder_and_header_when_constructed(tmp_path: Path) -> None:
    path = tmp_path / "new" / "deeper" / "session.jsonl"
    sink = RecordingSink(path, {"recording_id": "session"})
    sink.close()
    recording = read_recording(path)  # a bare sink leaves a file that replays (zero calls)
    assert len(recording.calls) == 0 and recording.header.model_extra == {"recording_id": "session"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_recorder_aimed_at_an_unusable_path_fails_when_constructed(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    with pytest.raises(RecordingFileError, match="cannot create its folder") as caught:
        RecordingProvider(ScriptedProvider([[TextStep(text="hi")]]), blocker / "r.jsonl")
    assert caught.value.path == blocker / "r.jsonl"
    recorder = RecordingProvider(ScriptedProvider([[TextStep(text="hi")]]), tmp_path / "r.jsonl")
    recorder.sink.close()
    assert len(read_recording(tmp_path / "r.jsonl").calls) == 0  # the header is there before a call
