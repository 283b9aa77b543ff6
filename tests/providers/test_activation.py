"""Runtime lifecycle with record/replay configured: fresh interpreters, blocked starts, one init."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from openprogram.providers import (
    Context,
    Model,
    UserMessage,
    complete,
    get_api_provider,
    provider_runtime_mode,
    wrap_api_providers,
)
from openprogram.providers import api_registry as runtime_module
from openprogram.providers.api_registry import ApiProvider, provider_runtime_state
from openprogram.providers.recording.activation import BlockedProvider, RecordReplayBlockedError
from openprogram.providers.recording.config import RecordReplayConfig, write_record_replay_config
from openprogram.providers.recording.reader import read_recording
from openprogram.providers.replay import ReplayProvider
from openprogram.providers.runtime import ProviderRuntimeInitializationError, RuntimeState
from openprogram.providers.scripted import ScriptedProvider, echo_responder
from openprogram.providers.stream import drain
from openprogram.recordings import ensure_recordings_dir
from tests.helpers import SCRIPTED_MODEL
from tests.recording_files import REPO_ROOT, run_echo_program, subprocess_env, write_recording

CTX = Context(messages=[UserMessage(content="hello")])
CTX_WITH_NAME = Context(messages=[UserMessage(content="I am Jane")])

BLOCKED_PROGRAM = """
import asyncio, json, socket, sys

attempts = []

def refuse(*args, **kwargs):
    attempts.append(repr(args[1:] or args))
    raise OSError("network is blocked in this test")

socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse

import openprogram.providers.stream

stream_module = sys.modules["openprogram.providers.stream"]  # the package re-exports `stream()`

lookups = []
real_lookup = stream_module.credential_env_var

def spy(provider):
    lookups.append(provider)
    return real_lookup(provider)

stream_module.credential_env_var = spy

from openprogram.providers import (
    Context, Model, UserMessage, complete, get_api_provider, provider_runtime_mode,
)
from openprogram.providers.api_registry import provider_runtime_state

model = Model(
    id="gpt-x", name="GPT", api="openai-completions", provider="openai",
    base_url="http://127.0.0.1:9/v1",
)
result = {"state_before": provider_runtime_state().value}
try:
    asyncio.run(complete(model, Context(messages=[UserMessage(content="hi")])))
    result["error_type"] = None
except Exception as exc:
    result["error_type"] = type(exc).__name__
    result["error"] = str(exc)
    result["cause"] = getattr(exc, "cause", None)
provider = get_api_provider("openai-completions")
result.update(
    state=provider_runtime_state().value,
    mode=provider_runtime_mode(),
    provider=type(provider).__name__,
    same_for_every_api=provider is get_api_provider("scripted"),
    requires_credentials=provider.requires_credentials,
    credential_lookups=lookups,
    socket_attempts=attempts,
)
print(json.dumps(result))
"""


def run_blocked_program(home: Path) -> dict[str, Any]:
    """Call an api that needs a key, in a fresh interpreter with a key set and sockets failing."""
    done = subprocess.run(
        [sys.executable, "-c", BLOCKED_PROGRAM],
        env=subprocess_env(home, OPENAI_API_KEY="sk-test-not-a-real-key-0123456789"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    report["stderr"] = done.stderr
    return report


def replay_missing_file(home: Path) -> str:
    write_record_replay_config(RecordReplayConfig(mode="replay", file="vanished"))
    return "file not found"


def replay_corrupt_file(home: Path) -> str:
    path = write_recording(ensure_recordings_dir() / "damaged.jsonl", ["hi"])
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    write_record_replay_config(RecordReplayConfig(mode="replay", file="damaged"))
    return "line"


def corrupt_config(home: Path) -> str:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text('{"record_replay": {"mode": "replay",')
    return "not valid JSON"


@pytest.mark.parametrize("arrange", [replay_missing_file, replay_corrupt_file, corrupt_config])
def test_a_broken_configuration_starts_the_runtime_blocked_and_nothing_goes_live(
    arrange: Any, openprogram_home: Path
) -> None:
    expected_cause = arrange(openprogram_home)
    report = run_blocked_program(openprogram_home)
    assert report["state_before"] == "new"  # importing started nothing
    assert (report["state"], report["mode"]) == ("ready", "blocked")
    assert report["error_type"] == "RecordReplayBlockedError"
    assert expected_cause in report["cause"]
    assert "openprogram recordings status" in report["error"]
    assert "openprogram recordings off" in report["error"]
    assert (report["provider"], report["same_for_every_api"]) == ("BlockedProvider", True)
    assert report["requires_credentials"] is False
    assert report["credential_lookups"] == [] and report["socket_attempts"] == []
    assert "sk-test-not-a-real-key" not in report["stderr"] + report["error"]


def test_control_with_record_replay_off_the_same_program_looks_up_the_key_and_dials(
    openprogram_home: Path,
) -> None:
    # Proves the spies above are live: a blocked start is what keeps them empty.
    write_record_replay_config(RecordReplayConfig(mode="off"))
    report = run_blocked_program(openprogram_home)
    assert (report["mode"], report["provider"]) == ("off", "OpenAICompletionsProvider")
    assert report["credential_lookups"] == ["openai"] and report["socket_attempts"]


def test_the_fail_closed_provider_never_needs_credentials() -> None:
    assert BlockedProvider.requires_credentials is False
    assert BlockedProvider("cause").requires_credentials is False


def test_concurrent_first_lookups_share_one_initialization(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    entered, release = threading.Event(), threading.Event()

    def held_builtins() -> dict[str, Any]:
        calls.append(1)
        entered.set()
        assert release.wait(timeout=30)  # held until every other caller is waiting for it
        return {"scripted": ScriptedProvider(responder=echo_responder)}

    monkeypatch.setattr(runtime_module, "builtin_providers", held_builtins)
    found: list[object] = []
    lock = threading.Lock()

    def look_up() -> None:
        provider = get_api_provider("scripted")
        with lock:
            found.append(provider)

    threads = [threading.Thread(target=look_up) for _ in range(8)]
    threads[0].start()
    assert entered.wait(timeout=30)
    for thread in threads[1:]:
        thread.start()
    runtime = runtime_module._runtime
    deadline = time.monotonic() + 30
    while len(runtime.condition._waiters) < 7:  # type: ignore[attr-defined]
        assert time.monotonic() < deadline, "the other lookups never waited for the runtime"
        threading.Event().wait(0.001)
    release.set()
    for thread in threads:
        thread.join(timeout=30)
    assert len(calls) == 1 and len(found) == 8
    assert all(provider is found[0] for provider in found)
    assert provider_runtime_state() is RuntimeState.READY and provider_runtime_mode() == "off"


def test_a_program_run_under_record_then_replay_gets_the_recorded_answers_offline(
    openprogram_home: Path,
) -> None:
    ensure_recordings_dir()
    write_record_replay_config(RecordReplayConfig(mode="record", file="session"))
    recorded = run_echo_program(openprogram_home, "hello")
    assert (recorded["mode"], recorded["answer"], recorded["calls"]) == ("record", "echo:hello", 2)
    assert recorded["socket_attempts"] == []

    write_record_replay_config(RecordReplayConfig(mode="replay", file="session"))
    replayed = run_echo_program(openprogram_home, "hello", "--no-scripted")
    assert (replayed["mode"], replayed["provider"]) == ("replay", "ReplayProvider")
    assert (replayed["answer"], replayed["calls"]) == ("echo:hello", 2)
    assert replayed["socket_attempts"] == [] and replayed["requires_credentials"] is False

    diverged = run_echo_program(openprogram_home, "goodbye", "--no-scripted")
    assert diverged["error_type"] == "ReplayMismatch" and "call 0" in diverged["error"]


class UnprintableError(Exception):
    """An exception whose message cannot be read."""

    def __str__(self) -> str:
        raise RuntimeError("no message for you")


def test_a_start_failure_whose_message_cannot_be_read_fails_every_caller_without_a_hang(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken_builtins() -> dict[str, Any]:
        raise UnprintableError

    monkeypatch.setattr(runtime_module, "builtin_providers", broken_builtins)
    with pytest.raises(ProviderRuntimeInitializationError) as first:
        get_api_provider("scripted")
    assert (first.value.stage, first.value.cause_type) == ("register_builtins", "UnprintableError")
    later: list[BaseException] = []

    def look_up() -> None:
        try:
            get_api_provider("scripted")
        except BaseException as exc:
            later.append(exc)

    caller = threading.Thread(target=look_up)
    caller.start()
    caller.join(timeout=30)
    assert not caller.is_alive(), "a later caller waits forever for a failed start"
    assert provider_runtime_state() is RuntimeState.FAILED
    assert [type(exc) for exc in later] == [ProviderRuntimeInitializationError]
    assert str(later[0]) == str(first.value)


def test_a_failure_to_register_the_built_ins_names_no_secret_anywhere_in_its_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0" * 2

    def leaky_builtins() -> dict[str, Any]:
        raise ValueError(f"vendor client refused api_key={key}")

    monkeypatch.setattr(runtime_module, "builtin_providers", leaky_builtins)
    with pytest.raises(ProviderRuntimeInitializationError) as caught:
        get_api_provider("scripted")
    shown = "".join(traceback.format_exception(caught.value))
    assert "ValueError" in shown and "vendor client refused" in shown
    assert key not in shown and key[:20] not in shown


def test_a_blocked_start_under_a_wrapper_already_installed_fails_closed_with_the_diagnostic(
    openprogram_home: Path,
) -> None:
    write_record_replay_config(RecordReplayConfig(mode="replay", file="vanished"))
    seen: list[ApiProvider] = []

    def passing_through(api: str, provider: ApiProvider) -> ApiProvider:
        seen.append(provider)
        return provider

    with wrap_api_providers(passing_through):  # installed before the runtime starts
        provider = get_api_provider("openai-completions")
        assert provider_runtime_mode() == "blocked"
        assert isinstance(provider, BlockedProvider) and seen == [provider]
        with pytest.raises(RecordReplayBlockedError) as caught:
            asyncio.run(complete(Model(id="m", api="openai-completions", provider="openai"), CTX))
    message = str(caught.value)
    assert "file not found" in message
    assert "openprogram recordings status" in message and "openprogram recordings off" in message


def test_record_start_reads_pyproject_once_for_every_api(
    openprogram_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        "[tool.openprogram.record]\n"
        'scrub = [{ path = "**", pattern = "Jane", replace = "<name>" }]\n'
    )
    monkeypatch.chdir(project)
    ensure_recordings_dir()
    write_record_replay_config(RecordReplayConfig(mode="record", file="session"))
    with files_opened() as opened:
        for api in ("openai-completions", "anthropic-messages", "scripted"):
            get_api_provider(api)
    assert provider_runtime_mode() == "record"
    assert opened.count(str(pyproject)) == 1
    asyncio.run(complete(Model(id="m", api="scripted", provider="scripted"), CTX_WITH_NAME))
    recorded = read_recording(ensure_recordings_dir() / "session.jsonl")
    assert "Jane" not in json.dumps(recorded.calls[0].request_payload())
    assert "<name>" in json.dumps(recorded.calls[0].request_payload())


def test_replay_start_reads_pyproject_once_and_its_rules_absorb_a_difference(
    openprogram_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    pyproject = project / "pyproject.toml"
    pyproject.write_text('[tool.openprogram.replay]\nignore = ["context.messages[0].content"]\n')
    monkeypatch.chdir(project)
    write_recording(ensure_recordings_dir() / "session.jsonl", ["hello"])
    write_record_replay_config(RecordReplayConfig(mode="replay", file="session"))
    with files_opened() as opened:
        for api in ("openai-completions", "anthropic-messages", "scripted"):
            replay = get_api_provider(api)
    assert provider_runtime_mode() == "replay"
    assert opened.count(str(pyproject)) == 1
    asyncio.run(
        drain(replay.stream(SCRIPTED_MODEL, Context(messages=[UserMessage(content="bye")])))
    )
    assert isinstance(replay, ReplayProvider) and replay.call_count == 1


class _Opens:
    """The files opened while a test listens (one audit hook for the session: hooks stay for good)."""

    listening: ClassVar[list[list[str]]] = []
    installed = False

    @classmethod
    def hook(cls, event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and cls.listening:
            cls.listening[-1].append(str(args[0]))


@contextlib.contextmanager
def files_opened() -> Iterator[list[str]]:
    """Every path opened inside the block, in order."""
    if not _Opens.installed:
        sys.addaudithook(_Opens.hook)
        _Opens.installed = True
    opened: list[str] = []
    _Opens.listening.append(opened)
    try:
        yield opened
    finally:
        _Opens.listening.remove(opened)
