"""The schema's migration state as the readiness probe sees it: the one place the API reaches
the database for it."""

from __future__ import annotations

from .migrate import pending_migrations
from .repository import PoolRepository

__all__ = ["SchemaRepository"]


class SchemaRepository(PoolRepository):
    async def pending(self, *, wait_s: float) -> list[tuple[int, str]]:
        """Migrations not applied yet; waits at most ``wait_s`` seconds for a connection."""
        async with self.pool.acquire(timeout=wait_s) as conn:
            return await pending_migrations(conn)
