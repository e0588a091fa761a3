"""Rotation's own reads and its per-subscription lock: the one place rotation reaches the
database (the key ring and the subscriptions have their own repositories)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg

from hookproof.engine.db.queries import ENGINE_QUERIES

__all__ = ["RotationRepository"]

SQL = ENGINE_QUERIES.named("secret_rotation_lock", "subscription_ids_all")


class RotationRepository:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def subscription_ids(self) -> list[str]:
        """Every subscription id in the projection."""
        return [r["subscription_id"] for r in await self.pool.fetch(SQL["subscription_ids_all"])]

    @asynccontextmanager
    async def secret_rotation(self, subscription_id: str) -> AsyncIterator[None]:
        """Held for the block: one secret rotation of ``subscription_id`` at a time."""
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(SQL["secret_rotation_lock"], subscription_id)
            yield
