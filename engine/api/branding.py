"""``PUT``/``GET /v1/portal/branding`` (a tenant's portal name, logo, accent colour and
frame-ancestors) and ``GET /portal/{tenantId}``: the portal page under that tenant's
Content-Security-Policy (what a tenant embeds in its own app)."""

from __future__ import annotations

import structlog
from aiohttp import web

from hookproof.schemas.api import PortalBrandingIn

from ..portal.branding import check_branding, portal_csp
from ..portal.branding_repository import BrandingRepository
from ..portal.tenants import TENANT_ID
from .console import CONTENT_SECURITY_POLICY, page_response
from .context import tenant_of
from .problems import decode_body, json_response

__all__ = ["routes"]

log = structlog.get_logger("hookproof.portal")
_EMPTY: dict[str, object] = {
    "displayName": None,
    "logoUrl": None,
    "accentColour": None,
    "frameAncestors": [],
}


def routes(branding: BrandingRepository) -> list[web.RouteDef]:
    async def put(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        checked = check_branding(await decode_body(request, PortalBrandingIn))
        await branding.put(tenant, checked)
        log.info("portal_branding_set", tenant_id=tenant)
        return json_response(checked)

    async def get(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        return json_response(await branding.get(tenant) or _EMPTY)

    async def page(request: web.Request) -> web.Response:
        """The portal page; its token comes in the fragment, so the page never depends on
        one: an unknown tenant gets the default policy (nothing may frame it)."""
        tenant = request.match_info["tenantId"]
        stored = await branding.get(tenant) if TENANT_ID.match(tenant) else None
        return page_response("index.html", "text/html", portal_csp(CONTENT_SECURITY_POLICY, stored))

    return [
        web.put("/v1/portal/branding", put),
        web.get("/v1/portal/branding", get, allow_head=False),
        web.get("/portal/{tenantId}", page, allow_head=False),
    ]
