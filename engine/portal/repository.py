"""The ``portal_sessions`` table (and the one read that maps a delivery to its consumer): the
one place the portal reaches the database. Writes take the caller's connection, so they share
the transaction of the event they come with."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import asyncpg

from ..db.queries import ENGINE_QUERIES
from ..db.repository import PoolRepository, Record

__all__ = ["PortalRepository"]

SQL = ENGINE_QUERIES.named(
    "portal_session_insert",
    "portal_session_get",
    "portal_session_end",
    "portal_sessions_end_consumer",
    "portal_session_of_tenant",
    "portal_sessions_page",
    "portal_sessions_end_live",
    "portal_sessions_end_token",
    "delivery_consumer",
)


class PortalRepository(PoolRepository):
    @staticmethod
    async def insert(
        conn: asyncpg.Connection,
        session_id: str,
        tenant_id: str,
        consumer_id: str,
        secret_sha256: bytes,
        capabilities: Sequence[str],
        expires_at: datetime,
        created_at: datetime,
        creator: str,
    ) -> None:
        await conn.execute(
            SQL["portal_session_insert"],
            session_id,
            tenant_id,
            consumer_id,
            secret_sha256,
            list(capabilities),
            expires_at,
            created_at,
            creator,
        )

    async def get(self, session_id: str) -> Record | None:
        return await self.pool.fetchrow(SQL["portal_session_get"], session_id)

    async def of_tenant(self, session_id: str, tenant_id: str) -> Record | None:
        return await self.pool.fetchrow(SQL["portal_session_of_tenant"], session_id, tenant_id)

    @staticmethod
    async def end(
        conn: asyncpg.Connection, session_id: str, tenant_id: str, at: datetime, reason: str
    ) -> Record | None:
        return await conn.fetchrow(SQL["portal_session_end"], session_id, tenant_id, at, reason)

    @staticmethod
    async def end_consumer(
        conn: asyncpg.Connection, tenant_id: str, consumer_id: str, at: datetime, reason: str
    ) -> list[str]:
        rows = await conn.fetch(
            SQL["portal_sessions_end_consumer"], tenant_id, consumer_id, at, reason
        )
        return sorted(r["session_id"] for r in rows)

    async def page(
        self,
        tenant_id: str,
        consumer_id: str,
        now: datetime,
        after: tuple[datetime, str] | None,
        limit: int,
    ) -> list[Record]:
        """Live sessions of a consumer (not ended, not expired at ``now``), oldest first."""
        at, last = after if after is not None else (None, None)
        return list(
            await self.pool.fetch(
                SQL["portal_sessions_page"], tenant_id, consumer_id, now, at, last, limit
            )
        )

    @staticmethod
    async def end_live(
        conn: asyncpg.Connection, tenant_id: str, consumer_id: str, at: datetime, reason: str
    ) -> list[Record]:
        """End a consumer's live sessions; ``session_id`` and ``consumer_id`` of each."""
        return list(
            await conn.fetch(SQL["portal_sessions_end_live"], tenant_id, consumer_id, at, reason)
        )

    @staticmethod
    async def end_token(
        conn: asyncpg.Connection, tenant_id: str, token_id: str, at: datetime, reason: str
    ) -> list[Record]:
        """End the live sessions token ``token_id`` started (and the tenant's sessions of no
        recorded creator); ``session_id`` and ``consumer_id`` of each."""
        return list(
            await conn.fetch(SQL["portal_sessions_end_token"], tenant_id, token_id, at, reason)
        )

    async def delivery_consumer(self, tenant_id: str, delivery_id: str) -> Record | None:
        return await self.pool.fetchrow(SQL["delivery_consumer"], delivery_id, tenant_id)
