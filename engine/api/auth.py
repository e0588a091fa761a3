"""Who is calling: a tenant (``hp_`` API token) or the operator (``HOOKPROOF_ADMIN_TOKEN``)."""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from .context import authorize, portal_of

__all__ = [
    "Principal",
    "operator_route",
    "principal",
    "require_operator",
]


@dataclass(frozen=True)
class Principal:
    kind: str  # "tenant" | "operator"
    tenant_id: str | None = None


async def principal(request: web.Request) -> Principal:
    """The caller; :class:`Unauthorized` when the token is neither a tenant's nor the operator's.
    A portal session acts as its tenant here (only on the routes its scope opens)."""
    portal = portal_of(request)
    if portal is not None:
        return Principal("tenant", portal.tenant_id)
    tenant = await authorize(request, "any")
    return Principal("operator") if tenant is None else Principal("tenant", tenant)


async def require_operator(request: web.Request, what: str = "this view") -> None:
    """Operator token, else what :func:`authorize` says (401, 403 ``operator_only``...)."""
    await authorize(request, "operator", what=what)


async def operator_route(request: web.Request, what: str) -> None:
    """An operator-only route (``what`` names it in the messages): :func:`authorize`."""
    await authorize(request, "operator", what=what)
