"""Replay pace (issue #33): events wait for their recorded time divided by the pace; None is instant."""

from __future__ import annotations

import asyncio
import itertools
import re
from pathlib import Path

import pytest

from openprogram.providers import Context, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording import replayer as replayer_module
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.recording.replayer import ReplayProvider
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.scripted import ScriptedProvider, echo_responder
from openprogram.providers.types import MAX_CALL_MS
from tests.helpers import SCRIPTED_MODEL


def recorded(path: Path) -> Path:
    """One echo call recorded with a clock moving 100 ms per reading."""
    ticks = itertools.count()
    sink = RecordingSink(path, clock=lambda: next(ticks) * 0.1)
    provider = RecordingProvider(ScriptedProvider(responder=echo_responder), sink)

    async def run() -> None:
        async for _ in provider.stream(
            SCRIPTED_MODEL, Context(messages=[UserMessage(content="hi")])
        ):
            pass

    asyncio.run(run())
    sink.close()
    return path


def waits(path: Path, pace: float | None, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits replay asks for, with the clock standing still (nothing is timed)."""
    asked: list[float] = []

    async def sleep(seconds: float) -> None:
        asked.append(round(seconds, 6))

    monkeypatch.setattr(replayer_module.asyncio, "sleep", sleep)
    monkeypatch.setattr(replayer_module.time, "monotonic", lambda: 0.0)
    provider = ReplayProvider(path, pace=pace)

    async def run() -> None:
        async for _ in provider.stream(
            SCRIPTED_MODEL, Context(messages=[UserMessage(content="hi")])
        ):
            pass

    asyncio.run(run())
    return asked


def test_pace_waits_for_each_event_at_its_recorded_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = recorded(tmp_path / "r.jsonl")
    (call,) = ReplayProvider(path).recording.calls
    times = [ms / 1000 for ms in call.event_ms if ms]
    assert times and times == sorted(times)
    assert waits(path, 1.0, monkeypatch) == [round(t, 6) for t in times]
    assert waits(path, 2.0, monkeypatch) == [round(t / 2, 6) for t in times]
    assert waits(path, None, monkeypatch) == []


@pytest.mark.parametrize("pace", [0.0, -1.0, float("nan"), float("inf")])
def test_a_pace_that_is_not_a_positive_number_is_refused(tmp_path: Path, pace: float) -> None:
    with pytest.raises(ValueError, match="pace must be a positive number"):
        ReplayProvider(recorded(tmp_path / "r.jsonl"), pace=pace)


def _event_at(path: Path, ms: int) -> Path:
    """`path` with its last event recorded `ms` milliseconds into the call."""
    lines = path.read_bytes().splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if line.endswith(b'"type":"event"}\n'))
    lines[last] = re.sub(rb'"ms":\d+', b'"ms":%d' % ms, lines[last])
    path.write_bytes(b"".join(lines))
    return path


def test_the_longest_wait_a_file_can_ask_for_is_the_readers_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _event_at(recorded(tmp_path / "r.jsonl"), MAX_CALL_MS)
    assert waits(path, 1.0, monkeypatch)[-1] == MAX_CALL_MS / 1000 == 7 * 24 * 3600


@pytest.mark.parametrize("ms", [10**15, 10**400])
def test_a_wait_past_the_bound_is_refused_when_the_file_is_opened(tmp_path: Path, ms: int) -> None:
    path = _event_at(recorded(tmp_path / "r.jsonl"), ms)
    with pytest.raises(RecordingFileError, match=r"event row field ms: Input should be less"):
        ReplayProvider(path, pace=1.0)
