"""The CLI's per-command context: a database target and a pool, migrated, closed after."""

from __future__ import annotations

import asyncpg

from hookproof.config import Settings

from .database import DatabaseTarget, connect_pool, resolve_database
from .migrate import migrate

__all__ = ["Context"]


class Context:
    """A database target plus a pool, opened for one command and closed after it."""

    def __init__(self, settings: Settings, *, max_size: int = 10) -> None:
        self.settings = settings
        self.max_size = max_size
        self.target: DatabaseTarget | None = None
        self.pool: asyncpg.Pool | None = None

    async def __aenter__(self) -> Context:
        self.target = resolve_database(self.settings)
        self.pool = await connect_pool(self.target.url, max_size=self.max_size)
        async with self.pool.acquire() as conn:
            await migrate(conn)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.pool is not None:
            await self.pool.close()
        if self.target is not None:
            self.target.close()
