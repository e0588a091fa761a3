"""``POST /v1/filters/evaluate``: try a ``filters`` array on one event before saving it
(DESIGN.md section 16). Reads nothing and writes nothing: the answer depends only on the
body (and, for a hookproof event without ``source``, the caller's tenant)."""

from __future__ import annotations

from aiohttp import web

from hookproof.schemas.api import FiltersEvaluate

from ..filters import evaluate_filters, filter_event_of
from ..ingest.event_checks import validate_event
from .context import tenant_of
from .problems import decode_body, json_response

__all__ = ["routes"]


def routes() -> list[web.RouteDef]:
    async def evaluate(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        body = await decode_body(request, FiltersEvaluate)
        event = filter_event_of(body.event, tenant_id=tenant, check=validate_event)
        return json_response(evaluate_filters(body.filters, event))

    return [web.post("/v1/filters/evaluate", evaluate)]
