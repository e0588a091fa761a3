"""The API's path and query parameters: one table, read by the middleware that checks every
parameter before any handler runs (so before any query) and by the OpenAPI document.

Id formats come from the modules that make or check the ids (``SUBSCRIPTION_ID``...); a
parameter's JSON Schema here is both what the document says and what :func:`check_params`
enforces, so the two cannot drift.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from hookproof.errors import ValidationError
from hookproof.projections.deliveries import LEDGER_STATES

from ..challenge.protocol import CHALLENGE_ID
from ..consumers.service import CONSUMER_ID
from ..delivery.log import EVIDENCE_FILTERS
from ..event_types.definition import TOPIC
from ..ingest.ingest import DELIVERY_ID, EVENT_ID
from ..portal.service import SESSION_ID
from ..portal.tenants import TENANT_ID
from ..rollouts.service import ROLLOUT_ID
from ..search.replay import REPLAY_ID
from ..subscriptions.service import SUBSCRIPTION_ID

__all__ = [
    "CURSOR",
    "ID_FORMATS",
    "QUERY",
    "Param",
    "check_params",
    "limit_bounds",
    "only",
    "path_format",
    "route_of",
]

#: a cursor: opaque, base64url without padding, at most 512 characters (``pages.py``)
CURSOR = re.compile(r"^[A-Za-z0-9_\-]{1,512}$")
#: any other path parameter (before a handler looks at it)
_ANY_PATH = re.compile(r"^[A-Za-z0-9._:\-]{1,200}$")

#: path parameter formats by the first path segment after ``/v1/`` (``{eventId}``: events)
ID_FORMATS: dict[str, re.Pattern[str]] = {
    "subscriptions": SUBSCRIPTION_ID,
    "deliveries": DELIVERY_ID,
    "consumers": CONSUMER_ID,
    "portal-sessions": SESSION_ID,
    "rollouts": ROLLOUT_ID,
    "events": EVENT_ID,
    "event-types": TOPIC,
    "relay": SUBSCRIPTION_ID,
    "challenges": CHALLENGE_ID,
    "replays": REPLAY_ID,
}


def path_format(path: str) -> re.Pattern[str]:
    """The format of the ``{...}`` parameter of the route ``path`` (its resource's kind)."""
    parts = path.split("/")
    if len(parts) > 2 and parts[1] == "portal":  # the portal page under a tenant's policy
        return TENANT_ID
    kind = parts[2] if len(parts) > 2 and parts[1] == "v1" else ""
    return ID_FORMATS.get(kind, _ANY_PATH)


@dataclass(frozen=True)
class Param:
    """One query parameter: its JSON Schema (what the document shows and the check enforces),
    the problem code of a value outside it, and whether it must be there."""

    schema: dict[str, Any]
    code: str = "invalid_query"
    required: bool = False
    #: an array's items outside their schema (its count: ``code``)
    item_code: str = "invalid_id"


def _id(pattern: re.Pattern[str]) -> dict[str, Any]:
    return {"type": "string", "pattern": pattern.pattern}


def _limit(default: int, maximum: int) -> Param:
    return Param(
        {"type": "integer", "minimum": 1, "maximum": maximum, "default": default},
        code="invalid_limit",
    )


_CURSOR = Param(_id(CURSOR), code="invalid_cursor")
_TIME = {"type": "string", "format": "date-time", "maxLength": 64}


def _paged(default: int = 100, maximum: int = 500, **more: Param) -> dict[str, Param]:
    return {"limit": _limit(default, maximum), "cursor": _CURSOR, **more}


#: (METHOD, route) -> its query parameters; a route not here takes none that it reads
QUERY: dict[tuple[str, str], dict[str, Param]] = {
    ("GET", "/v1/subscriptions"): _paged(
        consumerId=Param(_id(CONSUMER_ID), code="invalid_id"),
    ),
    ("GET", "/v1/subscriptions/{id}/history"): _paged(200, 1000),
    ("GET", "/v1/attempt-stats"): {
        "subscriptionId": Param(
            {"type": "array", "items": _id(SUBSCRIPTION_ID), "minItems": 1, "maxItems": 100},
            code="invalid_subscription_ids",
            required=True,
        ),
        "window": Param({"type": "string", "enum": ["24h", "7d"]}, code="invalid_window"),
        "interval": Param({"type": "string", "enum": ["hour", "day"]}, code="invalid_interval"),
    },
    ("GET", "/v1/event-types"): _paged(50, 100),
    ("GET", "/v1/dead-letters"): _paged(),
    # the delivery log (``engine/api/delivery_log.py`` checks the combination: the range, the
    # cursor's own key, no parameter twice, none unknown)
    ("GET", "/v1/deliveries"): _paged(
        100,
        1000,
        subscriptionId=Param(_id(SUBSCRIPTION_ID), code="invalid_id"),
        eventType=Param(
            {"type": "string", "minLength": 1, "maxLength": 200}, code="invalid_event_type"
        ),
        state=Param({"type": "string", "enum": sorted(LEDGER_STATES)}, code="invalid_state"),
        evidence=Param(
            {"type": "string", "enum": sorted(EVIDENCE_FILTERS)}, code="invalid_evidence"
        ),
        since=Param(_TIME, code="invalid_time"),
        until=Param(_TIME, code="invalid_time"),
        eventId=Param(_id(EVENT_ID), code="invalid_id"),
        deliveryId=Param(_id(DELIVERY_ID), code="invalid_id"),
        idPrefix=Param(
            {"type": "string", "minLength": 1, "maxLength": 200}, code="invalid_id_prefix"
        ),
    ),
    ("GET", "/v1/deliveries/{id}/timeline"): _paged(
        200, 1000, asOf=Param(_TIME, code="invalid_time")
    ),
    ("GET", "/v1/subscriptions/{id}/timeline"): _paged(
        200, 1000, asOf=Param(_TIME, code="invalid_time")
    ),
    ("GET", "/v1/consumers"): _paged(),
    ("GET", "/v1/consumers/{id}/portal-sessions"): _paged(),
    ("GET", "/v1/gates"): {"since": Param(_TIME, code="invalid_time")},
    ("GET", "/v1/rollouts"): _paged(),
}

#: a query time: RFC 3339, and also an offset without its colon (``+0000``, ISO 8601's basic
#: form), which generated clients send (OpenAPI Generator python formats with strftime ``%z``;
#: its ``+`` arrives percent-encoded, so intact); the same instant either way
_TIME_TEXT = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?"
    r"([Zz]|[+-][0-9]{2}:?[0-9]{2})?$"
)


def limit_bounds(method: str, route: str) -> tuple[int, int]:
    """``(default, maximum)`` of the route's ``limit`` (the table's; 100 and 500 if absent)."""
    spec = QUERY.get((method, route), {}).get("limit")
    if spec is None:
        return 100, 500
    return int(spec.schema["default"]), int(spec.schema["maximum"])


def _refuse(name: str, param: Param, why: str) -> ValidationError:
    return ValidationError(f"{name} {why}", field=name, code=param.code)


def _check_value(name: str, param: Param, schema: dict[str, Any], value: str) -> None:
    if any(ch < " " or ch == "\x7f" for ch in value) or not value.isprintable():
        raise _refuse(name, param, "holds control or unprintable characters")
    if "enum" in schema and value not in schema["enum"]:
        raise _refuse(name, param, "must be one of " + ", ".join(schema["enum"]))
    if schema.get("type") == "integer":
        if not (value.isascii() and value.isdigit() and len(value) <= 9):
            raise _refuse(name, param, "must be a decimal integer")
        if not schema["minimum"] <= int(value) <= schema["maximum"]:
            raise _refuse(name, param, f"must be {schema['minimum']}..{schema['maximum']}")
        return
    if len(value) > schema.get("maxLength", 1000):
        raise _refuse(name, param, "is too long")
    if "pattern" in schema and not re.fullmatch(schema["pattern"], value):
        raise _refuse(name, param, f"must match {schema['pattern']}")
    if schema.get("format") == "date-time" and not _TIME_TEXT.match(value):
        raise _refuse(name, param, "must be an RFC 3339 time")


def check_params(method: str, route: str, request: web.Request) -> None:
    """Every path and query parameter of ``request`` against the table; 400 with the
    parameter's code (``invalid_id``, ``invalid_limit``, ``invalid_cursor``...) otherwise."""
    fmt = path_format(route)
    for name, value in request.match_info.items():
        if not fmt.match(value):
            raise ValidationError(f"{name} must match {fmt.pattern}", field=name, code="invalid_id")
    table = QUERY.get((method, route), {})
    for name, param in table.items():
        values = request.query.getall(name, [])
        if not values:
            if param.required:
                raise _refuse(name, param, "is required")
            continue
        if param.schema.get("type") == "array":
            items = param.schema["items"]
            if not param.schema["minItems"] <= len(values) <= param.schema["maxItems"]:
                raise _refuse(name, param, "is repeated too many times")
            each = Param(items, code=param.item_code)
            for value in values:
                _check_value(name, each, items, value)
            continue
        if len(values) > 1:
            raise ValidationError(
                f"{name} may be given once", field=name, code="repeated_parameter"
            )
        _check_value(name, param, param.schema, values[0])


def only(path: str, *methods: str) -> web.RouteDef:
    """A catch-all for ``path``: any method but ``methods`` is 405 with ``Allow: methods``
    (a static path that a ``{param}`` route also matches, e.g. ``/v1/events/batch`` and
    ``/v1/events/{eventId}``, would otherwise advertise that route's methods too)."""

    async def refuse(request: web.Request) -> web.StreamResponse:
        raise web.HTTPMethodNotAllowed(request.method, list(methods))

    return web.route("*", path, refuse)


def route_of(request: web.Request) -> str | None:
    """The route template of ``request`` (``/v1/subscriptions/{id}``), None when unrouted."""
    resource = request.match_info.route.resource
    return None if resource is None else resource.canonical
