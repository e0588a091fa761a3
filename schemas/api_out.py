"""API response bodies as msgspec types (JSON, camelCase): the OpenAPI document's success
schemas are generated from them. Open to additions (no ``forbid_unknown_fields``): a field a
later version adds never breaks a client generated from an earlier document; the fields
listed without a default are always present."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

__all__ = [
    "AttemptRequestView",
    "Consumer",
    "ConsumerPage",
    "Delivery",
    "DeliveryAttempt",
    "DeliveryList",
    "DeliveryRef",
    "EventAccepted",
    "EventBatchResult",
    "EventBatchResults",
    "Jwks",
    "Page",
    "PortalSessionStarted",
    "Problem",
    "Recovered",
    "RequestBody",
    "Subscription",
    "SubscriptionCreated",
    "SubscriptionPage",
    "TenantCreated",
    "Whoami",
]


class _Out(msgspec.Struct, kw_only=True, rename="camel"):
    pass


class Problem(_Out, kw_only=True):
    """RFC 9457 problem details with a stable ``code`` (``field``: the offending input)."""

    type: str
    title: str
    status: int
    detail: str | msgspec.UnsetType = msgspec.UNSET
    code: str
    field: str | msgspec.UnsetType = msgspec.UNSET


class Subscription(_Out, kw_only=True):
    """A subscription as ``GET /v1/subscriptions/{id}`` answers it (ETag: its generation)."""

    id: str
    tenant_id: str
    generation: int
    state: str
    endpoint: str | None
    topics: list[str]
    event_versions: list[int]
    signature_algorithm: str
    signature_profile: str
    ordering: str
    consumer_id: str | None
    version: int
    created_at: str
    updated_at: str


class SubscriptionCreated(Subscription, kw_only=True):
    """``POST /v1/subscriptions``: the subscription, with its shared secret shown once
    (hmac-sha256 only: ``whsec_...`` or base64)."""

    secret: str | msgspec.UnsetType = msgspec.UNSET


class SubscriptionPage(_Out, kw_only=True):
    items: list[Subscription]
    next_cursor: str | None


class Consumer(_Out, kw_only=True):
    id: str
    tenant_id: str
    name: str
    metadata: dict[str, Any]
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


class EventAccepted(_Out, kw_only=True):
    """``POST /v1/events`` (202): the event and the deliveries planned for it (``created``:
    false when the same ``eventId`` and payload were accepted before)."""

    event_id: str
    payload_digest: str
    deliveries: list[DeliveryRef]
    created: bool


class EventBatchResult(_Out, kw_only=True):
    """One event of a batch: ``status`` 202 (the fields of :class:`EventAccepted`), or 409/400
    with its ``problem``."""

    event_id: str | None
    status: Literal[202, 400, 409]
    payload_digest: str | msgspec.UnsetType = msgspec.UNSET
    deliveries: list[DeliveryRef] | msgspec.UnsetType = msgspec.UNSET
    created: bool | msgspec.UnsetType = msgspec.UNSET
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
    headers: list[tuple[str, str | None]]
    recorded: bool


class DeliveryAttempt(_Out, kw_only=True):
    """One attempt of a delivery (its outcome, status, code, timings, ``response``: what came
    back; more fields as the view grows) and ``request``: what it sent."""

    attempt: int
    outcome: str
    request: AttemptRequestView


class RequestBody(_Out, kw_only=True):
    """The body every attempt of a delivery sent: the event's canonical body (stored once per
    event), its first 64 KiB as UTF-8 ``text`` (``truncated`` beyond), ``bytes`` its size;
    ``archived`` (``text`` null) once the body has left the hot store."""

    text: str | None
    size: int | None = msgspec.field(name="bytes")
    truncated: bool
    archived: bool


class Delivery(_Out, kw_only=True):
    """A delivery (its state, evidence and attempts; more fields as the view grows), with
    ``requestBody``, what its attempts sent, once."""

    delivery_id: str
    subscription_id: str
    state: str
    attempts: list[DeliveryAttempt]
    request_body: RequestBody


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
    expires_at: str


class TenantCreated(_Out, kw_only=True):
    tenant_id: str
    token: str


class Whoami(_Out, kw_only=True):
    kind: Literal["tenant", "operator", "portal"]
    tenant_id: str | msgspec.UnsetType = msgspec.UNSET
    consumer_id: str | msgspec.UnsetType = msgspec.UNSET
    session_id: str | msgspec.UnsetType = msgspec.UNSET


class Recovered(_Out, kw_only=True):
    recovered: int
    delivery_ids: list[str]


class Jwks(_Out, kw_only=True):
    keys: list[dict[str, Any]]
