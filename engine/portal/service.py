"""Portal sessions: start (tenant token), end, and authenticate a portal bearer token.

A token is ``hpp_<24 hex>_<secret>``; the session is ``ps_<the same hex>``; only
sha-256(secret) is stored. Start and end are events in ``portal-<sessionId>``; the table row
is what each request reads (no cache: an ended session stops at once).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import structlog

from hookproof.config import Settings
from hookproof.errors import NotFound, Unauthorized, ValidationError
from hookproof.events import NO_STREAM, EventStore, Metadata, StreamAppend
from hookproof.events.consumer_events import (
    PortalSessionStarted,
    consumer_stream_id,
    portal_stream_id,
)
from hookproof.schemas.api import PortalSessionCreate

from ..consumers.repository import ConsumerRepository
from ..consumers.service import ConsumerDisabledError, ConsumerService
from .auth import CAPABILITIES, PORTAL_TOKEN_PREFIX, PortalAuth, PortalSessionExpired
from .repository import PortalRepository
from .sessions import OPERATOR_CREATOR, append_ended, session_view
from .tenant_repository import TenantRepository

__all__ = ["SESSION_ID", "PortalService", "PortalSessionEnds", "check_session_id"]

log = structlog.get_logger("hookproof.portal")

SESSION_ID = re.compile(r"^ps_[0-9a-f]{24}$")
_TOKEN = re.compile(r"^hpp_([0-9a-f]{24})_([A-Za-z0-9_\-]{20,100})$")
TTL_MIN_S, TTL_MAX_S = 60, 86_400


def _hash(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


def check_session_id(value: str) -> str:
    if not SESSION_ID.match(value):
        raise ValidationError(
            "a portal session id is ps_ and 24 hex digits", field="sessionId", code="invalid_id"
        )
    return value


class PortalSessionNotFound(NotFound):
    code = "portal_session_not_found"


class PortalSessionEnds:
    """Ends a disabled consumer's portal sessions with their events (one ``portal.session_ended``
    each, by :func:`~.sessions.append_ended` as every ending). Built before the consumers
    service, which calls it (its ``session_closer``) in the transaction that disables one."""

    def __init__(self, store: EventStore, repository: PortalRepository) -> None:
        self.store = store
        self.repository = repository

    async def __call__(
        self, conn: asyncpg.Connection, tenant_id: str, consumer_id: str, at: str, actor: str
    ) -> int:
        """In the disabling transaction: every live session of the consumer ends."""
        now = datetime.fromisoformat(at)
        ended = await self.repository.end_consumer(
            conn, tenant_id, consumer_id, now, "consumer_disabled"
        )
        await append_ended(
            self.store,
            conn,
            [(sid, consumer_id) for sid in ended],
            tenant_id,
            "consumer_disabled",
            now,
            actor,
        )
        return len(ended)


class PortalService:
    def __init__(
        self,
        store: EventStore,
        settings: Settings,
        consumers: ConsumerService,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        repository: PortalRepository | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.consumers = consumers
        self.clock = clock
        self.repository = repository or PortalRepository.of(store)

    def console_url(self, token: str) -> str:
        base = self.settings.env.get("HOOKPROOF_PUBLIC_URL")
        if not base:
            host = self.settings.listen_host
            host = f"[{host}]" if ":" in host else host
            base = f"http://{host}:{self.settings.listen_port}"
        return f"{base.rstrip('/')}/console#portal={token}"

    async def start(
        self,
        tenant_id: str,
        consumer_id: str,
        body: PortalSessionCreate,
        *,
        actor: str,
        creator: str,
    ) -> dict[str, Any]:
        """A new session for this tenant's consumer; the token is in the answer, once.

        ``creator``: ``token:<tokenId>`` (``sessions.token_creator``) or ``operator``. A
        token's row is held until the session is committed: a revocation racing this start
        either went first (401 ``invalid_token`` here) or waits, then ends this session."""
        consumer = await self.consumers.get(tenant_id, consumer_id)
        if consumer.disabled:
            raise ConsumerDisabledError("this consumer is disabled", field="id")
        if not TTL_MIN_S <= body.ttl_seconds <= TTL_MAX_S:
            raise ValidationError(
                f"ttlSeconds must be {TTL_MIN_S}..{TTL_MAX_S}", field="ttlSeconds"
            )
        caps = body.capabilities
        if not caps or len(set(caps)) != len(caps) or not set(caps) <= set(CAPABILITIES):
            raise ValidationError(
                "capabilities is a non-empty subset of read, manage, replay (each once)",
                field="capabilities",
            )
        caps = [c for c in CAPABILITIES if c in caps]
        hexid = secrets.token_hex(12)
        session_id, secret = f"ps_{hexid}", secrets.token_urlsafe(32)
        now = self.clock()
        expires = now + timedelta(seconds=body.ttl_seconds)
        async with self.repository.transaction() as conn:
            # the consumer's row held until commit: a disable that races this start waits, and
            # its ending of the consumer's sessions then sees this one (or this start sees it)
            [row] = await ConsumerRepository.lock_share(
                conn, [consumer_stream_id(tenant_id, consumer_id)]
            ) or [None]
            if row is None or row["tenant_id"] != tenant_id or row["disabled"]:
                raise ConsumerDisabledError("this consumer is disabled", field="id")
            if creator.startswith("token:"):
                token_id = creator.removeprefix("token:")
                if await TenantRepository.lock_active_token(conn, token_id) != tenant_id:
                    raise Unauthorized("unknown or revoked token", code="invalid_token")
            elif creator != OPERATOR_CREATOR:
                raise ValueError(f"not a portal session creator: {creator!r}")
            await self.repository.insert(
                conn,
                session_id,
                tenant_id,
                consumer_id,
                _hash(secret),
                caps,
                expires,
                now,
                creator,
            )
            await self.store.append(
                [
                    StreamAppend(
                        portal_stream_id(session_id),
                        [
                            PortalSessionStarted(
                                session_id=session_id,
                                tenant_id=tenant_id,
                                consumer_id=consumer_id,
                                capabilities=caps,
                                expires_at=expires.isoformat(),
                                at=now.isoformat(),
                                creator=creator,
                            )
                        ],
                        NO_STREAM,
                        Metadata(actor=actor),
                    )
                ],
                conn=conn,
            )
        log.info("portal_session_started", session_id=session_id, tenant_id=tenant_id)
        token = f"{PORTAL_TOKEN_PREFIX}{hexid}_{secret}"
        return {
            "sessionId": session_id,
            "consumerId": consumer_id,
            "capabilities": caps,
            "token": token,
            "url": self.console_url(token),
            # the same page under the tenant's branding policy (frame-ancestors): to embed
            "embedUrl": self.console_url(token).replace("/console#", f"/portal/{tenant_id}#", 1),
            "expiresAt": expires.isoformat(),
        }

    async def end(self, tenant_id: str, session_id: str, *, actor: str) -> None:
        """End this tenant's session (ending an ended one changes nothing)."""
        check_session_id(session_id)
        if await self.repository.of_tenant(session_id, tenant_id) is None:
            raise PortalSessionNotFound("no such portal session")
        now = self.clock()
        async with self.repository.transaction() as conn:
            row = await self.repository.end(conn, session_id, tenant_id, now, "ended")
            if row is not None:
                await append_ended(
                    self.store,
                    conn,
                    [(session_id, row["consumer_id"])],
                    tenant_id,
                    "ended",
                    now,
                    actor,
                )

    async def page(
        self, tenant_id: str, consumer_id: str, limit: int, after: tuple[datetime, str] | None
    ) -> tuple[list[dict[str, Any]], tuple[datetime, str] | None]:
        """One page of the consumer's live sessions, oldest first, and the key of the next
        (None: this was the last). The caller has checked the consumer is this tenant's."""
        rows = await self.repository.page(tenant_id, consumer_id, self.clock(), after, limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        nxt = (rows[-1]["created_at"], rows[-1]["session_id"]) if more and rows else None
        return [session_view(r) for r in rows], nxt

    async def end_all(self, tenant_id: str, consumer_id: str, *, actor: str) -> int:
        """End every live session of this tenant's consumer; how many ended."""
        now = self.clock()
        async with self.repository.transaction() as conn:
            rows = await self.repository.end_live(conn, tenant_id, consumer_id, now, "ended")
            ended = sorted((r["session_id"], r["consumer_id"]) for r in rows)
            await append_ended(self.store, conn, ended, tenant_id, "ended", now, actor)
        if ended:
            log.info("portal_sessions_ended", reason="ended", tenant_id=tenant_id, count=len(ended))
        return len(ended)

    async def authenticate(self, token: str) -> PortalAuth:
        """The session a portal token speaks for: 401 ``invalid_token`` when it is none of
        ours, 401 ``portal_session_expired`` after its expiry or end."""
        m = _TOKEN.match(token)
        if m is None:
            raise Unauthorized("malformed portal token", code="invalid_token")
        session_id = f"ps_{m.group(1)}"
        row = await self.repository.get(session_id)
        if row is None or not hmac.compare_digest(bytes(row["secret_sha256"]), _hash(m.group(2))):
            raise Unauthorized("unknown portal token", code="invalid_token")
        if row["ended_at"] is not None:
            raise PortalSessionExpired("this portal session has ended")
        if row["expires_at"] <= self.clock():
            raise PortalSessionExpired("this portal session has expired")
        return PortalAuth(
            session_id=session_id,
            tenant_id=row["tenant_id"],
            consumer_id=row["consumer_id"],
            capabilities=frozenset(row["capabilities"]),
            expires_at=row["expires_at"],
        )
