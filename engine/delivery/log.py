"""The delivery log: one filtered, keyset-paged read of the ledger (``GET /v1/deliveries``).

:class:`LogQuery` is what a caller asked, already checked; :func:`query_name` picks the named
query whose leading filter is the most selective one given (each has an index in that order:
``engine/sql/migrations/1000_delivery_log_keys.sql``); :class:`~.log_repository.DeliveryLog`
runs it and shapes the page. The checking of raw query parameters is the API's
(``engine/api/delivery_log.py``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import msgspec

from hookproof.projections.ledger import ACCEPTED_ON_ENTRY, LOG_INDEXED
from hookproof.projections.ledger import LedgerState as S

from ..db.queries import ENGINE_QUERIES
from ..db.repository import Record
from .test_event_ids import is_test_event
from .views import evidence_of

__all__ = [
    "BROAD_ID_PREFIX",
    "EVIDENCE_FILTERS",
    "LOG_QUERIES",
    "RARE_STATES",
    "LogQuery",
    "item_of",
    "log_args",
    "matches_nothing",
    "query_name",
]

#: ``evidence`` filter values: how far the stored evidence got
EVIDENCE_FILTERS: Final = frozenset(
    {"NONE", S.ENDPOINT_ACCEPTED.value, S.APPLICATION_CONFIRMED.value}
)

#: leading filter -> named query, most selective first
#: (a state leads only when deliveries_log_rare_state holds its rows, ahead of a subscription:
#: that index carries the subscription, topic and evidence columns, so the other filters are
#: checked in it without visiting the table)
LOG_QUERIES: Final = (
    ("delivery_id", "deliveries_log_by_id"),
    ("delivery_id_prefix", "deliveries_log_by_id_prefix"),
    ("event_id", "deliveries_log_by_event"),
    ("event_id_prefix", "deliveries_log_by_event_prefix"),
    ("state", "deliveries_log_by_state"),
    ("subscription_id", "deliveries_log_by_subscription"),
    ("topic", "deliveries_log_by_topic"),
)

#: a delivery id prefix with fewer hex digits after ``dlv_`` than this does not lead: delivery
#: ids are hex digests (``ingest.delivery_id_for``), so it matches 1/16 of them or more, and the
#: time order (its filter checks the prefix) finds a page of them sooner than the primary key's
#: range, which reads every match before sorting (bench/results/s15_delivery_log_id_prefix.json)
BROAD_ID_PREFIX: Final = 2

#: the states the state filter reads from deliveries_log_rare_state (deliveries_log_by_state.sql;
#: ledger.LOG_INDEXED: failed, given up on, confirmed). The other states go through the keys'
#: query (deliveries_log.sql), the state checked on the ledger row: the planner, planning for
#: the value, walks the time order for ENDPOINT_ACCEPTED (most rows) and may start from the
#: queue's partial indexes for PLANNED and DISPATCHING when its statistics say few rows are in
#: them.
RARE_STATES: Final = LOG_INDEXED

SQL = ENGINE_QUERIES.named(
    "deliveries_log", "deliveries_log_custom_plan", *(name for _, name in LOG_QUERIES)
)


class LogQuery(msgspec.Struct, frozen=True, kw_only=True):
    """A checked request for one page of a tenant's log (``None``: that filter not given).
    ``consumer_id``: a portal session's consumer, whose subscriptions alone are visible.
    ``before``: the last ``(created_at, delivery_id)`` of the previous page.
    ``delivery_id_prefix`` / ``event_id_prefix``: the start of the ids to match (a range on
    the ledger's primary key / delivery_log_event, each match checked with ``starts_with``)."""

    tenant_id: str
    limit: int = 100
    subscription_id: str | None = None
    topic: str | None = None
    state: str | None = None
    evidence: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    event_id: str | None = None
    delivery_id: str | None = None
    consumer_id: str | None = None
    before: tuple[datetime, str] | None = None
    delivery_id_prefix: str | None = None
    event_id_prefix: str | None = None


def log_args(q: LogQuery) -> list[Any]:
    """The parameters of every ``deliveries_log*.sql`` query for ``q``, in their order."""
    at, last = q.before if q.before is not None else (None, None)
    return [
        q.tenant_id,
        q.subscription_id,
        q.topic,
        q.state,
        q.evidence,
        q.since,
        q.until,
        q.event_id,
        q.delivery_id,
        q.consumer_id,
        at,
        last,
        q.limit + 1,
        q.delivery_id_prefix,
        q.event_id_prefix,
    ]


def query_name(q: LogQuery) -> str:
    """The named query for ``q``: its most selective filter leads (an index walks it)."""
    for attr, name in LOG_QUERIES:
        value = getattr(q, attr)
        if value is None or (attr == "state" and value not in RARE_STATES):
            continue
        if attr == "delivery_id_prefix" and len(value) - len("dlv_") < BROAD_ID_PREFIX:
            continue
        return name
    return "deliveries_log"


def matches_nothing(q: LogQuery) -> bool:
    """True when the ledger's transition table rules out every row ``q`` asks for: a state
    entered only by an acceptance (``ledger.ACCEPTED_ON_ENTRY``) with ``evidence=NONE``. Such a
    page is empty without a read; the query would walk the tenant's whole time order (that
    state has no index of its own, bench/HISTORY.md "Session 11: WAL and disk per delivery")."""
    return q.evidence == "NONE" and q.state in ACCEPTED_ON_ENTRY


def _iso(v: Any) -> Any:
    return v.isoformat() if hasattr(v, "isoformat") else v


def item_of(r: Record) -> dict[str, Any]:
    """One row as a log item (``DeliveryLogItem`` in ``schemas/api.py``)."""
    return {
        "deliveryId": r["delivery_id"],
        "eventId": r["event_id"],
        "subscriptionId": r["subscription_id"],
        "generation": r["generation"],
        "topic": r["topic"],
        "state": r["state"],
        "attempt": r["attempt"],
        "evidence": evidence_of(dict(r)),
        "test": is_test_event(r["event_id"]),
        "createdAt": _iso(r["created_at"]),
        "updatedAt": _iso(r["updated_at"]),
    }
