"""HTTP handler of recovery: ``POST /v1/subscriptions/{id}/recover``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

from hookproof.schemas.api import RecoverIn

from .auth import principal
from .context import actor as actor_of
from .problems import decode_body, json_response

if TYPE_CHECKING:
    from ..delivery.recover import Recovery

__all__ = ["routes"]


def routes(recovery: Recovery) -> list[web.RouteDef]:
    """``POST /v1/subscriptions/{id}/recover`` (the tenant's token, or the operator's)."""

    async def recover(request: web.Request) -> web.Response:
        who = await principal(request)
        body = await decode_body(request, RecoverIn)
        tenant = who.tenant_id if who.kind == "tenant" else None
        result = await recovery.recover(
            request.match_info["id"],
            tenant_id=tenant,
            since=body.since,
            until=body.until,
            states=body.states,
            limit=body.limit,
            actor=actor_of(request, tenant) if tenant is not None else "operator:api",
        )
        return json_response(result.view(), status=202)

    return [web.post("/v1/subscriptions/{id}/recover", recover)]
