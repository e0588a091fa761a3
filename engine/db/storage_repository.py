"""The database's size and the log's recent rate, for the start-up storage outlook."""

from __future__ import annotations

from .repository import PoolRepository
from .storage import Outlook, read_outlook

__all__ = ["StorageRepository"]


class StorageRepository(PoolRepository):
    async def outlook(self, retention_days: float | None) -> Outlook:
        async with self.pool.acquire() as conn:
            return await read_outlook(conn, retention_days)
