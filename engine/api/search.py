"""Search and bulk replay on the API (issue 54): ``POST /v1/deliveries/search``,
``POST /v1/events/search``, ``POST /v1/replays`` (``dryRun``), ``GET /v1/replays/{id}``,
``POST /v1/replays/{id}/cancel``. A ``SearchIn`` body is checked here into a
:class:`~hookproof.engine.search.SearchQuery`: every refusal a 400 with its own code (a bad
filter: the filter compiler's code, ``field`` ``filters``). A portal session searches and
replays its consumer's deliveries only (another ``consumerId``: 403 ``portal_scope``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from aiohttp import web

from hookproof.engine.filters import FilterError, compile_filters
from hookproof.errors import ValidationError
from hookproof.projections.deliveries import LEDGER_STATES
from hookproof.schemas.search import ReplayIn, SearchIn

from ..consumers.service import check_consumer_id
from ..delivery.log import EVIDENCE_FILTERS
from ..portal.auth import PortalScope
from ..search import Replays, Search, SearchQuery
from ..subscriptions.service import SUBSCRIPTION_ID
from ..subscriptions.validation import parse_time
from .context import actor, portal_of, tenant_of
from .pages import cursor_time, decode_cursor, encode_cursor
from .params import only
from .problems import decode_body, json_response

__all__ = ["routes", "search_query"]

#: fields that shape the page or the job, not which deliveries match (not in the digest)
_NOT_SEARCH = ("limit", "cursor", "dryRun", "ratePerSecond")


def _time(name: str, raw: str | None) -> datetime | None:
    if raw is None:
        return None
    try:
        return parse_time(raw, name)
    except ValidationError:
        raise ValidationError(
            f"{name} must be an RFC 3339 time with an offset, e.g. 2026-12-01T00:00:00Z",
            field=name,
            code="invalid_time",
        ) from None


def _consumer(request: web.Request, asked: str | None) -> str | None:
    portal = portal_of(request)
    if asked is not None:
        check_consumer_id(asked, "consumerId")
    if portal is None:
        return asked
    if asked is not None and asked != portal.consumer_id:
        raise PortalScope("a portal session searches its own consumer's deliveries only")
    return portal.consumer_id


def search_query(tenant_id: str, body: SearchIn, consumer_id: str | None) -> SearchQuery:
    """The checked search for ``body`` (``consumer_id``: the consumer it is confined to)."""
    try:
        filters = compile_filters(body.filters)
    except FilterError as exc:
        problem = exc.to_problem()
        raise ValidationError(
            exc.detail,
            field="filters",
            code=exc.code,
            **{k: problem[k] for k in ("dialect", "path", "position") if k in problem},
        ) from None
    if body.state is not None and body.state not in LEDGER_STATES:
        raise ValidationError(
            f"state must be one of {', '.join(sorted(LEDGER_STATES))}",
            field="state",
            code="invalid_state",
        )
    if body.evidence is not None and body.evidence not in EVIDENCE_FILTERS:
        raise ValidationError(
            f"evidence must be one of {', '.join(sorted(EVIDENCE_FILTERS))}",
            field="evidence",
            code="invalid_evidence",
        )
    if body.subscription_id is not None and not SUBSCRIPTION_ID.match(body.subscription_id):
        raise ValidationError(
            "a subscription id is sub_ and 24 hex digits",
            field="subscriptionId",
            code="invalid_id",
        )
    since, until = _time("since", body.since), _time("until", body.until)
    if since is not None and until is not None and since >= until:
        raise ValidationError(
            "since must be before until", field="since", code="invalid_time_range"
        )
    before = None
    if body.cursor is not None:
        at, last = decode_cursor(body.cursor, 2)
        if not isinstance(last, str) or not last or len(last) > 200:
            raise ValidationError(
                "cursor is not a nextCursor we gave", field="cursor", code="invalid_cursor"
            )
        before = (cursor_time(at), last)
    source = {
        k: v for k, v in msgspec.to_builtins(body).items() if k not in _NOT_SEARCH and v is not None
    }
    if consumer_id is not None:
        source["consumerId"] = consumer_id
    return SearchQuery(
        tenant_id=tenant_id,
        filters=filters,
        since=since,
        until=until,
        subscription_id=body.subscription_id,
        consumer_id=consumer_id,
        state=body.state,
        evidence=body.evidence,
        status_code=body.status_code,
        reason_code=body.reason_code,
        limit=body.limit,
        before=before,
        source=source,
    )


def _page(items: list[dict[str, Any]], nxt: tuple[datetime, str] | None) -> web.Response:
    cursor = encode_cursor(nxt[0].isoformat(), nxt[1]) if nxt else None
    return json_response({"items": items, "nextCursor": cursor})


def routes(search: Search, replays: Replays) -> list[web.RouteDef]:
    """The search and replay routes (the tenant's token, or a portal session's)."""

    async def checked(request: web.Request, typ: type[Any]) -> tuple[Any, SearchQuery]:
        tenant = await tenant_of(request)
        body = await decode_body(request, typ)
        return body, search_query(tenant, body, _consumer(request, body.consumer_id))

    async def search_deliveries(request: web.Request) -> web.Response:
        _, q = await checked(request, SearchIn)
        return _page(*await search.deliveries(q))

    async def search_events(request: web.Request) -> web.Response:
        _, q = await checked(request, SearchIn)
        return _page(*await search.events(q))

    async def start_replay(request: web.Request) -> web.Response:
        body, q = await checked(request, ReplayIn)
        if body.dry_run:
            return json_response(await replays.dry_run(q))
        view = await replays.start(
            q, rate_per_second=body.rate_per_second, actor=actor(request, q.tenant_id)
        )
        return json_response(view, status=202)

    def _scope(request: web.Request) -> str | None:
        portal = portal_of(request)
        return portal.consumer_id if portal is not None else None

    async def get_replay(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        return json_response(await replays.get(tenant, request.match_info["id"], _scope(request)))

    async def cancel_replay(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        view = await replays.cancel(
            tenant, request.match_info["id"], _scope(request), actor=actor(request, tenant)
        )
        return json_response(view)

    return [
        # static paths a {param} route also matches: only POST is theirs (Allow: POST)
        web.post("/v1/deliveries/search", search_deliveries),
        only("/v1/deliveries/search", "POST"),
        web.post("/v1/events/search", search_events),
        only("/v1/events/search", "POST"),
        web.post("/v1/replays", start_replay),
        web.get("/v1/replays/{id}", get_replay, allow_head=False),
        web.post("/v1/replays/{id}/cancel", cancel_replay),
    ]
