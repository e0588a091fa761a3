"""A checked search (:class:`SearchQuery`) and the parameters of its SQL (pure).

The API checks a ``SearchIn`` body into a query (``engine/api/search.py``); the search
(:mod:`.search`) reads candidates with the SQL of ``search_deliveries.sql`` /
``search_events.sql`` and evaluates the compiled filters on each itself.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from hookproof.engine.filters import CompiledFilters, compile_filters
from hookproof.events.canonical import canonical_json

from .pushdown import Pushdown, pushdown

__all__ = ["SearchQuery", "query_digest", "sql_args"]


@dataclass(frozen=True)
class SearchQuery:
    """What a caller asked, checked. ``consumer_id``: only that consumer's subscriptions'
    deliveries (a portal session's own, or the ``consumerId`` asked for); ``before``: the
    last key of the previous page (``(created_at, delivery id)`` or ``(created_at, event
    id)``); ``source``: the search as asked, canonical (its digest names it)."""

    tenant_id: str
    filters: CompiledFilters = field(default_factory=lambda: compile_filters([]))
    since: datetime | None = None
    until: datetime | None = None
    subscription_id: str | None = None
    consumer_id: str | None = None
    state: str | None = None
    evidence: str | None = None
    status_code: int | None = None
    reason_code: str | None = None
    limit: int = 100
    before: tuple[datetime, str] | None = None
    source: dict[str, Any] = field(default_factory=dict)

    @property
    def pushed(self) -> Pushdown:
        return pushdown(self.filters)

    @property
    def by_delivery(self) -> bool:
        """Whether a condition on the deliveries applies (events search: EXISTS)."""
        return any(
            v is not None
            for v in (
                self.subscription_id,
                self.consumer_id,
                self.state,
                self.evidence,
                self.status_code,
                self.reason_code,
            )
        )


def query_digest(source: dict[str, Any]) -> str:
    """The sha-256 (hex) of the search's canonical JSON: the same search, the same digest."""
    return hashlib.sha256(canonical_json(source)).hexdigest()


def sql_args(q: SearchQuery, rows: int, *, events: bool, index: bool = True) -> list[Any]:
    """The parameters of ``search_deliveries.sql`` (15) or ``search_events.sql`` (16);
    ``index`` False: without the body equalities (the page's time order, each candidate's
    filters evaluated by the caller)."""
    pushed = q.pushed
    at, last = q.before if q.before is not None else (None, None)
    args: list[Any] = [
        q.tenant_id,
        q.subscription_id,
        pushed.topic,
        q.state,
        q.evidence,
        q.since,
        q.until,
        pushed.event_id,
        q.status_code,
        q.reason_code,
        q.consumer_id,
        at,
        last,
        rows,
        pushed.jsonpath if index else None,
    ]
    if events:
        args.append(q.by_delivery)
    return args
