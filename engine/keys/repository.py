"""The key ring's reads (the key streams and the sealed material): the one place the key ring
reaches the database besides the event store (its changes run under the ring's lock,
``events.command``)."""

from __future__ import annotations

from typing import Any, cast

import asyncpg

from hookproof.engine.db.queries import ENGINE_QUERIES

from .material import MaterialBox, read_material

__all__ = ["KeyRepository"]

SQL = ENGINE_QUERIES.named("key_events_all", "key_ring_head")

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
        return cast(
            list[Record],
            await (conn if conn is not None else self.pool).fetch(SQL["key_events_all"]),
        )

    async def material(self, box: MaterialBox, key_id: str) -> bytes:
        """The plaintext material of ``key_id`` (unsealed with ``box``)."""
        return await read_material(self.pool, box, key_id)
