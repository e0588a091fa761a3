"""The CLI's per-command context and composition root: a database target and a pool, migrated,
closed after. Commands get ports from it (the event store, repositories, the key ring, an
engine), never the pool."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import asyncpg

from hookproof.config import Settings
from hookproof.events import EventStore

from .database import SERVER_SETTINGS, DatabaseTarget, connect_pool, resolve_database
from .migrate import migrate
from .repository import PoolRepository

if TYPE_CHECKING:
    from .archive import Archiver
    from .daemon import Engine
    from .keys import KeyRing

__all__ = ["Context"]

R = TypeVar("R", bound=PoolRepository)


class Context:
    """A database target plus a pool, opened for one command and closed after it."""

    def __init__(self, settings: Settings, *, max_size: int = 10) -> None:
        self.settings = settings
        self.max_size = max_size
        self.target: DatabaseTarget | None = None
        self._pool: asyncpg.Pool | None = None
        self._store: EventStore | None = None

    async def __aenter__(self) -> Context:
        self.target = resolve_database(self.settings)
        self._pool = await connect_pool(self.target.url, max_size=self.max_size)
        async with self._pool.acquire() as conn:
            await migrate(conn)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close_pool()
        if self.target is not None:
            self.target.close()

    async def close_pool(self) -> None:
        """Close the pool early, keeping the target (an embedded server) until the exit."""
        pool, self._pool, self._store = self._pool, None, None
        if pool is not None:
            await pool.close()

    def _open(self) -> asyncpg.Pool:
        assert self._pool is not None, "the context is not open"
        return self._pool

    # -- ports ----------------------------------------------------------------------------

    @property
    def store(self) -> EventStore:
        """The event store over this context's pool (one per context)."""
        if self._store is None:
            from .registry import inline_hooks

            self._store = EventStore(self._open(), inline=inline_hooks())
        return self._store

    @asynccontextmanager
    async def session(self) -> AsyncIterator[asyncpg.Connection]:
        """A connection of its own, outside the pool (what it creates in temporary tables
        goes with it)."""
        assert self.target is not None, "the context is not open"
        conn = await asyncpg.connect(self.target.url, server_settings=SERVER_SETTINGS)
        try:
            yield conn
        finally:
            await conn.close()

    def repository(self, kind: type[R]) -> R:
        """A repository over this context's pool."""
        return kind(self._open())

    def keyring(self) -> KeyRing:
        from .keys import KeyRing

        return KeyRing(self._open(), self.settings, store=self.store)

    def archiver(self) -> Archiver:
        from .archive import Archiver

        return Archiver(self._open(), self.settings)

    async def engine(self) -> Engine:
        """A whole engine (``build_engine``) on this context's pool; the caller closes it."""
        from .daemon import build_engine

        return await build_engine(self.settings, self._open())

    async def serve(self, **options: Any) -> None:
        """``daemon.serve`` on this context's pool until it is stopped."""
        from .daemon import serve

        await serve(self.settings, self._open(), **options)
