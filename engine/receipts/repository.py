"""The receipt service's reads of the ``deliveries`` projection: the one place the receipt
services reach the database for them."""

from __future__ import annotations

from typing import cast

from hookproof.engine.db.queries import RECEIPT_QUERIES
from hookproof.engine.db.repository import PoolRepository, Record

__all__ = ["ReceiptRepository"]

SQL = RECEIPT_QUERIES.named("receipt_delivery_get", "receipt_overdue", "receipt_subscription_get")


class ReceiptRepository(PoolRepository):
    async def delivery(self, delivery_id: str) -> Record | None:
        """The projection row a receipt settles (any tenant: the receipt's signature decides)."""
        return await self.pool.fetchrow(SQL["receipt_delivery_get"], delivery_id)

    async def subscription(self, subscription_id: str) -> Record | None:
        """The subscription's current config and newest receipt keys (one bounded read)."""
        return await self.pool.fetchrow(SQL["receipt_subscription_get"], subscription_id)

    async def overdue(self, older_than_s: float, limit: int) -> list[Record]:
        """Receipt-contract deliveries accepted by a 2xx and unconfirmed for ``older_than_s``."""
        return cast(
            list[Record], await self.pool.fetch(SQL["receipt_overdue"], float(older_than_s), limit)
        )
