"""A small insertion-ordered cache with a size bound, for rows parsed on demand."""

from __future__ import annotations

from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """A dict that forgets its oldest entries past `limit` (parsed rows are cheap to parse again)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._items: dict[K, V] = {}

    def get(self, key: K) -> V | None:
        """The cached value, or None."""
        return self._items.get(key)

    def put(self, key: K, value: V) -> V:
        """Store and return `value`."""
        items = self._items
        if len(items) >= self.limit:
            for old in list(items)[: max(1, self.limit // 4)]:
                items.pop(old, None)  # another thread (a long fold) may have dropped it
        items[key] = value
        return value

    def clear(self) -> None:
        """Forget everything."""
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
