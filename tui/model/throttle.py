"""At most one report per interval: a worker that finds results faster than a screen redraws."""

from __future__ import annotations

import time


class Throttle:
    """`due()` is True at most once per `interval` seconds (counted from creation or `restart`)."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._since = time.monotonic()

    def due(self) -> bool:
        """True when `interval` has passed since the last report (which this one then is)."""
        if time.monotonic() - self._since < self.interval:
            return False
        self.restart()
        return True

    def restart(self) -> None:
        """A report was made now: the next is due one interval later."""
        self._since = time.monotonic()
