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
        self._items: OrderedDict[K, V] = OrderedDict()
        self._weights: dict[K, int] = {}
        """Each entry's weight, kept only under a `weight_limit` (a memo of every call of a
        long file holds no second entry per call)."""
        self._weight = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept for `key` (now the most recently used), or None."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: K, value: V, weight: int = 0) -> V:
        """Keep `value` for `key` as the most recently used, forgetting the least recently used
        past the bounds; returns `value`."""
        weighed = self.weight_limit is not None
        with self._lock:
            if self._items.pop(key, None) is not None and weighed:
                self._weight -= self._weights.pop(key)
            while self._items and (
                (self.limit is not None and len(self._items) >= self.limit)
                or (weighed and self._weight + weight > (self.weight_limit or 0))
            ):
                forgotten, _ = self._items.popitem(last=False)
                if weighed:
                    self._weight -= self._weights.pop(forgotten)
            self._items[key] = value
            if weighed:
                self._weights[key] = weight
                self._weight += weight
            return value

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._items.clear()
            self._weights.clear()
            self._weight = 0

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)
