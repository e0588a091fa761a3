"""The audit timeline's reads outside the log (stored bodies and archive tombstones): the one
place the timeline reaches the database for them."""

from __future__ import annotations

from typing import Any

import asyncpg

from hookproof.engine.queries import ENGINE_QUERIES
from hookproof.events import EventStore

__all__ = ["AuditRepository"]

SQL = ENGINE_QUERIES.named("event_streams_of_id", "archived_event_streams_of_id")

Record = Any  # asyncpg.Record


class AuditRepository:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @classmethod
    def of(cls, store: EventStore) -> AuditRepository:
        return cls(store.pool)

    async def event_streams(self, event_id: str, tenant_id: str | None) -> list[Record]:
        """``tenant_id`` and ``stream_id`` of each business event with this id (one tenant's if
        named), from the stored bodies and, for archived events, their tombstones."""
        rows = await self.pool.fetch(SQL["event_streams_of_id"], event_id, tenant_id)
        rows += await self.pool.fetch(SQL["archived_event_streams_of_id"], event_id, tenant_id)
        return rows
