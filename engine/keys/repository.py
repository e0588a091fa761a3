"""The key ring's reads and its locked write transaction (the key streams, the ring lock and
the sealed material): the one place the key ring reaches the database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from hookproof.engine.queries import ENGINE_QUERIES

from .material import MaterialBox, read_material

__all__ = ["KeyRepository"]

SQL = ENGINE_QUERIES.named("key_events_all", "key_ring_head", "key_ring_lock")

Record = Any  # asyncpg.Record


class KeyRepository:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def head(self) -> tuple[int, int]:
        """How many key events there are and the newest position: the ring's cache key."""
        row = await self.pool.fetchrow(SQL["key_ring_head"])
        return int(row["n"]), int(row["last"])

    async def events(self, conn: asyncpg.Connection | None = None) -> list[Record]:
        """Every event of the key category, in log order (on ``conn`` when given)."""
        return await (conn if conn is not None else self.pool).fetch(SQL["key_events_all"])

    @asynccontextmanager
    async def locked(self) -> AsyncIterator[asyncpg.Connection]:
        """A transaction holding the ring lock: one ring change at a time, across engines."""
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(SQL["key_ring_lock"])
            yield conn

    async def material(self, box: MaterialBox, key_id: str) -> bytes:
        """The plaintext material of ``key_id`` (unsealed with ``box``)."""
        return await read_material(self.pool, box, key_id)
