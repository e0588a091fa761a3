"""Cursor pagination for list routes: ``limit``, ``cursor`` in; ``items``, ``nextCursor`` out.

A cursor is opaque to clients (base64url of a small JSON array: the last item's sort key).
Every list is bounded by ``limit``; a malformed cursor or limit is a 400 with a code.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from hookproof.errors import ValidationError

from .params import limit_bounds, route_of

__all__ = ["cursor_time", "decode_cursor", "encode_cursor", "page_params"]


def encode_cursor(*key: Any) -> str:
    raw = json.dumps(list(key), separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(text: str, arity: int) -> list[Any]:
    """The sort key a cursor carries; ``invalid_cursor`` when it is not one of ours."""
    try:
        if len(text) > 512:
            raise ValueError("too long")
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        key = json.loads(raw)
    except (ValueError, binascii.Error, UnicodeError, RecursionError):
        key = None
    if not isinstance(key, list) or len(key) != arity:
        raise ValidationError(
            "cursor is not a nextCursor we gave", field="cursor", code="invalid_cursor"
        )
    return key


def cursor_time(value: Any) -> datetime:
    """The time inside a cursor, in UTC; ``invalid_cursor`` unless it is one we could have made
    (an aware ISO time whose UTC instant is representable)."""
    try:
        when = datetime.fromisoformat(value)
        if when.tzinfo is None:
            raise ValueError("no zone")
        return when.astimezone(UTC)
    except (TypeError, ValueError, OverflowError):
        raise ValidationError(
            "cursor is not a nextCursor we gave", field="cursor", code="invalid_cursor"
        ) from None


def page_params(request: web.Request) -> tuple[int, str | None]:
    """``limit`` (1..maximum, default ``default``: the route's in ``params.QUERY``, which the
    middleware has checked already) and the raw ``cursor``, if any."""
    route = route_of(request)
    default, maximum = limit_bounds(request.method, route) if route else (100, 500)
    raw = request.query.get("limit")
    if raw is None:
        limit = default
    elif raw.isascii() and raw.isdigit() and len(raw) <= 6 and 1 <= int(raw) <= maximum:
        limit = int(raw)
    else:
        raise ValidationError(
            f"limit must be an integer 1..{maximum}", field="limit", code="invalid_limit"
        )
    cursor = request.query.get("cursor") or None
    return limit, cursor
