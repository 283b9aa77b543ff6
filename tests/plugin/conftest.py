"""Fixtures for testing the pytest plugin with pytester.

`pytest_plugins = ["pytester"]` is only allowed in the top-level conftest (pytest refuses it here
when the whole suite is collected), so pytester is registered from `pytest_configure` instead.
"""

from __future__ import annotations

import pytest

# Inline pytester runs drop modules first imported during the run from sys.modules afterwards, so
# a later import builds new classes (httpx's exceptions among them) that `except` clauses of the
# modules kept would not match. Importing the whole provider stack up front keeps one copy.
import openprogram.providers.http.anthropic_messages
import openprogram.providers.http.openai_completions  # noqa: F401
from tests.plugin.inner_project import ECHO_TESTS, INNER_INI, InnerProject


def pytest_configure(config: pytest.Config) -> None:
    """Enable pytester for these tests (a no-op when it is already loaded)."""
    if not config.pluginmanager.has_plugin("pytester"):
        config.pluginmanager.import_plugin("pytester")


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> InnerProject:
    """The inner project, outside CI, with the echo tests written."""
    for name in ("CI", "INNER_PROMPT", "INNER_CALLS", "INNER_FAIL"):
        monkeypatch.delenv(name, raising=False)
    pytester.makeini(INNER_INI)
    pytester.makepyfile(test_inner_echo=ECHO_TESTS)
    return InnerProject(pytester, monkeypatch)
