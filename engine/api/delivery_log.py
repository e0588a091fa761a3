"""``GET /v1/deliveries``: the delivery log's query parameters, checked into a
:class:`~hookproof.engine.delivery.log.LogQuery` (every refusal a 400 with its own code; the
parameters and codes are listed on ``DeliveryLogPage`` in ``schemas/api.py``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Final

from hookproof.errors import ValidationError
from hookproof.projections.deliveries import LEDGER_STATES

from ..delivery.log import EVIDENCE_FILTERS, LogQuery
from ..subscriptions.service import SUBSCRIPTION_ID
from .pages import cursor_time, decode_cursor

__all__ = ["LOG_PARAMETERS", "log_query"]

LOG_PARAMETERS: Final = frozenset(
    {
        "subscriptionId",
        "eventType",
        "state",
        "evidence",
        "since",
        "until",
        "eventId",
        "deliveryId",
        "idPrefix",
        "limit",
        "cursor",
    }
)
_DELIVERY_ID = re.compile(r"^dlv_[0-9a-f]{28}$")
#: longest eventId / topic a filter may name (longer ones cannot exist)
_TEXT_MAX = 200
LIMIT_MAX: Final = 1000


def _time(name: str, raw: str) -> datetime:
    try:
        when = datetime.fromisoformat(raw)
        if when.tzinfo is None:
            raise ValueError("no offset")
        return when.astimezone(UTC)
    except (ValueError, OverflowError):
        raise ValidationError(
            f"{name} must be an RFC 3339 time with an offset, e.g. 2026-12-01T00:00:00Z",
            field=name,
            code="invalid_time",
        ) from None


def _text(q: Mapping[str, str], name: str, code: str) -> str | None:
    raw = q.get(name)
    if raw is None:
        return None
    if not raw or len(raw) > _TEXT_MAX or not raw.isprintable():
        raise ValidationError(
            f"{name} must be 1..{_TEXT_MAX} printable characters", field=name, code=code
        )
    return raw


def _before(raw: str | None) -> tuple[datetime, str] | None:
    if raw is None:
        return None
    at, last = decode_cursor(raw, 2)
    if not isinstance(last, str) or not _DELIVERY_ID.match(last):
        raise ValidationError(
            "cursor is not a nextCursor we gave", field="cursor", code="invalid_cursor"
        )
    return cursor_time(at), last


def log_query(
    tenant_id: str, q: Mapping[str, str], keys: list[str], consumer_id: str | None
) -> LogQuery:
    """The checked query; ``keys`` are the parameter names as sent (a repeated or unknown
    one is refused: a filter silently dropped would show the wrong deliveries)."""
    for key in keys:
        if key not in LOG_PARAMETERS:
            raise ValidationError(
                f"unknown parameter {key[:40]!r}; the log takes "
                + ", ".join(sorted(LOG_PARAMETERS)),
                field=key[:40],
                code="unknown_parameter",
            )
    if len(keys) != len(set(keys)):
        raise ValidationError(
            "a log parameter may be given once", field="query", code="repeated_parameter"
        )
    state = q.get("state")
    if state is not None and state not in LEDGER_STATES:
        raise ValidationError(
            f"state must be one of {', '.join(sorted(LEDGER_STATES))}",
            field="state",
            code="invalid_state",
        )
    evidence = q.get("evidence")
    if evidence is not None and evidence not in EVIDENCE_FILTERS:
        raise ValidationError(
            f"evidence must be one of {', '.join(sorted(EVIDENCE_FILTERS))}",
            field="evidence",
            code="invalid_evidence",
        )
    sid = q.get("subscriptionId")
    if sid is not None and not SUBSCRIPTION_ID.match(sid):
        raise ValidationError(
            "a subscription id is sub_ and 24 hex digits",
            field="subscriptionId",
            code="invalid_id",
        )
    did = q.get("deliveryId")
    if did is not None and not _DELIVERY_ID.match(did):
        raise ValidationError(
            "a delivery id is dlv_ and 28 hex digits", field="deliveryId", code="invalid_id"
        )
    since = _time("since", q["since"]) if "since" in q else None
    until = _time("until", q["until"]) if "until" in q else None
    if since is not None and until is not None and since >= until:
        raise ValidationError(
            "since must be before until", field="since", code="invalid_time_range"
        )
    raw = q.get("limit", "100")
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 6 and 1 <= int(raw) <= LIMIT_MAX):
        raise ValidationError(
            f"limit must be an integer 1..{LIMIT_MAX}", field="limit", code="invalid_limit"
        )
    prefix = _text(q, "idPrefix", "invalid_id_prefix")
    by_delivery = prefix is not None and prefix.startswith("dlv_")
    return LogQuery(
        tenant_id=tenant_id,
        delivery_id_prefix=prefix if by_delivery else None,
        event_id_prefix=None if by_delivery else prefix,
        limit=int(raw),
        subscription_id=sid,
        topic=_text(q, "eventType", "invalid_event_type"),
        state=state,
        evidence=evidence,
        since=since,
        until=until,
        event_id=_text(q, "eventId", "invalid_id"),
        delivery_id=did,
        consumer_id=consumer_id,
        before=_before(q.get("cursor") or None),
    )
