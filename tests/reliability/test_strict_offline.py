"""Every replay path runs with sockets and HTTP clients made to fail: none is ever attempted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx
import pytest

from openprogram.providers import Model, complete, register_api_provider
from openprogram.providers.api_registry import _reset_runtime
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.activation import RecordReplayBlockedError
from openprogram.providers.recording.config import RecordReplayConfig, write_record_replay_config
from openprogram.providers.recording.errors import RecordingFileError
from openprogram.providers.replay import ReplayMismatch, ReplayProvider
from openprogram.providers.scripted import ScriptedProvider, echo_responder
from openprogram.recordings import record_command, run_check
from tests.helpers import run_echo_agent
from tests.recording_files import REPO_ROOT


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    path = tmp_path / "echo.jsonl"
    register_api_provider(
        "scripted", RecordingProvider(ScriptedProvider(responder=echo_responder), path)
    )
    import asyncio

    asyncio.run(run_echo_agent("hi"))
    return path


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, sockets_blocked: list[object]) -> list[object]:
    """Sockets and httpx clients fail; the list collects every attempt."""

    def no_client(self: object, *args: object, **kwargs: object) -> None:
        sockets_blocked.append("httpx client")
        raise RuntimeError("HTTP client construction refused by the test")

    monkeypatch.setattr(httpx.Client, "__init__", no_client)
    monkeypatch.setattr(httpx.AsyncClient, "__init__", no_client)
    return sockets_blocked


async def test_match_mismatch_and_exhaustion_never_reach_the_network(
    recording: Path, offline: list[object]
) -> None:
    replay = ReplayProvider(recording)
    register_api_provider("scripted", replay)
    await run_echo_agent("hi")  # match
    with pytest.raises(ReplayMismatch):
        await run_echo_agent("hi")  # exhaustion: call 2 of 2
    other = ReplayProvider(recording)
    register_api_provider("scripted", other)
    with pytest.raises(ReplayMismatch):
        await run_echo_agent("bye")  # mismatch at call 0
    assert offline == []


def test_a_damaged_file_fails_at_construction_without_any_client(
    recording: Path, offline: list[object]
) -> None:
    recording.write_bytes(recording.read_bytes()[:-10])
    with pytest.raises(RecordingFileError):
        ReplayProvider(recording)
    assert offline == []


async def test_a_blocked_configuration_refuses_every_api_offline(
    recording: Path, offline: list[object], openprogram_home: Path
) -> None:
    _reset_runtime()  # recording the fixture started the runtime with mode off
    write_record_replay_config(RecordReplayConfig(mode="replay", file=str(recording) + ".missing"))
    for api in ("openai-completions", "anthropic-messages", "scripted"):
        model = Model(id="m", api=api, provider="openai")
        with pytest.raises(RecordReplayBlockedError):
            await complete(
                model, __import__("openprogram.providers", fromlist=["Context"]).Context()
            )
    assert offline == []


def test_the_check_child_never_opens_a_socket_or_builds_a_client(
    offline_children: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = offline_children
    program = [sys.executable, "examples/echo_agent.py"]
    made = record_command([*program, "hi"], name="echo", cwd=str(REPO_ROOT))
    assert made.exit_code == 0 and made.path is not None
    recording = Path(made.path)
    log.write_text("")  # recording the scripted agent is allowed to do anything; replay is not
    assert run_check(str(recording), program, cwd=str(REPO_ROOT)).status == "ok"
    assert run_check(str(recording), [*program, "bye"], cwd=str(REPO_ROOT)).status == "mismatch"
    # a real-vendor model in replay: still answered (or refused) from the file, never live
    monkeypatch.setenv("OPENPROGRAM_EXAMPLE_MODEL", "openai:gpt-4o-mini")
    result = run_check(str(recording), program, cwd=str(REPO_ROOT))
    assert result.status == "mismatch" and result.mismatch is not None
    assert result.mismatch.kind == "request"
    assert result.mismatch.field_path is not None and result.mismatch.field_path.startswith(
        "model."
    )
    assert log.read_text() == "", json.dumps(log.read_text())
