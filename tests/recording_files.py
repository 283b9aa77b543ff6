"""Builders for recording-management tests: real recordings, old ones, locks, and a program to run."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from openprogram.providers import Context, UserMessage
from openprogram.providers.recording import RecordingProvider
from openprogram.providers.recording.writer import RecordingSink
from openprogram.providers.scripted import ScriptedProvider, echo_responder
from tests.helpers import SCRIPTED_MODEL

REPO_ROOT = Path(__file__).resolve().parent.parent


def write_recording(
    path: Path, said: Sequence[str] = ("hi",), header: dict[str, Any] | None = None
) -> Path:
    """Record one scripted call per text into `path` (straight through, no registry, no runtime)."""
    sink = RecordingSink(path, header)
    provider = RecordingProvider(ScriptedProvider(responder=echo_responder), sink)

    async def run() -> None:
        for text in said:
            context = Context(messages=[UserMessage(content=text)])
            async for _ in provider.stream(SCRIPTED_MODEL, context):
                pass

    asyncio.run(run())
    sink.close()
    return path


def days_ago(days: float) -> str:
    """An ISO-8601 UTC `created_at` this many days in the past."""
    moment = datetime.now(UTC) - timedelta(days=days)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def subprocess_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment for a child process using `home` as its state directory."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.pop("NO_COLOR", None)
    env.update(OPENPROGRAM_HOME=str(home), PYTHONPATH=str(REPO_ROOT))
    env.update(extra)
    return env


def run_capped(
    home: Path, cap_bytes: int, *argv: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """`argv` in a subprocess whose address space is capped at `cap_bytes` (the memory tests: a
    surface that holds more than its bound dies with `MemoryError` instead of passing)."""

    def capped() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))

    return subprocess.run(
        list(argv),
        env=subprocess_env(home),
        cwd=REPO_ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=capped,
    )


def run_cli(
    home: Path, *args: str, cwd: Path = REPO_ROOT, **extra: str
) -> subprocess.CompletedProcess[str]:
    """`python -m openprogram recordings ARGS…` in a fresh process (stdin not a terminal), run
    in `cwd` (where `pyproject.toml` rules are looked up from)."""
    return subprocess.run(
        [sys.executable, "-m", "openprogram", "recordings", *args],
        env=subprocess_env(home, **extra),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


ECHO_PROGRAM = """
import asyncio, json, socket, sys

attempts = []

def refuse(*args, **kwargs):
    attempts.append(repr(args[1:] or args))
    raise OSError("network is blocked in this test")

socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse

if "--no-scripted" in sys.argv:
    # Prove answers come from the recording: the live scripted provider cannot answer any more.
    from openprogram.providers import scripted

    def broken(self, *args, **kwargs):
        raise RuntimeError("the live scripted provider was called")

    scripted.ScriptedProvider.stream = broken
    scripted.ScriptedProvider.stream_simple = broken

from openprogram.providers import get_api_provider, provider_runtime_mode
from openprogram.providers.api_registry import provider_runtime_state
from tests.helpers import run_echo_agent

result = {}
try:
    run = asyncio.run(run_echo_agent(sys.argv[1]))
    result["answer"] = run.final_message.content[-1].text
    result["calls"] = run.call_count
except Exception as exc:
    result["error_type"] = type(exc).__name__
    result["error"] = str(exc)
provider = get_api_provider("scripted")
result["mode"] = provider_runtime_mode()
result["state"] = provider_runtime_state().value
result["provider"] = type(provider).__name__
result["requires_credentials"] = provider.requires_credentials
result["socket_attempts"] = attempts
print(json.dumps(result))
"""


def run_echo_program(home: Path, said: str = "hi", *flags: str) -> dict[str, Any]:
    """Run the echo agent in a fresh interpreter with sockets failing; its JSON report."""
    done = subprocess.run(
        [sys.executable, "-c", ECHO_PROGRAM, said, *flags],
        env=subprocess_env(home),
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


LOCK_HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
sys.stdin.readline()
"""


@contextmanager
def locked_by_another_process(path: Path) -> Iterator[None]:
    """Hold an exclusive `flock` on `path` from a child process for the duration of the block."""
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=10)


def json_lines(text: str) -> list[dict[str, Any]]:
    """Every line of `text` parsed as JSON (for checking `--content` output in tests)."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


CONCURRENT_WRITER = textwrap.dedent(
    """
    import asyncio, os, sys, threading
    from openprogram.providers import Context, Model, UserMessage
    from openprogram.providers.recording import RecordingProvider
    from openprogram.providers.scripted import ScriptedProvider, TextStep

    path, threads, calls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    model = Model(id="m", api="scripted", provider="scripted")
    script = ScriptedProvider(responder=lambda c, n: [TextStep(text=f"answer {n} " * 5)])
    recorder = RecordingProvider(script, path)

    async def run(worker):
        for n in range(calls):
            context = Context(messages=[UserMessage(content=f"pid {os.getpid()} worker {worker} call {n}")])
            async for _ in recorder.stream(model, context):
                pass

    workers = [threading.Thread(target=lambda w=w: asyncio.run(run(w))) for w in range(threads)]
    for w in workers: w.start()
    for w in workers: w.join()
    """
)
"""A child that records `calls` calls from each of `threads` threads into one file."""


def append_concurrently(path: Path, processes: int, threads: int, calls: int) -> None:
    """Run `processes` writer children at once, each with `threads` threads making `calls` calls."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    command = [sys.executable, "-c", CONCURRENT_WRITER, str(path), str(threads), str(calls)]
    children = [subprocess.Popen(command, env=env) for _ in range(processes)]
    assert [child.wait(timeout=120) for child in children] == [0] * processes
