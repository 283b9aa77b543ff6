"""SIGTERM (`kill`) and SIGHUP (the terminal closed) end the app the way `ctrl+q` does.

Without this, either signal kills the process on the spot: Textual never gets to leave the
alternate screen, turn mouse tracking off and show the cursor again, and `finally` blocks (the
demo's temporary directory) never run.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from textual.app import App

ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)

Handler = Callable[[int, FrameType | None], None]


def exit_status(signum: int) -> int:
    """The shell's convention for a process ended by signal `signum`."""
    return 128 + signum


@contextmanager
def _handling(handler: Handler) -> Iterator[None]:
    previous = {signum: signal.signal(signum, handler) for signum in ENDING_SIGNALS}
    try:
        yield
    finally:
        for signum, before in previous.items():
            signal.signal(signum, before)


@contextmanager
def ending_signals_raise_system_exit() -> Iterator[None]:
    """While inside, an ending signal raises `SystemExit(128+signal)`, so `finally` blocks run
    (for the work before the app runs and after it stopped, which has no terminal to restore)."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(exit_status(signum))

    with _handling(on_signal):
        yield


@contextmanager
def ending_signals_exit_app(app: App[Any]) -> Iterator[None]:
    """While inside (around `app.run()`), an ending signal asks `app` to exit with return code
    128+signal, as `ctrl+q` would, so Textual restores the terminal on its way out."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if signum == signal.SIGHUP:
            # A hang-up comes with a SIGCONT, on which Textual would take the (gone) terminal
            # over again and then wait forever to write to it.
            signal.signal(signal.SIGCONT, signal.SIG_DFL)
        try:
            # Handlers run in the main thread, where the app's event loop runs.
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise SystemExit(exit_status(signum)) from None
        # A handler may run between any two bytecodes of the event loop itself: only the
        # thread-safe way in is safe there. Exiting an app that has stopped does nothing.
        loop.call_soon_threadsafe(app.exit, None, exit_status(signum))

    with _handling(on_signal):
        yield
