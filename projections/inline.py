"""An inline projection's hook: the append's events folded into its table in the same
transaction (the store runs it, :class:`hookproof.events.EventStore` ``inline``).

A projection says whether it is inline (:attr:`Projection.inline`); the engine's registry
builds one hook per such projection and the composition root hands them to the store, once.
"""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from hookproof.events import RecordedEvent

from .base import Projection
from .projector import apply_events

__all__ = ["InlineProjection"]


class InlineProjection:
    """The store's inline hook for ``projection``: the recorded events of its categories
    (all, when it names none) go through :func:`apply_events`; nothing happens without one."""

    __slots__ = ("_categories", "projection")

    def __init__(self, projection: Projection) -> None:
        if not projection.inline:
            raise ValueError(f"{projection.name} is kept by the projector, not inline")
        self.projection = projection
        self._categories = frozenset(projection.categories or ())

    def mine(self, recorded: Sequence[RecordedEvent]) -> list[RecordedEvent]:
        """The events of this append that concern the projection."""
        if not self._categories:
            return list(recorded)
        return [e for e in recorded if e.category in self._categories]

    async def __call__(self, conn: asyncpg.Connection, recorded: list[RecordedEvent]) -> None:
        mine = self.mine(recorded)
        if mine:
            await apply_events(conn, self.projection, mine)

    def __repr__(self) -> str:
        return f"InlineProjection({self.projection.name})"
