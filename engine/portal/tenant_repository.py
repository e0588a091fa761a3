"""The tenant and token tables (``tenants``, ``api_tokens``): the one place the tenant service
reaches the database for them. Writes take the caller's connection, so they share the
transaction of the event they come with."""

from __future__ import annotations

import asyncpg

from hookproof.engine.db.queries import ENGINE_QUERIES
from hookproof.engine.db.repository import PoolRepository, Record

__all__ = ["TenantRepository"]

SQL = ENGINE_QUERIES.named(
    "token_insert",
    "token_lookup",
    "tenant_insert",
    "token_revoke",
    "token_lock_active",
    "tenant_list",
)


class TenantRepository(PoolRepository):
    async def insert_tenant(self, conn: asyncpg.Connection, tenant_id: str, name: str) -> None:
        await conn.execute(SQL["tenant_insert"], tenant_id, name)

    async def insert_token(
        self, conn: asyncpg.Connection, token_id: str, tenant_id: str, secret_sha256: bytes
    ) -> None:
        await conn.execute(SQL["token_insert"], token_id, tenant_id, secret_sha256)

    async def revoke_token(self, conn: asyncpg.Connection, token_id: str) -> str | None:
        """The tenant of the token it revoked, or None when no active token has that id."""
        tenant_id = await conn.fetchval(SQL["token_revoke"], token_id)
        return None if tenant_id is None else str(tenant_id)

    async def active_token(self, token_id: str) -> Record | None:
        """``tenant_id`` and ``secret_sha256`` of an active token."""
        return await self.pool.fetchrow(SQL["token_lookup"], token_id)

    @staticmethod
    async def lock_active_token(conn: asyncpg.Connection, token_id: str) -> str | None:
        """The tenant of an active token, its row held (shared) until ``conn`` commits: a
        revocation of it waits for that commit. None when no active token has that id."""
        tenant_id = await conn.fetchval(SQL["token_lock_active"], token_id)
        return None if tenant_id is None else str(tenant_id)

    async def list_tenants(self) -> list[Record]:
        """Every tenant, oldest first: id, name, creation, active token ids, subscriptions."""
        return list(await self.pool.fetch(SQL["tenant_list"]))
