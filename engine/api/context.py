"""What request handlers share: the services, found on the aiohttp app."""

from __future__ import annotations

import hmac
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from hookproof.config import Settings
from hookproof.errors import Unauthorized
from hookproof.events import EventStore
from hookproof.projections.subscriptions import SubscriptionState

from ..portal.auth import PortalAuth
from ..portal.tenants import TenantService
from ..subscriptions import SubscriptionService

__all__ = [
    "CONTEXT_KEY",
    "PORTAL_KEY",
    "ApiContext",
    "actor",
    "bearer_of",
    "portal_of",
    "require_bearer",
    "tenant_of",
]


@dataclass
class ApiContext:
    settings: Settings
    store: EventStore
    tenants: TenantService
    subscriptions: SubscriptionService
    #: called after registration, regeneration and resume (schedules the challenge)
    on_registered: Callable[[SubscriptionState], Awaitable[None]] | None = None
    #: runs a challenge now and returns its outcome
    on_challenge: Callable[[SubscriptionState, str], Awaitable[dict[str, Any]]] | None = None
    #: the consumers (``engine.consumers.ConsumerService``)
    consumers: Any = None
    #: portal sessions (``engine.portal.PortalService``); None: portal tokens are refused
    portal: Any = None

    @staticmethod
    def of(request: web.Request) -> ApiContext:
        return request.app[CONTEXT_KEY]


CONTEXT_KEY: web.AppKey[ApiContext] = web.AppKey("hookproof_context", ApiContext)
#: the portal session a request's token speaks for (set by ``portal_middleware``)
PORTAL_KEY: web.RequestKey[PortalAuth] = web.RequestKey("hookproof_portal", PortalAuth)


def portal_of(request: web.Request) -> PortalAuth | None:
    """The portal session of this request, or None for a tenant or operator token."""
    return request.get(PORTAL_KEY)


_TOKEN_CHARS = re.compile(r"^Bearer [A-Za-z0-9_\-]{1,200}$")


def bearer_of(request: web.Request) -> str | None:
    """The ``Authorization`` header if it can be a bearer token at all (printable ASCII).

    Bytes that are not ASCII (aiohttp hands them over surrogate-escaped) or an overlong
    value are refused here with 401, before anything compares, encodes or queries them.
    """
    raw = request.headers.get("Authorization")
    if raw is None:
        return None
    if raw.startswith("Bearer ") and not _TOKEN_CHARS.match(raw.strip()):
        raise Unauthorized("malformed token", code="invalid_token")
    return raw.strip() if raw.isascii() else "?"


def require_bearer(request: web.Request, token: str) -> None:
    """The request carries ``Bearer <token>`` (the operator's), compared in constant time."""
    given = bearer_of(request) or ""
    if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        raise Unauthorized("operator token required", code="invalid_token")


async def tenant_of(request: web.Request) -> str:
    """The tenant the caller acts for: a tenant token's, or a portal session's (only on the
    routes ``PORTAL_SCOPE`` opens to it; the middleware refuses the others)."""
    portal = portal_of(request)
    if portal is not None:
        return portal.tenant_id
    return await ApiContext.of(request).tenants.authenticate(bearer_of(request))


def actor(request: web.Request, tenant: str) -> str:
    """``tenant:<id>``, or ``portal:<sessionId>`` for an action under a portal token."""
    portal = portal_of(request)
    if portal is not None:
        return portal.actor
    return f"tenant:{tenant}"
