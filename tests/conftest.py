"""Shared fixtures: an isolated state directory per test, a fresh registry, and a socket guard."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from openprogram.providers.api_registry import _reset_runtime

_TEMP_ROOT_ENV = "OPENPROGRAM_TEST_TEMP_ROOT"


def pytest_configure(config: pytest.Config) -> None:
    """The whole run (xdist workers and every child process) writes its temporary files into one
    private folder, removed when the run ends: nothing is left in the machine's `/tmp`."""
    if os.environ.get(_TEMP_ROOT_ENV):
        return  # an xdist worker: the controller made the folder and will remove it
    root = tempfile.mkdtemp(prefix="openprogram-tests-")
    os.environ[_TEMP_ROOT_ENV] = root
    os.environ["TMPDIR"] = root
    os.environ["TMUX_TMPDIR"] = root  # the private tmux servers' sockets
    tempfile.tempdir = root
    config.stash[_temp_root_key] = root


def pytest_unconfigure(config: pytest.Config) -> None:
    root = config.stash.get(_temp_root_key, None)
    if root is not None:
        shutil.rmtree(root, ignore_errors=True)


_temp_root_key = pytest.StashKey[str]()


@pytest.fixture(autouse=True)
def openprogram_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own `$OPENPROGRAM_HOME` and starts with a NEW provider runtime."""
    home = tmp_path / "openprogram-home"
    monkeypatch.setenv("OPENPROGRAM_HOME", str(home))
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "SCRIPTED_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    _reset_runtime()
    yield home
    _reset_runtime()


class SocketAttempted(AssertionError):
    """A test that must stay offline tried to open a network connection."""


@pytest.fixture
def sockets_blocked(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Make every outgoing connection fail loudly; the list collects the attempted addresses."""
    attempts: list[object] = []

    def refuse_connect(self: socket.socket, address: object) -> None:
        attempts.append(address)
        raise SocketAttempted(f"network connection attempted to {address!r}")

    def refuse_create_connection(address: object, *args: object, **kwargs: object) -> None:
        attempts.append(address)
        raise SocketAttempted(f"network connection attempted to {address!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse_connect)
    monkeypatch.setattr(socket, "create_connection", refuse_create_connection)
    return attempts


# Loaded by every child Python through PYTHONPATH: connections and httpx clients are logged, refused.
OFFLINE_SITECUSTOMIZE = """
import os, socket
def _log(what):
    with open(os.environ["OFFLINE_LOG"], "a") as log:
        log.write(what + "\\n")
def _refuse(self, address, *args):
    _log(f"socket {address!r}")
    raise OSError("network refused by the test")
socket.socket.connect = _refuse
socket.socket.connect_ex = _refuse
try:
    import httpx
    def _no_client(self, *args, **kwargs):
        _log("httpx client")
        raise RuntimeError("HTTP client construction refused by the test")
    httpx.Client.__init__ = _no_client
    httpx.AsyncClient.__init__ = _no_client
except ImportError:
    pass
"""


@pytest.fixture
def offline_children(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every child Python started by this test refuses sockets and HTTP clients; returns the log
    of attempts, which must stay empty."""
    site = tmp_path / "offline-site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(OFFLINE_SITECUSTOMIZE)
    log = tmp_path / "offline.log"
    log.touch()
    repo = Path(__file__).resolve().parent.parent
    monkeypatch.setenv("OFFLINE_LOG", str(log))
    monkeypatch.setenv("PYTHONPATH", f"{site}{os.pathsep}{repo}")
    return log
