"""``/v1/event-types``: define (PUT), read one, list (paged), export as OpenAPI 3.1.

Who may do what is decided in two small functions: ``catalogue_reader`` (the GET routes) and
``catalogue_writer`` (PUT). Today both accept a tenant token only; a read-only caller scoped
to one tenant (a consumer's portal session) is added to ``catalogue_reader`` alone, so such a
token can read the catalogue and never change it.
"""

from __future__ import annotations

from aiohttp import web

from hookproof.errors import ValidationError
from hookproof.schemas.api import EventTypeIn
from hookproof.schemas.api_out import EventType

from ..event_types.definition import TOPIC
from ..event_types.openapi import catalogue_document
from ..event_types.service import EventTypeService, EventTypeView
from .context import actor, tenant_of
from .pages import decode_cursor, encode_cursor, page_params
from .params import only
from .problems import decode_body, json_response

__all__ = ["catalogue_reader", "catalogue_writer", "event_type_out", "routes"]


async def catalogue_reader(request: web.Request) -> str:
    """The tenant whose catalogue a GET reads (the only place read access is decided)."""
    return await tenant_of(request)


async def catalogue_writer(request: web.Request) -> str:
    """The tenant whose catalogue a PUT changes: a tenant token, nothing else."""
    return await tenant_of(request)


def event_type_out(view: EventTypeView) -> EventType:
    """The answer's body (the type ``/openapi.json`` documents it with)."""
    return EventType(
        topic=view.topic,
        description=view.description,
        versions={m: view.versions[m] for m in sorted(view.versions, key=int)},
        deprecated=view.deprecated,
        version=view.version,
        digest=view.digest,
        created_at=view.created_at.isoformat(),
        updated_at=view.updated_at.isoformat(),
    )


def _etag(view: EventTypeView) -> dict[str, str]:
    return {"ETag": f'"{view.version}"'}


def _if_match(request: web.Request) -> int | None:
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    text = raw.strip()
    text = text[2:] if text.startswith("W/") else text
    text = text.strip('"')
    if not (text.isascii() and text.isdigit() and len(text) <= 12):
        raise ValidationError('If-Match must be "<version>"', field="If-Match", code="bad_if_match")
    return int(text)


def routes(service: EventTypeService) -> list[web.RouteDef]:
    async def put(request: web.Request) -> web.Response:
        tenant = await catalogue_writer(request)
        topic = request.match_info["topic"]
        expected = _if_match(request)
        body: EventTypeIn = await decode_body(request, EventTypeIn)
        view, _changed = await service.define(
            tenant, topic, body, actor=actor(request, tenant), expected_version=expected
        )
        return json_response(event_type_out(view), headers=_etag(view))

    async def get(request: web.Request) -> web.Response:
        tenant = await catalogue_reader(request)
        view = await service.get(tenant, request.match_info["topic"])
        return json_response(event_type_out(view), headers=_etag(view))

    async def list_(request: web.Request) -> web.Response:
        tenant = await catalogue_reader(request)
        limit, cursor = page_params(request)
        after = None
        if cursor is not None:
            [after] = decode_cursor(cursor, 1)
            if not isinstance(after, str) or not TOPIC.match(after):
                raise ValidationError(
                    "cursor is not a nextCursor we gave", field="cursor", code="invalid_cursor"
                )
        items, nxt = await service.page(tenant, limit, after)
        return json_response(
            {
                "items": [event_type_out(v) for v in items],
                "nextCursor": encode_cursor(nxt) if nxt is not None else None,
            }
        )

    async def openapi(request: web.Request) -> web.Response:
        tenant = await catalogue_reader(request)
        types = await service.all(tenant)
        return json_response(catalogue_document(types, title=f"Webhooks of {tenant}"))

    return [
        # before "{topic}": a GET of openapi.json is the export (PUT refuses that topic)
        web.get("/v1/event-types/openapi.json", openapi, allow_head=False),
        only("/v1/event-types/openapi.json", "GET"),
        web.get("/v1/event-types", list_, allow_head=False),
        web.get("/v1/event-types/{topic}", get, allow_head=False),
        web.put("/v1/event-types/{topic}", put),
    ]
