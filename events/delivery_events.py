"""Events of business events (``event-<tenantId>/<eventId>``) and deliveries
(``delivery-<deliveryId>``).

A business event's identity is ``(tenant, eventId)``: two tenants may use the same eventId and
never share a stream, an idempotency decision or a conflict. Streams written before tenancy was
part of the identity are named ``event-<eventId>`` (see :func:`legacy_event_stream_id`); they
stay readable, and belong to the tenant that ingested them first.

A delivery's stream is its ledger: planned for one subscription generation, every admitted
attempt with what was signed and where it went, every outcome, and how far the evidence got.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from hookproof.schemas.api import EVENT_ID_PATTERN

from .catalogue import Event

#: ``DeliveryReplayRequested.by`` of the receipt-timeout worker (a redelivery, not a replay).
REDELIVERY_ACTOR = "system:receipt-timeout"

__all__ = [
    "DELIVERY_ID",
    "EVENT_ID",
    "REDELIVERY_ACTOR",
    "ApplicationConfirmed",
    "AttemptAdmitted",
    "AttemptFailed",
    "AttemptLost",
    "AttemptRequest",
    "AttemptResponse",
    "DeadLettered",
    "DeliveriesRecovered",
    "DeliveryPlanned",
    "DeliveryQuarantined",
    "DeliveryReplayRequested",
    "DeliverySkipped",
    "EndpointAccepted",
    "EventIngested",
    "EventPayloadConflict",
    "FilterDecision",
    "OrderingGapSkipped",
    "ReceiptConflict",
    "ReceiptRefusalsCounted",
    "ReceiptRejected",
    "delivery_id_of",
    "delivery_stream_id",
    "event_stream_id",
    "legacy_event_stream_id",
]

_STREAM_MAX = 200


def event_stream_id(tenant_id: str, event_id: str) -> str:
    """The stream of one tenant's business event: ``event-<tenantId>/<eventId>``.

    ``/`` never occurs in an eventId, so no tenant's stream can be named like a legacy stream
    or like another tenant's. An id too long for a stream id is replaced by ``~`` and its
    sha-256 (``~`` never occurs in an eventId either).
    """
    sid = f"event-{tenant_id}/{event_id}"
    if len(sid) <= _STREAM_MAX:
        return sid
    return f"event-{tenant_id}/~{hashlib.sha256(event_id.encode()).hexdigest()}"


def legacy_event_stream_id(event_id: str) -> str:
    """The stream name used before event ids were tenant-scoped (read-only history)."""
    return f"event-{event_id}"


class FilterDecision(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A subscription's ``filters`` evaluated when an event was planned: which generation,
    the digest of the filters that decided, and whether they held."""

    subscription_id: str
    generation: int
    filters_digest: str
    held: bool


class EventIngested(Event, frozen=True, kw_only=True, tag="event.ingested"):
    event_id: str
    #: the owner of ``(tenant_id, event_id)``; ``None`` only in legacy ``event-<eventId>`` streams
    tenant_id: str | None = None
    topic: str
    version: str
    aggregate_id: str
    aggregate_version: int
    occurred_at: str
    payload_digest: str
    body_size: int
    deliveries: list[str]
    at: str
    #: the consumer it was published for (None: only consumer-less subscriptions)
    consumer_id: str | None = None
    #: a test event sent to one endpoint from the catalogue's example (absent: a real one)
    test: bool | UnsetType = UNSET
    #: the CloudEvents ``source`` the sender gave (absent: none given)
    source: str | UnsetType = UNSET
    #: the sender's other CloudEvents extension attributes (absent: none)
    extensions: dict[str, str | int | bool] | UnsetType = UNSET
    #: the candidate subscriptions whose ``filters`` were evaluated and did not hold (those
    #: that held have a delivery, whose ``delivery.planned`` names the digest)
    filtered: list[FilterDecision] | UnsetType = UNSET


class EventPayloadConflict(Event, frozen=True, kw_only=True, tag="event.payload_conflict"):
    """The same eventId arrived with another payload; nothing else changed."""

    event_id: str
    tenant_id: str | None = None
    existing_digest: str
    offered_digest: str
    at: str


class DeliveryPlanned(Event, frozen=True, kw_only=True, tag="delivery.planned"):
    delivery_id: str
    event_id: str
    subscription_id: str
    tenant_id: str
    generation: int
    endpoint: str
    endpoint_digest: str
    payload_digest: str
    topic: str
    owner: str
    receipts: bool
    max_attempts: int
    at: str
    #: ``ordering: "aggregate"`` at planning: the aggregate, its version and how long a
    #: missing earlier version is waited for (None: unordered)
    aggregate_id: str | None = None
    aggregate_version: int | None = None
    ordering_gap_timeout_s: float | None = None
    #: the digest of the subscription's ``filters`` that held for the event (None: it has none)
    filters_digest: str | None = None


class AttemptAdmitted(Event, frozen=True, kw_only=True, tag="delivery.attempt_admitted"):
    """DISPATCHING: written before any byte is sent, after the fencing check passed."""

    delivery_id: str
    attempt: int
    generation: int
    subscription_version: int
    endpoint: str
    payload_digest: str
    key_id: str
    key_generation: int
    signature_alg: str
    dispatcher: str
    lease_until: str
    drain: bool = False
    reconciles: bool = False
    at: str
    # Rollouts of a signing change: the rollout (and its stream version) the admission was
    # decided under, its stage, the signing mode and every signature to put on the request
    # ("profile:keyId"). The sender signs exactly these, never a later stage's.
    subscription_id: str | None = None
    rollout_id: str | None = None
    rollout_version: int | None = None
    rollout_stage: str | None = None
    signing_mode: str | None = None
    signed_with: list[str] | None = None


class AttemptResponse(msgspec.Struct, frozen=True, kw_only=True):
    """What came back to one attempt, bounded and redacted at the engine's edge
    (``engine/destinations/https/response_excerpt.py`` states the limits): the answer's headers
    (secrets replaced by ``[redacted]``), the first bytes of its body as text, and how many
    body bytes there were. Stored in the delivery's stream, so retention archives it with it."""

    headers: list[tuple[str, str]]
    excerpt: str
    body_bytes: int
    excerpt_truncated: bool = False
    headers_truncated: bool = False


class AttemptRequest(msgspec.Struct, frozen=True, kw_only=True):
    """What of one attempt's request cannot be rebuilt from the rest of the stream, recorded
    with its outcome (at most about 120 bytes; in the delivery's stream, so retention archives
    it with it): the ``traceparent`` sent (made per attempt, 55 characters), the signatures'
    ``created`` time (Unix seconds; also ``webhook-timestamp``) and the signature
    ``profiles`` used (at most 3). Everything else a request carried (method, target, ids,
    content type and digest, the body) follows from the delivery's events and its event's
    stored body (``engine/delivery/request_view.py``); signature values are never recorded."""

    traceparent: str | None
    created: int
    profiles: list[str]
    #: a transformed attempt: the hex sha-256 of the code, of the input and of the output
    #: (``{"code", "input", "output"}``; DESIGN.md section 17); absent: not transformed
    transformation: dict[str, str | int] | UnsetType = UNSET


class EndpointAccepted(Event, frozen=True, kw_only=True, tag="delivery.endpoint_accepted"):
    """A 2xx: the endpoint accepted the bytes. Nothing more is inferred.

    ``body_truncated``: the answer's body was framed by the connection's end and that end came
    without a TLS close_notify (a bare FIN anyone on the path can forge), so the body may be
    incomplete; the status line came whole and stands. Written only when true (absent: the
    body ended where its framing said, or the event predates the field)."""

    delivery_id: str
    attempt: int
    status: int | None  # None for a broker: its confirmation is in ``broker``
    peer_address: str | None
    spki_sha256: str | None
    duration_ms: float
    at: str
    body_truncated: bool | UnsetType = UNSET
    #: a broker destination's confirmation (DESIGN.md 13): AMQP confirmed/returned, NATS
    #: stream/seq/duplicate, the peer; written only for a broker
    broker: dict[str, Any] | UnsetType = UNSET
    #: the forward proxy it went through (``HOOKPROOF_EGRESS_PROXY``); written only then
    proxy: str | UnsetType = UNSET
    #: the answer's headers and body excerpt (absent: recorded before issue 39)
    response: AttemptResponse | UnsetType = UNSET
    #: what of the request cannot be rebuilt (absent: recorded before session 10)
    request: AttemptRequest | UnsetType = UNSET


class AttemptFailed(Event, frozen=True, kw_only=True, tag="delivery.attempt_failed"):
    """RETRYABLE (nothing or a refusal/failure status came back) or UNKNOWN_TRANSPORT
    (the request may have been written and no response came back)."""

    delivery_id: str
    attempt: int
    outcome: str  # RETRYABLE | UNKNOWN_TRANSPORT
    code: str
    status: int | None = None
    location: str | None = None
    request_written: bool
    peer_address: str | None = None
    retry_at: str
    #: why a ``Retry-After`` header was not used (unparsable, out of range...); None: used/absent
    retry_after_ignored: str | None = None
    duration_ms: float
    at: str
    #: as in :class:`EndpointAccepted`: the status stands, the body may be incomplete
    body_truncated: bool | UnsetType = UNSET
    #: what the broker returned (nack, return, no ack), for a broker destination only
    broker: dict[str, Any] | UnsetType = UNSET
    #: as in :class:`EndpointAccepted`
    proxy: str | UnsetType = UNSET
    #: as in :class:`EndpointAccepted` (only when a response came back)
    response: AttemptResponse | UnsetType = UNSET
    #: as in :class:`EndpointAccepted`
    request: AttemptRequest | UnsetType = UNSET


class AttemptLost(Event, frozen=True, kw_only=True, tag="delivery.attempt_lost"):
    """A dispatcher's lease ran out with the attempt in flight (crash, kill): outcome unknown."""

    delivery_id: str
    attempt: int
    dispatcher: str
    retry_at: str
    at: str


class DeadLettered(Event, frozen=True, kw_only=True, tag="delivery.dead_lettered"):
    delivery_id: str
    attempt: int
    owner: str
    reason: str
    replay: str
    at: str


class DeliveryQuarantined(Event, frozen=True, kw_only=True, tag="delivery.quarantined"):
    """Refused at admission (stale generation, closed subscription) and set aside."""

    delivery_id: str
    reason: str
    planned_generation: int
    current_generation: int
    subscription_state: str
    at: str


class DeliveryReplayRequested(Event, frozen=True, kw_only=True, tag="delivery.replay_requested"):
    """One more attempt, same identity. ``replay_id``: the bulk replay that asked (``replay-<id>``
    stream), absent for a single replay or a recovery."""

    delivery_id: str
    by: str
    at: str
    replay_id: str | None = None


class ReceiptRefusalsCounted(Event, frozen=True, kw_only=True, tag="receipts.refusals_counted"):
    """Refused receipts naming one subscription over ``[since, until)``, counted by reason
    code (a fixed set). Written by the engine's own timer, at most one per subscription per
    interval; nothing a sender chose (key ids, bodies) is ever stored."""

    subscription_id: str
    counts: dict[str, int]
    since: str
    until: str


class DeliveriesRecovered(Event, frozen=True, kw_only=True, tag="deliveries.recovered"):
    """One recovery call (on the subscription's stream): who, over which range and states,
    and how many deliveries went back to RETRYABLE (each with its own replay_requested)."""

    subscription_id: str
    by: str
    since: str
    until: str | None = None
    states: list[str]
    count: int
    recovery_id: str
    at: str


class OrderingGapSkipped(Event, frozen=True, kw_only=True, tag="delivery.ordering_gap_skipped"):
    """Ordered delivery: versions ``missing_from``..``missing_to`` of the aggregate never
    arrived within the gap timeout; this delivery goes on without them."""

    delivery_id: str
    aggregate_id: str
    missing_from: int
    missing_to: int
    waited_s: float
    at: str


class DeliverySkipped(Event, frozen=True, kw_only=True, tag="delivery.skipped"):
    """A dead letter given up (``POST /v1/deliveries/{id}/skip``): it releases its aggregate
    to the next version; it is never sent again."""

    delivery_id: str
    by: str
    at: str


class ApplicationConfirmed(Event, frozen=True, kw_only=True, tag="delivery.application_confirmed"):
    """A valid signed applicationReceipt.v1 from the subscriber."""

    delivery_id: str
    event_id: str
    subscription_id: str
    payload_digest: str
    operation_id: str
    result: str
    applied_at: str
    receipt_key_id: str
    receipt_key_generation: int
    receipt_digest: str
    at: str


class ReceiptConflict(Event, frozen=True, kw_only=True, tag="delivery.receipt_conflict"):
    """A receipt whose payload digest differs from the delivered one: quarantined."""

    delivery_id: str
    event_id: str
    subscription_id: str
    delivered_digest: str
    receipt_digest: str
    operation_id: str
    at: str


class ReceiptRejected(Event, frozen=True, kw_only=True, tag="receipt.rejected"):
    """A receipt refused before it could touch any delivery (counted, kept for audit)."""

    subscription_id: str
    event_id: str | None
    reason: str
    key_id: str | None
    delivery_id: str | None = None
    key_generation: int | None = None
    at: str


DELIVERY_PREFIX = "delivery-"


#: what an event id (chosen by the tenant) may be
EVENT_ID = re.compile(EVENT_ID_PATTERN)
#: the format of every delivery id the engine makes (``dlv_`` + 28 hex)
DELIVERY_ID = re.compile(r"^dlv_[0-9a-f]{28}$")


def delivery_stream_id(delivery_id: str) -> str:
    """The stream of one delivery (one event to one subscription): ``delivery-<deliveryId>``."""
    return f"{DELIVERY_PREFIX}{delivery_id}"


def delivery_id_of(stream_id: str) -> str | None:
    """The delivery id of a delivery stream's id; None for any other stream."""
    return stream_id[len(DELIVERY_PREFIX) :] if stream_id.startswith(DELIVERY_PREFIX) else None
