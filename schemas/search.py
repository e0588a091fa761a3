"""Search and bulk replay bodies (issue 54): ``POST /v1/deliveries/search``,
``POST /v1/events/search``, ``POST /v1/replays``, ``GET /v1/replays/{id}``. JSON, camelCase;
requests strict (an unknown field is a 400), responses open to additions."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from .api import DeliveryEvidence

__all__ = [
    "DeliverySearchItem",
    "DeliverySearchPage",
    "EventSearchItem",
    "EventSearchPage",
    "ReplayCounts",
    "ReplayDryRun",
    "ReplayIn",
    "ReplayView",
    "SearchIn",
]

#: the most items one search page holds
SEARCH_LIMIT_MAX = 1000
#: the most deliveries one replay takes (a larger selection: narrow the search)
REPLAY_MAX = 100_000


class SearchIn(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, rename="camel"):
    """A search: ``filters`` in the subscriptions' dialects (DESIGN.md section 16), evaluated
    over the event's CloudEvents attributes and match document, all must hold; ``since`` /
    ``until`` (RFC 3339, on when the delivery was planned or the event accepted; since
    inclusive, until exclusive); ``subscriptionId``, ``consumerId``, ``state`` (a ledger
    state), ``evidence`` (``NONE``, ``ENDPOINT_ACCEPTED``, ``APPLICATION_CONFIRMED``),
    ``statusCode`` (the last attempt's HTTP status), ``reasonCode`` (the last attempt's
    reason code or the dead letter's reason); ``limit`` 1..1000 (default 100) and ``cursor``
    (a ``nextCursor``). On ``/v1/events/search`` the delivery conditions select events with
    at least one such delivery. A search the indexes cannot narrow within its scan budget is
    a 422 ``search_too_broad``; a bad filter, a 400 with the filter compiler's code."""

    filters: list[Any] = []
    since: str | None = None
    until: str | None = None
    subscription_id: str | None = None
    consumer_id: str | None = None
    state: str | None = None
    evidence: str | None = None
    status_code: Annotated[int, msgspec.Meta(ge=100, le=599)] | None = None
    reason_code: Annotated[str, msgspec.Meta(min_length=1, max_length=200)] | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=SEARCH_LIMIT_MAX)] = 100
    cursor: str | None = None


class ReplayIn(SearchIn, kw_only=True, forbid_unknown_fields=True, rename="camel"):
    """``POST /v1/replays``: the deliveries a search finds (the same body; ``limit`` and
    ``cursor`` are ignored: every match), replayed as a job at ``ratePerSecond`` (default 10,
    at most 100). ``dryRun``: only the count and a sample (up to 10 delivery ids)."""

    dry_run: bool = False
    #: deliveries per second: 0.01..100 (a positive minimum: no denormal rate, no 1 / x overflow)
    rate_per_second: Annotated[float, msgspec.Meta(ge=0.01, le=100)] = 10.0


class DeliverySearchItem(msgspec.Struct, kw_only=True, rename="camel"):
    """One delivery a search found (its full view is ``GET /v1/deliveries/{id}``)."""

    delivery_id: str
    event_id: str
    subscription_id: str
    generation: int
    topic: str
    state: str
    attempt: int
    evidence: DeliveryEvidence
    status_code: int | None
    reason_code: str | None
    created_at: str
    updated_at: str


class DeliverySearchPage(msgspec.Struct, kw_only=True, rename="camel"):
    """``POST /v1/deliveries/search``: newest first (``createdAt``, then ``deliveryId``)."""

    items: list[DeliverySearchItem]
    next_cursor: str | None


class EventSearchItem(msgspec.Struct, kw_only=True, rename="camel"):
    """One event a search found (its deliveries: ``GET /v1/events/{eventId}``)."""

    event_id: str
    topic: str
    payload_digest: str
    aggregate_id: str
    occurred_at: str
    payload: Any
    created_at: str


class EventSearchPage(msgspec.Struct, kw_only=True, rename="camel"):
    """``POST /v1/events/search``: newest first (``createdAt``, then ``eventId``)."""

    items: list[EventSearchItem]
    next_cursor: str | None


class ReplayDryRun(msgspec.Struct, kw_only=True, rename="camel"):
    """A dry run: how many deliveries a replay of this search would take, and some of them."""

    dry_run: bool
    count: int
    sample: list[str]
    query_digest: str


class ReplayCounts(msgspec.Struct, kw_only=True, rename="camel"):
    """What became of a replay's deliveries so far (``pending``: not reached yet)."""

    replayed: int
    failed: int
    cancelled: int
    pending: int


class ReplayView(msgspec.Struct, kw_only=True, rename="camel"):
    """A replay job: ``state`` ``RUNNING``, ``DONE`` or ``CANCELLED``; ``total`` deliveries
    selected when it started; ``progress`` per outcome (a delivery that could not be replayed,
    e.g. one that is in flight, is ``failed``)."""

    id: str
    state: Literal["RUNNING", "DONE", "CANCELLED"]
    total: int
    rate_per_second: float
    query_digest: str
    requested_by: str
    progress: ReplayCounts
    created_at: str
    updated_at: str
