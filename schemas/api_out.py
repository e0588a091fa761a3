"""API response bodies as msgspec types (JSON, camelCase): the OpenAPI document's success
schemas are generated from them. Each names every member the engine sends (the document closes
them: ``additionalProperties: false``, issue 49); the fields listed without a default are
always present, the ``UnsetType`` ones only where they apply."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from .api import AttemptResponseView, DeliveryEvidence, Metadata
from .api_filters import (
    DeliveryFilters,
    FilterOutcome,
    FilterOutcomeError,
    FiltersEvaluated,
)
from .api_operator import (
    EngineKeyRotated,
    Gate,
    GateReport,
    Rollout,
    RolloutCutoverFigures,
    RolloutInternalFigures,
    RolloutPage,
    RolloutShadowFigures,
    RolloutSwitch,
    RolloutTargetOut,
)
from .api_views import (
    ApplicationReceiptView,
    AuthView,
    BrokerAnswer,
    ChallengeOutcome,
    DeadLetterInfo,
    DestinationView,
    Jwk,
    OrderingInfo,
    PendingChallenge,
    Problem,
    RateLimitView,
    ReceiptConflictView,
    ReceiptKeyView,
    RetryPolicyView,
)
from .transformations import TransformationView

U = msgspec.UnsetType
UNSET = msgspec.UNSET
#: a JSON object whose members are the caller's own or another document's (a subscription's
#: filter as given, an event's recorded data, a gate's figures): open, and the document says so
FreeForm = Annotated[
    dict[str, Any],
    msgspec.Meta(extra_json_schema={"additionalProperties": True}),
]

__all__ = [
    "AttemptRequestView",
    "ChallengeAnswered",
    "Consumer",
    "ConsumerPage",
    "DeadLetter",
    "DeadLetterPage",
    "Delivery",
    "DeliveryAttempt",
    "DeliveryFilters",
    "DeliveryList",
    "DeliveryRef",
    "EngineKeyRotated",
    "EventAccepted",
    "EventBatchResult",
    "EventBatchResults",
    "EventDelivery",
    "EventType",
    "EventTypePage",
    "EventView",
    "FilterOutcome",
    "FilterOutcomeError",
    "FiltersEvaluated",
    "Gate",
    "GateReport",
    "Health",
    "HistoryEvent",
    "HistoryPage",
    "Jwks",
    "Page",
    "PortalSessionStarted",
    "Problem",
    "Readiness",
    "ReceiptConfirmed",
    "Recovered",
    "RequestBody",
    "Rollout",
    "RolloutCutoverFigures",
    "RolloutInternalFigures",
    "RolloutPage",
    "RolloutShadowFigures",
    "RolloutSwitch",
    "RolloutTargetOut",
    "SecretRotated",
    "Subscription",
    "SubscriptionChallenged",
    "SubscriptionCreated",
    "SubscriptionPage",
    "TenantCreated",
    "TestEventSent",
    "Timeline",
    "TimelineEntry",
    "UnplannedReason",
    "Whoami",
]


class _Out(msgspec.Struct, kw_only=True, rename="camel"):
    pass


#: one major version of an event type as stored (``schema`` an object or a boolean)
EventTypeVersionView = Annotated[
    dict[str, Any],
    msgspec.Meta(
        extra_json_schema={
            "properties": {
                "schema": {
                    "description": "JSON Schema 2020-12: an object or a boolean",
                    "anyOf": [{"type": "object", "additionalProperties": {}}, {"type": "boolean"}],
                },
                "example": {"description": "a payload valid under the schema (any JSON)"},
            },
            "required": ["schema", "example"],
            "additionalProperties": False,
        }
    ),
]


class Subscription(_Out, kw_only=True):
    """A subscription as ``GET /v1/subscriptions/{id}`` answers it (ETag: its generation)."""

    id: str
    tenant_id: str
    generation: int
    state: str
    endpoint: str | None
    endpoint_digest: str | None
    topics: list[str]
    event_versions: list[int]
    region: str
    signature_algorithm: Literal["ed25519", "hmac-sha256"]
    signature_profile: Literal["hookproof.sig.v1", "standard-webhooks.v1"]
    ordering: Literal["none", "aggregate"]
    ordering_gap_timeout_s: float
    format: Literal["hookproof", "cloudevents-structured", "cloudevents-binary"]
    retry_policy: RetryPolicyView
    expires_at: str | None
    owner: str
    receipt_key: ReceiptKeyView | None
    old_generation_policy: Literal["drain", "quarantine"]
    consumer_id: str | None
    auth: AuthView | None
    rate_limit: RateLimitView | None
    verified_generation: int | None
    application_evidence: Literal["RECEIPTS", "UNOBSERVABLE"]
    #: the filters that must all hold (a legacy ``filter`` shown converted; empty: none)
    filters: list[Any]
    version: int
    created_at: str
    updated_at: str
    destination: DestinationView | U = UNSET
    #: the transformation run before each attempt is signed (DESIGN.md section 17)
    transformation: TransformationView | U = UNSET
    pending_challenge: PendingChallenge | U = UNSET
    #: why the subscription is not ACTIVE or what its last challenge said (a reason code)
    last_reason: str | U = UNSET
    #: the endpoint's answer's status, with ``lastReason`` ``bad_status``
    last_status: int | U = UNSET
    #: what ``lastReason`` means and what to do
    last_reason_detail: str | U = UNSET


class SubscriptionCreated(Subscription, kw_only=True):
    """``POST /v1/subscriptions``: the subscription, with its shared secret shown once
    (hmac-sha256 only: ``whsec_...`` or base64)."""

    secret: str | msgspec.UnsetType = msgspec.UNSET


class SubscriptionChallenged(Subscription, kw_only=True):
    """``POST /v1/subscriptions/{id}/challenge``: the subscription after the challenge, and
    the challenge's outcome."""

    challenge: ChallengeOutcome


class SubscriptionPage(_Out, kw_only=True):
    items: list[Subscription]
    next_cursor: str | None


class Consumer(_Out, kw_only=True):
    id: str
    tenant_id: str
    name: str
    metadata: Metadata
    state: Literal["ACTIVE", "DISABLED"]
    disabled: bool
    version: int
    created_at: str
    updated_at: str


class ConsumerPage(_Out, kw_only=True):
    items: list[Consumer]
    next_cursor: str | None


class DeliveryRef(_Out, kw_only=True):
    delivery_id: str
    subscription_id: str


class UnplannedReason(_Out, kw_only=True):
    """Why an event was planned for no subscription: a stable ``reason`` code, what to do
    (``detail``) and how many subscriptions it concerns."""

    reason: str
    detail: str
    subscriptions: int


class EventAccepted(_Out, kw_only=True):
    """``POST /v1/events`` (202): the event and the deliveries planned for it (``created``:
    false when the same ``eventId`` and payload were accepted before)."""

    event_id: str
    payload_digest: str
    deliveries: list[DeliveryRef]
    created: bool
    #: with ``deliveries`` empty: why no subscription was planned, one entry per cause
    reasons: list[UnplannedReason] | U = UNSET


class EventBatchResult(_Out, kw_only=True):
    """One event of a batch: ``status`` 202 (the fields of :class:`EventAccepted`), or 409/400
    with its ``problem``."""

    event_id: str | None
    status: Literal[202, 400, 409]
    payload_digest: str | msgspec.UnsetType = msgspec.UNSET
    deliveries: list[DeliveryRef] | msgspec.UnsetType = msgspec.UNSET
    created: bool | msgspec.UnsetType = msgspec.UNSET
    reasons: list[UnplannedReason] | U = UNSET
    problem: Problem | msgspec.UnsetType = msgspec.UNSET


class EventBatchResults(_Out, kw_only=True):
    results: list[EventBatchResult]


class AttemptRequestView(_Out, kw_only=True):
    """What one attempt sent: ``method`` (``POST``; ``null`` for a broker, which publishes),
    ``target`` (the endpoint, or the broker destination URI), ``headers`` (``[name, value]``
    in the order sent; ``Signature-Input``, ``Signature`` and ``webhook-signature`` read
    ``[redacted]``; an endpoint authentication header is not listed). Rebuilt from the
    delivery's events; ``traceparent`` and ``webhook-timestamp`` are recorded with the
    attempt's outcome (``recorded``: false for an attempt without one, lost with its
    dispatcher or sent before it was recorded: those values are then ``null``)."""

    method: str | None
    target: str
    # [name, value] pairs; typed as lists, not tuples, so the document has no `items: false`
    # (prefixItems) that generators cannot read
    headers: list[list[str | None]]
    recorded: bool


class DeliveryAttempt(_Out, kw_only=True):
    """One attempt of a delivery (its outcome, status, code, timings, ``response``: what came
    back; more fields as the view grows) and ``request``: what it sent."""

    attempt: int
    admitted_at: str
    generation: int
    endpoint: str | None
    key_id: str | None
    key_generation: int | None
    signature_algorithm: str
    dispatcher: str | None
    drain: bool
    #: DISPATCHING while in flight, then ENDPOINT_ACCEPTED, RETRYABLE, DEAD_LETTER,
    #: UNKNOWN_TRANSPORT... (RELAY_REPORTED: a relay's report)
    outcome: str
    request: AttemptRequestView
    #: the answer's status (null: no answer)
    status: int | U | None = UNSET
    #: why it failed (a stable reason code)
    code: str | U | None = UNSET
    #: a redirect's target (never followed)
    location: str | U | None = UNSET
    request_written: bool | U | None = UNSET
    peer_address: str | U | None = UNSET
    spki_sha256: str | U | None = UNSET
    retry_at: str | U | None = UNSET
    duration_ms: float | U | None = UNSET
    completed_at: str | U = UNSET
    #: the answer's body ended with the connection, without TLS close_notify
    body_truncated: bool | U = UNSET
    #: what came back (null: nothing, or recorded before answers were)
    response: AttemptResponseView | U | None = UNSET
    #: a broker destination's answer
    broker: BrokerAnswer | U = UNSET
    #: the forward proxy the attempt went through
    proxy: str | U = UNSET


class RequestBody(_Out, kw_only=True):
    """The body every attempt of a delivery sent: the event's canonical body (stored once per
    event), its first 64 KiB as UTF-8 ``text`` (``truncated`` beyond), ``bytes`` its size;
    ``archived`` (``text`` null) once the body has left the hot store."""

    text: str | None
    size: int | None = msgspec.field(name="bytes")
    truncated: bool
    archived: bool


class Delivery(_Out, kw_only=True):
    """A delivery: its state, evidence ladder and attempts (each with its outcome, status,
    code, timings, ``response``: what came back, and ``request``: what it sent);
    ``requestBody``, what its attempts sent, once; ``deadLetter``, ``ordering``,
    ``applicationReceipt``, ``receiptConflicts`` and ``archived`` when they apply."""

    delivery_id: str
    event_id: str
    test: bool
    subscription_id: str
    generation: int
    endpoint: str | None
    state: str
    evidence: DeliveryEvidence
    payload_digest: str
    attempt: int
    next_attempt_at: str | None
    last_code: str | None
    #: what ``lastCode`` means and what to do (a broker's own words on its refusal first)
    last_code_detail: str | msgspec.UnsetType = msgspec.UNSET
    owner: str | None
    attempts: list[DeliveryAttempt]
    request_body: RequestBody
    created_at: str
    updated_at: str
    dead_letter: DeadLetterInfo | msgspec.UnsetType = msgspec.UNSET
    ordering: OrderingInfo | msgspec.UnsetType = msgspec.UNSET
    #: the subscription's filters when it was planned: their ``digest`` and ``held`` (true);
    #: absent when it had none
    filters: DeliveryFilters | msgspec.UnsetType = msgspec.UNSET
    application_receipt: ApplicationReceiptView | msgspec.UnsetType = msgspec.UNSET
    receipt_conflicts: list[ReceiptConflictView] | msgspec.UnsetType = msgspec.UNSET
    archived: bool | msgspec.UnsetType = msgspec.UNSET


class DeliveryList(_Out, kw_only=True):
    items: list[dict[str, Any]]


class Page(_Out, kw_only=True):
    """A page of a list: ``nextCursor`` is null on the last page; pass it back as ``cursor``."""

    items: list[dict[str, Any]]
    next_cursor: str | None


class PortalSessionStarted(_Out, kw_only=True):
    """``POST /v1/consumers/{id}/portal-sessions``: the token and the console link, once."""

    session_id: str
    consumer_id: str
    capabilities: list[Literal["read", "manage", "replay"]]
    token: str
    url: str
    #: the same page under the tenant's branding policy (frame-ancestors): the link to embed
    embed_url: str
    expires_at: str


class TenantCreated(_Out, kw_only=True):
    tenant_id: str
    token: str


class Whoami(_Out, kw_only=True):
    kind: Literal["tenant", "operator", "portal"]
    tenant_id: str | msgspec.UnsetType = msgspec.UNSET
    consumer_id: str | msgspec.UnsetType = msgspec.UNSET
    session_id: str | msgspec.UnsetType = msgspec.UNSET
    #: a portal session's scope and end
    capabilities: list[Literal["read", "manage", "replay"]] | U = UNSET
    expires_at: str | U = UNSET


class Recovered(_Out, kw_only=True):
    """``POST /v1/subscriptions/{id}/recover``: how many went back to RETRYABLE and which
    (``nextSince``: more remain, call again from there; ``recoveryId``: the recovery's id
    in the log)."""

    recovered: int
    delivery_ids: list[str]
    next_since: str | U = UNSET
    recovery_id: str | U = UNSET


class Jwks(_Out, kw_only=True):
    """The engine's public signing keys, newest generation first."""

    keys: list[Jwk]


class Health(_Out, kw_only=True):
    """``GET /healthz``: the process answers."""

    status: Literal["ok"]


class Readiness(_Out, kw_only=True):
    """``GET /readyz`` (200): the database answers, its schema is current and the master key
    opens its sealed material (else 503)."""

    status: Literal["ready"]


class ChallengeAnswered(_Out, kw_only=True):
    """``POST /v1/challenges/{challengeId}/response``: the broker challenge passed."""

    challenge_id: str
    passed: bool
    reason: str | None


class TimelineEntry(_Out, kw_only=True):
    """One recorded event of a timeline, what it did and the evidence after it."""

    position: int
    stream_id: str
    version: int
    recorded_at: str
    type: str
    actor: str | None
    generation: int | None
    key_id: str | None
    outcome: str
    evidence: str
    state: str


class Timeline(_Out, kw_only=True):
    """A delivery's or a subscription's timeline from the log, paged by ``nextCursor``."""

    kind: str
    id: str
    as_of: str | None
    #: the delivery's or subscription's state as of ``asOf`` (its projection's members)
    state: FreeForm | None
    entries: list[TimelineEntry]
    next_cursor: str | None


class EventType(_Out, kw_only=True):
    """An event type (``ETag``: its ``version``): per major version a JSON Schema and an
    example."""

    topic: str
    description: str
    #: per major version ("1", "2"...): its JSON Schema 2020-12 and its example
    versions: dict[str, EventTypeVersionView]
    deprecated: bool
    version: int
    digest: str
    created_at: str
    updated_at: str


class EventTypePage(_Out, kw_only=True):
    """``GET /v1/event-types``: the catalogue by topic."""

    items: list[EventType]
    next_cursor: str | None


class EventDelivery(_Out, kw_only=True):
    delivery_id: str
    subscription_id: str
    state: str
    evidence: DeliveryEvidence
    archived: bool | msgspec.UnsetType = msgspec.UNSET


class EventView(_Out, kw_only=True):
    """``GET /v1/events/{eventId}``: an event and its deliveries (``archived``: read from the
    archive)."""

    event_id: str
    topic: str
    payload_digest: str
    deliveries: list[EventDelivery]
    archived: bool | msgspec.UnsetType = msgspec.UNSET


class SecretRotated(_Out, kw_only=True):
    """``POST /v1/subscriptions/{id}/secret/rotate``: the next shared secret, shown once."""

    key_id: str
    secret: str
    replaced_key_ids: list[str] | msgspec.UnsetType = msgspec.UNSET


class ReceiptConfirmed(_Out, kw_only=True):
    """``POST /v1/receipts``: 201 ``accepted``, 200 ``duplicate`` (the same receipt again)."""

    receipt: Literal["accepted", "duplicate"]
    delivery_id: str
    event_id: str
    subscription_id: str
    state: str
    evidence: DeliveryEvidence
    operation_id: str
    result: str
    applied_at: str
    confirmed_at: str


class DeadLetter(_Out, kw_only=True):
    """A dead letter with its owner, its reason and the request that replays it."""

    delivery_id: str
    event_id: str
    subscription_id: str
    owner: str
    reason: str | None
    attempt: int
    replay: str
    dead_since: str | None


class DeadLetterPage(_Out, kw_only=True):
    """``GET /v1/dead-letters``: newest first."""

    items: list[DeadLetter]
    next_cursor: str | None


class HistoryEvent(_Out, kw_only=True):
    """One recorded event of a subscription's stream (``data`` with secrets redacted)."""

    stream_version: int
    global_position: int
    event_id: str
    type: str
    schema_version: int
    recorded_at: str
    actor: str | None
    data: FreeForm
    hash: str


class HistoryPage(_Out, kw_only=True):
    """``GET /v1/subscriptions/{id}/history``: the stream in order."""

    items: list[HistoryEvent]
    next_cursor: str | None


class TestEventSent(_Out, kw_only=True):
    """``POST /v1/subscriptions/{id}/test-events`` (202): the test event, marked ``test``."""

    __test__ = False  # not a pytest class

    event_id: str
    payload_digest: str
    deliveries: list[DeliveryRef]
    test: bool  # always true
