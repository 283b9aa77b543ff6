"""A map that keeps what was used last: the one bounded memo of the readers (parsed rows, built
requests, what a later call needs of an earlier one), in the library and in the TUI alike."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class RecentlyUsed(Generic[K, V]):
    """At most `limit` entries (None: no limit), and at most `weight_limit` of their weights when
    given (a row's weight: its line's bytes); the least recently used are forgotten first. Safe
    to share between threads (the TUI's workers and its UI thread read through one reader)."""

    def __init__(self, limit: int | None, *, weight_limit: int | None = None) -> None:
        self.limit = limit
        self.weight_limit = weight_limit
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept for `key` (now the most recently used), or None."""
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return found[0]

    def put(self, key: K, value: V, weight: int = 0) -> V:
        """Keep `value` for `key` as the most recently used, forgetting the least recently used
        past the bounds; returns `value`."""
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._weight -= old[1]
            while self._items and (
                (self.limit is not None and len(self._items) >= self.limit)
                or (self.weight_limit is not None and self._weight + weight > self.weight_limit)
            ):
                _, (_, forgotten) = self._items.popitem(last=False)
                self._weight -= forgotten
            self._items[key] = (value, weight)
            self._weight += weight
            return value

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._items.clear()
            self._weight = 0

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)
