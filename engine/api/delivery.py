"""``/v1/events``, ``/v1/deliveries`` and ``/v1/dead-letters`` (``/metrics``: api/metrics.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from aiohttp import web

from hookproof.errors import ValidationError
from hookproof.projections.deliveries import LEDGER_STATES
from hookproof.schemas.api import EventIn

from ..delivery.views import DeliveryReader
from ..ingest.ingest import IngestService
from ..subscriptions.service import SUBSCRIPTION_ID
from .batch import decode_batch, result_entry
from .context import ApiContext, actor, portal_of, tenant_of
from .pages import cursor_time, decode_cursor, encode_cursor, page_params
from .problems import decode_body, json_response

__all__ = ["STATS_IDS_MAX", "routes", "stats_ids"]

#: subscriptions one ``GET /v1/attempt-stats`` may name (a page of ``GET /v1/subscriptions``)
STATS_IDS_MAX = 100


def stats_ids(values: list[str]) -> list[str]:
    """The ``subscriptionId`` values of ``GET /v1/attempt-stats``: 1..100 well-formed ids,
    repeats dropped (first place kept)."""
    ids = list(dict.fromkeys(values))
    if not 1 <= len(ids) <= STATS_IDS_MAX:
        raise ValidationError(
            f"subscriptionId: 1 to {STATS_IDS_MAX} subscription ids (the parameter repeated)",
            field="subscriptionId",
            code="invalid_subscription_ids",
        )
    for sid in ids:
        if not SUBSCRIPTION_ID.match(sid):
            raise ValidationError(
                "a subscription id is sub_ and 24 hex digits",
                field="subscriptionId",
                code="invalid_id",
            )
    return ids


def routes(
    ingest: IngestService,
    reader: DeliveryReader,
) -> list[web.RouteDef]:
    async def post_event(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        body = await decode_body(request, EventIn)
        result = await ingest.ingest(tenant, body, actor=actor(request, tenant))
        return json_response(
            {
                "eventId": result.event_id,
                "payloadDigest": result.payload_digest,
                "deliveries": result.deliveries,
                "created": result.created,
            },
            status=202,
        )

    async def post_batch(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        events = await decode_batch(request)
        answers = await ingest.ingest_batch(tenant, events, actor=actor(request, tenant))
        return json_response(
            {"results": [result_entry(e, a) for e, a in zip(events, answers, strict=True)]}
        )

    async def get_event(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        return json_response(await reader.event(tenant, request.match_info["eventId"]))

    async def get_delivery(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        return json_response(await reader.delivery(tenant, request.match_info["id"]))

    async def replay(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        now = datetime.now(UTC).isoformat()
        view = await reader.replay(
            tenant, request.match_info["id"], actor=actor(request, tenant), now=now
        )
        return json_response(view, status=202)

    async def list_deliveries(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        q = request.query
        state = q.get("state")
        if state is not None and state not in LEDGER_STATES:
            raise ValidationError(
                f"state must be one of {', '.join(sorted(LEDGER_STATES))}", field="state"
            )
        raw = q.get("limit", "100")
        if not raw.isdigit() or not 1 <= int(raw) <= 1000:
            raise ValidationError("limit must be an integer 1..1000", field="limit")
        portal = portal_of(request)
        items = await reader.list(
            tenant,
            subscription_id=q.get("subscriptionId"),
            state=state,
            limit=int(raw),
            consumer_id=portal.consumer_id if portal is not None else None,
        )
        return json_response({"items": items})

    async def skip(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        now = datetime.now(UTC).isoformat()
        view = await reader.skip(
            tenant, request.match_info["id"], actor=actor(request, tenant), now=now
        )
        return json_response(view)

    async def dead_letters(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        limit, cursor = page_params(request)
        before = None
        if cursor is not None:
            at, last = decode_cursor(cursor, 2)
            before = (cursor_time(at), str(last))
        portal = portal_of(request)
        items, nxt = await reader.dead_letters_page(
            tenant, limit, before, portal.consumer_id if portal is not None else None
        )
        return json_response(
            {
                "items": items,
                "nextCursor": encode_cursor(nxt[0].isoformat(), nxt[1]) if nxt else None,
            }
        )

    async def attempt_stats(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        sid = request.match_info["id"]
        await ApiContext.of(request).subscriptions.get(tenant, sid)  # 404 unless the tenant's
        return json_response(await reader.attempt_stats(tenant, sid, datetime.now(UTC)))

    async def attempt_stats_of(request: web.Request) -> web.Response:
        """``GET /v1/attempt-stats?subscriptionId=..&subscriptionId=..``: the console's one
        call per view. Every id must be the caller's (a portal session's: its consumer's),
        else 404 ``subscription_not_found``, as the single route answers."""
        tenant = await tenant_of(request)
        ids = stats_ids(request.query.getall("subscriptionId", []))
        portal = portal_of(request)
        await ApiContext.of(request).subscriptions.require_visible(
            tenant, ids, portal.consumer_id if portal is not None else None
        )
        return json_response(await reader.attempt_stats_of(tenant, ids, datetime.now(UTC)))

    return [
        web.get("/v1/subscriptions/{id}/attempt-stats", attempt_stats, allow_head=False),
        web.get("/v1/attempt-stats", attempt_stats_of, allow_head=False),
        web.post("/v1/events", post_event),
        web.post("/v1/events/batch", post_batch),
        web.get("/v1/events/{eventId}", get_event, allow_head=False),
        web.get("/v1/deliveries", list_deliveries, allow_head=False),
        web.get("/v1/deliveries/{id}", get_delivery, allow_head=False),
        web.post("/v1/deliveries/{id}/replay", replay),
        web.post("/v1/deliveries/{id}/skip", skip),
        web.get("/v1/dead-letters", dead_letters, allow_head=False),
    ]
