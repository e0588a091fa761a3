"""What every engine repository shares: one asyncpg pool, and ``of(store)`` for a service
that holds the event store (the repository then reads through the store's pool)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Self

import asyncpg

from hookproof.events import EventStore

__all__ = ["PoolRepository", "Record"]

Record = Any  # asyncpg.Record


class PoolRepository:
    """A repository over one pool: the one place its service reaches the database."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @classmethod
    def of(cls, store: EventStore) -> Self:
        return cls(store.pool)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[asyncpg.Connection]:
        """One transaction on a pooled connection; the repository's methods that take
        ``conn`` run inside it."""
        async with self.pool.acquire() as conn, conn.transaction():
            yield conn
