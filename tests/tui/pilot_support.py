"""Waiting in Pilot tests: for background work to land, never for a fixed time."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from tui.screens.recording import RecordingScreen


async def until(pilot: Pilot[None], condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Let the app run until `condition()` holds (fails the test after `timeout` seconds)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        # A screen that closed cancels its workers: that work is over, not failed.
        with contextlib.suppress(WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.01)


async def recording_ready(pilot: Pilot[None]) -> RecordingScreen:
    """Wait until the recording screen on top has its index and its strict verdict."""
    await until(pilot, lambda: isinstance(pilot.app.screen, RecordingScreen))
    screen = pilot.app.screen
    assert isinstance(screen, RecordingScreen)
    await until(pilot, lambda: screen.verdict is not None and screen.loaded is not None)
    await pilot.pause()
    return screen


def notifications(app: App[None]) -> list[str]:
    """The messages of the notifications the app has shown (oldest first)."""
    return [notification.message for notification in app._notifications]


def screen_text(app: App[None]) -> list[str]:
    """The rows of the screen as drawn, as plain text (what a person reads off the terminal)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def keys_at_once(app: App[None], *keys: str) -> None:
    """Post `keys` to the app in one go, as the driver does for keys that arrive in one read
    (typed ahead, pasted, `tmux send-keys j Enter`); `pilot.press` lets each settle first."""
    for key in keys:
        character = {"enter": "\r", "escape": "\x1b"}.get(key, key if len(key) == 1 else None)
        app.post_message(events.Key(key, character))
