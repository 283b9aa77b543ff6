"""Fixtures for provider tests: a real loopback HTTP server that plays scripted SSE responses."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.sse_server import SSEServer


@pytest.fixture
def sse_server() -> Iterator[SSEServer]:
    """A started `SSEServer` on 127.0.0.1, stopped after the test."""
    with SSEServer() as server:
        yield server
