"""The answer of ``POST /v1/filters/evaluate`` (DESIGN.md section 16), pure: a ``filters``
array tried on one event, each top-level expression on its own, so that a CESQL text that
does not parse, or a match document with a bad operator, is reported (error kind ``parse``,
with its code, dialect, path and position) beside the values of the others. An expression of
the wrong shape refuses the whole request (400, as a subscription's ``filters`` would)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import msgspec

from hookproof.engine.filters.attributes import FilterEvent, from_cloudevent, from_hookproof_event
from hookproof.engine.filters.errors import (
    FILTER_INVALID,
    FILTER_INVALID_MATCH,
    FILTER_PARSE_ERROR,
    FilterError,
)
from hookproof.engine.filters.filters import MAX_FILTERS, compile_filters, digest
from hookproof.errors import ValidationError
from hookproof.schemas.api import EventIn

__all__ = ["evaluate_filters", "filter_event_of"]


def filter_event_of(
    event: Mapping[str, Any],
    *,
    tenant_id: str,
    check: Callable[[EventIn], object] | None = None,
) -> FilterEvent:
    """A CloudEvent in JSON (it has ``specversion``) or a hookproof event (the ``POST
    /v1/events`` body, decoded as that route decodes it and given to ``check``, the route's
    own checks; ``occurredAt`` defaults to now)."""
    if "specversion" in event:
        for name in ("id", "source", "type"):
            if not isinstance(event.get(name), str) or not event[name]:
                raise ValidationError(
                    f"a CloudEvent needs a non-empty string {name}",
                    field=f"event.{name}",
                    code="invalid_event",
                )
        return from_cloudevent(event)
    try:
        parsed = msgspec.convert(event, EventIn)
    except msgspec.ValidationError as exc:
        raise ValidationError(
            f"event is neither a CloudEvent (no specversion) nor a hookproof event: {exc}",
            field="event",
            code="invalid_event",
        ) from None
    if check is not None:
        check(parsed)
    wire = msgspec.to_builtins(parsed)
    wire.setdefault("occurredAt", datetime.now(UTC).isoformat())
    return from_hookproof_event(wire, tenant_id=tenant_id)


def _reportable(exc: FilterError) -> bool:
    """A fault in a CESQL text or inside a match document is reported beside the other
    expressions' values; a wrong shape (an unknown dialect, a malformed expression, a match
    that is not an object) refuses the request, as the schema does."""
    if exc.code == FILTER_PARSE_ERROR:
        return True
    return exc.code == FILTER_INVALID_MATCH and exc.path.count("/") > 2


def _moved(exc: FilterError, index: int) -> FilterError:
    """``exc`` (compiled as the array's only element) at its place in the array."""
    return FilterError(
        exc.detail,
        code=exc.code,
        dialect=exc.dialect,
        path=f"/{index}" + exc.path[2:],
        position=exc.position,
    )


def _refused(exc: FilterError, index: int) -> dict[str, Any]:
    error: dict[str, Any] = {
        "kind": "parse",
        "detail": exc.detail,
        "code": exc.code,
        "dialect": exc.dialect,
        "path": f"/{index}" + exc.path[2:],
    }
    if exc.position is not None:
        error["position"] = exc.position
    return {"error": error}


def evaluate_filters(filters: Any, event: FilterEvent) -> dict[str, Any]:
    """``{"matches", "results": [{"value"?, "error"?}], "digest"}``: ``matches`` only when
    every expression compiled and held."""
    if not isinstance(filters, list):
        raise FilterError("filters is an array of filter expressions", code=FILTER_INVALID)
    if len(filters) > MAX_FILTERS:
        raise FilterError(f"filters holds at most {MAX_FILTERS} expressions", code=FILTER_INVALID)
    results: list[dict[str, Any]] = []
    matches = True
    for i, expression in enumerate(filters):
        try:
            compiled = compile_filters([expression])
        except FilterError as exc:
            if not _reportable(exc):
                raise _moved(exc, i) from None
            results.append(_refused(exc, i))
            matches = False
            continue
        evaluation = compiled.evaluate(event)
        results.append(evaluation.results[0].to_json())
        matches = matches and evaluation.matches
    return {"matches": matches, "results": results, "digest": digest(filters)}
