"""``/v1/events``, ``/v1/deliveries`` and ``/v1/dead-letters`` (``/metrics``: api/metrics.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from hookproof.errors import HookproofError, ValidationError
from hookproof.schemas.api import EventIn

from ..delivery.log_repository import DeliveryLog
from ..delivery.stats_view import INTERVALS
from ..delivery.views import DeliveryReader
from ..ingest.ingest import IngestService
from ..standby import ReadSide
from ..subscriptions.service import SUBSCRIPTION_ID
from . import cloudevents
from .batch import decode_batch, result_entry
from .context import actor, portal_of, tenant_of
from .delivery_log import log_query
from .pages import cursor_time, decode_cursor, encode_cursor, page_params
from .params import only
from .problems import decode_body, json_response
from .reads import read_side

__all__ = [
    "STATS_IDS_MAX",
    "STATS_WINDOWS",
    "routes",
    "stats_hours",
    "stats_ids",
    "stats_interval",
]

#: ``window`` of ``GET /v1/attempt-stats``: hours of buckets (the 7 days: 168 hourly buckets,
#: read from the same rollup; a chart folds them into days)
STATS_WINDOWS = {"24h": 24, "7d": 168}


def stats_hours(window: str) -> int:
    if window not in STATS_WINDOWS:
        raise ValidationError("window must be 24h or 7d", field="window", code="invalid_window")
    return STATS_WINDOWS[window]


def stats_interval(interval: str) -> str:
    """``interval`` of ``attempt-stats``: a bucket per ``hour`` (default) or per UTC ``day``."""
    if interval not in INTERVALS:
        raise ValidationError(
            "interval must be hour or day", field="interval", code="invalid_interval"
        )
    return interval


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
    log: DeliveryLog,
) -> list[web.RouteDef]:
    async def post_event(request: web.Request) -> web.Response:
        """A plain event, or a CloudEvent in any mode of the HTTP binding (mapped here; the
        batch mode answers as ``/v1/events/batch`` does)."""
        tenant = await tenant_of(request)
        mode = cloudevents.mode_of(request)
        if mode == "batch":
            return await answer_batch(request, tenant, await cloudevents.read_batch(request))
        if mode == "structured":
            body = await cloudevents.read_structured(request)
        elif mode == "binary":
            body = await cloudevents.read_binary(request)
        else:
            body = await decode_body(request, EventIn)
        result = await ingest.ingest(tenant, body, actor=actor(request, tenant))
        answer: dict[str, object] = {
            "eventId": result.event_id,
            "payloadDigest": result.payload_digest,
            "deliveries": result.deliveries,
            "created": result.created,
        }
        if not result.deliveries:  # accepted, delivered nowhere: say why
            [causes] = await ingest.unplanned(tenant, [body])
            answer["reasons"] = [c.to_json() for c in causes]
        return json_response(answer, status=202)

    async def post_batch(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        return await answer_batch(request, tenant, await decode_batch(request))

    async def answer_batch(
        request: web.Request, tenant: str, events: list[EventIn | HookproofError]
    ) -> web.Response:
        answers = await ingest.ingest_batch(tenant, events, actor=actor(request, tenant))
        results = [result_entry(e, a) for e, a in zip(events, answers, strict=True)]
        unplanned = [
            (entry, e)
            for entry, e in zip(results, events, strict=True)
            if entry["status"] == 202 and not entry["deliveries"] and isinstance(e, EventIn)
        ]
        if unplanned:  # accepted, delivered nowhere: say why (one read for the batch)
            causes = await ingest.unplanned(tenant, [e for _, e in unplanned])
            for (entry, _), found in zip(unplanned, causes, strict=True):
                entry["reasons"] = [c.to_json() for c in found]
        return json_response({"results": results})

    async def get_event(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        eid = request.match_info["eventId"]
        return json_response(
            await read_side(request, tenant, lambda s: s.reader.event(tenant, eid))
        )

    async def get_delivery(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        did = request.match_info["id"]
        return json_response(
            await read_side(request, tenant, lambda s: s.reader.delivery(tenant, did))
        )

    async def replay(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        now = datetime.now(UTC).isoformat()
        view = await reader.replay(
            tenant, request.match_info["id"], actor=actor(request, tenant), now=now
        )
        return json_response(view, status=202)

    async def list_deliveries(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        portal = portal_of(request)
        q = log_query(
            tenant,
            request.query,
            [k for k, _ in request.query.items()],
            portal.consumer_id if portal is not None else None,
        )
        items, nxt = await read_side(request, tenant, lambda s: s.log.page(q))
        return json_response(
            {
                "items": items,
                "nextCursor": encode_cursor(nxt[0].isoformat(), nxt[1]) if nxt else None,
            }
        )

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
        consumer = portal.consumer_id if portal is not None else None
        items, nxt = await read_side(
            request, tenant, lambda s: s.reader.dead_letters_page(tenant, limit, before, consumer)
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

        async def stats(side: ReadSide) -> dict[str, Any]:
            await side.subscriptions.get(tenant, sid)  # 404 unless the tenant's
            return await side.reader.attempt_stats(tenant, sid, datetime.now(UTC))

        return json_response(await read_side(request, tenant, stats))

    async def attempt_stats_of(request: web.Request) -> web.Response:
        """``GET /v1/attempt-stats?subscriptionId=..&subscriptionId=..``: the console's one
        call per view. Every id must be the caller's (a portal session's: its consumer's),
        else 404 ``subscription_not_found``, as the single route answers."""
        tenant = await tenant_of(request)
        ids = stats_ids(request.query.getall("subscriptionId", []))
        hours = stats_hours(request.query.get("window", "24h"))
        interval = stats_interval(request.query.get("interval", "hour"))
        portal = portal_of(request)
        consumer = portal.consumer_id if portal is not None else None

        async def stats(side: ReadSide) -> Any:
            await side.subscriptions.require_visible(tenant, ids, consumer)
            return await side.reader.attempt_stats_of(
                tenant, ids, datetime.now(UTC), hours=hours, interval=interval
            )

        return json_response(await read_side(request, tenant, stats))

    return [
        web.get("/v1/subscriptions/{id}/attempt-stats", attempt_stats, allow_head=False),
        web.get("/v1/attempt-stats", attempt_stats_of, allow_head=False),
        web.post("/v1/events", post_event),
        web.post("/v1/events/batch", post_batch),
        only("/v1/events/batch", "POST"),
        web.get("/v1/events/{eventId}", get_event, allow_head=False),
        web.get("/v1/deliveries", list_deliveries, allow_head=False),
        web.get("/v1/deliveries/{id}", get_delivery, allow_head=False),
        web.post("/v1/deliveries/{id}/replay", replay),
        web.post("/v1/deliveries/{id}/skip", skip),
        web.get("/v1/dead-letters", dead_letters, allow_head=False),
    ]
