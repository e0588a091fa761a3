"""The delivery ledger's reads (the ``deliveries`` projection and the event bodies): the one
place the delivery services reach the database for them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg

from hookproof.events import EventStore

from ..queries import ENGINE_QUERIES

__all__ = ["DeliveryRepository"]

SQL = ENGINE_QUERIES.named(
    "delivery_get",
    "ingest_body_get",
    "event_deliveries",
    "deliveries_list",
    "dead_letters",
    "verified_generation",
    "recover_candidates",
)

Record = Any  # asyncpg.Record


class DeliveryRepository:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @classmethod
    def of(cls, store: EventStore) -> DeliveryRepository:
        return cls(store.pool)

    async def get(self, tenant_id: str, delivery_id: str) -> Record | None:
        return await self.pool.fetchrow(SQL["delivery_get"], delivery_id, tenant_id)

    async def verified_generation(self, subscription_id: str) -> int | None:
        """The newest generation whose challenge passed (read from the subscription stream)."""
        return await self.pool.fetchval(
            SQL["verified_generation"], f"subscription-{subscription_id}"
        )

    async def body(self, tenant_id: str, event_id: str) -> Record | None:
        return await self.pool.fetchrow(SQL["ingest_body_get"], tenant_id, event_id)

    async def of_event(self, tenant_id: str, event_id: str) -> list[Record]:
        return await self.pool.fetch(SQL["event_deliveries"], tenant_id, event_id)

    async def newest(
        self, tenant_id: str, subscription_id: str | None, state: str | None, limit: int
    ) -> list[Record]:
        return await self.pool.fetch(
            SQL["deliveries_list"], tenant_id, subscription_id, state, limit
        )

    async def dead_letters(
        self, tenant_id: str, limit: int, before: tuple[datetime, str] | None
    ) -> list[Record]:
        """Newest first, up to ``limit`` rows, continuing before ``(updated_at, id)``."""
        since, last = before if before is not None else (None, None)
        return await self.pool.fetch(SQL["dead_letters"], tenant_id, limit, since, last)

    async def recoverable(
        self,
        tenant_id: str | None,
        subscription_id: str,
        states: Sequence[str],
        since: datetime,
        until: datetime | None,
        limit: int,
    ) -> list[Record]:
        """A subscription's deliveries in ``states`` last changed in ``[since, until)``, oldest
        first (any tenant's when ``tenant_id`` is None: the operator)."""
        return await self.pool.fetch(
            SQL["recover_candidates"], tenant_id, subscription_id, list(states), since, until, limit
        )
