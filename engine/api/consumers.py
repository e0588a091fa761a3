"""``/v1/consumers`` (the tenant's own customers) and ``POST /v1/tenants`` (operator)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from aiohttp import web

from hookproof.errors import ValidationError
from hookproof.schemas.api import ConsumerCreate, ConsumerDisable, ConsumerPatch, TenantCreate

from ..consumers.service import CONSUMER_ID, check_consumer_id, state_view
from ..subscriptions.validation import validate_text
from .auth import operator_route
from .context import ApiContext, actor, tenant_of
from .pages import cursor_time, decode_cursor, encode_cursor, page_params
from .problems import decode_body, json_response

__all__ = ["routes"]


async def create(request: web.Request) -> web.Response:
    ctx = ApiContext.of(request)
    tenant = await tenant_of(request)
    body = await decode_body(request, ConsumerCreate)
    state = await ctx.consumers.create(tenant, body, actor=actor(request, tenant))
    return json_response(
        state_view(state), status=201, headers={"Location": f"/v1/consumers/{state.consumer_id}"}
    )


def _after(cursor: str | None) -> tuple[datetime, str] | None:
    if cursor is None:
        return None
    created, last = decode_cursor(cursor, 2)
    at = cursor_time(created)  # invalid_cursor for any time we could not have made
    if not isinstance(last, str) or not CONSUMER_ID.match(last):
        raise ValidationError(
            "cursor is not a nextCursor we gave", field="cursor", code="invalid_cursor"
        )
    return at, last


async def list_(request: web.Request) -> web.Response:
    ctx = ApiContext.of(request)
    tenant = await tenant_of(request)
    limit, cursor = page_params(request)
    items, nxt = await ctx.consumers.page(tenant, limit, _after(cursor))
    return json_response(
        {
            "items": items,
            "nextCursor": encode_cursor(nxt[0].isoformat(), nxt[1]) if nxt else None,
        }
    )


async def get(request: web.Request) -> web.Response:
    ctx = ApiContext.of(request)
    tenant = await tenant_of(request)
    cid = check_consumer_id(request.match_info["id"])
    return json_response(state_view(await ctx.consumers.get(tenant, cid)))


async def patch(request: web.Request) -> web.Response:
    ctx = ApiContext.of(request)
    tenant = await tenant_of(request)
    cid = check_consumer_id(request.match_info["id"])
    await ctx.consumers.get(tenant, cid)
    body = await decode_body(request, ConsumerPatch)
    state = await ctx.consumers.update(tenant, cid, body, actor=actor(request, tenant))
    return json_response(state_view(state))


async def disable(request: web.Request) -> web.Response:
    ctx = ApiContext.of(request)
    tenant = await tenant_of(request)
    cid = check_consumer_id(request.match_info["id"])
    await ctx.consumers.get(tenant, cid)
    reason = None
    if request.can_read_body and request.content_length:
        reason = (await decode_body(request, ConsumerDisable)).reason
    state = await ctx.consumers.disable(tenant, cid, actor=actor(request, tenant), reason=reason)
    return json_response(state_view(state))


async def create_tenant(request: web.Request) -> web.Response:
    """Operator provisioning: the new tenant's token is in this answer only."""
    await operator_route(request, "tenant provisioning over the API")
    ctx = ApiContext.of(request)
    body = await decode_body(request, TenantCreate)
    issued = await ctx.tenants.create(validate_text(body.name, "name"), actor="operator:api")
    out: dict[str, Any] = {"tenantId": issued.tenant_id, "token": issued.token}
    return json_response(out, status=201)


def routes() -> list[web.RouteDef]:
    return [
        web.post("/v1/consumers", create),
        web.get("/v1/consumers", list_, allow_head=False),
        web.get("/v1/consumers/{id}", get, allow_head=False),
        web.patch("/v1/consumers/{id}", patch),
        web.post("/v1/consumers/{id}/disable", disable),
        web.post("/v1/tenants", create_tenant),
    ]
