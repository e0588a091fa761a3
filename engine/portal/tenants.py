"""Tenants and API tokens. Tokens are ``hp_<tokenId>_<secret>``; only sha-256(secret) is kept."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import asyncpg

from hookproof.engine.portal.sessions import end_token_sessions
from hookproof.engine.portal.tenant_repository import TenantRepository
from hookproof.errors import NotFound, Unauthorized
from hookproof.events import NO_STREAM, EventStore, Metadata, StreamAppend
from hookproof.events.subscription_events import (
    TenantCreated,
    TokenIssued,
    TokenRevoked,
    tenant_stream_id,
)

__all__ = [
    "TENANT_ID",
    "Caller",
    "IssuedToken",
    "RevokedToken",
    "TenantService",
]

#: a tenant's id as :meth:`create` makes it (``ten_`` + 16 hex)
TENANT_ID = re.compile(r"^ten_[0-9a-f]{16}$")


@dataclass(frozen=True)
class IssuedToken:
    tenant_id: str
    token_id: str
    token: str  # shown once


@dataclass(frozen=True)
class Caller:
    """Whom a valid tenant token speaks for, and which token it is (its public id)."""

    tenant_id: str
    token_id: str


@dataclass(frozen=True)
class RevokedToken:
    tenant_id: str
    token_id: str
    #: the portal sessions the token had started, ended by its revocation
    sessions_ended: list[str]


def _hash(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


#: at most this many verified tokens are remembered per process (the oldest go first)
TOKEN_CACHE_MAX = 10_000


class TenantService:
    """``cache_s``: a token verified against the database is taken again without a read for
    at most that long (the secret's digest is still compared on every request). A revocation
    through this service forgets the token at once; one made elsewhere (the CLI, another
    worker) takes effect here within ``cache_s``. 0: every request reads the token."""

    def __init__(
        self,
        store: EventStore,
        repository: TenantRepository | None = None,
        *,
        cache_s: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.store = store
        self.repository = repository or TenantRepository.of(store)
        self.cache_s = cache_s
        self.clock = clock
        self.wall_clock = wall_clock
        #: token id -> (sha-256 of its secret, tenant id, when it was read)
        self._verified: dict[str, tuple[bytes, str, float]] = {}
        #: revocations through this service: a read that overlapped one is not remembered
        self._revocations = 0

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
                        tenant_stream_id(tenant_id),
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
                        tenant_stream_id(tenant_id),
                        [TokenIssued(tenant_id=tenant_id, token_id=issued.token_id)],
                        metadata=Metadata(actor=actor),
                    )
                ],
                conn=conn,
            )
        return issued

    async def revoke_token(self, token_id: str, *, actor: str = "cli") -> RevokedToken:
        """Revoke; every portal session the token started ends in the same transaction."""
        async with self.repository.transaction() as conn:
            self._forget(token_id)
            tenant_id = await self.repository.revoke_token(conn, token_id)
            if tenant_id is None:
                raise NotFound("no active token with that id", code="token_not_found")
            await self.store.append(
                [
                    StreamAppend(
                        tenant_stream_id(tenant_id),
                        [TokenRevoked(tenant_id=tenant_id, token_id=token_id)],
                        metadata=Metadata(actor=actor),
                    )
                ],
                conn=conn,
            )
            ended = await end_token_sessions(
                self.store, conn, tenant_id, token_id, self.wall_clock(), actor
            )
        self._forget(token_id)  # committed: a read that began before it is not remembered
        return RevokedToken(tenant_id, token_id, ended)

    def _forget(self, token_id: str) -> None:
        self._revocations += 1
        self._verified.pop(token_id, None)

    async def authenticate(self, authorization: str | None) -> str:
        """The tenant id of a valid ``Bearer`` token, else :class:`Unauthorized`."""
        return (await self.caller(authorization)).tenant_id

    async def caller(self, authorization: str | None) -> Caller:
        """The tenant and token id of a valid ``Bearer`` token, else :class:`Unauthorized`."""
        if not authorization or not authorization.startswith("Bearer "):
            raise Unauthorized("missing bearer token", code="missing_token")
        token = authorization[7:].strip()
        parts = token.split("_", 2)
        if len(parts) != 3 or parts[0] != "hp" or not parts[1] or not parts[2]:
            raise Unauthorized("malformed token", code="invalid_token")
        token_id, digest = parts[1], _hash(parts[2])
        now = self.clock()
        known = self._verified.get(token_id)
        if known is not None and now - known[2] < self.cache_s:
            if hmac.compare_digest(known[0], digest):
                return Caller(known[1], token_id)
        revocations = self._revocations
        row = await self.repository.active_token(token_id)
        if row is None or not hmac.compare_digest(bytes(row["secret_sha256"]), digest):
            self._verified.pop(token_id, None)
            raise Unauthorized("unknown or revoked token", code="invalid_token")
        tenant_id = str(row["tenant_id"])
        if self.cache_s > 0 and revocations == self._revocations:
            self._verified.pop(token_id, None)
            if len(self._verified) >= TOKEN_CACHE_MAX:
                del self._verified[next(iter(self._verified))]
            self._verified[token_id] = (digest, tenant_id, now)
        return Caller(tenant_id, token_id)
