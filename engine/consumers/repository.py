"""The consumer service's reads of the ``consumers`` projection: the one place it reaches the
database for them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import cast

import asyncpg

from ..db.queries import ENGINE_QUERIES
from ..db.repository import PoolRepository, Record

__all__ = ["ConsumerRepository"]

SQL = ENGINE_QUERIES.named("consumer_page", "consumers_lock_share")


class ConsumerRepository(PoolRepository):
    async def page(
        self, tenant_id: str, after: tuple[datetime, str] | None, limit: int
    ) -> list[Record]:
        since, last = after if after is not None else (None, None)
        return cast(
            list[Record], await self.pool.fetch(SQL["consumer_page"], tenant_id, since, last, limit)
        )

    @staticmethod
    async def lock_share(conn: asyncpg.Connection, streams: Sequence[str]) -> list[Record]:
        """These consumers' rows, share-locked until the caller's transaction ends."""
        rows: list[Record] = await conn.fetch(SQL["consumers_lock_share"], list(streams))
        return rows
