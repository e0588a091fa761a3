"""The subscription service's reads of the ``subscriptions`` projection and the subscription
streams: the one place the service reaches the database for them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import cast

from hookproof.engine.db.queries import ENGINE_QUERIES
from hookproof.engine.db.repository import PoolRepository, Record

__all__ = ["SubscriptionRepository"]

SQL = ENGINE_QUERIES.named(
    "subscription_page", "events_of_streams", "subscription_due_expiry", "subscriptions_visible"
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

    async def events_of_streams(self, streams: Sequence[str]) -> list[Record]:
        """Every (live) event of the given streams, in stream order."""
        return cast(list[Record], await self.pool.fetch(SQL["events_of_streams"], list(streams)))

    async def due_expiry(self, now: datetime) -> list[Record]:
        """Subscriptions whose expiry is at or before ``now``."""
        return cast(list[Record], await self.pool.fetch(SQL["subscription_due_expiry"], now))
