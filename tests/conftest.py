"""Shared fixtures: an isolated state directory per test, a fresh registry, and a socket guard."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from openprogram.providers.initialization import _reset_runtime


@pytest.fixture(autouse=True)
def openprogram_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own `$OPENPROGRAM_HOME` and starts with a NEW provider runtime."""
    home = tmp_path / "openprogram-home"
    monkeypatch.setenv("OPENPROGRAM_HOME", str(home))
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "SCRIPTED_API_KEY"):
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
