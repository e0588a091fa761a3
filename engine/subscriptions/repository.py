"""The subscription service's reads of the ``subscriptions`` projection and the subscription
streams, and the transaction that seals a subscription's ``auth`` with the events naming it:
the one place the service reaches the database for them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import TypeVar, cast

import asyncpg

from hookproof.engine.db.queries import ENGINE_QUERIES
from hookproof.engine.db.repository import PoolRepository, Record
from hookproof.events.subscription_events import EndpointAuthRef

from ..endpoint_auth import AuthMaterials, AuthSecret

__all__ = ["SubscriptionRepository"]

T = TypeVar("T")

SQL = ENGINE_QUERIES.named(
    "subscription_page",
    "events_of_streams",
    "subscription_due_expiry",
    "subscriptions_visible",
    "subscription_pending_challenge",
)


class SubscriptionRepository(PoolRepository):
    async def page(
        self,
        tenant_id: str,
        after: tuple[datetime, str] | None,
        limit: int,
        consumer_id: str | None = None,
    ) -> list[Record]:
        """Up to ``limit`` projection rows in creation order, after ``(created_at, id)``; only
        ``consumer_id``'s when given."""
        since, last = after if after is not None else (None, None)
        return cast(
            list[Record],
            await self.pool.fetch(
                SQL["subscription_page"], tenant_id, since, last, limit, consumer_id
            ),
        )

    async def visible(
        self, tenant_id: str, subscription_ids: Sequence[str], consumer_id: str | None
    ) -> set[str]:
        """The ids among ``subscription_ids`` that are the tenant's (and ``consumer_id``'s,
        when given)."""
        rows = await self.pool.fetch(
            SQL["subscriptions_visible"], tenant_id, list(subscription_ids), consumer_id
        )
        return {r["subscription_id"] for r in rows}

    async def pending_challenge(self, subscription_id: str) -> Record | None:
        """The subscription's pending challenge columns (id, nonce hash, expiry, the one
        answered last), or None: no such subscription. One row, no stream read."""
        return await self.pool.fetchrow(SQL["subscription_pending_challenge"], subscription_id)

    async def events_of_streams(self, streams: Sequence[str]) -> list[Record]:
        """Every (live) event of the given streams, in stream order."""
        return cast(list[Record], await self.pool.fetch(SQL["events_of_streams"], list(streams)))

    async def due_expiry(self, now: datetime) -> list[Record]:
        """Subscriptions whose expiry is at or before ``now``."""
        return cast(list[Record], await self.pool.fetch(SQL["subscription_due_expiry"], now))

    async def sealed(
        self,
        materials: AuthMaterials,
        subscription_id: str,
        secret: AuthSecret,
        append: Callable[[EndpointAuthRef, asyncpg.Connection], Awaitable[T]],
    ) -> T:
        """One transaction: seal ``secret`` under the master key and write it
        (``materials.seal``), then ``append(ref, conn)`` the events that name it. Both or
        neither: a rejected append leaves no sealed material behind."""
        async with self.transaction() as conn:
            ref = await materials.seal(conn, subscription_id, secret)
            return await append(ref, conn)
