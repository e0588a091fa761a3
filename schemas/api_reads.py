"""The read answers declared beside the request types (attempt statistics, the delivery log,
an attempt's response, the evidence ladder, the portal's branding): re-exported by ``api``."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

__all__ = [
    "AttemptBucket",
    "AttemptResponseView",
    "AttemptStats",
    "AttemptStatsBatch",
    "DeliveryEvidence",
    "DeliveryLogItem",
    "DeliveryLogPage",
    "LatencyPercentiles",
    "PortalBranding",
]


class LatencyPercentiles(msgspec.Struct, kw_only=True, rename="camel"):
    """Attempt durations (ms, from the attempt being sent to its answer) at the 50th, 90th and
    99th percentile, read from a histogram of fixed log-spaced buckets (8 per decade, 1 ms to
    100 s) that the projector keeps beside the counts: each within a factor 1.33 of the exact
    value. ``count``: the attempts with a duration (an attempt lost with its dispatcher has
    none)."""

    p50: float
    p90: float
    p99: float
    count: int


class AttemptBucket(msgspec.Struct, kw_only=True, rename="camel"):
    """One hour (or UTC day) of a subscription's attempts: ``hour`` (RFC 3339, UTC, its
    start), ``counts``, attempts by outcome (``ENDPOINT_ACCEPTED``, ``RETRYABLE``,
    ``UNKNOWN_TRANSPORT``, ``DEAD_LETTER``; an outcome without attempts is absent), and
    ``latency`` (``null`` when no attempt of it has a duration)."""

    hour: str
    counts: dict[str, int]
    latency: LatencyPercentiles | None


class AttemptStats(msgspec.Struct, kw_only=True, rename="camel"):
    """``GET /v1/subscriptions/{id}/attempt-stats``: the attempts of the last 24 hours (the
    current one included), one bucket per hour, oldest first, from ``since``; ``latency``:
    the percentiles over the whole window. Counted by the projector in batches: at most
    ``HOOKPROOF_STATS_INTERVAL_S`` (5 s) behind the log. ``interval``: ``hour``, or ``day``
    for ``GET /v1/attempt-stats?interval=day`` (one bucket per UTC day, the window's days
    ending with today)."""

    subscription_id: str
    since: str
    interval: Literal["hour", "day"]
    latency: LatencyPercentiles | None
    buckets: list[AttemptBucket]


class AttemptStatsBatch(msgspec.Struct, kw_only=True, rename="camel"):
    """``GET /v1/attempt-stats?subscriptionId=...`` (the parameter repeated, 1..100 ids;
    ``window`` ``24h`` or ``7d``, ``interval`` ``hour`` or ``day``: ``invalid_window``,
    ``invalid_interval`` otherwise): one
    :class:`AttemptStats` per id, in the order asked, in one read (the console's one call per
    view). Every id must be the caller's subscription (a portal session's: its consumer's),
    else 404 ``subscription_not_found``."""

    since: str
    items: list[AttemptStats]


class DeliveryEvidence(msgspec.Struct, kw_only=True, rename="camel"):
    """How far a delivery's evidence got: ``endpoint`` (``ENDPOINT_ACCEPTED``,
    ``VERIFIED_ENDPOINT`` or ``NONE``) and ``application`` (``CONFIRMED``, ``PENDING`` or
    ``UNOBSERVABLE``), never inferred from each other."""

    endpoint: str
    application: str


class DeliveryLogItem(msgspec.Struct, kw_only=True, rename="camel"):
    """One delivery in the log (its full view, attempts included, is ``GET
    /v1/deliveries/{id}``)."""

    delivery_id: str
    event_id: str
    subscription_id: str
    generation: int
    topic: str
    state: str
    attempt: int
    evidence: DeliveryEvidence
    #: a test event's delivery (``POST /v1/subscriptions/{id}/test-events``)
    test: bool
    created_at: str
    updated_at: str


class DeliveryLogPage(msgspec.Struct, kw_only=True, rename="camel"):
    """``GET /v1/deliveries``: the log, newest first (``createdAt``, then ``deliveryId``).
    Filters (each optional, combined with AND): ``subscriptionId``, ``eventType`` (a topic),
    ``state`` (a ledger state), ``evidence`` (``ENDPOINT_ACCEPTED``: the endpoint accepted it;
    ``APPLICATION_CONFIRMED``: a signed receipt confirmed it; ``NONE``: no acceptance yet),
    ``since``/``until`` (RFC 3339, on ``createdAt``, since inclusive, until exclusive),
    ``eventId``, ``deliveryId``, ``idPrefix`` (the start of an id: of a delivery id when it
    starts with ``dlv_``, else of an event id; 1..200 printable characters); ``limit``
    1..1000 (default 100) and ``cursor`` (a ``nextCursor``). A bad value is a 400 with a code
    (``invalid_state``, ``invalid_evidence``, ``invalid_time``, ``invalid_time_range``,
    ``invalid_id``, ``invalid_id_prefix``, ``invalid_event_type``, ``invalid_limit``,
    ``invalid_cursor``, ``unknown_parameter``).
    A portal session sees only its consumer's deliveries."""

    items: list[DeliveryLogItem]
    next_cursor: str | None


class AttemptResponseView(msgspec.Struct, kw_only=True, rename="camel"):
    """An attempt's ``response`` in ``GET /v1/deliveries/{id}``: what came back, bounded and
    redacted when recorded: at most 32 ``headers`` (``[name, value]``, values cut to 256
    characters; credentials, cookies and signatures ``[redacted]``), ``excerpt``: the first
    2,048 bytes of the body as UTF-8 text (any echo of a signature the engine sent is
    ``[redacted]``), ``bodyBytes`` the whole body's size. Absent for attempts recorded before
    it existed and for attempts without an answer."""

    #: [name, value] pairs, as lists (no prefixItems with ``items: false``: generators
    #: cannot read those)
    headers: list[Annotated[list[str], msgspec.Meta(min_length=2, max_length=2)]]
    excerpt: str
    body_bytes: int
    excerpt_truncated: bool
    headers_truncated: bool


class PortalBranding(msgspec.Struct, kw_only=True, rename="camel"):
    """``GET /v1/portal/branding`` (the tenant, or a portal session of one of its consumers):
    the branding as set, ``null`` fields where none is."""

    display_name: str | None
    logo_url: str | None
    accent_colour: str | None
    frame_ancestors: list[str]
