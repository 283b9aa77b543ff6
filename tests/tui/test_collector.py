"""Pausing and freezing the garbage collector around frames (`tui.collector`), without Textual."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from tui import collector


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    was_enabled = gc.isenabled()
    yield
    collector.release()
    gc.enable() if was_enabled else gc.disable()


def test_pause_and_resume() -> None:
    gc.enable()
    collector.pause()
    assert not gc.isenabled()
    collector.resume()
    collector.resume()  # twice is harmless
    assert gc.isenabled()


def test_a_collector_paused_by_someone_else_stays_paused() -> None:
    gc.disable()
    collector.pause()
    collector.resume()
    assert not gc.isenabled()


def test_freeze_once_and_release() -> None:
    collector.freeze_startup_objects()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    collector.freeze_startup_objects()  # only once
    assert gc.get_freeze_count() == frozen
    collector.pause()
    collector.release()
    assert gc.get_freeze_count() == 0 and gc.isenabled()
