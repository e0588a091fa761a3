"""API request and response bodies (JSON, camelCase). Decoding is strict: unknown fields,
wrong types and bad enums are refused with the offending field named."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from .destinations import DestinationIn
from .numbers import (
    AggregateVersion,
    Attempts,
    Burst,
    DualWindowS,
    EventVersion,
    GapTimeoutS,
    InitialDelayS,
    MaxDelayS,
    Multiplier,
    Percent,
    PerSecond,
    RetryAfterCapS,
    TtlSeconds,
)

__all__ = [
    "CONSUMER_ID_PATTERN",
    "MAX_BATCH_EVENTS",
    "TEXT_PATTERN",
    "AttemptBucket",
    "AttemptResponseView",
    "AttemptStats",
    "AttemptStatsBatch",
    "ConsumerCreate",
    "ConsumerDisable",
    "ConsumerPatch",
    "DeliveryLogItem",
    "DeliveryLogPage",
    "EndpointAuthIn",
    "EventBatchIn",
    "EventIn",
    "EventTypeIn",
    "EventTypeVersionIn",
    "FiltersEvaluate",
    "HeaderAuthIn",
    "LatencyPercentiles",
    "MtlsAuthIn",
    "OAuth2AuthIn",
    "PortalBranding",
    "PortalBrandingIn",
    "PortalSessionCreate",
    "PortalSessionItem",
    "PortalSessionPage",
    "PortalSessionsEnded",
    "RateLimitIn",
    "ReceiptKeyIn",
    "RecoverIn",
    "RetryPolicyIn",
    "RolloutAdvance",
    "RolloutCreate",
    "RolloutTarget",
    "SubscriptionCreate",
    "SubscriptionPatch",
    "SubscriptionTransition",
    "TenantCreate",
    "TestEventIn",
]


#: what ``validate_text`` accepts, as JSON Schema says it for the document: not blank, no
#: C0/C1 control characters (the API's rule is ``str.isprintable``, a superset of this ban;
#: tests/subscriptions/test_openapi_contract.py compares the two)
TEXT_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"


def _text(max_length: int) -> Any:
    return msgspec.Meta(
        extra_json_schema={"minLength": 1, "maxLength": max_length, "pattern": TEXT_PATTERN}
    )


#: what a consumer id may be (chosen by the tenant): ``engine.consumers.CONSUMER_ID`` is this
CONSUMER_ID_PATTERN = r"^[A-Za-z0-9._:\-]{1,64}$"
#: a consumer id in a body, as the document shows it (the service checks it: ``invalid_id``)
ConsumerId = Annotated[str, msgspec.Meta(extra_json_schema={"pattern": CONSUMER_ID_PATTERN})]

Text200 = Annotated[str, _text(200)]
Text500 = Annotated[str, _text(500)]


class _Strict(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, rename="camel"):
    pass


class RetryPolicyIn(_Strict, kw_only=True):
    max_attempts: Attempts = 8
    initial_delay_s: InitialDelayS = 5.0
    max_delay_s: MaxDelayS = 3600.0
    multiplier: Multiplier = 2.0
    retry_after_cap_s: RetryAfterCapS = 3600.0
    on_gone: Literal["suspend", "dead_letter"] = "suspend"


class ReceiptKeyIn(_Strict, kw_only=True):
    key_id: str
    public_key_jwk: dict[str, Any]


class _AuthIn(_Strict, kw_only=True, tag_field="type"):
    def __repr__(self) -> str:  # write-only secrets: never printed
        return f"{type(self).__name__}(<redacted>)"

    __str__ = __repr__


class MtlsAuthIn(_AuthIn, kw_only=True, tag="mtls"):
    """A client certificate (PEM, with its chain) and its private key (PEM, unencrypted)."""

    certificate_pem: Annotated[str, msgspec.Meta(min_length=1, max_length=65536)]
    private_key_pem: Annotated[str, msgspec.Meta(min_length=1, max_length=16384)]


class OAuth2AuthIn(_AuthIn, kw_only=True, tag="oauth2"):
    """OAuth 2.0 client credentials (RFC 6749 section 4.4) against an HTTPS token URL."""

    token_url: Annotated[str, msgspec.Meta(min_length=1, max_length=2048)]
    client_id: Annotated[str, msgspec.Meta(min_length=1, max_length=1024)]
    client_secret: Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]
    scope: Annotated[str, msgspec.Meta(min_length=1, max_length=1024)] | None = None
    audience: Annotated[str, msgspec.Meta(min_length=1, max_length=2048)] | None = None


class HeaderAuthIn(_AuthIn, kw_only=True, tag="header"):
    """One static header sent with every request to the endpoint (reserved names refused)."""

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    value: Annotated[str, msgspec.Meta(min_length=1, max_length=8192)]


class RateLimitIn(_Strict, kw_only=True):
    """At most ``burst + perSecond * t`` requests in any ``t`` seconds (DESIGN.md section 14)."""

    per_second: PerSecond
    burst: Burst


#: A subscription's ``auth`` (DESIGN.md section 14): write-only, never echoed.
EndpointAuthIn = MtlsAuthIn | OAuth2AuthIn | HeaderAuthIn


class SubscriptionCreate(_Strict, kw_only=True):
    #: the HTTPS endpoint; absent exactly when ``destination`` names a broker (DESIGN.md 13)
    endpoint: str | None = None
    topics: list[str]
    #: legacy: dotted payload paths to a value or allowed values (stored as ``filters``)
    filter: dict[str, Any] | None = None
    #: filter expressions that must all hold (DESIGN.md section 16; a bound field)
    filters: list[Any] | None = None
    event_versions: list[EventVersion]
    region: Text200
    signature_algorithm: Literal["ed25519", "hmac-sha256"]
    retry_policy: RetryPolicyIn | None = None
    expires_at: str | None = None
    owner: Text200
    receipt_key: ReceiptKeyIn | None = None
    old_generation_policy: Literal["drain", "quarantine"] = "drain"
    signature_profile: Literal["hookproof.sig.v1", "standard-webhooks.v1"] = "hookproof.sig.v1"
    ordering: Literal["none", "aggregate"] = "none"
    ordering_gap_timeout_s: GapTimeoutS = 60.0
    #: Import only: ``whsec_...`` of an hmac-sha256 ``standard-webhooks.v1`` subscription.
    secret: str | None = None
    #: The tenant's consumer this subscription belongs to (immutable; None: consumer-less).
    consumer_id: ConsumerId | None = None
    #: A broker (``amqp`` | ``nats``; credentials write-only, DESIGN.md 13) or a development
    #: relay (``relay``, ``hookproof listen``, DESIGN.md 11) instead of an HTTPS endpoint.
    destination: DestinationIn | None = None
    #: How the engine authenticates to the endpoint (write-only).
    auth: EndpointAuthIn | None = None
    #: A token bucket over all workers and daemons (None: no limit but the endpoint gate's).
    rate_limit: RateLimitIn | None = None


class SubscriptionPatch(_Strict, kw_only=True):
    endpoint: str | msgspec.UnsetType = msgspec.UNSET
    topics: list[str] | msgspec.UnsetType = msgspec.UNSET
    filter: dict[str, Any] | msgspec.UnsetType | None = msgspec.UNSET
    filters: list[Any] | msgspec.UnsetType | None = msgspec.UNSET
    event_versions: list[EventVersion] | msgspec.UnsetType = msgspec.UNSET
    region: Text200 | msgspec.UnsetType = msgspec.UNSET
    retry_policy: RetryPolicyIn | msgspec.UnsetType = msgspec.UNSET
    expires_at: str | msgspec.UnsetType | None = msgspec.UNSET
    owner: Text200 | msgspec.UnsetType = msgspec.UNSET
    receipt_key: ReceiptKeyIn | msgspec.UnsetType | None = msgspec.UNSET
    old_generation_policy: Literal["drain", "quarantine"] | msgspec.UnsetType = msgspec.UNSET
    ordering: Literal["none", "aggregate"] | msgspec.UnsetType = msgspec.UNSET
    ordering_gap_timeout_s: GapTimeoutS | msgspec.UnsetType = msgspec.UNSET
    #: Immutable: accepted only when it names the consumer the subscription already has.
    consumer_id: ConsumerId | msgspec.UnsetType | None = msgspec.UNSET
    #: A new broker destination (a new generation; only on a broker subscription).
    destination: DestinationIn | msgspec.UnsetType = msgspec.UNSET
    #: Replaces (or with null removes) the endpoint authentication: its own event, no new
    #: generation.
    auth: EndpointAuthIn | msgspec.UnsetType | None = msgspec.UNSET
    #: Replaces (null removes) the rate limit: same generation.
    rate_limit: RateLimitIn | msgspec.UnsetType | None = msgspec.UNSET


class SubscriptionTransition(_Strict, kw_only=True):
    reason: str | None = None


#: ``EventIn.occurredAt``: optional, and how a repost without it is compared (issue 49)
_OCCURRED_AT = (
    "When it happened (RFC 3339). Omitted: the engine records when it first accepted the "
    "event, and the same eventId and payload posted again without occurredAt is the same "
    "event (created false), never a conflict; a value the sender sets is compared as sent."
)


class FiltersEvaluate(_Strict, kw_only=True):
    """``POST /v1/filters/evaluate``: a ``filters`` array (DESIGN.md section 16) and one
    event to try it on: a hookproof event (the ``POST /v1/events`` body) or a CloudEvent in
    JSON (it has ``specversion``)."""

    filters: list[Any]
    event: dict[str, Any]


class EventIn(_Strict, kw_only=True):
    event_id: str
    topic: str
    version: str
    aggregate_id: str
    aggregate_version: AggregateVersion
    payload: Any
    occurred_at: Annotated[str, msgspec.Meta(description=_OCCURRED_AT)] | msgspec.UnsetType = (
        msgspec.UNSET
    )
    #: Planned only for this consumer's subscriptions (None: only consumer-less ones).
    consumer_id: ConsumerId | None = None
    #: The CloudEvents ``source`` (a URI-reference) the event came from (None: not given; as a
    #: CloudEvent it is then ``/tenants/<tenantId>``). Part of the canonical body when given.
    source: str | None = None
    #: Other CloudEvents extension attributes (names ``[a-z0-9]``, values string, integer or
    #: Boolean), kept as given. Part of the canonical body when given.
    extensions: dict[str, str | int | bool] | None = None


MAX_BATCH_EVENTS = 1000
#: the most deliveries one ``POST /v1/subscriptions/{id}/recover`` moves
MAX_RECOVER = 10_000


class EventTypeVersionIn(_Strict, kw_only=True):
    """One major version of an event type: a JSON Schema 2020-12 and an example payload
    (required; JSON ``null`` is an example too)."""

    schema: Any
    example: Any = msgspec.UNSET


class EventTypeIn(_Strict, kw_only=True):
    """``PUT /v1/event-types/{topic}``: the whole definition (it replaces the one before)."""

    description: str
    versions: dict[
        Annotated[str, msgspec.Meta(pattern=r"^(0|[1-9][0-9]{0,4})$")], EventTypeVersionIn
    ]
    deprecated: bool = False


class EventBatchIn(_Strict, kw_only=True):
    """``POST /v1/events/batch``: up to 1,000 events, each answered on its own, in order:
    each is decoded as an :class:`EventIn` by itself, so any JSON value is a place in the
    batch (one that is not an EventIn gets its own 400 result)."""

    events: Annotated[
        list[msgspec.Raw],
        msgspec.Meta(
            min_length=1,
            max_length=MAX_BATCH_EVENTS,
            description="each an EventIn, answered on its own (a bad one: its own 400 result)",
        ),
    ]


class RolloutTarget(_Strict, kw_only=True):
    """Exactly one of ``signatureProfile`` or ``signingKey`` (an engine key id)."""

    signature_profile: Literal["hookproof.sig.v1", "standard-webhooks.v1"] | None = None
    signing_key: str | None = None


class RolloutCreate(_Strict, kw_only=True):
    target: RolloutTarget
    subscriptions: list[str] | Literal["all"]
    internal: list[str] = []
    #: how long a switched subscription gets both signatures (default: the VERIFY_ONLY window)
    dual_window_s: DualWindowS | None = None


class RolloutAdvance(_Strict, kw_only=True):
    stage: Literal["INTERNAL", "CUTOVER", "COMPLETE"]
    percent: Percent | None = None


class RecoverIn(_Strict, kw_only=True):
    """``POST /v1/subscriptions/{id}/recover``: deliveries in ``states`` whose state was last
    changed in ``[since, until)`` go back to RETRYABLE (at most ``limit`` per call)."""

    since: str
    until: str | None = None
    states: list[str] | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=MAX_RECOVER)] | None = None


class ConsumerCreate(_Strict, kw_only=True):
    """``POST /v1/consumers``: ``id`` chosen by the tenant (1..64 of ``[A-Za-z0-9._:-]``)."""

    id: ConsumerId
    name: Text200
    metadata: dict[str, Any] = {}


class ConsumerPatch(_Strict, kw_only=True):
    name: Text200 | msgspec.UnsetType = msgspec.UNSET
    metadata: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET


class ConsumerDisable(_Strict, kw_only=True):
    reason: Text500 | None = None


class PortalSessionCreate(_Strict, kw_only=True):
    """``POST /v1/consumers/{id}/portal-sessions``."""

    ttl_seconds: TtlSeconds = 3600
    capabilities: list[str] = msgspec.field(default_factory=lambda: ["read", "manage", "replay"])


class PortalSessionItem(_Strict, kw_only=True):
    """One live session in ``GET /v1/consumers/{id}/portal-sessions``. ``capabilities`` is its
    scope; ``creator`` is ``token:<tokenId>`` (the tenant token that started it: its public
    id, as ``hookproof tenant revoke-token`` takes it), ``operator`` (``hookproof tenant
    portal-session``) or ``unknown`` (started before creators were recorded). Never the token
    or its digest."""

    id: str
    consumer_id: str
    capabilities: list[Literal["read", "manage", "replay"]]
    creator: str
    created_at: str
    expires_at: str


class PortalSessionPage(_Strict, kw_only=True):
    """``GET /v1/consumers/{id}/portal-sessions``: live sessions (not ended, not expired),
    oldest first; ``limit`` (1..500, default 100) and ``cursor`` as every list."""

    items: list[PortalSessionItem]
    next_cursor: str | None


class PortalSessionsEnded(_Strict, kw_only=True):
    """``DELETE /v1/consumers/{id}/portal-sessions``: how many live sessions it ended."""

    ended: int


class TenantCreate(_Strict, kw_only=True):
    """``POST /v1/tenants`` (operator token)."""

    name: Text200


# -- responses --------------------------------------------------------------------------------


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

    headers: list[tuple[str, str]]
    excerpt: str
    body_bytes: int
    excerpt_truncated: bool
    headers_truncated: bool


class TestEventIn(_Strict, kw_only=True):
    """``POST /v1/subscriptions/{id}/test-events``: send the event catalogue's example of
    ``topic`` (one the subscription takes; default: its only exact topic) at major
    ``version`` (default: the newest the subscription accepts with an example) to this one
    endpoint, through the normal delivery path. The event's id is ``hookproof-test-<hex>``
    (a reserved space) and its ``event.ingested`` says ``test: true``; the log marks its
    delivery ``test``. 202 with the ingest answer."""

    __test__ = False  # not a pytest class

    topic: str | None = None
    version: EventVersion | None = None


class PortalBrandingIn(_Strict, kw_only=True):
    """``PUT /v1/portal/branding`` (a tenant token): how the tenant's customers see the portal,
    replaced whole. ``displayName`` 1..80 printable characters; ``logoUrl`` an ``https://`` URL
    (no credentials, at most 500 characters); ``accentColour`` ``#rrggbb``, dark enough for
    white text on it (contrast at least 4.5:1); ``frameAncestors``: at most 10 origins
    (``https://host[:port]``) allowed to embed ``/portal/{tenantId}`` in a frame (default none:
    the portal cannot be framed). Refusals: ``invalid_display_name``, ``invalid_logo_url``,
    ``invalid_accent_colour``, ``low_contrast_accent``, ``invalid_frame_ancestor``."""

    display_name: str | None = None
    logo_url: str | None = None
    accent_colour: str | None = None
    frame_ancestors: list[str] = msgspec.field(default_factory=list)


class PortalBranding(msgspec.Struct, kw_only=True, rename="camel"):
    """``GET /v1/portal/branding`` (the tenant, or a portal session of one of its consumers):
    the branding as set, ``null`` fields where none is."""

    display_name: str | None
    logo_url: str | None
    accent_colour: str | None
    frame_ancestors: list[str]
