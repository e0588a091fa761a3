"""Who is calling: a tenant (``hp_`` API token) or the operator (``HOOKPROOF_ADMIN_TOKEN``)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from aiohttp import web

from hookproof.errors import HookproofError, Unauthorized

from .context import ApiContext, portal_of, require_bearer, tenant_of

__all__ = [
    "AdminDisabled",
    "OperatorOnly",
    "Principal",
    "is_operator",
    "operator_route",
    "principal",
    "require_operator",
]


class OperatorOnly(HookproofError):
    code = "operator_only"
    status = 403
    title = "Forbidden"


class AdminDisabled(HookproofError):
    """An operator route while ``HOOKPROOF_ADMIN_TOKEN`` is unset: switched off, not broken."""

    code = "admin_disabled"
    status = 403
    title = "Operator routes disabled"


@dataclass(frozen=True)
class Principal:
    kind: str  # "tenant" | "operator"
    tenant_id: str | None = None


def is_operator(request: web.Request) -> bool:
    """True when the bearer token is the operator token (compared in constant time)."""
    admin = ApiContext.of(request).settings.admin_token
    given = request.headers.get("Authorization", "")
    if not admin or not given.startswith("Bearer "):
        return False
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), f"Bearer {admin}".encode())


async def principal(request: web.Request) -> Principal:
    """The caller; :class:`Unauthorized` when the token is neither a tenant's nor the operator's.
    A portal session acts as its tenant here (only on the routes its scope opens)."""
    portal = portal_of(request)
    if portal is not None:
        return Principal("tenant", portal.tenant_id)
    if is_operator(request):
        return Principal("operator")
    return Principal("tenant", await tenant_of(request))


async def require_operator(request: web.Request) -> None:
    """Operator token, else 403 ``operator_only`` (a valid tenant token) or 401."""
    if is_operator(request):
        return
    try:
        await tenant_of(request)
    except Unauthorized:
        raise Unauthorized("operator token required", code="invalid_token") from None
    raise OperatorOnly("this view is engine-wide: it needs the operator token")


def operator_route(request: web.Request, what: str) -> None:
    """An operator-only route: 403 ``admin_disabled`` while ``HOOKPROOF_ADMIN_TOKEN`` is unset
    (``what`` names the route in the message), 401 unless the request carries it."""
    admin = ApiContext.of(request).settings.admin_token
    if not admin:
        raise AdminDisabled(
            f"{what} needs the operator token, and this engine has none: set"
            " HOOKPROOF_ADMIN_TOKEN where hookproof serve runs"
        )
    require_bearer(request, admin)
