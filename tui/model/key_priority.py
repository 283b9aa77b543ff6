"""Keys before background work: a key pauses the threads that index files until it is handled.

Python runs one thread at a time. A thread indexing a large file holds the interpreter for
slices of 5 ms, and the UI thread waits for one at every step of a key's journey (read from the
terminal, handled, drawn, written out): dozens of waits, a quarter of a second behind each key.
So the indexers ask for their turn between batches of lines (`wait_turn`), and every key arriving
holds them back for `HOLD_SECONDS` (what a key's work and its frame take), counted from the last
key: while keys come, they alone run; when they stop, indexing goes on where it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable

HOLD_SECONDS = 0.15
"""How long background work waits after a key (its handling and the frame drawn after it)."""


class KeyPriority:
    """Where keys tell background threads to wait (`key_arrived`) and threads wait (`wait_turn`)."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._clock, self._sleep = clock, sleep
        self._until = 0.0

    def key_arrived(self, hold: float = HOLD_SECONDS) -> None:
        """A key is being handled: background work waits for `hold` seconds from now."""
        self._until = self._clock() + hold

    def wait_turn(self) -> None:
        """Called by background threads between batches: return once no key is being handled."""
        while (left := self._until - self._clock()) > 0:
            self._sleep(left)  # a key that arrives meanwhile moves the end further on


KEYS = KeyPriority()
"""The one instance: the app reports keys to it, indexers wait on it."""
