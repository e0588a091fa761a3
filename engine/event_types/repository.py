"""The catalogue's reads from its projection (``event_types``): the one place they query."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from ..db.queries import ENGINE_QUERIES
from ..db.repository import PoolRepository, Record

__all__ = ["EventTypeRepository"]

SQL = ENGINE_QUERIES.named(
    "event_type_get", "event_types_page", "event_types_judge", "event_types_count"
)


class EventTypeRepository(PoolRepository):
    async def get(self, tenant_id: str, topic: str, conn: Any = None) -> Record | None:
        if conn is not None:
            return await conn.fetchrow(SQL["event_type_get"], tenant_id, topic)
        return await self.pool.fetchrow(SQL["event_type_get"], tenant_id, topic)

    async def count(self, tenant_id: str) -> int:
        return int(await self.pool.fetchval(SQL["event_types_count"], tenant_id))

    async def page(self, tenant_id: str, after: str | None, limit: int) -> list[Record]:
        return cast(
            list[Record], await self.pool.fetch(SQL["event_types_page"], tenant_id, after, limit)
        )

    @staticmethod
    async def judge_rows(
        conn: Any, tenants: Sequence[str], topics: Sequence[str], cached: Sequence[int]
    ) -> list[Record]:
        """Rows of the typed pairs among ``(tenants[i], topics[i])``; ``definition`` is NULL
        where ``cached[i]`` is the row's stream version."""
        return cast(
            list[Record], await conn.fetch(SQL["event_types_judge"], tenants, topics, cached)
        )
