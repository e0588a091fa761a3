"""A portal session's creator, its list view, and the ending of sessions with their events.

Shared by :class:`~hookproof.engine.portal.service.PortalService` and the tenant service,
whose token revocation ends the sessions that token started in the revoking transaction (the
CLI revokes with no portal service running). Every ending is a ``portal.session_ended`` event
on the session's stream, as an ending by DELETE or by a disable is.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import asyncpg
import structlog

from hookproof.events import EventStore, Metadata, StreamAppend
from hookproof.events.consumer_events import PortalSessionEnded, portal_stream_id

from ..db.repository import Record
from .repository import PortalRepository

__all__ = [
    "OPERATOR_CREATOR",
    "UNKNOWN_CREATOR",
    "append_ended",
    "end_token_sessions",
    "session_view",
    "token_creator",
]

log = structlog.get_logger("hookproof.portal")

#: the creator of a session the operator started (``hookproof tenant portal-session``)
OPERATOR_CREATOR = "operator"
#: shown for a session started before its creator was recorded (migration 0891)
UNKNOWN_CREATOR = "unknown"


def token_creator(token_id: str) -> str:
    """The creator of a session a tenant token started: its public id, never its secret."""
    return f"token:{token_id}"


def session_view(row: Record) -> dict[str, Any]:
    """One item of ``GET /v1/consumers/{id}/portal-sessions`` (no token material)."""
    return {
        "id": row["session_id"],
        "consumerId": row["consumer_id"],
        "capabilities": list(row["capabilities"]),
        "creator": row["creator"] or UNKNOWN_CREATOR,
        "createdAt": row["created_at"].isoformat(),
        "expiresAt": row["expires_at"].isoformat(),
    }


async def append_ended(
    store: EventStore,
    conn: asyncpg.Connection,
    ended: Iterable[tuple[str, str]],
    tenant_id: str,
    reason: str,
    at: datetime,
    actor: str,
) -> None:
    """A ``portal.session_ended`` per (session id, consumer id), in ``conn``'s transaction."""
    appends = [
        StreamAppend(
            portal_stream_id(sid),
            [
                PortalSessionEnded(
                    session_id=sid,
                    tenant_id=tenant_id,
                    consumer_id=consumer_id,
                    reason=reason,
                    at=at.isoformat(),
                )
            ],
            metadata=Metadata(actor=actor),
        )
        for sid, consumer_id in ended
    ]
    if appends:
        await store.append(appends, conn=conn)


async def end_token_sessions(
    store: EventStore,
    conn: asyncpg.Connection,
    tenant_id: str,
    token_id: str,
    at: datetime,
    actor: str,
) -> list[str]:
    """In the revoking transaction (after the token's row is updated, so a start racing it
    has committed or will see the token revoked): end every live session the token started,
    and those of its tenant whose creator was never recorded. Their ids, sorted."""
    rows = await PortalRepository.end_token(conn, tenant_id, token_id, at, "token_revoked")
    ended = sorted((r["session_id"], r["consumer_id"]) for r in rows)
    await append_ended(store, conn, ended, tenant_id, "token_revoked", at, actor)
    if ended:
        log.info(
            "portal_sessions_ended", reason="token_revoked", tenant_id=tenant_id, count=len(ended)
        )
    return [sid for sid, _ in ended]
