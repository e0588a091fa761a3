"""A bounded memo: a dict that is emptied when it reaches its bound.

For caches whose entries are cheap to rebuild and whose working set is usually small (a
handful of subscriptions at a high rate), but which could otherwise grow with everything a
worker ever touched (a fan-out to 10,000 sites). Emptying all at once costs nothing per
access (no recency bookkeeping); under a cyclic sweep larger than the bound an LRU would miss
just as often.
"""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["BoundedMemo"]

K = TypeVar("K")
V = TypeVar("V")


class BoundedMemo(Generic[K, V]):
    """At most ``limit`` entries: :meth:`put` into a full memo empties it first."""

    __slots__ = ("_entries", "limit")

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self._entries: dict[K, V] = {}

    def get(self, key: K) -> V | None:
        return self._entries.get(key)

    def put(self, key: K, value: V) -> None:
        entries = self._entries
        if len(entries) >= self.limit and key not in entries:
            entries.clear()
        entries[key] = value

    def __len__(self) -> int:
        return len(self._entries)
