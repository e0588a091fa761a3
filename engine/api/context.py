"""What request handlers share: the services, found on the aiohttp app."""

from __future__ import annotations

import hmac
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from hookproof.config import Settings
from hookproof.errors import HookproofError, Unauthorized
from hookproof.events import EventStore
from hookproof.projections.subscriptions import SubscriptionState

from ..portal.auth import PortalAuth
from ..portal.tenants import TenantService
from ..standby import ReadRouter
from ..subscriptions import SubscriptionService
from .params import check_params, route_of

__all__ = [
    "CONTEXT_KEY",
    "PORTAL_KEY",
    "TENANT_KEY",
    "ApiContext",
    "WrongKind",
    "actor",
    "authorize",
    "bearer_of",
    "portal_of",
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
    #: which database answers the read routes (``engine.standby``; None: the primary only)
    reads: ReadRouter | None = None
    #: ``/readyz``: a reason code while the master key cannot open the database's sealed
    #: material (``engine.keys.master_check.master_key_problem``; None: not checked)
    keys_problem: Callable[[], Awaitable[str | None]] | None = None

    @staticmethod
    def of(request: web.Request) -> ApiContext:
        return request.app[CONTEXT_KEY]


CONTEXT_KEY: web.AppKey[ApiContext] = web.AppKey("hookproof_context", ApiContext)
#: the portal session a request's token speaks for (set by ``portal_middleware``)
PORTAL_KEY: web.RequestKey[PortalAuth] = web.RequestKey("hookproof_portal", PortalAuth)
#: the tenant a request acts for, once ``tenant_of`` found it (the write-position middleware)
TENANT_KEY: web.RequestKey[str] = web.RequestKey("hookproof_tenant", str)


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


def _carries(request: web.Request, token: str | None) -> bool:
    """The request carries ``Bearer <token>`` (compared in constant time; None: never)."""
    if not token:
        return False
    given = bearer_of(request) or ""
    return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())


class WrongKind(HookproofError):
    """A valid token of the wrong kind for the route (``operator_only``, ``tenant_only``)."""

    status = 403
    title = "Forbidden"


async def authorize(
    request: web.Request,
    want: str,
    *,
    also: str | None = None,
    what: str = "this route",
    disabled: str = "admin_disabled",
) -> str | None:
    """:func:`_authenticate`, then every path and query parameter against ``params.QUERY``
    (``check_params``): who asks first (401/403), then the parameters (400), before any
    handler reads one or makes a query with it."""
    tenant = await _authenticate(request, want, also=also, what=what, disabled=disabled)
    route = route_of(request)
    if route is not None:
        check_params(request.method, route, request)
    return tenant


async def _authenticate(
    request: web.Request,
    want: str,
    *,
    also: str | None = None,
    what: str = "this route",
    disabled: str = "admin_disabled",
) -> str | None:
    """THE rule of authentication, for every route that needs a token:

    - no valid token: 401 (``missing_token`` or ``invalid_token``);
    - a valid token of the wrong kind: 403 (``operator_only`` for a tenant token on an
      operator route, ``tenant_only`` for the operator token on a tenant route; a portal token
      outside its scope is refused with ``portal_scope`` by the portal middleware first);
    - an operator route while no operator token is configured: 403 ``disabled``
      (``admin_disabled``; ``/metrics``: ``metrics_disabled``): no token can be valid for it.

    ``want`` is ``"tenant"`` (returns the tenant id; a portal session acts as its tenant),
    ``"operator"`` (``HOOKPROOF_ADMIN_TOKEN``, or ``also``: the metrics token) or ``"any"``
    (returns the tenant id, None for the operator)."""
    ctx = ApiContext.of(request)
    portal = portal_of(request)
    if portal is not None:
        if want == "operator":  # the middleware keeps portals off these routes; kept closed
            raise WrongKind("a portal session cannot do this", code="portal_scope")
        return portal.tenant_id
    admin = ctx.settings.admin_token
    if want == "operator":
        if not admin and not also:
            err = HookproofError(
                f"{what} needs the operator token, and this engine has none: set"
                " HOOKPROOF_ADMIN_TOKEN where hookproof serve runs",
                code=disabled,
            )
            err.status = 403
            err.title = (
                "Operator routes disabled" if disabled == "admin_disabled" else "Metrics disabled"
            )
            raise err
        if _carries(request, admin) or _carries(request, also):
            return None
        await ctx.tenants.authenticate(bearer_of(request))  # 401 unless a tenant's
        raise WrongKind(f"{what} is engine-wide: it needs the operator token", code="operator_only")
    if _carries(request, admin):
        if want == "any":
            return None
        raise WrongKind("this route acts for a tenant: it needs a tenant token", code="tenant_only")
    return await ctx.tenants.authenticate(bearer_of(request))


async def tenant_of(request: web.Request) -> str:
    """The tenant the caller acts for: a tenant token's, or a portal session's (only on the
    routes ``PORTAL_SCOPE`` opens to it; the middleware refuses the others). :func:`authorize`
    says what a missing or wrong token gets."""
    tenant = await authorize(request, "tenant")
    assert tenant is not None
    request[TENANT_KEY] = tenant
    return tenant


def actor(request: web.Request, tenant: str) -> str:
    """``tenant:<id>``, or ``portal:<sessionId>`` for an action under a portal token."""
    portal = portal_of(request)
    if portal is not None:
        return portal.actor
    return f"tenant:{tenant}"
