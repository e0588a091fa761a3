"""Portal tokens on the API: the middleware that scopes them, and the session routes
(``POST``, ``GET`` and ``DELETE /v1/consumers/{id}/portal-sessions``: start one, list the live
ones, end them all; ``DELETE /v1/portal-sessions/{id}``: end one)."""

from __future__ import annotations

from datetime import datetime

from aiohttp import web

from hookproof.errors import NotFound, Unauthorized, ValidationError
from hookproof.schemas.api import PortalSessionCreate

from ..consumers.service import check_consumer_id
from ..ingest.ingest import DELIVERY_ID
from ..portal.auth import (
    PORTAL_SCOPE,
    PORTAL_TOKEN_PREFIX,
    PUBLIC_ROUTES,
    PortalAuth,
    PortalScope,
)
from ..portal.service import SESSION_ID, check_session_id
from ..portal.sessions import token_creator
from ..subscriptions.service import SUBSCRIPTION_ID
from .context import PORTAL_KEY, ApiContext, actor, bearer_of, tenant_of
from .pages import cursor_time, decode_cursor, encode_cursor, page_params
from .params import route_of
from .problems import Handler, decode_body, json_response

__all__ = ["portal_middleware", "routes"]

_DELIVERY_ID = DELIVERY_ID


@web.middleware
async def portal_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A request with a portal token reaches only the routes of ``PORTAL_SCOPE`` its
    capabilities allow (403 ``portal_scope`` otherwise), and only ids of its own consumer
    (404 otherwise: another consumer's subscription does not exist for it)."""
    raw = request.headers.get("Authorization", "")
    if not raw.startswith("Bearer " + PORTAL_TOKEN_PREFIX):
        return await handler(request)
    path = route_of(request)
    if path is None or path in PUBLIC_ROUTES:  # no such route (404/405), or no token needed
        return await handler(request)
    ctx = ApiContext.of(request)
    bearer = bearer_of(request) or ""
    if ctx.portal is None:
        raise Unauthorized("portal sessions are not enabled", code="invalid_token")
    auth: PortalAuth = await ctx.portal.authenticate(bearer[len("Bearer ") :])
    scope = PORTAL_SCOPE.get((request.method, path))
    if scope is None:
        raise PortalScope(f"{request.method} {path} is outside a portal session's scope")
    auth.require(scope.capability)
    if scope.owns is not None:
        await _check_owned(ctx, auth, scope.owns, request.match_info["id"])
    request[PORTAL_KEY] = auth
    return await handler(request)


async def _check_owned(ctx: ApiContext, auth: PortalAuth, kind: str, value: str) -> None:
    if kind == "subscription":
        if not SUBSCRIPTION_ID.match(value):
            raise ValidationError(
                "a subscription id is sub_ and 24 hex digits", field="id", code="invalid_id"
            )
        state = await ctx.subscriptions.get(auth.tenant_id, value)
        if state.config.consumer_id != auth.consumer_id:
            raise NotFound("no such subscription", code="subscription_not_found")
        return
    if not _DELIVERY_ID.match(value):
        raise ValidationError(
            "a delivery id is dlv_ and 28 hex digits", field="id", code="invalid_id"
        )
    row = await ctx.portal.repository.delivery_consumer(auth.tenant_id, value)
    if row is None or row["consumer_id"] != auth.consumer_id:
        raise NotFound("no such delivery", code="delivery_not_found")


async def start_session(request: web.Request) -> web.Response:
    ctx = ApiContext.of(request)
    # a tenant token only (the middleware refuses portal tokens here); the session is its
    await tenant_of(request)  # the one rule: 401, or 403 tenant_only for the operator token
    caller = await ctx.tenants.caller(bearer_of(request))
    tenant = caller.tenant_id
    consumer_id = check_consumer_id(request.match_info["id"])
    await ctx.consumers.get(tenant, consumer_id)  # format, then 404 unless it is this tenant's
    body = (
        await decode_body(request, PortalSessionCreate)
        if request.can_read_body
        else PortalSessionCreate()
    )
    out = await ctx.portal.start(
        tenant,
        consumer_id,
        body,
        actor=actor(request, tenant),
        creator=token_creator(caller.token_id),
    )
    return json_response(
        out, status=201, headers={"Location": f"/v1/portal-sessions/{out['sessionId']}"}
    )


async def end_session(request: web.Request) -> web.Response:
    ctx = ApiContext.of(request)
    tenant = await tenant_of(request)  # who asks first (401), then the id's format (400)
    sid = check_session_id(request.match_info["id"])
    await ctx.portal.end(tenant, sid, actor=actor(request, tenant))
    return web.Response(status=204)


def _after(cursor: str | None) -> tuple[datetime, str] | None:
    if cursor is None:
        return None
    created, last = decode_cursor(cursor, 2)
    at = cursor_time(created)  # invalid_cursor for any time we could not have made
    if not isinstance(last, str) or not SESSION_ID.match(last):
        raise ValidationError(
            "cursor is not a nextCursor we gave", field="cursor", code="invalid_cursor"
        )
    return at, last


async def list_sessions(request: web.Request) -> web.Response:
    """The consumer's live sessions, oldest first (paged): never a token or its digest."""
    ctx = ApiContext.of(request)
    tenant = await tenant_of(request)
    consumer_id = check_consumer_id(request.match_info["id"])
    limit, cursor = page_params(request)
    after = _after(cursor)
    await ctx.consumers.get(tenant, consumer_id)  # 404 unless it is this tenant's
    items, nxt = await ctx.portal.page(tenant, consumer_id, limit, after)
    return json_response(
        {
            "items": items,
            "nextCursor": encode_cursor(nxt[0].isoformat(), nxt[1]) if nxt else None,
        }
    )


async def end_sessions(request: web.Request) -> web.Response:
    """End every live session of the consumer: ``{"ended": <how many>}``."""
    ctx = ApiContext.of(request)
    tenant = await tenant_of(request)
    consumer_id = check_consumer_id(request.match_info["id"])
    await ctx.consumers.get(tenant, consumer_id)  # 404 unless it is this tenant's
    ended = await ctx.portal.end_all(tenant, consumer_id, actor=actor(request, tenant))
    return json_response({"ended": ended})


def routes() -> list[web.RouteDef]:
    return [
        web.post("/v1/consumers/{id}/portal-sessions", start_session),
        web.get("/v1/consumers/{id}/portal-sessions", list_sessions, allow_head=False),
        web.delete("/v1/consumers/{id}/portal-sessions", end_sessions),
        web.delete("/v1/portal-sessions/{id}", end_session),
    ]
