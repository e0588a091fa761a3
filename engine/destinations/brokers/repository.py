"""The sealed broker credentials' rows (``destination_credentials``): the one place their
SQL runs."""

from __future__ import annotations

from typing import cast

import asyncpg

from ...db.queries import ENGINE_QUERIES
from ...db.repository import PoolRepository

__all__ = ["CredentialsRepository"]

SQL = ENGINE_QUERIES.named("destination_credentials_insert", "destination_credentials_select")


class CredentialsRepository(PoolRepository):
    async def insert(
        self, credentials_id: str, subscription_id: str, nonce: bytes, ciphertext: bytes
    ) -> None:
        await self.pool.execute(
            SQL["destination_credentials_insert"],
            credentials_id,
            subscription_id,
            nonce,
            ciphertext,
        )

    async def sealed(self, credentials_id: str) -> tuple[bytes, bytes] | None:
        """``(nonce, ciphertext)`` of *credentials_id*, None when there is no such row."""
        row = cast(
            asyncpg.Record | None,
            await self.pool.fetchrow(SQL["destination_credentials_select"], credentials_id),
        )
        return None if row is None else (bytes(row["nonce"]), bytes(row["ciphertext"]))
