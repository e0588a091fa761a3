"""Events of consumers (``consumer-<tenantId>-<consumerId>``) and of portal sessions
(``portal-<sessionId>``).

A consumer is one of the tenant's own customers: events published for it are planned only for
its subscriptions. A portal session lets that consumer manage its own endpoints for a while;
its bearer token is never in an event (only its sha-256 is kept, in ``portal_sessions``).
"""

from __future__ import annotations

from typing import Any

from .catalogue import Event

__all__ = [
    "ConsumerCreated",
    "ConsumerDisabled",
    "ConsumerUpdated",
    "PortalSessionEnded",
    "PortalSessionStarted",
    "consumer_stream_id",
    "portal_stream_id",
]


def consumer_stream_id(tenant_id: str, consumer_id: str) -> str:
    return f"consumer-{tenant_id}-{consumer_id}"


def portal_stream_id(session_id: str) -> str:
    return f"portal-{session_id}"


class ConsumerCreated(Event, frozen=True, kw_only=True, tag="consumer.created"):
    tenant_id: str
    consumer_id: str
    name: str
    metadata: dict[str, Any] = {}
    at: str


class ConsumerUpdated(Event, frozen=True, kw_only=True, tag="consumer.updated"):
    """``name`` and ``metadata`` after the change; ``changed`` names what differs."""

    tenant_id: str
    consumer_id: str
    name: str
    metadata: dict[str, Any] = {}
    changed: list[str]
    at: str


class ConsumerDisabled(Event, frozen=True, kw_only=True, tag="consumer.disabled"):
    """Nothing new is planned for the consumer's subscriptions; its portal sessions end."""

    tenant_id: str
    consumer_id: str
    reason: str | None = None
    at: str


class PortalSessionStarted(Event, frozen=True, kw_only=True, tag="portal.session_started"):
    """``creator``: ``token:<tokenId>`` (the tenant token that started it: its public id, never
    its secret) or ``operator``; None in sessions started before it was recorded."""

    session_id: str
    tenant_id: str
    consumer_id: str
    capabilities: list[str]
    expires_at: str
    at: str
    creator: str | None = None


class PortalSessionEnded(Event, frozen=True, kw_only=True, tag="portal.session_ended"):
    """``reason``: ``ended`` (the tenant ended it, alone or with all of its consumer's),
    ``consumer_disabled`` or ``token_revoked`` (the token that started it was revoked)."""

    session_id: str
    tenant_id: str
    consumer_id: str
    reason: str
    at: str
