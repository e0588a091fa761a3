"""Tenants and API tokens. Tokens are ``hp_<tokenId>_<secret>``; only sha-256(secret) is kept."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

import asyncpg

from hookproof.engine.tenant_repository import TenantRepository
from hookproof.errors import NotFound, Unauthorized
from hookproof.events import NO_STREAM, EventStore, Metadata, StreamAppend
from hookproof.events.subscription_events import TenantCreated, TokenIssued, TokenRevoked

__all__ = ["IssuedToken", "TenantService"]


@dataclass(frozen=True)
class IssuedToken:
    tenant_id: str
    token_id: str
    token: str  # shown once


def _hash(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


class TenantService:
    def __init__(self, store: EventStore, repository: TenantRepository | None = None) -> None:
        self.store = store
        self.repository = repository or TenantRepository.of(store)

    async def create(self, name: str, *, actor: str = "cli") -> IssuedToken:
        if not name or len(name) > 200:
            from hookproof.errors import ValidationError

            raise ValidationError("tenant name must be 1..200 characters", field="name")
        tenant_id = "ten_" + secrets.token_hex(8)
        async with self.repository.transaction() as conn:
            await self.repository.insert_tenant(conn, tenant_id, name)
            issued = await self._issue(conn, tenant_id)
            await self.store.append(
                [
                    StreamAppend(
                        f"tenant-{tenant_id}",
                        [
                            TenantCreated(tenant_id=tenant_id, name=name),
                            TokenIssued(tenant_id=tenant_id, token_id=issued.token_id),
                        ],
                        NO_STREAM,
                        Metadata(actor=actor),
                    )
                ],
                conn=conn,
            )
        return issued

    async def _issue(self, conn: asyncpg.Connection, tenant_id: str) -> IssuedToken:
        token_id = secrets.token_hex(8)
        secret = secrets.token_urlsafe(32)
        await self.repository.insert_token(conn, token_id, tenant_id, _hash(secret))
        return IssuedToken(tenant_id, token_id, f"hp_{token_id}_{secret}")

    async def issue_token(self, tenant_id: str, *, actor: str = "cli") -> IssuedToken:
        async with self.repository.transaction() as conn:
            issued = await self._issue(conn, tenant_id)
            await self.store.append(
                [
                    StreamAppend(
                        f"tenant-{tenant_id}",
                        [TokenIssued(tenant_id=tenant_id, token_id=issued.token_id)],
                        metadata=Metadata(actor=actor),
                    )
                ],
                conn=conn,
            )
        return issued

    async def revoke_token(self, token_id: str, *, actor: str = "cli") -> str:
        async with self.repository.transaction() as conn:
            tenant_id = await self.repository.revoke_token(conn, token_id)
            if tenant_id is None:
                raise NotFound("no active token with that id", code="token_not_found")
            await self.store.append(
                [
                    StreamAppend(
                        f"tenant-{tenant_id}",
                        [TokenRevoked(tenant_id=tenant_id, token_id=token_id)],
                        metadata=Metadata(actor=actor),
                    )
                ],
                conn=conn,
            )
        return tenant_id

    async def authenticate(self, authorization: str | None) -> str:
        """The tenant id of a valid ``Bearer`` token, else :class:`Unauthorized`."""
        if not authorization or not authorization.startswith("Bearer "):
            raise Unauthorized("missing bearer token", code="missing_token")
        token = authorization[7:].strip()
        parts = token.split("_", 2)
        if len(parts) != 3 or parts[0] != "hp" or not parts[1] or not parts[2]:
            raise Unauthorized("malformed token", code="invalid_token")
        row = await self.repository.active_token(parts[1])
        if row is None or not hmac.compare_digest(bytes(row["secret_sha256"]), _hash(parts[2])):
            raise Unauthorized("unknown or revoked token", code="invalid_token")
        return str(row["tenant_id"])
