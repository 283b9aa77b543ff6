"""The inner pytester project the plugin tests run: echo tests, a socket guard, a runner."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

import pytest

INNER_INI = """
[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
"""

# The inner project's test module: an echo agent over the scripted provider. Environment variables
# stand in for code changes (the runs share this process, so edits to the file could hit stale
# bytecode): INNER_PROMPT is what the user says, INNER_CALLS=1 stops after the first call,
# INNER_FAIL=1 fails the test after its calls.
ECHO_TESTS = """
import asyncio
import os

import pytest

from openprogram.agent import AgentTool, run_agent_loop
from openprogram.providers import Context, Model, UserMessage, complete_simple

MODEL = Model(id="echo-1", name="Echo", api="scripted", provider="scripted")
ECHO = AgentTool(
    name="echo",
    description="Echo the text back.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}},
    function=lambda text: f"echo:{text}",
)


async def converse():
    context = Context(system_prompt="You echo.", messages=[UserMessage(content=os.environ.get("INNER_PROMPT", "hi"))])
    if os.environ.get("INNER_CALLS") == "1":
        context.tools = [ECHO.definition()]
        return [await complete_simple(MODEL, context)]
    run = await run_agent_loop(MODEL, context, [ECHO])
    return run.context.messages[1::2]


@pytest.mark.openprogram_recording
async def test_loop():
    answers = await converse()
    assert os.environ.get("INNER_FAIL") != "1", "failing on purpose"
    assert answers[-1].content


def test_loop_sync(openprogram_recording):
    answers = asyncio.run(converse())
    assert os.environ.get("INNER_FAIL") != "1", "failing on purpose"
    assert openprogram_recording.call_count == len(answers)
"""

# Loaded in the inner run: every connection attempt and httpx client is logged and refused.
SOCKET_GUARD = """
import os
import socket

import httpx
import pytest


def _log(what):
    with open(os.environ["INNER_NETWORK_LOG"], "a") as log:
        log.write(what + "\\n")


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        _log(f"connect {args[1:] or args!r}")
        raise OSError("network refused by the socket guard")

    def no_client(self, *args, **kwargs):
        _log("httpx client")
        raise RuntimeError("HTTP client refused by the socket guard")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(httpx.Client, "__init__", no_client)
    monkeypatch.setattr(httpx.AsyncClient, "__init__", no_client)
"""

BASE_ARGS = (
    "--strict-markers",
    "-W",
    "ignore::pytest.PytestAssertRewriteWarning",  # openprogram is imported before nested runs
    *("-p", "no:cacheprovider"),
    *("-p", "no:textual-snapshot"),  # keeps one temporary directory per process; a nested run
    *("-p", "no:syrupy"),  # would delete it
    *("-p", "no:hypothesispytest"),  # re-imports hypothesis (~2 s) in every nested run
)
"""Arguments of every inner run: fast, and with only the plugins these tests need."""


@dataclass
class InnerProject:
    """A pytester project with the echo tests, and helpers to run it and read its recordings."""

    pytester: pytest.Pytester
    monkeypatch: pytest.MonkeyPatch

    @property
    def path(self) -> Path:
        """The project directory (also the inner run's working directory)."""
        return self.pytester.path

    def recording(self, test: str = "test_loop", module: str = "test_inner_echo") -> Path:
        """The default recording path of `test` in `module`."""
        return self.path / "recordings" / module / f"{test}.jsonl"

    def run(self, *args: str, **env: str | None) -> pytest.RunResult:
        """Run the inner suite in a child process with `env` set (None unsets) for the run only."""
        with self.monkeypatch.context() as patch:
            for name, value in env.items():
                if value is None:
                    patch.delenv(name, raising=False)
                else:
                    patch.setenv(name, value)
            # A fresh process: an inline run would drop modules it imported first (httpx and
            # friends) from sys.modules afterwards, breaking exception classes for later tests.
            return self.pytester.runpytest_subprocess(*BASE_ARGS, *args)

    def guard_network(self) -> Path:
        """Install the socket guard in the inner project; returns the log of attempts."""
        log = self.path / "network.log"
        log.touch()
        self.monkeypatch.setenv("INNER_NETWORK_LOG", str(log))
        self.pytester.makeconftest(SOCKET_GUARD)
        return log

    def leftovers(self) -> list[Path]:
        """Partial recordings anywhere in the project (there must never be any after a run)."""
        return sorted(self.path.rglob("*.partial"))


def file_mode(path: Path) -> int:
    """The permission bits of `path`."""
    return stat.S_IMODE(os.stat(path).st_mode)
