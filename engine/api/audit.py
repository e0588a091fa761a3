"""Read-only audit views over the log: who am I, timelines, release gates.

Timelines are tenant-scoped (a tenant reads only its own subscriptions and deliveries); the
release gates are engine-wide and need the operator token.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from hookproof.errors import NotFound, ValidationError
from hookproof.schemas.api_out import Gate, GateReport

from ..audit import (
    delivery_timeline,
    gates_failed,
    parse_as_of,
    subscription_timeline,
)
from ..audit.repository import AuditRepository
from ..audit.timeline import Timeline
from ..challenge.disclosure import redact_timeline
from ..delivery.repository import DeliveryRepository
from ..standby import ReadSide
from .auth import principal, require_operator
from .context import ApiContext, portal_of, tenant_of
from .pages import decode_cursor, encode_cursor, page_params
from .problems import json_response
from .reads import read_side

__all__ = ["routes"]


async def whoami(request: web.Request) -> web.Response:
    portal = portal_of(request)
    if portal is not None:
        return json_response(
            {
                "kind": "portal",
                "tenantId": portal.tenant_id,
                "consumerId": portal.consumer_id,
                "sessionId": portal.session_id,
                "capabilities": sorted(portal.capabilities),
                "expiresAt": portal.expires_at.isoformat(),
            }
        )
    who = await principal(request)
    if who.kind == "operator":
        return json_response({"kind": "operator"})
    return json_response({"kind": "tenant", "tenantId": who.tenant_id})


async def subscription_timeline_view(request: web.Request) -> web.Response:
    tenant = await tenant_of(request)
    sid = request.match_info["id"]
    as_of = parse_as_of(request.query.get("asOf"))
    limit, after = timeline_page(request)

    async def read(side: ReadSide) -> Timeline:
        await side.subscriptions.get(tenant, sid)  # 404 unless it is this tenant's
        return await subscription_timeline(side.store, sid, as_of=as_of)

    timeline = await read_side(request, tenant, read)
    return json_response(paged(redact_timeline(timeline.to_json()), limit, after))


async def delivery_timeline_view(request: web.Request) -> web.Response:
    tenant = await tenant_of(request)
    did = request.match_info["id"]
    as_of = parse_as_of(request.query.get("asOf"))
    limit, after = timeline_page(request)

    async def read(side: ReadSide) -> Timeline:
        if await DeliveryRepository.of(side.store).get(tenant, did) is None:
            raise NotFound("no such delivery", code="delivery_not_found")
        return await delivery_timeline(side.store, did, as_of=as_of)

    timeline = await read_side(request, tenant, read)
    return json_response(paged(redact_timeline(timeline.to_json()), limit, after))


def timeline_page(request: web.Request) -> tuple[int, int]:
    """``limit`` (1..1000, default 200) and the stream version a ``cursor`` resumes after."""
    limit, cursor = page_params(request)
    if cursor is None:
        return limit, 0
    [after] = decode_cursor(cursor, 1)
    if not isinstance(after, int) or isinstance(after, bool) or not 0 <= after < 2**62:
        raise ValidationError(
            "cursor is not a nextCursor we gave", field="cursor", code="invalid_cursor"
        )
    return limit, after


def paged(doc: dict[str, Any], limit: int, after: int) -> dict[str, Any]:
    """The timeline with the ``limit`` entries after stream version ``after``, and
    ``nextCursor`` (null on the last page), as every list route pages."""
    rest = [e for e in doc["entries"] if e["version"] > after]
    page = rest[:limit]
    more = len(rest) > limit
    return {
        **doc,
        "entries": page,
        "nextCursor": encode_cursor(page[-1]["version"]) if more else None,
    }


async def gates(request: web.Request) -> web.Response:
    await require_operator(request)
    ctx = ApiContext.of(request)
    since = parse_as_of(request.query.get("since"), "since")
    results = await AuditRepository.of(ctx.store).gate_report(since)
    report = GateReport(
        since=since.isoformat() if since else None,
        gates=[
            Gate(
                gate=g.name,
                title=g.title,
                status=g.status,
                value=g.value,
                threshold=g.threshold,
                detail=g.detail,
                examples=g.examples,
            )
            for g in results
        ],
        ok=not gates_failed(results),
    )
    return json_response(report)


def routes() -> list[web.RouteDef]:
    return [
        web.get("/v1/whoami", whoami, allow_head=False),
        web.get("/v1/subscriptions/{id}/timeline", subscription_timeline_view, allow_head=False),
        web.get("/v1/deliveries/{id}/timeline", delivery_timeline_view, allow_head=False),
        web.get("/v1/gates", gates, allow_head=False),
    ]
