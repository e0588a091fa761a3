"""The audit timeline's reads outside the log (stored bodies and archive tombstones): the one
place the timeline reaches the database for them."""

from __future__ import annotations

from hookproof.engine.queries import ENGINE_QUERIES
from hookproof.engine.repository import PoolRepository, Record

__all__ = ["AuditRepository"]

SQL = ENGINE_QUERIES.named("event_streams_of_id", "archived_event_streams_of_id")


class AuditRepository(PoolRepository):
    async def event_streams(self, event_id: str, tenant_id: str | None) -> list[Record]:
        """``tenant_id`` and ``stream_id`` of each business event with this id (one tenant's if
        named), from the stored bodies and, for archived events, their tombstones."""
        rows = await self.pool.fetch(SQL["event_streams_of_id"], event_id, tenant_id)
        rows += await self.pool.fetch(SQL["archived_event_streams_of_id"], event_id, tenant_id)
        return rows
