"""Ingest's reads and writes inside its group transaction (event bodies, candidate
subscriptions, the deliveries already planned for an event): the one place ingest reaches
the database for them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from ..db.queries import ENGINE_QUERIES
from ..db.repository import PoolRepository, Record

__all__ = ["IngestRepository"]

SQL = ENGINE_QUERIES.named(
    "ingest_candidates",
    "ingest_bodies_get",
    "ingest_bodies_occurred_at",
    "ingest_bodies_insert",
    "deliveries_of_events",
    "ingest_tenant_subscriptions",
)

Connection = Any  # asyncpg.Connection in this repository's transaction()


class IngestRepository(PoolRepository):
    @staticmethod
    async def insert_bodies(
        conn: Connection,
        tenants: Sequence[str],
        event_ids: Sequence[str],
        streams: Sequence[str],
        digests: Sequence[str],
        bodies: Sequence[bytes],
        topics: Sequence[str],
    ) -> list[Record]:
        """Insert the bodies that are new; the rows returned are those this call created."""
        return cast(
            list[Record],
            await conn.fetch(
                SQL["ingest_bodies_insert"], tenants, event_ids, streams, digests, bodies, topics
            ),
        )

    @staticmethod
    async def candidates(
        conn: Connection,
        tenants: Sequence[str],
        patterns: Sequence[str],
        keys: Sequence[str] | None = None,
    ) -> list[Record]:
        """The subscriptions of these tenants whose topics could match these patterns, and
        whose filters' index key is one of ``keys`` or who have none (``keys`` None: every
        one)."""
        return cast(
            list[Record], await conn.fetch(SQL["ingest_candidates"], tenants, patterns, keys)
        )

    @staticmethod
    async def bodies(
        conn: Connection, tenants: Sequence[str], event_ids: Sequence[str]
    ) -> list[Record]:
        return cast(list[Record], await conn.fetch(SQL["ingest_bodies_get"], tenants, event_ids))

    @staticmethod
    async def occurred_at(
        conn: Connection, tenants: Sequence[str], event_ids: Sequence[str]
    ) -> list[Record]:
        """The ``occurredAt`` each of these stored events carries."""
        return cast(
            list[Record], await conn.fetch(SQL["ingest_bodies_occurred_at"], tenants, event_ids)
        )

    @staticmethod
    async def deliveries_of_events(
        conn: Connection, tenants: Sequence[str], event_ids: Sequence[str]
    ) -> list[Record]:
        return cast(list[Record], await conn.fetch(SQL["deliveries_of_events"], tenants, event_ids))

    async def tenant_subscriptions(self, tenant_id: str) -> list[Record]:
        """The tenant's subscriptions in every state (why an event was planned for none)."""
        return cast(
            list[Record], await self.pool.fetch(SQL["ingest_tenant_subscriptions"], tenant_id)
        )
