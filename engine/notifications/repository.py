"""The notifier's reads (who hears a cause, which subscriptions listen): the one place the
notifier reaches the database."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from hookproof.engine.db.queries import ENGINE_QUERIES
from hookproof.engine.db.repository import PoolRepository, Record

__all__ = ["NotificationRepository"]

SQL = ENGINE_QUERIES.named(
    "notify_subscription_tenant",
    "notify_delivery",
    "notify_key_tenants",
    "notify_rollout_tenants",
    "notify_listeners",
)


class NotificationRepository(PoolRepository):
    async def subscription_tenant(self, subscription_id: str) -> str | None:
        tenant = await self.pool.fetchval(SQL["notify_subscription_tenant"], subscription_id)
        return None if tenant is None else str(tenant)

    async def delivery(self, delivery_id: str) -> Record | None:
        """``tenant_id``, ``event_id``, ``subscription_id`` and ``topic`` of a delivery."""
        return await self.pool.fetchrow(SQL["notify_delivery"], delivery_id)

    async def key_tenants(self, subscription_id: str | None) -> list[Record]:
        """Tenants a key touches (one subscription's, or every tenant's for an engine key)."""
        return cast(list[Record], await self.pool.fetch(SQL["notify_key_tenants"], subscription_id))

    async def rollout_tenants(self, subscription_ids: Sequence[str] | None) -> list[Record]:
        ids = list(subscription_ids) if subscription_ids is not None else None
        return cast(list[Record], await self.pool.fetch(SQL["notify_rollout_tenants"], ids))

    async def listeners(self, patterns: Sequence[str], tenant_ids: Sequence[str]) -> list[Record]:
        """Subscriptions of ``tenant_ids`` whose topics name one of ``patterns``."""
        return cast(
            list[Record],
            await self.pool.fetch(SQL["notify_listeners"], list(patterns), list(tenant_ids)),
        )
