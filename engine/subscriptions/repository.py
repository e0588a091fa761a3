"""The subscription service's reads of the ``subscriptions`` projection and the subscription
streams: the one place the service reaches the database for them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from hookproof.engine.queries import ENGINE_QUERIES
from hookproof.engine.repository import PoolRepository, Record

__all__ = ["SubscriptionRepository"]

SQL = ENGINE_QUERIES.named("subscription_page", "events_of_streams", "subscription_due_expiry")


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
        return await self.pool.fetch(
            SQL["subscription_page"], tenant_id, since, last, limit, consumer_id
        )

    async def events_of_streams(self, streams: Sequence[str]) -> list[Record]:
        """Every (live) event of the given streams, in stream order."""
        return await self.pool.fetch(SQL["events_of_streams"], list(streams))

    async def due_expiry(self, now: datetime) -> list[Record]:
        """Subscriptions whose expiry is at or before ``now``."""
        return await self.pool.fetch(SQL["subscription_due_expiry"], now)
